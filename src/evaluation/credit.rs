//! reward-bench's published credit for LLM judges (`scripts/run_generative.py`): a pair is
//! worth 1 when the judge picks the better response, 0 when it picks the worse one, and 0.5
//! for a tie, an unreadable answer or a failed call ("effectively a tie"). raterlab's strict
//! rule (`Policies::as_wrong`) counts those three as wrong; both are reported, named.

use super::record::Outcome;

/// One item's credit under reward-bench's rule. A decisive verdict that is not gold scores 0
/// (with tie gold, as in some non-reward-bench data, any decisive verdict is wrong). An item
/// never asked has none (`None`).
pub fn credit(gold: i64, outcome: Outcome) -> Option<f64> {
    match outcome {
        Outcome::Rated(r) if r == gold => Some(1.0),
        Outcome::Rated(0) | Outcome::NoVerdict | Outcome::CutOff | Outcome::CallFailed => Some(0.5),
        Outcome::Rated(_) => Some(0.0),
        Outcome::NotAsked => None,
    }
}

/// The mean credit over items (NaN for none).
pub fn mean_credit(items: impl Iterator<Item = (i64, Outcome)>) -> f64 {
    let (mut sum, mut n) = (0.0, 0usize);
    for credit in items.filter_map(|(gold, outcome)| credit(gold, outcome)) {
        sum += credit;
        n += 1;
    }
    if n == 0 {
        f64::NAN
    } else {
        sum / n as f64
    }
}
