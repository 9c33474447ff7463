//! `analyze`'s loader, as `run::data` is `calibrate`'s: its tables (one file, a gold file and
//! ratings files joined on their ids, several annotators, long form) read into `calibrate`'s
//! record, with what the reading left out.

mod annotated;
mod read;

use crate::dataset::frame::{self, Frame};
use crate::dataset::labels::{self, Groups, LabelPairs};
use crate::dataset::long;
use crate::error::input_error;
use crate::evaluation::Outcome;
use crate::metrics::scale::Scale;
use crate::metrics::Labels;
use crate::run::settings::{AnalyzeInput, AnalyzeSettings, Table};
use anyhow::Result;
pub use read::{Loaded, LongForm, Read, Reading};

/// The tables as read: one, or the gold and the ratings to join.
#[derive(Debug)]
pub enum Tables {
    One(Frame),
    Two { gold: Frame, ratings: Vec<Frame> },
}

impl Tables {
    /// Each table's frame: its file read, or the values handed over.
    pub fn read(input: &AnalyzeInput) -> Result<Tables> {
        let read = |table: &Table| match table {
            Table::File(path) => frame::read(path),
            Table::Values(frame) => Ok(frame.clone()),
        };
        Ok(match input {
            AnalyzeInput::One(table) => Tables::One(read(table)?),
            AnalyzeInput::Two { gold, ratings } => Tables::Two {
                gold: read(gold)?,
                ratings: ratings.iter().map(read).collect::<Result<_>>()?,
            },
        })
    }

    /// The one file's ids unique (`--id-col`, else `id` when it has one). Its items are its
    /// rows, so unless `keep` (a later step reads the ids) the column is then let go: it is
    /// most of the table's memory. Two files are joined on their ids, checked as they are read.
    pub fn check_ids(&mut self, id: Option<&str>, keep: bool) -> Result<()> {
        let Tables::One(frame) = self else {
            return Ok(());
        };
        labels::check_ids(frame, id)?;
        if !keep {
            frame.forget(id.unwrap_or("id"))?;
        }
        Ok(())
    }

    /// The one file (None: two joined).
    pub fn one(&self) -> Option<&Frame> {
        match self {
            Tables::One(frame) => Some(frame),
            Tables::Two { .. } => None,
        }
    }
}

/// The tables as `calibrate`'s record: long form when the files or the options say so,
/// several annotators (`--annotators`), else one configuration per rating column.
pub fn load(settings: &AnalyzeSettings, tables: &Tables) -> Result<Read> {
    let coded = by_name(settings, tables)?;
    let settings = coded.as_ref().unwrap_or(settings);
    let columns: Vec<&str> = settings.columns.rating.split(',').map(str::trim).collect();
    match tables {
        Tables::Two { gold, ratings } if long_form(settings, gold, ratings) => {
            annotated::long_form(settings, gold, ratings)
        }
        // Several annotators, beside one rating column or several (a configuration each).
        Tables::One(frame) => match &settings.annotators {
            Some((names, policy)) => annotated::annotators(settings, frame, names, *policy),
            None if columns.len() > 1 => several_columns(settings, Some(frame), &columns),
            None => {
                let pairs = labels::load_one(
                    frame,
                    &settings.columns,
                    &settings.reading,
                    settings.labels.as_ref(),
                )?;
                rated(settings, vec![pairs], Some(frame), &columns)
            }
        },
        Tables::Two { .. } if columns.len() > 1 => several_columns(settings, None, &columns),
        Tables::Two { gold, ratings } => {
            let pairs = labels::load_two(
                gold,
                &ratings[0],
                &settings.columns,
                &settings.reading,
                settings.labels.as_ref(),
            )?;
            rated(settings, vec![pairs], None, &columns)
        }
    }
}

