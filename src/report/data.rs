//! Output of `raterlab data summary`.

use crate::dataset::rewardbench2;
use crate::dataset::sections::section_of;
use crate::report::media::table;
use crate::run::data::{Dataset, Rb2Set};
use anyhow::Result;
use std::collections::BTreeMap;
use std::io::Write;

#[derive(Default)]
struct Tally {
    items: usize,
    gold: [usize; 3],
    /// Items without a gold label.
    unlabelled: usize,
    prompt_chars: usize,
    r1_chars: usize,
    r2_chars: usize,
    shortest: Option<usize>,
    longest: usize,
    empty: usize,
}

fn chars(s: &str) -> usize {
    s.chars().count()
}

pub fn write_summary(d: &Dataset, out: &mut dyn Write) -> Result<()> {
    let mut by_subset: BTreeMap<&str, Tally> = BTreeMap::new();
    for e in &d.examples {
        let t = by_subset.entry(&e.subset).or_default();
        t.items += 1;
        match e.gold {
            Some(g) => t.gold[(g + 1) as usize] += 1,
            None => t.unlabelled += 1,
        }
        t.prompt_chars += chars(&e.prompt);
        let (a, b) = (chars(&e.response1), chars(&e.response2));
        t.r1_chars += a;
        t.r2_chars += b;
        t.shortest = Some(t.shortest.map_or(a.min(b), |s| s.min(a).min(b)));
        t.longest = t.longest.max(a).max(b);
        t.empty += [&e.prompt, &e.response1, &e.response2]
            .iter()
            .filter(|s| s.trim().is_empty())
            .count();
    }
    writeln!(out, "raterlab data summary: {}", d.source)?;
    writeln!(
        out,
        "{} items · seed {} · {}",
        d.examples.len(),
        d.seed,
        if d.both_orders {
            "both orders"
        } else {
            "one order per pair, drawn from the seed"
        }
    )?;
    if d.no_majority > 0 {
        let kept = d.no_majority_policy == crate::dataset::labels::NoMajority::Tie;
        writeln!(
            out,
            "{} pairs {}: their annotators had no majority",
            d.no_majority,
            if kept { "kept as ties" } else { "left out" }
        )?;
    }
    for line in conversation_lines(d) {
        writeln!(out, "{line}")?;
    }
    let unlabelled: usize = by_subset.values().map(|t| t.unlabelled).sum();
    if unlabelled > 0 {
        writeln!(
            out,
            "{unlabelled} items have no gold label: rated and kept, and left out of the agreement measures"
        )?;
    }
    let mut t = table::Table::new(
        "",
        &[
            "subset",
            "section",
            "items",
            "gold 1",
            "gold tie",
            "gold 2",
            "prompt chars",
            "resp. 1 chars",
            "resp. 2 chars",
            "shortest",
            "longest",
            "empty fields",
        ],
    );
    // A narrow terminal keeps the counts and leaves out the lengths (named under the table).
    t.secondary = vec![9, 10, 6, 1];
    t.elsewhere = "a wider terminal shows them";
    let mut sections: BTreeMap<&str, usize> = BTreeMap::new();
    for (name, s) in &by_subset {
        let section = section_of(name).map_or("-", |s| s.key());
        *sections.entry(section).or_default() += s.items;
        let mean = |total: usize| format!("{:.0}", total as f64 / s.items as f64);
        t.rows.push(vec![
            name.to_string(),
            section.to_string(),
            s.items.to_string(),
            s.gold[0].to_string(),
            s.gold[1].to_string(),
            s.gold[2].to_string(),
            mean(s.prompt_chars),
            mean(s.r1_chars),
            mean(s.r2_chars),
            s.shortest.unwrap_or(0).to_string(),
            s.longest.to_string(),
            s.empty.to_string(),
        ]);
    }
    let width = crate::report::media::term::width();
    writeln!(out, "\n{}", table::render_at(&t, width))?;
    if sections.keys().any(|k| *k != "-") {
        let mut s = table::new_table(vec!["section", "items"]);
        for (name, count) in sections {
            s.add_row(vec![name.to_string(), count.to_string()]);
        }
        table::align_numbers(&mut s);
        writeln!(out, "\n{s}")?;
    }
    if d.rmbench {
        write_rmbench(d, out)?;
    }
    Ok(())
}

