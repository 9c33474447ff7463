//! Every data form behaves the same where pairs and RewardBench 2 rows share a flag: a
//! reward model's scores (`--judge scores:FILE`) are a judge on both, so RewardBench 2's go
//! through the session (a run directory with its answers, `--batch` refused as on pairs);
//! `--sort` orders RewardBench 2's configurations by its one score, and refuses the agreement
//! statistics it has no value for; a scores file scores each response to its own prompt.

use crate::common::{error_of, json_of, run, write};

/// The sample-v2 rows' completions scored by their length (a reward model that likes long
/// answers), every completion scored.
fn length_scores(dir: &std::path::Path) -> String {
    crate::rewardbench2::sample_scores(dir, "scores.csv", |_, text| Some(text.len() as f64))
}

#[test]
fn rewardbench2_scores_go_through_the_session_as_on_pairs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let judge = length_scores(dir.path());
    let out = dir.path().join("run");
    let doc = json_of(&[
        "calibrate",
        "--data",
        "sample-v2",
        "--judge",
        &judge,
        "--bootstrap",
        "0",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    let config = &doc["configs"][0];
    // Named as on pairs (`scores/basic`), scored by the scores protocol.
    assert_eq!(config["name"], "scores/basic");
    assert_eq!(config["protocol"], "scores");
    // The session wrote each answer, as for every judge: 60 completions outside Ties and
    // Ties' 13, one line each.
    let answers = std::fs::read_to_string(out.join("completions.jsonl")).expect("answers");
    let lines: Vec<serde_json::Value> = answers
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    // Each item's two sides: 45 pairs outside Ties (15 rows × 3) and Ties' pairs.
    assert!(lines.len() >= 2 * 45, "{}", lines.len());
    assert!(lines
        .iter()
        .all(|l| l["config"] == "scores/basic" || l["config"] == "scores/basic · Ties"));
    assert!(lines.iter().any(|l| l["config"] == "scores/basic · Ties"));
    // `report DIR` reads the run back to the same leaderboard.
    let again = json_of(&["report", out.to_str().expect("utf-8"), "--json"]);
    assert_eq!(
        again["configs"][0]["rewardbench2"]["score"],
        config["rewardbench2"]["score"]
    );
    assert!(config["rewardbench2"]["score"].as_f64().is_some());
    // --batch is refused with the same words on both forms.
    let batch = |data: &str| {
        error_of(&[
            "calibrate",
            "--data",
            data,
            "--judge",
            &judge,
            "--batch",
            "--endpoint",
            "http://127.0.0.1:9/v1",
            "--out",
            dir.path().join("never").to_str().expect("utf-8"),
        ])
    };
    assert_eq!(batch("sample-v2"), batch("sample"));
    assert!(batch("sample-v2").contains("--batch sends the calls through"));
    assert!(!dir.path().join("never").exists());
    // A file that scores none of the rows' completions is refused before any call, on both
    // forms, and no run directory is made.
    let other = write(dir.path(), "other.csv", "prompt,response,score\nq,a,1\n");
    let other = format!("scores:{}", other.display());
    for data in ["sample-v2", "sample"] {
        let err = error_of(&[
            "calibrate",
            "--data",
            data,
            "--judge",
            &other,
            "--out",
            dir.path().join("none").to_str().expect("utf-8"),
        ]);
        assert!(err.contains("scores none of the responses"), "{err}");
        assert!(!dir.path().join("none").exists(), "{data}");
    }
}

/// The configurations' tables in the order the lines that open them appear.
fn table_order(out: &str) -> Vec<String> {
    out.lines()
        .filter_map(|l| l.strip_suffix(" (a missing score: drop)"))
        .map(str::to_string)
        .collect()
}

#[test]
fn sort_orders_rewardbench2_by_its_score_and_refuses_what_it_has_not() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run");
    let args = |sort: Option<&str>, out: &std::path::Path| {
        let mut a = vec![
            "calibrate".to_string(),
            "--data".into(),
            "sample-v2".into(),
            "--judge".into(),
            "sim".into(),
            // The plan's order: the pairwise prompt (0.333 on the sample) before the ranking
            // one (0.610).
            "--prompt".into(),
            "simple_no_tie".into(),
            "--prompt".into(),
            "rb2_ranking".into(),
            "--details".into(),
            "--out".into(),
            out.display().to_string(),
        ];
        if let Some(s) = sort {
            a.extend(["--sort".to_string(), s.to_string()]);
        }
        a
    };
    let call = |a: Vec<String>| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let (code, stdout, stderr) = run(&a);
        assert_eq!(code, 0, "{stderr}");
        stdout
    };
    let plain = call(args(None, &out));
    assert_eq!(
        table_order(&plain),
        ["simple_no_tie/basic", "rb2_ranking/basic"]
    );
    let sorted = call(args(Some("accuracy"), &dir.path().join("sorted")));
    assert_eq!(
        table_order(&sorted),
        ["rb2_ranking/basic", "simple_no_tie/basic"]
    );
    // report DIR takes --sort too.
    let (code, again, err) = run(&[
        "report",
        out.to_str().expect("utf-8"),
        "--sort",
        "accuracy",
        "--details",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(table_order(&again), table_order(&sorted));
    // An agreement statistic is refused before any call: no run directory.
    let a = args(Some("kappa"), &dir.path().join("kappa"));
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let err = error_of(&a);
    assert!(
        err.contains("--sort kappa: RewardBench 2 rows are scored by accuracy"),
        "{err}"
    );
    assert!(!dir.path().join("kappa").exists());
    let err = error_of(&["report", out.to_str().expect("utf-8"), "--sort", "spearman"]);
    assert!(err.contains("use --sort accuracy"), "{err}");
}

/// `report DIR` keeps the run's own `--sort` unless given another.
#[test]
fn report_keeps_the_runs_sort() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run");
    let out = out.to_str().expect("utf-8");
    let doc = json_of(&[
        "calibrate",
        "--demo",
        "--sort",
        "accuracy",
        "--json",
        "--out",
        out,
    ]);
    // By accuracy the demo's best is the best by accuracy: no disagreement to note.
    assert!(doc["ranking_note"].is_null(), "{}", doc["ranking_note"]);
    let again = json_of(&["report", out, "--json"]);
    assert_eq!(again["ranking_note"], doc["ranking_note"]);
    let run_json =
        std::fs::read_to_string(std::path::Path::new(out).join("run.json")).expect("run.json");
    assert!(run_json.contains("\"sort\": \"accuracy\""), "{run_json}");
    let other = json_of(&["report", out, "--json", "--sort", "spearman"]);
    let note = other["ranking_note"].as_str().expect("a note");
    assert!(note.contains("Spearman's rho ranks"), "{note}");
}