/// Labels by name in the gold column and the rating columns ('agrees', 'Not medical'), with no
/// map: the settings that read each name as its place among the categories (`--scale
/// categories:A,B,C`'s order, else sorted) on the scale of those categories. None where the
/// labels are numbers, a map reads them, or several annotators give the gold (their own
/// reading names them).
fn by_name(settings: &AnalyzeSettings, tables: &Tables) -> Result<Option<AnalyzeSettings>> {
    let (gold, rating) = &settings.reading;
    if settings.annotators.is_some() || !(gold.map.is_empty() && rating.map.is_empty()) {
        return Ok(None);
    }
    let declared = match &settings.scale {
        Some(Scale::Categories { names }) => Some(names),
        Some(_) => return Ok(None),
        None => None,
    };
    let gold_col = (settings.columns.gold.as_str(), "--gold-col");
    let ratings: Vec<(&str, &str)> = (settings.columns.rating.split(','))
        .map(|c| (c.trim(), "--rating-col"))
        .collect();
    let found = match tables {
        Tables::One(f) => {
            let columns: Vec<(&str, &str)> = std::iter::once(gold_col).chain(ratings).collect();
            labels::label_names(f, &columns, &settings.reading)?
        }
        Tables::Two { gold, ratings: r } if r.len() == 1 && !long_form(settings, gold, r) => {
            let a = labels::label_names(gold, &[gold_col], &settings.reading)?;
            let b = labels::label_names(&r[0], &ratings, &settings.reading)?;
            if a.is_empty() || b.is_empty() {
                return Ok(None);
            }
            let mut all: Vec<String> = a.into_iter().chain(b).collect();
            all.sort();
            all.dedup();
            all
        }
        _ => return Ok(None),
    };
    if found.is_empty() {
        return Ok(None);
    }
    let names = match declared {
        Some(declared) => {
            if let Some(unknown) = found.iter().find(|n| !declared.contains(n)) {
                return Err(input_error(format!(
                    "{}: the label '{unknown}' is not one of the categories {} (--scale); add it to --scale categories:..., or map it with --gold-map/--rating-map",
                    settings.input.describe(),
                    declared.join(", ")
                )));
            }
            declared.clone()
        }
        None => found,
    };
    let mut out = settings.clone();
    for reading in [&mut out.reading.0, &mut out.reading.1] {
        (reading.map).extend((names.iter().enumerate()).map(|(k, n)| (n.clone(), k as i64)));
    }
    out.scale = Some(Scale::Categories { names });
    Ok(Some(out))
}

/// Aligned pairs read elsewhere (`--estimate`'s numbers) as the record of one configuration.
pub fn of_pairs(settings: &AnalyzeSettings, pairs: LabelPairs) -> Result<Read> {
    rated(
        settings,
        vec![pairs],
        None,
        &[settings.columns.rating.as_str()],
    )
}

/// Whether two files are long form: an option asks for it, there are several ratings files or
/// a key of several columns, or a file has an annotation column.
fn long_form(settings: &AnalyzeSettings, gold: &Frame, ratings: &[Frame]) -> bool {
    let named = settings.long.annotation.as_deref();
    settings.long.asked()
        || ratings.len() > 1
        || settings
            .columns
            .id
            .as_deref()
            .is_some_and(|c| c.contains(','))
        || std::iter::once(gold)
            .chain(ratings)
            .any(|f| long::annotation_column(f, named).is_some())
}

/// `--rating-col A,B,...`: each column read as one column is, one configuration each, so the
/// paired comparisons, the best and the Holm family are `calibrate`'s.
fn several_columns(
    settings: &AnalyzeSettings,
    frame: Option<&Frame>,
    columns: &[&str],
) -> Result<Read> {
    let Some(frame) = frame else {
        return Err(input_error(format!(
            "--rating-col {}: several rating columns are read from one file; give it with --input (the two-file form joins one ratings column)",
            settings.columns.rating
        )));
    };
    let one_column = [
        ("--probability", settings.columns.probability.is_some()),
        ("--compare-col", settings.columns.compare.is_some()),
        ("--estimate", settings.estimate.is_some()),
    ];
    if let Some((flag, _)) = one_column.iter().find(|(_, given)| *given) {
        return Err(input_error(format!(
            "{flag} reads one rating column, and --rating-col names {}: give one column with {flag}",
            columns.len()
        )));
    }
    let per_column = columns
        .iter()
        .map(|&c| {
            let mut names = settings.columns.clone();
            names.rating = c.to_string();
            labels::load_one(frame, &names, &settings.reading, settings.labels.as_ref())
        })
        .collect::<Result<Vec<_>>>()?;
    rated(settings, per_column, Some(frame), columns)
}