/// RM-Bench's shape: prompts per domain, and each style's mean length, chosen and rejected
/// (the style is what the benchmark varies).
fn write_rmbench(d: &Dataset, out: &mut dyn Write) -> Result<()> {
    use crate::dataset::rmbench::{cell, domain_of, DOMAINS, STYLES};
    let mut prompts: BTreeMap<usize, std::collections::BTreeSet<&str>> = BTreeMap::new();
    // [chosen, rejected][style]: (chars, responses), each response counted once per prompt.
    let mut length = [[(0usize, 0usize); 3]; 2];
    for e in d.examples.iter().filter(|e| e.seeded) {
        let (Some((prompt, i, j)), Some(domain)) = (cell(&e.pair_id), domain_of(&e.subset)) else {
            continue;
        };
        let k = DOMAINS.iter().position(|x| *x == domain).unwrap_or(0);
        prompts.entry(k).or_default().insert(prompt);
        let (chosen, rejected) = if e.gold.is_some_and(|g| g < 0) {
            (&e.response1, &e.response2)
        } else {
            (&e.response2, &e.response1)
        };
        if j == 0 {
            length[0][i].0 += chars(chosen);
            length[0][i].1 += 1;
        }
        if i == 0 {
            length[1][j].0 += chars(rejected);
            length[1][j].1 += 1;
        }
    }
    let total: usize = prompts.values().map(|p| p.len()).sum();
    let mut t = table::Table::new("", &["mean chars", STYLES[0], STYLES[1], STYLES[2]]);
    for (name, side) in ["chosen", "rejected"].iter().zip(&length) {
        let mut row = vec![name.to_string()];
        row.extend(side.iter().map(|(c, n)| {
            if *n == 0 {
                "n/a".into()
            } else {
                format!("{:.0}", *c as f64 / *n as f64)
            }
        }));
        t.rows.push(row);
    }
    let width = crate::report::media::term::width();
    let line = format!(
        "RM-Bench: {total} prompts ({}), each three chosen × three rejected responses as nine pairs; calibrate scores the 3×3 style matrix as RM-Bench's compute_accuracy does (hard: a plainer chosen against a fancier rejected)",
        prompts
            .iter()
            .map(|(k, p)| format!("{} {}", DOMAINS[*k], p.len()))
            .collect::<Vec<_>>()
            .join(", ")
    );
    writeln!(
        out,
        "\n{}",
        crate::report::media::term::wrap(&line, width, "")
    )?;
    writeln!(out, "{}", table::render_at(&t, width))?;
    Ok(())
}

/// Per subset of RewardBench 2 rows: how many, their completions and correct ones, and where
/// the seeded orders put the correct ones.
#[derive(Default)]
struct Rb2Tally {
    rows: usize,
    completions: (usize, usize, usize),
    correct: (usize, usize, usize),
    /// Correct completions shown at A, B, C, D, and later.
    slots: [usize; 5],
    /// The chance a pick at random is correct, summed over rows.
    chance: f64,
}

fn span((lo, hi, _): (usize, usize, usize), rows: usize, total: usize) -> String {
    let mean = total as f64 / rows.max(1) as f64;
    if lo == hi {
        lo.to_string()
    } else {
        format!("{lo}–{hi} (mean {mean:.1})")
    }
}

/// Each subset's rows: completions and correct ones per row, chance, the correct slots.
fn rewardbench2_tally(d: &Rb2Set) -> BTreeMap<&str, Rb2Tally> {
    let mut by_subset: BTreeMap<&str, Rb2Tally> = BTreeMap::new();
    for r in &d.rows {
        let t = by_subset.entry(&r.row.subset).or_default();
        let (n, k) = (r.row.completions.len(), r.row.correct);
        let widen = |(lo, hi, sum): (usize, usize, usize), v: usize| {
            if t.rows == 0 {
                (v, v, v)
            } else {
                (lo.min(v), hi.max(v), sum + v)
            }
        };
        t.completions = widen(t.completions, n);
        t.correct = widen(t.correct, k);
        t.rows += 1;
        for &slot in &r.gold {
            t.slots[slot.min(4)] += 1;
        }
        t.chance += k as f64 / n as f64;
    }
    by_subset
}

/// The Ties rows: questions, `ref:N` and `tied:N` rows, completions, how they are scored.
fn ties_line(ties: &[&rewardbench2::Rb2Row]) -> String {
    let kind = |k: &str| ties.iter().filter(|r| r.id.contains(k)).count();
    let questions: std::collections::BTreeSet<&str> = ties
        .iter()
        .filter_map(|r| r.id.rsplit(':').next())
        .collect();
    let tied_correct = ties
        .iter()
        .filter(|r| r.id.contains("tied:"))
        .map(|r| r.correct);
    let (lo, hi) = tied_correct.fold((usize::MAX, 0), |(a, b), c| (a.min(c), b.max(c)));
    format!(
        "Ties: {} rows for {} questions: {} ref:N (one correct answer) and {} tied:N ({} correct) for the same question N, {} completions; scored as reward-bench's process_single_model scores them (accuracy, correctness preferred, the margin term), not by picks",
        ties.len(),
        questions.len(),
        kind("ref:"),
        kind("tied:"),
        if lo <= hi { format!("{lo}–{hi}") } else { "no".into() },
        crate::report::media::format::thousands(
            ties.iter().map(|r| r.completions.len() as u64).sum::<u64>()
        ),
    )
}

