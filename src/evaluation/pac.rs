//! PAC labelling (Candès, Ilyas and Zrnic, 2025): which items must go to a human so that the
//! whole labelled set has error at most ε with probability at least 1 − α.
//!
//! The items with gold are the humans' uniform first round (their draws, in file order, with
//! π = 1 and the zero-one loss, as `pac_labeling` takes them); the judge's uncertainty orders
//! the rest. The threshold is the authors' (`metrics::pac::threshold`): the items at or above
//! it that have no gold yet are the ones to label; below it the judge's labels are kept. Ties
//! in the uncertainty are broken by a seeded random order (the authors add a 1e-5 jitter):
//! the bisection compares uncertainties only, so each item's place in that order stands for
//! its uncertainty and distinct uncertainties give the authors' decisions exactly.

use crate::dataset::select::stable_hash;
use crate::metrics::pac::{threshold, Bound};
use serde::Serialize;

/// What PAC labelling is asked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PacSettings {
    pub epsilon: f64,
    pub alpha: f64,
    pub bound: Bound,
    /// Seeds the order among equal uncertainties.
    pub seed: u64,
}

/// What PAC labelling decided (`analyze --pac --json`'s `pac`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pac {
    pub bound: Bound,
    pub epsilon: f64,
    pub alpha: f64,
    /// The uncertainty from which items go to a human (one of the items' uncertainties);
    /// `None` when no threshold holds the bound: every item goes to a human.
    pub threshold: Option<f64>,
    /// Items at or above the threshold without gold yet, in file order.
    pub to_label: Vec<String>,
    pub n_to_label: usize,
    /// Items with gold (the first round).
    pub n_labelled: usize,
    /// The share of items left to the judge.
    pub saved: f64,
    /// Where every item below the threshold has gold too (a retrospective check): the error
    /// of the final labels (the humans' where they labelled, the judge's elsewhere).
    pub error: Option<f64>,
}

/// PAC labelling of `judge`'s labels with `uncertainty`, the rows with `gold` the first round.
pub fn pac(
    ids: &[String],
    judge: &[i64],
    (gold, first_round): (&[Option<i64>], &[bool]),
    uncertainty: &[f64],
    s: &PacSettings,
) -> Pac {
    let n = ids.len();
    // Each item's place among the uncertainties, ties in a seeded random order.
    let mut order: Vec<usize> = (0..n).collect();
    let key = |i: usize| stable_hash(&[b"pac-ties", &s.seed.to_le_bytes(), ids[i].as_bytes()]);
    order.sort_by(|&a, &b| {
        uncertainty[a]
            .total_cmp(&uncertainty[b])
            .then_with(|| key(a).cmp(&key(b)))
            .then_with(|| a.cmp(&b))
    });
    let mut place = vec![0.0; n];
    for (r, &i) in order.iter().enumerate() {
        place[i] = r as f64;
    }
    let lams: Vec<f64> = (0..n).map(|r| r as f64).collect();
    let draws: Vec<usize> = (0..n).filter(|&i| first_round[i]).collect();
    let errors: Vec<f64> = draws
        .iter()
        .map(|&i| f64::from(u8::from(gold[i] != Some(judge[i]))))
        .collect();
    let draw_places: Vec<f64> = draws.iter().map(|&i| place[i]).collect();
    // The zero-one loss's bound (theirs is the largest loss over every item, 1 whenever the
    // judge errs once).
    let at = threshold(
        &lams,
        &errors,
        &draw_places,
        (s.epsilon, s.alpha),
        s.bound,
        1.0,
    );
    let to_human = |i: usize| at.is_none_or(|r| place[i] >= r as f64);
    let to_label: Vec<String> = (0..n)
        .filter(|&i| !first_round[i] && to_human(i))
        .map(|i| ids[i].clone())
        .collect();
    let labelled = (0..n).filter(|&i| first_round[i] || to_human(i)).count();
    let final_known = (0..n).all(|i| first_round[i] || to_human(i) || gold[i].is_some());
    let error = final_known.then(|| {
        let wrong = (0..n)
            .filter(|&i| !(first_round[i] || to_human(i)) && gold[i] != Some(judge[i]))
            .count();
        wrong as f64 / n as f64
    });
    Pac {
        bound: s.bound,
        epsilon: s.epsilon,
        alpha: s.alpha,
        threshold: at.map(|r| uncertainty[order[r]]),
        n_to_label: to_label.len(),
        to_label,
        n_labelled: draws.len(),
        saved: 1.0 - labelled as f64 / n as f64,
        error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_perfect_first_round_leaves_the_least_certain_to_humans() {
        let n = 400;
        let ids: Vec<String> = (0..n).map(|i| format!("i{i}")).collect();
        // The judge is wrong exactly on the 40 most uncertain items.
        let uncertainty: Vec<f64> = (0..n).map(|i| i as f64 / n as f64).collect();
        let judge: Vec<i64> = (0..n).map(|i| i64::from(i >= 360)).collect();
        let first: Vec<bool> = (0..n).map(|i| i % 2 == 0).collect();
        let gold: Vec<Option<i64>> = (0..n).map(|i| first[i].then_some(0)).collect();
        let s = PacSettings {
            epsilon: 0.05,
            alpha: 0.05,
            bound: Bound::Clt,
            seed: 1,
        };
        let p = pac(&ids, &judge, (&gold, &first), &uncertainty, &s);
        let t = p.threshold.expect("a threshold holds");
        // The judge keeps what is below: its wrong items there are at most ε of all.
        let kept_wrong = (360..n).filter(|&i| uncertainty[i] < t).count();
        assert!(
            kept_wrong as f64 / n as f64 <= 0.05,
            "{kept_wrong} wrong kept below {t}"
        );
        assert!(t > 0.5, "the certain, right half stays with the judge: {t}");
        assert!(p
            .to_label
            .iter()
            .all(|id| id[1..].parse::<usize>().expect("n") % 2 == 1));
        assert_eq!(p.n_labelled, 200);
        assert!(p.saved > 0.0 && p.saved < 0.5, "{}", p.saved);
        assert_eq!(p.error, None, "the judged half has no gold");
    }
}
