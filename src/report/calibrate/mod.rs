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
pub mod ranking;
pub mod rewardbench2;
pub mod rmbench;
pub mod run_dir;
pub mod section;
pub mod sections;
pub mod shown;

pub use shown::{emit, Shown};
pub mod summary;
pub mod systems;

use crate::report::calibrate::ranking::order;
use crate::report::calibrate::section::{Place, View};
use crate::report::calibrate::sections::tables_at;
use crate::report::media::table::Table;
use crate::report::media::{format, table};
use crate::run::record::Run;
use anyhow::Result;
use std::io::Write;

/// The human-readable report.
pub fn write_terminal(run: &Run, w: &mut dyn Write, details: bool) -> Result<()> {
    let width = crate::report::media::term::width();
    write_head(run, w, details, width)?;
    let order = order(run);
    let summary = crate::report::calibrate::summary::summary(run);
    let print = |w: &mut dyn Write, t: &Table| print_table(w, t, width);
    print(w, &summary.configurations)?;
    let view = if details { View::Full } else { View::Brief };
    for t in tables_at(run, &order, Place::Lead, view) {
        print(w, &t)?;
    }
    if details {
        write_details(run, w, &order, &summary, width)?;
    } else {
        // The answer's evidence: the configurations and their paired comparisons.
        if let Some(t) = &summary.comparisons {
            print(w, t)?;
        }
        for t in tables_at(run, &order, Place::After, view) {
            print(w, &t)?;
        }
    }
    writeln!(w, "\nrun directory: {}", run.meta.dir.display())?;
    Ok(())
}

/// A table under its title, fitted to `width`, its notes after it.
fn print_table(w: &mut dyn Write, t: &Table, width: Option<usize>) -> Result<()> {
    let wrap = crate::report::media::term::wrap;
    writeln!(
        w,
        "\n{}\n{}",
        wrap(&t.title, width, ""),
        table::render_at(t, width)
    )?;
    for note in &t.notes {
        writeln!(w, "{}", wrap(note, width, "  "))?;
    }
    Ok(())
}

/// The header, the answer, where the details are, and what the data left out.
fn write_head(run: &Run, w: &mut dyn Write, details: bool, width: Option<usize>) -> Result<()> {
    let rec = &run.record;
    let wrap = crate::report::media::term::wrap;
    let header = format!(
        "raterlab calibrate: {} configuration{} × {} items · data {} · seed {}{}",
        rec.configs.len(),
        if rec.configs.len() == 1 { "" } else { "s" },
        rec.items.len(),
        run.meta.source,
        run.meta.seed,
        if run.meta.both_orders {
            " · both orders"
        } else {
            ""
        }
    );
    writeln!(w, "{}", wrap(&header, width, ""))?;
    if rec.configs.iter().any(|c| c.simulated) {
        writeln!(
            w,
            "NOTE: results marked (sim) come from the SIMULATED judge, not from an LLM."
        )?;
    }
    // The answer first; the detailed tables follow, and report.html browses everything.
    writeln!(w)?;
    for line in crate::report::calibrate::answer::answer(run) {
        writeln!(w, "{}", wrap(&line, width, ""))?;
    }
    let more = if details {
        "Details follow"
    } else {
        "Parse failures, position, pointwise, sections, confusion, bias, consistency and the annotators: --details"
    };
    let browse = format!(
        "{more}; browse every item in {}",
        run.meta.dir.join("report.html").display()
    );
    writeln!(w, "{}", wrap(&browse, width, ""))?;
    if run.meta.no_majority > 0 {
        let kept = rec.annotators.as_ref().is_some_and(|a| a.policy == "tie");
        writeln!(
            w,
            "{} pairs {}: their annotators had no majority",
            run.meta.no_majority,
            if kept { "kept as ties" } else { "left out" }
        )?;
    }
    if !run.meta.unshared.is_empty() {
        let left = format!(
            "{} conversations left out (--unshared skip: their sides differ before the last replies): {}",
            run.meta.unshared.len(),
            run.meta.unshared.join(", ")
        );
        writeln!(w, "{}", wrap(&left, width, ""))?;
    }
    Ok(())
}

/// `--details`: every table after the answer's.
fn write_details(
    run: &Run,
    w: &mut dyn Write,
    order: &[usize],
    summary: &crate::report::calibrate::summary::Summary,
    width: Option<usize>,
) -> Result<()> {
    let print = |w: &mut dyn Write, t: &Table| print_table(w, t, width);
    print(w, &summary.parse_failures)?;
    write_reasons(run, order, w)?;
    for t in [&summary.position, &summary.pointwise, &summary.sections]
        .into_iter()
        .flatten()
    {
        print(w, t)?;
    }
    for t in tables_at(run, order, Place::Scopes, View::Full) {
        print(w, &t)?;
    }
    writeln!(w, "\nConfusion matrices (rows: gold, columns: rating)")?;
    for &i in order {
        writeln!(
            w,
            "{}\n{}",
            run.record.configs[i].name,
            table::confusion(&run.evaluation.configs[i].overall.agreement.confusion)
        )?;
    }
    if let Some(t) = &summary.comparisons {
        print(w, t)?;
    }
    for t in tables_at(run, order, Place::After, View::Full) {
        print(w, &t)?;
    }
    Ok(())
}

/// How many reasons are shown per configuration; the rest are summed up in one line.
const REASONS_SHOWN: usize = 3;

/// The most common reasons why items have no rating, per configuration.
fn write_reasons(run: &Run, order: &[usize], w: &mut dyn Write) -> Result<()> {
    let configs = &run.record.configs;
    if configs.iter().all(|c| c.reasons.is_empty()) {
        return Ok(());
    }
    let width = crate::report::media::term::width();
    writeln!(
        w,
        "\n{}",
        crate::report::media::term::wrap(
            "Why items have no rating (most common reasons; every item's in ratings.csv, the raw answers in completions.jsonl)",
            width,
            ""
        )
    )?;
    let room = width.map_or(110, |w| w.saturating_sub(10).max(20));
    for c in order.iter().map(|&i| &configs[i]) {
        if c.reasons.is_empty() {
            continue;
        }
        writeln!(w, "{}", c.name)?;
        for (reason, n) in c.reasons.iter().take(REASONS_SHOWN) {
            writeln!(w, "  {n:>5} × {}", format::shorten(reason, room))?;
        }
        if c.reasons.len() > REASONS_SHOWN {
            let rest = &c.reasons[REASONS_SHOWN..];
            let n: usize = rest.iter().map(|r| r.1).sum();
            writeln!(w, "  {n:>5} × {} other reasons", rest.len())?;
        }
    }
    Ok(())
}
