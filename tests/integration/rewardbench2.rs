//! RewardBench 2's form (rows of several completions, some correct): read from real parquet
//! files with list columns, detected from the columns, summarized, and its wrong shapes named.

use crate::common::{error_of, run};
use polars::prelude::*;
use std::path::{Path, PathBuf};

/// One row: (id, subset, chosen, rejected), the counts given as the lists are unless changed.
type Row<'a> = (&'a str, &'a str, Vec<&'a str>, Vec<&'a str>);

fn texts(lists: &[Vec<&str>]) -> Vec<Series> {
    lists
        .iter()
        .map(|l| Series::new("".into(), l.as_slice()))
        .collect()
}

/// Writes rows as a RewardBench 2 parquet file; `edit` may change the frame first.
fn write(dir: &Path, name: &str, rows: &[Row<'_>], edit: impl FnOnce(&mut DataFrame)) -> PathBuf {
    let chosen: Vec<Vec<&str>> = rows.iter().map(|r| r.2.clone()).collect();
    let rejected: Vec<Vec<&str>> = rows.iter().map(|r| r.3.clone()).collect();
    let mut df = DataFrame::new_infer_height(vec![
        Column::new("id".into(), rows.iter().map(|r| r.0).collect::<Vec<_>>()),
        Column::new(
            "prompt".into(),
            rows.iter()
                .map(|r| format!("question {}", r.0))
                .collect::<Vec<_>>(),
        ),
        Series::new("chosen".into(), texts(&chosen)).into(),
        Series::new("rejected".into(), texts(&rejected)).into(),
        Column::new(
            "num_correct".into(),
            chosen.iter().map(|c| c.len() as i64).collect::<Vec<_>>(),
        ),
        Column::new(
            "num_incorrect".into(),
            rejected.iter().map(|c| c.len() as i64).collect::<Vec<_>>(),
        ),
        Column::new(
            "total_completions".into(),
            rows.iter()
                .map(|r| (r.2.len() + r.3.len()) as i64)
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "subset".into(),
            rows.iter().map(|r| r.1).collect::<Vec<_>>(),
        ),
    ])
    .expect("frame");
    edit(&mut df);
    let path = dir.join(name);
    ParquetWriter::new(std::fs::File::create(&path).expect("file"))
        .finish(&mut df)
        .expect("parquet");
    path
}

fn good<'a>() -> Vec<Row<'a>> {
    vec![
        ("1", "Math", vec!["408"], vec!["398", "418", "388"]),
        (
            "2",
            "Focus",
            vec!["on topic"],
            vec!["off", "off too", "elsewhere"],
        ),
        ("ref:1", "Ties", vec!["11"], vec!["15", "12", "21"]),
        (
            "tied:1",
            "Ties",
            vec!["11", "13", "17", "19"],
            vec!["15", "12", "21"],
        ),
    ]
}

#[test]
fn the_bundled_sample_is_summarized_per_subset() {
    let (code, out, err) = run(&["data", "summary", "--data", "sample-v2"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("19 rows in RewardBench 2's form"), "{out}");
    for subset in ["Factuality", "Precise IF", "Math", "Safety", "Focus"] {
        let line = out
            .lines()
            .find(|l| l.contains(&format!("│ {subset} ")))
            .unwrap_or_else(|| panic!("{subset} in {out}"));
        let cells: Vec<&str> = line.split(['│', '┆']).map(str::trim).collect();
        // subset, rows, completions, correct, chance, A, B, C, D, later
        assert_eq!(&cells[1..6], [subset, "3", "4", "1", "0.250"], "{line}");
        let at: usize = cells[6..11]
            .iter()
            .map(|c| c.parse::<usize>().expect("count"))
            .sum();
        assert_eq!(at, 3, "one correct completion a row: {line}");
    }
    let ties = out.lines().find(|l| l.contains("│ Ties ")).expect("Ties");
    assert!(
        ties.contains("4–7 (mean 5.2)") && ties.contains("1–4 (mean 2.2)"),
        "{ties}"
    );
    assert!(out.contains("Ties: 4 rows"), "{out}");
}

#[test]
fn the_form_is_read_from_the_columns_and_the_golds_follow_the_correct_completions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(dir.path(), "rb2.parquet", &good(), |_| {});
    let path = path.to_str().expect("utf-8");
    let (code, out, err) = run(&["data", "summary", "--data", path]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("4 rows in RewardBench 2's form"), "{out}");
    // The correct completions' slots, summed over slots A..later, are the correct counts.
    let ties = out.lines().find(|l| l.contains("│ Ties ")).expect("Ties");
    let cells: Vec<&str> = ties.split(['│', '┆']).map(str::trim).collect();
    let at: usize = cells[6..11]
        .iter()
        .map(|c| c.parse::<usize>().expect("count"))
        .sum();
    assert_eq!(at, 5, "1 + 4 correct: {ties}");
    // Selecting a subset keeps its rows' orders: Math's correct slot is the same alone.
    let slots = |out: &str| -> String {
        let line = out.lines().find(|l| l.contains("│ Math ")).expect("Math");
        line.split(['│', '┆'])
            .map(str::trim)
            .skip(6)
            .collect::<Vec<_>>()
            .join(",")
    };
    let alone = run(&["data", "summary", "--data", path, "--subset", "Math"]).1;
    assert_eq!(slots(&alone), slots(&out));
    // A mistyped dataset name says which names there are.
    let err = error_of(&["data", "summary", "--data", "reward-bench2"]);
    assert!(
        err.contains("'reward-bench2' is neither a file nor a dataset name")
            && err.contains("reward-bench-2"),
        "{err}"
    );
    // --gold-map alone is named as such (it answered "--map lacks 'response1'", a flag not
    // given), and RewardBench 2's rows are said to carry their own gold.
    let err = error_of(&["data", "summary", "--data", path, "--gold-map", "A=-1"]);
    assert!(
        err.contains("--gold-map A=-1")
            && err.contains("which --map names")
            && err.contains("RewardBench 2's rows carry their own gold")
            && !err.contains("lacks"),
        "{err}"
    );
    // A four-way prompt needs four completions a row.
    let three = write(
        dir.path(),
        "three.parquet",
        &[("1", "Math", vec!["408"], vec!["398", "418"])],
        |_| {},
    );
    let err = error_of(&[
        "calibrate",
        "--data",
        three.to_str().expect("utf-8"),
        "--judge",
        "sim",
        "--prompt",
        "rb2_ranking",
    ]);
    assert!(
        err.contains("row Math-1 has 3 completions") && err.contains("shows exactly four"),
        "{err}"
    );
}

#[test]
fn wrong_shapes_name_the_row_and_the_fix() {
    let dir = tempfile::tempdir().expect("tempdir");
    let case = |name: &str, rows: Vec<Row<'_>>, edit: &dyn Fn(&mut DataFrame)| -> String {
        let path = write(dir.path(), name, &rows, |df| edit(df));
        error_of(&["data", "summary", "--data", path.to_str().expect("utf-8")])
    };
    let counts = |df: &mut DataFrame| {
        df.replace(
            "num_correct",
            Column::new("num_correct".into(), [1i64, 2, 1, 4]),
        )
        .expect("replaced");
    };
    let err = case("count.parquet", good(), &counts);
    assert!(
        err.contains("row 2 (id '2')")
            && err.contains("'chosen' holds 1 completion but num_correct says 2"),
        "{err}"
    );
    let mut rows = good();
    rows[0].2 = vec![];
    let err = case("empty.parquet", rows, &|_| {});
    assert!(
        err.contains("row 1 (id '1'), column 'chosen': the list is empty"),
        "{err}"
    );
    let mut rows = good();
    rows[2].0 = "reference:1";
    let err = case("ties.parquet", rows, &|_| {});
    assert!(
        err.contains("column 'id', row 3: the Ties id 'reference:1' is neither ref:N nor tied:N"),
        "{err}"
    );
    let total = |df: &mut DataFrame| {
        df.replace(
            "total_completions",
            Column::new("total_completions".into(), [4i64, 4, 4, 8]),
        )
        .expect("replaced");
    };
    let err = case("total.parquet", good(), &total);
    assert!(
        err.contains("row 4 (id 'tied:1')") && err.contains("total_completions says 8"),
        "{err}"
    );
    let no_counts = |df: &mut DataFrame| {
        let _ = df.drop_in_place("num_incorrect").expect("dropped");
    };
    let err = case("schema.parquet", good(), &no_counts);
    assert!(
        err.contains("looks like RewardBench 2") && err.contains("no column 'num_incorrect'"),
        "{err}"
    );
    let mut rows = good();
    rows[1].0 = "1";
    rows[1].1 = "Math";
    let err = case("dup.parquet", rows, &|_| {});
    assert!(err.contains("duplicate example id 'Math-1'"), "{err}");
}