/// Rating columns read against the gold (`columns`: each one's aligned pairs) as the record's
/// configurations: an item per row that some column rated, in file order (the two-file form:
/// the pairs, then the unlabelled ratings), each column's rating or None. The label set is
/// `--labels`, else the labels the labelled items show (without one, the judges'), so rows
/// without gold change no agreement figure.
fn rated(
    settings: &AnalyzeSettings,
    columns: Vec<LabelPairs>,
    frame: Option<&Frame>,
    names: &[&str],
) -> Result<Read> {
    let first = &columns[0];
    if first.gold.is_empty() && settings.estimate.is_none() {
        return Err(input_error(format!(
            "{}: no row has a gold label; its {} rated rows are unlabelled: add --estimate to estimate from them and the judge, or fill the gold column",
            settings.input.describe(),
            first.unlabelled.len()
        )));
    }
    let height = columns
        .iter()
        .flat_map(|p| rated_rows(p).map(|(row, _)| row))
        .max()
        .map_or(0, |last| last + 1);
    // One column rating every row up to the last (each row once): item k is row k, and no
    // map from rows to items is needed.
    let every = match columns.as_slice() {
        [one] => one.gold.len() + one.unlabelled.len() == height,
        _ => false,
    };
    const NONE: u32 = u32::MAX;
    let (rows, slot) = if every {
        (read::Rows::Every(height), Vec::new())
    } else {
        let mut slot = vec![NONE; height];
        for pairs in &columns {
            for (row, _) in rated_rows(pairs) {
                slot[row] = 0;
            }
        }
        let rows: Vec<usize> = (0..height).filter(|&r| slot[r] != NONE).collect();
        for (k, &row) in rows.iter().enumerate() {
            slot[row] = k as u32;
        }
        (read::Rows::Listed(rows), slot)
    };
    let item_of = |row: usize| slot.get(row).map_or(row, |&k| k as usize);
    let n = rows.len();
    let mut gold: Vec<Option<i64>> = vec![None; n];
    // Each column's ratings, as the configuration's outcomes (no readable rating: no verdict).
    let mut outcomes: Vec<Vec<Outcome>> = vec![vec![Outcome::NoVerdict; n]; columns.len()];
    // An item's group: the file's group column at its row (one file), else its pair's group
    // in the first column that has it (the two-file form; an unlabelled item has none).
    let mut group_of: Vec<Option<std::sync::Arc<str>>> = Vec::new();
    let file_groups = match (frame, &settings.columns.group) {
        (Some(f), Some(col)) => {
            let all = f.groups(col, "--group-col")?;
            Some(if n == f.height() {
                all
            } else {
                all.pick(rows.iter())
            })
        }
        _ => None,
    };
    let pair_groups = file_groups.is_none() && columns.iter().any(|p| p.groups.is_some());
    if pair_groups {
        group_of = vec![None; n];
    }
    for (j, pairs) in columns.iter().enumerate() {
        for (row, pair) in rated_rows(pairs) {
            let k = item_of(row);
            match pair {
                Ok(q) => {
                    gold[k] = gold[k].or(Some(pairs.gold[q]));
                    outcomes[j][k] = Outcome::Rated(pairs.rating[q]);
                    if let (true, Some(g)) = (pair_groups, &pairs.groups) {
                        group_of[k].get_or_insert_with(|| g.of(q).clone());
                    }
                }
                Err(rating) => outcomes[j][k] = Outcome::Rated(rating),
            }
        }
    }
    drop(slot);
    let groups = file_groups.or_else(|| {
        pair_groups.then(|| {
            let names: Vec<std::sync::Arc<str>> = (group_of.into_iter())
                .map(|g| g.unwrap_or_else(|| "".into()))
                .collect();
            Groups::from_names(&names)
        })
    });
    let p = match (frame, &settings.columns.probability) {
        (Some(f), Some(col)) => {
            let p = f.probabilities(col, "--probability")?;
            Some(rows.iter().map(|r| p[r]).collect())
        }
        _ => None,
    };
    let items = read::Items {
        rows,
        gold,
        outcomes,
        p,
        groups,
    };
    // Nothing read (`--estimate` on numbers): the pairwise labels.
    let labels = settings.labels.clone().unwrap_or_else(|| {
        if items.is_empty() {
            return Labels::pairwise();
        }
        // The labelled items' values (every item's when none is labelled).
        let labelled = items.gold.iter().any(Option::is_some);
        let gold = items.gold.iter().flatten().copied();
        let rated = (items.outcomes.iter()).flat_map(|column| {
            (column.iter().zip(&items.gold))
                .filter(|(_, g)| g.is_some() || !labelled)
                .filter_map(|(o, _)| o.rating())
        });
        Labels::infer_from(gold.chain(rated))
    });
    // What the reading left out, over every column; the first column's pairs stand at the top.
    let mut reading = Reading::of(first);
    reading.unlabelled = items.gold.iter().filter(|g| g.is_none()).count();
    reading.dropped_ratings = columns.iter().map(|p| p.dropped_ratings).sum();
    let mut extras = read::Extras {
        names: names.iter().map(|c| c.to_string()).collect(),
        ..read::Extras::default()
    };
    // One file: each item's π beside it (two files have no rows to read it from, which
    // `--estimate` says).
    if frame.is_some() {
        if let Some(pi) = label_probs(settings, frame, items.rows.iter())? {
            extras.inputs.put(Box::new(pi));
        }
    }
    Ok(Read {
        unbuilt: read::record(settings, items, extras, &labels, frame)?,
        reading,
        pairs: columns.into_iter().next().unwrap_or_default(),
        long: None,
    })
}