pub fn write_rewardbench2(d: &Rb2Set, out: &mut dyn Write) -> Result<()> {
    let by_subset = rewardbench2_tally(d);
    writeln!(out, "raterlab data summary: {}", d.source)?;
    let width = crate::report::media::term::width();
    let wrap = |text: String| crate::report::media::term::wrap(&text, width, "");
    writeln!(
        out,
        "{}",
        wrap(format!(
            "{} rows in RewardBench 2's form (several completions, some correct) · seed {} · completions shown in an order drawn from the seed",
            d.rows.len(),
            d.seed
        ))
    )?;
    let mut t = table::Table::new(
        "",
        &[
            "subset",
            "rows",
            "completions per row",
            "correct per row",
            "chance",
            "correct at A",
            "B",
            "C",
            "D",
            "later",
        ],
    );
    t.secondary = vec![5, 6, 7, 8, 9];
    t.elsewhere = "a wider terminal shows them";
    for (name, s) in &by_subset {
        t.rows.push(vec![
            name.to_string(),
            s.rows.to_string(),
            span(s.completions, s.rows, s.completions.2),
            span(s.correct, s.rows, s.correct.2),
            format!("{:.3}", s.chance / s.rows as f64),
            s.slots[0].to_string(),
            s.slots[1].to_string(),
            s.slots[2].to_string(),
            s.slots[3].to_string(),
            s.slots[4].to_string(),
        ]);
    }
    writeln!(out, "\n{}", table::render_at(&t, width))?;
    let ties: Vec<&rewardbench2::Rb2Row> = d
        .rows
        .iter()
        .map(|r| &r.row)
        .filter(|r| r.subset == rewardbench2::TIES)
        .collect();
    writeln!(
        out,
        "{}",
        wrap("chance: how often a pick at random among a row's completions is correct (1/4 for one correct among four)".into())
    )?;
    if !ties.is_empty() {
        writeln!(out, "{}", wrap(ties_line(&ties)))?;
    }
    Ok(())
}

/// `data summary` of RewardBench 2 rows, on stdout.
pub fn emit_rewardbench2(d: &Rb2Set) -> Result<()> {
    let mut out = crate::report::media::term::stdout();
    write_rewardbench2(d, &mut out)?;
    out.flush()?;
    Ok(())
}

pub fn emit_summary(
    d: &Dataset,
    annotators: Option<&crate::evaluation::annotators::AnnotatorReport>,
) -> Result<()> {
    let mut out = crate::report::media::term::stdout();
    write_summary(d, &mut out)?;
    if let Some(r) = annotators {
        for t in crate::report::annotators::tables(r) {
            writeln!(out, "\n{}\n{}", t.title, table::render(&t))?;
        }
        writeln!(
            out,
            "(95% CIs from {} bootstrap resamples of the items, seed {})",
            crate::evaluation::DEFAULT_BOOTSTRAP,
            d.seed
        )?;
    }
    out.flush()?;
    Ok(())
}

pub fn emit_exported(d: &Dataset, path: &std::path::Path) -> Result<()> {
    let mut out = crate::report::media::term::stdout();
    writeln!(
        out,
        "wrote {} items from {} to {}",
        d.examples.len(),
        d.source,
        path.display()
    )?;
    out.flush()?;
    Ok(())
}

/// Conversations: the turns before the judged reply (the last user message counted), and the
/// rows left out under `--unshared skip`, named.
pub fn conversation_lines(d: &crate::run::data::Dataset) -> Vec<String> {
    let mut out = Vec::new();
    let mut turns: Vec<usize> = d.examples.iter().map(|e| e.history.len() + 1).collect();
    if turns.iter().any(|&t| t > 1) {
        turns.sort_unstable();
        out.push(format!(
            "conversations: {} to {} turns before the judged reply (median {}); {} of {} items single-turn",
            turns[0],
            turns[turns.len() - 1],
            turns[turns.len() / 2],
            turns.iter().filter(|&&t| t == 1).count(),
            turns.len()
        ));
    }
    if !d.unshared.is_empty() {
        const SHOWN: usize = 5;
        let more = d.unshared.len().saturating_sub(SHOWN);
        out.push(format!(
            "{} conversations left out (--unshared skip: their sides differ before the last replies): {}{}",
            d.unshared.len(),
            d.unshared[..d.unshared.len().min(SHOWN)].join(", "),
            if more > 0 { format!(" and {more} more") } else { String::new() }
        ));
    }
    out
}
