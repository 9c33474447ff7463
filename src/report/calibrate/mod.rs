//! Output of `raterlab calibrate` and `raterlab report`: the comparison table, policies,
//! position bias, sections, confusion matrices, paired comparisons; and the JSON document.

pub mod answer;
pub mod bias;
pub mod consistency;
pub mod cost;
pub mod depth;
pub mod document;
pub mod forms;
pub mod groups;
pub mod jury;
pub mod latex;
pub mod page;
pub mod plots;
pub mod probability;
pub mod race;
pub mod ranking;
pub mod rewardbench2;
pub mod rmbench;
pub mod run_dir;
pub mod screen;
pub mod section;
pub mod sections;

pub use forms::emit;
pub mod summary;
pub mod systems;

use crate::report::calibrate::ranking::order;
use crate::report::calibrate::screen::{Block, Screen};
use crate::report::calibrate::section::{Place, View};
use crate::report::calibrate::sections::tables_at;
use crate::report::media::{format, table};
use crate::run::record::Run;
use anyhow::Result;
use std::io::Write;

/// The human-readable report.
pub fn write_terminal(run: &Run, w: &mut dyn Write, details: bool) -> Result<()> {
    screen::write(&screen_of(run, details), w)
}

/// The run's screen: the answer, then the configurations, the sections' tables and (with
/// `details`) every other table.
fn screen_of(run: &Run, details: bool) -> Screen {
    let evaluated = run.view();
    let order = order(&evaluated);
    let summary = crate::report::calibrate::summary::summary(&evaluated);
    let view = if details { View::Full } else { View::Brief };
    let mut blocks = vec![Block::Table(summary.configurations)];
    blocks.extend(
        tables_at(&evaluated, &order, Place::Lead, view)
            .into_iter()
            .map(Block::Table),
    );
    if details {
        blocks.push(Block::Table(summary.parse_failures));
        blocks.extend(reasons(run, &order).map(Block::Text));
        for t in [summary.position, summary.pointwise, summary.sections]
            .into_iter()
            .flatten()
            .chain(tables_at(&evaluated, &order, Place::Scopes, view))
        {
            blocks.push(Block::Table(t));
        }
        blocks.push(Block::Text(confusions(run, &order)));
    }
    // The answer's evidence: the configurations and their paired comparisons.
    blocks.extend(summary.comparisons.map(Block::Table));
    blocks.extend(
        tables_at(&evaluated, &order, Place::After, view)
            .into_iter()
            .map(Block::Table),
    );
    Screen {
        header: header(run),
        answer: crate::report::calibrate::answer::answer(run),
        after: after_answer(run, details),
        blocks,
        dir: Some(run.meta.head.dir.clone()),
    }
}

/// What was run.
fn header(run: &Run) -> Vec<String> {
    let rec = &run.record;
    let mut out = vec![format!(
        "raterlab calibrate: {} configuration{} × {} items · data {} · seed {}{}",
        rec.configs.len(),
        if rec.configs.len() == 1 { "" } else { "s" },
        rec.items.len(),
        run.meta.head.source,
        run.meta.head.seed,
        if run.meta.head.both_orders {
            " · both orders"
        } else {
            ""
        }
    )];
    let unlabelled = rec.unlabelled();
    if unlabelled > 0 {
        out.push(format!(
            "{unlabelled} of the {} items have no gold label: rated and kept (ratings.csv), left out of every agreement measure below",
            rec.items.len()
        ));
    }
    if rec.configs.iter().any(|c| c.simulated) {
        out.push(
            "NOTE: results marked (sim) come from the SIMULATED judge, not from an LLM.".into(),
        );
    }
    out
}

/// After the answer: where the details are, and what the data left out.
fn after_answer(run: &Run, details: bool) -> Vec<String> {
    let rec = &run.record;
    let more = if details {
        "Details follow"
    } else {
        "Parse failures, position, pointwise, sections, confusion, bias, consistency and the annotators: --details"
    };
    let mut out = vec![format!(
        "{more}; browse every item in {}",
        run.meta.head.dir.join("report.html").display()
    )];
    if run.meta.no_majority > 0 {
        let kept = rec.annotators.as_ref().is_some_and(|a| a.policy == "tie");
        out.push(format!(
            "{} pairs {}: their annotators had no majority",
            run.meta.no_majority,
            if kept { "kept as ties" } else { "left out" }
        ));
    }
    if !run.meta.unshared.is_empty() {
        out.push(format!(
            "{} conversations left out (--unshared skip: their sides differ before the last replies): {}",
            run.meta.unshared.len(),
            run.meta.unshared.join(", ")
        ));
    }
    out
}

/// Each configuration's confusion matrix, in the report's order.
fn confusions(run: &Run, order: &[usize]) -> String {
    let mut out = "\nConfusion matrices (rows: gold, columns: rating)\n".to_string();
    for &i in order {
        out.push_str(&format!(
            "{}\n{}\n",
            run.record.configs[i].name,
            table::confusion(&run.evaluation.configs[i].overall.agreement.confusion)
        ));
    }
    out
}

/// How many reasons are shown per configuration; the rest are summed up in one line.
const REASONS_SHOWN: usize = 3;

/// The most common reasons why items have no rating, per configuration (None when every item
/// has one).
fn reasons(run: &Run, order: &[usize]) -> Option<String> {
    let configs = &run.record.configs;
    if configs.iter().all(|c| c.reasons.is_empty()) {
        return None;
    }
    let width = crate::report::media::term::width();
    let mut out = format!(
        "\n{}\n",
        crate::report::media::term::wrap(
            "Why items have no rating (most common reasons; every item's in ratings.csv, the raw answers in completions.jsonl)",
            width,
            ""
        )
    );
    let room = width.map_or(110, |w| w.saturating_sub(10).max(20));
    for c in order.iter().map(|&i| &configs[i]) {
        if c.reasons.is_empty() {
            continue;
        }
        out.push_str(&format!("{}\n", c.name));
        for (reason, n) in c.reasons.iter().take(REASONS_SHOWN) {
            out.push_str(&format!("  {n:>5} × {}\n", format::shorten(reason, room)));
        }
        if c.reasons.len() > REASONS_SHOWN {
            let rest = &c.reasons[REASONS_SHOWN..];
            let n: usize = rest.iter().map(|r| r.1).sum();
            out.push_str(&format!("  {n:>5} × {} other reasons\n", rest.len()));
        }
    }
    Some(out)
}