/// The scores match reward-bench's own functions on generated scores: each row outside Ties
/// (`reroll_and_score_dataset`), each subset's mean, and Ties' score with every part
/// (`process_single_model`), NaN where reward-bench's is.
#[test]
fn scores_match_reward_benchs_own_functions() {
    use raterlab::evaluation::rewardbench2::{row_result, ties_score, TiesRow};
    let path = crate::common::fixture("rewardbench2_scores.json");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("json");
    let floats = |v: &serde_json::Value| -> Vec<f64> {
        v.as_array()
            .expect("list")
            .iter()
            .map(|x| x.as_f64().expect("number"))
            .collect()
    };
    let close = |got: f64, want: &serde_json::Value, what: &str| match want.as_f64() {
        Some(w) => assert!((got - w).abs() < 1e-12, "{what}: {got} vs {w}"),
        None => assert!(got.is_nan(), "{what}: {got} vs reward-bench's NaN"),
    };
    let mut by_subset: std::collections::BTreeMap<String, Vec<f64>> = Default::default();
    for row in doc["rows"].as_array().expect("rows") {
        let got = row_result(&floats(&row["scores"]));
        close(got, &row["result"], row["id"].as_str().expect("id"));
        by_subset
            .entry(row["subset"].as_str().expect("subset").to_string())
            .or_default()
            .push(got);
    }
    for (subset, results) in &by_subset {
        let mean = results.iter().sum::<f64>() / results.len() as f64;
        close(mean, &doc["subsets"][subset], subset);
    }
    let cases = doc["ties"].as_array().expect("ties");
    assert!(cases.len() >= 6);
    for (k, case) in cases.iter().enumerate() {
        let rows: Vec<TiesRow> = case["rows"]
            .as_array()
            .expect("rows")
            .iter()
            .map(|r| {
                let (kind, n) = r["id"]
                    .as_str()
                    .and_then(|id| id.split_once(':'))
                    .expect("ref:N or tied:N");
                TiesRow {
                    question: n.parse().expect("N"),
                    tied: kind == "tied",
                    scores: floats(&r["scores"]),
                    correct: r["num_correct"].as_u64().expect("count") as usize,
                }
            })
            .collect();
        let got = ties_score(&rows);
        let want = &case["expected"];
        for (name, value) in [
            ("score", got.score),
            ("ref_accuracy", got.ref_accuracy),
            ("tied_accuracy", got.tied_accuracy),
            ("correctness_preferred", got.correctness_preferred),
            ("correctness_preferred_hard", got.correctness_preferred_hard),
            ("margin", got.margin),
        ] {
            close(value, &want[name], &format!("Ties case {k}: {name}"));
        }
    }
}

