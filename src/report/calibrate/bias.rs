//! Bias diagnostics as JSON, tidy CSV rows and the terminal's section.

use crate::evaluation::bias::{Bias, LengthModel, Preference};
use crate::report::media::csv::TidyRows;
use crate::report::media::json::{ci_json, num};
use crate::report::media::table::Table;
use crate::run::record::Run;
use serde_json::{json, Value};

fn preference_json(p: &Preference) -> Value {
    json!({
        "items": p.items, "judge": num(p.judge), "judge_n": p.judge_n,
        "gold": num(p.gold), "gold_n": p.gold_n, "excess": num(p.excess),
        "ci": p.ci.map_or(Value::Null, |c| json!({"judge": ci_json(Some(c[0])), "gold": ci_json(Some(c[1])), "excess": ci_json(Some(c[2]))})),
    })
}

/// A scope's `bias` object.
pub fn to_json(b: &Bias) -> Value {
    let mut m = serde_json::Map::new();
    for (name, p) in b.features() {
        m.insert(name.into(), preference_json(p));
    }
    m.insert("longer_accuracy".into(), num(b.longer_accuracy));
    m.insert(
        "length_predicts_gold".into(),
        json!(b.length_predicts_gold()),
    );
    Value::Object(m)
}

/// A configuration's `length_model` object.
pub fn model_json(m: &LengthModel) -> Value {
    json!({
        "n": m.n, "intercept": num(m.coef[0]), "gold": num(m.coef[1]), "length": num(m.coef[2]),
        "se": {"intercept": num(m.se[0]), "gold": num(m.se[1]), "length": num(m.se[2])},
        "length_ci": ci_json(Some(m.length_ci())),
    })
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

/// The terminal's section: every configuration's preferences beside gold's, the length
/// coefficient, and the subsets where length alone predicts gold.
pub fn tables(run: &Run, order: &[usize]) -> Vec<Table> {
    let rows: Vec<(usize, &Bias)> = order
        .iter()
        .filter_map(|&i| Some((i, run.evaluation.configs[i].overall.bias.as_ref()?)))
        .collect();
    if rows.is_empty() {
        return Vec::new();
    }
    let mut t = Table::new(
        "Bias: how often each prefers the response with the feature, judge vs gold (excess = judge − gold, 95% CI)",
        &[
            "configuration",
            "longer (> 30 chars)",
            "with a list",
            "with headers",
            "with bold",
            "shown first",
            "length coef. (adjusted for gold) [95% CI]",
        ],
    );
    for (i, b) in &rows {
        let mut row = vec![crate::report::media::format::shown_name(
            &run.record.configs[*i],
        )];
        row.extend(b.features().iter().map(|(_, p)| cell(p)));
        row.push(
            run.evaluation.configs[*i]
                .length_model
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
            let b = s.bias.as_ref()?;
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
