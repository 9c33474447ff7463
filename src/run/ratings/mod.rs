//! `analyze`'s loader, as `run::data` is `calibrate`'s: its tables (one file, a gold file and
//! ratings files joined on their ids, several annotators, long form) read into `calibrate`'s
//! record, with what the reading left out.

mod annotated;
mod read;

use crate::dataset::frame::{self, Frame};
use crate::dataset::labels::{self, LabelPairs};
use crate::dataset::long;
use crate::error::input_error;
use crate::metrics::Labels;
use crate::run::settings::{AnalyzeInput, AnalyzeSettings, Table};
use anyhow::Result;
pub use read::{Loaded, LongForm, Reading};

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
pub fn load(settings: &AnalyzeSettings, tables: &Tables) -> Result<Loaded> {
    let columns: Vec<&str> = settings.columns.rating.split(',').map(str::trim).collect();
    match tables {
        Tables::Two { gold, ratings } if long_form(settings, gold, ratings) => {
            annotated::long_form(settings, gold, ratings)
        }
        _ if columns.len() > 1 => several_columns(settings, tables.one(), &columns),
        Tables::One(frame) => match &settings.annotators {
            Some((names, policy)) => annotated::annotators(settings, frame, names, *policy),
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

/// Aligned pairs read elsewhere (`--estimate`'s numbers) as the record of one configuration.
pub fn of_pairs(settings: &AnalyzeSettings, pairs: LabelPairs) -> Result<Loaded> {
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
) -> Result<Loaded> {
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
        ("--annotators", settings.annotators.is_some()),
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
) -> Result<Loaded> {
    let first = &columns[0];
    if first.gold.is_empty() && settings.estimate.is_none() {
        return Err(input_error(format!(
            "{}: no row has a gold label; its {} rated rows are unlabelled: add --estimate to estimate from them and the judge, or fill the gold column",
            settings.input.describe(),
            first.unlabelled.len()
        )));
    }
    // The group column read again only for rows the pairs' own groups do not cover (the
    // unlabelled ones).
    let uncovered = columns
        .iter()
        .any(|p| p.groups.is_none() || !p.unlabelled.is_empty());
    let group_of_row = match (frame, &settings.columns.group) {
        (Some(f), Some(col)) if uncovered => Some(f.text(col, "--group-col", "group")?),
        _ => None,
    };
    let p_of_row = match (frame, &settings.columns.probability) {
        (Some(f), Some(col)) => Some(f.probabilities(col, "--probability")?),
        _ => None,
    };
    // Each row's item, at its row (the rows are the file's, or the two-file form's places).
    let row_of = |rows: &[usize], k: usize, base: usize| rows.get(k).copied().unwrap_or(base + k);
    let height = columns
        .iter()
        .flat_map(|p| {
            let n = p.gold.len();
            (0..n)
                .map(move |k| row_of(&p.rows, k, 0))
                .chain((0..p.unlabelled.len()).map(move |k| row_of(&p.unlabelled_rows, k, n)))
        })
        .max()
        .map_or(0, |last| last + 1);
    let mut by_row: Vec<Option<read::Row>> = Vec::new();
    by_row.resize_with(height, || None);
    for (j, pairs) in columns.iter().enumerate() {
        let n = pairs.gold.len();
        let group = |k: usize| {
            let g = pairs.groups.as_ref()?;
            Some(g.names[g.of_pair[k] as usize].clone())
        };
        let labelled = (0..n).map(|k| {
            (
                row_of(&pairs.rows, k, 0),
                Some(pairs.gold[k]),
                pairs.rating[k],
                group(k),
            )
        });
        let unlabelled = pairs
            .unlabelled
            .iter()
            .enumerate()
            .map(|(k, &r)| (row_of(&pairs.unlabelled_rows, k, n), None, r, None));
        for (row, gold, rating, group) in labelled.chain(unlabelled) {
            let item = by_row[row].get_or_insert_with(|| read::Row {
                row,
                gold: None,
                ratings: vec![None; columns.len()],
                p: p_of_row.as_ref().and_then(|p| p[row]),
                group: group
                    .or_else(|| group_of_row.as_ref().map(|g| g[row].clone()))
                    .unwrap_or_default(),
            });
            item.gold = item.gold.or(gold);
            item.ratings[j] = Some(rating);
        }
    }
    let rows: Vec<read::Row> = by_row.into_iter().flatten().collect();
    // Nothing read (`--estimate` on numbers): the pairwise labels.
    let labels = settings.labels.clone().unwrap_or_else(|| {
        if rows.is_empty() {
            return Labels::pairwise();
        }
        let labelled = rows.iter().any(|r| r.gold.is_some());
        let kept = || rows.iter().filter(|r| r.gold.is_some() || !labelled);
        let gold: Vec<i64> = kept().filter_map(|r| r.gold).collect();
        let rated: Vec<i64> = kept()
            .flat_map(|r| r.ratings.iter().flatten())
            .copied()
            .collect();
        Labels::infer(&gold, &rated)
    });
    // What the reading left out, over every column; the first column's pairs stand at the top.
    let mut reading = Reading::of(first);
    reading.unlabelled = rows.iter().filter(|r| r.gold.is_none()).count();
    reading.dropped_ratings = columns.iter().map(|p| p.dropped_ratings).sum();
    let extras = read::Extras {
        names: names.iter().map(|c| c.to_string()).collect(),
        ..read::Extras::default()
    };
    Ok(Loaded {
        record: read::record(settings, rows, extras, &labels, frame)?,
        reading,
        pairs: columns.into_iter().next().unwrap_or_default(),
        long: None,
    })
}
