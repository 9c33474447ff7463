//! Bias diagnostics as JSON, tidy CSV rows and the terminal's section.

use crate::evaluation::bias::{Bias, LengthModel, Preference};
use crate::evaluation::Evaluated;
use crate::evaluation::Scope;
use crate::report::calibrate::section::{key, Figure, Place, Section, View};
use crate::report::media::csv::TidyRows;
use crate::report::media::format::shown_name;
use crate::report::media::svg::draw::panels_svg;
use crate::report::media::table::Table;
use anyhow::Result;
use serde::Serialize;
use serde_json::Value;

/// A feature's preference: the judge's, gold's, the excess, each with its interval.
#[derive(Serialize)]
struct PreferenceJson {
    items: u64,
    judge: f64,
    judge_n: u64,
    gold: f64,
    gold_n: u64,
    excess: f64,
    ci: Option<PreferenceCi>,
}

#[derive(Serialize)]
struct PreferenceCi {
    judge: (f64, f64),
    gold: (f64, f64),
    excess: (f64, f64),
}

fn preference_json(p: &Preference) -> PreferenceJson {
    PreferenceJson {
        items: p.items,
        judge: p.judge,
        judge_n: p.judge_n,
        gold: p.gold,
        gold_n: p.gold_n,
        excess: p.excess,
        ci: p.ci.map(|c| PreferenceCi {
            judge: c[0],
            gold: c[1],
            excess: c[2],
        }),
    }
}

/// A scope's `bias` object: each feature's preference by its name.
#[derive(Serialize)]
struct BiasJson {
    #[serde(flatten)]
    features: std::collections::BTreeMap<&'static str, PreferenceJson>,
    longer_accuracy: f64,
    length_predicts_gold: bool,
}

/// A scope's `bias` object.
pub fn to_json(b: &Bias) -> Value {
    serde_json::to_value(BiasJson {
        features: b
            .features()
            .into_iter()
            .map(|(name, p)| (name, preference_json(p)))
            .collect(),
        longer_accuracy: b.longer_accuracy,
        length_predicts_gold: b.length_predicts_gold(),
    })
    .unwrap_or_default()
}

/// A configuration's `length_model` object: the logistic model's coefficients, their standard
/// errors and the length coefficient's interval.
#[derive(Serialize)]
struct LengthModelJson {
    n: usize,
    intercept: f64,
    gold: f64,
    length: f64,
    se: Coefficients,
    length_ci: (f64, f64),
}

#[derive(Serialize)]
struct Coefficients {
    intercept: f64,
    gold: f64,
    length: f64,
}

/// A configuration's `length_model` object.
pub fn model_json(m: &LengthModel) -> Value {
    serde_json::to_value(LengthModelJson {
        n: m.n,
        intercept: m.coef[0],
        gold: m.coef[1],
        length: m.coef[2],
        se: Coefficients {
            intercept: m.se[0],
            gold: m.se[1],
            length: m.se[2],
        },
        length_ci: m.length_ci(),
    })
    .unwrap_or_default()
}

/// Rows `bias_<feature>_judge|gold|excess` (with CIs), `longer_accuracy`.
pub fn tidy(rows: &mut TidyRows, scope: &str, b: &Bias) {
    for (name, p) in b.features() {
        let ci = |k: usize| p.ci.map(|c| c[k]);
        rows.push(
            scope,
            p.judge_n,
            &format!("bias_{name}_judge"),
            p.judge,
            ci(0),
        );
        rows.push(scope, p.gold_n, &format!("bias_{name}_gold"), p.gold, ci(1));
        rows.push(
            scope,
            p.items,
            &format!("bias_{name}_excess"),
            p.excess,
            ci(2),
        );
    }
    rows.push(scope, 0, "longer_accuracy", b.longer_accuracy, None);
}

/// Rows `length_coef` (with its Wald CI) and `length_coef_se`.
pub fn tidy_model(rows: &mut TidyRows, m: &LengthModel) {
    let n = m.n as u64;
    rows.push("overall", n, "length_coef", m.coef[2], Some(m.length_ci()));
    rows.push("overall", n, "length_coef_se", m.se[2], None);
    rows.push("overall", n, "gold_coef", m.coef[1], None);
}

fn cell(p: &Preference) -> String {
    if p.judge_n == 0 {
        return "-".into();
    }
    let excess = match p.ci {
        Some(c) => format!("{:+.2} [{:+.2}, {:+.2}]", p.excess, c[2].0, c[2].1),
        None => format!("{:+.2}", p.excess),
    };
    format!("{:.2} vs {:.2}: {excess}", p.judge, p.gold)
}

/// The configurations in `order` with preferences over all their items.
fn biased<'a>(run: &'a Evaluated<'a>, order: &[usize]) -> Vec<(usize, &'a Bias)> {
    order
        .iter()
        .filter_map(|&i| Some((i, run.evaluation.configs[i].overall.findings.get::<Bias>()?)))
        .collect()
}

