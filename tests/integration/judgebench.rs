//! JudgeBench's reward-model outputs (its `outputs/` files) scored twice: by JudgeBench's own
//! computation of its published numbers (`compute_final_metrics` over both orders, from each
//! judgment's recorded `decision`, re-implemented here), and by raterlab reading the same file
//! as data (`--map`, `--gold-map`) with the reward model's per-response scores as
//! `--judge scores:FILE`. The two must agree exactly, overall and in each of JudgeBench's
//! categories.
//!
//! The published files are not on this machine: the test runs on a fixture in their exact
//! shape (12 pairs over the four categories, two of them with equal scores), and on the real
//! files when `../shared/data/judgebench/outputs/` or `RATERLAB_JUDGEBENCH_OUTPUTS` holds
//! them (`RATERLAB_REQUIRE_JUDGEBENCH=1` makes their absence a failure).

use crate::common::{json_of, missing, root, shared_data};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// JudgeBench's categories: source prefixes, "" for overall (as `run_judge.py` reports them).
const CATEGORIES: [&str; 5] = [
    "mmlu-pro",
    "livebench-reasoning",
    "livebench-math",
    "livecodebench",
    "",
];

fn flip(decision: Option<&str>) -> Option<&str> {
    match decision {
        Some("A>B") => Some("B>A"),
        Some("B>A") => Some("A>B"),
        other => other,
    }
}

/// JudgeBench's correct pairs over both orders (its accuracy is 100 × this / pairs): each
/// order's decision (the second flipped back) votes +1 when it is the label, −1 when it is
/// the opposite; a pair is correct when the sum is positive.
fn judgebench_correct(pairs: &[&Value]) -> usize {
    pairs
        .iter()
        .filter(|p| {
            let label = p["label"].as_str();
            let d1 = p["judgments"][0]["decision"].as_str();
            let d2 = flip(p["judgments"][1]["decision"].as_str());
            let vote = |d: Option<&str>| {
                if d == label {
                    1
                } else if d == flip(label) {
                    -1
                } else {
                    0
                }
            };
            vote(d1) + vote(d2) > 0
        })
        .count()
}

/// One category's correct pairs by JudgeBench's computation and by raterlab's, of `pairs`.
struct Scored {
    category: String,
    pairs: usize,
    judgebench: usize,
    raterlab: usize,
}

impl Scored {
    /// As JudgeBench prints it.
    fn percent(&self, correct: usize) -> String {
        format!("{:.2}%", 100.0 * correct as f64 / self.pairs as f64)
    }
}

/// Every category with pairs in `file`, scored both ways.
fn both_ways(file: &Path, work: &Path) -> Vec<Scored> {
    let text = std::fs::read_to_string(file).expect("outputs file");
    let pairs: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    // The reward model's score of each response, from the first order's judgment; a reward
    // model scores each response alone, so the second order must hold the same two scores.
    let mut scores = String::new();
    for p in &pairs {
        let first = &p["judgments"][0]["judgment"]["scores"];
        let second = &p["judgments"][1]["judgment"]["scores"];
        assert_eq!(
            (&first[0], &first[1]),
            (&second[1], &second[0]),
            "pair {}: the two orders score the responses differently",
            p["pair_id"]
        );
        for (response, score) in [("response_A", &first[0]), ("response_B", &first[1])] {
            let row = serde_json::json!({"prompt": p["question"], "response": p[response], "score": score});
            scores.push_str(&format!("{row}\n"));
        }
    }
    let scores_path = work.join("scores.jsonl");
    std::fs::write(&scores_path, scores).expect("scores file");
    let mut out = Vec::new();
    for category in CATEGORIES {
        let chosen: Vec<&Value> = pairs
            .iter()
            .filter(|p| {
                p["source"]
                    .as_str()
                    .is_some_and(|s| s.starts_with(category))
            })
            .collect();
        if chosen.is_empty() {
            continue;
        }
        let name = if category.is_empty() {
            "overall"
        } else {
            category
        };
        // The outputs file itself is raterlab's data (one category's lines of it).
        let data = work.join(format!("{name}.jsonl"));
        let lines: Vec<String> = chosen.iter().map(|p| p.to_string()).collect();
        std::fs::write(&data, lines.join("\n") + "\n").expect("data file");
        let judge = format!("scores:{}", scores_path.display());
        let run_dir = work.join(format!("run-{name}"));
        let doc = json_of(&[
            "calibrate",
            "--data",
            data.to_str().expect("utf-8"),
            "--map",
            "prompt=question,response1=response_A,response2=response_B,label=label,id=pair_id,subset=source",
            "--gold-map",
            "A>B=-1",
            "--gold-map",
            "B>A=1",
            "--judge",
            &judge,
            "--both-orders",
            "--no-cache",
            "--bootstrap",
            "0",
            "--out",
            run_dir.to_str().expect("utf-8"),
        ]);
        let rules = &doc["configs"][0]["position"]["rules"]["judgebench"];
        assert_eq!(doc["configs"][0]["position"]["pairs"], chosen.len());
        // raterlab's accuracy is a share of the same pairs: back to a count, exactly.
        let share = rules["accuracy"].as_f64().expect("accuracy") * chosen.len() as f64;
        assert!((share - share.round()).abs() < 1e-9, "{name}: {share}");
        out.push(Scored {
            category: name.to_string(),
            pairs: chosen.len(),
            judgebench: judgebench_correct(&chosen),
            raterlab: share.round() as usize,
        });
    }
    out
}

