//! The section of a judge that grades one response, by its scale: the answer's line (the
//! scale and the figures that say most: Pearson and MAE on a graded scale, accuracy, κ and
//! leniency on a binary one, accuracy, κ and macro F1 on categories), a table of every figure
//! with its interval by configuration, each class's precision and recall, the judge against
//! each annotator; `scale` in `configs[i]` of `--json` (the type, serialized) and metrics.csv
//! rows of scope `scale`.

use crate::evaluation::scale::{Figure, ScaleMeasures};
use crate::evaluation::Evaluated;
use crate::metrics::scale::Scale;
use crate::report::calibrate::section::{config_key, of_configs, Place, Section, View};
use crate::report::media::csv::TidyRows;
use crate::report::media::format;
use crate::report::media::table::Table;
use serde_json::Value;

fn measured<'a>(run: &'a Evaluated, order: &[usize]) -> Vec<(usize, &'a ScaleMeasures)> {
    of_configs(run, order)
}

fn name(run: &Evaluated, i: usize) -> String {
    format::shown_name(&run.record.configs[i])
}

fn num(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.3}")
    } else {
        "n/a".into()
    }
}

/// "0.853 [0.801, 0.894]".
fn with_ci(f: &Figure) -> String {
    match f.ci {
        Some([lo, hi]) => format!("{} [{}, {}]", num(f.value), num(lo), num(hi)),
        None => num(f.value),
    }
}

/// What the judge is measured against, in words.
fn against(m: &ScaleMeasures) -> &'static str {
    match m.reference {
        "human_mean" => "the annotators' mean grade",
        "majority" => "the annotators' majority",
        _ => "the gold label",
    }
}

/// A figure's name as a person reads it.
fn label(name: &str) -> &str {
    match name {
        "accuracy" => "accuracy",
        "kappa" => "Cohen's κ",
        "judge_share" => "judge's share of 1",
        "human_share" => "humans' share of 1",
        "leniency" => "leniency (judge − humans)",
        "tpr" => "true-positive rate",
        "tnr" => "true-negative rate",
        "precision" => "precision of 1",
        "recall" => "recall of 1",
        "f1" => "F1 of 1",
        "balanced_accuracy" => "balanced accuracy",
        "macro_f1" => "macro F1",
        "pearson" => "Pearson's r (vs mean)",
        "spearman" => "Spearman's ρ (vs mean)",
        "kendall_tau_b" => "Kendall's τ-b (vs mean)",
        "mean_offset" => "mean offset (judge − mean)",
        "mae" => "MAE (vs rounded mean)",
        "exact_agreement" => "exact agreement (vs rounded mean)",
        "kappa_linear" => "κ linear (vs rounded mean)",
        "kappa_quadratic" => "κ quadratic (vs rounded mean)",
        other => other,
    }
}

/// A figure's short name, for the answer's line.
fn short(name: &str) -> &str {
    match name {
        "kappa" => "κ",
        "pearson" => "Pearson r",
        "mae" => "MAE",
        "mean_offset" => "offset",
        "macro_f1" => "macro F1",
        other => other,
    }
}

/// The figures of the answer's line, by scale.
fn headline(scale: &Scale) -> &'static [&'static str] {
    match scale {
        Scale::Binary => &["accuracy", "kappa", "leniency"],
        Scale::Graded { .. } => &["pearson", "mae", "mean_offset"],
        Scale::Categories { .. } => &["accuracy", "kappa", "macro_f1"],
    }
}

fn question(run: &Evaluated) -> Vec<String> {
    let order: Vec<usize> = (0..run.record.configs.len()).collect();
    let all = measured(run, &order);
    let Some((_, first)) = all.first() else {
        return Vec::new();
    };
    let mut out = vec![format!(
        "How well does the judge grade, on {}, against {}? {} items:",
        first.scale.short(),
        against(first),
        first.n
    )];
    for (i, m) in all.iter().take(4) {
        let figures: Vec<String> = (headline(&m.scale).iter())
            .filter_map(|n| Some(format!("{} {}", short(n), with_ci(m.get(n)?))))
            .collect();
        out.push(format!("  {}: {}", name(run, *i), figures.join("; ")));
    }
    out
}

