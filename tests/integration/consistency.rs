//! Self-consistency curves from the samples sc:N already drew: the k = N point under the
//! configured rule is the configuration's own accuracy, the curves come back the same from the
//! run directory (completions.jsonl), and every output carries them.

use crate::common::{json_of, run};

#[test]
fn sc_curves_end_at_the_configurations_own_score_and_survive_report_dir() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run");
    let out_s = out.to_str().expect("utf-8");
    let doc = json_of(&[
        "calibrate",
        "--judge",
        "sim",
        "--rater",
        "sc:5",
        "--rater",
        "sc:4:majority",
        "--bootstrap",
        "300",
        "--out",
        out_s,
    ]);
    for c in doc["configs"].as_array().expect("configs") {
        let cons = &c["consistency"];
        let n = cons["samples"].as_u64().expect("samples") as usize;
        let rule = if c["rater"] == "sc:5" {
            "mean"
        } else {
            "majority"
        };
        assert_eq!(n, if rule == "mean" { 5 } else { 4 });
        let curve = cons["curves"][rule].as_array().expect("curve");
        assert_eq!(curve.len(), n);
        // One subset at k = N (all samples): the configuration's own verdicts.
        assert_eq!(curve[n - 1]["subsets"], 1);
        let (own, last) = (
            c["overall"]["accuracy"].as_f64().expect("accuracy"),
            curve[n - 1]["accuracy"].as_f64().expect("k = N"),
        );
        assert!((own - last).abs() < 1e-12, "{own} vs {last}");
        let kq = curve[n - 1]["kappa_quadratic"].as_f64().expect("kq");
        assert!((kq - c["overall"]["kappa_quadratic"].as_f64().expect("kq")).abs() < 1e-12);
        // k = 1 is the same under every rule (one sample decides alone).
        let first: Vec<f64> = ["mean", "majority", "unanimous"]
            .iter()
            .map(|r| cons["curves"][*r][0]["accuracy"].as_f64().expect("k = 1"))
            .collect();
        assert!(
            first.windows(2).all(|w| (w[0] - w[1]).abs() < 1e-12),
            "{first:?}"
        );
        // C(5, 2) = 10 subsets at k = 2; every band holds its estimate.
        assert_eq!(
            cons["curves"][rule][1]["subsets"],
            if n == 5 { 10 } else { 6 }
        );
        for p in curve {
            let (v, lo, hi) = (
                p["accuracy"].as_f64().expect("v"),
                p["accuracy_ci"][0].as_f64().expect("lo"),
                p["accuracy_ci"][1].as_f64().expect("hi"),
            );
            assert!(lo <= v && v <= hi, "{p}");
        }
        let (bias, variance) = (
            cons["bias"].as_f64().expect("bias"),
            cons["variance"].as_f64().expect("variance"),
        );
        assert!((0.0..=1.0).contains(&bias) && (0.0..=1.0).contains(&variance));
    }
    // report DIR reads the samples back from completions.jsonl.
    let again = json_of(&["report", out_s]);
    for (a, b) in doc["configs"]
        .as_array()
        .expect("configs")
        .iter()
        .zip(again["configs"].as_array().expect("configs"))
    {
        assert_eq!(a["consistency"], b["consistency"]);
    }
    let csv = std::fs::read_to_string(out.join("metrics.csv")).expect("metrics.csv");
    assert!(csv.contains(",sc_majority_k3_accuracy,") && csv.contains(",sc_variance,"));
    let svg = std::fs::read_to_string(out.join("consistency.svg")).expect("consistency.svg");
    assert!(svg.contains("accuracy of sc:k from its own samples") && svg.contains("unanimous"));
    let (code, text, err) = run(&["report", out_s]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("Self-consistency from the samples already drawn"),
        "{text}"
    );
}
