//! One α (`--alpha`, default 0.05): every paired test and its family's Holm steps, the
//! significance groups, the race of `--sequential`, the power figures and the intervals at
//! 1 − α, in `calibrate` and `report DIR`, and each output states it.

use crate::common::{error_of, json_of, run};

fn interval_width(doc: &serde_json::Value) -> f64 {
    let ci = &doc["configs"][0]["overall"]["ci"]["accuracy"];
    ci[1].as_f64().expect("hi") - ci[0].as_f64().expect("lo")
}

#[test]
fn alpha_sets_every_test_and_interval_and_report_dir_keeps_or_changes_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = |name: &str| dir.path().join(name).to_str().expect("utf-8").to_string();
    let (at05, at20) = (out("a05"), out("a20"));
    let base = ["calibrate", "--demo", "--bootstrap", "200"];
    let doc05 = json_of(&[&base[..], &["--out", &at05]].concat());
    let doc20 = json_of(&[&base[..], &["--alpha", "0.2", "--out", &at20]].concat());
    assert_eq!(doc05["comparison_family"]["alpha"], 0.05);
    assert_eq!(doc20["comparison_family"]["alpha"], 0.2);
    assert_eq!(doc20["significance_groups"]["alpha"], 0.2);
    // An 80% interval is narrower than a 95% one on the same resamples.
    assert!(interval_width(&doc20) < interval_width(&doc05));
    // The tests without a verdict carry their unadjusted interval at 1 − α; those with one
    // at a Holm step's level, never below 1 − α; every finding agrees with its interval.
    for c in doc20["comparisons"].as_array().expect("comparisons") {
        for t in c["tests"].as_array().expect("tests") {
            let level = t["ci_level"].as_f64().expect("level");
            if c["judged"] == false {
                assert!((level - 0.8).abs() < 1e-12, "{t}");
            } else {
                assert!(level >= 0.8 - 1e-12, "{t}");
            }
            if let (Some(p), Some(lo), Some(hi)) = (
                t["p_holm"].as_f64(),
                t["ci"][0].as_f64(),
                t["ci"][1].as_f64(),
            ) {
                let called = t["finding"] == "a_better" || t["finding"] == "b_better";
                assert_eq!(called, p < 0.2, "{t}");
                assert_eq!(called, lo > 0.0 || hi < 0.0, "{t}");
            }
        }
    }
    // At α = 0.2 at least as many pairs are told apart as at 0.05.
    let called = |d: &serde_json::Value| {
        d["comparisons"]
            .as_array()
            .expect("comparisons")
            .iter()
            .flat_map(|c| c["tests"].as_array().expect("tests").clone())
            .filter(|t| t["finding"] == "a_better" || t["finding"] == "b_better")
            .count()
    };
    assert!(called(&doc20) >= called(&doc05));
    // The power figures follow α: fewer items needed at a looser level.
    let needed = |d: &serde_json::Value| d["comparisons"][0]["items_needed"].as_f64();
    if let (Some(a), Some(b)) = (needed(&doc05), needed(&doc20)) {
        assert!(b < a, "{b} items at α = 0.2 against {a} at 0.05");
    }
    // The terminal states it.
    let (code, text, _) = run(&[&base[..], &["--alpha", "0.2", "--out", &out("t")]].concat());
    assert_eq!(code, 0);
    assert!(text.contains("80% CIs"), "{text}");
    // Every interval is at 1 − α: no table or line of the terminal, --details included, names
    // 95%; the cost frontier's one-sided test is at 80%, its two-sided interval at 60%.
    let (code, details, _) = run(&[
        &base[..],
        &["--alpha", "0.2", "--details", "--out", &out("d")],
    ]
    .concat());
    assert_eq!(code, 0);
    assert!(!details.contains("95%"), "{details}");
    // The significance groups' table states the level it splits at.
    assert!(
        details.contains("Holm-adjusted p ≥ 0.2)") && !details.contains("p ≥ 0.05"),
        "{details}"
    );
    assert!(
        details.contains("one-sided 80%") && details.contains("60% interval"),
        "{details}"
    );
    assert_eq!(
        doc20["cost_frontier"]["alpha"], 0.2,
        "{}",
        doc20["cost_frontier"]
    );
    assert_eq!(doc05["cost_frontier"]["alpha"], 0.05);
    // report DIR keeps the run's α, or takes a new one.
    assert_eq!(
        json_of(&["report", &at20])["comparison_family"]["alpha"],
        0.2
    );
    let again = json_of(&["report", &at20, "--alpha", "0.05"]);
    assert_eq!(again["comparison_family"]["alpha"], 0.05);
    assert_eq!(again["comparisons"], doc05["comparisons"]);
    // The race runs at α.
    let raced = json_of(&[
        "calibrate",
        "--demo",
        "--sequential",
        "--alpha",
        "0.2",
        "--bootstrap",
        "0",
        "--out",
        &out("raced"),
    ]);
    assert_eq!(raced["sequential"]["alpha"], 0.2);
    assert!((raced["sequential"]["alpha_each"].as_f64().expect("each") - 0.2 / 15.0).abs() < 1e-15);
    // A level outside (0, 1) is refused, on both commands.
    for args in [
        vec![
            "calibrate",
            "--demo",
            "--alpha",
            "1.5",
            "--out",
            &out("never"),
        ],
        vec!["report", &at20, "--alpha", "0"],
    ] {
        let e = error_of(&args);
        assert!(
            e.contains("--alpha") && e.contains("between 0 and 1"),
            "{e}"
        );
    }
}

