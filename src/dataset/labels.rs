//! Aligned (gold, rating) label lists for `analyze`: from one file holding both columns, or
//! from a gold file and a ratings file joined on their ids.

use super::frame::{Frame, LabelReading};
use crate::error::input_error;
use crate::metrics::{align, Labels};
use anyhow::Result;
use std::collections::HashMap;

/// Which columns hold what.
#[derive(Debug, Clone, Default)]
pub struct ColumnNames {
    /// `None`: the column `id` when present; in the one-file form rows stand in for ids.
    pub id: Option<String>,
    /// The ratings file's id column in the two-file form, when it differs from `id`.
    pub ratings_id: Option<String>,
    pub gold: String,
    pub rating: String,
    pub group: Option<String>,
    /// A column of probabilities of the positive label (`analyze --probability`).
    pub probability: Option<String>,
    /// A second judge's rating column (`analyze --compare-col`).
    pub compare: Option<String>,
}

/// Aligned pairs ready for the metrics (`Default`: none).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LabelPairs {
    pub gold: Vec<i64>,
    pub rating: Vec<i64>,
    /// Group of each pair (e.g. the reward-bench subset), when a group column was named.
    pub groups: Option<Groups>,
    pub only_in_gold: usize,
    pub only_in_ratings: usize,
    /// The ratings of items without a gold label (one file: an empty gold cell; two files: a
    /// rating whose id has no gold row, or an empty one), in file order (two files: id
    /// order): rated, counted, in no agreement measure.
    pub unlabelled: Vec<i64>,
    /// The rows of `unlabelled` in the file (one-file form; empty otherwise).
    pub unlabelled_rows: Vec<usize>,
    /// Rows left out because their label could not be read (`--unreadable drop`).
    pub dropped_gold: usize,
    pub dropped_ratings: usize,
    /// Each pair's probability, when a probability column was named (one-file form).
    pub probability: Option<Vec<Option<f64>>>,
    /// Each pair's second rating, read as the ratings are, when `--compare-col` was named
    /// (one-file form; None where unreadable under `--unreadable drop`).
    pub compare: Option<Vec<Option<i64>>>,
    /// Each pair's row in the file (one-file form, when rows were left out); empty: pair k is
    /// row k (every row kept, or the two-file form).
    pub rows: Vec<usize>,
}

pub use super::columns::Groups;

fn non_empty(frame: &Frame) -> Result<()> {
    if frame.height() == 0 {
        return Err(input_error(format!(
            "'{}' has no rows; nothing to analyze",
            frame.path.display()
        )));
    }
    Ok(())
}

/// Fails on the first label outside `labels`, naming file, column and row.
pub(crate) fn check_in(
    frame: &Frame,
    column: &str,
    values: &[Option<i64>],
    labels: Option<&Labels>,
) -> Result<()> {
    let Some(labels) = labels else { return Ok(()) };
    match values.iter().position(|v| v.is_some_and(|v| !labels.contains(v))) {
        None => Ok(()),
        Some(row) => Err(input_error(format!(
            "'{}', column '{column}', row {}: label {} is not in the label set {labels}; pass --labels with every label used",
            frame.path.display(),
            row + 1,
            values[row].unwrap_or_default()
        ))),
    }
}

/// A label column: strict integers, or through `--label-map` / `--unreadable drop` (None: left out).
fn read_labels(
    frame: &Frame,
    column: &str,
    flag: &str,
    reading: &LabelReading,
    labels: Option<&Labels>,
) -> Result<Vec<Option<i64>>> {
    let values = if reading.is_plain() {
        frame.int_labels_or_missing(column, flag, false)?
    } else {
        frame.mapped_labels(column, flag, reading)?
    };
    check_in(frame, column, &values, labels)?;
    Ok(values)
}

/// The gold column: `read_labels`, where an empty cell (null or blank) is no error but an
/// unlabelled row; and which rows those are.
pub fn read_gold(
    frame: &Frame,
    column: &str,
    reading: &LabelReading,
    labels: Option<&Labels>,
) -> Result<(Vec<Option<i64>>, Vec<bool>)> {
    let flag = "--gold-col";
    let missing = frame.blank(column, flag)?;
    let values = if reading.is_plain() {
        frame.int_labels_or_missing(column, flag, true)?
    } else {
        frame.votes(column, flag, reading)?
    };
    check_in(frame, column, &values, labels)?;
    Ok((values, missing))
}

