//! What `analyze`'s reading gives (the items, what the record carries beside them, what was
//! left out, long form's account) and the items as `calibrate`'s record: each rating column a
//! configuration, each row an item, and what the options name (probabilities, texts,
//! generators, annotators, long form's preferences) the analytics' inputs.

use crate::dataset::frame::Frame;
use crate::error::input_error;
use crate::evaluation::{
    Annotations, ConfigRecord, Cost, ItemRow, Outcome, ProbabilityRecord, RunRecord, Shape,
};
use crate::metrics::Labels;
use crate::run::settings::AnalyzeSettings;
use anyhow::Result;

/// An item: its row in the file (the two-file form: its place), gold (None: unlabelled), each
/// configuration's rating (None: no readable rating), its probability and group.
pub struct Row {
    pub row: usize,
    pub gold: Option<i64>,
    pub ratings: Vec<Option<i64>>,
    pub p: Option<f64>,
    pub group: String,
}

/// What the record carries beside its items when the reading gives it: the configurations'
/// names, the annotators' votes, the analytics' own inputs, the two responses' shapes (long
/// form's texts).
#[derive(Default)]
pub struct Extras {
    /// One per rating of a row (default: the rating column's).
    pub names: Vec<String>,
    pub annotators: Option<Annotations>,
    pub inputs: crate::evaluation::analytic::Inputs,
    pub shapes: Vec<[Shape; 2]>,
}

/// What `analyze` read: the record, what the reading left out, long form's account, and the
/// first rating column's aligned pairs (what the sequential comparison and the estimate read).
#[derive(Debug)]
pub struct Loaded {
    pub record: RunRecord,
    pub reading: Reading,
    pub pairs: crate::dataset::labels::LabelPairs,
    pub long: Option<LongForm>,
}

/// What the reading left out.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Reading {
    /// Ids in one file only (two-file form).
    pub only_in_gold: usize,
    pub only_in_ratings: usize,
    /// Rated items without a gold label (an empty gold cell, or no gold row): counted, in no
    /// agreement measure.
    pub unlabelled: usize,
    /// Rows whose label could not be read (`--unreadable drop`).
    pub dropped_gold: usize,
    pub dropped_ratings: usize,
}

impl Reading {
    /// What reading `pairs` left out.
    pub fn of(pairs: &crate::dataset::labels::LabelPairs) -> Reading {
        Reading {
            only_in_gold: pairs.only_in_gold,
            only_in_ratings: pairs.only_in_ratings,
            unlabelled: pairs.unlabelled.len(),
            dropped_gold: pairs.dropped_gold,
            dropped_ratings: pairs.dropped_ratings,
        }
    }
}

/// What long form read.
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
    /// Whether the labels are pairwise, as AlpacaEval's evaluator measures need.
    #[serde(skip)]
    pub pairwise: bool,
}

