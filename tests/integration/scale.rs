//! A judge that grades one response, measured by its scale (#83): `analyze` equal to scipy's
//! and scikit-learn's own functions (tests/fixtures/generate_scale_fixtures.py) on a graded
//! panel of 4 annotators, PAC labels' real stance set as binary and as three categories, and
//! a binary edge where sklearn's zero-division rules decide; a declared scale refuses a grade
//! off it, naming the row.

use crate::common::{close, error_of, fixture, json_of, run, shared_data};
use serde_json::Value;

fn expected() -> Value {
    let text = std::fs::read_to_string(fixture("scale/expected.json")).expect("fixture");
    serde_json::from_str(&text).expect("JSON")
}

/// `analyze` on a case's arguments (fixture paths and ../shared's put in), no resamples.
fn analyze(case: &Value, shared: Option<&std::path::Path>) -> Option<Value> {
    let mut args = vec!["analyze".to_string()];
    for a in case["args"].as_array().expect("args") {
        let a = a.as_str().expect("arg");
        args.push(if let Some(rest) = a.strip_prefix("SHARED/") {
            shared?.join(rest).to_string_lossy().to_string()
        } else if a.ends_with(".csv") {
            fixture(a).to_string_lossy().to_string()
        } else {
            a.to_string()
        });
    }
    args.extend(["--bootstrap", "0"].map(String::from));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Some(json_of(&args))
}

fn same_figures(got: &Value, want: &Value, case: &str) {
    assert_eq!(got["n"], want["n"], "{case}");
    assert_eq!(got["reference"], want["reference"], "{case}");
    let figures = want["figures"].as_object().expect("figures");
    assert_eq!(
        got["figures"].as_object().expect("figures").len(),
        figures.len(),
        "{case}"
    );
    for (name, value) in figures {
        close(
            &got["figures"][name]["value"],
            value,
            &format!("{case} {name}"),
        );
    }
}

#[test]
fn every_scale_equals_scipy_and_sklearn() {
    let expected = expected();
    let shared = shared_data();
    let mut checked = 0;
    for (case, want) in expected.as_object().expect("cases") {
        let Some(doc) = analyze(want, shared.as_deref()) else {
            continue;
        };
        let got = &doc["configs"][0]["scale"];
        same_figures(got, want, case);
        for (g, w) in (got["annotators"].as_array().expect("annotators").iter())
            .zip(want["annotators"].as_array().unwrap_or(&Vec::new()))
        {
            assert_eq!(g["name"], w["name"], "{case}");
            for k in [
                "n",
                "exact_agreement",
                "kappa_linear",
                "kappa_quadratic",
                "mae",
            ] {
                close(&g[k], &w[k], &format!("{case} {} {k}", w["name"]));
            }
        }
        if let Some(classes) = want["classes"].as_array() {
            let got = got["classes"].as_array().expect("classes");
            assert_eq!(got.len(), classes.len(), "{case}");
            for (g, w) in got.iter().zip(classes) {
                for k in ["name", "support", "precision", "recall", "f1"] {
                    close(&g[k], &w[k], &format!("{case} {} {k}", w["name"]));
                }
            }
        }
        crate::schema::valid("analyze", "raterlab/analyze/2", &doc, case);
        checked += 1;
    }
    assert_eq!(checked, if shared.is_some() { 4 } else { 2 });
    // The cases cover the edges: sklearn's zero division (TNR 0: no item judged 0) and a
    // graded panel's mean, not its majority (every item counts).
    assert_eq!(expected["binary_edge"]["figures"]["tnr"], 0.0);
    assert_eq!(expected["graded"]["n"], 120);
}

/// The panel's gold on a graded scale is the mean, so no item is lost to a missing majority,
/// the header says items and the scale, the answer comes first, and intervals are ordered.
#[test]
fn a_graded_panel_answers_first_on_its_mean() {
    let file = fixture("alt_test/graded.csv");
    let file = file.to_string_lossy();
    let args = [
        "analyze",
        "--input",
        &*file,
        "--annotators",
        "r1,r2,r3,r4",
        "--rating-col",
        "judge",
    ];
    let (code, out, err) = run(&[&args[..], &["--bootstrap", "200"]].concat());
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[1].starts_with("120 items · scale graded 1-5 ·"),
        "{out}"
    );
    assert!(lines[3].starts_with("How well does the judge grade, on graded 1-5, against the annotators' mean grade? 120 items:"), "{out}");
    assert!(
        out.contains(
            "Agreement over 120 items (graded 1-5; gold: the annotators' mean grade, rounded)"
        ),
        "{out}"
    );
    assert!(
        out.contains("Annotators: r1, r2, r3, r4 over 120 items (gold: their mean grade, rounded)"),
        "{out}"
    );
    let doc = json_of(&[&args[..], &["--bootstrap", "200"]].concat());
    assert_eq!(doc["annotators"]["no_majority_policy"], "mean");
    // No item lacks a mean, so the policy for those without a majority has nothing to do:
    // --no-majority tie (0 is no grade here) changes nothing.
    let tied = json_of(&[&args[..], &["--bootstrap", "200", "--no-majority", "tie"]].concat());
    assert_eq!(tied["configs"][0]["scale"], doc["configs"][0]["scale"]);
    for (name, f) in doc["configs"][0]["scale"]["figures"]
        .as_object()
        .expect("figures")
    {
        let ci = f["ci"]
            .as_array()
            .unwrap_or_else(|| panic!("{name}: an interval"));
        assert!(ci[0].as_f64() <= ci[1].as_f64(), "{name}: {ci:?}");
    }
    // The agreement table's gold is the rounded mean: its accuracy is the exact agreement.
    close(
        &doc["accuracy"],
        &doc["configs"][0]["scale"]["figures"]["exact_agreement"]["value"],
        "exact agreement",
    );
}

