//! What `analyze`'s reading gives (the items, what the record carries beside them, what was
//! left out, long form's account) and the items as `calibrate`'s record: each rating column a
//! configuration, each row an item, and what the options name (probabilities, texts,
//! generators, annotators, long form's preferences) the analytics' inputs.

use crate::dataset::frame::Frame;
use crate::error::input_error;
use crate::evaluation::{
    Annotations, ConfigRecord, Cost, Outcome, ProbabilityRecord, RunRecord, Shape,
};
use crate::metrics::scale::Scale;
use crate::metrics::Labels;
use crate::run::settings::AnalyzeSettings;
use anyhow::Result;

/// The items, a column each: every item's row in the file (the two-file form: its place),
/// gold (None: unlabelled), each configuration's rating (None: no readable rating), its
/// probability and its group.
#[derive(Debug)]
pub struct Items {
    pub rows: Rows,
    pub gold: Vec<Option<i64>>,
    /// One column per configuration, one outcome per item (no readable rating: no verdict).
    pub outcomes: Vec<Vec<Outcome>>,
    pub p: Option<Vec<Option<f64>>>,
    /// Each item's group, interned (None: no group column).
    pub groups: Option<crate::dataset::labels::Groups>,
}

impl Items {
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.len() == 0
    }
}

/// Each item's row in the file (the two-file form: its place): item k is row k for the first
/// `n` rows (every row an item: no list, which would be a word per row), or the rows listed.
#[derive(Debug, Clone, PartialEq)]
pub enum Rows {
    Every(usize),
    Listed(Vec<usize>),
}

impl Rows {
    pub fn len(&self) -> usize {
        match self {
            Rows::Every(n) => *n,
            Rows::Listed(rows) => rows.len(),
        }
    }

    /// Item `k`'s row.
    pub fn get(&self, k: usize) -> usize {
        match self {
            Rows::Every(_) => k,
            Rows::Listed(rows) => rows[k],
        }
    }

    /// Each item's row, in item order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        (0..self.len()).map(|k| self.get(k))
    }
}

