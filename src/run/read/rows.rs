//! A run over RewardBench 2 rows' record read back: the rows as shown and what each
//! configuration made of them, from run.json's configurations (each one's `rows`: protocol,
//! floor, rule; schema 2 on), items.jsonl (each row's completions in their slots, the seeded
//! order, and each configuration's pick, grades and pairs won), ratings.parquet (the other
//! reader's pick) and completions.jsonl (the answers, kept as `calibrate` kept them), made the
//! one record again as `calibrate` made it. Scoring it again is the registry's.

use crate::dataset::rewardbench2::items::RowItems;
use crate::dataset::rewardbench2::{slot_of, Rb2Row, Shown, TIES};
use crate::error::input_error;
use crate::judge::Completion;
use crate::raters::rewardbench2::Rb2Made;
use crate::raters::rewardbench2::{
    items, keep_answers, ties_items, ties_part_name, Protocol, RowOutcome,
};
use crate::raters::{CallTally, Missing, SampleTrace, Usage};
use crate::run::file::{ConfigFile, RunFile, RB2_READABLE};
use crate::run::lines::{each_line, AnswerLine, ResultLine, RowLine};
use anyhow::Result;
use polars::prelude::*;
use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

fn bad(dir: &Path, what: impl std::fmt::Display) -> anyhow::Error {
    input_error(format!(
        "'{}' is not a complete RewardBench 2 run directory: {what}; the same calibrate command with --offline remakes it from the cache",
        dir.display()
    ))
}

impl AnswerLine {
    /// The sample as the run kept it.
    fn trace(self) -> SampleTrace {
        // The span in bytes, from characters.
        let span = self.text.as_deref().zip(self.span).and_then(|(t, [a, b])| {
            let byte = |c: usize| t.char_indices().map(|(i, _)| i).chain([t.len()]).nth(c);
            Some((byte(a)?, byte(b)?))
        });
        SampleTrace {
            sample: self.sample,
            side: self.side,
            grade: self.grade,
            shared: self.shared,
            completion: self.text.map(|text| Completion {
                tokens_in: self.tokens_in.unwrap_or(0),
                tokens_out: self.tokens_out.unwrap_or(0),
                latency_ms: self.latency_ms.unwrap_or(0.0),
                cached: self.cached.unwrap_or(false),
                ..Completion::free(text)
            }),
            verdict: self.verdict,
            span,
            cut_off: self
                .problem
                .as_deref()
                .is_some_and(|p| p.starts_with("cut off while thinking")),
            problem: self.problem,
            error: None,
            probability: None,
            probability_problem: None,
        }
    }
}

/// The row a line of items.jsonl shows, checked.
fn row(dir: &Path, at: usize, line: &RowLine) -> Result<Shown> {
    let n = line.completions.len();
    let mut seen = vec![false; n];
    for &k in &line.order {
        if k >= n || std::mem::replace(&mut seen[k], true) {
            return Err(bad(
                dir,
                format!(
                    "items.jsonl line {at}: 'order' is not a permutation of the {n} completions"
                ),
            ));
        }
    }
    if line.order.len() != n {
        return Err(bad(dir, format!("items.jsonl line {at}: 'order' has {} slots for {n} completions (written by a raterlab before `report DIR` read RewardBench 2 runs?)", line.order.len())));
    }
    let mut gold: Vec<usize> = Vec::new();
    for letter in &line.correct {
        match slot_of(letter).filter(|&s| s < n) {
            Some(s) => gold.push(s),
            None => {
                return Err(bad(
                    dir,
                    format!("items.jsonl line {at}: no slot '{letter}'"),
                ))
            }
        }
    }
    gold.sort_unstable();
    let correct = gold.len();
    if gold.iter().any(|&s| line.order[s] >= correct) {
        return Err(bad(
            dir,
            format!("items.jsonl line {at}: the correct slots do not hold the first completions"),
        ));
    }
    let mut completions = vec![String::new(); n];
    for (slot, text) in line.completions.iter().enumerate() {
        completions[line.order[slot]] = text.clone();
    }
    Ok(Shown {
        row: Rb2Row {
            id: line.id.clone(),
            subset: line.subset.clone(),
            prompt: line.prompt.clone(),
            completions,
            correct,
        },
        order: line.order.clone(),
        gold,
    })
}