#[test]
fn the_fixture_in_judgebench_shape_gives_judgebench_numbers() {
    let file = root()
        .join("tests/fixtures/judgebench/outputs")
        .join("dataset=judgebench,response_model=fixture,judge_name=reward_model,judge_model=fixture-rm.jsonl");
    let work = tempfile::tempdir().expect("tempdir");
    let got = both_ways(&file, work.path());
    // By hand: right in both orders are pairs 0, 2 (mmlu-pro), 4, 6 (reasoning), 7 (math),
    // 9, 10 (code); equal scores (3, 8) go to B in each order, +1 − 1 = 0, not correct.
    let hand = [
        ("mmlu-pro", 4, 2),
        ("livebench-reasoning", 3, 2),
        ("livebench-math", 2, 1),
        ("livecodebench", 3, 2),
        ("overall", 12, 7),
    ];
    assert_eq!(got.len(), hand.len());
    for (s, (name, pairs, correct)) in got.iter().zip(hand) {
        assert_eq!((s.category.as_str(), s.pairs), (name, pairs));
        assert_eq!(s.judgebench, correct, "{name}: JudgeBench's rule");
        assert_eq!(s.raterlab, correct, "{name}: raterlab");
    }
    assert_eq!(got[4].percent(got[4].raterlab), "58.33%");
}

/// The published outputs, when they are here.
fn published_outputs() -> Option<PathBuf> {
    let dir = match std::env::var_os("RATERLAB_JUDGEBENCH_OUTPUTS") {
        Some(d) => PathBuf::from(d),
        None => shared_data()?.join("judgebench").join("outputs"),
    };
    if dir.is_dir() {
        return Some(dir);
    }
    missing(
        "RATERLAB_REQUIRE_JUDGEBENCH",
        &format!(
            "JudgeBench's outputs/ files are not in {} (issue #10)",
            dir.display()
        ),
    );
    None
}

#[test]
fn judgebench_published_reward_model_outputs_give_its_numbers() {
    let Some(dir) = published_outputs() else {
        return;
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("outputs folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.contains("judge_name=reward_model") && n.ends_with(".jsonl"))
        })
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no judge_name=reward_model files in {}",
        dir.display()
    );
    for file in files {
        let work = tempfile::tempdir().expect("tempdir");
        for s in both_ways(&file, work.path()) {
            assert_eq!(
                s.judgebench,
                s.raterlab,
                "{}: {}: JudgeBench {}, raterlab {}",
                file.display(),
                s.category,
                s.percent(s.judgebench),
                s.percent(s.raterlab)
            );
        }
    }
}
