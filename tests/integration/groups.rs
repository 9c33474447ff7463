//! Significance groups: the configurations indistinguishable from each scope's best, with
//! Holm over the subset tests, so tiny subsets crown nobody.

use crate::common::{json_of, run};

#[test]
fn tiny_subsets_crown_nobody_and_holm_spans_every_subset_test() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run");
    let doc = json_of(&[
        "calibrate",
        "--demo",
        "--bootstrap",
        "0",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    let groups = &doc["significance_groups"];
    let configs = doc["configs"].as_array().expect("configs").len();
    let subsets = groups["by_subset"].as_object().expect("subsets");
    assert_eq!(subsets.len(), 23);
    let mut tests = Vec::new();
    for (name, g) in subsets {
        let members = g["indistinguishable"].as_array().expect("members");
        assert_eq!(members[0], g["best"], "{name}: the best leads its group");
        for t in g["tests"].as_array().expect("tests") {
            if let (Some(p), Some(adjusted)) = (t["p"].as_f64(), t["p_holm"].as_f64()) {
                assert!(adjusted >= p - 1e-15 && adjusted <= 1.0, "{t}");
                tests.push(p);
                let in_group = members.iter().any(|m| *m == t["config"]);
                assert_eq!(in_group, adjusted >= 0.05, "{name}: {t}");
            }
        }
        // With one to three pairs per subset nothing separates from the best.
        assert_eq!(members.len(), configs, "{name}: {g}");
    }
    // One Holm family for all subset tests: the smallest p is multiplied by their number.
    let min = tests.iter().copied().fold(f64::INFINITY, f64::min);
    let smallest_adjusted = subsets
        .values()
        .flat_map(|g| g["tests"].as_array().expect("tests").clone())
        .filter(|t| t["p"].as_f64() == Some(min))
        .filter_map(|t| t["p_holm"].as_f64())
        .fold(f64::INFINITY, f64::min);
    assert!((smallest_adjusted - (min * tests.len() as f64).min(1.0)).abs() < 1e-12);
    // Overall, the demo's 43 items do separate some configurations from the best.
    let overall = &groups["overall"];
    assert!(
        overall["indistinguishable"]
            .as_array()
            .expect("members")
            .len()
            < configs,
        "{overall}"
    );
    let csv = std::fs::read_to_string(out.join("metrics.csv")).expect("metrics.csv");
    assert!(csv.contains(",in_best_group,") && csv.contains(",holm_p_vs_best,"));
    let (code, text, err) = run(&["report", out.to_str().expect("utf-8")]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("Indistinguishable from the best"), "{text}");
}
