//! A RewardBench 2 run's directory as it is written, beside its reader
//! (`read_rewardbench2.rs`): `items.jsonl` (each row's completions in their slots, the correct
//! slots and what each configuration made of the row) and `ratings.csv`/`.parquet` (per
//! configuration and row: the result, the pick or the grades, the correct slots).

use crate::dataset::rewardbench2::{slot_letter, Shown};
use crate::evaluation::rewardbench2::score::Rb2Config;
use crate::raters::rewardbench2::Protocol;
use crate::run::lines::{write_line, ResultLine, RowLine};
use crate::run::record::Run;
use anyhow::{Context, Result};
use polars::prelude::*;
use std::io::Write;
use std::path::Path;

/// Each completion's grade, in slot order.
fn slot_grades(shown: &Shown, c: &Rb2Config, row: usize) -> Option<Vec<Option<f64>>> {
    let scored = c.scored.get(row)?;
    if scored.decided.is_some() {
        return None;
    }
    Some(
        shown
            .order
            .iter()
            .map(|&k| scored.scores.get(k).copied().flatten())
            .collect(),
    )
}

/// Pairs won of pairs judged ("2/3"), for pairwise configurations.
fn won(c: &Rb2Config, row: usize) -> Option<String> {
    let o = c.outcomes.get(row).filter(|o| !o.wins.is_empty())?;
    let n = o.wins.iter().filter(|w| **w == Some(true)).count();
    Some(format!("{n}/{}", o.wins.len()))
}

/// What a configuration made of a row: its result, pick, grades by slot and pairs won (and,
/// pairwise, each pair: won, lost or unread).
pub fn outcome_json(shown: &Shown, c: &Rb2Config, row: usize) -> ResultLine {
    ResultLine {
        config: c.name.clone(),
        result: c.results.get(row).copied().flatten(),
        pick: c.outcomes.get(row).and_then(|o| o.pick),
        grades: slot_grades(shown, c, row),
        wins: won(c, row),
        pairs: (c.protocol == Protocol::Pairwise)
            .then(|| c.outcomes.get(row).map(|o| o.wins.clone()))
            .flatten(),
        verdicts: (c.protocol == Protocol::Pairwise)
            .then(|| c.outcomes.get(row).map(|o| o.verdicts.clone()))
            .flatten()
            .filter(|v| !v.is_empty()),
    }
}

fn letters(slots: &[usize]) -> String {
    slots
        .iter()
        .map(|&s| slot_letter(s))
        .collect::<Vec<_>>()
        .join(",")
}

pub fn items(run: &Run, dir: &Path) -> Result<()> {
    let path = dir.join("items.jsonl");
    let mut out = std::io::BufWriter::new(
        std::fs::File::create(&path).with_context(|| format!("creating '{}'", path.display()))?,
    );
    for (k, shown) in run.shown().iter().enumerate() {
        let line = RowLine {
            id: shown.row.id.clone(),
            subset: shown.row.subset.clone(),
            prompt: shown.row.prompt.clone(),
            completions: (0..shown.order.len())
                .map(|s| shown.at(s).to_string())
                .collect(),
            order: shown.order.clone(),
            correct: shown
                .gold
                .iter()
                .map(|&s| slot_letter(s).to_string())
                .collect(),
            results: run
                .rewardbench2()
                .configs
                .iter()
                .map(|c| outcome_json(shown, c, k))
                .collect(),
        };
        write_line(&mut out, &line)?;
    }
    out.flush()
        .with_context(|| format!("writing '{}'", path.display()))
}

pub fn ratings(run: &Run, dir: &Path) -> Result<()> {
    let (mut config, mut protocol, mut id, mut subset, mut correct) =
        (vec![], vec![], vec![], vec![], vec![]);
    let (mut result, mut pick, mut other, mut grades, mut won) =
        (vec![], vec![], vec![], vec![], vec![]);
    for c in &run.rewardbench2().configs {
        for (k, shown) in run.shown().iter().enumerate() {
            let o = c.outcomes.get(k);
            config.push(c.name.clone());
            protocol.push(c.protocol.key());
            id.push(shown.row.id.clone());
            subset.push(shown.row.subset.clone());
            correct.push(letters(&shown.gold));
            result.push(c.results.get(k).copied().flatten());
            pick.push(o.and_then(|o| o.pick).map(slot_letter));
            other.push(o.and_then(|o| o.other_pick).map(slot_letter));
            grades.push(slot_grades(shown, c, k).map(|g| {
                g.iter()
                    .map(|x| x.map_or_else(String::new, |v| v.to_string()))
                    .collect::<Vec<_>>()
                    .join(";")
            }));
            won.push(self::won(c, k));
        }
    }
    let df = DataFrame::new_infer_height(vec![
        Column::new("config".into(), config),
        Column::new("protocol".into(), protocol),
        Column::new("id".into(), id),
        Column::new("subset".into(), subset),
        Column::new("correct".into(), correct),
        Column::new("result".into(), result),
        Column::new("pick".into(), pick),
        Column::new("pick_other_reader".into(), other),
        Column::new("grades".into(), grades),
        Column::new("pairs_won".into(), won),
    ])?;
    crate::dataset::frame::write(df.clone(), &dir.join("ratings.parquet"))?;
    crate::dataset::frame::write(df, &dir.join("ratings.csv"))
}