/// The terminal's section: every configuration's preferences beside gold's, the length
/// coefficient, and the subsets where length alone predicts gold.
fn tables(run: &Evaluated, order: &[usize]) -> Vec<Table> {
    let rows = biased(run, order);
    if rows.is_empty() {
        return Vec::new();
    }
    let ci = crate::report::media::format::ci_level(run);
    let coefficient = format!("length coef. (adjusted for gold) [{ci} CI]");
    let mut t = Table::new(
        format!("Bias: how often each prefers the response with the feature, judge vs gold (excess = judge − gold, {ci} CI)"),
        &[
            "configuration",
            "longer (> 30 chars)",
            "with a list",
            "with headers",
            "with bold",
            "shown first",
            &coefficient,
        ],
    );
    for (i, b) in &rows {
        let mut row = vec![crate::report::media::format::shown_name(
            &run.record.configs[*i],
        )];
        row.extend(b.features().iter().map(|(_, p)| cell(p)));
        row.push(
            run.evaluation
                .of_config::<crate::evaluation::bias::LengthModel>(*i)
                .map_or("-".into(), |m| {
                    let (lo, hi) = m.length_ci();
                    format!("{:+.2} [{:+.2}, {:+.2}]", m.coef[2], lo, hi)
                }),
        );
        t.rows.push(row);
    }
    let first = &run.evaluation.configs[rows[0].0];
    let items = |f: usize| rows[0].1.features()[f].1.items;
    t.notes.push(format!(
        "items where the feature tells the responses apart: longer {}, list {}, headers {}, bold {}; gold ties and the judge's ties or missing verdicts are left out of their shares",
        items(0),
        items(1),
        items(2),
        items(3)
    ));
    t.notes.push(
        "length coef.: logit P(picks response 2) = b0 + b_gold·gold + b_length·tanh(Δlength / sd); a positive b_length is a preference for length beyond what gold explains (AlpacaEval's length-controlled GLM, pairwise); '-' where it cannot be estimated (fewer than 10 verdicts, one answer only, or verdicts that gold or length separate perfectly)".into(),
    );
    let flagged: Vec<String> = first
        .by_subset
        .iter()
        .filter_map(|(name, s)| {
            let b = s.findings.get::<Bias>()?;
            b.length_predicts_gold()
                .then(|| format!("{name} ({:.2}, n {})", b.longer_accuracy, b.items))
        })
        .collect();
    if !flagged.is_empty() {
        t.notes.push(format!(
            "subsets where length alone predicts gold (the longer baseline's accuracy above 0.80 or below 0.20, subsets of 10 items or more): {}",
            flagged.join(", ")
        ));
    }
    vec![t]
}

/// Bias diagnostics: per feature, gold's preference and each configuration's, with CIs (1 − α)
/// (None when the run has no bias figures).
fn svg(run: &Evaluated, idx: &[usize]) -> Result<Option<String>> {
    let biased = biased(run, idx);
    let Some((_, first)) = biased.first() else {
        return Ok(None);
    };
    let mut names = vec!["gold labels".to_string()];
    names.extend(
        biased
            .iter()
            .map(|(i, _)| shown_name(&run.record.configs[*i])),
    );
    let captions = [
        "prefers the longer response (lengths differ by > 30 characters)",
        "prefers the response with a list (only one has one)",
        "prefers the response with headers (only one has them)",
        "prefers the response with bold text (only one has it)",
        "prefers the response shown first",
    ];
    let ci = crate::report::media::format::ci_level(run);
    let panels = captions
        .iter()
        .enumerate()
        .map(|(k, caption)| {
            let pick = |b: &crate::evaluation::bias::Bias| *b.features()[k].1;
            let gold = pick(first);
            let mut values = vec![(gold.gold, gold.ci.map(|c| c[1]))];
            values.extend(biased.iter().map(|(_, b)| {
                let p = pick(b);
                (p.judge, p.ci.map(|c| c[0]))
            }));
            (format!("{caption}, with {ci} CIs"), values)
        })
        .collect::<Vec<_>>();
    panels_svg(&names, &panels).map(Some)
}

/// Bias's section: after the comparisons (with `--details`), a scope's `bias` and a
/// configuration's `length_model`.
#[derive(Debug)]
pub struct BiasSection;

impl Section for BiasSection {
    fn place(&self) -> Place {
        Place::After
    }
    fn tables(&self, run: &Evaluated, order: &[usize], view: View) -> Vec<Table> {
        view.details(|| tables(run, order))
    }
    fn figures(&self, run: &Evaluated, order: &[usize]) -> Result<Vec<Figure>> {
        Ok(Figure::one(
            svg(run, order)?,
            "bias.svg",
            format!(
                "bias: judge and gold preferences with {} CIs",
                crate::report::media::format::ci_level(run)
            ),
        ))
    }
    fn config_json(
        &self,
        run: &Evaluated,
        _order: &[usize],
        i: usize,
    ) -> Vec<(&'static str, Value)> {
        let model = run
            .evaluation
            .of_config::<crate::evaluation::bias::LengthModel>(i);
        key("length_model", model.map(model_json))
    }
    fn scope_json(&self, scope: &Scope) -> Vec<(&'static str, Value)> {
        key("bias", scope.findings.get::<Bias>().map(to_json))
    }
    fn config_rows(&self, rows: &mut TidyRows, run: &Evaluated, i: usize) {
        if let Some(m) = run
            .evaluation
            .of_config::<crate::evaluation::bias::LengthModel>(i)
        {
            tidy_model(rows, m);
        }
    }
    fn scope_rows(&self, rows: &mut TidyRows, name: &str, scope: &Scope) {
        if let Some(b) = scope.findings.get::<Bias>() {
            tidy(rows, name, b);
        }
    }
}
