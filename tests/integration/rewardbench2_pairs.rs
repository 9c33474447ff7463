//! RewardBench 2 rows through the registry: each row's pairs (its first correct completion
//! against each other one) are the one record's items, so the analytics of a run over pairs
//! (agreement, parse rate, position, bias) reach them; each configuration's `pairs` in `--json`
//! and metrics.csv is recomputed here from items.jsonl.

use crate::common::{json_of, run};
use serde_json::Value;
use std::path::Path;

/// A row's pairs as `items::pairs` makes them: completion 0 against each other, in slot order
/// (and the other way round with both orders), each with its gold and whether it is the seeded
/// order.
fn row_pairs(row: &Value, both: bool) -> Vec<(usize, usize, i64, bool)> {
    let order: Vec<usize> = serde_json::from_value(row["order"].clone()).expect("order");
    let correct = row["correct"].as_array().expect("correct").len();
    let slot = |k: usize| order.iter().position(|&i| i == k).expect("a slot");
    let mut out = Vec::new();
    for other in 1..order.len() {
        let (a, b) = if slot(0) < slot(other) {
            (0, other)
        } else {
            (other, 0)
        };
        let gold = match (a < correct, b < correct) {
            (true, false) => -1,
            (false, true) => 1,
            _ => 0,
        };
        out.push((a, b, gold, true));
        if both {
            out.push((b, a, -gold, false));
        }
    }
    out
}

/// (pairs counted, rated, right) of configuration `config` from items.jsonl: two grades
/// compared once per pair (ratings, and every protocol's Ties rows), each verdict of a pairwise
/// configuration, no pair of a four-way pick outside Ties.
fn by_hand(dir: &Path, config: &str, protocol: &str, both: bool) -> (u64, u64, u64) {
    let text = std::fs::read_to_string(dir.join("items.jsonl")).expect("items.jsonl");
    let (mut counted, mut rated, mut right) = (0, 0, 0);
    for line in text.lines() {
        let row: Value = serde_json::from_str(line).expect("a row");
        let result = row["results"]
            .as_array()
            .expect("results")
            .iter()
            .find(|r| r["config"] == config)
            .expect("the configuration's result")
            .clone();
        let order: Vec<usize> = serde_json::from_value(row["order"].clone()).expect("order");
        let grade = |k: usize| {
            let slot = order.iter().position(|&i| i == k).expect("a slot");
            result["grades"][slot].as_f64()
        };
        let ties = row["subset"] == "Ties";
        for (j, (a, b, gold, seeded)) in row_pairs(&row, both).into_iter().enumerate() {
            let rating = if ties || protocol == "ratings" {
                if !seeded {
                    continue;
                }
                counted += 1;
                match (grade(a), grade(b)) {
                    (Some(x), Some(y)) => Some(i64::from(y > x) - i64::from(x > y)),
                    _ => None,
                }
            } else if protocol == "pairwise" {
                counted += 1;
                result["verdicts"][j].as_i64()
            } else {
                continue;
            };
            if let Some(r) = rating {
                rated += 1;
                right += u64::from(r == gold);
            }
        }
    }
    (counted, rated, right)
}

#[test]
fn the_registrys_analytics_reach_rewardbench2_rows_as_their_pairs() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("run");
    let out = dir.to_str().expect("utf-8");
    let args = [
        "calibrate",
        "--data",
        "sample-v2",
        "--prompt",
        "rb2_rating",
        "--prompt",
        "simple_no_tie",
        "--prompt",
        "rb2_ranking",
        "--judge",
        "sim:accuracy=0.8,malformed=0.1",
        "--both-orders",
        "--bootstrap",
        "50",
        "--out",
        out,
    ];
    let doc = json_of(&args);
    let configs = doc["configs"].as_array().expect("configs");
    assert_eq!(configs.len(), 3);
    for c in configs {
        let (name, protocol) = (
            c["name"].as_str().expect("name"),
            c["protocol"].as_str().expect("protocol"),
        );
        let pairs = &c["pairs"];
        let (counted, rated, right) = by_hand(&dir, name, protocol, true);
        assert!(rated > 0, "{name}");
        assert_eq!(pairs["counts"]["examples"], counted, "{name}: {pairs}");
        assert_eq!(pairs["counts"]["rated"], rated, "{name}");
        let accuracy = pairs["accuracy"].as_f64().expect("accuracy");
        assert!(
            (accuracy - right as f64 / rated as f64).abs() < 1e-12,
            "{name}: {accuracy} against {right}/{rated}"
        );
        // Only a pairwise verdict is had in both orders: only it tells of position.
        let both_rated = pairs["position"]["pairs_both_rated"].as_u64().unwrap_or(0);
        assert_eq!(both_rated > 0, protocol == "pairwise", "{name}: {pairs}");
        // The analytics' keys come with the scope, as on pairs.
        assert!(pairs["bias"].is_object(), "{name}");
    }
    // report DIR reads the verdicts back: the same pairs.
    let again = json_of(&["report", out]);
    for (a, b) in configs
        .iter()
        .zip(again["configs"].as_array().expect("configs"))
    {
        assert_eq!(a["pairs"], b["pairs"], "{}", a["name"]);
    }
    let metrics = std::fs::read_to_string(dir.join("metrics.csv")).expect("metrics.csv");
    assert!(
        metrics.lines().any(|l| l.contains("simple_no_tie/basic")
            && l.contains(",pairs,")
            && l.contains("accuracy")),
        "metrics.csv has the pairs' rows"
    );
    let (code, text, err) = run(&["report", out]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("On the rows' pairs") && text.contains("RewardBench 2 at a glance"),
        "{text}"
    );

    // A verdict missing from a pairwise row is bad input, named with its row.
    let items = dir.join("items.jsonl");
    let text = std::fs::read_to_string(&items).expect("items.jsonl");
    let edited = |edit: &dyn Fn(&mut Value)| -> String {
        let lines: Vec<String> = text
            .lines()
            .map(|l| {
                let mut row: Value = serde_json::from_str(l).expect("a row");
                for r in row["results"].as_array_mut().expect("results") {
                    edit(r);
                }
                row.to_string()
            })
            .collect();
        lines.join("\n") + "\n"
    };
    let cut = edited(&|r| {
        if let Some(v) = r["verdicts"].as_array_mut() {
            v.pop();
        }
    });
    std::fs::write(&items, cut).expect("write");
    let err = crate::common::error_of(&["report", out]);
    assert!(
        err.contains("verdicts for 6 pairs") && err.contains("items.jsonl row "),
        "{err}"
    );

    // A run directory written before the verdicts were kept still reads: its pairwise pairs
    // outside Ties are not asked, the Ties rows' grades still compared.
    let old = edited(&|r| {
        r.as_object_mut().expect("a result").remove("verdicts");
    });
    std::fs::write(&items, old).expect("write");
    let older = json_of(&["report", out]);
    let pairwise = &older["configs"][1];
    assert_eq!(pairwise["protocol"], "pairwise");
    let ties_only = by_hand(&dir, "simple_no_tie/basic", "ranking", true);
    assert_eq!(pairwise["pairs"]["counts"]["examples"], ties_only.0);
    assert!(
        pairwise["pairs"]["counts"]["not_asked"]
            .as_u64()
            .unwrap_or(0)
            > 0
    );
    // Its leaderboard is unchanged: the rows' scores never read the verdicts.
    assert_eq!(pairwise["rewardbench2"], configs[1]["rewardbench2"]);
    let (code, text, err) = run(&["report", out]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("simple_no_tie/basic: this run directory was written before each pair's"),
        "{text}"
    );
}
