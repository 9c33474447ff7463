//! `analyze`'s settings, checked from its options, and its result.

use crate::dataset::frame::{Frame, LabelReading};
use crate::dataset::labels::{ColumnNames, NoMajority};
use crate::error::input_error;
use crate::evaluation::annotators::AnnotatorReport;
use crate::metrics::{Agreement, Labels};
use anyhow::Result;
use std::path::PathBuf;

/// Where a table comes from: a file, or values a program handed over (the Python module's
/// `analyze`), read alike.
#[derive(Debug, Clone)]
pub enum Table {
    File(PathBuf),
    Values(Frame),
}

impl Table {
    /// How the table is named in reports.
    pub fn describe(&self) -> String {
        match self {
            Table::File(path) => path.display().to_string(),
            Table::Values(frame) => frame.path.display().to_string(),
        }
    }
}

/// What `analyze` reads: one table, or a gold table and one ratings table or several (one
/// judge's samples) to join.
#[derive(Debug, Clone)]
pub enum Input {
    One(Table),
    Two { gold: Table, ratings: Vec<Table> },
}

impl Input {
    /// How the source is named in reports.
    pub fn describe(&self) -> String {
        match self {
            Input::One(table) => table.describe(),
            Input::Two { gold, ratings } => {
                let ratings: Vec<String> = ratings.iter().map(Table::describe).collect();
                format!(
                    "{} (gold) × {} (ratings)",
                    gold.describe(),
                    ratings.join(" + ")
                )
            }
        }
    }
}

/// What to print and write.
#[derive(Debug, Clone)]
pub struct Output {
    pub json: bool,
    pub csv: Option<PathBuf>,
    pub html: Option<PathBuf>,
}

/// Validated settings.
#[derive(Debug, Clone)]
pub struct Settings {
    pub input: Input,
    pub columns: ColumnNames,
    pub labels: Option<Labels>,
    /// How gold and rating values are read.
    pub reading: (LabelReading, LabelReading),
    pub bootstrap: usize,
    pub seed: u64,
    pub output: Output,
    /// Several annotators' columns and what is done with items without a majority.
    pub annotators: Option<(Vec<String>, NoMajority)>,
    /// Several annotations per item in long form (two-file form).
    pub long: Long,
    /// `--generators`: the system level (one-file form).
    pub systems: Option<SystemsSettings>,
    /// `--estimate [--estimate-label L] [--alpha A]`: the label as given, and α.
    pub estimate: Option<(Option<String>, f64)>,
}

/// `analyze --generators COL1,COL2 [--prompt-col COL] [--reference FILE|gold]`.
#[derive(Debug, Clone)]
pub struct SystemsSettings {
    pub generators: (String, String),
    pub prompt: Option<String>,
    pub reference: Option<crate::run::settings::ReferenceSpec>,
}

/// Long form's options (`dataset::long`).
#[derive(Debug, Clone, Default)]
pub struct Long {
    /// `--annotator-col`: the column naming the annotation.
    pub annotation: Option<String>,
    /// `--annotations-per-item`.
    pub per_item: Option<usize>,
    /// `--texts`: the two responses' columns.
    pub texts: Option<(String, String)>,
    /// `--no-majority`: items whose annotators have no majority.
    pub no_majority: NoMajority,
}

impl Long {
    /// Whether an option asks for long form even when no file has an annotation column.
    pub fn asked(&self) -> bool {
        self.annotation.is_some() || self.per_item.is_some() || self.texts.is_some()
    }
}

/// `--texts COL1,COL2`.
pub fn parse_texts(value: &str) -> Result<(String, String)> {
    match value
        .split(',')
        .map(str::trim)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [a, b] if !a.is_empty() && !b.is_empty() => Ok((a.to_string(), b.to_string())),
        _ => Err(input_error(format!(
            "--texts '{value}': name the two responses' columns, e.g. --texts output_1,output_2"
        ))),
    }
}

/// `--unreadable`: what a missing or unreadable label does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Unreadable {
    /// Stops with an error naming the row.
    #[default]
    Error,
    /// Leaves the row out (counted in the report).
    Drop,
}

impl std::str::FromStr for Unreadable {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "error" => Ok(Unreadable::Error),
            "drop" => Ok(Unreadable::Drop),
            other => Err(format!("'{other}': use error or drop")),
        }
    }
}