/// The same text answering two prompts is two responses with their own scores: a reward
/// model's scores are of a response to its prompt.
#[test]
fn a_scores_file_scores_each_response_to_its_own_prompt() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = write(
        dir.path(),
        "pairs.jsonl",
        "{\"id\": \"a\", \"subset\": \"s\", \"prompt\": \"first question\", \"chosen\": \"same answer\", \"chosen_model\": \"m\", \"rejected\": \"other\", \"rejected_model\": \"n\"}\n\
         {\"id\": \"b\", \"subset\": \"s\", \"prompt\": \"second question\", \"chosen\": \"third\", \"chosen_model\": \"m\", \"rejected\": \"same answer\", \"rejected_model\": \"n\"}\n",
    );
    let scores = write(
        dir.path(),
        "scores.csv",
        "prompt,response,score\n\
         first question,same answer,9\nfirst question,other,1\n\
         second question,third,8\nsecond question,same answer,2\n",
    );
    let out = dir.path().join("run");
    let doc = json_of(&[
        "calibrate",
        "--data",
        data.to_str().expect("utf-8"),
        "--judge",
        &format!("scores:{}", scores.display()),
        "--bootstrap",
        "0",
        "--json",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    // Both pairs right: "same answer" is 9 under the first question and 2 under the second.
    assert_eq!(doc["configs"][0]["overall"]["accuracy"], 1.0);
    let g1 = crate::common::ratings_floats(&out, "grade1");
    let g2 = crate::common::ratings_floats(&out, "grade2");
    let mut grades: Vec<(f64, f64)> = g1
        .iter()
        .zip(&g2)
        .map(|(a, b)| (a.expect("grade"), b.expect("grade")))
        .map(|(a, b)| (a.max(b), a.min(b)))
        .collect();
    grades.sort_by(|x, y| x.0.total_cmp(&y.0));
    assert_eq!(grades, [(8.0, 2.0), (9.0, 1.0)]);
}

/// A jury on RewardBench 2 rows says what it is: its rows without a vote are told apart from
/// answers not read (it has no answers of its own), it has no ranking readers to compare, and
/// run.json keeps its vote (and the run's --sort) for report DIR.
#[test]
fn a_rewardbench2_jury_is_told_apart_and_reads_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run");
    let out = out.to_str().expect("utf-8");
    let args = [
        "calibrate",
        "--data",
        "sample-v2",
        "--judge",
        "sim:accuracy=0.6",
        "--prompt",
        "rb2_ranking",
        "--prompt",
        "rb2_ranking_gemini",
        "--jury",
        "both=rb2_ranking/basic,rb2_ranking_gemini/basic",
        "--sort",
        "accuracy",
        "--details",
        "--out",
        out,
    ];
    let (code, terminal, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    // The members read every pick; the jury has no vote where they disagree.
    assert!(
        terminal.contains("Juries without a vote (their members disagree; each such row scored 1/4): both 12 of 15 rows."),
        "{terminal}"
    );
    assert!(
        !terminal.contains("Warning: answers not read"),
        "{terminal}"
    );
    assert!(
        terminal.contains("no majority vote in 12 of 15 rows"),
        "{terminal}"
    );
    assert_eq!(terminal.matches("the two ranking readers").count(), 2);
    let doc = json_of(&["report", out, "--json"]);
    let configs = doc["configs"].as_array().expect("configs");
    assert_eq!(configs[2]["name"], "both");
    assert_eq!(configs[2]["jury"], "majority");
    assert!(configs[0].get("jury").is_none());
    assert!(configs[2]["readers_disagree"].is_null());
    // report DIR shows the same, in the run's own order.
    let (code, again, err) = run(&["report", out, "--details"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(table_order(&again), table_order(&terminal));
    assert_eq!(
        again.lines().skip(1).collect::<Vec<_>>(),
        terminal.lines().skip(1).collect::<Vec<_>>()
    );
}

/// The answer's best line names the sort metric once: with `--sort accuracy` it does not add
/// the accuracy a second time.
#[test]
fn the_best_line_says_accuracy_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let best = |sort: &str, out: &str| -> String {
        let out = dir.path().join(out);
        let (code, text, err) = run(&[
            "calibrate",
            "--demo",
            "--sort",
            sort,
            "--out",
            out.to_str().expect("utf-8"),
        ]);
        assert_eq!(code, 0, "{err}");
        // Piped: the answer's lines are whole.
        let line = text.lines().find(|l| l.starts_with("Best"));
        line.expect("a best line").to_string()
    };
    let by_accuracy = best("accuracy", "a");
    assert!(by_accuracy.contains("on accuracy: "), "{by_accuracy}");
    assert_eq!(by_accuracy.matches("accuracy").count(), 1, "{by_accuracy}");
    let by_kappa = best("kappa_quadratic", "k");
    assert!(by_kappa.contains(", accuracy 0."), "{by_kappa}");
}

/// An experiment file's mistake names the file and the line.
#[test]
fn an_experiment_files_mistake_names_its_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write(
        dir.path(),
        "exp.toml",
        "prompts = [\"simple_with_tie\"]\n\n[[jury]]\nname = \"poll\"\nmembers = [\"a\", \"b\"]\nvote = \"mostly\"\n",
    );
    let err = error_of(&[
        "calibrate",
        "--data",
        "sample",
        "--judge",
        "sim",
        "--config",
        file.to_str().expect("utf-8"),
    ]);
    assert!(
        err.contains("exp.toml' is not valid, line 6: unknown jury vote 'mostly'"),
        "{err}"
    );
}