fn ids(frame: &Frame, name: Option<&str>, required: bool) -> Result<Option<Vec<String>>> {
    let column = name.unwrap_or("id");
    let present = frame.df.column(column).is_ok();
    if !present && !required && name.is_none() {
        return Ok(None);
    }
    let ids = frame.text(column, "--id-col", "id")?;
    frame.check_unique(&ids, column)?;
    Ok(Some(ids))
}

/// A 64-bit hash of an id: XXH3 (a word at a time; FNV-1a's byte-at-a-time chain took most of
/// the check on 2·10^6 ids). Only a filter: a repeated hash sends the check to the exact path,
/// so a collision costs time, never correctness.
fn id_hash(text: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(text.as_bytes())
}

/// Checks an id column for duplicates without materializing the ids (one-file form); the
/// slow path that names the rows runs only when there is a duplicate.
/// One table's ids unique (`name`, else `id` when the table has it), or an error naming the
/// first id seen twice. `load_one` and `load_annotators` leave it to their callers, which may
/// then let the column go.
pub fn check_ids(frame: &Frame, name: Option<&str>) -> Result<()> {
    let column = name.unwrap_or("id");
    let unique = match frame.df.column(column) {
        Err(_) if name.is_none() => return Ok(()),
        Err(_) => false,
        Ok(c) => c
            .as_materialized_series()
            .cast(&polars::prelude::DataType::String)
            .ok()
            .is_some_and(|text| {
                text.str().is_ok_and(|text| {
                    // Sorting hashes reads memory in order; a hash table of 10^6 ids does not.
                    let hashes: Option<Vec<u64>> = text.iter().map(|v| v.map(id_hash)).collect();
                    hashes.is_some_and(|mut h| {
                        h.sort_unstable();
                        h.windows(2).all(|w| w[0] != w[1])
                    })
                })
            }),
    };
    if unique {
        return Ok(());
    }
    ids(frame, name, true).map(|_| ())
}

/// One table (a file, or values a program gave) with a gold column and a rating column. Its
/// ids are the caller's to check (`check_ids`).
pub fn load_one(
    frame: &Frame,
    names: &ColumnNames,
    reading: &(LabelReading, LabelReading),
    labels: Option<&Labels>,
) -> Result<LabelPairs> {
    non_empty(frame)?;
    let (gold, missing) = read_gold(frame, &names.gold, &reading.0, labels)?;
    let rating = read_labels(frame, &names.rating, "--rating-col", &reading.1, labels)?;
    // Rows without a gold label whose rating reads: unlabelled, kept apart.
    let unlabelled_rows: Vec<usize> = (0..rating.len())
        .filter(|&r| missing[r] && rating[r].is_some())
        .collect();
    let unlabelled: Vec<i64> = unlabelled_rows.iter().filter_map(|&r| rating[r]).collect();
    let group_names = match &names.group {
        Some(col) => Some(frame.groups(col, "--group-col")?),
        None => None,
    };
    let probability = match &names.probability {
        Some(col) => Some(frame.probabilities(col, "--probability")?),
        None => None,
    };
    let compare = match &names.compare {
        Some(col) => Some(read_labels(
            frame,
            col,
            "--compare-col",
            &reading.1,
            labels,
        )?),
        None => None,
    };
    let keep: Vec<bool> = gold
        .iter()
        .zip(&rating)
        .map(|(g, r)| g.is_some() && r.is_some())
        .collect();
    let dropped_gold = gold
        .iter()
        .zip(&missing)
        .filter(|(g, &m)| g.is_none() && !m)
        .count();
    let dropped_ratings = rating.iter().filter(|r| r.is_none()).count();
    let kept = |values: Vec<Option<i64>>| -> Vec<i64> { values.into_iter().flatten().collect() };
    let every = keep.iter().all(|&k| k);
    let (gold, rating) = if every {
        (kept(gold), kept(rating))
    } else {
        let pick = |v: &[Option<i64>]| {
            v.iter()
                .zip(&keep)
                .filter(|(_, &k)| k)
                .filter_map(|(x, _)| *x)
                .collect()
        };
        (pick(&gold), pick(&rating))
    };
    // Every row kept: pair k is row k, and no list says so (it would be a word per row).
    let rows: Vec<usize> = if every {
        Vec::new()
    } else {
        (0..keep.len()).filter(|&r| keep[r]).collect()
    };
    let groups = group_names.map(|all| {
        if every {
            all
        } else {
            all.pick(rows.iter().copied())
        }
    });
    let probability = probability.map(|p| {
        p.into_iter()
            .zip(&keep)
            .filter(|(_, &k)| k)
            .map(|(p, _)| p)
            .collect()
    });
    let compare = compare.map(|c| {
        c.into_iter()
            .zip(&keep)
            .filter(|(_, &k)| k)
            .map(|(c, _)| c)
            .collect()
    });
    // Rows without gold but with a rating are the unlabelled set (`analyze --estimate`).
    if gold.is_empty() && unlabelled.is_empty() {
        return Err(input_error(format!(
            "'{}': no row has a readable gold label and rating; check --gold-map and --rating-map",
            frame.path.display()
        )));
    }
    Ok(LabelPairs {
        gold,
        rating,
        groups,
        only_in_gold: 0,
        only_in_ratings: 0,
        unlabelled,
        unlabelled_rows,
        dropped_gold,
        dropped_ratings,
        probability,
        compare,
        rows,
    })
}

