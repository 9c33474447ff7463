//! AlpacaEval's evaluator measures (`evaluation::evaluator`) as a table, JSON and tidy CSV rows,
//! wherever gold is several annotators' (`calibrate`, `analyze`'s `--annotators` and long form). Its table reads as AlpacaEval's evaluators leaderboard: the humans first, then the
//! `longest` evaluator, then the judges, in AlpacaEval's column order, as fractions.

use crate::evaluation::evaluator::{HumanMeasures, Intervals, Measures};
use crate::evaluation::Evaluated;
use crate::report::calibrate::section::{key, Place, Section, View};
use crate::report::media::csv::TidyRows;
use crate::report::media::table::Table;
use serde_json::Value;

/// The figures of a row in the table's order, with their intervals.
fn figures(values: [Option<f64>; 6], ci: &Intervals) -> [(Option<f64>, Option<[f64; 2]>); 6] {
    let cis = [
        ci.human_agreement,
        ci.bias,
        ci.variance,
        ci.prefer_longer,
        ci.prefer_lists,
        ci.prefer_first,
    ];
    std::array::from_fn(|k| (values[k], cis[k]))
}

fn of_evaluator(m: &Measures) -> [(Option<f64>, Option<[f64; 2]>); 6] {
    figures(
        [
            m.human_agreement,
            m.bias,
            m.variance,
            m.prefer_longer,
            m.prefer_lists,
            m.prefer_first,
        ],
        &m.ci,
    )
}

fn of_humans(h: &HumanMeasures) -> [(Option<f64>, Option<[f64; 2]>); 6] {
    figures(
        [
            h.human_agreement,
            None,
            h.variance,
            h.prefer_longer,
            h.prefer_lists,
            h.prefer_first,
        ],
        &h.ci,
    )
}

/// The metric names of metrics.csv, in the table's order.
const KEYS: [&str; 6] = [
    "human_agreement",
    "bias",
    "variance",
    "prefer_longer",
    "prefer_lists",
    "prefer_first",
];

fn cell((value, ci): (Option<f64>, Option<[f64; 2]>)) -> String {
    crate::report::media::format::with_ci(
        value.unwrap_or(f64::NAN),
        ci.map_or((f64::NAN, f64::NAN), |[lo, hi]| (lo, hi)),
    )
}

/// The table: humans, longest, then each named evaluator.
pub fn table(
    humans: &HumanMeasures,
    longest: Option<&Measures>,
    rows: &[(String, &Measures)],
    level: &str,
) -> Table {
    let mut out = Table::new(
        format!(
            "AlpacaEval's evaluator measures ({} human annotations per item; {level} CIs over items)",
            humans.annotations_per_item
        ),
        &[
            "evaluator",
            "human agreement",
            "bias",
            "variance",
            "prefers longer",
            "prefers lists",
            "prefers 1",
            "parsed",
        ],
    );
    let mut push = |name: &str, f: [(Option<f64>, Option<[f64; 2]>); 6], parsed: usize| {
        let mut row = vec![name.to_string()];
        row.extend(f.into_iter().map(cell));
        row.push(parsed.to_string());
        out.rows.push(row);
    };
    push("humans", of_humans(humans), humans.parsed);
    if let Some(l) = longest {
        push("longest", of_evaluator(l), l.parsed);
    }
    for (name, m) in rows {
        push(name, of_evaluator(m), m.parsed);
    }
    out.secondary = vec![5, 6, 7];
    out.notes.push(
        "human agreement: one annotation against the humans' majority (for the humans, one against the others'), averaged over annotations; bias: 1 - agreement of the evaluator's majority with the humans'; variance: 1 - agreement of one sample with the majority of the others; as AlpacaEval's analyze.py computes them".into(),
    );
    out.notes.push(
        "an even split of the humans between the two outputs counts as output 2 in these figures (AlpacaEval's tie-break, pandas' sample with seed 123); the human ceiling's leave-one-out leaves such items out, so the two disagree where there are any".into(),
    );
    for (name, m) in rows {
        for v in &m.versus {
            if let (Some((d, lo, hi)), p) = (v.with_interval(), v.p) {
                if !p.is_nan() {
                    out.notes.push(format!(
                        "{name} − {}: human agreement {d:+.3} [{lo:+.3}, {hi:+.3}], p = {p:.3} (paired bootstrap over items)",
                        v.a
                    ));
                }
            }
        }
    }
    out
}

