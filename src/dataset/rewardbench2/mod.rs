//! RewardBench 2's rows: a prompt and its completions, some correct (best-of-4 outside Ties:
//! one correct among four; Ties: `ref:N` with one correct answer and `tied:N` with several,
//! for the same question). Each row's completions are shown in a seeded order, which gives its
//! golden labels: the slots of the correct completions.

pub mod items;

use crate::dataset::frame::Frame;
use crate::dataset::select::{stable_hash, Selectable};
use crate::error::input_error;
use anyhow::Result;
use polars::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// RewardBench 2's columns and their types (also `total_completions`, `models` and
/// `additional_metadata`, read when present).
pub const COLUMNS: [(&str, &str); 7] = [
    ("id", "integer or text"),
    ("prompt", "text"),
    ("chosen", "a list of texts"),
    ("rejected", "a list of texts"),
    ("num_correct", "integer"),
    ("num_incorrect", "integer"),
    ("subset", "text"),
];

/// The subset whose rows come in `ref:N`/`tied:N` pairs.
pub const TIES: &str = "Ties";

/// One row as the source gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rb2Row {
    /// `{subset}-{id}`, unique in the dataset.
    pub id: String,
    pub subset: String,
    pub prompt: String,
    /// The correct completions (`chosen`), then the incorrect ones (`rejected`).
    pub completions: Vec<String>,
    /// How many of `completions`, from the first, are correct.
    pub correct: usize,
}

/// A row as the judge sees it: its completions in a seeded order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    pub row: Rb2Row,
    /// `order[slot]` is the index in `row.completions` shown at `slot` (A, B, C, ...).
    pub order: Vec<usize>,
    /// The slots of the correct completions, ascending: the golden labels.
    pub gold: Vec<usize>,
}

impl Selectable for Rb2Row {
    fn subset(&self) -> &str {
        &self.subset
    }
    fn id(&self) -> &str {
        &self.id
    }
}

/// Whether a frame is in RewardBench 2's form: `chosen` holds lists, or the row counts are
/// there.
pub fn is_rewardbench2(frame: &Frame) -> bool {
    frame
        .df
        .column("chosen")
        .is_ok_and(|c| matches!(c.dtype(), DataType::List(_)))
        || frame.df.column("num_correct").is_ok()
}

/// The order a row's `n` completions are shown in under `seed`: a ChaCha8 shuffle seeded from
/// the seed and the row id alone, so selecting or dropping other rows never moves this one.
pub fn shown_order(seed: u64, id: &str, n: usize) -> Vec<usize> {
    let mut rng = ChaCha8Rng::seed_from_u64(stable_hash(&[
        b"best-of order",
        &seed.to_le_bytes(),
        id.as_bytes(),
    ]));
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = rng.random_range(0..=i as u64) as usize;
        order.swap(i, j);
    }
    order
}

/// Rows shown in their seeded orders.
pub fn show(rows: Vec<Rb2Row>, seed: u64) -> Vec<Shown> {
    rows.into_iter()
        .map(|row| {
            let order = shown_order(seed, &row.id, row.completions.len());
            let gold = (0..order.len())
                .filter(|&slot| order[slot] < row.correct)
                .collect();
            Shown { row, order, gold }
        })
        .collect()
}

impl Shown {
    /// The completion shown at `slot`.
    pub fn at(&self, slot: usize) -> &str {
        &self.row.completions[self.order[slot]]
    }
}

/// The letter of a slot: A, B, ..., Z, then AA, AB, ...
pub fn slot_letter(slot: usize) -> String {
    let letters = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    if slot < 26 {
        (letters[slot] as char).to_string()
    } else {
        format!(
            "{}{}",
            slot_letter(slot / 26 - 1),
            letters[slot % 26] as char
        )
    }
}

