//! Checks on the real benchmark data in ../shared/data (skipped with a notice when missing,
//! failing instead under RATERLAB_REQUIRE_SHARED=1).

use crate::common::{fixture, json_of, run, shared_data};
use serde_json::Value;

#[test]
fn pandalm_annotator_vs_judge_matches_sklearn() {
    let Some(shared) = shared_data() else { return };
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("metrics.json")).expect("fixture"))
            .expect("fixture JSON");
    let cases: Vec<&Value> = doc["real_data"]
        .as_array()
        .expect("real_data cases")
        .iter()
        .filter(|c| c.get("gold").is_some())
        .collect();
    assert!(!cases.is_empty(), "fixture holds the real-data case");
    for case in cases {
        let path = |key: &str| {
            shared
                .join(case[key].as_str().expect("path"))
                .display()
                .to_string()
        };
        let (gold, ratings) = (path("gold"), path("ratings"));
        let text = |key: &str| case[key].as_str().expect("column").to_string();
        let (gold_col, rating_col, id_col) = (text("gold_col"), text("rating_col"), text("id_col"));
        let got = json_of(&[
            "analyze",
            "--gold",
            &gold,
            "--ratings",
            &ratings,
            "--gold-col",
            &gold_col,
            "--rating-col",
            &rating_col,
            "--id-col",
            &id_col,
            "--bootstrap",
            "0",
        ]);
        let want = &case["expected"];
        assert_same_metrics(&got, want);
        for key in ["spearman_p", "kendall_p"] {
            let (g, w) = (
                got[key].as_f64().expect("value"),
                want[key].as_f64().expect("value"),
            );
            assert!((g - w).abs() <= 1e-6 * w.abs(), "{key}: {g:e} vs {w:e}");
        }
    }
}

#[test]
fn pandalm_gpt35_text_verdicts_are_named_in_the_error() {
    let Some(shared) = shared_data() else { return };
    let gold = shared
        .join("pandalm/testset-v1.jsonl")
        .display()
        .to_string();
    let ratings = shared
        .join("pandalm/gpt-3.5-turbo-testset-v1.jsonl")
        .display()
        .to_string();
    let (code, _, err) = run(&[
        "analyze",
        "--gold",
        &gold,
        "--gold-col",
        "annotator1",
        "--ratings",
        &ratings,
        "--rating-col",
        "gpt_result",
        "--id-col",
        "idx",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("column 'gpt_result', row ") && err.contains("is not an integer label"),
        "{err}"
    );
}

fn fixture_case(name: &str) -> Value {
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("metrics.json")).expect("fixture"))
            .expect("JSON");
    doc["real_data"]
        .as_array()
        .expect("cases")
        .iter()
        .find(|c| c["name"] == name)
        .cloned()
        .expect("case in fixture")
}

#[test]
fn pandalm_majority_vs_gpt35_verdicts_equals_sklearn() {
    let Some(shared) = shared_data() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let gold = dir.path().join("pandalm-gold.csv");
    let testset = shared
        .join("pandalm/testset-v1.jsonl")
        .display()
        .to_string();
    let (code, _, err) = run(&[
        "data", "export", "--data", &testset,
        "--map", "prompt=instruction+input,response1=response1,response2=response2,label=annotator1+annotator2+annotator3,id=idx",
        "--gold-map", "0=0,1=-1,2=1", "--out", gold.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{err}");
    let gpt = shared
        .join("pandalm/gpt-3.5-turbo-testset-v1.jsonl")
        .display()
        .to_string();
    let got = json_of(&[
        "analyze",
        "--gold",
        gold.to_str().expect("utf-8"),
        "--ratings",
        &gpt,
        "--ratings-id-col",
        "idx",
        "--rating-col",
        "gpt_result",
        "--rating-map",
        "1=-1,2=1,Tie=0",
        "--unreadable",
        "drop",
        "--bootstrap",
        "0",
    ]);
    let case = fixture_case("pandalm_majority_vs_gpt35");
    assert_eq!(got["dropped_ratings"], case["dropped_ratings"]);
    assert_same_metrics(&got, &case["expected"]);
}

/// analyze's JSON equals the sklearn/scipy reference: n, confusion, statistics to 1e-9.
fn assert_same_metrics(got: &Value, want: &Value) {
    assert_eq!(got["n"], want["n"]);
    assert_eq!(got["confusion"]["matrix"], want["confusion"]);
    for key in [
        "accuracy",
        "kappa",
        "kappa_linear",
        "kappa_quadratic",
        "spearman",
        "kendall_tau_b",
    ] {
        let (g, w) = (
            got[key].as_f64().expect("value"),
            want[key].as_f64().expect("value"),
        );
        assert!((g - w).abs() < 1e-9, "{key}: {g} vs {w}");
    }
}
