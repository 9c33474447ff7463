//! Probabilities' figures against sklearn (tests/fixtures/calibration.json, written by
//! tests/fixtures/generate_calibration_fixtures.py): brier_score_loss, log_loss, roc_auc_score
//! and calibration_curve to 1e-9, edge cases included (bin edges, ties, p of 0 and 1, one
//! class).

use crate::common::fixture;
use raterlab::metrics::calibration::{calibration, selective, BINS};
use serde_json::Value;

fn close(case: &str, what: &str, got: f64, want: &Value) {
    match want.as_f64() {
        None => assert!(got.is_nan(), "{case}: {what} = {got}, sklearn gives NaN"),
        Some(w) => assert!(
            (got - w).abs() <= 1e-9,
            "{case}: {what} = {got:e}, sklearn {w:e}"
        ),
    }
}

#[test]
fn every_figure_matches_sklearn() {
    let text = std::fs::read_to_string(fixture("calibration.json")).expect("fixture");
    let fixture: Value = serde_json::from_str(&text).expect("JSON");
    let cases = fixture["cases"].as_array().expect("cases");
    assert!(cases.len() >= 6);
    for c in cases {
        let name = c["name"].as_str().expect("test data");
        let y: Vec<bool> = c["y"]
            .as_str()
            .expect("test data")
            .chars()
            .map(|ch| ch == '1')
            .collect();
        let p: Vec<f64> = c["p"]
            .as_array()
            .expect("test data")
            .iter()
            .map(|v| v.as_f64().expect("test data"))
            .collect();
        let got = calibration(&y, &p, BINS, raterlab::metrics::Resampling::at95(0, 1));
        close(name, "brier", got.brier, &c["brier"]);
        close(name, "log_loss", got.log_loss, &c["log_loss"]);
        close(name, "auc", got.auc, &c["auc"]);
        // calibration_curve lists the non-empty bins.
        let filled: Vec<_> = got.bins.iter().filter(|b| b.n > 0).collect();
        let (truth, pred) = (
            c["prob_true"].as_array().expect("test data"),
            c["prob_pred"].as_array().expect("test data"),
        );
        assert_eq!(filled.len(), truth.len(), "{name}: non-empty bins");
        for (k, b) in filled.iter().enumerate() {
            close(name, "prob_true", b.observed, &truth[k]);
            close(name, "prob_pred", b.mean_p, &pred[k]);
        }
        // ECE over the same bins, and the soft agreement, by definition.
        let n = y.len() as f64;
        let ece: f64 = filled
            .iter()
            .map(|b| b.n as f64 / n * (b.observed - b.mean_p).abs())
            .sum();
        assert!((got.ece - ece).abs() < 1e-12, "{name}: ece");
        let soft: f64 = y
            .iter()
            .zip(&p)
            .map(|(&t, &q)| if t { q } else { 1.0 - q })
            .sum::<f64>()
            / n;
        assert!(
            (got.expected_accuracy - soft).abs() < 1e-12,
            "{name}: expected accuracy"
        );
    }
}

#[test]
fn intervals_hold_the_estimate_and_selective_accuracy_counts() {
    let y: Vec<bool> = (0..400).map(|i| i % 3 != 0).collect();
    let p: Vec<f64> = (0..400)
        .map(|i| if i % 3 != 0 { 0.8 } else { 0.3 } + (i % 7) as f64 / 100.0)
        .collect();
    let c = calibration(&y, &p, BINS, raterlab::metrics::Resampling::at95(500, 7));
    let ci = c.intervals.expect("intervals");
    for (name, value, (lo, hi)) in [
        ("brier", c.brier, ci.brier),
        ("log_loss", c.log_loss, ci.log_loss),
        ("ece", c.ece, ci.ece),
        (
            "expected_accuracy",
            c.expected_accuracy,
            ci.expected_accuracy,
        ),
    ] {
        assert!(
            lo <= value && value <= hi && lo < hi,
            "{name}: {value} not in [{lo}, {hi}]"
        );
    }
    // Every item is right here; abstaining below 0.7 keeps the y = 1 items (p ≥ 0.8) and
    // those with p ≤ 0.3 (confidence ≥ 0.7).
    let s = selective(&y, &p, &[0.5, 0.75, 0.99]);
    assert_eq!((s[0].n, s[0].accuracy), (400, 1.0));
    let confident = p.iter().filter(|&&q| q.max(1.0 - q) >= 0.75).count();
    assert_eq!(s[1].n, confident);
    assert_eq!(s[2].n, 0);
    assert!(s[2].accuracy.is_nan());
    // p = ½ is worth half.
    assert_eq!(
        selective(&[true, false], &[0.5, 0.5], &[0.5])[0].accuracy,
        0.5
    );
}
