//! Ties on the real subset (../shared/data/rewardbench2/ties.parquet: allenai/reward-bench-2's
//! 102 Ties rows, 1,925 completions) scored through `--judge scores:FILE`, equal to
//! reward-bench's current `process_single_model` run from its source by
//! tests/fixtures/generate_rewardbench2_ties_fixtures.py, under every scoring rule there
//! (integer grades whose correct answers tie, missing scores under both rules) to 1e-12.

use crate::common::{fixture, json_of, shared_data};
use serde_json::Value;

/// The Ties rows: id, prompt and the completions (correct ones first).
fn rows(path: &std::path::Path) -> Vec<(String, String, Vec<String>)> {
    crate::common::list_rows(path)
        .into_iter()
        .map(|r| {
            (
                r.id,
                r.prompt,
                r.chosen.into_iter().chain(r.rejected).collect(),
            )
        })
        .collect()
}

#[test]
fn ties_on_the_real_subset_equals_reward_benchs_process_single_model() {
    let Some(shared) = shared_data() else { return };
    let path = shared.join("rewardbench2/ties.parquet");
    let rows = rows(&path);
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("rewardbench2_ties_real.json")).expect("fixture"),
    )
    .expect("JSON");
    assert_eq!(rows.len() as u64, doc["rows"].as_u64().expect("rows"));
    let dir = tempfile::tempdir().expect("tempdir");
    let cases = doc["cases"].as_array().expect("cases");
    assert!(cases.len() >= 8);
    for (k, case) in cases.iter().enumerate() {
        let what = format!("{} ({})", case["rule"], case["missing"]);
        // The case's scores by the rows' texts; a missing one is not in the file.
        let mut lines = String::new();
        for (id, prompt, completions) in &rows {
            let scores = case["scores"][id].as_array().expect("the row's scores");
            assert_eq!(scores.len(), completions.len(), "{id}");
            for (text, score) in completions.iter().zip(scores) {
                if let Some(s) = score.as_f64() {
                    let line = serde_json::json!({"prompt": prompt, "response": text, "score": s});
                    lines.push_str(&format!("{line}\n"));
                }
            }
        }
        let file = dir.path().join(format!("scores-{k}.jsonl"));
        std::fs::write(&file, lines).expect("scores file");
        let judge = format!("scores:{}", file.display());
        let out = dir.path().join(format!("run-{k}"));
        let got = json_of(&[
            "calibrate",
            "--data",
            path.to_str().expect("utf-8"),
            "--judge",
            &judge,
            "--pointwise-missing",
            case["missing"].as_str().expect("rule"),
            "--bootstrap",
            "0",
            "--out",
            out.to_str().expect("utf-8"),
        ]);
        let ties = &got["configs"][0]["rewardbench2"]["ties"];
        for part in [
            "score",
            "ref_accuracy",
            "tied_accuracy",
            "correctness_preferred",
            "correctness_preferred_hard",
            "margin",
        ] {
            let want = &case["expected"][part];
            match (ties[part].as_f64(), want.as_f64()) {
                (Some(g), Some(w)) => assert!((g - w).abs() < 1e-12, "{what} {part}: {g} vs {w}"),
                (g, w) => assert_eq!(g, w, "{what} {part}: {ties}"),
            }
        }
        if let Some(kept) = case["rows_kept"].as_u64() {
            let dropped = got["configs"][0]["rewardbench2"]["dropped"]
                .as_u64()
                .expect("dropped");
            assert_eq!(dropped, rows.len() as u64 - kept, "{what}");
        }
    }
}

/// `data summary` on the real file shows its shape: 102 rows of Ties, 4 to 26 completions.
#[test]
fn data_summary_shows_the_real_ties_file() {
    let Some(shared) = shared_data() else { return };
    let path = shared.join("rewardbench2/ties.parquet");
    let (code, out, err) =
        crate::common::run(&["data", "summary", "--data", path.to_str().expect("utf-8")]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("│ Ties   ┆  102 ┆"), "{out}");
    let flat = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("Ties: 102 rows for 51 questions: 51 ref:N (one correct answer) and 51 tied:N (2–26 correct)")
            && flat.contains("1,925 completions"),
        "{out}"
    );
}