/// The items as `calibrate`'s record: a configuration per rating column (`extras.names`, else
/// the rating column), each row an item (those without gold kept, unlabelled), in file order,
/// with what the analytics read when the options name it: the probability column, the two
/// responses (`--texts`: the bias diagnostics), the generators (`--generators`: the system
/// level), and `extras`.
pub fn record(
    settings: &AnalyzeSettings,
    mut rows: Vec<Row>,
    extras: Extras,
    labels: &Labels,
    frame: Option<&Frame>,
) -> Result<RunRecord> {
    if settings.columns.probability.is_some()
        && crate::evaluation::probability::sides(labels).is_none()
    {
        return Err(input_error(format!(
            "--probability needs two labels (negative, positive) or three (-1, tie, 1); the labels are {labels}"
        )));
    }
    // Each row's group moves into its item.
    let items: Vec<ItemRow> = rows
        .iter_mut()
        .map(|r| {
            let id: std::sync::Arc<str> = (r.row + 1).to_string().into();
            ItemRow {
                pair_id: id.clone(),
                id,
                subset: std::mem::take(&mut r.group),
                order: crate::dataset::examples::Order::AsSource,
                gold: r.gold,
                seeded: true,
            }
        })
        .collect();
    let file_row = |k: usize| rows[k].row;
    let pairwise = labels.fits_pairwise();
    let needs_pairs = |flag: &str| {
        input_error(format!(
            "{}: {flag} reads pairwise ratings (-1 response 1 better, 0 tie, 1 response 2 better); the labels are {labels}: map them with --rating-map and --gold-map",
            settings.input.describe()
        ))
    };
    let texts = match (frame, &settings.long.texts) {
        (Some(f), Some((a, b))) => {
            if !pairwise {
                return Err(needs_pairs("--texts"));
            }
            Some((
                f.text(a, "--texts", "response")?,
                f.text(b, "--texts", "response")?,
            ))
        }
        _ => None,
    };
    let shapes = texts.map_or(extras.shapes, |(a, b)| {
        (0..rows.len())
            .map(|k| [Shape::of(&a[file_row(k)]), Shape::of(&b[file_row(k)])])
            .collect()
    });
    let generators = match (frame, &settings.systems) {
        (Some(f), Some(s)) => {
            if !pairwise {
                return Err(needs_pairs("--generators"));
            }
            Some(generators(
                s,
                f,
                &(0..rows.len()).map(file_row).collect::<Vec<_>>(),
            )?)
        }
        _ => None,
    };
    let names = if extras.names.is_empty() {
        vec![settings.columns.rating.clone()]
    } else {
        extras.names.clone()
    };
    let configs = names
        .into_iter()
        .enumerate()
        .map(|(j, name)| ConfigRecord {
            name,
            prompt: String::new(),
            rater: "basic".into(),
            kind: Some(crate::raters::RaterKind::Basic),
            judge: String::new(),
            simulated: false,
            outcomes: rows
                .iter()
                .map(|r| r.ratings[j].map_or(Outcome::NoVerdict, Outcome::Rated))
                .collect(),
            cost: Cost::default(),
            reasons: Vec::new(),
            pointwise: None,
            samples: None,
            // The probability column belongs to the one rating column.
            probability: settings
                .columns
                .probability
                .as_ref()
                .filter(|_| j == 0)
                .map(|column| ProbabilityRecord {
                    source: column.clone(),
                    p: rows.iter().map(|r| r.p).collect(),
                    missing: Vec::new(),
                }),
            jury: None,
        })
        .collect();
    Ok(RunRecord {
        labels: labels.clone(),
        inputs: extras.inputs,
        items,
        configs,
        both_orders: false,
        annotators: extras.annotators,
        shapes,
        generators,
    })
}

/// `--generators`: each item's two models and its prompt (the unit the bootstrap resamples),
/// from the file's `rows`, and the reference to rank them against.
pub fn generators(
    s: &crate::run::settings::SystemsSettings,
    frame: &Frame,
    rows: &[usize],
) -> Result<crate::evaluation::Generators> {
    use crate::evaluation::Reference;
    let g1 = frame.text(&s.generators.0, "--generators", "model")?;
    let g2 = frame.text(&s.generators.1, "--generators", "model")?;
    let prompts = match &s.prompt {
        Some(c) => frame.text(c, "--prompt-col", "prompt")?,
        None => (0..frame.height()).map(|r| r.to_string()).collect(),
    };
    let models: Vec<[String; 2]> = rows
        .iter()
        .map(|&r| [g1[r].clone(), g2[r].clone()])
        .collect();
    let mut generators = crate::evaluation::Generators::of(
        models
            .iter()
            .zip(rows)
            .map(|(m, &r)| (Some(m), prompts[r].as_str())),
    )
    .ok_or_else(|| input_error("--generators: no row to rank models by"))?;
    generators.reference = match &s.reference {
        None => None,
        Some(crate::run::settings::ReferenceSpec::Gold) => Some(Reference::Gold),
        Some(crate::run::settings::ReferenceSpec::Table { path, model, score }) => {
            Some(Reference::Table {
                source: format!("{} ({score})", path.display()),
                scores: crate::dataset::reference::read(path, (model, score))?,
            })
        }
    };
    Ok(generators)
}
