//! Data options checked into settings, and the examples they load (`data`, `calibrate`, `rate`).

use crate::dataset::examples::{self, Example};
use crate::dataset::hub::Progress;
use crate::dataset::labels::NoMajority;
use crate::dataset::rewardbench2::{self, Shown};
use crate::dataset::sections::Section;
use crate::dataset::select::Selection;
use crate::dataset::source::{self, DataSpec, Mapping};
use crate::error::input_error;
use crate::run::settings::DataOptions;
use anyhow::Result;

/// Validated dataset settings.
#[derive(Debug, Clone)]
pub struct DataSettings {
    pub spec: DataSpec,
    pub mapping: Option<Mapping>,
    pub selection: Selection,
    pub seed: u64,
    pub both_orders: bool,
    pub unshared: crate::dataset::conversation_file::Unshared,
    /// `--labels STORE` and whether its gold overrides the file's.
    pub labels: Option<(std::path::PathBuf, bool)>,
}

impl DataSettings {
    pub fn from_options(args: DataOptions) -> Result<Self> {
        let mapping = if args.map.is_empty() && args.gold_map.is_empty() {
            None
        } else if args.map.is_empty() {
            // `--gold-map` alone: it reads the values of the label column that `--map` names.
            return Err(input_error(format!(
                "--gold-map {} maps the values of a label column, which --map names: give it with --map response1=COL,response2=COL,label=COL; reward-bench's files and RewardBench 2's rows carry their own gold, so leave --gold-map out for them",
                args.gold_map.join(",")
            )));
        } else {
            let mut m = Mapping::parse(&args.map, &args.gold_map)?;
            m.no_majority = args.no_majority;
            Some(m)
        };
        let sections = args
            .section
            .iter()
            .map(|s| {
                Section::parse(s).ok_or_else(|| {
                    input_error(format!(
                        "--section '{s}' is not a reward-bench section; use chat, chat-hard, safety or reasoning"
                    ))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Self {
            spec: DataSpec::parse(&args.data),
            mapping,
            selection: Selection {
                subsets: args.subset,
                sections,
                limit: args.limit,
                per_subset: args.per_subset,
                seed: args.seed,
            },
            seed: args.seed,
            both_orders: args.both_orders,
            unshared: args.unshared,
            labels: args.labels.map(|p| (p, args.labels_override)),
        })
    }
}

/// Examples ready for rating.
#[derive(Debug, Clone)]
pub struct Dataset {
    pub source: String,
    pub seed: u64,
    pub both_orders: bool,
    pub examples: Vec<Example>,
    /// Pairs whose annotators had no majority (left out, or kept as ties).
    pub no_majority: usize,
    /// With several annotators: their label columns, and the no-majority policy.
    pub annotators: Vec<String>,
    pub no_majority_policy: NoMajority,
    /// RM-Bench data: nine pairs per prompt, scored by `evaluation::rmbench` too.
    pub rmbench: bool,
    /// Conversations left out because their sides differ before the last replies
    /// (`--unshared skip`), by id.
    pub unshared: Vec<String>,
}

/// With several annotators: their agreement and the human ceiling (`bootstrap` resamples for
/// the CIs, seeded with the data seed), by the annotator analytic's panel.
pub fn annotator_report(
    d: &Dataset,
    bootstrap: usize,
) -> Option<crate::evaluation::annotators::AnnotatorReport> {
    let labels = crate::metrics::Labels::pairwise();
    crate::evaluation::annotators::panel(
        &d.annotations()?,
        &labels,
        None,
        crate::metrics::Resampling::at95(bootstrap, d.seed),
    )
}

impl Dataset {
    /// Every annotator's label per item, when several annotators give the gold.
    pub fn annotations(&self) -> Option<crate::evaluation::Annotations> {
        (!self.annotators.is_empty()).then(|| crate::evaluation::Annotations {
            names: self.annotators.clone(),
            votes: self.examples.iter().map(|e| e.votes.clone()).collect(),
            order: match self.examples.iter().any(|e| !e.vote_order.is_empty()) {
                true => self.examples.iter().map(|e| e.vote_order.clone()).collect(),
                false => Vec::new(),
            },
            no_majority: self.no_majority,
            policy: self.no_majority_policy.name().to_string(),
            label_names: Vec::new(),
        })
    }
}

/// RewardBench 2's rows, each shown in its seeded order.
#[derive(Debug, Clone)]
pub struct Rb2Set {
    pub source: String,
    pub seed: u64,
    pub rows: Vec<Shown>,
}

/// What `--data` holds: pairs (reward-bench's first version, mapped files) or RewardBench 2's
/// rows.
#[derive(Debug, Clone)]
pub enum Rows {
    Pairs(Dataset),
    RewardBench2(Rb2Set),
}

/// The data in whichever form it comes, selected.
pub fn load_rows(settings: &DataSettings, progress: &dyn Progress) -> Result<Rows> {
    let mut loaded = source::load(
        &settings.spec,
        (settings.mapping.as_ref(), settings.unshared),
        progress,
    )?;
    if let Some(rows) = loaded.rewardbench2.take() {
        if settings.labels.is_some() {
            return Err(input_error(format!(
                "{}: --labels gives gold to pairs; RewardBench 2's rows carry their own (one chosen of four)",
                loaded.source
            )));
        }
        return Ok(Rows::RewardBench2(Rb2Set {
            source: loaded.source,
            seed: settings.seed,
            rows: rewardbench2::show(settings.selection.apply(rows)?, settings.seed),
        }));
    }
    Ok(Rows::Pairs(pairs_dataset(settings, loaded)?))
}

/// Pairs ready for rating; RewardBench 2 data is refused with what reads it.
pub fn load(settings: &DataSettings, progress: &dyn Progress) -> Result<Dataset> {
    match load_rows(settings, progress)? {
        Rows::Pairs(dataset) => Ok(dataset),
        Rows::RewardBench2(set) => Err(input_error(format!(
            "{} is RewardBench 2 data (rows of several completions, some correct): `raterlab data summary` and `raterlab calibrate` (every protocol) read it, this command does not yet; for pairwise data use reward-bench's first version (--data filtered) or a pairwise file",
            set.source
        ))),
    }
}

fn pairs_dataset(settings: &DataSettings, loaded: source::Loaded) -> Result<Dataset> {
    // RM-Bench: prompts are selected whole (`--limit` counts prompts), then become pairs.
    let rmbench = loaded.rmbench.is_some();
    let pairs = match loaded.rmbench {
        Some(prompts) => crate::dataset::rmbench::pairs(settings.selection.apply(prompts)?),
        None => settings.selection.apply(loaded.pairs)?,
    };
    let mut dataset = Dataset {
        rmbench,
        unshared: loaded.unshared,
        source: loaded.source,
        seed: settings.seed,
        both_orders: settings.both_orders,
        examples: examples::build(pairs, settings.seed, settings.both_orders),
        no_majority: loaded.no_majority,
        annotators: loaded.annotators,
        no_majority_policy: settings
            .mapping
            .as_ref()
            .map_or(NoMajority::Drop, |m| m.no_majority),
    };
    if let Some((store, overrides)) = &settings.labels {
        let file_annotators = !dataset.annotators.is_empty();
        let (sources, annotators) = crate::run::gold::apply(
            &mut dataset.examples,
            (&mut dataset.source, file_annotators),
            store,
            *overrides,
        )?;
        if let Some(names) = annotators {
            dataset.annotators = names;
            dataset.no_majority = sources.contested;
        }
    }
    Ok(dataset)
}
