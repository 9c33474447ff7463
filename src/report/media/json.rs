//! The documented JSON shape of an agreement result (see docs/guide.md, "analyze JSON output").

use crate::metrics::{Agreement, Statistic};
use serde_json::{json, Map, Value};

/// Prints `doc()` as pretty JSON (with `json`), or the text `terminal` writes, on stdout.
pub fn emit_either(
    json: bool,
    doc: impl FnOnce() -> Value,
    terminal: impl FnOnce(&mut dyn std::io::Write) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    use std::io::Write;
    let stdout = std::io::stdout();
    let mut w = stdout.lock();
    if json {
        serde_json::to_writer_pretty(&mut w, &doc())?;
        writeln!(w)?;
    } else {
        terminal(&mut w)?;
    }
    w.flush()?;
    Ok(())
}

/// A number, or null for NaN and infinities.
pub fn num(value: f64) -> Value {
    if value.is_finite() {
        json!(value)
    } else {
        Value::Null
    }
}

/// A 95% interval as `[lo, hi]` (NaN bounds as null), or null when there is none.
pub fn ci_json(c: Option<(f64, f64)>) -> Value {
    c.map_or(Value::Null, |(lo, hi)| json!([num(lo), num(hi)]))
}

/// `{n, accuracy, kappa, kappa_linear, kappa_quadratic, spearman, spearman_p, kendall_tau_b,
/// kendall_p, tie_rate_gold, tie_rate_rating, confusion: {labels, matrix}, ci}`.
pub fn agreement(a: &Agreement) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("n".into(), json!(a.n));
    for statistic in Statistic::ALL {
        out.insert(statistic.key().into(), num(a.get(statistic)));
        match statistic {
            Statistic::Spearman => {
                out.insert("spearman_p".into(), num(a.spearman_p));
            }
            Statistic::KendallTauB => {
                out.insert("kendall_p".into(), num(a.kendall_p));
            }
            _ => {}
        }
    }
    out.insert(
        "confusion".into(),
        json!({
            "labels": a.confusion.labels().as_slice(),
            "matrix": a.confusion.rows(),
        }),
    );
    let ci = a.intervals.as_ref().map_or(Value::Null, |intervals| {
        Value::Object(
            Statistic::ALL
                .iter()
                .map(|&s| {
                    let i = intervals.get(s);
                    (s.key().to_string(), json!([num(i.lo), num(i.hi)]))
                })
                .collect(),
        )
    });
    out.insert("ci".into(), ci);
    out
}
