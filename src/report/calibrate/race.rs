//! `calibrate --sequential`'s answer: what the race decided, at which item, what was dropped
//! and how many calls it saved, first on the terminal and report.html; the race's own figures
//! (`evaluation::race::Raced`) are in run.json and `--json` as they are.

use crate::evaluation::race::Decision;
use crate::report::media::format::thousands;
use crate::run::record::{Run, SequentialRun};

/// A decision as the answer says it: the winner, the item, the accuracy difference.
fn said(d: &Decision) -> String {
    let (diff, lo, hi) = d.difference();
    format!(
        "{} agrees with the gold more often than {} (accuracy {diff:+.3}, anytime-valid interval [{lo:+.3}, {hi:+.3}] over {} labelled items)",
        d.better,
        d.worse,
        thousands(d.n as u64)
    )
}

/// The answer's lines for a sequential run (none for another).
pub fn answer(run: &Run) -> Vec<String> {
    let Some(s) = &run.meta.sequential else {
        return Vec::new();
    };
    let r = &s.raced;
    let level = if r.comparisons == 1 {
        format!("α = {}", r.alpha)
    } else {
        format!(
            "α = {} split over {} pairs (Bonferroni)",
            r.alpha, r.comparisons
        )
    };
    let items = thousands(r.items as u64);
    let mut out = vec![match (&r.decided, r.stopped_at) {
        (Some(d), Some(at)) => format!(
            "Sequential, decided at item {} of {items}: {}; {level}.",
            thousands(at as u64),
            said(d)
        ),
        _ => match &r.named {
            Some([a, b]) => format!(
                "Sequential: {a} and {b} were not told apart over the {items} items ({level}): every call was made."
            ),
            None => format!(
                "Sequential: not decided over the {items} items ({level}): {} configurations were never shown worse than another.",
                left(run, s)
            ),
        },
    }];
    if !r.dropped.is_empty() {
        let dropped: Vec<String> = r
            .dropped
            .iter()
            .filter(|d| r.decided.as_ref() != Some(*d))
            .map(|d| {
                format!(
                    "{} at item {} (worse than {})",
                    d.worse,
                    thousands(d.at as u64),
                    d.better
                )
            })
            .collect();
        if !dropped.is_empty() {
            out.push(format!("Dropped, no more calls: {}.", dropped.join("; ")));
        }
    }
    if s.calls_saved > 0 {
        out.push(format!(
            "{} of the {} planned calls were never sent. The tables below cover the items each configuration rated, and each comparison the items both rated: fewer than the {items} planned.",
            thousands(s.calls_saved),
            thousands(s.calls_planned)
        ));
    }
    out
}

/// How many configurations raced to the end.
fn left(run: &Run, s: &SequentialRun) -> usize {
    run.record
        .configs
        .iter()
        .filter(|c| !c.is_baseline() && c.jury.is_none())
        .filter(|c| s.raced.stopped_at(&c.name).is_none())
        .count()
}
