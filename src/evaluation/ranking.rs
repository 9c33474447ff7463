//! The one ranking of configurations (best first by the sort metric, undefined last) and the
//! best judged configuration: the answer, the comparisons' family and the report read them
//! from here.

use super::record::RunRecord;
use super::result::ConfigResult;
use crate::metrics::Statistic;

/// Configuration indices, best first by `s` over all items (undefined last; a stable sort, so
/// equal values keep the run's order).
pub fn order(configs: &[ConfigResult], s: Statistic) -> Vec<usize> {
    let value = |i: usize| {
        let v = configs[i].overall.agreement.get(s);
        if v.is_nan() {
            f64::NEG_INFINITY
        } else {
            v
        }
    };
    let mut idx: Vec<usize> = (0..configs.len()).collect();
    idx.sort_by(|&a, &b| value(b).total_cmp(&value(a)));
    idx
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
