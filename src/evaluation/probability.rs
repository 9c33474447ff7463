//! How good a configuration's probabilities are over a scope: the calibration figures
//! (`metrics::calibration`) of P(response 2 better) against gold, beside the hard verdicts'
//! accuracy on the same items.
//!
//! Gold ties: an item whose gold is a tie has no better side, so it is left out of every
//! probability figure and counted (`gold_ties`).

use super::record::{ConfigRecord, EvalSettings, RunRecord};
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

/// The probability figures of `config` over the items at `indices`.
pub fn probability(
    run: &RunRecord,
    config: &ConfigRecord,
    indices: &[usize],
    settings: EvalSettings,
) -> Option<ProbabilityStats> {
    let record = config.probability.as_ref()?;
    let (mut y, mut p) = (Vec::new(), Vec::new());
    let (mut with, mut ties, mut hard) = (0usize, 0usize, 0.0);
    for &i in indices {
        let Some(q) = record.p[i] else { continue };
        with += 1;
        let gold = run.items[i].gold;
        if gold == 0 {
            ties += 1;
            continue;
        }
        y.push(gold > 0);
        p.push(q);
        hard += match config.outcomes[i].rating() {
            Some(r) if r == gold => 1.0,
            Some(0) | None => 0.5,
            Some(_) => 0.0,
        };
    }
    let n = y.len();
    Some(ProbabilityStats {
        source: record.source.clone(),
        items: indices.len(),
        with_probability: with,
        gold_ties: ties,
        calibration: calibration(&y, &p, BINS, settings.bootstrap, settings.seed),
        hard_accuracy: if n == 0 { f64::NAN } else { hard / n as f64 },
    })
}
