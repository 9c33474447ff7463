//! Output of `raterlab data summary`.

use super::table;
use crate::dataset::sections::section_of;
use crate::run::data::Dataset;
use anyhow::Result;
use std::collections::BTreeMap;
use std::io::Write;

#[derive(Default)]
struct Tally {
    items: usize,
    gold: [usize; 3],
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
        t.gold[(e.gold + 1) as usize] += 1;
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
        writeln!(
            out,
            "{} pairs left out: their annotators had no majority",
            d.no_majority
        )?;
    }
    let mut t = table::new_table(vec![
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
    ]);
    let mut sections: BTreeMap<&str, usize> = BTreeMap::new();
    for (name, s) in &by_subset {
        let section = section_of(name).map_or("-", |s| s.key());
        *sections.entry(section).or_default() += s.items;
        let mean = |total: usize| format!("{:.0}", total as f64 / s.items as f64);
        t.add_row(vec![
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
    table::align_numbers(&mut t);
    writeln!(out, "\n{t}")?;
    let mut s = table::new_table(vec!["section", "items"]);
    for (name, count) in sections {
        s.add_row(vec![name.to_string(), count.to_string()]);
    }
    table::align_numbers(&mut s);
    writeln!(out, "\n{s}")?;
    Ok(())
}

pub fn emit_summary(
    d: &Dataset,
    annotators: Option<&crate::evaluation::annotators::AnnotatorReport>,
) -> Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    write_summary(d, &mut out)?;
    if let Some(r) = annotators {
        for t in super::annotators::tables(r) {
            writeln!(out, "\n{}\n{}", t.title, table::render(&t))?;
        }
        writeln!(
            out,
            "(95% CIs from 1000 bootstrap resamples of the items, seed {})",
            d.seed
        )?;
    }
    out.flush()?;
    Ok(())
}

pub fn emit_exported(d: &Dataset, path: &std::path::Path) -> Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
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