/// calibrate's table: the humans, the longest output and every configuration with a row (in
/// the ranking's order), then the best by human agreement against the others.
fn calibrate_tables(run: &Evaluated, order: &[usize]) -> Vec<Table> {
    let Some(r) = run
        .evaluation
        .of_run::<crate::evaluation::evaluator::RunMeasures>()
    else {
        return Vec::new();
    };
    let rows: Vec<(String, &Measures)> = order
        .iter()
        .filter_map(|&i| {
            let m = run
                .evaluation
                .of_config::<crate::evaluation::evaluator::Measures>(i)?;
            Some((run.record.configs[i].name.clone(), m))
        })
        .collect();
    let level = crate::report::media::format::ci_level(run);
    let mut t = table(&r.humans, r.longest.as_ref(), &rows, &level);
    // With several configurations, the run's comparisons say more than each row's against the
    // humans and the longest; one configuration (`analyze`) keeps its own.
    if rows.len() > 1 {
        t.notes.truncate(2);
    }
    for c in &r.against_best {
        if let (Some((d, lo, hi)), p) = (c.with_interval(), c.p_holm) {
            if !p.is_nan() {
                let level = c.ci_level.map_or(String::new(), |l| {
                    format!(" at {}", crate::report::media::format::level(l))
                });
                t.notes.push(format!(
                    "{} − {}: human agreement {d:+.3} [{lo:+.3}, {hi:+.3}]{level}, Holm p = {p:.3}",
                    c.b, c.a
                ));
            }
        }
    }
    vec![t]
}

/// calibrate's `--json`: the run's `evaluator` (humans, longest, the best against the others).
fn run_json(run: &Evaluated) -> Option<Value> {
    run.evaluation
        .of_run::<crate::evaluation::evaluator::RunMeasures>()
        .and_then(|r| serde_json::to_value(r).ok())
}

/// One configuration's row for `configs[i].evaluator`.
fn config_json(m: &Measures) -> Option<Value> {
    serde_json::to_value(m).ok()
}

/// calibrate's metrics.csv rows: the run's humans and longest (no configuration), then each
/// configuration's under its name.
fn calibrate_tidy(run: &Evaluated, rows: &mut TidyRows, config: Option<usize>) {
    let Some(r) = run
        .evaluation
        .of_run::<crate::evaluation::evaluator::RunMeasures>()
    else {
        return;
    };
    match config {
        None => {
            let humans = of_humans(&r.humans);
            add_rows(rows, "evaluator:humans", humans, r.humans.parsed);
            if let Some(l) = &r.longest {
                add_rows(rows, "evaluator:longest", of_evaluator(l), l.parsed);
            }
        }
        Some(i) => {
            if let Some(m) = run
                .evaluation
                .of_config::<crate::evaluation::evaluator::Measures>(i)
            {
                add_rows(rows, "evaluator", of_evaluator(m), m.parsed);
            }
        }
    }
}

fn add_rows(
    rows: &mut TidyRows,
    scope: &str,
    f: [(Option<f64>, Option<[f64; 2]>); 6],
    parsed: usize,
) {
    for (key, (value, ci)) in KEYS.iter().zip(f) {
        if let Some(v) = value {
            rows.push(scope, parsed as u64, key, v, ci.map(|[lo, hi]| (lo, hi)));
        }
    }
}

/// The evaluator measures' section in `calibrate`: after the comparisons (with `--details`),
/// the run's `evaluator` and each configuration's.
#[derive(Debug)]
pub struct EvaluatorSection;

impl Section for EvaluatorSection {
    fn place(&self) -> Place {
        Place::After
    }
    fn tables(&self, run: &Evaluated, order: &[usize], view: View) -> Vec<Table> {
        view.details(|| calibrate_tables(run, order))
    }
    fn run_json(&self, run: &Evaluated) -> Vec<(&'static str, Value)> {
        key("evaluator", run_json(run))
    }
    fn config_json(
        &self,
        run: &Evaluated,
        _order: &[usize],
        i: usize,
    ) -> Vec<(&'static str, Value)> {
        key(
            "evaluator",
            run.evaluation
                .of_config::<crate::evaluation::evaluator::Measures>(i)
                .and_then(config_json),
        )
    }
    fn run_rows(&self, rows: &mut TidyRows, run: &Evaluated) {
        calibrate_tidy(run, rows, None);
    }
    fn config_rows(&self, rows: &mut TidyRows, run: &Evaluated, i: usize) {
        calibrate_tidy(run, rows, Some(i));
    }
}