/// The slot a letter names (`slot_letter`'s inverse): A → 0, Z → 25, AA → 26; None for
/// anything but capital letters.
pub fn slot_of(letter: &str) -> Option<usize> {
    if letter.is_empty() || !letter.bytes().all(|b| b.is_ascii_uppercase()) {
        return None;
    }
    letter
        .bytes()
        .try_fold(0usize, |n, b| {
            n.checked_mul(26)?.checked_add(usize::from(b - b'A') + 1)
        })
        .map(|n| n - 1)
}

fn check_schema(frame: &Frame) -> Result<()> {
    let found = frame.column_names();
    for (name, kind) in COLUMNS {
        let Ok(column) = frame.df.column(name) else {
            return Err(input_error(format!(
                "'{}' looks like RewardBench 2 (best-of rows) but has no column '{name}' (columns found: {}); RewardBench 2 files have id, prompt, chosen, rejected, num_correct, num_incorrect, subset",
                frame.path.display(),
                found.join(", ")
            )));
        };
        let dtype = column.dtype();
        let ok = match kind {
            "text" => *dtype == DataType::String,
            "integer" => dtype.is_integer(),
            "a list of texts" => {
                matches!(dtype, DataType::List(inner) if **inner == DataType::String)
            }
            _ => *dtype == DataType::String || dtype.is_integer(),
        };
        if !ok {
            return Err(input_error(format!(
                "'{}', column '{name}': has type {dtype}, expected {kind} as in RewardBench 2's schema",
                frame.path.display()
            )));
        }
    }
    Ok(())
}

/// A list-of-texts column: each row's texts. A null list or a null text is an error.
pub(crate) fn lists(frame: &Frame, name: &str) -> Result<Vec<Vec<String>>> {
    frame
        .list_rows(name)?
        .into_iter()
        .map(|(at, value)| {
            let texts = value.str().map_err(anyhow::Error::from)?;
            texts
                .iter()
                .enumerate()
                .map(|(k, t)| {
                    t.map(str::to_string).ok_or_else(|| {
                        input_error(format!(
                            "{at}: completion {} is missing (null); fill it in or drop it from the list",
                            k + 1
                        ))
                    })
                })
                .collect()
        })
        .collect()
}

fn counts(frame: &Frame, name: &str) -> Result<Vec<i64>> {
    frame.int_labels(name, name)
}

/// Rows from a RewardBench 2 frame, every shape checked.
pub fn from_frame(frame: Frame) -> Result<Vec<Rb2Row>> {
    check_schema(&frame)?;
    let path = frame.path.display().to_string();
    if frame.height() == 0 {
        return Err(input_error(format!(
            "'{path}' has no rows; nothing to rate"
        )));
    }
    let prompt = frame.text("prompt", "--map", "prompt")?;
    let subset = frame.text("subset", "--map", "subset")?;
    let raw_ids = frame.text("id", "--map", "id")?;
    let chosen = lists(&frame, "chosen")?;
    let rejected = lists(&frame, "rejected")?;
    let num_correct = counts(&frame, "num_correct")?;
    let num_incorrect = counts(&frame, "num_incorrect")?;
    let total = match frame.df.column("total_completions") {
        Ok(_) => Some(counts(&frame, "total_completions")?),
        Err(_) => None,
    };
    let mut rows = Vec::with_capacity(frame.height());
    for (row, (chosen, rejected)) in chosen.into_iter().zip(rejected).enumerate() {
        let at = || format!("'{path}', row {} (id '{}')", row + 1, raw_ids[row]);
        if chosen.is_empty() {
            return Err(input_error(format!(
                "{}, column 'chosen': the list is empty; each row needs at least one correct completion",
                at()
            )));
        }
        for (name, list, count, what) in [
            ("chosen", &chosen, num_correct[row], "num_correct"),
            ("rejected", &rejected, num_incorrect[row], "num_incorrect"),
        ] {
            if list.len() as i64 != count {
                return Err(input_error(format!(
                    "{}: '{name}' holds {} completion{} but {what} says {count}; fix {what} or the list",
                    at(),
                    list.len(),
                    if list.len() == 1 { "" } else { "s" }
                )));
            }
        }
        let n = chosen.len() + rejected.len();
        if let Some(total) = &total {
            if total[row] != n as i64 {
                return Err(input_error(format!(
                    "{}: 'chosen' and 'rejected' hold {n} completions but total_completions says {}; fix total_completions or the lists",
                    at(),
                    total[row]
                )));
            }
        }
        if subset[row] == TIES && ties_number(&raw_ids[row]).is_none() {
            return Err(input_error(format!(
                "'{path}', column 'id', row {}: the Ties id '{}' is neither ref:N nor tied:N; Ties rows come as ref:N (one correct answer) and tied:N (several) for the same question N",
                row + 1,
                raw_ids[row]
            )));
        }
        let correct = chosen.len();
        let mut completions = chosen;
        completions.extend(rejected);
        rows.push(Rb2Row {
            id: format!("{}-{}", subset[row], raw_ids[row]),
            subset: subset[row].clone(),
            prompt: prompt[row].clone(),
            completions,
            correct,
        });
    }
    let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
    crate::dataset::pairs::check_unique_ids(&frame.path, &ids)?;
    Ok(rows)
}

