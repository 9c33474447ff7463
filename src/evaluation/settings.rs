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
    /// The significance level (`--alpha`): every test, every family's Holm steps, the
    /// significance groups, the power figures, and every interval at 1 − α.
    pub alpha: f64,
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
            alpha: super::paired::ALPHA,
            options: Options::default(),
        }
    }

    /// The level of every interval, 1 − α.
    pub fn level(&self) -> f64 {
        1.0 - self.alpha
    }

    /// How the intervals are drawn: `--bootstrap` redraws from `--seed`, at 1 − α.
    pub fn resampling(&self) -> crate::metrics::Resampling {
        crate::metrics::Resampling {
            resamples: self.bootstrap,
            seed: self.seed,
            level: self.level(),
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

/// `--alpha A`: a significance level in (0, 1).
pub fn alpha(alpha: f64) -> anyhow::Result<f64> {
    if alpha > 0.0 && alpha < 1.0 {
        return Ok(alpha);
    }
    Err(crate::error::input_error(format!(
        "--alpha {alpha}: the significance level is a number between 0 and 1, e.g. 0.05 for 95% intervals"
    )))
}
