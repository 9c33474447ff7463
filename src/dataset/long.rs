//! Several annotations per item in long form (AlpacaEval's cross-annotations, MT-Bench's human
//! judgments): rows repeat an item's key, and a column names the annotation (`annotator_index`,
//! `seed`, `sample`, or `--annotator-col`). An item's annotations are its rows in file order.
//! Without such a column a repeated key stays an error: an accidental duplicate must not
//! become a second annotator.
//!
//! `analyze --gold HUMANS --ratings JUDGE`: the gold file's annotations are the annotators, the
//! ratings files' are the judge's samples (one file per sample, or a sample column). As
//! AlpacaEval's `Analyzer` does, the first N annotations of each item count, N being the fewest
//! readable annotations any item has unless `--annotations-per-item` says otherwise; items with
//! fewer readable ones among their first N are left out and counted.

use super::frame::{Frame, LabelReading};
use super::labels::{check_in, Annotated, Groups, LabelPairs, NoMajority};
use crate::error::input_error;
use crate::metrics::Labels;
use anyhow::Result;
use std::collections::HashMap;

/// The columns that name an annotation when no `--annotator-col` is given.
pub const ANNOTATION_COLUMNS: [&str; 3] = ["annotator_index", "seed", "sample"];

/// How an item's key is shown in messages: its columns joined by " · ", cut to 80 characters.
pub fn shown(key: &str) -> String {
    let text = key.replace('\u{1f}', " · ");
    match text.char_indices().nth(80) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// The column naming the annotation: `--annotator-col`, else the first of
/// [`ANNOTATION_COLUMNS`] the file has, else `index` beside `n_annotated` (the cross-annotations
/// AlpacaEval's `analyze_evaluators` saves: `index` is the seed there). A lone `index` column is
/// too common a name to make repeated keys annotations.
pub fn annotation_column(frame: &Frame, named: Option<&str>) -> Option<String> {
    let names = frame.column_names();
    let has = |c: &str| names.iter().any(|n| n == c);
    match named {
        Some(n) => has(n).then(|| n.to_string()),
        None => ANNOTATION_COLUMNS
            .iter()
            .find(|c| has(c))
            .map(|c| c.to_string())
            .or_else(|| (has("index") && has("n_annotated")).then(|| "index".to_string())),
    }
}

/// How long form's panel tells its annotators apart.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "by")]
pub enum PanelKey {
    /// By the annotation column's values (AlpacaFarm's `annotator_index`: 16 people): each
    /// annotator's votes are theirs on whichever items they labelled.
    Column { column: String },
    /// By position (#1 is each item's first annotation, whoever made it), and why: no
    /// annotation column, or an item with one value twice among its first N.
    Position { why: String },
}

/// Long form's panel: the annotators and each item's vote by each.
#[derive(Debug)]
pub struct Panel {
    pub names: Vec<String>,
    pub votes: Vec<Vec<Option<i64>>>,
    /// Each item's annotators (indices into `names`) in file order; empty by position.
    pub order: Vec<Vec<usize>>,
    pub key: PanelKey,
}

/// Each item's kept annotations (`votes`, in file order) placed by who made them (`who`, the
/// annotation column's values), so the panel's annotators are people, not positions: names
/// are the values, `#` before a number, numbers in numeric order, else first seen. Where
/// the values cannot say who (no column, an empty value, or an item with a value twice) the
/// annotators are the positions, and the key says why.
pub fn by_annotator(
    column: Option<&str>,
    who: &[Vec<String>],
    votes: &[Vec<Option<i64>>],
) -> Panel {
    let n = votes.iter().map(Vec::len).max().unwrap_or(0);
    let by_position = |why: String| Panel {
        names: (1..=n).map(|k| format!("#{k}")).collect(),
        votes: votes
            .iter()
            .map(|v| (0..n).map(|k| v.get(k).copied().flatten()).collect())
            .collect(),
        order: Vec::new(),
        key: PanelKey::Position { why },
    };
    let Some(column) = column else {
        return by_position("no column names the annotation".into());
    };
    let mut seen: Vec<&str> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (item, names) in who.iter().enumerate() {
        for (k, name) in names.iter().enumerate() {
            if name.trim().is_empty() {
                return by_position(format!(
                    "column '{column}' is empty on an annotation of item {}",
                    item + 1
                ));
            }
            if names[..k].contains(name) {
                return by_position(format!(
                    "'{name}' of column '{column}' annotates item {} twice",
                    item + 1
                ));
            }
            index.entry(name).or_insert_with(|| {
                seen.push(name);
                seen.len() - 1
            });
        }
    }
    let numbers: Option<Vec<i64>> = seen.iter().map(|s| s.trim().parse().ok()).collect();
    let mut order: Vec<usize> = (0..seen.len()).collect();
    if let Some(numbers) = &numbers {
        order.sort_by_key(|&i| numbers[i]);
    }
    let mut place = vec![0; seen.len()];
    for (p, &i) in order.iter().enumerate() {
        place[i] = p;
    }
    let names = order
        .iter()
        .map(|&i| match numbers {
            Some(_) => format!("#{}", seen[i].trim()),
            None => seen[i].to_string(),
        })
        .collect();
    let order: Vec<Vec<usize>> = who
        .iter()
        .map(|names| {
            names
                .iter()
                .map(|name| place[index[name.as_str()]])
                .collect()
        })
        .collect();
    let votes = order
        .iter()
        .zip(votes)
        .map(|(order, v)| {
            let mut row = vec![None; seen.len()];
            for (&a, vote) in order.iter().zip(v) {
                row[a] = *vote;
            }
            row
        })
        .collect();
    Panel {
        names,
        votes,
        order,
        key: PanelKey::Column {
            column: column.to_string(),
        },
    }
}

/// One file's items: each key's annotations in file order.
#[derive(Debug, Clone)]
pub struct LongItems {
    /// Keys in first-seen order (columns joined by U+001F).
    pub keys: Vec<String>,
    pub labels: Vec<Vec<Option<i64>>>,
    /// Each annotation on AlpacaEval's preference scale, where the file gives one (a map of
    /// that scale, a number in [1, 2]: a weighted judge's 1.27 kept whole); else None and the
    /// label stands for it.
    pub prefs: Vec<Vec<Option<f64>>>,
    /// The row of each item's first annotation.
    pub first_row: Vec<usize>,
    /// Who made each annotation: the annotation column's value (empty without the column).
    pub who: Vec<Vec<String>>,
    /// The annotation column, when the file has one.
    pub annotation: Option<String>,
    /// The key's `instruction` is AlpacaEval's `instruction + "\n\n" + input`.
    pub joined_input: bool,
}

/// Each row's key: the key columns' text joined by U+001F. A file with `instruction` in the
/// key and an `input` column beside it (AlpacaEval's annotator outputs) gets AlpacaEval's
/// join, `instruction + "\n\n" + input` where the input is not empty.
fn keys(frame: &Frame, columns: &[String]) -> Result<(Vec<String>, bool)> {
    let join_input = columns.iter().any(|c| c == "instruction")
        && !columns.iter().any(|c| c == "input")
        && frame.column_names().iter().any(|c| c == "input");
    let input = if join_input {
        Some(frame.optional_text("input", "input", "input")?)
    } else {
        None
    };
    let mut parts = Vec::with_capacity(columns.len());
    for c in columns {
        let mut values = frame.text(c, "--id-col", "id")?;
        if let (true, Some(input)) = (c == "instruction", &input) {
            for (v, x) in values.iter_mut().zip(input) {
                if let Some(x) = x.as_deref().filter(|x| !x.is_empty()) {
                    v.push_str("\n\n");
                    v.push_str(x);
                }
            }
        }
        parts.push(values);
    }
    let keys = (0..frame.height())
        .map(|row| {
            parts
                .iter()
                .map(|p| p[row].as_str())
                .collect::<Vec<_>>()
                .join("\u{1f}")
        })
        .collect();
    Ok((keys, join_input))
}

/// Reads one file's items. Without an annotation column every key must be unique.
pub fn read(
    frame: &Frame,
    key_columns: &[String],
    label: (&str, &str),
    reading: &LabelReading,
    labels: Option<&Labels>,
    annotation_named: Option<&str>,
) -> Result<LongItems> {
    if frame.height() == 0 {
        return Err(input_error(format!(
            "'{}' has no rows; nothing to analyze",
            frame.path.display()
        )));
    }
    if let Some(n) = annotation_named {
        if annotation_column(frame, Some(n)).is_none() {
            frame.column(n, "--annotator-col")?;
        }
    }
    let annotation = annotation_column(frame, annotation_named);
    let (keys, joined_input) = keys(frame, key_columns)?;
    let values = frame.votes(label.0, label.1, reading)?;
    check_in(frame, label.0, &values, labels)?;
    let raw: Vec<Option<f64>> = frame
        .optional_text(label.0, label.0, "label")?
        .iter()
        .map(|v| v.as_deref().and_then(|v| reading.alpacaeval(v)))
        .collect();
    let who: Vec<String> = match &annotation {
        Some(c) => frame.text(c, "--annotator-col", "annotator")?,
        None => vec![String::new(); frame.height()],
    };
    let mut index: HashMap<&str, usize> = HashMap::with_capacity(keys.len());
    let mut out = LongItems {
        keys: Vec::new(),
        labels: Vec::new(),
        prefs: Vec::new(),
        first_row: Vec::new(),
        who: Vec::new(),
        annotation: annotation.clone(),
        joined_input,
    };
    for (row, key) in keys.iter().enumerate() {
        match index.get(key.as_str()) {
            Some(&item) if annotation.is_some() => {
                out.labels[item].push(values[row]);
                out.prefs[item].push(raw[row]);
                out.who[item].push(who[row].clone());
            }
            Some(&item) => {
                return Err(input_error(format!(
                    "{}: the key '{}' was seen at row {}; with no column naming the annotation ({} or --annotator-col) each key must be unique. Name the column that tells annotations apart, or remove the duplicate",
                    frame.at(&key_columns.join(","), row),
                    shown(key),
                    out.first_row[item] + 1,
                    ANNOTATION_COLUMNS.join(", ")
                )))
            }
            None => {
                index.insert(key, out.keys.len());
                out.keys.push(key.clone());
                out.labels.push(vec![values[row]]);
                out.prefs.push(vec![raw[row]]);
                out.who.push(vec![who[row].clone()]);
                out.first_row.push(row);
            }
        }
    }
    Ok(out)
}

/// Several files of one judge's samples: file k's annotations follow file k-1's, item by item.
pub fn concat(files: Vec<LongItems>) -> LongItems {
    let mut files = files.into_iter();
    let Some(mut out) = files.next() else {
        return LongItems {
            keys: Vec::new(),
            labels: Vec::new(),
            prefs: Vec::new(),
            first_row: Vec::new(),
            who: Vec::new(),
            annotation: None,
            joined_input: false,
        };
    };
    let mut index: HashMap<String, usize> = out
        .keys
        .iter()
        .enumerate()
        .map(|(i, k)| (k.clone(), i))
        .collect();
    for file in files {
        out.joined_input |= file.joined_input;
        let items = file.keys.into_iter().zip(file.labels).zip(file.prefs);
        let items = items.zip(file.who).zip(file.first_row);
        for ((((key, labels), prefs), who), row) in items {
            match index.get(&key) {
                Some(&i) => {
                    out.labels[i].extend(labels);
                    out.prefs[i].extend(prefs);
                    out.who[i].extend(who);
                }
                None => {
                    index.insert(key.clone(), out.keys.len());
                    out.keys.push(key);
                    out.labels.push(labels);
                    out.prefs.push(prefs);
                    out.who.push(who);
                    out.first_row.push(row);
                }
            }
        }
    }
    out
}

/// The gold items against a judge's samples, joined on their keys.
#[derive(Debug, Clone)]
pub struct Joined {
    /// The humans' majority against the judge's first sample, with the annotator panel.
    pub annotated: Annotated,
    /// The kept gold items' keys (each with `annotations_per_item` readable annotations).
    pub keys: Vec<String>,
    /// The judge's samples of each kept item, in order (empty: not annotated).
    pub judge: Vec<Vec<Option<i64>>>,
    /// Each kept item's first N annotations in file order (AlpacaEval's measures read them by
    /// position; `annotated.votes` has them by annotator).
    pub gold_votes: Vec<Vec<Option<i64>>>,
    /// How the panel's annotators were told apart.
    pub panel: PanelKey,
    /// The same on AlpacaEval's scale where the files give it (see [`LongItems::prefs`]): the
    /// gold's kept annotations and the judge's samples.
    pub gold_prefs: Vec<Vec<Option<f64>>>,
    pub judge_prefs: Vec<Vec<Option<f64>>>,
    /// The gold row of each item in `annotated.pairs` (its first annotation).
    pub pair_rows: Vec<usize>,
    /// The gold row of each kept item's first annotation (where its texts are read).
    pub item_rows: Vec<usize>,
    pub annotations_per_item: usize,
    /// Gold items with fewer readable annotations among their first N.
    pub too_few: usize,
    /// Kept items whose judge's first sample is unparsed (out of the agreement figures).
    pub first_unparsed: usize,
    /// Kept gold items the judge did not annotate, and judge items not among the gold's
    /// (the first of each named).
    pub only_in_gold: (usize, Option<String>),
    pub only_in_ratings: (usize, Option<String>),
}

/// Keeps the first `n` annotations of each gold item (default: the fewest readable any item
/// has), drops items with fewer readable ones, and joins the judge's items on the keys.
pub fn join(
    gold: LongItems,
    judge: LongItems,
    n: Option<usize>,
    policy: NoMajority,
) -> Result<Joined> {
    let readable = |v: &[Option<i64>]| v.iter().flatten().count();
    let n = match n {
        Some(n) => n,
        None => gold.labels.iter().map(|v| readable(v)).min().unwrap_or(0),
    };
    if n == 0 {
        return Err(input_error(
            "some gold item has no readable annotation, so no annotation count is common to every item; give --annotations-per-item N to keep the items with N",
        ));
    }
    let by_key: HashMap<&str, usize> = judge
        .keys
        .iter()
        .enumerate()
        .map(|(i, k)| (k.as_str(), i))
        .collect();
    let gold_keys: HashMap<&str, ()> = gold.keys.iter().map(|k| (k.as_str(), ())).collect();
    let mut out = Joined {
        annotated: Annotated {
            pairs: LabelPairs::default(),
            names: Vec::new(),
            votes: Vec::new(),
            judge: Vec::new(),
            other_judges: Vec::new(),
            gold: Vec::new(),
            no_majority: 0,
            label_names: Vec::new(),
        },
        keys: Vec::new(),
        judge: Vec::new(),
        gold_votes: Vec::new(),
        panel: PanelKey::Position { why: String::new() },
        gold_prefs: Vec::new(),
        judge_prefs: Vec::new(),
        pair_rows: Vec::new(),
        item_rows: Vec::new(),
        annotations_per_item: n,
        too_few: 0,
        first_unparsed: 0,
        only_in_gold: (0, None),
        only_in_ratings: (0, None),
    };
    let mut kept_who: Vec<Vec<String>> = Vec::new();
    let gold_items = gold.keys.iter().zip(&gold.labels).zip(&gold.prefs);
    let gold_items = gold_items.zip(&gold.who).zip(&gold.first_row);
    for ((((key, labels), prefs), who), row) in gold_items {
        let first: Vec<Option<i64>> = labels.iter().take(n).copied().collect();
        if readable(&first) < n {
            out.too_few += 1;
            continue;
        }
        let (samples, sample_prefs) = match by_key.get(key.as_str()) {
            Some(&j) => (judge.labels[j].clone(), judge.prefs[j].clone()),
            None => {
                out.only_in_gold.0 += 1;
                out.only_in_gold.1.get_or_insert_with(|| shown(key));
                (Vec::new(), Vec::new())
            }
        };
        let a = &mut out.annotated;
        a.judge.push(samples.first().copied().flatten());
        let majority = crate::metrics::raters::majority(&first);
        let gold_label = match majority {
            Some(g) => Some(g),
            None => {
                a.no_majority += 1;
                (policy == NoMajority::Tie).then_some(0)
            }
        };
        a.gold.push(gold_label);
        if let (Some(g), Some(Some(r))) = (gold_label, samples.first()) {
            a.pairs.gold.push(g);
            a.pairs.rating.push(*r);
            out.pair_rows.push(*row);
        } else if !samples.is_empty() && samples[0].is_none() {
            out.first_unparsed += 1;
        }
        kept_who.push(who.iter().take(n).cloned().collect());
        out.gold_votes.push(first);
        out.item_rows.push(*row);
        out.keys.push(key.clone());
        out.judge.push(samples);
        out.gold_prefs.push(prefs.iter().take(n).copied().collect());
        out.judge_prefs.push(sample_prefs);
    }
    for key in &judge.keys {
        if !gold_keys.contains_key(key.as_str()) {
            out.only_in_ratings.0 += 1;
            out.only_in_ratings.1.get_or_insert_with(|| shown(key));
        }
    }
    let panel = by_annotator(gold.annotation.as_deref(), &kept_who, &out.gold_votes);
    (out.annotated.names, out.annotated.votes, out.panel) = (panel.names, panel.votes, panel.key);
    out.annotated.pairs.only_in_gold = out.only_in_gold.0;
    out.annotated.pairs.only_in_ratings = out.only_in_ratings.0;
    if out.keys.is_empty() {
        return Err(input_error(format!(
            "no gold item has {n} readable annotations; lower --annotations-per-item"
        )));
    }
    Ok(out)
}

/// A group column's value at each pair's first gold row.
pub fn groups(frame: &Frame, column: &str, joined: &Joined) -> Result<Groups> {
    let values = frame.text(column, "--group-col", "group")?;
    let names: Vec<String> = joined
        .pair_rows
        .iter()
        .map(|&row| values[row].clone())
        .collect();
    Ok(Groups::from_names(&names))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn who(rows: &[&[&str]]) -> Vec<Vec<String>> {
        rows.iter()
            .map(|r| r.iter().map(|s| s.to_string()).collect())
            .collect()
    }

    #[test]
    fn annotations_are_placed_by_who_made_them() {
        let votes = vec![vec![Some(1), Some(-1)], vec![Some(0), None]];
        let panel = by_annotator(
            Some("annotator_index"),
            &who(&[&["10", "2"], &["2", "3"]]),
            &votes,
        );
        assert_eq!(panel.names, ["#2", "#3", "#10"]);
        assert_eq!(
            panel.votes,
            [vec![Some(-1), None, Some(1)], vec![Some(0), None, None]]
        );
        // File order, for AlpacaEval's positions.
        assert_eq!(panel.order, [vec![2, 0], vec![0, 1]]);
        let named = by_annotator(Some("rater"), &who(&[&["bo", "al"], &["al", "cy"]]), &votes);
        assert_eq!(named.names, ["bo", "al", "cy"]);
        assert_eq!(
            named.key,
            PanelKey::Column {
                column: "rater".into()
            }
        );
    }

    #[test]
    fn positions_where_the_column_cannot_say_who() {
        let votes = vec![vec![Some(1), Some(-1)], vec![Some(0)]];
        let twice = by_annotator(Some("seed"), &who(&[&["0", "0"], &["1"]]), &votes);
        assert_eq!(twice.names, ["#1", "#2"]);
        assert_eq!(twice.votes, [vec![Some(1), Some(-1)], vec![Some(0), None]]);
        assert!(twice.order.is_empty());
        assert!(matches!(&twice.key, PanelKey::Position { why } if why.contains("item 1 twice")));
        let blank = by_annotator(Some("seed"), &who(&[&["0", " "], &["1"]]), &votes);
        assert!(matches!(&blank.key, PanelKey::Position { why } if why.contains("empty")));
        let none = by_annotator(None, &who(&[&["", ""], &[""]]), &votes);
        assert!(matches!(none.key, PanelKey::Position { .. }));
    }
}
