//! Every statistic against scipy/sklearn reference values (tests/fixtures/metrics.json,
//! written by tests/fixtures/generate_metrics_fixtures.py).

use crate::common::fixture;
use raterlab::metrics::{
    bootstrap_table, general, kappa, kendall_tau_b, spearman, Agreement, Contingency, Labels,
    Statistic, Weights,
};
use serde_json::Value;

fn load() -> Value {
    let text = std::fs::read_to_string(fixture("metrics.json")).expect("fixture file");
    serde_json::from_str(&text).expect("fixture JSON")
}

fn decode(code: &str, labels: &[i64]) -> Vec<i64> {
    code.chars()
        .map(|c| labels[c.to_digit(36).expect("base-36 index") as usize])
        .collect()
}

/// Values to 1e-9 absolute; p-values to 1e-6 relative (or 1e-300 absolute near zero).
fn check(case: &str, what: &str, got: f64, want: &Value, p_value: bool) {
    match want.as_f64() {
        None => assert!(
            got.is_nan(),
            "{case}: {what} = {got}, scipy/sklearn give NaN"
        ),
        Some(want) => {
            let ok = if p_value {
                (got - want).abs() <= 1e-6 * want.abs() + 1e-300
            } else {
                (got - want).abs() <= 1e-9
            };
            assert!(ok, "{case}: {what} = {got:e}, want {want:e}");
        }
    }
}

#[test]
fn contingency_path_matches_scipy_and_sklearn() {
    let doc = load();
    let cases = doc["cases"].as_array().expect("cases");
    assert!(cases.len() >= 30, "fixture holds the full case list");
    for case in cases {
        let name = case["name"].as_str().expect("name");
        let labels: Vec<i64> = serde_json::from_value(case["labels"].clone()).expect("labels");
        let gold = decode(case["gold"].as_str().expect("gold"), &labels);
        let rating = decode(case["rating"].as_str().expect("rating"), &labels);
        let want = &case["expected"];
        let labels = Labels::new(labels).expect("labels");
        let table = Contingency::from_pairs(&labels, &gold, &rating).expect("labels fit");
        let a = Agreement::of(table.clone());
        assert_eq!(a.n, want["n"].as_u64().expect("n"), "{name}");
        check(
            name,
            "accuracy",
            a.get(Statistic::Accuracy),
            &want["accuracy"],
            false,
        );
        check(
            name,
            "kappa",
            kappa(&table, Weights::Unweighted),
            &want["kappa"],
            false,
        );
        check(
            name,
            "kappa_linear",
            a.get(Statistic::KappaLinear),
            &want["kappa_linear"],
            false,
        );
        check(
            name,
            "kappa_quadratic",
            a.get(Statistic::KappaQuadratic),
            &want["kappa_quadratic"],
            false,
        );
        check(
            name,
            "spearman",
            spearman(&table).statistic,
            &want["spearman"],
            false,
        );
        check(name, "spearman_p", a.spearman_p, &want["spearman_p"], true);
        check(
            name,
            "kendall_tau_b",
            kendall_tau_b(&table).statistic,
            &want["kendall_tau_b"],
            false,
        );
        check(name, "kendall_p", a.kendall_p, &want["kendall_p"], true);
        let matrix: Vec<Vec<u64>> =
            serde_json::from_value(want["confusion"].clone()).expect("matrix");
        assert_eq!(table.rows(), matrix, "{name}: confusion matrix");
    }
}

#[test]
fn general_path_matches_scipy_on_labels_and_scores() {
    let doc = load();
    // The sort-based path on the label cases must agree with the contingency path's fixtures.
    for case in doc["cases"].as_array().expect("cases") {
        let name = case["name"].as_str().expect("name");
        let labels: Vec<i64> = serde_json::from_value(case["labels"].clone()).expect("labels");
        let x: Vec<f64> = decode(case["gold"].as_str().expect("gold"), &labels)
            .iter()
            .map(|&v| v as f64)
            .collect();
        let y: Vec<f64> = decode(case["rating"].as_str().expect("rating"), &labels)
            .iter()
            .map(|&v| v as f64)
            .collect();
        let want = &case["expected"];
        let rho = general::spearman(&x, &y);
        let tau = general::kendall_tau_b(&x, &y);
        check(
            name,
            "general spearman",
            rho.statistic,
            &want["spearman"],
            false,
        );
        check(
            name,
            "general spearman_p",
            rho.p_value,
            &want["spearman_p"],
            true,
        );
        check(
            name,
            "general kendall",
            tau.statistic,
            &want["kendall_tau_b"],
            false,
        );
        check(
            name,
            "general kendall_p",
            tau.p_value,
            &want["kendall_p"],
            true,
        );
    }
    for case in doc["float_cases"].as_array().expect("float cases") {
        let name = case["name"].as_str().expect("name");
        let x: Vec<f64> = serde_json::from_value(case["x"].clone()).expect("x");
        let y: Vec<f64> = serde_json::from_value(case["y"].clone()).expect("y");
        let want = &case["expected"];
        let rho = general::spearman(&x, &y);
        let tau = general::kendall_tau_b(&x, &y);
        check(name, "spearman", rho.statistic, &want["spearman"], false);
        check(name, "spearman_p", rho.p_value, &want["spearman_p"], true);
        check(
            name,
            "kendall_tau_b",
            tau.statistic,
            &want["kendall_tau_b"],
            false,
        );
        check(name, "kendall_p", tau.p_value, &want["kendall_p"], true);
    }
}

