//! RewardBench 2's protocols that call a judge, against an in-process OpenAI-compatible mock
//! that knows which completions are correct: four-way answers (right, wrong, unreadable, and a
//! quoted tag that the two readers read differently), grades (ties at the top, an unreadable
//! grade) and pairwise verdicts. Every result, count and the readers' disagreement are computed
//! here from the data and checked against the run.

use crate::judge_cli::{completion, user_text};
use crate::mock_http::{MockServer, Reply};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// One row of the bundled sample.
struct Row {
    subset: String,
    prompt: String,
    correct: Vec<String>,
    incorrect: Vec<String>,
}

fn sample() -> Vec<Row> {
    crate::common::list_rows(&crate::common::root().join("data/sample-v2.parquet"))
        .into_iter()
        .map(|r| Row {
            subset: r.subset,
            prompt: r.prompt,
            correct: r.chosen,
            incorrect: r.rejected,
        })
        .collect()
}

/// What the mock does with a row (outside Ties), by the row's index.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Way {
    Right,
    /// The instructions quoted, then the correct slot stated: reward-bench's reader takes the
    /// quoted [[A]].
    Quoted,
    Unreadable,
    Wrong,
    /// Ratings: an incorrect completion graded as high as the correct one; pairwise: a tie
    /// tag the no-tie prompt does not allow (no verdict).
    Tied,
}

fn way(k: usize) -> Way {
    [
        Way::Right,
        Way::Quoted,
        Way::Unreadable,
        Way::Wrong,
        Way::Tied,
    ][k % 5]
}

pub fn between<'a>(text: &'a str, open: &str, close: &str) -> &'a str {
    let start = text.find(open).map_or(0, |i| i + open.len());
    let end = text[start..].find(close).map_or(text.len(), |i| start + i);
    &text[start..end]
}

/// Each prompt's first row (Ties' ref and tied rows share a question).
pub fn by_prompt<'a>(
    prompts: impl DoubleEndedIterator<Item = &'a str> + ExactSizeIterator,
) -> HashMap<String, usize> {
    prompts
        .enumerate()
        .rev()
        .map(|(k, p)| (p.to_string(), k))
        .collect()
}

/// The mock judge: answers ranking, ratings and pairwise requests from the truth; every 9th
/// request is answered 503 and every 13th dropped, as an overloaded server does (the client
/// retries them). Also the count of those faults.
fn judge(rows: Arc<Vec<Row>>) -> (MockServer, Arc<AtomicUsize>) {
    let seen = AtomicUsize::new(0);
    let faults = Arc::new(AtomicUsize::new(0));
    let failed = faults.clone();
    let index = by_prompt(rows.iter().map(|r| r.prompt.as_str()));
    // A completion is correct when a row of its prompt lists it as correct (Ties' ref and
    // tied rows share a question).
    let correct: HashSet<(String, String)> = rows
        .iter()
        .flat_map(|r| r.correct.iter().map(move |c| (r.prompt.clone(), c.clone())))
        .collect();
    let server = MockServer::start(move |r| {
        let n = seen.fetch_add(1, Ordering::SeqCst);
        if n % 9 == 4 || n % 13 == 7 {
            failed.fetch_add(1, Ordering::SeqCst);
            return if n % 9 == 4 {
                Reply::status(503, "overloaded")
            } else {
                Reply::Hangup
            };
        }
        let text = user_text(r);
        let system = String::from_utf8_lossy(&r.body).to_string();
        if text.contains("[The Start of Assistant D's Answer]")
            || system.contains("four AI assistants") && text.contains("Assistant D")
        {
            let prompt = between(&text, "[User Question]\n", "\n\n[The Start of Assistant A");
            let k = index[prompt];
            let row = &rows[k];
            let answers: Vec<&str> = ["A", "B", "C", "D"]
                .iter()
                .map(|l| {
                    between(
                        &text,
                        &format!("[The Start of Assistant {l}'s Answer]\n"),
                        &format!("\n[The End of Assistant {l}'s Answer]"),
                    )
                })
                .collect();
            let right = answers
                .iter()
                .position(|a| row.correct.iter().any(|c| c == a))
                .expect("a correct one");
            let wrong = (right + 1) % 4;
            let tag = |s: usize| format!("[[{}]]", ["A", "B", "C", "D"][s]);
            return completion(&match way(k) {
                Way::Right | Way::Tied => format!(
                    "Assistant {} answers best.\n\n{}",
                    &tag(right)[2..3],
                    tag(right)
                ),
                Way::Quoted => format!(
                    "I must answer \"[[A]]\" if assistant A is best, and so on.\nFinal verdict: {}",
                    tag(right)
                ),
                Way::Unreadable => "All four have merits; I cannot pick one.".into(),
                Way::Wrong => format!("Final verdict: {}", tag(wrong)),
            });
        }
        if text.contains("[Your judgement]") {
            let prompt = between(&text, "[Query]\n", "\n\n[Response]\n");
            let answer = between(&text, "[Response]\n", "\n\n[Your judgement]");
            let k = index[prompt];
            let row = &rows[k];
            let correct = correct.contains(&(prompt.to_string(), answer.to_string()));
            let first_incorrect = row.incorrect.first().is_some_and(|i| i == answer);
            return completion(&match (correct, way(k), first_incorrect) {
                (true, _, _) => "Accurate and complete.\n\n9".to_string(),
                (false, Way::Tied, true) => "Also fine.\n\n9".into(),
                (false, Way::Unreadable, true) => "Weak: 3.".into(),
                _ => "Weak.\n\n3".into(),
            });
        }
        if text.contains("<winner>") {
            let prompt = between(&text, "[User prompt]\n", "\n\n[Response 1]\n");
            let one = between(&text, "[Response 1]\n", "\n\n[Response 2]\n");
            let k = index[prompt];
            let row = &rows[k];
            let first_correct = row.correct.iter().any(|c| c == one);
            let two = between(&text, "[Response 2]\n", "\n\nExplain");
            let against_first = row.incorrect.first().is_some_and(|i| i == one || i == two);
            let winner = if first_correct { 1 } else { 2 };
            return completion(&match (way(k), against_first) {
                (Way::Wrong, true) => format!("<winner>{}</winner>", 3 - winner),
                (Way::Tied, true) => "<tie>".into(),
                _ => format!("Response {winner} is right. <winner>{winner}</winner>"),
            });
        }
        Reply::status(400, "unexpected request")
    });
    (server, faults)
}

