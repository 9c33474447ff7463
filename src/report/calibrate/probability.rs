//! A run's probabilities as people see them: one compact table (terminal and page), the JSON
//! under `configs[i].probability` (and each subset's), metrics.csv rows, and the figure
//! (reliability diagram and selective curve).

use crate::evaluation::probability::ProbabilityStats;
use crate::evaluation::Evaluated;
use crate::evaluation::Scope;
use crate::metrics::calibration::Calibration;
use crate::report::calibrate::section::{key, Figure, Place, Section, View};
use crate::report::media::csv::TidyRows;
use crate::report::media::format::{fixed, with_ci};
use crate::report::media::svg::{probability_svg, Curves};
use crate::report::media::table::Table;
use serde::Serialize;
use serde_json::Value;

fn ci(
    c: &Calibration,
    pick: fn(&crate::metrics::calibration::Intervals) -> (f64, f64),
) -> (f64, f64) {
    c.intervals.as_ref().map_or((f64::NAN, f64::NAN), pick)
}

/// `probability` of a scope's JSON: the calibration figures with their intervals, the
/// reliability bins, the selective curve and why probabilities are missing.
#[derive(Serialize)]
struct ProbabilityJson<'a> {
    source: &'a str,
    n: usize,
    items: usize,
    with_probability: usize,
    gold_ties_left_out: usize,
    expected_accuracy: f64,
    expected_accuracy_ci: (f64, f64),
    brier: f64,
    brier_ci: (f64, f64),
    log_loss: f64,
    log_loss_ci: (f64, f64),
    ece: f64,
    ece_ci: (f64, f64),
    ece_bins: usize,
    auc: f64,
    auc_ci: (f64, f64),
    hard_accuracy: f64,
    reliability: &'a [crate::metrics::calibration::Bin],
    selective: &'a [crate::metrics::calibration::Selective],
    missing: Vec<crate::report::media::json::ReasonCount<'a>>,
}

/// `probability` of a scope's JSON.
pub fn to_json(p: &ProbabilityStats, missing: &[(String, usize)]) -> Value {
    let c = &p.calibration;
    serde_json::to_value(ProbabilityJson {
        source: &p.source,
        n: c.n,
        items: p.items,
        with_probability: p.with_probability,
        gold_ties_left_out: p.gold_ties,
        expected_accuracy: c.expected_accuracy,
        expected_accuracy_ci: ci(c, |i| i.expected_accuracy),
        brier: c.brier,
        brier_ci: ci(c, |i| i.brier),
        log_loss: c.log_loss,
        log_loss_ci: ci(c, |i| i.log_loss),
        ece: c.ece,
        ece_ci: ci(c, |i| i.ece),
        ece_bins: c.bins.len(),
        auc: c.auc,
        auc_ci: ci(c, |i| i.auc),
        hard_accuracy: p.hard_accuracy,
        reliability: &c.bins,
        selective: &c.selective,
        missing: crate::report::media::json::reasons(missing),
    })
    .unwrap_or_default()
}

/// metrics.csv rows of a scope's probabilities.
pub fn tidy(rows: &mut TidyRows, scope: &str, p: &ProbabilityStats) {
    let c = &p.calibration;
    let n = c.n as u64;
    let with = |pick: fn(&crate::metrics::calibration::Intervals) -> (f64, f64)| {
        c.intervals.as_ref().map(pick)
    };
    rows.push(
        scope,
        n,
        "p_expected_accuracy",
        c.expected_accuracy,
        with(|i| i.expected_accuracy),
    );
    rows.push(scope, n, "p_brier", c.brier, with(|i| i.brier));
    rows.push(scope, n, "p_log_loss", c.log_loss, with(|i| i.log_loss));
    rows.push(scope, n, "p_ece", c.ece, with(|i| i.ece));
    rows.push(scope, n, "p_auc", c.auc, with(|i| i.auc));
    for s in &c.selective {
        let t = format!("{:.2}", s.threshold);
        rows.push(
            scope,
            s.n as u64,
            &format!("p_selective_accuracy_{t}"),
            s.accuracy,
            None,
        );
        rows.push(
            scope,
            n,
            &format!("p_selective_coverage_{t}"),
            s.coverage,
            None,
        );
    }
}

/// The selective figure shown in the table: at confidence 0.9.
fn at_090(c: &Calibration) -> String {
    c.selective
        .iter()
        .find(|s| s.threshold == 0.9)
        .map_or("n/a".into(), |s| {
            format!("{} ({:.0}%)", fixed(s.accuracy), 100.0 * s.coverage)
        })
}

/// The compact table, configurations in the run's order (None without probabilities).
fn table(run: &Evaluated, order: &[usize]) -> Option<Table> {
    let rows: Vec<(String, &ProbabilityStats)> = order
        .iter()
        .filter_map(|&i| {
            let p = run.evaluation.configs[i]
                .overall
                .findings
                .get::<ProbabilityStats>()?;
            Some((run.record.configs[i].name.clone(), p))
        })
        .collect();
    (!rows.is_empty()).then(|| {
        table_of(
            "configuration",
            &rows,
            &crate::report::media::format::ci_level(run),
        )
    })
}