/// `--label-prob COL`: each item's π (its row's), each in (0, 1] (one-file form), as the
/// record's input the estimate reads.
pub fn label_probs(
    settings: &AnalyzeSettings,
    frame: Option<&Frame>,
    rows: impl Iterator<Item = usize>,
) -> Result<Option<crate::evaluation::estimate::LabelProbs>> {
    let Some(col) = &settings.label_prob else {
        return Ok(None);
    };
    let Some(frame) = frame else {
        return Err(input_error(
            "--label-prob reads each row's chance of being labelled beside its rating and gold: give one --input file",
        ));
    };
    let pi = frame.probabilities(col, "--label-prob")?;
    rows.map(|row| match pi[row] {
            Some(p) if p > 0.0 => Ok(Some(p)),
            _ => Err(input_error(format!(
                "{}: --label-prob needs every row's chance of being labelled, above 0 (plan --active --out's label_prob)",
                frame.at(col, row)
            ))),
        })
        .collect::<Result<Vec<_>>>()
        .map(|p| Some(crate::evaluation::estimate::LabelProbs(p)))
}

/// Each rated row of a column's pairs: its row (the file's, or the two-file form's place), and
/// its pair (Err: unlabelled, with its rating).
fn rated_rows(p: &LabelPairs) -> impl Iterator<Item = (usize, Result<usize, i64>)> + '_ {
    let row_of = |rows: &[usize], k: usize, base: usize| rows.get(k).copied().unwrap_or(base + k);
    let n = p.gold.len();
    let labelled = (0..n).map(move |k| (row_of(&p.rows, k, 0), Ok(k)));
    let unlabelled = (p.unlabelled.iter().enumerate())
        .map(move |(k, &r)| (row_of(&p.unlabelled_rows, k, n), Err(r)));
    labelled.chain(unlabelled)
}