fn calibrate(url: &str, out: &std::path::Path, prompts: &[&str], extra: &[&str]) -> Value {
    let cache = out.join("cache");
    let mut args = vec![
        "calibrate",
        "--data",
        "sample-v2",
        "--endpoint",
        url,
        "--model",
        "mock",
        "--cache-dir",
        cache.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
        "--json",
        "--retry-base-ms",
        "1",
    ];
    for p in prompts {
        args.extend(["--prompt", p]);
    }
    args.extend(extra);
    crate::common::json_of(&args)
}

/// A row's result outside Ties under `protocol` when the mock answers it `way`; ranking read
/// by reward-bench's reader when `published` says whether the correct completion is in A.
fn expected(protocol: &str, way: Way, published: Option<bool>) -> f64 {
    match (protocol, way) {
        ("ranking", Way::Right | Way::Tied) => 1.0,
        // The quoted [[A]] is a mention to the careful reader, the pick to reward-bench's.
        ("ranking", Way::Quoted) => f64::from(u8::from(published.unwrap_or(true))),
        // reward-bench scores an answer it cannot read 1/4.
        ("ranking", Way::Unreadable) => 0.25,
        ("ranking", _) => 0.0,
        ("ratings", Way::Tied) => 0.5,
        ("ratings", _) => 1.0,
        ("pairwise", Way::Wrong | Way::Tied) => 0.0,
        ("pairwise", _) => 1.0,
        _ => unreachable!(),
    }
}

/// Each subset's score in the run is the mean of the results expected of its rows.
fn subsets_are_the_means<K: AsRef<str>>(c: &Value, by_subset: &HashMap<K, Vec<f64>>, what: &str) {
    for (subset, results) in by_subset {
        let subset = subset.as_ref();
        let mean = results.iter().sum::<f64>() / results.len() as f64;
        let got = c["rewardbench2"]["subsets"][subset]
            .as_f64()
            .expect("score");
        close(got, mean, &format!("{what} {subset}"));
    }
}

fn close(a: f64, b: f64, what: &str) {
    assert!((a - b).abs() < 1e-12, "{what}: {a} != {b}");
}

