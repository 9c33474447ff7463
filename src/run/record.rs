//! A calibrate run's record: what was rated, how, and what came of it. `commands::calibrate`
//! makes one, `commands::report` reads one back from its directory, and `report/` renders it.

use crate::dataset::rewardbench2::Shown;
use crate::error::input_error;
use crate::evaluation::rewardbench2::record::Rb2Rows;
use crate::evaluation::rewardbench2::score::Rb2Scores;
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

/// The form of a run's data: a plan's default prompts and raters, its scoring and its run
/// directory's files differ. run.json's `data.form` names it (`pairs`, `rewardbench2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Form {
    /// Pairs (reward-bench's first version, mapped files).
    #[default]
    Pairs,
    /// RewardBench 2's best-of-4 rows.
    RewardBench2,
}

/// Everything about a run besides its record: who it is, its form, and the settings its
/// evaluation took.
#[derive(Debug, Clone)]
pub struct RunMeta {
    pub head: RunHead,
    /// Pairs, or RewardBench 2's best-of-4 rows (their rows are an input of the record).
    pub form: Form,
    /// SHA-256 of the examples as the judge saw them (pairs; empty for RewardBench 2 rows).
    pub checksum: String,
    /// Each configuration's settings as called (pairs; none for RewardBench 2 rows, whose
    /// run.json keeps its own).
    pub configs: Vec<ConfigMeta>,
    /// `--sort` as given (or the run's own); None: the form's own order ([`RunMeta::sort_key`]).
    pub sort: Option<crate::run::settings::SortKey>,
    /// Which comparisons get a verdict (`--family`).
    pub family: crate::evaluation::Family,
    pub no_majority: usize,
    /// Conversations left out under `--unshared skip`, by id.
    pub unshared: Vec<String>,
    /// `--sequential`: the items' order and where the race ended.
    pub sequential: Option<SequentialRun>,
    /// `--estimate`: the label and α of the corrected estimates.
    pub estimate: Option<crate::evaluation::estimate::EstimateSettings>,
    /// `--alt-test`: its ε and options (off without ε).
    pub alt_test: crate::evaluation::alt_test::AltTestSettings,
    /// `--alpha`: the significance level of every test and interval.
    pub alpha: f64,
}

impl RunMeta {
    /// The statistic the configurations are ordered by: `--sort`, else the form's (pairs: the
    /// default; RewardBench 2 rows: reward-bench's score, an accuracy, shown in the plan's
    /// order unless `--sort accuracy`).
    pub fn sort_key(&self) -> crate::run::settings::SortKey {
        use crate::run::settings::SortKey;
        self.sort.unwrap_or(match self.form {
            Form::Pairs => SortKey::default(),
            Form::RewardBench2 => SortKey::Accuracy,
        })
    }
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
    /// What of its directory was written beside its evaluation (None: nothing yet).
    pub early: Option<Early>,
}

/// What of a run directory needs no evaluation and was written beside it
/// (`commands::calibrate::session::evaluate_beside`): the record's files (items.jsonl,
/// ratings.csv/.parquet), and the item browser's data for report.html (None: the page has no
/// browser).
#[derive(Debug, Clone)]
pub struct Early {
    pub browser: Option<String>,
}

impl Run {
    /// A run as its record and evaluation, with nothing of its rating kept (`report DIR`, and
    /// RewardBench 2 rows, whose answers are in their outcomes).
    pub fn evaluated(meta: RunMeta, record: RunRecord, evaluation: Evaluation) -> Self {
        Run {
            meta,
            record,
            evaluation,
            ratings: None,
            tallies: Vec::new(),
            caches: Vec::new(),
            texts: None,
            histories: None,
            early: None,
        }
    }

    /// The evaluated record, as the sections render it (each configuration's completion
    /// budget, 0 where the run keeps none: RewardBench 2 rows).
    pub fn view(&self) -> crate::evaluation::Evaluated<'_> {
        let budget = |k: usize| self.meta.configs.get(k).map_or(0, |c| c.max_tokens);
        let max_tokens = (0..self.record.configs.len()).map(budget).collect();
        crate::evaluation::Evaluated {
            record: &self.record,
            evaluation: &self.evaluation,
            sort: self.meta.sort_key().statistic(),
            max_tokens,
        }
    }

    /// The RewardBench 2 analytic's result: every configuration's scores, the paired
    /// comparisons, where the configurations stand and the cost frontier (empty on pairs, where
    /// the analytic does not run).
    pub fn rewardbench2(&self) -> &Rb2Scores {
        static NONE: Rb2Scores = Rb2Scores {
            family: crate::evaluation::Family::Best,
            configs: Vec::new(),
            comparisons: Vec::new(),
            standing: None,
            cost_frontier: None,
        };
        self.evaluation.of_run().unwrap_or(&NONE)
    }

    /// RewardBench 2's rows as shown, completions in their slots (none on pairs).
    pub fn shown(&self) -> &[Shown] {
        self.record
            .inputs
            .get::<Rb2Rows>()
            .map_or(&[], |input| input.rows.as_slice())
    }
}

impl Run {
    /// Each configuration's name and what its calls cost and how they failed (none for
    /// `report DIR`), as `calibrate`'s finish reports them.
    pub fn named_tallies(&self) -> impl Iterator<Item = (&str, &CallTally)> {
        self.record
            .configs
            .iter()
            .map(|c| c.name.as_str())
            .zip(&self.tallies)
    }
}

impl Form {
    /// `--sort` as the form takes it (None: the form's own order). On RewardBench 2 rows the
    /// one score is an accuracy (reward-bench's leaderboard), so `accuracy` orders the
    /// configurations by it; the agreement statistics have no value on best-of-4 rows and are
    /// refused before any call.
    pub fn sort(
        self,
        sort: Option<crate::run::settings::SortKey>,
    ) -> Result<Option<crate::run::settings::SortKey>> {
        use crate::run::settings::SortKey;
        match (self, sort) {
            (Form::Pairs, _) | (Form::RewardBench2, None | Some(SortKey::Accuracy)) => Ok(sort),
            (Form::RewardBench2, Some(other)) => Err(input_error(format!(
            "--sort {}: RewardBench 2 rows are scored by accuracy (reward-bench's leaderboard: a row right, wrong, or 1/k on tied grades), which has no {}; use --sort accuracy, or leave --sort out for the plan's order",
            other.key(),
            other.key()
        ))),
        }
    }
}