/// `--gold-map`/`--rating-map VALUE=LABEL,...` and `--unreadable`.
pub fn parse_reading(flag: &str, map: &[String], unreadable: Unreadable) -> Result<LabelReading> {
    let mut out = LabelReading::default();
    for item in map {
        let (from, to) = item.rsplit_once('=').ok_or_else(|| {
            input_error(format!("{flag} '{item}': expected VALUE=LABEL, e.g. Tie=0"))
        })?;
        let to: i64 = to
            .trim()
            .parse()
            .map_err(|_| input_error(format!("{flag} '{item}': the label must be an integer")))?;
        out.map.insert(from.trim().to_string(), to);
    }
    out.drop_unreadable = unreadable == Unreadable::Drop;
    Ok(out)
}

/// Parses `--labels` values ("-1", "0", "1").
pub fn parse_labels(values: &[String]) -> Result<Labels> {
    let parsed: Result<Vec<i64>> = values
        .iter()
        .map(|v| {
            v.trim().parse::<i64>().map_err(|_| {
                input_error(format!(
                    "--labels: '{v}' is not an integer; give whole numbers separated by commas, e.g. --labels=-1,0,1"
                ))
            })
        })
        .collect();
    Labels::new(parsed?).map_err(|_| input_error("--labels is empty; give e.g. --labels=-1,0,1"))
}

/// An output file's folder must exist and the path must not be a folder, checked before any
/// work is done.
pub fn writable_folder(flag: &str, path: &std::path::Path) -> Result<()> {
    if path.is_dir() {
        return Err(input_error(format!(
            "{flag} '{}' is a folder; name a file in it, e.g. '{}'",
            path.display(),
            path.join(if flag == "--html" {
                "analysis.html"
            } else {
                "metrics.csv"
            })
            .display()
        )));
    }
    match path.parent() {
        Some(folder) if !folder.as_os_str().is_empty() && !folder.is_dir() => {
            Err(input_error(format!(
                "{flag} '{}': the folder '{}' does not exist; create it or write elsewhere",
                path.display(),
                folder.display()
            )))
        }
        _ => Ok(()),
    }
}

/// The result of one analysis: overall and per group.
#[derive(Debug, Clone)]
pub struct Analysis {
    pub source: String,
    pub labels: Labels,
    pub bootstrap: usize,
    pub seed: u64,
    pub overall: Agreement,
    /// Per group, sorted by name.
    pub groups: Vec<(String, Agreement)>,
    pub only_in_gold: usize,
    pub only_in_ratings: usize,
    /// Readable ratings of items without a gold label (an empty gold cell, or no gold row):
    /// counted, in no agreement measure.
    pub unlabelled: usize,
    pub dropped_gold: usize,
    pub dropped_ratings: usize,
    /// With --annotators: their agreement, the ceiling and the judge beside it.
    pub annotators: Option<AnnotatorReport>,
    /// Long form: how the annotations were read, and AlpacaEval's evaluator measures.
    pub long: Option<LongForm>,
    /// `--compare-col --sequential`: the rating column (A) against the compare column (B) as
    /// the items come, and the columns' names.
    pub sequential: Option<(crate::evaluation::sequential::Sequential, [String; 2])>,
    /// `--estimate`: the corrected estimates (and with --generators, the models ranked).
    pub estimate: Option<crate::evaluation::estimate::Estimate>,
    /// The rows as `calibrate`'s record (a configuration per rating column) and its
    /// evaluation, which every figure above comes from (the top-level ones: the first
    /// column's).
    pub record: crate::evaluation::RunRecord,
    pub evaluation: crate::evaluation::Evaluation,
}

impl Analysis {
    /// The evaluated record, as the sections render it (the best chosen on quadratic kappa).
    pub fn view(&self) -> crate::evaluation::Evaluated<'_> {
        crate::evaluation::Evaluated {
            record: &self.record,
            evaluation: &self.evaluation,
            sort: crate::metrics::Statistic::KappaQuadratic,
            max_tokens: vec![0; self.record.configs.len()],
        }
    }
}

/// What long form read and AlpacaEval's measures on it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LongForm {
    /// The gold's and the ratings' annotation columns (None: one annotation per key).
    pub columns: (Option<String>, Option<String>),
    pub annotations_per_item: usize,
    /// Gold items kept (N readable annotations among their first N), and those left out.
    pub items: usize,
    pub too_few: usize,
    /// Kept items whose judge's first sample is unparsed.
    pub first_unparsed: usize,
    /// The first key found in one file only, of each file.
    pub only_in_gold: Option<String>,
    pub only_in_ratings: Option<String>,
    /// Where `instruction` was joined with `input`, as AlpacaEval joins them.
    pub joined_input: bool,
    pub texts: Option<(String, String)>,
}
