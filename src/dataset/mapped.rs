//! Pairs from a generic file by column mapping (`--map prompt=...,response1=...,label=A+B+C`):
//! the fields' columns, each annotator's label through `--gold-map`, and long form (rows that
//! repeat an id, a column naming the annotation) with its panel by annotator.

use super::frame::Frame;
use super::labels::NoMajority;
use super::pairs::{self, Pair};
use crate::error::input_error;
use anyhow::Result;
use std::collections::HashMap;

/// How a generic pairwise file maps onto pairs: `--map prompt=instruction+input,
/// response1=response_a,response2=response_b,label=winner,id=idx,subset=category` and
/// `--gold-map 1=-1,2=1,0=0`. `+` joins text columns with a blank line; for `label`, it takes
/// the majority of several annotator columns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mapping {
    pub fields: HashMap<String, Vec<String>>,
    /// Source label (as text) → gold label (-1, 0, 1).
    pub gold: HashMap<String, i64>,
    /// Items whose annotators (label=A+B+C) have no majority: left out, or a tie.
    pub no_majority: NoMajority,
}

const FIELDS: [&str; 9] = [
    "prompt",
    "response1",
    "response2",
    "label",
    "id",
    "subset",
    "reference",
    "generator1",
    "generator2",
];

impl Mapping {
    pub fn parse(map: &[String], gold_map: &[String]) -> Result<Self> {
        let mut fields = HashMap::new();
        for item in map {
            let (field, columns) = item.split_once('=').ok_or_else(|| {
                input_error(format!(
                    "--map '{item}': expected FIELD=COLUMN, e.g. response1=response_a"
                ))
            })?;
            if !FIELDS.contains(&field) {
                return Err(input_error(format!(
                    "--map '{item}': unknown field '{field}'; fields are {}",
                    FIELDS.join(", ")
                )));
            }
            fields.insert(
                field.to_string(),
                columns.split('+').map(str::to_string).collect(),
            );
        }
        let mut gold = HashMap::new();
        for item in gold_map {
            let (from, to) = item.rsplit_once('=').ok_or_else(|| {
                input_error(format!(
                    "--gold-map '{item}': expected VALUE=GOLD, e.g. 1=-1 or A>B=-1"
                ))
            })?;
            let to: i64 = to
                .trim()
                .parse()
                .ok()
                .filter(|v| [-1, 0, 1].contains(v))
                .ok_or_else(|| {
                    input_error(format!(
                        "--gold-map '{item}': the gold label must be -1, 0 or 1"
                    ))
                })?;
            gold.insert(from.to_string(), to);
        }
        // Without label=COL the pairs have no gold: rated and kept, or labelled by people
        // (`raterlab label`, then `--labels STORE`).
        for required in ["response1", "response2"] {
            if !fields.contains_key(required) {
                return Err(input_error(format!(
                    "--map lacks '{required}'; a pairwise file needs at least response1=COL,response2=COL (and label=COL for its gold)"
                )));
            }
        }
        Ok(Self {
            fields,
            gold,
            no_majority: NoMajority::Drop,
        })
    }

    pub fn columns(&self, field: &str) -> Option<&[String]> {
        self.fields.get(field).map(Vec::as_slice)
    }
}

/// The subset of the items of a file without a subset column.
pub const DEFAULT_SUBSET: &str = "data";

/// A mapped file's pairs, the rows whose annotators had no majority, and the annotators (the
/// label columns, or long form's by annotator).
#[derive(Debug)]
pub struct Mapped {
    pub pairs: Vec<Pair>,
    pub no_majority: usize,
    pub annotators: Vec<String>,
}

fn text_values(frame: &Frame, columns: &[String], what: &str) -> Result<Vec<String>> {
    let parts: Vec<Vec<String>> = columns
        .iter()
        .map(|c| frame.text(c, "--map", what))
        .collect::<Result<_>>()?;
    Ok((0..frame.height())
        .map(|row| {
            parts
                .iter()
                .map(|p| p[row].as_str())
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join("\n\n")
        })
        .collect())
}

/// The gold label of a source value: through `--gold-map`, else an integer in -1..=1.
pub(super) fn gold_of(mapping: &Mapping, value: &str) -> Option<i64> {
    if let Some(&g) = mapping.gold.get(value) {
        return Some(g);
    }
    if !mapping.gold.is_empty() {
        return None;
    }
    value
        .trim()
        .parse::<i64>()
        .ok()
        .filter(|v| [-1, 0, 1].contains(v))
}

