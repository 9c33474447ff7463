//! AlpacaEval 2's weighted judge replayed from its real annotations (../shared/data/alpacaeval):
//! raterlab's probabilities against AlpacaEval's own reading of every row (its code, run by
//! tests/fixtures/generate_alpacaeval_fixtures.py) and its stored `preference`, and the
//! leaderboard's `win_rate` of each model.

use crate::common::{fixture, json_of, shared_data};
use serde_json::Value;
use std::collections::HashMap;

fn leaderboard(shared: &std::path::Path) -> HashMap<String, f64> {
    let text =
        std::fs::read_to_string(shared.join("alpacaeval/leaderboard.csv")).expect("leaderboard");
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            Some((cells.first()?.to_string(), cells.get(1)?.parse().ok()?))
        })
        .collect()
}

/// `calibrate --json` of an AlpacaEval annotation file replayed as its own judge.
fn replayed(file: &std::path::Path, out: &std::path::Path) -> Value {
    replayed_with(file, "alpaca_eval_weighted", out)
}

fn replayed_with(file: &std::path::Path, prompt: &str, out: &std::path::Path) -> Value {
    json_of(&[
        "calibrate",
        "--data",
        file.to_str().expect("utf-8"),
        "--judge",
        &format!("replay:{}", file.display()),
        "--prompt",
        prompt,
        "--bootstrap",
        "0",
        "--out",
        out.to_str().expect("utf-8"),
    ])
}

#[test]
fn probabilities_reproduce_alpacaevals_preferences_and_win_rates() {
    let Some(shared) = shared_data() else { return };
    let reference: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("alpacaeval.json")).expect("fixture"),
    )
    .expect("JSON");
    let board = leaderboard(&shared);
    for model in ["alpaca-7b", "gpt-3.5-turbo-1106"] {
        let file = shared.join(format!("alpacaeval/{model}.json"));
        let out = tempfile::tempdir().expect("temp dir");
        let doc = replayed(&file, out.path());
        let want = &reference[model];
        // The evaluated model stands as gold: the mean probability of the gold side is the
        // win rate.
        let p = &doc["configs"][0]["probability"];
        assert_eq!(p["source"], "logprobs");
        assert_eq!(
            (p["n"].as_u64(), p["with_probability"].as_u64()),
            (Some(805), Some(805))
        );
        let win_rate = 100.0 * p["expected_accuracy"].as_f64().expect("test data");
        let (theirs, published) = (want["win_rate"].as_f64().expect("test data"), board[model]);
        assert!(
            (win_rate - theirs).abs() < 1e-9,
            "{model}: {win_rate} vs AlpacaEval's code {theirs}"
        );
        assert!(
            (win_rate - published).abs() < 1e-9,
            "{model}: {win_rate} vs the leaderboard {published}"
        );
        // Row by row: AlpacaEval's order shown, and its preference (1 + P(output 2 better)).
        let golds = crate::common::ratings_floats(out.path(), "gold");
        let p2 = crate::common::ratings_floats(out.path(), "p_response2");
        let stored: Vec<Value> =
            serde_json::from_str(&std::fs::read_to_string(&file).expect("test data"))
                .expect("test data");
        let switched = want["switched"].as_str().expect("test data").as_bytes();
        assert_eq!((golds.len(), stored.len(), switched.len()), (805, 805, 805));
        for k in 0..805 {
            let g = golds[k].expect("gold");
            assert_eq!(
                g == -1.0,
                switched[k] == b'1',
                "row {k}: the order AlpacaEval showed"
            );
            let q = p2[k].expect("a probability on every row");
            let model_side = if g == 1.0 { q } else { 1.0 - q };
            let ours = 1.0 + model_side;
            let code = want["preference"][k].as_f64().expect("test data");
            assert!(
                (ours - code).abs() < 1e-12,
                "{model} row {k}: {ours} vs AlpacaEval's code {code}"
            );
            let published: f64 = stored[k]["preference"].as_str().map_or_else(
                || stored[k]["preference"].as_f64().expect("test data"),
                |s| s.parse().expect("test data"),
            );
            assert!(
                (ours - published).abs() < 1e-9,
                "{model} row {k}: {ours} vs stored {published}"
            );
        }
    }
}