/// The sentence on what a comparison without a difference could have detected states the α
/// its figures are at. It used to say "α = 0.05" whatever `--alpha` was, while the figures
/// beside it were computed at the given level.
#[test]
fn the_power_sentence_names_the_alpha_its_figures_are_at() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("two.csv");
    // Two rating columns one item apart over 300 items: no test tells them apart.
    let mut csv = String::from("id,gold,a,b\n");
    for k in 0..300 {
        let gold = if k % 2 == 0 { -1 } else { 1 };
        let a = if k % 4 < 3 { gold } else { -gold };
        let b = if k % 4 < 3 || k == 3 { gold } else { -gold };
        csv.push_str(&format!("i{k},{gold},{a},{b}\n"));
    }
    std::fs::write(&path, csv).expect("csv");
    let input = path.to_str().expect("utf-8");
    for (alpha, stated) in [("0.2", "α = 0.2,"), ("0.05", "α = 0.05,")] {
        let (code, text, err) = run(&[
            "analyze",
            "--input",
            input,
            "--rating-col",
            "a,b",
            "--bootstrap",
            "200",
            "--alpha",
            alpha,
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(text.contains("no significant difference"), "{text}");
        assert!(
            text.contains(&format!("at 80% power and {stated}")),
            "--alpha {alpha}: {text}"
        );
        let other = if alpha == "0.2" {
            "α = 0.05"
        } else {
            "α = 0.2"
        };
        assert!(!text.contains(other), "--alpha {alpha}: {text}");
    }
}

/// One rule for a level, on every command that takes `--alpha` and on run.json as it is read
/// back: a number strictly between 0 and 1, else exit code 2 and one line saying so. On a
/// RewardBench 2 run `report DIR --alpha 1.5` panicked (an interval's percentile read past the
/// resamples) and `--alpha 0` was kept in run.json, so every later `report` of it failed.
#[test]
fn every_command_refuses_a_level_outside_zero_and_one_and_run_json_is_checked_as_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rb2 = dir.path().join("rb2");
    let rb2 = rb2.to_str().expect("utf-8");
    let (code, _, err) = run(&[
        "calibrate",
        "--data",
        "sample-v2",
        "--judge",
        "sim:accuracy=0.8",
        "--bootstrap",
        "50",
        "--out",
        rb2,
    ]);
    assert_eq!(code, 0, "{err}");
    let before =
        std::fs::read_to_string(std::path::Path::new(rb2).join("run.json")).expect("run.json");
    let labels = dir.path().join("labels.db");
    let labels = labels.to_str().expect("utf-8");
    for bad in ["1.5", "0", "1", "-0.1", "NaN", "x"] {
        // `--alpha=-0.1`, so that a negative level is read as the flag's value.
        let flag = format!("--alpha={bad}");
        for args in [
            vec!["report", rb2, &flag],
            vec!["calibrate", "--data", "sample-v2", "--judge", "sim", &flag],
            vec!["analyze", "--input", "data/example-ratings.csv", &flag],
            vec!["plan", &flag],
            vec!["labels", "stats", "--store", labels, &flag],
            vec!["label", &flag],
        ] {
            let e = error_of(&args);
            assert!(
                e.contains("--alpha") && e.contains("strictly between 0 and 1"),
                "{args:?}: {e}"
            );
        }
    }
    // Nothing refused was written: the run's level is as it was.
    let after =
        std::fs::read_to_string(std::path::Path::new(rb2).join("run.json")).expect("run.json");
    assert_eq!(before, after);
    // A run.json whose level is not one (edited by hand) is named, with the fix.
    let edited = before.replacen("\"alpha\": 0.05", "\"alpha\": 0.0", 1);
    assert_ne!(edited, before, "run.json states its alpha");
    std::fs::write(std::path::Path::new(rb2).join("run.json"), edited).expect("write");
    let e = error_of(&["report", rb2]);
    assert!(
        e.contains("run.json") && e.contains("'alpha' is 0") && e.contains("0.05 by default"),
        "{e}"
    );
}