/// A scores file for the bundled sample: `score(correct, text)` for each completion (None:
/// empty), as the judge spec `scores:FILE`.
pub fn sample_scores(dir: &Path, name: &str, score: impl Fn(bool, &str) -> Option<f64>) -> String {
    let df = ParquetReader::new(
        std::fs::File::open(crate::common::root().join("data/sample-v2.parquet")).expect("sample"),
    )
    .finish()
    .expect("parquet");
    let prompts = df
        .column("prompt")
        .expect("prompt")
        .str()
        .expect("text")
        .clone();
    let mut seen = std::collections::HashSet::new();
    let mut csv = String::from("prompt,response,score\n");
    for (column, correct) in [("chosen", true), ("rejected", false)] {
        let lists = df
            .column(column)
            .expect("list")
            .list()
            .expect("list")
            .clone();
        for (prompt, list) in prompts.iter().zip(lists.series_iter()) {
            let prompt = prompt.expect("prompt");
            for text in list.expect("list").str().expect("texts").iter() {
                let text = text.expect("text");
                if seen.insert((prompt.to_string(), text.to_string())) {
                    let quote = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
                    let value = score(correct, text).map_or(String::new(), |v| v.to_string());
                    csv.push_str(&format!("{},{},{value}\n", quote(prompt), quote(text)));
                }
            }
        }
    }
    let path = dir.join(name);
    std::fs::write(&path, csv).expect("scores");
    format!("scores:{}", path.display())
}