/// A Ties id's question number and kind: `ref:N` → (N, false), `tied:N` → (N, true).
pub fn ties_number(id: &str) -> Option<(u64, bool)> {
    let (kind, n) = id.split_once(':')?;
    let tied = match kind {
        "ref" => false,
        "tied" => true,
        _ => return None,
    };
    Some((n.parse().ok()?, tied))
}

/// Reads RewardBench 2 parquet bytes (the embedded sample).
pub fn from_bytes(name: &str, bytes: &'static [u8]) -> Result<Vec<Rb2Row>> {
    let df = ParquetReader::new(std::io::Cursor::new(bytes)).finish()?;
    from_frame(Frame {
        path: name.into(),
        df,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_are_permutations_fixed_by_seed_and_id() {
        let a = shown_order(42, "Math-7", 4);
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, [0, 1, 2, 3]);
        assert_eq!(a, shown_order(42, "Math-7", 4), "reproducible");
        // Every slot holds the correct completion about equally often.
        let mut at = [0usize; 4];
        for i in 0..4000 {
            let order = shown_order(42, &format!("Math-{i}"), 4);
            at[order.iter().position(|&k| k == 0).expect("shown")] += 1;
        }
        assert!(at.iter().all(|&n| (900..=1100).contains(&n)), "{at:?}");
        // Another seed moves rows.
        let moved = (0..100)
            .filter(|i| {
                shown_order(42, &format!("Math-{i}"), 4) != shown_order(7, &format!("Math-{i}"), 4)
            })
            .count();
        assert!(moved > 80, "{moved}");
    }

    #[test]
    fn gold_is_the_slots_of_the_correct_completions() {
        let row = Rb2Row {
            id: "Ties-tied:1".into(),
            subset: TIES.into(),
            prompt: "p".into(),
            completions: ["11", "13", "17", "15", "12"].map(String::from).to_vec(),
            correct: 3,
        };
        let shown = show(vec![row], 42).remove(0);
        assert_eq!(shown.gold.len(), 3);
        for slot in 0..5 {
            let correct = ["11", "13", "17"].contains(&shown.at(slot));
            assert_eq!(shown.gold.contains(&slot), correct, "slot {slot}");
        }
    }

    #[test]
    fn letters_and_ties_ids() {
        assert_eq!(
            [0, 3, 25, 26, 27].map(slot_letter),
            ["A", "D", "Z", "AA", "AB"].map(String::from)
        );
        for slot in [0, 3, 25, 26, 27, 51, 52, 701, 702] {
            assert_eq!(slot_of(&slot_letter(slot)), Some(slot), "{slot}");
        }
        assert_eq!(
            (slot_of(""), slot_of("a"), slot_of("A1")),
            (None, None, None)
        );
        assert_eq!(ties_number("ref:12"), Some((12, false)));
        assert_eq!(ties_number("tied:3"), Some((3, true)));
        assert_eq!(ties_number("tie:3"), None);
        assert_eq!(ties_number("ref:x"), None);
    }
}