fn figures_table(run: &Evaluated, all: &[(usize, &ScaleMeasures)]) -> Table {
    let first = all[0].1;
    let level = format::level(1.0 - run.evaluation.tested.alpha);
    let mut headers = vec!["figure".to_string()];
    headers.extend(all.iter().map(|(i, _)| name(run, *i)));
    let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
    let mut t = Table::new(
        format!(
            "On the scale {}, against {} ({level} CIs over items)",
            first.scale.describe(),
            against(first)
        ),
        &headers,
    );
    // Exact agreement and κ against the rounded mean are the agreement table's own figures.
    let agreement = ["exact_agreement", "kappa_linear", "kappa_quadratic"];
    for (n, _) in first
        .figures
        .0
        .iter()
        .filter(|(n, _)| !agreement.contains(&n.as_str()))
    {
        let mut row = vec![label(n).to_string()];
        row.extend(
            all.iter()
                .map(|(_, m)| m.get(n).map(with_ci).unwrap_or_default()),
        );
        t.rows.push(row);
    }
    t.notes.push(format!("items: {}", first.n));
    if matches!(first.scale, Scale::Graded { .. }) {
        t.notes.push("rounded mean: the annotators' mean grade rounded half to even (numpy's rint), the gold of the agreement table (its accuracy is the exact agreement, its κ linear and quadratic these); with one annotator, the gold itself".into());
    }
    t
}

fn classes_table(run: &Evaluated, i: usize, m: &ScaleMeasures) -> Table {
    let mut t = Table::new(
        format!("Each class, {}", name(run, i)),
        &["class", "support", "judged", "precision", "recall", "F1"],
    );
    for c in &m.classes {
        t.rows.push(vec![
            c.name.clone(),
            c.support.to_string(),
            c.predicted.to_string(),
            num(c.precision),
            num(c.recall),
            num(c.f1),
        ]);
    }
    t
}

fn annotators_table(run: &Evaluated, i: usize, m: &ScaleMeasures) -> Table {
    let mut t = Table::new(
        format!(
            "{} against each annotator (the items both graded)",
            name(run, i)
        ),
        &[
            "annotator",
            "items",
            "exact",
            "κ linear",
            "κ quadratic",
            "MAE",
        ],
    );
    for a in &m.annotators {
        t.rows.push(vec![
            a.name.clone(),
            a.n.to_string(),
            num(a.exact_agreement),
            num(a.kappa_linear),
            num(a.kappa_quadratic),
            num(a.mae),
        ]);
    }
    t
}

#[derive(Debug)]
pub struct ScaleSection;

impl Section for ScaleSection {
    fn place(&self) -> Place {
        Place::Lead
    }
    fn tables(&self, run: &Evaluated, order: &[usize], view: View) -> Vec<Table> {
        let all = measured(run, order);
        if all.is_empty() {
            return Vec::new();
        }
        let mut out = vec![figures_table(run, &all)];
        let shown = if view == View::Full { all.len() } else { 1 };
        for (i, m) in all.iter().take(shown) {
            if !m.classes.is_empty() {
                out.push(classes_table(run, *i, m));
            }
            if !m.annotators.is_empty() {
                out.push(annotators_table(run, *i, m));
            }
        }
        out
    }
    fn question(&self, run: &Evaluated) -> Vec<String> {
        question(run)
    }
    fn config_json(&self, run: &Evaluated, _: &[usize], i: usize) -> Vec<(&'static str, Value)> {
        config_key::<ScaleMeasures>(run, i, "scale")
    }
    fn config_rows(&self, rows: &mut TidyRows, run: &Evaluated, i: usize) {
        let Some(m) = run.evaluation.of_config::<ScaleMeasures>(i) else {
            return;
        };
        for (n, f) in &m.figures.0 {
            let ci = f.ci.map(|[lo, hi]| (lo, hi));
            rows.push("scale", m.n as u64, n, f.value, ci);
        }
    }
}
