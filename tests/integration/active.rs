//! Active labelling against the authors' own lines (#66): `tests/fixtures/active.json` holds
//! τ, η and every item's π that their notebook's tuning loop and rule give on the real stance
//! set (GPT-4o's stated confidence as p, a pilot of every 7th row, budget 0.1), and their
//! estimate and interval for 20 seeded draws (`generate_active_fixtures.py`, run from a
//! checkout of tijana-zrnic/active-inference). `plan --active` must give the same τ and π
//! (1e-12), and `analyze --estimate --label-prob` the same estimates (1e-9). Wrong input to
//! both is exit 2 with the fix.

use crate::common::{error_of, fixture, json_of, run, shared_data, write};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

/// The stance set as the fixture script reads it: (id, p, y's text) per row.
fn stance(shared: &Path) -> Vec<(String, f64, String)> {
    let frame = raterlab::dataset::frame::read(&shared.join("pac-labels/stance.csv")).expect("csv");
    let y = frame.text("Y", "-", "label").expect("Y");
    let said = frame.text("Yhat (GPT4o)", "-", "label").expect("Yhat");
    let conf = frame.numbers("confidence", "-").expect("confidence");
    (0..y.len())
        .map(|i| {
            let c = conf[i].expect("confidence");
            let p = if said[i] == "agrees" { c } else { 1.0 - c };
            (format!("s{i}"), p, y[i].clone())
        })
        .collect()
}

fn reference() -> Value {
    serde_json::from_str(&std::fs::read_to_string(fixture("active.json")).expect("fixture"))
        .expect("json")
}

/// input.csv (id, p) and pilot.csv (id, gold, p: every 7th row).
fn files(dir: &Path, rows: &[(String, f64, String)]) -> (String, String) {
    let mut input = String::from("id,p\n");
    let mut pilot = String::from("id,gold,p\n");
    for (i, (id, p, y)) in rows.iter().enumerate() {
        let _ = writeln!(input, "{id},{p}");
        if i % 7 == 0 {
            let _ = writeln!(pilot, "{id},{y},{p}");
        }
    }
    (
        write(dir, "input.csv", &input)
            .to_string_lossy()
            .into_owned(),
        write(dir, "pilot.csv", &pilot)
            .to_string_lossy()
            .into_owned(),
    )
}

#[test]
fn the_rule_and_the_estimate_are_the_authors_on_the_stance_set() {
    let Some(shared) = shared_data() else { return };
    let rows = stance(&shared);
    let r = reference();
    let dir = tempfile::tempdir().expect("dir");
    let (input, pilot) = files(dir.path(), &rows);
    let doc = json_of(&[
        "plan",
        "--active",
        "--input",
        &input,
        "--probability",
        "p",
        "--budget",
        "0.1",
        "--pilot",
        &pilot,
        "--gold-map",
        "agrees=1,disagrees=0,neutral=0",
        "--json",
    ]);
    let a = &doc["active"];
    assert_eq!(doc["metric"], "active");
    assert_eq!(a["tau"].as_f64(), r["tau"].as_f64(), "τ from the same grid");
    assert!((a["eta"].as_f64().expect("eta") - r["eta"].as_f64().expect("eta")).abs() < 1e-12);
    let ours = a["label_prob"].as_array().expect("items");
    let theirs = r["label_prob"].as_array().expect("probs");
    assert_eq!(ours.len(), theirs.len());
    assert_eq!(ours.len(), 2299);
    let mut worst = 0.0f64;
    for (o, t) in ours.iter().zip(theirs) {
        worst = worst.max((o["label_prob"].as_f64().expect("π") - t.as_f64().expect("π")).abs());
    }
    assert!(worst < 1e-12, "π differs by {worst}");
    let pi: Vec<f64> = theirs.iter().map(|v| v.as_f64().expect("π")).collect();

    // Their 20 draws: gold on the drawn rows only, π beside every row.
    for draw in r["draws"].as_array().expect("draws") {
        let drawn: std::collections::HashSet<usize> = draw["drawn"]
            .as_array()
            .expect("drawn")
            .iter()
            .map(|v| v.as_u64().expect("row") as usize)
            .collect();
        let mut csv = String::from("id,gold,p,label_prob\n");
        for (i, (id, p, y)) in rows.iter().enumerate() {
            let gold = if drawn.contains(&i) { y.as_str() } else { "" };
            let _ = writeln!(csv, "{id},{gold},{p},{}", pi[i]);
        }
        let file = write(dir.path(), "labelled.csv", &csv);
        let doc = json_of(&[
            "analyze",
            "--input",
            file.to_str().expect("utf-8"),
            "--gold-col",
            "gold",
            "--rating-col",
            "p",
            "--gold-map",
            "agrees=1,disagrees=0,neutral=0",
            "--estimate",
            "--label-prob",
            "label_prob",
            "--json",
        ]);
        let e = &doc["estimate"];
        let active = &e["mean"]["active"];
        assert_eq!(e["n_labelled"].as_u64(), Some(drawn.len() as u64));
        for (ours, theirs) in [
            (&active["estimate"], &draw["estimate"]),
            (&active["ci"][0], &draw["ci"][0]),
            (&active["ci"][1], &draw["ci"][1]),
        ] {
            let (o, t) = (
                ours.as_f64().expect("ours"),
                theirs.as_f64().expect("theirs"),
            );
            assert!((o - t).abs() < 1e-9, "seed {}: {o} vs {t}", draw["seed"]);
        }
        assert_eq!(active["leads"], Value::Bool(true));
        assert_eq!(e["label"], 1);
        assert!(
            e["mean"]["ppi_plus"].is_null(),
            "a draw with unequal π is no uniform sample"
        );
    }
}