/// What the record carries beside its items when the reading gives it: the configurations'
/// names, the annotators' votes, the analytics' own inputs, the two responses' shapes (long
/// form's texts).
#[derive(Debug, Default)]
pub struct Extras {
    /// One per rating of a row (default: the rating column's).
    pub names: Vec<String>,
    pub annotators: Option<Annotations>,
    pub inputs: crate::evaluation::analytic::Inputs,
    pub shapes: Vec<[Shape; 2]>,
    /// The grades' scale, where the reading decided it (several annotators' gold is their mean
    /// on a graded scale).
    pub scale: Option<Scale>,
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
    /// How the annotator panel tells the annotators apart: by the annotation column's values
    /// (people), or by position where the values cannot say who.
    pub panel: crate::dataset::long::PanelKey,
    /// How many annotators the panel has.
    pub annotators: usize,
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

/// A record read and not yet built: the items' columns, what the options had read from the
/// file beside them (the responses' shapes, the generators), and the label set. It holds
/// nothing of the file, so the caller lets the tables go before building it.
#[derive(Debug)]
pub struct Unbuilt {
    items: Items,
    extras: Extras,
    labels: Labels,
    generators: Option<crate::evaluation::Generators>,
}

/// What `analyze` read, its record not yet built (`Read::loaded` builds it).
#[derive(Debug)]
pub struct Read {
    pub unbuilt: Unbuilt,
    pub reading: Reading,
    pub pairs: crate::dataset::labels::LabelPairs,
    pub long: Option<LongForm>,
}

impl Read {
    /// The record built: the loader's answer.
    pub fn loaded(self, settings: &AnalyzeSettings) -> Loaded {
        Loaded {
            record: self.unbuilt.build(settings),
            reading: self.reading,
            pairs: self.pairs,
            long: self.long,
        }
    }
}

/// The items, read for `calibrate`'s record: a configuration per rating column
/// (`extras.names`, else the rating column), each row an item (those without gold kept,
/// unlabelled), in file order, with what the analytics read when the options name it: the
/// probability column, the two responses (`--texts`: the bias diagnostics), the generators
/// (`--generators`: the system level), and `extras`. What the options name is read from
/// `frame` here; `Unbuilt::build` needs no file.
pub fn record(
    settings: &AnalyzeSettings,
    items: Items,
    mut extras: Extras,
    labels: &Labels,
    frame: Option<&Frame>,
) -> Result<Unbuilt> {
    if settings.columns.probability.is_some()
        && crate::evaluation::probability::sides(labels).is_none()
    {
        return Err(input_error(format!(
            "--probability needs two labels (negative, positive) or three (-1, tie, 1); the labels are {labels}"
        )));
    }
    let file_row = |k: usize| items.rows.get(k);
    let pairwise = labels.fits_pairwise();
    let needs_pairs = |flag: &str| {
        input_error(format!(
            "{}: {flag} reads pairwise ratings (-1 response 1 better, 0 tie, 1 response 2 better); the labels are {labels}: map them with --rating-map and --gold-map",
            settings.input.describe()
        ))
    };
    if let (Some(f), Some((a, b))) = (frame, &settings.long.texts) {
        if !pairwise {
            return Err(needs_pairs("--texts"));
        }
        let (a, b) = (
            f.text(a, "--texts", "response")?,
            f.text(b, "--texts", "response")?,
        );
        extras.shapes = (0..items.len())
            .map(|k| [Shape::of(&a[file_row(k)]), Shape::of(&b[file_row(k)])])
            .collect();
    }
    let scale = match extras.scale.take() {
        Some(s) => Some(s),
        None => {
            let votes = extras
                .annotators
                .iter()
                .flat_map(|a| a.votes.iter().flatten());
            let names = extras.annotators.as_ref().map(|a| a.label_names.as_slice());
            let ratings = items.outcomes.iter().flatten().filter_map(|o| o.rating());
            let values = items.gold.iter().flatten().chain(votes.flatten()).copied();
            scale_of(settings, values.chain(ratings), names.unwrap_or_default())
        }
    };
    if let (Some(s), Some(_)) = (&scale, &settings.scale) {
        on_scale(settings, &items, s)?;
    }
    // A binary scale's labels are 0 and 1, not the pairwise -1, 0, 1 its values fit in.
    let labels = match (&scale, &settings.labels) {
        (Some(Scale::Binary), None) if labels.as_slice() == crate::metrics::PAIRWISE => {
            Labels::new(vec![0, 1]).unwrap_or_else(|_| labels.clone())
        }
        _ => labels.clone(),
    };
    if let Some(s) = scale {
        extras.inputs.put(Box::new(s));
    }
    let generators = match (frame, &settings.systems) {
        (Some(f), Some(s)) => {
            if !pairwise {
                return Err(needs_pairs("--generators"));
            }
            Some(generators(s, f, &items.rows)?)
        }
        _ => None,
    };
    Ok(Unbuilt {
        items,
        extras,
        labels,
        generators,
    })
}

/// The grades' scale: `--scale`, else the one the labels say (`Scale::infer` over the gold, the
/// annotators' votes and every rating, with the labels' names).
pub fn scale_of(
    settings: &AnalyzeSettings,
    values: impl Iterator<Item = i64>,
    names: &[String],
) -> Option<Scale> {
    settings
        .scale
        .clone()
        .or_else(|| Scale::infer(values, names))
}

/// Every gold label and rating on the declared scale, else an error naming the row.
fn on_scale(settings: &AnalyzeSettings, items: &Items, scale: &Scale) -> Result<()> {
    let off = |k: usize, what: &str, v: i64| {
        input_error(format!(
            "{}: row {}: {what} {v} is off the scale {} (--scale); give the scale the grades are on, or map them with --gold-map/--rating-map",
            settings.input.describe(),
            items.rows.get(k) + 1,
            scale.describe()
        ))
    };
    for (k, g) in items.gold.iter().enumerate() {
        if let Some(g) = g.filter(|g| !scale.holds(*g)) {
            return Err(off(k, "the gold label", g));
        }
    }
    for column in &items.outcomes {
        for (k, o) in column.iter().enumerate() {
            if let Some(r) = o.rating().filter(|r| !scale.holds(*r)) {
                return Err(off(k, "the rating", r));
            }
        }
    }
    Ok(())
}

impl Unbuilt {
    /// The record: the items' columns moved into it, one configuration per rating column.
    pub fn build(self, settings: &AnalyzeSettings) -> RunRecord {
        let Unbuilt {
            mut items,
            extras,
            labels,
            generators,
        } = self;
        let n = items.len();
        let item_rows = crate::evaluation::Items::as_source(
            crate::evaluation::Texts::numbers(items.rows.iter().map(|r| r + 1)),
            items.groups,
            items.gold,
        );
        let names = if extras.names.is_empty() {
            vec![settings.columns.rating.clone()]
        } else {
            extras.names
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
                outcomes: std::mem::take(&mut items.outcomes[j]),
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
                        p: items.p.take().unwrap_or_else(|| vec![None; n]),
                        missing: Vec::new(),
                    }),
                jury: None,
            })
            .collect();
        RunRecord {
            labels,
            inputs: extras.inputs,
            items: item_rows,
            configs,
            both_orders: false,
            annotators: extras.annotators,
            shapes: extras.shapes,
            generators,
        }
    }
}

/// `--generators`: each item's two models and its prompt (the unit the bootstrap resamples),
/// from the file's `rows`, and the reference to rank them against.
pub fn generators(
    s: &crate::run::settings::SystemsSettings,
    frame: &Frame,
    rows: &Rows,
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
        .map(|r| [g1[r].clone(), g2[r].clone()])
        .collect();
    let mut generators = crate::evaluation::Generators::of(
        models
            .iter()
            .zip(rows.iter())
            .map(|(m, r)| (Some(m), prompts[r].as_str())),
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