/// A gold file (id, gold) and a ratings file (id, rating), joined on the sorted intersection
/// of their ids. The group column is looked up in the gold file, then in the ratings file.
pub fn load_two(
    gold_frame: &Frame,
    ratings_frame: &Frame,
    names: &ColumnNames,
    reading: &(LabelReading, LabelReading),
    labels: Option<&Labels>,
) -> Result<LabelPairs> {
    let (gold_path, ratings_path) = (&gold_frame.path, &ratings_frame.path);
    non_empty(gold_frame)?;
    non_empty(ratings_frame)?;
    let (gold, missing) = read_gold(gold_frame, &names.gold, &reading.0, labels)?;
    let rating = read_labels(
        ratings_frame,
        &names.rating,
        "--rating-col",
        &reading.1,
        labels,
    )?;
    let gold_ids = ids(gold_frame, names.id.as_deref(), true)?.unwrap_or_default();
    let ratings_id = names.ratings_id.as_deref().or(names.id.as_deref());
    let rating_ids = ids(ratings_frame, ratings_id, true)?.unwrap_or_default();
    let group_by_id: Option<HashMap<String, String>> = match &names.group {
        None => None,
        Some(col) => {
            let (frame, ids) = if gold_frame.df.column(col).is_ok() {
                (gold_frame, &gold_ids)
            } else {
                (ratings_frame, &rating_ids)
            };
            let values = frame.text(col, "--group-col", "group")?;
            Some(ids.iter().cloned().zip(values).collect())
        }
    };
    let dropped_gold = gold
        .iter()
        .zip(&missing)
        .filter(|(g, &m)| g.is_none() && !m)
        .count();
    let dropped_ratings = rating.iter().filter(|r| r.is_none()).count();
    let gold_pairs: Vec<(String, i64)> = gold_ids
        .into_iter()
        .zip(gold)
        .filter_map(|(id, g)| g.map(|g| (id, g)))
        .collect();
    let rating_pairs: Vec<(String, i64)> = rating_ids
        .into_iter()
        .zip(rating)
        .filter_map(|(id, r)| r.map(|r| (id, r)))
        .collect();
    let aligned = align(&gold_pairs, &rating_pairs);
    if aligned.ids.is_empty() {
        return Err(input_error(format!(
            "no id appears in both '{}' and '{}' ({} and {} ids); check that both files use the same ids, or name the id columns with --id-col and --ratings-id-col",
            gold_path.display(),
            ratings_path.display(),
            gold_pairs.len(),
            rating_pairs.len()
        )));
    }
    let groups = group_by_id.map(|by_id| {
        let names: Vec<String> = aligned
            .ids
            .iter()
            .map(|id| by_id.get(id).cloned().unwrap_or_default())
            .collect();
        Groups::from_names(&names)
    });
    Ok(LabelPairs {
        gold: aligned.gold,
        rating: aligned.rating,
        groups,
        only_in_gold: aligned.only_in_gold,
        only_in_ratings: aligned.only_in_ratings,
        // A rating whose id has no gold row, or an empty gold cell.
        unlabelled: aligned.unlabelled,
        unlabelled_rows: Vec::new(),
        dropped_gold,
        dropped_ratings,
        probability: None,
        compare: None,
        rows: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::id_hash;

    #[test]
    fn id_hash_separates_structured_ids() {
        // Regression: a weaker word-wise hash collided on ids like these, sending every
        // 2·10^6-row file down the slow exact path.
        let mut hashes: Vec<u64> = (0..200_000)
            .flat_map(|i| {
                [
                    format!("alpacaeval-easy-{i}"),
                    format!("{i}"),
                    format!("hep-rust-{i}"),
                ]
            })
            .map(|id| id_hash(&id))
            .collect();
        hashes.sort_unstable();
        assert!(hashes.windows(2).all(|w| w[0] != w[1]));
    }
}

/// What to do with an item whose annotators have no majority (no unique most common label).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NoMajority {
    #[default]
    /// Left out of the judge-vs-gold figures (still counted, and in the annotator statistics).
    Drop,
    /// Scored as a tie (label 0).
    Tie,
}

impl std::str::FromStr for NoMajority {
    type Err = String;
    fn from_str(name: &str) -> std::result::Result<Self, String> {
        match name {
            "drop" => Ok(NoMajority::Drop),
            "tie" => Ok(NoMajority::Tie),
            other => Err(format!(
                "'{other}': use drop (leave such items out of the judge's scores) or tie (score them as a tie, 0)"
            )),
        }
    }
}

impl NoMajority {
    pub fn name(self) -> &'static str {
        match self {
            NoMajority::Drop => "drop",
            NoMajority::Tie => "tie",
        }
    }
}