/// Pairs from a generic file by column mapping.
pub fn from_mapped(frame: &Frame, mapping: &Mapping) -> Result<Mapped> {
    let policy = mapping.no_majority;
    let n = frame.height();
    if n == 0 {
        return Err(input_error(format!(
            "'{}' has no rows; nothing to rate",
            frame.path.display()
        )));
    }
    let get = |field: &str| mapping.columns(field);
    let prompt = match get("prompt") {
        Some(cols) => text_values(frame, cols, "prompt")?,
        None => vec![String::new(); n],
    };
    let response1 = text_values(frame, get("response1").unwrap_or_default(), "response")?;
    let response2 = text_values(frame, get("response2").unwrap_or_default(), "response")?;
    // Without a subset column every item is in one subset, named the same whatever the
    // file's name (renaming a file changes nothing but the run's name).
    let subset = match get("subset") {
        Some(cols) => text_values(frame, cols, "subset")?,
        None => vec![DEFAULT_SUBSET.to_string(); n],
    };
    let reference = match get("reference") {
        Some(cols) => Some(text_values(frame, cols, "reference")?),
        None => None,
    };
    let generators = match (get("generator1"), get("generator2")) {
        (Some(a), Some(b)) => Some((
            text_values(frame, a, "generator")?,
            text_values(frame, b, "generator")?,
        )),
        (None, None) => None,
        _ => {
            return Err(input_error(
                "--map names one generator; name both, e.g. generator1=generator_1,generator2=generator_2",
            ))
        }
    };
    let raw_ids = match get("id") {
        Some(cols) => text_values(frame, cols, "id")?,
        None => (0..n).map(|i| i.to_string()).collect(),
    };
    let label_cols = get("label").unwrap_or_default();
    let labels: Vec<Vec<Option<String>>> = label_cols
        .iter()
        .map(|c| frame.optional_text(c, "--map label=COL", "label"))
        .collect::<Result<_>>()?;
    // Each row's votes: one per label column (None: that annotator's cell is empty); none when
    // every label cell of the row is empty (the item is unlabelled: rated, kept, in no
    // agreement measure).
    let empty = |v: &Option<String>| v.as_deref().is_none_or(|t| t.trim().is_empty());
    let mut row_votes: Vec<Option<Vec<Option<i64>>>> = Vec::with_capacity(n);
    for row in 0..n {
        if labels.iter().all(|values| empty(&values[row])) {
            row_votes.push(None);
            continue;
        }
        let mut votes: Vec<Option<i64>> = Vec::with_capacity(labels.len());
        for (col, values) in label_cols.iter().zip(&labels) {
            if empty(&values[row]) {
                votes.push(None);
                continue;
            }
            let value = values[row].as_deref().unwrap_or("");
            let gold = gold_of(mapping, value).ok_or_else(|| {
                let at = format!("'{}', column '{col}', row {}", frame.path.display(), row + 1);
                match mapping.gold.is_empty() && value.trim().parse::<f64>().is_err() {
                    true => names_need_sides(&at, value, &labels),
                    false => input_error(format!(
                        "{at}: label '{value}' has no gold label; map it with --gold-map (e.g. --gold-map '{value}=-1'), gold labels are -1 (response 1 better), 0 (tie), 1 (response 2 better)"
                    )),
                }
            })?;
            votes.push(Some(gold));
        }
        row_votes.push(Some(votes));
    }
    // Long form (rows repeating an id, a column naming the annotation, as AlpacaEval publishes
    // its cross-annotations): an item's first N rows count, N the fewest any item has, and the
    // panel's annotators are the column's values (`long::by_annotator`).
    let groups = long_form_groups(frame, &raw_ids, label_cols.len(), get("id").is_some());
    let per_item = groups.as_ref().and_then(|g| g.iter().map(Vec::len).min());
    let groups = groups.unwrap_or_else(|| (0..n).map(|r| vec![r]).collect());
    let panel = match per_item {
        Some(k) => Some(long_form_panel(frame, &groups, k, &row_votes)?),
        None => None,
    };
    let mut pairs = Vec::with_capacity(groups.len());
    let mut no_majority = 0;
    for (item, rows) in groups.iter().enumerate() {
        let row = rows[0];
        let votes: Option<Vec<Option<i64>>> = match per_item {
            Some(k) => rows
                .iter()
                .take(k)
                .map(|&r| row_votes[r].as_ref().map(|v| v[0]))
                .collect(),
            None => row_votes[row].clone(),
        };
        let majority = votes
            .as_ref()
            .map(|votes| crate::metrics::raters::majority(votes));
        let (votes, vote_order) = match (&panel, votes) {
            (Some(p), Some(_)) => (
                Some(p.votes[item].clone()),
                p.order.get(item).cloned().unwrap_or_default(),
            ),
            (_, votes) => (votes, Vec::new()),
        };
        let (gold, votes) = match (majority, votes) {
            (None, _) | (_, None) => (None, Vec::new()),
            (Some(Some(gold)), Some(votes)) => (Some(gold), votes),
            (Some(None), Some(votes)) => {
                no_majority += 1;
                match policy {
                    NoMajority::Drop => continue,
                    NoMajority::Tie => (Some(0), votes),
                }
            }
        };
        pairs.push(Pair {
            history: Vec::new(),
            // With a mapped subset, ids are `{subset}-{id}` as for reward-bench; without one the
            // file's own ids are kept, so they still join with other files of the same data.
            id: if get("subset").is_some() {
                format!("{}-{}", subset[row], raw_ids[row])
            } else {
                raw_ids[row].clone()
            },
            subset: subset[row].clone(),
            prompt: prompt[row].clone(),
            first: response1[row].clone(),
            second: response2[row].clone(),
            gold,
            reference: reference.as_ref().map(|r| r[row].clone()),
            randomize: false,
            votes: if label_cols.len() > 1 || per_item.is_some() {
                votes
            } else {
                Vec::new()
            },
            vote_order,
            generators: generators
                .as_ref()
                .map(|(a, b)| [a[row].clone(), b[row].clone()]),
        });
    }
    // Without an id column, an item's id is its content's (`pairs::content_id`), not its row.
    if get("id").is_none() {
        pairs::with_content_ids(&mut pairs, get("subset").is_some());
    }
    let ids: Vec<String> = pairs.iter().map(|p| p.id.clone()).collect();
    pairs::check_unique_ids(&frame.path, &ids)?;
    Ok(Mapped {
        pairs,
        no_majority,
        annotators: match panel {
            Some(p) => p.names,
            None if label_cols.len() > 1 => label_cols.to_vec(),
            None => Vec::new(),
        },
    })
}