#[test]
fn the_protocols_score_every_row_as_the_truth_says() {
    let rows = Arc::new(sample());
    let (server, faults) = judge(rows.clone());
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run");
    let doc = calibrate(
        &server.url,
        &out,
        &["rb2_ranking", "rb2_rating", "raterlab_no_tie"],
        &[],
    );
    let configs = doc["configs"].as_array().expect("configs");
    assert_eq!(configs.len(), 3);
    // The expected result of each row outside Ties, per protocol.
    for (c, protocol) in configs.iter().zip(["ranking", "ratings", "pairwise"]) {
        assert_eq!(c["protocol"], protocol);
        let mut by_subset: HashMap<&str, Vec<f64>> = HashMap::new();
        for (k, row) in rows.iter().enumerate().filter(|(_, r)| r.subset != "Ties") {
            // Ratings under drop: the row whose grade could not be read is left out.
            if protocol == "ratings" && way(k) == Way::Unreadable {
                continue;
            }
            by_subset
                .entry(&row.subset)
                .or_default()
                .push(expected(protocol, way(k), None));
        }
        subsets_are_the_means(c, &by_subset, protocol);
        // Ties by ratings: every correct answer 9, every incorrect 3.
        let ties = &c["rewardbench2"]["ties"];
        for part in [
            "ref_accuracy",
            "tied_accuracy",
            "correctness_preferred",
            "correctness_preferred_hard",
        ] {
            assert_eq!(ties[part], 1.0, "{protocol} {part}");
        }
        // Correct answers tied at 9: a spread of 0, so reward-bench's margin term is
        // tanh(6/0 − 1) = 1 and Ties scores 1.01.
        assert_eq!(ties["margin"], 1.0);
        assert_eq!(ties["score"], 1.01);
    }
    // The quoted rows are the ones the two readers disagree on (unless the correct one is A).
    let ranking = &configs[0];
    let quoted: Vec<usize> = (0..rows.len())
        .filter(|&k| rows[k].subset != "Ties" && way(k) == Way::Quoted)
        .collect();
    let disagree = ranking["readers_disagree"].as_u64().expect("count") as usize;
    assert!(
        disagree <= quoted.len() && disagree >= quoted.len() / 2,
        "{disagree} of {}",
        quoted.len()
    );
    let unreadable = (0..rows.len())
        .filter(|&k| rows[k].subset != "Ties" && way(k) == Way::Unreadable)
        .count();
    assert_eq!(ranking["read"]["picks"]["missing"], unreadable);
    // Calls add up: a ranking call per row outside Ties; a grade per distinct completion
    // (Ties' prompt its own); a pair per incorrect completion; the mock saw them all.
    let outside: Vec<&Row> = rows.iter().filter(|r| r.subset != "Ties").collect();
    let distinct = |rs: &[&Row]| -> usize {
        rs.iter()
            .flat_map(|r| {
                r.correct
                    .iter()
                    .chain(&r.incorrect)
                    .map(move |t| (r.prompt.clone(), t.clone()))
            })
            .collect::<HashSet<_>>()
            .len()
    };
    let ties: Vec<&Row> = rows.iter().filter(|r| r.subset == "Ties").collect();
    let calls: Vec<usize> = configs
        .iter()
        .map(|c| c["calls"]["calls"].as_u64().expect("calls") as usize)
        .collect();
    assert_eq!(calls[0], outside.len() + distinct(&ties));
    assert_eq!(calls[1], distinct(&outside) + distinct(&ties));
    let pairs: usize = outside.iter().map(|r| r.incorrect.len()).sum();
    assert_eq!(calls[2], pairs + distinct(&ties));
    // The Ties grades are one call each for all three configurations: the cache answered
    // the second and third configuration's. The faults were retried.
    let faults = faults.load(Ordering::SeqCst);
    assert!(faults > 10, "{faults} faults");
    assert_eq!(
        server.count() - faults,
        calls.iter().sum::<usize>() - 2 * distinct(&ties)
    );
    // The run directory holds every row and every answer.
    let ratings = std::fs::read_to_string(out.join("ratings.csv")).expect("ratings.csv");
    assert_eq!(ratings.lines().count(), 1 + 3 * rows.len());
    let answers = std::fs::read_to_string(out.join("completions.jsonl")).expect("answers");
    assert!(answers.lines().count() >= calls[0]);
    let html = std::fs::read_to_string(out.join("report.html")).expect("report.html");
    assert!(html.contains(r#"<h2 id="browser">Rows</h2>"#) && html.contains("Factuality-0"));
    // report DIR remakes every file from the directory: unread, quoted and failed answers
    // included.
    crate::report_dirs::report_remakes(&out, &doc, &dir.path().join("copy"));
}

#[test]
fn reward_benchs_reader_reproduces_its_number_and_both_orders_double_the_pairs() {
    let rows = Arc::new(sample());
    let (server, _) = judge(rows.clone());
    let dir = tempfile::tempdir().expect("tempdir");
    let doc = calibrate(
        &server.url,
        &dir.path().join("run"),
        &["rb2_ranking"],
        &["--parser", "rb2_ranking_published"],
    );
    let c = &doc["configs"][0];
    // ratings.csv: config,protocol,id,subset,correct,result,pick,pick_other_reader,...
    let ratings = std::fs::read_to_string(dir.path().join("run/ratings.csv")).expect("ratings");
    let mut disagreeing = 0;
    let mut by_subset: HashMap<String, Vec<f64>> = HashMap::new();
    for line in ratings.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        if f[3] == "Ties" {
            continue;
        }
        let k: usize = f[2]
            .rsplit('-')
            .next()
            .and_then(|n| n.parse().ok())
            .expect("row index");
        // reward-bench's reader takes the quoted [[A]]: wrong unless A is correct.
        let want = expected("ranking", way(k), Some(f[4] == "A"));
        assert_eq!(f[5].parse::<f64>().expect("result"), want, "{line}");
        if f[6] != f[7] {
            assert!(
                way(k) == Way::Quoted && f[6] == "A" && f[7] == f[4],
                "{line}"
            );
            disagreeing += 1;
        }
        by_subset.entry(f[3].to_string()).or_default().push(want);
    }
    assert_eq!(c["readers_disagree"].as_u64(), Some(disagreeing as u64));
    assert!(disagreeing > 0);
    subsets_are_the_means(c, &by_subset, "rb2_ranking_published");
    let both = calibrate(
        &server.url,
        &dir.path().join("both"),
        &["raterlab_no_tie"],
        &["--both-orders"],
    );
    let outside: Vec<&Row> = rows.iter().filter(|r| r.subset != "Ties").collect();
    let pairs: usize = outside.iter().map(|r| r.incorrect.len()).sum();
    let read = &both["configs"][0]["read"]["verdicts"];
    assert_eq!(read["of"], 2 * pairs);
    // The tie tag is no verdict in both orders of each Tied row's first pair.
    let tied = (0..rows.len())
        .filter(|&k| rows[k].subset != "Ties" && way(k) == Way::Tied)
        .count();
    assert_eq!(read["missing"], 2 * tied);
}

/// The row browser in Chromium: filters count what the data says, and a row's detail shows
/// its four completions with the correct one marked, the pick and the grades.
#[test]
fn the_row_browser_in_chromium_filters_and_shows_the_slots() {
    use crate::report_html::{calibrate, chromium, dom, page_data, shown};
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run");
    let text = calibrate(
        &out,
        &["--demo", "--data", "sample-v2", "--bootstrap", "100"],
    );
    let data = page_data(&text);
    let rows = data["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 19);
    let page = out.join("report.html");
    let all = dom(&browser, &page, "");
    assert_eq!(shown(&all), "19 of 19 rows");
    // Wrong for some configuration, in Math.
    let wrong = rows
        .iter()
        .filter(|r| r["subset"] == "Math")
        .filter(|r| {
            r["results"]
                .as_array()
                .expect("results")
                .iter()
                .any(|x| x["result"].as_f64().is_some_and(|v| v < 1.0))
        })
        .count();
    let filtered = dom(&browser, &page, "#filter=wrong&subset=Math");
    assert_eq!(shown(&filtered), format!("{wrong} of 19 rows"));
    // Row 6's detail: every slot, the correct one marked, the ranking pick and grades named.
    let detail = dom(&browser, &page, "#item=6");
    let row = &rows[6];
    let correct = row["correct"][0].as_u64().expect("slot") as usize;
    let letter = ["A", "B", "C", "D"][correct];
    assert!(
        detail.contains(&format!("<h4 class=\"r-right\">{letter} (correct)")),
        "{letter}"
    );
    let pick = row["results"][0]["pick"].as_u64().expect("a pick") as usize;
    assert!(
        detail.contains("C1: picked"),
        "the pick of {}",
        ["A", "B", "C", "D"][pick]
    );
    assert!(detail.contains("C2: grade "), "the ratings' grades");
    assert!(
        detail.contains("A-D, sample 0: pick "),
        "the four-way answer"
    );
}