#[test]
fn analyze_reads_a_probability_column_and_says_what_is_wrong_with_one() {
    let Some(shared) = shared_data() else { return };
    // alpaca-7b: every answer is read (gpt-3.5-turbo-1106's run has rows without a verdict,
    // which analyze drops only with --unreadable drop).
    let file = shared.join("alpacaeval/alpaca-7b.json");
    let out = tempfile::tempdir().expect("temp dir");
    let run_dir = out.path().join("run");
    let calibrated = replayed(&file, &run_dir);
    let ratings = run_dir.join("ratings.csv");
    let analyzed = json_of(&[
        "analyze",
        "--input",
        ratings.to_str().expect("utf-8"),
        "--probability",
        "p_response2",
        "--bootstrap",
        "0",
        "--json",
    ]);
    let (a, b) = (
        &calibrated["configs"][0]["probability"],
        &analyzed["configs"][0]["probability"],
    );
    for key in [
        "n",
        "expected_accuracy",
        "brier",
        "log_loss",
        "ece",
        "auc",
        "hard_accuracy",
    ] {
        let (x, y) = (
            a[key].as_f64().expect("a number"),
            b[key].as_f64().expect("a number"),
        );
        assert!((x - y).abs() < 1e-12, "{key}: calibrate {x}, analyze {y}");
    }
    // A value outside [0, 1]: exit 2, the file, column and row named.
    let bad = crate::common::write(out.path(), "bad.csv", "gold,rating,p\n1,1,0.9\n-1,1,1.5\n");
    let (code, _, err) = crate::common::run(&[
        "analyze",
        "--input",
        bad.to_str().expect("utf-8"),
        "--probability",
        "p",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("'p'") && err.contains("row 2") && err.contains("'1.5' is not a probability"),
        "{err}"
    );
}

#[test]
fn the_function_calling_judge_replayed_reads_as_alpacaeval_reads_it() {
    let Some(shared) = shared_data() else { return };
    let file = shared.join("alpacaeval/structured/gpt4.json");
    let prompt = crate::common::root().join("examples/prompts/alpaca_eval_fn.toml");
    let out = tempfile::tempdir().expect("temp dir");
    replayed_with(&file, prompt.to_str().expect("utf-8"), out.path());
    let golds = crate::common::ratings_floats(out.path(), "gold");
    let ratings = crate::common::ratings_floats(out.path(), "rating");
    let rows: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("file")).expect("json");
    let (mut compared, mut both_first, mut no_call) = (0, 0, 0);
    for (k, row) in rows.iter().enumerate() {
        let raw = &row["raw_completion"];
        if raw.is_null() {
            // Identical outputs: AlpacaEval's 1.5 without a call; nothing to replay.
            assert!(
                row["preference"] == "1.5" || row["preference"] == 1.5,
                "row {k}"
            );
            assert!(ratings[k].is_none());
            no_call += 1;
            continue;
        }
        let firsts: Vec<&str> = raw["ordered_models"]
            .as_array()
            .expect("a ranking")
            .iter()
            .filter(|m| m["rank"].as_f64() == Some(1.0))
            .filter_map(|m| m["model"].as_str())
            .collect();
        if firsts.len() != 1 {
            // Both ranked first: AlpacaEval's ranking_parser reads m's rank (1) and prefers m.
            both_first += 1;
            continue;
        }
        let model_won = ratings[k].expect("a verdict") == golds[k].expect("gold");
        let published = row["preference"]
            .as_f64()
            .or_else(|| row["preference"].as_str().and_then(|p| p.parse().ok()))
            .expect("a preference");
        assert_eq!(
            model_won,
            published == 2.0,
            "row {k}: {firsts:?}, preference {published}"
        );
        compared += 1;
    }
    assert_eq!((compared, both_first, no_call), (794, 5, 6));
}