/// The table of named probability figures (`analyze --probability` names its column).
pub fn table_of(first: &str, rows: &[(String, &ProbabilityStats)], level: &str) -> Table {
    let mut t = Table::new(
        format!("Probabilities: P(response 2 better) against gold ({level} bootstrap CIs)"),
        &[
            first,
            "source",
            "n",
            "expected acc.",
            "hard acc.",
            "Brier",
            "log loss",
            "ECE",
            "AUC",
            "acc. ≥ 0.9 (coverage)",
        ],
    );
    for (name, p) in rows {
        let c = &p.calibration;
        t.rows.push(vec![
            name.clone(),
            p.source.clone(),
            format!("{}/{}", c.n, p.items),
            with_ci(c.expected_accuracy, ci(c, |x| x.expected_accuracy)),
            fixed(p.hard_accuracy),
            with_ci(c.brier, ci(c, |x| x.brier)),
            fixed(c.log_loss),
            with_ci(c.ece, ci(c, |x| x.ece)),
            with_ci(c.auc, ci(c, |x| x.auc)),
            at_090(c),
        ]);
    }
    // The source, log loss, the selective figure and the hard accuracy go first on a narrow
    // terminal.
    t.secondary = vec![1, 4, 6, 9];
    t.notes = [
        "expected acc.: the mean probability given to the gold side (AlpacaEval's soft agreement); hard acc.: the verdicts on the same items, a tie or none worth half",
        "Brier and log loss (sklearn's), ECE over 10 equal-width bins: lower is better; AUC: P(higher p where response 2 is better); acc. ≥ 0.9: abstaining below confidence 0.9",
        "n: items with a probability and a gold winner, of the items (gold ties are left out); sources: logprobs (the answer's tokens), votes (sc:N shares), scores (σ(score2 − score1))",
    ]
    .map(String::from)
    .to_vec();
    t
}

/// The reliability table and the selective accuracy of one set of probabilities.
pub fn detail_tables(p: &ProbabilityStats) -> [Table; 2] {
    let c = &p.calibration;
    let mut bins = Table::new(
        "Reliability: observed share of the positive side per bin of probability",
        &["bin", "n", "mean p", "observed"],
    );
    for b in &c.bins {
        bins.rows.push(vec![
            format!("({:.1}, {:.1}]", b.lo, b.hi),
            b.n.to_string(),
            fixed(b.mean_p),
            fixed(b.observed),
        ]);
    }
    let mut selective = Table::new(
        "Selective accuracy: abstaining below a confidence max(p, 1 − p)",
        &["confidence ≥", "items", "coverage", "accuracy"],
    );
    for s in &c.selective {
        selective.rows.push(vec![
            format!("{:.2}", s.threshold),
            s.n.to_string(),
            fixed(s.coverage),
            fixed(s.accuracy),
        ]);
    }
    [bins, selective]
}

/// The figure, when any configuration has probabilities.
fn svg(run: &Evaluated, order: &[usize]) -> anyhow::Result<Option<String>> {
    let curves: Vec<Curves> = order
        .iter()
        .filter_map(|&i| {
            let p = run.evaluation.configs[i]
                .overall
                .findings
                .get::<ProbabilityStats>()?;
            let c = &p.calibration;
            Some(Curves {
                name: crate::report::media::format::shown_name(&run.record.configs[i]),
                reliability: c.bins.iter().map(|b| (b.mean_p, b.observed, b.n)).collect(),
                selective: c.curve.clone(),
            })
        })
        .collect();
    if curves.is_empty() {
        return Ok(None);
    }
    probability_svg(&curves).map(Some)
}

/// Probabilities' section: the compact table after the configurations', the scopes' figures.
#[derive(Debug)]
pub struct ProbabilitySection;

impl Section for ProbabilitySection {
    fn place(&self) -> Place {
        Place::Lead
    }
    fn tables(&self, run: &Evaluated, order: &[usize], _view: View) -> Vec<Table> {
        table(run, order).into_iter().collect()
    }
    fn figures(&self, run: &Evaluated, order: &[usize]) -> anyhow::Result<Vec<Figure>> {
        Ok(Figure::one(
            svg(run, order)?,
            "probability.svg",
            "probabilities: reliability diagram (bins of P(response 2 better); the diagonal is a calibrated judge) and selective accuracy (the most confident items kept)",
        ))
    }
    fn config_json(
        &self,
        run: &Evaluated,
        _order: &[usize],
        i: usize,
    ) -> Vec<(&'static str, Value)> {
        let Some(p) = run.evaluation.configs[i]
            .overall
            .findings
            .get::<ProbabilityStats>()
        else {
            return Vec::new();
        };
        let rec = &run.record.configs[i];
        let missing = rec.probability.as_ref().map_or(&[][..], |p| &p.missing[..]);
        vec![("probability", to_json(p, missing))]
    }
    fn scope_json(&self, scope: &Scope) -> Vec<(&'static str, Value)> {
        let p = scope.findings.get::<ProbabilityStats>();
        key("probability", p.map(|p| to_json(p, &[])))
    }
    fn scope_rows(&self, rows: &mut TidyRows, name: &str, scope: &Scope) {
        if let Some(p) = scope.findings.get::<ProbabilityStats>() {
            tidy(rows, name, p);
        }
    }
}