/// Each configuration's other-reader picks by row id (ratings.parquet).
fn other_picks(dir: &Path) -> Result<HashMap<(String, String), Option<usize>>> {
    let path = dir.join("ratings.parquet");
    let file = std::fs::File::open(&path).map_err(|e| bad(dir, format!("ratings.parquet: {e}")))?;
    let df = ParquetReader::new(file)
        .finish()
        .map_err(|e| bad(dir, format!("ratings.parquet: {e}")))?;
    let text = |name: &str| -> Result<Vec<Option<String>>> {
        Ok(df
            .column(name)
            .and_then(|c| c.str().cloned())
            .map_err(|_| bad(dir, format!("ratings.parquet has no text column '{name}'")))?
            .iter()
            .map(|v| v.map(str::to_string))
            .collect())
    };
    let (config, id, other) = (text("config")?, text("id")?, text("pick_other_reader")?);
    Ok(config
        .into_iter()
        .zip(id)
        .zip(other)
        .map(|((c, i), o)| {
            let slot = o.as_deref().and_then(slot_of);
            ((c.unwrap_or_default(), i.unwrap_or_default()), slot)
        })
        .collect())
}

/// A RewardBench 2 run's record, read back: its rows as shown and what each configuration made
/// of them (its answers included) made the one record again
/// (`evaluation::rewardbench2::record`), as `calibrate` made it.
pub fn record(dir: &Path, file: &RunFile) -> Result<crate::evaluation::RunRecord> {
    let (rows, made) = read(dir, file)?;
    let missing = file
        .configs
        .first()
        .and_then(|c| c.rows.as_ref())
        .map_or(Ok(Missing::Drop), |r| Missing::parse(&r.missing))?;
    Ok(crate::evaluation::rewardbench2::record::record(
        rows,
        made,
        missing,
        file.data.both_orders,
    ))
}

/// Reads a RewardBench 2 run directory back: its rows as shown and what each configuration
/// made of them (its answers included), ready to be scored again.
fn read(dir: &Path, file: &RunFile) -> Result<(Vec<Shown>, Vec<Rb2Made>)> {
    if file.schema.0 < RB2_READABLE {
        return Err(input_error(format!(
            "'{}' was written by a raterlab that did not yet keep what `report DIR` needs of a RewardBench 2 run (run.json schema {}); the same calibrate command with --offline remakes it from the cache",
            dir.display(),
            file.schema.0
        )));
    }
    let (rows, results) = rows_and_results(dir, file)?;
    let others = other_picks(dir)?;
    let mut made = Vec::new();
    for c in &file.configs {
        let own = c.rows.as_ref().ok_or_else(|| {
            bad(
                dir,
                format!("run.json: configuration '{}' has no 'rows'", c.name),
            )
        })?;
        let protocol = Protocol::parse(&own.protocol)
            .ok_or_else(|| bad(dir, format!("run.json: no protocol '{}'", own.protocol)))?;
        let outcomes = outcomes_of(dir, c, protocol, &rows, &results, &others)?;
        made.push(Rb2Made {
            name: c.name.clone(),
            jury: c.jury.as_ref().map(|j| j.vote.clone()),
            members: members(dir, file, c)?,
            usd: c.cost.usd,
            protocol,
            simulated: c.simulated,
            floor: own.floor,
            tally: CallTally {
                usage: Usage {
                    calls: c.cost.calls,
                    cache_hits: c.cost.cache_hits,
                    tokens_in: c.cost.tokens_in,
                    tokens_out: c.cost.tokens_out,
                    tokens_reasoning: c.cost.tokens_reasoning,
                    requests: c.cost.requests.unwrap_or(c.cost.calls),
                    request_micros: c.cost.request_seconds.map_or(0, Usage::micros),
                },
                ..CallTally::default()
            },
            outcomes,
        });
    }
    answers(dir, &rows, &mut made, file.data.both_orders);
    Ok((rows, made))
}

/// A jury's members by their place among the run's configurations (none for a configuration
/// that is not a jury, or a jury written before its members were kept).
fn members(dir: &Path, file: &RunFile, c: &ConfigFile) -> Result<Vec<usize>> {
    c.jury
        .iter()
        .flat_map(|j| &j.members)
        .map(|name| {
            file.configs
                .iter()
                .position(|other| &other.name == name)
                .ok_or_else(|| bad(dir, format!("run.json: jury '{}' names a member '{name}' that is not among its configurations", c.name)))
        })
        .collect()
}

/// items.jsonl: each row as shown, and each row's results (one per configuration).
fn rows_and_results(dir: &Path, file: &RunFile) -> Result<(Vec<Shown>, Vec<Vec<ResultLine>>)> {
    let path = dir.join("items.jsonl");
    let reader = std::io::BufReader::new(
        std::fs::File::open(&path).map_err(|e| bad(dir, format!("items.jsonl: {e}")))?,
    );
    let mut rows: Vec<Shown> = Vec::new();
    let mut results: Vec<Vec<ResultLine>> = Vec::new();
    for (k, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| bad(dir, format!("items.jsonl: {e}")))?;
        let parsed: RowLine = serde_json::from_str(&line)
            .map_err(|e| bad(dir, format!("items.jsonl line {}: {e}", k + 1)))?;
        rows.push(row(dir, k + 1, &parsed)?);
        results.push(parsed.results);
    }
    if Some(rows.len()) != file.data.rows {
        return Err(bad(
            dir,
            format!(
                "items.jsonl has {} rows, run.json {}",
                rows.len(),
                file.data.rows.unwrap_or(0)
            ),
        ));
    }
    Ok((rows, results))
}

