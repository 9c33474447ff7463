//! A calibrate run's record: what was rated, how, and what came of it. `commands::calibrate`
//! makes one, `commands::report` reads one back from its directory, and `report/` renders it.

use crate::evaluation::{Evaluation, RunRecord};
use crate::judge::cache::Cache;
use crate::raters::{CallTally, RatingRow};
use std::path::PathBuf;
use std::sync::Arc;

/// Metadata of a configuration, for reports and run.json.
#[derive(Debug, Clone)]
pub struct ConfigMeta {
    pub name: String,
    pub prompt: String,
    pub parser: String,
    pub rater: String,
    pub judge: String,
    pub model: String,
    pub temperature: f64,
    pub max_tokens: u32,
    pub simulated: bool,
    pub system: Option<String>,
    pub template: String,
    /// Its model's price (`--price`, an experiment file's `price`).
    pub price: Option<crate::judge::Price>,
}

/// What a run of any form says of itself: its name and directory, its data, seed and
/// bootstrap, the command line and when it ran.
#[derive(Debug, Clone)]
pub struct RunHead {
    pub name: String,
    pub dir: PathBuf,
    pub source: String,
    pub seed: u64,
    /// Each pair shown in both orders (pairwise configurations, on RewardBench 2 rows).
    pub both_orders: bool,
    pub bootstrap: usize,
    pub command: Vec<String>,
    pub created_unix: u64,
}

/// Everything about a run over pairs besides the ratings.
#[derive(Debug, Clone)]
pub struct RunMeta {
    pub head: RunHead,
    pub checksum: String,
    pub configs: Vec<ConfigMeta>,
    pub sort: crate::run::settings::SortKey,
    /// Which comparisons get a verdict (`--family`).
    pub family: crate::evaluation::Family,
    pub no_majority: usize,
    /// Conversations left out under `--unshared skip`, by id.
    pub unshared: Vec<String>,
    /// `--sequential`: the items' order and where the race ended.
    pub sequential: Option<SequentialRun>,
    /// `--estimate`: the label and α of the corrected estimates.
    pub estimate: Option<crate::evaluation::estimate::EstimateSettings>,
    /// `--alpha`: the significance level of every test and interval.
    pub alpha: f64,
}

/// A sequential run as run.json and `--json` keep it: the items' order, the race's end, and
/// the calls it saved.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SequentialRun {
    /// `shuffled` (seeded with the data seed) or `file` (`--no-shuffle`).
    pub order: String,
    pub seed: u64,
    #[serde(flatten)]
    pub raced: crate::evaluation::race::Raced,
    /// The calls the plan holds, and those of the items never asked.
    pub calls_planned: u64,
    pub calls_saved: u64,
}

/// A finished run: what was rated, how, and what came of it.
#[derive(Debug, Clone)]
pub struct Run {
    pub meta: RunMeta,
    pub record: RunRecord,
    pub evaluation: Evaluation,
    /// Per configuration, per item (absent for `report DIR`, which reads them from files).
    pub ratings: Option<Vec<Vec<RatingRow>>>,
    /// Per configuration, what its calls cost and how they failed (empty for `report DIR`).
    pub tallies: Vec<CallTally>,
    /// The response caches the judges used (none for `report DIR`).
    pub caches: Vec<Arc<Cache>>,
    /// Each item's prompt and responses as shown (absent for `report DIR`, which reads
    /// items.jsonl).
    pub texts: Option<Vec<[String; 3]>>,
    /// Conversations: each item's turns before its prompt (None when every item is single-turn,
    /// and for `report DIR`).
    pub histories: Option<Vec<std::sync::Arc<[crate::dataset::conversation::Turn]>>>,
}

impl Run {
    /// The evaluated record, as the sections render it.
    pub fn view(&self) -> crate::evaluation::Evaluated<'_> {
        crate::evaluation::Evaluated {
            record: &self.record,
            evaluation: &self.evaluation,
            sort: self.meta.sort.statistic(),
            max_tokens: self.meta.configs.iter().map(|c| c.max_tokens).collect(),
        }
    }
}

/// What a form's run says of itself to the commands, whatever the form: where it went, what
/// its calls cost and failed, and the caches it used (`session::finish` reads them).
pub trait Made {
    /// The run directory.
    fn dir(&self) -> &std::path::Path;
    /// Each configuration's name and what its calls cost and how they failed (none for
    /// `report DIR`).
    fn tallies(&self) -> Vec<(&str, &CallTally)>;
    /// The response caches the judges used (none for `report DIR`).
    fn caches(&self) -> &[Arc<Cache>];
}

impl Made for Run {
    fn dir(&self) -> &std::path::Path {
        &self.meta.head.dir
    }
    fn tallies(&self) -> Vec<(&str, &CallTally)> {
        self.meta
            .configs
            .iter()
            .map(|c| c.name.as_str())
            .zip(&self.tallies)
            .collect()
    }
    fn caches(&self) -> &[Arc<Cache>] {
        &self.caches
    }
}