#[test]
fn a_reward_models_scores_make_the_leaderboard_as_reward_bench_scores_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out_dir = dir.path().join("run");
    let out_dir = out_dir.to_str().expect("utf-8");
    let json = |judge: &str, extra: &[&str]| {
        let mut args = vec![
            "calibrate",
            "--data",
            "sample-v2",
            "--judge",
            judge,
            "--json",
            "--out",
            out_dir,
        ];
        args.extend(extra);
        crate::common::json_of(&args)
    };
    // Correct completions above the rest: every subset 1; Ties' correct answers tie with
    // each other (a spread of 0), which reward-bench's current code turns into a margin term
    // of tanh(+inf) = 1, so Ties scores 1.01 and the leaderboard (1 × 5 + 1.01) / 6.
    let perfect = sample_scores(dir.path(), "perfect.csv", |c, _| {
        Some(if c { 1.0 } else { 0.0 })
    });
    let doc = json(&perfect, &[]);
    let rb2 = &doc["configs"][0]["rewardbench2"];
    let score = rb2["score"].as_f64().expect("score");
    assert!((score - 6.01 / 6.0).abs() < 1e-15, "{rb2}");
    for subset in raterlab::evaluation::rewardbench2::SUBSETS {
        let want = if subset == "Ties" { 1.01 } else { 1.0 };
        assert_eq!(rb2["subsets"][subset], want, "{subset}: {rb2}");
    }
    assert_eq!(rb2["ties"]["margin"], 1.0);
    // Chance beside each subset: 1/4 for one correct among four; none for Ties' weighted score.
    assert_eq!(rb2["rows"]["Math"]["chance"], 0.25);
    assert!(rb2["rows"]["Ties"]["chance"].is_null(), "{rb2}");
    assert_eq!(rb2["ties"]["correctness_preferred_hard"], 1.0);
    assert_eq!(rb2["ci"], serde_json::json!([score, score]));
    // Every score equal: each row outside Ties is a four-way tie at the top (1/4); Ties gets
    // nothing (no correct completion above an incorrect one).
    let flat = sample_scores(dir.path(), "flat.csv", |_, _| Some(0.5));
    let rb2 = json(&flat, &[])["configs"][0]["rewardbench2"].clone();
    assert_eq!(rb2["subsets"]["Math"], 0.25);
    assert_eq!(rb2["subsets"]["Ties"], 0.0);
    let want = 5.0 * 0.25 / 6.0;
    assert!(
        (rb2["score"].as_f64().expect("score") - want).abs() < 1e-12,
        "{rb2}"
    );
    // Incorrect completions unscored: drop leaves out every row; lowest puts them below the
    // correct ones, so every row is right (and Ties' correct answers tie, as above). Both
    // are reported either way.
    let partial = sample_scores(dir.path(), "partial.csv", |c, _| c.then_some(2.0));
    let doc = json(&partial, &["--pointwise-missing", "lowest"]);
    let config = &doc["configs"][0];
    assert_eq!(config["missing"], "lowest");
    assert_eq!(config["rewardbench2"]["score"], score);
    assert_eq!(config["rewardbench2_other_missing_rule"]["missing"], "drop");
    assert_eq!(config["rewardbench2_other_missing_rule"]["dropped"], 19);
    assert!(config["rewardbench2_other_missing_rule"]["score"].is_null());
    // The terminal says the same.
    let (code, out, err) = run(&[
        "calibrate",
        "--data",
        "sample-v2",
        "--judge",
        &perfect,
        "--out",
        out_dir,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("leaderboard (mean of the six)") && out.contains("1.002 [1.002, 1.002]"),
        "{out}"
    );
    assert!(out.contains("Ties 1.0100: ref accuracy 1.0000"), "{out}");
    // A baseline for pairs is refused, and so is a file scoring nothing.
    let err = error_of(&[
        "calibrate",
        "--data",
        "sample-v2",
        "--judge",
        "sim",
        "--rater",
        "random",
    ]);
    assert!(err.contains("is a baseline for pairs"), "{err}");
    std::fs::write(
        dir.path().join("other.csv"),
        "prompt,response,score\nq,a,1\n",
    )
    .expect("file");
    let other = format!("scores:{}", dir.path().join("other.csv").display());
    let err = error_of(&["calibrate", "--data", "sample-v2", "--judge", &other]);
    assert!(err.contains("scores none of the"), "{err}");
}

