//! Per-response scores from a file (a reward model's outputs): `prompt, response, score`, or
//! `pair_id, side, score`; CSV, JSONL or Parquet. A missing score (null or empty) leaves that
//! response ungraded.

use super::frame::{self, Frame};
use crate::error::input_error;
use anyhow::Result;
use polars::prelude::*;
use std::collections::HashMap;
use std::path::Path;

/// Scores keyed the way the file keys them, looked up by the texts as they are (no key is
/// built per lookup: a run asks once per response graded).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScoreTable {
    /// prompt → response text → score.
    by_text: HashMap<String, HashMap<String, Option<f64>>>,
    /// [the source's first response, its second]: pair id → score.
    by_side: [HashMap<String, Option<f64>>; 2],
}

impl ScoreTable {
    /// The score of `response` to `prompt` (Some(None): the file leaves it empty; None: the
    /// file has no line for it).
    pub fn of_text(&self, prompt: &str, response: &str) -> Option<Option<f64>> {
        self.by_text.get(prompt)?.get(response).copied()
    }

    /// The score of pair `pair_id`'s first (or second) response in the source.
    pub fn of_side(&self, pair_id: &str, first: bool) -> Option<Option<f64>> {
        self.by_side[usize::from(!first)].get(pair_id).copied()
    }

    /// Keeps a score by texts, returning the one kept before for them.
    fn put_text(
        &mut self,
        prompt: String,
        response: String,
        s: Option<f64>,
    ) -> Option<Option<f64>> {
        self.by_text.entry(prompt).or_default().insert(response, s)
    }

    pub fn len(&self) -> usize {
        self.by_text.values().map(HashMap::len).sum::<usize>()
            + self.by_side.iter().map(HashMap::len).sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// `first`/`chosen`/`1`/`a` → the source's first response; `second`/`rejected`/`2`/`b` → the
/// second.
fn side_of(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "first" | "chosen" | "1" | "a" | "response1" => Some(true),
        "second" | "rejected" | "2" | "b" | "response2" => Some(false),
        _ => None,
    }
}

fn scores_of(frame: &Frame) -> Result<Vec<Option<f64>>> {
    let column = frame.column("score", "a column named score")?;
    let series = column.as_materialized_series();
    let cast = series.cast(&DataType::Float64).map_err(|_| {
        input_error(format!(
            "'{}', column 'score': has type {}, which is not a number; scores must be numbers",
            frame.path.display(),
            series.dtype()
        ))
    })?;
    let values: Vec<Option<f64>> = cast.f64().map_err(anyhow::Error::from)?.iter().collect();
    // A text column that did not cast is null where the original was not: name that row.
    if let Ok(text) = series.str() {
        for (row, (orig, v)) in text.iter().zip(&values).enumerate() {
            if let (Some(o), None) = (orig, v) {
                if !o.trim().is_empty() {
                    return Err(input_error(format!(
                        "'{}', column 'score', row {}: '{o}' is not a number; leave it empty for a response without a score",
                        frame.path.display(),
                        row + 1
                    )));
                }
            }
        }
    }
    if let Some(row) = values
        .iter()
        .position(|v| v.is_some_and(|x| !x.is_finite()))
    {
        return Err(input_error(format!(
            "'{}', column 'score', row {}: the score is not finite",
            frame.path.display(),
            row + 1
        )));
    }
    Ok(values)
}

/// Reads a scores file. The same response scored twice with different scores is an error.
pub fn load(path: &Path) -> Result<ScoreTable> {
    let frame = frame::read(path)?;
    let names = frame.column_names();
    let has = |c: &str| names.iter().any(|n| n == c);
    let scores = scores_of(&frame)?;
    let mut table = ScoreTable::default();
    let conflict = |row: usize, key: &str| {
        input_error(format!(
            "'{}', row {}: {key} has two different scores; a judge scores a response once",
            path.display(),
            row + 1
        ))
    };
    if has("response") {
        let prompts = if has("prompt") {
            frame.text("prompt", "a column named prompt", "prompt")?
        } else {
            vec![String::new(); frame.height()]
        };
        let responses = frame.text("response", "a column named response", "response")?;
        for (row, ((p, r), s)) in prompts.into_iter().zip(responses).zip(&scores).enumerate() {
            match table.put_text(p, r, *s) {
                Some(old) if old != *s => return Err(conflict(row, "this prompt and response")),
                _ => {}
            }
        }
    } else if has("pair_id") && has("side") {
        let ids = frame.text("pair_id", "a column named pair_id", "pair id")?;
        let sides = frame.text("side", "a column named side", "side")?;
        for (row, ((id, side), s)) in ids.into_iter().zip(sides).zip(&scores).enumerate() {
            let first = side_of(&side).ok_or_else(|| {
                input_error(format!(
                    "'{}', column 'side', row {}: '{side}' is not a side; use first/second (or chosen/rejected, 1/2)",
                    path.display(),
                    row + 1
                ))
            })?;
            match table.by_side[usize::from(!first)].insert(id.clone(), *s) {
                Some(old) if old != *s => return Err(conflict(row, &format!("pair {id}, {side}"))),
                _ => {}
            }
        }
    } else {
        return Err(input_error(format!(
            "'{}' is not a scores file (columns found: {}); it needs prompt, response, score (or pair_id, side, score)",
            path.display(),
            names.join(", ")
        )));
    }
    if table.is_empty() {
        return Err(input_error(format!(
            "'{}' has no rows; nothing to score",
            path.display()
        )));
    }
    Ok(table)
}
