//! The one ranking of configurations and the one rule for "the best": the highest defined
//! value, the first of equals in the run's order, among the configurations that can be
//! ranked. The answer, the comparisons' family, the significance groups, the evaluator, the
//! system level and the report's ranking note read them from here; the standing
//! (`standing.rs`) decides from them what the answer says first.
//!
//! A configuration cannot be the best when `--sequential`'s race dropped it (it was shown
//! worse than another), or when it read fewer than half of its answers: its figures (items
//! without a verdict dropped) would then rank it on the few items it could read.

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

/// Below this share of its answers read, a configuration is not ranked.
pub const READABLE_FLOOR: f64 = 0.5;

/// Why a configuration cannot be the best.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "why", rename_all = "snake_case")]
pub enum Unranked {
    /// `--sequential`'s race showed it worse than `better` at item `at`.
    Dropped { better: String, at: usize },
    /// It read `read` of its `asked` answers (a verdict), fewer than `READABLE_FLOOR`.
    FewReadable { read: usize, asked: usize },
}

/// Why a configuration that read `read` of its `asked` answers cannot be ranked on what it
/// read, if it cannot (fewer than `READABLE_FLOOR` of them).
pub fn few_readable(read: usize, asked: usize) -> Option<Unranked> {
    (asked > 0 && (read as f64) < READABLE_FLOOR * asked as f64)
        .then_some(Unranked::FewReadable { read, asked })
}

/// Why configuration `i` cannot be the best, if it cannot.
pub fn unranked(run: &RunRecord, configs: &[ConfigResult], i: usize) -> Option<Unranked> {
    let name = &run.configs[i].name;
    if let Some(d) = run
        .inputs
        .get::<super::race::Raced>()
        .and_then(|r| r.dropped.iter().find(|d| &d.worse == name))
    {
        return Some(Unranked::Dropped {
            better: d.better.clone(),
            at: d.at,
        });
    }
    let c = &configs.get(i)?.overall.counts;
    few_readable(
        c.examples.saturating_sub(c.no_verdict + c.call_failures),
        c.examples,
    )
}

/// What the one rule asks of a configuration, whatever the form: whether it is a baseline,
/// and why it cannot be ranked (if it cannot).
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub baseline: bool,
    pub unranked: Option<Unranked>,
}

/// The one rule's choice among the configurations in `order` (best first by the value ranked
/// on): the best, the runner-up, and the judges ranked above the best that cannot be ranked.
#[derive(Debug, Clone, PartialEq)]
pub struct Picked {
    /// The best configuration that calls a judge and can be ranked (the first such in
    /// `order`), else the first that calls a judge, else the first of all.
    pub best: usize,
    /// The next configuration that calls a judge and can be ranked.
    pub runner_up: Option<usize>,
    /// The judges ranked above the best (the best too, when no judge can be ranked) that
    /// cannot be the best, and why.
    pub unranked: Vec<(usize, Unranked)>,
}

/// The one rule of "the best" over `candidates` in `order`; None without configurations.
pub fn pick(candidates: &[Candidate], order: &[usize]) -> Option<Picked> {
    let judged: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&i| !candidates[i].baseline)
        .collect();
    let rankable = |i: &usize| candidates[*i].unranked.is_none();
    let best = judged
        .iter()
        .copied()
        .find(rankable)
        .or_else(|| judged.first().copied())
        .or(order.first().copied())?;
    let unranked = judged
        .iter()
        .take_while(|&&i| i != best)
        .chain(judged.iter().filter(|&&i| i == best))
        .filter_map(|&i| Some((i, candidates[i].unranked.clone()?)))
        .collect();
    let runner_up = judged.iter().copied().find(|i| *i != best && rankable(i));
    Some(Picked {
        best,
        runner_up,
        unranked,
    })
}

/// A run's configurations as the one rule sees them.
pub fn candidates(run: &RunRecord, configs: &[ConfigResult]) -> Vec<Candidate> {
    (0..run.configs.len())
        .map(|i| Candidate {
            baseline: run.configs[i].is_baseline(),
            unranked: unranked(run, configs, i),
        })
        .collect()
}

/// The best configuration that calls a judge and can be ranked (the first such in `order`),
/// else the first that calls a judge, else the first of all; None without configurations.
pub fn best(run: &RunRecord, configs: &[ConfigResult], order: &[usize]) -> Option<usize> {
    pick(&candidates(run, configs), order).map(|p| p.best)
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

    /// One rule of "the best": a configuration the race dropped, or one that read a verdict
    /// in fewer than half of its answers, is not the best however high its figures (on the
    /// items it read); the standing names the next, and says why the others are not ranked.
    #[test]
    fn a_dropped_or_mostly_unreadable_configuration_is_never_the_best() {
        use crate::evaluation::record::fixtures::{config, item};
        use crate::evaluation::record::Outcome;
        let n = 100;
        let gold: Vec<i64> = (0..n).map(|i| if i % 2 == 0 { -1 } else { 1 }).collect();
        let right = |every: usize| -> Vec<Outcome> {
            (0..n)
                .map(|i| Outcome::Rated(if i % every == 0 { -gold[i] } else { gold[i] }))
                .collect()
        };
        // 13 verdicts, all right, among 63 answers; the other 37 items never asked.
        let few: Vec<Outcome> = (0..n)
            .map(|i| match i {
                _ if i < 13 => Outcome::Rated(gold[i]),
                _ if i < 63 => Outcome::NoVerdict,
                _ => Outcome::NotAsked,
            })
            .collect();
        let mut run = RunRecord {
            labels: crate::metrics::Labels::pairwise(),
            inputs: Default::default(),
            items: gold.iter().enumerate().map(|(i, &g)| item(i, g)).collect(),
            configs: vec![
                config("few", few),
                config("dropped", right(20)),
                config("steady", right(4)),
                config("runner", right(3)),
            ],
            both_orders: false,
            annotators: None,
            shapes: Vec::new(),
            generators: None,
        };
        run.inputs.put(Box::new(crate::evaluation::race::Raced {
            alpha: 0.05,
            comparisons: 6,
            alpha_each: 0.05 / 6.0,
            named: None,
            stopped_at: None,
            decided: None,
            dropped: vec![crate::evaluation::race::Decision {
                better: "steady".into(),
                worse: "dropped".into(),
                at: 40,
                n: 40,
                mean: 0.6,
                lower: 0.51,
                upper: 0.7,
            }],
            items: n,
        }));
        let settings = crate::evaluation::EvalSettings {
            sort: Statistic::Accuracy,
            ..crate::evaluation::EvalSettings::new(0, 1)
        };
        let evaluation = crate::evaluation::registry::evaluate(&run, settings);
        let order = order(&evaluation.configs, Statistic::Accuracy);
        assert_eq!(order, [0, 1, 2, 3], "by accuracy on the items each read");
        let standing = evaluation.standing.expect("standing");
        assert_eq!((standing.best, standing.runner_up), (2, Some(3)));
        assert_eq!(
            standing.unranked,
            [
                (
                    0,
                    Unranked::FewReadable {
                        read: 13,
                        asked: 63
                    }
                ),
                (
                    1,
                    Unranked::Dropped {
                        better: "steady".into(),
                        at: 40
                    }
                )
            ]
        );
        assert_eq!(best(&run, &evaluation.configs, &order), Some(2));
        // Without the race, "dropped" is the best; with no rankable judge, the first judge.
        run.inputs = Default::default();
        assert_eq!(best(&run, &evaluation.configs, &order), Some(1));
        assert_eq!(best(&run, &evaluation.configs, &[0]), Some(0));
    }
}