/// The four-way and ratings prompts are reward-bench's, byte for byte, and its two readers
/// read as reward-bench's code does (tests/fixtures/generate_rewardbench2_judge_fixtures.py
/// runs its `format_judge_answers`, `process_judgement` and `_get_single_rating`'s pattern).
#[test]
fn judge_prompts_and_readers_are_reward_benchs() {
    use raterlab::prompts::resolve;
    use raterlab::verdicts::{Parser, Verdict};
    let text = std::fs::read_to_string(crate::common::fixture("rewardbench2_judge.json"))
        .expect("fixture");
    let want: serde_json::Value = serde_json::from_str(&text).expect("json");
    let question = want["question"].as_str().expect("question");
    let answers: Vec<&str> = want["answers"]
        .as_array()
        .expect("answers")
        .iter()
        .map(|a| a.as_str().expect("text"))
        .collect();
    let four = [answers[0], answers[1], answers[2], answers[3]];
    for (name, case) in ["rb2_ranking", "rb2_ranking_gemini"]
        .iter()
        .zip(want["ranking"].as_array().expect("ranking"))
    {
        let t = resolve(name).expect("built-in");
        assert_eq!(
            t.system.as_deref(),
            case["system"].as_str(),
            "{name} system"
        );
        assert_eq!(
            t.render_ranking(question, four),
            case["user"].as_str().expect("user"),
            "{name} user"
        );
    }
    for (name, key) in [
        ("rb2_rating", "ratings_prompt"),
        ("rb2_rating_ties", "ratings_prompt_ties"),
    ] {
        let t = resolve(name).expect("built-in");
        assert_eq!(t.system, None);
        assert_eq!(
            t.render_pointwise(question, answers[1], ""),
            want[key].as_str().expect("prompt"),
            "{name}"
        );
    }
    let letters = ["A", "B", "C", "D"];
    let mut careful = Vec::new();
    for case in want["process_judgement"].as_array().expect("cases") {
        let (judgement, theirs) = (
            case[0].as_str().expect("text"),
            case[1].as_str().expect("pick"),
        );
        let ours = match Parser::RankingPublished.parse(judgement) {
            Verdict::Rated(slot) => letters[slot as usize],
            Verdict::Unparseable(_) => "error",
        };
        assert_eq!(ours, theirs, "{judgement:?}");
        careful.push(match Parser::Ranking.parse(judgement) {
            Verdict::Rated(slot) => letters[slot as usize],
            Verdict::Unparseable(_) => "none",
        });
    }
    // The careful reader, as the pairwise tags are read: the quoted [[A]] of the
    // instructions and the listed [[B]] are mentions; a labelled "Verdict: [[A]]" is the
    // statement read over a later aside.
    assert_eq!(
        careful,
        ["C", "B", "D", "C", "none", "none", "none", "A"],
        "{careful:?}"
    );
    for case in want["ratings"].as_array().expect("cases") {
        let (answer, theirs) = (
            case[0].as_str().expect("text"),
            case[1].as_i64().expect("rating"),
        );
        let ours = Parser::FinalRating.grade(answer).map_or(-1, |g| g as i64);
        assert_eq!(ours, theirs, "{answer:?}");
    }
}

