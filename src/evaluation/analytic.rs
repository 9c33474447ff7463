//! An analytic's evaluation: one type in the analytic's evaluation file implements
//! [`Analytic`], and its report section (`report::calibrate::section`) hands it to
//! [`super::evaluate`]. What it finds is kept by type in [`Findings`] at the level it belongs
//! to (a scope, a configuration, the run), so adding an analytic adds no field to the
//! evaluation's result types.

use super::{ConfigRecord, ConfigResult, EvalSettings, RunRecord};
use std::fmt;

pub use super::kept::{kept, Findings, Inputs, Kept};

/// What an analytic finds over the run: its own result, and each configuration's.
#[derive(Debug, Default)]
pub struct Found {
    pub run: Option<Box<dyn Kept>>,
    /// One per configuration (or empty).
    pub configs: Vec<Option<Box<dyn Kept>>>,
}

impl Found {
    /// The run's result only.
    pub fn of_run(run: Option<Box<dyn Kept>>) -> Found {
        Found {
            run,
            configs: Vec::new(),
        }
    }

    /// A result per configuration only.
    pub fn per_config(configs: impl IntoIterator<Item = Option<Box<dyn Kept>>>) -> Found {
        Found {
            run: None,
            configs: configs.into_iter().collect(),
        }
    }
}

/// What every analytic is given: the run, the settings, and the analytics (so that a scope
/// evaluated through it, `Context::scope`, carries every analytic's part).
#[derive(Debug)]
pub struct Context<'a> {
    pub run: &'a RunRecord,
    pub settings: EvalSettings,
    pub analytics: &'a [&'a dyn Analytic],
}

impl Context<'_> {
    /// The items at `indices` for one configuration, every analytic's scope part with them.
    pub fn scope(&self, config: &ConfigRecord, indices: &[usize]) -> super::Scope {
        super::scope(self, config, indices)
    }
}

/// An analytic's own grouping of the items (conversations by depth): each group is scored
/// as a scope of every configuration (`ConfigResult::grouped`), shown under `key` in a
/// configuration's `--json` object and as `{prefix}{name}` scopes in metrics.csv.
#[derive(Debug, Clone, PartialEq)]
pub struct Grouping {
    pub key: &'static str,
    pub prefix: &'static str,
    /// Each group's name and items, in the order shown.
    pub groups: Vec<(String, Vec<usize>)>,
}

/// An analytic's evaluation. Every method has a default for an analytic without that part.
pub trait Analytic: Sync + fmt::Debug {
    /// Its grouping of the items, scored as scopes like the subsets (None: none).
    fn grouping(&self, _cx: &Context) -> Option<Grouping> {
        None
    }
    /// Its result for the items at `indices` of one configuration (a subset, a depth, all).
    fn scope(
        &self,
        _cx: &Context,
        _config: &ConfigRecord,
        _indices: &[usize],
    ) -> Option<Box<dyn Kept>> {
        None
    }
    /// Its results over the run, given every configuration's scopes.
    fn run(&self, _cx: &Context, _configs: &[ConfigResult]) -> Found {
        Found::default()
    }
}