/// Long form's items: the rows of each id in first-seen order, when one label column is
/// mapped, ids are mapped and repeat, and the file has a column naming the annotation
/// (`annotator_index`, `seed`, `sample`); None otherwise (a repeated id stays an error).
fn long_form_groups(
    frame: &Frame,
    ids: &[String],
    label_columns: usize,
    ids_mapped: bool,
) -> Option<Vec<Vec<usize>>> {
    if label_columns != 1 || !ids_mapped || super::long::annotation_column(frame, None).is_none() {
        return None;
    }
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (row, id) in ids.iter().enumerate() {
        match index.get(id.as_str()) {
            Some(&g) => groups[g].push(row),
            None => {
                index.insert(id, groups.len());
                groups.push(vec![row]);
            }
        }
    }
    (groups.len() < ids.len()).then_some(groups)
}

/// A label by name where pairs are rated: the judge's verdict says which response is better, so
/// a name means something only once it is given a side. The error lists the names the label
/// columns hold and a map to start from (Chatbot Arena's winner names have their sides).
fn names_need_sides(at: &str, value: &str, labels: &[Vec<Option<String>>]) -> anyhow::Error {
    let mut names: Vec<&str> = labels
        .iter()
        .flatten()
        .filter_map(|v| v.as_deref().map(str::trim))
        .filter(|v| !v.is_empty() && v.parse::<f64>().is_err())
        .collect();
    names.sort_unstable();
    names.dedup();
    let side = |name: &str| match name.to_lowercase().as_str() {
        "model_a" | "a" | "response_1" | "response1" => "-1",
        "model_b" | "b" | "response_2" | "response2" => "1",
        n if n.starts_with("tie") => "0",
        _ => "SIDE",
    };
    let shown: Vec<String> = names
        .iter()
        .take(8)
        .map(|n| format!("{n}={}", side(n)))
        .collect();
    let more = match names.len() {
        n if n > 8 => format!(" and {} more", n - 8),
        _ => String::new(),
    };
    input_error(format!(
        "{at}: label '{value}' is a name, and a judge's verdict on a pair says which response is better (-1: response 1, 0: a tie, 1: response 2), so each name needs its side: --gold-map '{}'{more} (SIDE: -1, 0 or 1)",
        shown.join(",")
    ))
}

/// Long form's panel: each item's first `k` rows placed by the annotation column's values.
fn long_form_panel(
    frame: &Frame,
    groups: &[Vec<usize>],
    k: usize,
    row_votes: &[Option<Vec<Option<i64>>>],
) -> Result<super::long::Panel> {
    let column = super::long::annotation_column(frame, None);
    let who_by_row = match &column {
        Some(c) => frame.text(c, "annotator", "annotator")?,
        None => vec![String::new(); frame.height()],
    };
    let pick = |rows: &[usize]| rows.iter().take(k).copied().collect::<Vec<_>>();
    let who: Vec<Vec<String>> = groups
        .iter()
        .map(|rows| pick(rows).iter().map(|&r| who_by_row[r].clone()).collect())
        .collect();
    let votes: Vec<Vec<Option<i64>>> = groups
        .iter()
        .map(|rows| {
            pick(rows)
                .iter()
                .map(|&r| row_votes[r].as_ref().and_then(|v| v[0]))
                .collect()
        })
        .collect();
    Ok(super::long::by_annotator(column.as_deref(), &who, &votes))
}