/// The answer names the score it compares as the tables show it: with Ties unscored (no grade
/// read under drop), the leaderboard has no score, and the answer says it compares the mean of
/// the five subsets scored, never "the leaderboard".
#[test]
fn the_answer_never_calls_the_mean_of_five_subsets_the_leaderboard() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run");
    let (code, text, err) = crate::common::run(&[
        "calibrate",
        "--data",
        "sample-v2",
        "--prompt",
        "rb2_ranking",
        "--judge",
        "sim:accuracy=0.9,malformed=0.6",
        "--bootstrap",
        "100",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{err}");
    let doc = crate::common::json_of(&["report", out.to_str().expect("utf-8"), "--json"]);
    let board = &doc["configs"][0]["rewardbench2"];
    assert!(board["score"].is_null(), "{board}");
    assert!(board["subsets"]["Ties"].is_null(), "{board}");
    let answer = text
        .lines()
        .find(|l| l.contains("rb2_ranking/basic (sim) on "))
        .unwrap_or_else(|| panic!("no answer line:\n{text}"));
    assert!(
        answer.contains(
            "on the mean of the 5 subsets scored (of 6 present; the leaderboard has no score)"
        ),
        "{answer}"
    );
    assert!(!answer.contains("leaderboard (mean of the six"), "{answer}");
    assert!(
        text.contains("the leaderboard needs all six subsets scored, and 5 are"),
        "{text}"
    );
}

/// When no configuration has a score (every grade unreadable, rows left out under drop), the
/// answer says so and names no best.
#[test]
fn the_answer_names_no_best_when_no_configuration_has_a_score() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run");
    let (code, text, err) = run(&[
        "calibrate",
        "--data",
        "sample-v2",
        "--prompt",
        "rb2_rating",
        "--judge",
        "sim:malformed=1.0",
        "--bootstrap",
        "20",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("No configuration has a score on these 19 rows"),
        "{text}"
    );
    assert!(!text.contains("Best:"), "{text}");
}

/// What `calibrate` does on pairs alone is refused on RewardBench 2 rows before any call, each
/// naming its flag and the fix, and no run directory is made: a ranking of generators, an
/// estimate and a race, and the options of pairs the rows have nothing to apply to (a
/// pointwise tie margin, several annotators' split, conversations), which were taken and
/// ignored.
#[test]
fn what_only_pairs_take_is_refused_on_rows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run");
    let out = out.to_str().expect("utf-8");
    for (flags, named) in [
        (vec!["--reference", "gold"], "--reference"),
        (vec!["--estimate"], "--estimate"),
        (vec!["--alt-test", "0.1"], "--alt-test"),
        (vec!["--sequential"], "--sequential"),
        (vec!["--tie-margin", "0.5"], "--tie-margin 0.5"),
        (vec!["--no-majority", "tie"], "--no-majority"),
        (vec!["--unshared", "skip"], "--unshared"),
    ] {
        let mut args = vec!["calibrate", "--data", "sample-v2", "--demo", "--out", out];
        args.extend(&flags);
        let err = error_of(&args);
        assert!(
            err.contains(named) && err.contains("RewardBench 2") && err.contains("leave out"),
            "{flags:?}: {err}"
        );
        assert!(!Path::new(out).exists(), "{flags:?}: nothing written");
    }
    // The defaults are what the rows are scored with: given as such, the run goes on.
    let (code, _, err) = run(&[
        "calibrate",
        "--data",
        "sample-v2",
        "--demo",
        "--tie-margin",
        "0",
        "--out",
        out,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(Path::new(out).join("run.json").is_file());
}