/// Several annotators' labels per item and a judge's rating, from one file.
#[derive(Debug, Clone, PartialEq)]
pub struct Annotated {
    /// Gold (the annotators' majority, or a tie by the policy) against the judge, for the
    /// items that have both.
    pub pairs: LabelPairs,
    /// The annotator columns, in the order given.
    pub names: Vec<String>,
    /// Every row's votes (`None`: no vote), in file order.
    pub votes: Vec<Vec<Option<i64>>>,
    /// Every row's judge rating (`None`: missing or left out as unreadable): the first rating
    /// column's.
    pub judge: Vec<Option<i64>>,
    /// The other rating columns' ratings, in the order given (`--rating-col a,b,c`).
    pub other_judges: Vec<Vec<Option<i64>>>,
    /// Every row's gold: the majority, or under `--no-majority tie` a tie (`None`: no gold).
    pub gold: Vec<Option<i64>>,
    /// Rows whose annotators have no majority.
    pub no_majority: usize,
    /// Labels read by name (categories as text, none mapped or numeric): `label_names[k]` is
    /// read as k. Empty when the labels are numbers or mapped.
    pub label_names: Vec<String>,
}

/// The names of categories given as text in `columns` of `frame`: their distinct values, when
/// no map is given and no value is a number (sorted; empty otherwise). A mix of numbers and
/// names, or a map, is left to the maps' usual reading and error.
pub fn label_names(
    frame: &Frame,
    columns: &[(&str, &str)],
    reading: &(LabelReading, LabelReading),
) -> Result<Vec<String>> {
    let mut names = std::collections::BTreeSet::new();
    if !(reading.0.map.is_empty() && reading.1.map.is_empty()) {
        return Ok(Vec::new());
    }
    // A column of numbers holds no names: nothing to cast to text.
    for &(name, flag) in columns {
        let dtype = frame.column(name, flag)?.dtype().clone();
        if dtype.is_primitive_numeric() {
            return Ok(Vec::new());
        }
    }
    for &(name, flag) in columns {
        let text = frame.as_text(name, flag, "not labels")?;
        let text = text.str().map_err(anyhow::Error::from)?;
        for v in text
            .iter()
            .flatten()
            .map(str::trim)
            .filter(|v| !v.is_empty())
        {
            if v.parse::<f64>().is_ok() {
                return Ok(Vec::new());
            }
            if !names.contains(v) {
                names.insert(v.to_string());
            }
        }
    }
    Ok(names.into_iter().collect())
}

