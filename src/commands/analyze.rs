//! `raterlab analyze`: agreement statistics for existing ratings.

use crate::cli::AnalyzeArgs;
use crate::dataset::frame::LabelReading;
use crate::dataset::labels::{self, ColumnNames, LabelPairs, NoMajority};
use crate::error::input_error;
use crate::evaluation::annotators::{self, AnnotatorReport};
use crate::metrics::{Agreement, Contingency, Labels};
use anyhow::Result;
use std::path::PathBuf;

/// Where the labels come from.
#[derive(Debug, Clone)]
pub enum Input {
    One(PathBuf),
    Two { gold: PathBuf, ratings: PathBuf },
}

impl Input {
    /// How the source is named in reports.
    pub fn describe(&self) -> String {
        match self {
            Input::One(path) => path.display().to_string(),
            Input::Two { gold, ratings } => {
                format!(
                    "{} (gold) × {} (ratings)",
                    gold.display(),
                    ratings.display()
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
}

/// `--gold-map`/`--rating-map VALUE=LABEL,...` and `--unreadable error|drop`.
pub fn parse_reading(flag: &str, map: &[String], unreadable: &str) -> Result<LabelReading> {
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
    out.drop_unreadable = match unreadable {
        "error" => false,
        "drop" => true,
        other => {
            return Err(input_error(format!(
                "--unreadable '{other}': use error or drop"
            )))
        }
    };
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

impl Settings {
    pub fn from_args(args: AnalyzeArgs) -> Result<Self> {
        let input = match (args.input, args.gold, args.ratings) {
            (Some(path), None, None) => Input::One(path),
            (None, Some(gold), Some(ratings)) => Input::Two { gold, ratings },
            _ => {
                return Err(input_error(
                    "give either --input FILE, or both --gold FILE and --ratings FILE",
                ))
            }
        };
        let labels = args.labels.as_deref().map(parse_labels).transpose()?;
        let policy = NoMajority::parse(&args.no_majority)?;
        let annotators = match (&input, args.annotators.is_empty()) {
            (_, true) => None,
            (Input::One(_), false) => Some((args.annotators.clone(), policy)),
            (Input::Two { .. }, false) => return Err(input_error(
                "--annotators reads every annotator and the judge from one file; use --input FILE",
            )),
        };
        for (flag, path) in [("--csv", &args.csv), ("--html", &args.html)] {
            if let Some(path) = path {
                writable_folder(flag, path)?;
            }
        }
        let reading = (
            parse_reading("--gold-map", &args.gold_map, &args.unreadable)?,
            parse_reading("--rating-map", &args.rating_map, &args.unreadable)?,
        );
        Ok(Self {
            input,
            reading,
            columns: ColumnNames {
                id: args.id_col,
                ratings_id: args.ratings_id_col,
                gold: args.gold_col,
                rating: args.rating_col,
                group: args.group_col,
            },
            labels,
            bootstrap: args.bootstrap,
            seed: args.seed,
            annotators,
            output: Output {
                json: args.json,
                csv: args.csv,
                html: args.html,
            },
        })
    }
}

/// An output file's folder must exist and the path must not be a folder, checked before any
/// work is done.
fn writable_folder(flag: &str, path: &std::path::Path) -> Result<()> {
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
    pub dropped_gold: usize,
    pub dropped_ratings: usize,
    /// With --annotators: their agreement, the ceiling and the judge beside it.
    pub annotators: Option<AnnotatorReport>,
}

/// Agreement for one set of pairs, with bootstrap intervals when asked.
pub fn agreement(table: Contingency, bootstrap: usize, seed: u64) -> Agreement {
    Agreement::with_bootstrap(table, bootstrap, seed)
}

/// Agreement per group, sorted by group name.
pub fn by_group(
    pairs: &LabelPairs,
    labels: &Labels,
    bootstrap: usize,
    seed: u64,
) -> Result<Vec<(String, Agreement)>> {
    let mut groups = Vec::new();
    if let Some(g) = &pairs.groups {
        let mut gold: Vec<Vec<i64>> = vec![Vec::new(); g.names.len()];
        let mut rating: Vec<Vec<i64>> = vec![Vec::new(); g.names.len()];
        for ((&code, &gv), &rv) in g.of_pair.iter().zip(&pairs.gold).zip(&pairs.rating) {
            gold[code as usize].push(gv);
            rating[code as usize].push(rv);
        }
        for (i, name) in g.names.iter().enumerate() {
            let table = Contingency::from_pairs(labels, &gold[i], &rating[i])?;
            groups.push((name.clone(), agreement(table, bootstrap, seed)));
        }
        groups.sort_by(|a, b| a.0.cmp(&b.0));
    }
    Ok(groups)
}

pub fn run(settings: &Settings) -> Result<Analysis> {
    if let (Some((columns, policy)), Input::One(path)) = (&settings.annotators, &settings.input) {
        let annotated = labels::load_annotators(
            path,
            &settings.columns,
            columns,
            &settings.reading,
            settings.labels.as_ref(),
            *policy,
        )?;
        let labels = settings.labels.clone().unwrap_or_else(|| {
            let votes: Vec<i64> = annotated
                .votes
                .iter()
                .flatten()
                .flatten()
                .copied()
                .collect();
            let judged: Vec<i64> = annotated.judge.iter().flatten().copied().collect();
            Labels::infer(&votes, &judged)
        });
        if *policy == NoMajority::Tie && !labels.contains(0) {
            return Err(input_error(format!(
                "--no-majority tie scores items without a majority as 0, which is not in the label set {labels}; use --no-majority drop or add 0 to --labels"
            )));
        }
        let report = annotators::report(
            &labels,
            annotated.names.clone(),
            &annotated.votes,
            Some(&annotated.judge),
            (annotated.no_majority, policy.name()),
            settings.bootstrap,
            settings.seed,
        )?;
        let mut analysis = analyze_pairs(settings, &annotated.pairs, labels)?;
        analysis.annotators = Some(report);
        return Ok(analysis);
    }
    let pairs = match &settings.input {
        Input::One(path) => labels::load_one(
            path,
            &settings.columns,
            &settings.reading,
            settings.labels.as_ref(),
        )?,
        Input::Two { gold, ratings } => labels::load_two(
            gold,
            ratings,
            &settings.columns,
            &settings.reading,
            settings.labels.as_ref(),
        )?,
    };
    let labels = settings
        .labels
        .clone()
        .unwrap_or_else(|| Labels::infer(&pairs.gold, &pairs.rating));
    analyze_pairs(settings, &pairs, labels)
}

/// The agreement of aligned pairs, overall and per group.
fn analyze_pairs(settings: &Settings, pairs: &LabelPairs, labels: Labels) -> Result<Analysis> {
    let table = Contingency::from_pairs(&labels, &pairs.gold, &pairs.rating)?;
    let overall = agreement(table, settings.bootstrap, settings.seed);
    let groups = by_group(pairs, &labels, settings.bootstrap, settings.seed)?;
    Ok(Analysis {
        source: settings.input.describe(),
        labels,
        bootstrap: settings.bootstrap,
        seed: settings.seed,
        overall,
        groups,
        only_in_gold: pairs.only_in_gold,
        only_in_ratings: pairs.only_in_ratings,
        dropped_gold: pairs.dropped_gold,
        dropped_ratings: pairs.dropped_ratings,
        annotators: None,
    })
}
