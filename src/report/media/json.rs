//! The documented JSON shape of an agreement result (see docs/guide.md, "analyze JSON output").

use crate::metrics::{Agreement, Statistic};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// Prints `doc()` as pretty JSON (with `json`), or the text `terminal` writes, on stdout.
pub fn emit_either(
    json: bool,
    doc: impl FnOnce() -> Value,
    terminal: impl FnOnce(&mut dyn std::io::Write) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    use std::io::Write;
    let mut w = crate::report::media::term::stdout();
    if json {
        serde_json::to_writer_pretty(&mut w, &doc())?;
        writeln!(w)?;
    } else {
        terminal(&mut w)?;
    }
    w.flush()?;
    Ok(())
}

/// An agreement result as JSON: `{n, accuracy, kappa, kappa_linear, kappa_quadratic, spearman,
/// spearman_p, kendall_tau_b, kendall_p, tie_rate_gold, tie_rate_rating, confusion: {labels,
/// matrix}, ci}` (a number that is not finite is null).
#[derive(Debug)]
pub struct AgreementJson<'a>(pub &'a Agreement);

impl Serialize for AgreementJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let a = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("n", &a.n)?;
        for statistic in Statistic::ALL {
            m.serialize_entry(statistic.key(), &a.get(statistic))?;
            match statistic {
                Statistic::Spearman => m.serialize_entry("spearman_p", &a.spearman_p)?,
                Statistic::KendallTauB => m.serialize_entry("kendall_p", &a.kendall_p)?,
                _ => {}
            }
        }
        m.serialize_entry(
            "confusion",
            &Confusion {
                labels: a.confusion.labels().as_slice(),
                matrix: a.confusion.rows(),
            },
        )?;
        let ci = a.intervals.as_ref().map(|intervals| {
            Statistic::ALL
                .iter()
                .map(|&s| {
                    let i = intervals.get(s);
                    (s.key(), (i.lo, i.hi))
                })
                .collect::<BTreeMap<_, _>>()
        });
        m.serialize_entry("ci", &ci)?;
        m.end()
    }
}

#[derive(Serialize)]
struct Confusion<'a, M: Serialize> {
    labels: &'a [i64],
    matrix: M,
}

/// A reason and how many times it came, as `reasons` and `missing` list them.
#[derive(Debug, Serialize)]
pub struct ReasonCount<'a> {
    pub reason: &'a str,
    pub count: usize,
}

/// `(reason, count)` pairs as JSON objects, in their order.
pub fn reasons(of: &[(String, usize)]) -> Vec<ReasonCount<'_>> {
    of.iter()
        .map(|(reason, count)| ReasonCount {
            reason,
            count: *count,
        })
        .collect()
}
