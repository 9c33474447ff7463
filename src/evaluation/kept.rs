//! A typed bag: values kept by type, one per type, compared by value. The evaluation keeps an
//! analytic's findings in one (`Findings`) and a record carries the analytics' inputs in one
//! (`Inputs`).

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

/// The analytics' inputs a record carries beside its items, one value per type (kept and
/// compared as findings are).
pub type Inputs = Findings;

/// A finding to keep, boxed; `None` when there is nothing to keep.
pub fn kept<T: Kept>(value: Option<T>) -> Option<Box<dyn Kept>> {
    value.map(|v| Box::new(v) as Box<dyn Kept>)
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
