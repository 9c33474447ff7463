//! What an evaluation is told: the settings every part reads (resamples, seed, the sort
//! metric, the comparisons' family) and the analytics' own settings, by type.

use super::family::Family;
use super::record::CostSettings;
use crate::metrics::Statistic;

/// Bootstrap resamples for intervals and paired tests unless told otherwise (`--bootstrap`;
/// `data summary`'s annotator panel).
pub const DEFAULT_BOOTSTRAP: usize = 1000;

/// Evaluation settings: what every part of the evaluation reads, and the analytics' own
/// settings by type (`options`), so that an analytic's setting is no field here.
#[derive(Debug, Clone)]
pub struct EvalSettings {
    pub bootstrap: usize,
    pub seed: u64,
    /// The sort metric, the one the best is chosen on (`--sort`).
    pub sort: Statistic,
    /// Which comparisons get a verdict (`--family`).
    pub family: Family,
    /// The analytics' own settings (the cost analysis's `CostSettings`, ...).
    pub options: Options,
}

impl EvalSettings {
    /// `bootstrap` resamples seeded with `seed`, the default sort metric and family, no
    /// analytic's settings (each takes its default).
    pub fn new(bootstrap: usize, seed: u64) -> Self {
        Self {
            bootstrap,
            seed,
            sort: CostSettings::default().metric,
            family: Family::default(),
            options: Options::default(),
        }
    }

    /// The sort metric, the one the best is chosen on.
    pub fn sort(&self) -> Statistic {
        self.sort
    }

    /// An analytic's settings of type `T`: what the command put, else `T`'s default.
    pub fn option<T: std::any::Any + Default + Clone + Send + Sync>(&self) -> T {
        self.options.get::<T>().cloned().unwrap_or_default()
    }
}

/// The analytics' settings, one value per type: a command puts what its flags say (`with`), an
/// analytic reads its own (`EvalSettings::option`). Cheap to clone.
#[derive(Clone, Default)]
pub struct Options(Vec<std::sync::Arc<dyn std::any::Any + Send + Sync>>);

impl Options {
    /// These options with `value` (replacing one of its type).
    pub fn with<T: std::any::Any + Send + Sync>(mut self, value: T) -> Self {
        self.0.retain(|v| !v.is::<T>());
        self.0.push(std::sync::Arc::new(value));
        self
    }

    /// The value of type `T`, if put.
    pub fn get<T: std::any::Any>(&self) -> Option<&T> {
        self.0.iter().find_map(|v| v.downcast_ref::<T>())
    }
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Options({} values)", self.0.len())
    }
}
