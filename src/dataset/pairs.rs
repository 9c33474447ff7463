//! Preference pairs as loaded, before positions are drawn: reward-bench parquet files and
//! generic pairwise files with a column mapping.

use super::frame::{self, Frame};
use crate::error::input_error;
use anyhow::Result;
use polars::prelude::*;
use std::collections::HashMap;
use std::path::Path;

/// One pair as the source gives it. `gold` is relative to (`first`, `second`): -1 when
/// `first` is better, 1 when `second` is, 0 for a tie; `None` when the source gives no label
/// (an empty label cell): the pair is rated and kept, and left out of the agreement measures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pair {
    /// `{subset}-{id}`, unique in the dataset.
    pub id: String,
    pub subset: String,
    pub prompt: String,
    pub first: String,
    pub second: String,
    pub gold: Option<i64>,
    /// A reference answer for graders that use one (`--map reference=COL`).
    pub reference: Option<String>,
    /// Whether positions may be drawn at random (reward-bench's chosen/rejected pairs); pairs
    /// whose file fixes the order keep it.
    pub randomize: bool,
    /// Each annotator's label (as gold labels, in the source's order; None where the annotator
    /// left the item unlabelled), when the label is the majority of several columns (`--map
    /// label=A+B+C`) or of long form's annotators; empty otherwise.
    pub votes: Vec<Option<i64>>,
    /// Long form by annotator: the annotator (an index into the annotators) of each kept
    /// annotation, in file order (AlpacaEval's measures read annotations by position); empty
    /// otherwise (the votes' own order is the file's).
    pub vote_order: Vec<usize>,
    /// The models that wrote `first` and `second` (reward-bench's `chosen_model` and
    /// `rejected_model`, `--map generator1=COL,generator2=COL`, AlpacaEval's `generator_1/2`).
    pub generators: Option<[String; 2]>,
    /// A conversation's turns before `prompt`, its last user message (empty for a single
    /// turn; `dataset::conversation`).
    pub history: Vec<super::conversation::Turn>,
}

/// reward-bench's columns and their types.
pub const REWARD_BENCH_COLUMNS: [(&str, &str); 7] = [
    ("prompt", "text"),
    ("chosen", "text"),
    ("chosen_model", "text"),
    ("rejected", "text"),
    ("rejected_model", "text"),
    ("subset", "text"),
    ("id", "integer or text"),
];

/// A text column; nulls are errors, empty strings are kept (a model may answer nothing).
fn text_column(frame: &Frame, name: &str, what: &str) -> Result<Vec<String>> {
    let series = frame
        .column(name, "--map")?
        .as_materialized_series()
        .clone();
    let text = series.str().map_err(|_| {
        input_error(format!(
            "'{}', column '{name}': has type {}, expected text; check that this is the right file",
            frame.path.display(),
            series.dtype()
        ))
    })?;
    text.iter()
        .enumerate()
        .map(|(row, v)| match v {
            Some(v) => Ok(v.to_string()),
            None => Err(input_error(format!(
                "'{}', column '{name}', row {}: the {what} is missing (null); fill it in or drop the row",
                frame.path.display(),
                row + 1
            ))),
        })
        .collect()
}

fn check_schema(frame: &Frame) -> Result<()> {
    let found = frame.column_names();
    for (name, kind) in REWARD_BENCH_COLUMNS {
        let Ok(column) = frame.df.column(name) else {
            return Err(input_error(format!(
                "'{}' is not in reward-bench's schema: no column '{name}' (columns found: {}); reward-bench files have prompt, chosen, chosen_model, rejected, rejected_model, subset, id; for other files use --map",
                frame.path.display(),
                found.join(", ")
            )));
        };
        let dtype = column.dtype();
        let ok = match kind {
            "text" => *dtype == DataType::String,
            _ => *dtype == DataType::String || dtype.is_integer(),
        };
        if !ok {
            return Err(input_error(format!(
                "'{}', column '{name}': has type {dtype}, expected {kind} as in reward-bench's schema",
                frame.path.display()
            )));
        }
    }
    Ok(())
}

/// Fails on the first example id seen twice.
/// The id of a pair from its content, for files without an id column: the first 16 hex
/// digits of SHA-256 over its earlier turns (role and text), its prompt and its two responses
/// as loaded (before positions are drawn), each length-prefixed. The same pairs under another
/// file name, or in another published shape of the same conversations, get the same ids, so
/// the same positions and cache keys.
pub fn content_id(p: &Pair) -> String {
    content_hash(&p.history, &p.prompt, &p.first, &p.second)
}