/// One table with a column per annotator and the judge's rating column; gold is the
/// annotators' majority. `--gold-map` reads the annotator columns.
pub fn load_annotators(
    frame: &Frame,
    names: &ColumnNames,
    annotators: &[String],
    reading: &(LabelReading, LabelReading),
    labels: Option<&Labels>,
    policy: NoMajority,
) -> Result<Annotated> {
    if annotators.len() < 2 {
        return Err(input_error(format!(
            "--annotators needs two or more columns (got {}); name every annotator's column, e.g. --annotators a1,a2,a3",
            annotators.len()
        )));
    }
    non_empty(frame)?;
    // Categories by name ('Positive', 'model_a'): every column text that no map reads and no
    // value a number, each name read as its place in sorted order, alike in every column.
    let judges: Vec<&str> = names.rating.split(',').map(str::trim).collect();
    let mut all: Vec<(&str, &str)> = (annotators.iter())
        .map(|a| (a.as_str(), "--annotators"))
        .collect();
    all.extend(judges.iter().map(|j| (*j, "--rating-col")));
    let label_names = label_names(frame, &all, reading)?;
    let coded;
    let reading = if label_names.is_empty() {
        reading
    } else {
        let code = |r: &LabelReading| {
            let mut r = r.clone();
            r.map
                .extend((label_names.iter().enumerate()).map(|(k, n)| (n.clone(), k as i64)));
            r
        };
        coded = (code(&reading.0), code(&reading.1));
        &coded
    };
    let mut columns = Vec::with_capacity(annotators.len());
    for name in annotators {
        let values = frame.votes(name, "--annotators", &reading.0)?;
        check_in(frame, name, &values, labels)?;
        columns.push(values);
    }
    let mut read_judges = judges
        .iter()
        .map(|column| read_labels(frame, column, "--rating-col", &reading.1, labels));
    let judge = read_judges.next().unwrap_or_else(|| Ok(Vec::new()))?;
    let other_judges = read_judges.collect::<Result<Vec<_>>>()?;
    let rows = frame.height();
    let votes: Vec<Vec<Option<i64>>> = (0..rows)
        .map(|row| columns.iter().map(|c| c[row]).collect())
        .collect();
    let group_names = match &names.group {
        Some(col) => Some(frame.text(col, "--group-col", "group")?),
        None => None,
    };
    let (mut gold, mut rating, mut kept_groups) = (Vec::new(), Vec::new(), Vec::new());
    let (mut no_majority, mut gold_of_row) = (0, Vec::with_capacity(rows));
    for (row, v) in votes.iter().enumerate() {
        let g = match crate::metrics::raters::majority(v) {
            Some(g) => Some(g),
            None => {
                no_majority += 1;
                (policy == NoMajority::Tie).then_some(0)
            }
        };
        gold_of_row.push(g);
        if let (Some(g), Some(r)) = (g, judge[row]) {
            gold.push(g);
            rating.push(r);
            if let Some(groups) = &group_names {
                kept_groups.push(groups[row].clone());
            }
        }
    }
    if gold.is_empty() {
        return Err(input_error(format!(
            "'{}': no row has both an annotator majority and a readable rating in '{}'; check --annotators, --rating-col and --no-majority",
            frame.path.display(),
            judges[0]
        )));
    }
    Ok(Annotated {
        pairs: LabelPairs {
            gold,
            rating,
            groups: group_names.map(|_| Groups::from_names(&kept_groups)),
            only_in_gold: 0,
            only_in_ratings: 0,
            unlabelled: Vec::new(),
            unlabelled_rows: Vec::new(),
            dropped_gold: 0,
            dropped_ratings: judge.iter().filter(|r| r.is_none()).count(),
            probability: None,
            compare: None,
            rows: Vec::new(),
        },
        names: annotators.to_vec(),
        votes,
        judge,
        other_judges,
        gold: gold_of_row,
        no_majority,
        label_names,
    })
}