#[test]
fn the_plan_draws_about_the_budget_writes_its_queue_and_is_honest_about_the_gain() {
    let Some(shared) = shared_data() else { return };
    let rows = stance(&shared);
    let dir = tempfile::tempdir().expect("dir");
    let (input, pilot) = files(dir.path(), &rows);
    let out = dir.path().join("queue.csv");
    let (code, stdout, err) = run(&[
        "plan",
        "--active",
        "--input",
        &input,
        "--probability",
        "p",
        "--budget",
        "200",
        "--pilot",
        &pilot,
        "--gold-map",
        "agrees=1,disagrees=0,neutral=0",
        "--seed",
        "3",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{err}");
    // The answer first: how many to label, then the rule, then whether it beats uniform.
    let first = stdout.lines().next().expect("a line");
    assert!(
        first.starts_with("Label ") && first.contains("of 2,299 items"),
        "{stdout}"
    );
    assert!(stdout.contains("of uniform sampling's"), "{stdout}");
    let queue = raterlab::dataset::frame::read(&out).expect("queue");
    assert_eq!(queue.column_names(), ["id", "p", "label_prob", "drawn"]);
    let drawn = queue.text("drawn", "-", "drawn").expect("drawn");
    let n = drawn.iter().filter(|d| *d == "true").count();
    // 200 expected: within four standard deviations of a sum of Bernoullis.
    assert!((n as f64 - 200.0).abs() < 4.0 * 200f64.sqrt(), "{n} drawn");
    let pis = queue.numbers("label_prob", "-").expect("π");
    let sum: f64 = pis.iter().flatten().sum();
    assert!((sum - 200.0).abs() < 1e-6, "Σπ = {sum}");
    // The same seed draws the same; another seed otherwise.
    let plan_of = |seed: &str| {
        json_of(&[
            "plan",
            "--active",
            "--input",
            &input,
            "--probability",
            "p",
            "--budget",
            "200",
            "--pilot",
            &pilot,
            "--gold-map",
            "agrees=1,disagrees=0,neutral=0",
            "--seed",
            seed,
        ])["active"]
            .clone()
    };
    let drawn_sets = |seed: &str| {
        let plan = plan_of(seed);
        let set: Vec<bool> = plan["label_prob"]
            .as_array()
            .expect("items")
            .iter()
            .map(|i| i["drawn"].as_bool().expect("drawn"))
            .collect();
        (plan["n_drawn"].clone(), set)
    };
    assert_eq!(drawn_sets("3").0, Value::from(n));
    assert_ne!(drawn_sets("3").1, drawn_sets("4").1);
}

#[test]
fn constant_pi_keeps_ppi_plus_in_the_lead_and_says_so() {
    let dir = tempfile::tempdir().expect("dir");
    let mut csv = String::from("id,gold,p,label_prob\n");
    for i in 0..400 {
        let p = (i % 10) as f64 / 10.0 + 0.05;
        let gold = if i % 4 == 0 {
            if (i / 4) % 3 == 0 {
                "0"
            } else {
                "1"
            }
        } else {
            ""
        };
        let _ = writeln!(csv, "r{i},{gold},{p},0.25");
    }
    let file = write(dir.path(), "uniform.csv", &csv);
    let f = file.to_str().expect("utf-8");
    let doc = json_of(&[
        "analyze",
        "--input",
        f,
        "--gold-col",
        "gold",
        "--rating-col",
        "p",
        "--estimate",
        "--estimate-label",
        "1",
        "--label-prob",
        "label_prob",
        "--json",
    ]);
    let e = &doc["estimate"];
    assert_eq!(e["mean"]["active"]["constant_pi"], Value::Bool(true));
    assert_eq!(e["mean"]["active"]["leads"], Value::Bool(false));
    assert!(e["mean"]["ppi_plus"]["estimate"].is_f64());
    let notes = e["notes"].to_string();
    assert!(notes.contains("same chance of being labelled"), "{notes}");
    let (code, out, err) = run(&[
        "analyze",
        "--input",
        f,
        "--gold-col",
        "gold",
        "--rating-col",
        "p",
        "--estimate",
        "--estimate-label",
        "1",
        "--label-prob",
        "label_prob",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Corrected with 100 human labels"), "{out}");
    assert!(out.contains("│ active"), "{out}");
}

#[test]
fn wrong_input_to_plan_active_and_label_prob_is_exit_2_with_the_fix() {
    let dir = tempfile::tempdir().expect("dir");
    let input = write(dir.path(), "in.csv", "id,p\na,0.2\nb,0.9\nc,\n");
    let good = write(dir.path(), "good.csv", "id,p\na,0.2\nb,0.9\n");
    let pilot = write(dir.path(), "pilot.csv", "id,gold,p\nx,1,0.8\ny,0,0.3\n");
    let no_gold = write(dir.path(), "nogold.csv", "id,gold,p\nx,,0.8\n");
    let s = |p: &Path| p.to_str().expect("utf-8").to_string();
    let base = |input: &str, pilot: &str, budget: &str| {
        vec![
            "plan".to_string(),
            "--active".into(),
            "--input".into(),
            input.into(),
            "--probability".into(),
            "p".into(),
            "--budget".into(),
            budget.into(),
            "--pilot".into(),
            pilot.into(),
        ]
    };
    for (args, says) in [
        (base(&s(&input), &s(&pilot), "0.5"), "row 3"),
        (base(&s(&good), &s(&no_gold), "0.5"), "no row has gold"),
        (base(&s(&good), &s(&pilot), "0"), "--budget 0"),
        (
            base(&s(&good), &s(&pilot), "5"),
            "more labels than the 2 items",
        ),
    ] {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let err = error_of(&refs);
        assert!(err.contains(says), "{args:?}: {err}");
    }
    let mut wrong_col = base(&s(&good), &s(&pilot), "0.5");
    wrong_col[5] = "prob".into();
    let refs: Vec<&str> = wrong_col.iter().map(String::as_str).collect();
    assert!(error_of(&refs).contains("prob"));
    let zero = write(
        dir.path(),
        "zero.csv",
        "id,gold,p,pi\na,1,0.2,0.5\nb,,0.9,0\n",
    );
    let err = error_of(&[
        "analyze",
        "--input",
        &s(&zero),
        "--gold-col",
        "gold",
        "--rating-col",
        "p",
        "--estimate",
        "--label-prob",
        "pi",
    ]);
    assert!(err.contains("row 2") && err.contains("above 0"), "{err}");
}
