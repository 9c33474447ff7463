//! How good a configuration's probabilities are over a scope: the calibration figures
//! (`metrics::calibration`) of P(response 2 better) against gold, beside the hard verdicts'
//! accuracy on the same items.
//!
//! Gold ties: an item whose gold is a tie has no better side, so it is left out of every
//! probability figure and counted (`gold_ties`).

use super::record::{ConfigRecord, RunRecord};
use super::settings::EvalSettings;
use crate::metrics::calibration::{calibration, Calibration, BINS};

/// A configuration's probabilities over a scope.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbabilityStats {
    /// `logprobs`, `votes` or `scores`.
    pub source: String,
    /// Items in the scope, and those with a probability.
    pub items: usize,
    pub with_probability: usize,
    /// Items with a probability whose gold is a tie (left out).
    pub gold_ties: usize,
    pub calibration: Calibration,
    /// The hard verdicts' accuracy over the same items (a verdict missing or a tie counts
    /// half, as a probability of ½ does), to set the probabilities beside.
    pub hard_accuracy: f64,
}

/// The probability figures of `config` over the items at `indices` (pairwise labels: response
/// 2 better is the positive side, 0 a tie).
pub fn probability(
    run: &RunRecord,
    config: &ConfigRecord,
    indices: &[usize],
    settings: EvalSettings,
) -> Option<ProbabilityStats> {
    let record = config.probability.as_ref()?;
    let sides = sides(&run.labels)?;
    let rows = indices.iter().filter_map(|&i| {
        let p = record.p[i]?;
        Some((run.items.gold[i]?, config.outcomes[i].rating(), p))
    });
    Some(stats(&record.source, indices.len(), rows, sides, settings))
}

/// The positive label (the largest) and the tie (the middle of three) a probability is read
/// against: (1, 0) for pairs; None for a scale of more than three labels, which has no positive
/// side.
pub fn sides(labels: &crate::metrics::Labels) -> Option<(i64, Option<i64>)> {
    let set = labels.as_slice();
    (2..=3)
        .contains(&set.len())
        .then(|| (set[set.len() - 1], (set.len() == 3).then(|| set[1])))
}

/// The figures of (gold, rating, probability of the positive label) rows over `items` items:
/// `labels` is (the positive label, the tie label if any). A gold tie is left out and counted;
/// a verdict that is missing or a tie is worth half in the hard accuracy.
pub fn stats(
    source: &str,
    items: usize,
    rows: impl Iterator<Item = (i64, Option<i64>, f64)>,
    (positive, tie): (i64, Option<i64>),
    settings: EvalSettings,
) -> ProbabilityStats {
    let (mut y, mut p) = (Vec::new(), Vec::new());
    let (mut with, mut ties, mut hard) = (0usize, 0usize, 0.0);
    for (gold, rating, q) in rows {
        with += 1;
        if Some(gold) == tie {
            ties += 1;
            continue;
        }
        y.push(gold == positive);
        p.push(q);
        hard += match rating {
            Some(r) if r == gold => 1.0,
            None => 0.5,
            Some(r) if Some(r) == tie => 0.5,
            Some(_) => 0.0,
        };
    }
    let n = y.len();
    ProbabilityStats {
        source: source.to_string(),
        items,
        with_probability: with,
        gold_ties: ties,
        calibration: calibration(&y, &p, BINS, settings.resampling()),
        hard_accuracy: if n == 0 { f64::NAN } else { hard / n as f64 },
    }
}

/// The probability analytic: how good a configuration's probabilities are, per scope.
#[derive(Debug)]
pub struct ProbabilityAnalytic;

impl super::Analytic for ProbabilityAnalytic {
    fn scope(
        &self,
        cx: &super::Context,
        config: &ConfigRecord,
        indices: &[usize],
    ) -> Option<Box<dyn super::analytic::Kept>> {
        super::analytic::kept(probability(cx.run, config, indices, cx.settings.clone()))
    }
}
