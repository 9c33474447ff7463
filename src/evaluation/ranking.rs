//! The one ranking of configurations and the one rule for "the best": the highest defined
//! value, the first of equals in the run's order. The answer, the comparisons' family, the
//! significance groups, the evaluator, the system level and the report's ranking note read
//! them from here; the standing (`standing.rs`) decides from them what the answer says first.

use super::record::RunRecord;
use super::result::ConfigResult;
use crate::metrics::Statistic;
use std::cmp::Ordering;

/// Best first: the higher value first, an undefined one (NaN) last, equals in their order.
fn better(a: (usize, f64), b: (usize, f64)) -> Ordering {
    let key = |v: f64| if v.is_nan() { f64::NEG_INFINITY } else { v };
    key(b.1).total_cmp(&key(a.1)).then(a.0.cmp(&b.0))
}

/// The indices of `values`, best first (undefined last; equal values keep their order).
pub fn ranked(values: &[f64]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..values.len()).collect();
    idx.sort_by(|&a, &b| better((a, values[a]), (b, values[b])));
    idx
}

/// The best of (index, value) pairs: the highest defined value, the first of equals; None
/// when no value is defined.
pub fn best_of(values: impl IntoIterator<Item = (usize, f64)>) -> Option<usize> {
    values
        .into_iter()
        .filter(|(_, v)| !v.is_nan())
        .min_by(|&a, &b| better(a, b))
        .map(|(i, _)| i)
}

/// Configuration indices, best first by `s` over all items (undefined last; equal values keep
/// the run's order).
pub fn order(configs: &[ConfigResult], s: Statistic) -> Vec<usize> {
    let values: Vec<f64> = configs.iter().map(|c| c.overall.agreement.get(s)).collect();
    ranked(&values)
}

/// The best configuration that calls a judge (the first in `order` that is not a baseline),
/// else the first of all; None without configurations.
pub fn best(run: &RunRecord, order: &[usize]) -> Option<usize> {
    order
        .iter()
        .copied()
        .find(|&i| !run.configs[i].is_baseline())
        .or(order.first().copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_is_the_highest_defined_value_and_the_first_of_equals() {
        let values = [0.2, f64::NAN, 0.7, 0.7, -1.0];
        assert_eq!(ranked(&values), [2, 3, 0, 4, 1]);
        assert_eq!(best_of(values.iter().copied().enumerate()), Some(2));
        // The same rule whatever the order the pairs come in.
        assert_eq!(best_of([(3, 0.7), (2, 0.7), (0, 0.2)]), Some(2));
        assert_eq!(best_of([(0, f64::NAN)]), None);
        assert_eq!(best_of([]), None);
    }
}
