//! A calibrate run's record: what was rated, how, and what came of it. `commands::calibrate`
//! makes one, `commands::report` reads one back from its directory, and `report/` renders it.

use crate::dataset::rewardbench2::Shown;
use crate::error::input_error;
use crate::evaluation::cost::Frontier;
use crate::evaluation::rewardbench2::analytics;
use crate::evaluation::rewardbench2::analytics::Paired;
use crate::evaluation::rewardbench2::record::Rb2Rows;
use crate::evaluation::rewardbench2::score::{Rb2Config, Rb2Scores};
use crate::evaluation::{Evaluation, RunRecord};
use crate::judge::cache::Cache;
use crate::raters::{CallTally, RatingRow};
use anyhow::Result;
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

/// A RewardBench 2 run: its rows' pairs as the one record (`evaluation::rewardbench2::record`)
/// and the registry's evaluation of it, the RewardBench 2 analytic's scores among its results
/// ([`Rb2Run::scores`]): nothing here is held twice.
#[derive(Debug, Clone)]
pub struct Rb2Run {
    pub head: crate::run::record::RunHead,
    /// `--alpha`: the comparisons' level and every interval's (1 − α).
    pub alpha: f64,
    /// The rows' pairs (each row's correct completion against each other one), with the rows
    /// themselves in its inputs.
    pub record: RunRecord,
    /// The registry's analytics on the record, the RewardBench 2 analytic's scores among them
    /// (read by [`Rb2Run::scores`]).
    pub evaluation: Evaluation,
    /// The judges' response caches.
    pub caches: Vec<std::sync::Arc<crate::judge::cache::Cache>>,
    /// `--sort accuracy`: the configurations shown by their leaderboard, the best first (else
    /// in the plan's order).
    pub by_score: bool,
}

impl Rb2Run {
    /// A run evaluated by the registry: who it is, its α and `--sort accuracy`, its record and
    /// evaluation (with its RewardBench 2 scores), and the judges' caches (`calibrate` and
    /// `report DIR` both make one here).
    pub fn of(
        head: RunHead,
        (alpha, by_score): (f64, bool),
        record: RunRecord,
        evaluation: Evaluation,
        caches: Vec<Arc<Cache>>,
    ) -> Self {
        Rb2Run {
            head,
            alpha,
            record,
            evaluation,
            caches,
            by_score,
        }
    }

    /// The RewardBench 2 analytic's result: every configuration's scores, the paired
    /// comparisons, where the configurations stand and the cost frontier (none when the
    /// analytic did not run).
    pub fn scores(&self) -> &Rb2Scores {
        static NONE: Rb2Scores = Rb2Scores {
            family: crate::evaluation::Family::Best,
            configs: Vec::new(),
            comparisons: Vec::new(),
            standing: None,
            cost_frontier: None,
        };
        self.evaluation.of_run().unwrap_or(&NONE)
    }

    /// Every configuration's scores, in the plan's order.
    pub fn configs(&self) -> &[Rb2Config] {
        &self.scores().configs
    }

    /// Every pair of configurations, paired bootstrap, Holm-adjusted.
    pub fn comparisons(&self) -> &[Paired] {
        &self.scores().comparisons
    }

    /// The cost frontier of the compared score (None with fewer than two on the chart).
    pub fn cost_frontier(&self) -> Option<&Frontier> {
        self.scores().cost_frontier.as_ref()
    }

    /// The order, the best (the one rule's), the runner-up, those not ranked and the group no
    /// comparison finds worse than the best (None without configurations).
    pub fn standing(&self) -> Option<&analytics::Standing> {
        self.scores().standing.as_ref()
    }

    /// The rows as shown (completions in their slots).
    pub fn shown(&self) -> &[Shown] {
        self.record
            .inputs
            .get::<Rb2Rows>()
            .map_or(&[], |input| input.rows.as_slice())
    }

    /// The best, then the configurations no comparison finds worse than it.
    pub fn group(&self) -> &[usize] {
        self.standing().map_or(&[], |s| s.group.as_slice())
    }

    /// The evaluated record, as the registry's sections render it (on reward-bench's score,
    /// an accuracy; a RewardBench 2 run keeps no completion budget).
    pub fn view(&self) -> crate::evaluation::Evaluated<'_> {
        crate::evaluation::Evaluated {
            record: &self.record,
            evaluation: &self.evaluation,
            sort: crate::metrics::Statistic::Accuracy,
            max_tokens: vec![0; self.record.configs.len()],
        }
    }
}

impl Made for Rb2Run {
    fn dir(&self) -> &std::path::Path {
        &self.head.dir
    }
    fn tallies(&self) -> Vec<(&str, &CallTally)> {
        self.configs()
            .iter()
            .map(|c| (c.name.as_str(), &c.tally))
            .collect()
    }
    fn caches(&self) -> &[std::sync::Arc<crate::judge::cache::Cache>] {
        &self.caches
    }
}

/// What `--sort` means on RewardBench 2 rows: their one score is an accuracy (reward-bench's
/// leaderboard), so `accuracy` orders the configurations by it; the agreement statistics have
/// no value on best-of-4 rows and are refused before any call.
pub fn by_score(sort: Option<crate::run::settings::SortKey>) -> Result<bool> {
    use crate::run::settings::SortKey;
    match sort {
        None => Ok(false),
        Some(SortKey::Accuracy) => Ok(true),
        Some(other) => Err(input_error(format!(
            "--sort {}: RewardBench 2 rows are scored by accuracy (reward-bench's leaderboard: a row right, wrong, or 1/k on tied grades), which has no {}; use --sort accuracy, or leave --sort out for the plan's order",
            other.key(),
            other.key()
        ))),
    }
}
