//! PAC labelling against the authors' own code (#66): `tests/fixtures/pac.json` holds what
//! `pac_utils.pac_labeling` (tijana-zrnic/pac-labels) sends to a human on the real stance set
//! for 20 seeded first rounds of 500 and both bounds (`generate_pac_fixtures.py`, run from a
//! checkout of their repository); raterlab's `to_label` must be the same rows, and its
//! threshold must give exactly that set.

use crate::common::{fixture, shared_data};
use raterlab::evaluation::pac::{pac, PacSettings};
use raterlab::metrics::pac::Bound;
use serde_json::Value;
use sha2::{Digest, Sha256};

#[test]
fn to_label_is_the_authors_for_twenty_first_rounds_and_both_bounds() {
    let Some(shared) = shared_data() else { return };
    let frame = raterlab::dataset::frame::read(&shared.join("pac-labels/stance.csv")).expect("csv");
    let code = |v: &str| match v {
        "agrees" => 1,
        "disagrees" => -1,
        _ => 0,
    };
    let y: Vec<i64> = frame
        .text("Y", "-", "label")
        .expect("Y")
        .iter()
        .map(|v| code(v))
        .collect();
    let yhat: Vec<i64> = frame
        .text("Yhat (GPT4o)", "-", "label")
        .expect("Yhat")
        .iter()
        .map(|v| code(v))
        .collect();
    let reference: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("pac.json")).expect("fixture"))
            .expect("json");
    let uncertainty: Vec<f64> = reference["uncertainty"]
        .as_array()
        .expect("uncertainty")
        .iter()
        .map(|u| u.as_str().expect("repr").parse().expect("float"))
        .collect();
    let n = y.len();
    assert_eq!((n, uncertainty.len()), (2299, 2299));
    let ids: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    let runs = reference["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 40);
    for run in runs {
        let mut first = vec![false; n];
        for i in run["first_round"].as_array().expect("rows") {
            first[i.as_u64().expect("row") as usize] = true;
        }
        let gold: Vec<Option<i64>> = (0..n).map(|i| first[i].then_some(y[i])).collect();
        let bound = if run["bound"] == "clt" {
            Bound::Clt
        } else {
            Bound::Betting
        };
        let s = PacSettings {
            epsilon: 0.05,
            alpha: 0.05,
            bound,
            seed: 0,
        };
        let p = pac(&ids, &yhat, (&gold, &first), &uncertainty, &s);
        let what = format!("first round {} ({})", run["seed"], run["bound"]);
        assert_eq!(
            p.n_to_label as u64,
            run["n_to_label"].as_u64().expect("n"),
            "{what}"
        );
        let joined = p.to_label.join(",");
        assert_eq!(
            format!("{:x}", Sha256::digest(joined.as_bytes())),
            run["to_label_sha256"].as_str().expect("sha"),
            "{what}"
        );
        assert!(
            (p.saved - run["saved"].as_f64().expect("saved")).abs() < 1e-12,
            "{what}"
        );
        // The threshold gives the set: every unlabelled row at or above it, and no other.
        let t = p.threshold.expect("a threshold holds on the stance set");
        let by_threshold: Vec<String> = (0..n)
            .filter(|&i| !first[i] && uncertainty[i] >= t)
            .map(|i| i.to_string())
            .collect();
        assert_eq!(by_threshold, p.to_label, "{what}");
    }
}

/// `analyze --pac` end to end on a file: the first round's rows carry gold, the rest are
/// judged only; its `pac.to_label` (and the `--pac-out` queue) are the authors' rows.
#[test]
fn analyze_pac_sends_the_authors_rows_to_a_human_and_writes_the_queue() {
    let Some(shared) = shared_data() else { return };
    let frame = raterlab::dataset::frame::read(&shared.join("pac-labels/stance.csv")).expect("csv");
    let y = frame.text("Y", "-", "label").expect("Y");
    let yhat = frame.text("Yhat (GPT4o)", "-", "label").expect("Yhat");
    let reference: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("pac.json")).expect("fixture"))
            .expect("json");
    let uncertainty = reference["uncertainty"].as_array().expect("uncertainty");
    let dir = tempfile::tempdir().expect("dir");
    for run in reference["runs"].as_array().expect("runs").iter().take(2) {
        let first: std::collections::HashSet<u64> = run["first_round"]
            .as_array()
            .expect("rows")
            .iter()
            .map(|v| v.as_u64().expect("row"))
            .collect();
        let mut csv = String::from("id,gold,judge,uncertainty\n");
        for i in 0..y.len() {
            let gold = if first.contains(&(i as u64)) {
                y[i].as_str()
            } else {
                ""
            };
            let u = uncertainty[i].as_str().expect("repr");
            csv.push_str(&format!("{i},{gold},{},{u}\n", yhat[i]));
        }
        let input = crate::common::write(dir.path(), "stance-first-round.csv", &csv);
        let queue = dir.path().join("to-label.csv");
        let bound = run["bound"].as_str().expect("bound");
        let map = "agrees=1,disagrees=-1,neutral=0";
        let (code, out, err) = crate::common::run(&[
            "analyze",
            "--input",
            input.to_str().expect("utf-8"),
            "--gold-col",
            "gold",
            "--rating-col",
            "judge",
            "--gold-map",
            map,
            "--rating-map",
            map,
            "--uncertainty-col",
            "uncertainty",
            "--pac",
            "--pac-bound",
            bound,
            "--json",
            "--pac-out",
            queue.to_str().expect("utf-8"),
        ]);
        assert_eq!(code, 0, "{err}");
        let doc: Value = serde_json::from_str(&out).expect("json");
        let p = &doc["pac"];
        assert_eq!(p["bound"], run["bound"]);
        assert_eq!(p["n_to_label"], run["n_to_label"]);
        assert_eq!(p["n_labelled"], serde_json::json!(500));
        let ids: Vec<&str> = p["to_label"]
            .as_array()
            .expect("ids")
            .iter()
            .map(|v| v.as_str().expect("id"))
            .collect();
        assert_eq!(
            format!("{:x}", Sha256::digest(ids.join(",").as_bytes())),
            run["to_label_sha256"].as_str().expect("sha")
        );
        let written = std::fs::read_to_string(&queue).expect("queue");
        assert_eq!(written.lines().next(), Some("id"));
        assert_eq!(written.lines().skip(1).collect::<Vec<_>>(), ids);
    }
    // A file without a first round is refused with the fix.
    let none = crate::common::write(
        dir.path(),
        "none.csv",
        "id,gold,judge,u\n1,,1,0.2\n2,,0,0.1\n",
    );
    let (code, _, err) = crate::common::run(&[
        "analyze",
        "--input",
        none.to_str().expect("utf-8"),
        "--rating-col",
        "judge",
        "--uncertainty-col",
        "u",
        "--pac",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("label a uniform first round"), "{err}");
}