/// One configuration's outcome of every row, from its results in items.jsonl and its other
/// reader's picks.
fn outcomes_of(
    dir: &Path,
    c: &ConfigFile,
    protocol: Protocol,
    rows: &[Shown],
    results: &[Vec<ResultLine>],
    others: &HashMap<(String, String), Option<usize>>,
) -> Result<Vec<RowOutcome>> {
    let mut outcomes = RowOutcome::for_rows(rows);
    for (r, (shown, of_row)) in rows.iter().zip(results).enumerate() {
        let Some(res) = of_row.iter().find(|x| x.config == c.name) else {
            return Err(bad(
                dir,
                format!(
                    "items.jsonl row {} has no result of '{}'",
                    shown.row.id, c.name
                ),
            ));
        };
        let o = &mut outcomes[r];
        o.pick = res.pick;
        o.other_pick = others
            .get(&(c.name.clone(), shown.row.id.clone()))
            .copied()
            .flatten();
        if let Some(by_slot) = &res.grades {
            for (slot, g) in by_slot.iter().enumerate() {
                if let Some(&k) = shown.order.get(slot) {
                    o.grades[k] = *g;
                }
            }
        }
        o.wins = res.pairs.clone().unwrap_or_default();
        o.verdicts = res.verdicts.clone().unwrap_or_default();
        if protocol == Protocol::Pairwise && shown.row.subset != TIES && res.pairs.is_none() {
            return Err(bad(
                dir,
                format!(
                    "items.jsonl row {}: '{}' has no pairs",
                    shown.row.id, c.name
                ),
            ));
        }
        // Each pair's verdict beside whether it was won (absent in older directories).
        if res.verdicts.is_some() && o.verdicts.len() != o.wins.len() {
            return Err(bad(
                dir,
                format!(
                    "items.jsonl row {}: '{}' has {} verdicts for {} pairs; each pair judged has one (null when none was read)",
                    shown.row.id,
                    c.name,
                    o.verdicts.len(),
                    o.wins.len()
                ),
            ));
        }
    }
    Ok(outcomes)
}

/// Keeps each answer of completions.jsonl in its row's outcome, as the run kept it: the
/// items are made again (once per protocol, Ties' once) and the file is read once, each line
/// going to the configuration (or its Ties part) that gave it.
fn answers(dir: &Path, rows: &[Shown], made: &mut [Rb2Made], both_orders: bool) {
    let mut items_made: Vec<(Option<Protocol>, RowItems)> = vec![(None, ties_items(rows))];
    for m in made.iter().filter(|m| m.protocol != Protocol::Scores) {
        if !items_made.iter().any(|(p, _)| *p == Some(m.protocol)) {
            items_made.push((Some(m.protocol), items(m.protocol, rows, both_orders)));
        }
    }
    let at: Vec<HashMap<&str, usize>> = items_made
        .iter()
        .map(|(_, items)| {
            items
                .examples
                .iter()
                .enumerate()
                .map(|(k, e)| (e.id.as_str(), k))
                .collect()
        })
        .collect();
    // Each part's name → (configuration, its items, four-way answers).
    let mut parts: HashMap<String, (usize, usize, bool)> = HashMap::new();
    for (c, m) in made.iter().enumerate() {
        if m.protocol == Protocol::Scores {
            continue;
        }
        let own = items_made
            .iter()
            .position(|(p, _)| *p == Some(m.protocol))
            .unwrap_or(0);
        parts.insert(m.name.clone(), (c, own, m.protocol == Protocol::Ranking));
        parts.insert(ties_part_name(&m.name), (c, 0, false));
    }
    each_line(&dir.join("completions.jsonl"), |line: AnswerLine| {
        let Some(&(c, k, ranking)) = parts.get(&line.config) else {
            return;
        };
        let Some(&(r, showing)) = at[k]
            .get(line.id.as_str())
            .and_then(|&i| items_made[k].1.of.get(i))
        else {
            return;
        };
        keep_answers(
            &mut made[c].outcomes[r],
            &rows[r],
            showing,
            ranking,
            &[line.trace()],
        );
    });
}
