//! `analyze --sequential`: what the anytime-valid comparison of two rating columns decided,
//! and its interval over the items.

use crate::evaluation::sequential::Sequential;
use crate::report::media::format::thousands;
use anyhow::Result;

/// `sequential` in `--json`: the two columns compared, then the sequence's figures.
#[derive(Debug, serde::Serialize)]
pub struct SequentialJson<'a> {
    a: &'a str,
    b: &'a str,
    #[serde(flatten)]
    sequence: &'a Sequential,
}

/// The comparison as `--json` shows it.
pub fn json((s, [a, b]): &(Sequential, [String; 2])) -> SequentialJson<'_> {
    SequentialJson { a, b, sequence: s }
}

/// What was decided, at which item, and the interval at the items shown; then a blank line.
/// `[x, y]`: the columns compared (A, B).
pub fn answer(s: &Sequential, [x, y]: &[String; 2]) -> Vec<String> {
    let level = format!("{:.0}%", 100.0 * (1.0 - s.alpha));
    let interval = |lo: f64, hi: f64| format!("[{lo:.4}, {hi:.4}]");
    let first = match (s.stopped_at, s.better, s.lower, s.upper) {
        (Some(t), Some(better), Some(lo), Some(hi)) => {
            let (winner, loser) = if better == "a" { (x, y) } else { (y, x) };
            format!(
                "Sequential: {winner} agrees with the gold more often than {loser}, decided at item {} of {}: (1 + accuracy {x} − accuracy {y})/2 lies in {} there, an anytime-valid {level} interval that excludes ½.",
                thousands(t as u64),
                thousands(s.n as u64),
                interval(lo, hi)
            )
        }
        _ => format!(
            "Sequential: {x} and {y} are not told apart over {} items: the anytime-valid {level} interval for (1 + accuracy {x} − accuracy {y})/2 never excludes ½.",
            thousands(s.n as u64)
        ),
    };
    let at: Vec<String> =
        s.at.iter()
            .map(|b| {
                format!(
                    "item {}: {}",
                    thousands(b.t as u64),
                    interval(b.lower, b.upper)
                )
            })
            .collect();
    vec![
        first,
        format!("The interval at {}.", at.join(", ")),
        String::new(),
    ]
}

/// The interval over the items, where the comparison stopped marked (None: no item).
pub fn plot(s: &Sequential, [x, y]: &[String; 2]) -> Result<Option<(String, String)>> {
    if s.n == 0 {
        return Ok(None);
    }
    let title = format!(
        "{x} (A) against {y} (B): anytime-valid {:.0}% interval",
        100.0 * (1.0 - s.alpha)
    );
    let bounds: Vec<(usize, f64, f64)> = s.curve.iter().map(|b| (b.t, b.lower, b.upper)).collect();
    let svg = crate::report::media::svg::sequence_svg(&title, &bounds, s.stopped_at)?;
    Ok(Some(("sequential comparison".to_string(), svg)))
}
