//! `raterlab plan`: items needed for a difference, from an assumed or a measured discordance
//! (McNemar, checked against scipy's closed form in the fixtures) and, for quadratic kappa, by
//! simulation.

use crate::common::{error_of, json_of};
use raterlab::metrics::power::mcnemar_items_needed;
use serde_json::Value;

fn json(args: &[&str]) -> Value {
    let mut all = vec!["plan"];
    all.extend_from_slice(args);
    json_of(&all)
}

#[test]
fn accuracy_from_an_assumed_or_measured_discordance() {
    let doc = json(&["--diff", "0.03", "--discordance", "0.2"]);
    let want = mcnemar_items_needed(0.2, 0.03, 0.05, 0.8).ceil();
    assert_eq!(doc["pairs"][0]["items_needed"].as_f64(), Some(want));
    assert_eq!(want, 1742.0);
    // From a run: every compared pair, with its own discordance and item count.
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run");
    let out_s = out.to_str().expect("utf-8");
    let cal = json_of(&["calibrate", "--demo", "--bootstrap", "0", "--out", out_s]);
    let doc = json(&["--diff", "0.05", "--from", out_s]);
    let pairs = doc["pairs"].as_array().expect("pairs");
    let comparisons = cal["comparisons"].as_array().expect("comparisons");
    assert_eq!(pairs.len(), comparisons.len());
    for (p, c) in pairs.iter().zip(comparisons) {
        assert_eq!(p["discordance"], c["discordance"]);
        assert_eq!(p["items_now"], c["n"]);
        assert_eq!(p["min_detectable_now"], c["min_detectable_difference"]);
    }
}

#[test]
fn kappa_by_simulation_agrees_with_mcnemar_where_they_coincide() {
    // Two judges right 75% and 80% of the time, independently, on balanced ±1 gold with no
    // ties: quadratic kappa is 2·accuracy − 1, so detecting +0.10 in kappa is detecting +0.05
    // in accuracy, for which McNemar needs n with discordance 0.75·0.2 + 0.25·0.8 = 0.35.
    let doc = json(&[
        "--metric",
        "kappa_quadratic",
        "--accuracy",
        "0.75",
        "--diff",
        "0.05",
        "--runs",
        "1000",
    ]);
    let kappa_diff = doc["kappa_difference"].as_f64().expect("diff");
    assert!((kappa_diff - 0.10).abs() < 0.01, "{kappa_diff}");
    let n = doc["items_needed"].as_f64().expect("n");
    let mcnemar = mcnemar_items_needed(0.35, 0.05, 0.05, 0.8);
    assert!(
        (n / mcnemar - 1.0).abs() < 0.12,
        "{n} vs McNemar's {mcnemar}"
    );
    let reached = doc["power_reached_in_simulation"].as_f64().expect("power");
    assert!((0.7..=0.9).contains(&reached), "{reached}");
}

#[test]
fn plan_inputs_are_checked() {
    let e = error_of(&["plan", "--diff", "0.3", "--discordance", "0.2"]);
    assert!(e.contains("cannot exceed the discordance"), "{e}");
    let e = error_of(&["plan", "--diff", "0.03"]);
    assert!(
        e.contains("--discordance P") && e.contains("--from RUN_DIR"),
        "{e}"
    );
    let e = error_of(&["plan", "--diff", "0", "--discordance", "0.2"]);
    assert!(e.contains("--diff 0"), "{e}");
    let e = error_of(&[
        "plan",
        "--diff",
        "0.03",
        "--discordance",
        "0.2",
        "--power",
        "1.5",
    ]);
    assert!(e.contains("--power 1.5"), "{e}");
    let e = error_of(&["plan", "--metric", "f1", "--diff", "0.03"]);
    assert!(e.contains("invalid value 'f1' for '--metric"), "{e}");
    let e = error_of(&[
        "plan",
        "--metric",
        "kappa_quadratic",
        "--accuracy",
        "0.98",
        "--diff",
        "0.05",
    ]);
    assert!(e.contains("outside 0..1"), "{e}");
}