/// `content_id` of a pair's parts: its earlier turns, its prompt and its two responses in the
/// data's order.
pub fn content_hash(
    history: &[super::conversation::Turn],
    prompt: &str,
    first: &str,
    second: &str,
) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    let mut field = |bytes: &[u8]| {
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    for turn in history {
        field(turn.role.label().as_bytes());
        field(turn.content.as_bytes());
    }
    field(b"prompt");
    field(prompt.as_bytes());
    field(first.as_bytes());
    field(second.as_bytes());
    let digest = h.finalize();
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// Gives every pair its content id (`{subset}-{id}` when `with_subset`); a pair whose content
/// repeats an earlier one's gets `-2`, `-3`, ... after it, in file order.
pub fn with_content_ids(pairs: &mut [Pair], with_subset: bool) {
    let mut seen: HashMap<String, usize> = HashMap::with_capacity(pairs.len());
    for p in pairs.iter_mut() {
        let hash = content_id(p);
        let id = if with_subset {
            format!("{}-{hash}", p.subset)
        } else {
            hash
        };
        let k = seen.entry(id.clone()).or_insert(0);
        *k += 1;
        p.id = if *k == 1 { id } else { format!("{id}-{k}") };
    }
}

pub fn check_unique_ids(path: &Path, ids: &[String]) -> Result<()> {
    let mut first: HashMap<&str, usize> = HashMap::with_capacity(ids.len());
    for (row, id) in ids.iter().enumerate() {
        if let Some(seen) = first.insert(id, row) {
            return Err(input_error(format!(
                "'{}', row {}: duplicate example id '{id}' (first seen at row {}); ids ({{subset}}-{{id}}) must be unique",
                path.display(),
                row + 1,
                seen + 1
            )));
        }
    }
    Ok(())
}

/// Pairs from a reward-bench-schema frame: chosen first, gold -1, positions to be drawn.
/// Each text column is dropped from the frame once converted, so the texts are held about
/// once, not twice, at the peak.
pub fn from_reward_bench(mut frame: Frame) -> Result<Vec<Pair>> {
    check_schema(&frame)?;
    if frame.height() == 0 {
        return Err(input_error(format!(
            "'{}' has no rows; nothing to rate",
            frame.path.display()
        )));
    }
    let mut take = |name: &str, what: &str| -> Result<Vec<String>> {
        let values = text_column(&frame, name, what)?;
        let _ = frame.df.drop_in_place(name);
        Ok(values)
    };
    let prompt = take("prompt", "prompt")?;
    let chosen = take("chosen", "chosen response")?;
    let rejected = take("rejected", "rejected response")?;
    let subset = take("subset", "subset")?;
    let chosen_model = take("chosen_model", "chosen model")?;
    let rejected_model = take("rejected_model", "rejected model")?;
    let raw_ids = frame.text("id", "--map id=COL", "id")?;
    let ids: Vec<String> = subset
        .iter()
        .zip(&raw_ids)
        .map(|(s, i)| format!("{s}-{i}"))
        .collect();
    check_unique_ids(&frame.path, &ids)?;
    Ok(ids
        .into_iter()
        .zip(subset)
        .zip(prompt)
        .zip(chosen.into_iter().zip(rejected))
        .zip(chosen_model.into_iter().zip(rejected_model))
        .map(|((((id, subset), prompt), (first, second)), models)| Pair {
            id,
            subset,
            prompt,
            first,
            second,
            gold: Some(-1),
            reference: None,
            randomize: true,
            votes: Vec::new(),
            vote_order: Vec::new(),
            // A model named `unknown` (or nothing: LLMBar's reward-bench export names none) is
            // not a model: without both, the pair tells the system level nothing.
            generators: Some([models.0, models.1]).filter(|pair| {
                pair.iter()
                    .all(|m| !m.trim().is_empty() && m.trim() != "unknown")
            }),
            history: Vec::new(),
        })
        .collect())
}

/// Reads a reward-bench-schema parquet file.
pub fn load_reward_bench(path: &Path) -> Result<Vec<Pair>> {
    from_reward_bench(frame::read(path)?)
}

/// Reads reward-bench-schema parquet bytes (the embedded sample).
pub fn reward_bench_from_bytes(name: &str, bytes: &'static [u8]) -> Result<Vec<Pair>> {
    let df = ParquetReader::new(std::io::Cursor::new(bytes)).finish()?;
    from_reward_bench(Frame {
        path: name.into(),
        df,
    })
}
