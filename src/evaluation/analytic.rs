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

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq)]
    struct Share(f64);
    #[derive(Debug, Clone, PartialEq)]
    struct Label(&'static str);

    #[test]
    fn a_finding_is_found_by_its_type_and_compared_by_value() {
        let mut a = Findings::default();
        assert_eq!(a.get::<Share>(), None);
        a.put(kept(Some(Share(0.25))).expect("a finding"));
        a.put(kept(Some(Label("x"))).expect("a finding"));
        assert!(kept::<Share>(None).is_none());
        assert_eq!(a.get::<Share>(), Some(&Share(0.25)));
        assert_eq!(a.get::<Label>(), Some(&Label("x")));
        assert_eq!(a.get::<f64>(), None);
        // A copy is equal; the order they were kept in does not matter; a value does.
        assert_eq!(a.clone(), a);
        let mut b = Findings::default();
        b.put(Box::new(Label("x")));
        b.put(Box::new(Share(0.25)));
        assert_eq!(a, b);
        let mut c = Findings::default();
        c.put(Box::new(Label("x")));
        c.put(Box::new(Share(0.5)));
        assert_ne!(a, c);
        c.put(Box::new(1u8));
        assert_ne!(b, c);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "two analytics keep a result of one type at one level")]
    fn two_results_of_one_type_at_one_level_are_refused() {
        let mut a = Findings::default();
        a.put(Box::new(Share(0.25)));
        a.put(Box::new(Share(0.5)));
    }
}
