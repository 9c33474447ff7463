//! An analytic's evaluation: one type in the analytic's evaluation file implements
//! [`Analytic`], and its report section (`report::calibrate::section`) hands it to
//! [`super::evaluate`]. What it finds is kept by type in [`Findings`] at the level it belongs
//! to (a scope, a configuration, the run), so adding an analytic adds no field to the
//! evaluation's result types.

use super::{ConfigRecord, ConfigResult, EvalSettings, RunRecord};
use std::any::Any;
use std::fmt;

/// A result an analytic keeps: any plain value (each analytic's own result types).
pub trait Kept: Any + fmt::Debug + Send + Sync {
    fn as_any(&self) -> &dyn Any;
    fn boxed(&self) -> Box<dyn Kept>;
    fn same(&self, other: &dyn Kept) -> bool;
}

impl<T: Any + fmt::Debug + Clone + PartialEq + Send + Sync> Kept for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn boxed(&self) -> Box<dyn Kept> {
        Box::new(self.clone())
    }
    fn same(&self, other: &dyn Kept) -> bool {
        other.as_any().downcast_ref::<T>() == Some(self)
    }
}

/// The analytics' results at one level, one per type.
#[derive(Debug, Default)]
pub struct Findings(Vec<Box<dyn Kept>>);

impl Findings {
    /// The result of type `T`, if an analytic found one.
    pub fn get<T: Any>(&self) -> Option<&T> {
        self.0.iter().find_map(|f| f.as_any().downcast_ref::<T>())
    }

    /// Keeps `finding`. Two analytics never keep a result of one type at one level (checked
    /// in debug builds, which the tests run for every analytic).
    pub fn put(&mut self, finding: Box<dyn Kept>) {
        let ty = finding.as_any().type_id();
        debug_assert!(
            self.0.iter().all(|f| f.as_any().type_id() != ty),
            "two analytics keep a result of one type at one level"
        );
        self.0.push(finding);
    }
}

impl Clone for Findings {
    fn clone(&self) -> Self {
        Findings(self.0.iter().map(|f| f.boxed()).collect())
    }
}

impl PartialEq for Findings {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len()
            && self
                .0
                .iter()
                .all(|f| other.0.iter().any(|g| f.same(g.as_ref())))
    }
}

/// A finding to keep, boxed; `None` when there is nothing to keep.
pub fn kept<T: Kept>(value: Option<T>) -> Option<Box<dyn Kept>> {
    value.map(|v| Box::new(v) as Box<dyn Kept>)
}

/// What an analytic finds over the run: its own result, and each configuration's.
#[derive(Debug, Default)]
pub struct Found {
    pub run: Option<Box<dyn Kept>>,
    /// One per configuration (or empty).
    pub configs: Vec<Option<Box<dyn Kept>>>,
}

impl Found {
    /// A result per configuration only.
    pub fn per_config(configs: impl IntoIterator<Item = Option<Box<dyn Kept>>>) -> Found {
        Found {
            run: None,
            configs: configs.into_iter().collect(),
        }
    }
}

/// What every analytic is given: the run, the settings, and the analytics themselves (to
/// evaluate a scope of its own, as the depth buckets do).
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

/// An analytic's evaluation. Both methods have a default for an analytic without that part.
pub trait Analytic: Sync + fmt::Debug {
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