#[test]
fn a_grade_off_the_declared_scale_names_the_row() {
    let file = fixture("alt_test/graded.csv");
    let file = file.to_string_lossy();
    let base = [
        "analyze",
        "--input",
        &*file,
        "--gold-col",
        "r1",
        "--rating-col",
        "judge",
    ];
    let message = error_of(&[&base[..], &["--scale", "1-4"]].concat());
    assert!(
        message.contains("graded.csv: row 7: the gold label 5 is off the scale graded 1-4 (--scale); give the scale the grades are on, or map them with --gold-map/--rating-map"),
        "{message}"
    );
    let message = error_of(&[&base[..], &["--scale", "likert"]].concat());
    assert!(
        message
            .contains("give binary (0/1), LO-HI for integer grades (e.g. 1-5) or categories:A,B,C"),
        "{message}"
    );
}

/// Labels by name need no map: the stance set's 'agrees', 'disagrees' and 'neutral' read as
/// the categories they are (sorted, or in `--scale categories:...`'s order), the same figures
/// as the mapped run; a name the declared categories lack is an error that names it.
#[test]
fn categories_by_name_need_no_map() {
    let Some(shared) = shared_data() else {
        return;
    };
    let want = &expected()["categories"];
    let file = shared.join("pac-labels/stance.csv");
    let file = file.to_string_lossy();
    let base = [
        "analyze",
        "--input",
        &*file,
        "--gold-col",
        "Y",
        "--rating-col",
        "Yhat (GPT4o)",
        "--bootstrap",
        "0",
    ];
    let by_name = json_of(&base);
    let mapped = analyze(want, Some(&shared)).expect("shared data");
    assert_eq!(
        by_name["configs"][0]["scale"],
        mapped["configs"][0]["scale"]
    );
    same_figures(&by_name["configs"][0]["scale"], want, "by name");
    let message = error_of(&[&base[..], &["--scale", "categories:agrees,disagrees"]].concat());
    assert!(
        message.contains(
            "the label 'neutral' is not one of the categories agrees, disagrees (--scale)"
        ),
        "{message}"
    );
}

/// Two judges' grades on a 1-5 scale compared in a pair: the comparison's table is over the
/// grades (it was 3 × 3 × 3, pairwise labels only, and a grade of 5 ran off it), and its
/// differences are the two configurations' own figures.
#[test]
fn two_judges_on_grades_are_compared_in_a_pair() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut rows = String::from("id,a1,a2,a3,good,poor\n");
    for i in 0..240 {
        let truth = 1 + i % 5;
        let near = |shift: usize| (truth + shift).clamp(1, 5);
        let (a1, a2, a3) = (near(i % 2), truth, near((i / 3) % 2));
        let poor = if i % 3 == 0 { 6 - truth } else { truth };
        rows.push_str(&format!("i{i},{a1},{a2},{a3},{},{poor}\n", near(i % 2)));
    }
    let file = crate::common::write(dir.path(), "two.csv", &rows);
    let file = file.to_string_lossy();
    let doc = json_of(&[
        "analyze",
        "--input",
        &file,
        "--annotators",
        "a1,a2,a3",
        "--rating-col",
        "good,poor",
        "--bootstrap",
        "50",
    ]);
    let kappa = |i: usize| {
        doc["configs"][i]["overall"]["kappa_quadratic"]
            .as_f64()
            .expect("κq")
    };
    let accuracy = |i: usize| {
        doc["configs"][i]["overall"]["accuracy"]
            .as_f64()
            .expect("acc")
    };
    let tests = doc["comparisons"][0]["tests"].as_array().expect("tests");
    let diff = |metric: &str| {
        let t = tests
            .iter()
            .find(|t| t["metric"] == metric)
            .expect("metric");
        t["diff"].as_f64().expect("diff")
    };
    assert!(
        (diff("kappa_quadratic") - (kappa(1) - kappa(0))).abs() < 1e-12,
        "{doc}"
    );
    assert!(
        (diff("accuracy") - (accuracy(1) - accuracy(0))).abs() < 1e-12,
        "{doc}"
    );
    assert_eq!(doc["comparisons"][0]["n"], 240);
}
