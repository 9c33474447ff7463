//! Self-consistency curves and the bias/variance decomposition as JSON, tidy CSV rows, the
//! terminal's table and an SVG.

use crate::evaluation::consistency::{Consistency, Point};
use crate::report::media::csv::TidyRows;
use crate::report::media::table::Table;
use crate::run::record::Run;
use serde::Serialize;
use serde_json::Value;

/// A configuration's `consistency` object: the curves by rule, the decomposition.
#[derive(Serialize)]
struct ConsistencyJson<'a> {
    samples: usize,
    curves: std::collections::BTreeMap<&'static str, &'a [Point]>,
    bias: f64,
    bias_ci: Option<(f64, f64)>,
    variance: f64,
    variance_ci: Option<(f64, f64)>,
}

/// A configuration's `consistency` object.
pub fn to_json(c: &Consistency) -> Value {
    serde_json::to_value(ConsistencyJson {
        samples: c.samples,
        curves: c
            .curves
            .iter()
            .map(|(rule, points)| (rule.name(), points.as_slice()))
            .collect(),
        bias: c.bias,
        bias_ci: c.bias_ci,
        variance: c.variance,
        variance_ci: c.variance_ci,
    })
    .unwrap_or_default()
}

/// Rows `sc_<rule>_k<K>_accuracy|kappa_quadratic` (with CIs), `sc_bias`, `sc_variance`.
pub fn tidy(rows: &mut TidyRows, c: &Consistency) {
    for (rule, points) in &c.curves {
        for p in points {
            let name = |m: &str| format!("sc_{}_k{}_{m}", rule.name(), p.k);
            rows.push(
                "overall",
                p.k as u64,
                &name("accuracy"),
                p.accuracy,
                p.accuracy_ci,
            );
            rows.push(
                "overall",
                p.k as u64,
                &name("kappa_quadratic"),
                p.kappa_quadratic,
                p.kappa_quadratic_ci,
            );
        }
    }
    rows.push("overall", c.samples as u64, "sc_bias", c.bias, c.bias_ci);
    rows.push(
        "overall",
        c.samples as u64,
        "sc_variance",
        c.variance,
        c.variance_ci,
    );
}

/// As every summary table writes a figure with its interval ("n/a" when undefined).
fn with_ci(v: f64, ci: Option<(f64, f64)>) -> String {
    crate::report::media::format::with_ci(v, ci.unwrap_or((f64::NAN, f64::NAN)))
}

/// The terminal's table: accuracy for every k and rule, from the samples already drawn.
pub fn tables(run: &Run, order: &[usize]) -> Vec<Table> {
    let rows: Vec<(usize, &Consistency)> = order
        .iter()
        .filter_map(|&i| Some((i, run.evaluation.configs[i].consistency.as_ref()?)))
        .collect();
    let Some(n) = rows.iter().map(|(_, c)| c.samples).max() else {
        return Vec::new();
    };
    let mut header: Vec<String> = vec!["configuration".into(), "rule".into()];
    header.extend((1..=n).map(|k| format!("k = {k}")));
    let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = Table::new(
        "Self-consistency from the samples already drawn: accuracy of sc:k for every k and vote rule [95% CI]",
        &header_refs,
    );
    for (i, c) in &rows {
        for (rule, points) in &c.curves {
            let mut row = vec![
                crate::report::media::format::shown_name(&run.record.configs[*i]),
                rule.name().to_string(),
            ];
            row.extend(points.iter().map(|p| with_ci(p.accuracy, p.accuracy_ci)));
            row.resize(n + 2, String::new());
            t.rows.push(row);
        }
        t.notes.push(format!(
            "{}: bias (the modal vote's error) {}, variance (a sample against the mode of the others) {}",
            crate::report::media::format::shown_name(&run.record.configs[*i]),
            with_ci(c.bias, c.bias_ci),
            with_ci(c.variance, c.variance_ci)
        ));
    }
    t.notes.push(format!(
        "each k averages the rule over up to {} k-subsets of the N samples (all of them when there are fewer; seeded), pooled over items; no new call was made",
        crate::evaluation::consistency::SUBSETS
    ));
    vec![t]
}