#[test]
fn bootstrap_intervals_cover_the_estimate_and_shrink_with_n() {
    let labels = Labels::pairwise();
    let make = |n: usize| {
        let gold: Vec<i64> = (0..n).map(|i| if i % 2 == 0 { -1 } else { 1 }).collect();
        let rating: Vec<i64> = (0..n)
            .map(|i| {
                if i % 5 == 0 {
                    0
                } else if i % 2 == 0 {
                    -1
                } else {
                    1
                }
            })
            .collect();
        Contingency::from_pairs(&labels, &gold, &rating).expect("fits")
    };
    let small = bootstrap_table(&make(200), 500, 1, 0.95);
    let large = bootstrap_table(&make(20_000), 500, 1, 0.95);
    for s in [
        Statistic::Accuracy,
        Statistic::KappaQuadratic,
        Statistic::Spearman,
    ] {
        let (a, b) = (small.get(s), large.get(s));
        let point = Agreement::of(make(20_000)).get(s);
        assert!(
            b.lo <= point && point <= b.hi,
            "{s:?}: {point} outside {b:?}"
        );
        assert!(
            b.hi - b.lo < (a.hi - a.lo) / 5.0,
            "{s:?}: {b:?} not narrower than {a:?}"
        );
    }
}

#[test]
fn mcnemar_power_matches_the_closed_form_with_scipy() {
    use raterlab::metrics::power::{mcnemar_items_needed, mcnemar_min_detectable};
    let doc = load();
    let cases = doc["mcnemar_power"]
        .as_array()
        .expect("mcnemar_power cases");
    assert!(cases.len() >= 5);
    for c in cases {
        let f = |k: &str| c[k].as_f64().expect(k);
        let name = format!("n={} psi={} d={}", c["n"], c["discordance"], c["diff"]);
        let (alpha, power) = (f("alpha"), f("power"));
        check(
            &name,
            "items_needed",
            mcnemar_items_needed(f("discordance"), f("diff"), alpha, power),
            &c["items_needed"],
            false,
        );
        check(
            &name,
            "min_detectable",
            mcnemar_min_detectable(f("n"), f("discordance"), alpha, power),
            &c["min_detectable"],
            false,
        );
    }
}

#[test]
fn annotator_agreement_matches_statsmodels_krippendorff_irrcac_and_sklearn() {
    use raterlab::metrics::raters::{AnnotatorStats, Votes};
    use raterlab::metrics::Labels;
    let doc = load();
    let cases = doc["annotators"].as_array().expect("annotator cases");
    assert!(cases.len() >= 5);
    for c in cases {
        let name = c["name"].as_str().expect("name");
        let labels: Vec<i64> = c["labels"]
            .as_array()
            .expect("labels")
            .iter()
            .map(|v| v.as_i64().expect("label"))
            .collect();
        let votes = Votes {
            labels: Labels::new(labels).expect("labels"),
            items: c["votes"]
                .as_array()
                .expect("votes")
                .iter()
                .map(|row| {
                    row.as_str()
                        .expect("row")
                        .split(' ')
                        .map(|v| v.parse::<usize>().ok())
                        .collect()
                })
                .collect(),
        };
        let stats = AnnotatorStats::of(&votes);
        for (what, got) in [
            ("fleiss_kappa", stats.fleiss_kappa),
            (
                "krippendorff_alpha_nominal",
                stats.krippendorff_alpha_nominal,
            ),
            (
                "krippendorff_alpha_ordinal",
                stats.krippendorff_alpha_ordinal,
            ),
            ("gwet_ac1", stats.gwet_ac1),
        ] {
            check(name, what, got, &c[what], false);
        }
        for (a, row) in stats.pairwise_kappa.iter().enumerate() {
            for (b, got) in row.iter().enumerate() {
                check(
                    name,
                    &format!("pairwise_kappa[{a}][{b}]"),
                    *got,
                    &c["pairwise_kappa"][a][b],
                    false,
                );
            }
        }
    }
}

#[test]
fn length_model_matches_statsmodels_logit() {
    use raterlab::evaluation::bias::length_model;
    let doc = load();
    let cases = doc["length_models"].as_array().expect("length model cases");
    assert!(cases.len() >= 3);
    for c in cases {
        let ints = |k: &str| -> Vec<f64> {
            c[k].as_array()
                .expect(k)
                .iter()
                .map(|v| v.as_f64().expect("number"))
                .collect()
        };
        let (gold, diff, picks) = (ints("gold"), ints("diff"), ints("picks_2"));
        let rows: Vec<(i64, f64, bool)> = gold
            .iter()
            .zip(&diff)
            .zip(&picks)
            .map(|((g, d), p)| (*g as i64, *d, *p == 1.0))
            .collect();
        let model = length_model(&rows).expect("fits");
        let name = c["name"].as_str().expect("name");
        for k in 0..3 {
            let (want_c, want_se) = (
                c["coef"][k].as_f64().expect("coef"),
                c["se"][k].as_f64().expect("se"),
            );
            assert!(
                (model.coef[k] - want_c).abs() < 1e-9,
                "{name}: coef {k} {} vs statsmodels {want_c}",
                model.coef[k]
            );
            assert!(
                (model.se[k] - want_se).abs() < 1e-9,
                "{name}: se {k} {} vs statsmodels {want_se}",
                model.se[k]
            );
        }
    }
}
