//! What a label store says of its annotators (pure): how many labels each gave and how fast,
//! their position bias (how often the response shown first was chosen, with its exact test and
//! the Clopper–Pearson interval dual to it), and their agreement on the items they share, by
//! the annotator panel `analyze` and `calibrate` show.

use crate::evaluation::annotators::{panel, AnnotatorReport};
use crate::evaluation::Annotations;
use crate::label::{Gold, Label};
use crate::metrics::paired::{clopper_pearson, mcnemar_exact};
use crate::metrics::Labels;
use serde::Serialize;

/// One annotator's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnnotatorFigures {
    pub annotator: String,
    pub labels: usize,
    pub ties: usize,
    pub seconds_mean: f64,
    pub seconds_median: f64,
    /// Labels that were not ties, and how many chose the response shown first.
    pub decided: usize,
    pub chose_first: usize,
    /// chose_first / decided, its 1 − α Clopper–Pearson interval and the exact two-sided
    /// binomial test against one half (None without a decided label).
    pub first_share: Option<f64>,
    pub first_ci: Option<(f64, f64)>,
    pub first_p: Option<f64>,
    /// Whether the test finds a position bias at α (the interval then excludes one half).
    pub position_bias: bool,
}

/// Everything `labels stats` shows.
#[derive(Debug, Clone)]
pub struct LabelStats {
    pub alpha: f64,
    pub annotators: Vec<AnnotatorFigures>,
    /// Items with at least one label, with two or more, and contested (no single most common
    /// label, so no gold).
    pub items: usize,
    pub shared: usize,
    pub contested: usize,
    /// Agreement between annotators on the items they share (two or more annotators).
    pub panel: Option<AnnotatorReport>,
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// The store's current labels summarised; `bootstrap` resamples (seeded) for the panel's
/// intervals.
pub fn stats(labels: &[Label], alpha: f64, bootstrap: usize, seed: u64) -> LabelStats {
    let gold = Gold::of(labels);
    let annotators = gold
        .annotators
        .iter()
        .map(|name| {
            let mine: Vec<&Label> = labels.iter().filter(|l| &l.annotator == name).collect();
            let seconds: Vec<f64> = mine.iter().map(|l| l.seconds).collect();
            let decided: Vec<bool> = mine
                .iter()
                .filter_map(|l| l.shown_first.chose_first(l.label))
                .collect();
            let (n, k) = (
                decided.len() as u64,
                decided.iter().filter(|&&f| f).count() as u64,
            );
            let p = (n > 0).then(|| mcnemar_exact(k, n - k));
            AnnotatorFigures {
                annotator: name.clone(),
                labels: mine.len(),
                ties: mine.iter().filter(|l| l.label == 0).count(),
                seconds_mean: seconds.iter().sum::<f64>() / seconds.len().max(1) as f64,
                seconds_median: median(seconds),
                decided: n as usize,
                chose_first: k as usize,
                first_share: (n > 0).then(|| k as f64 / n as f64),
                first_ci: (n > 0).then(|| clopper_pearson(k, n, alpha)),
                first_p: p,
                position_bias: p.is_some_and(|p| p <= alpha),
            }
        })
        .collect();
    let mut ids: Vec<&String> = gold.votes.keys().collect();
    ids.sort();
    let votes: Vec<Vec<Option<i64>>> = ids.iter().map(|id| gold.votes[*id].clone()).collect();
    let contested = ids
        .iter()
        .filter(|id| matches!(gold.of_item(id), Some((_, None))))
        .count();
    let shared = votes
        .iter()
        .filter(|v| v.iter().flatten().count() >= 2)
        .count();
    let panel = (gold.annotators.len() >= 2 && shared > 0)
        .then(|| {
            panel(
                &Annotations {
                    names: gold.annotators.clone(),
                    votes: votes.clone(),
                    order: Vec::new(),
                    no_majority: contested,
                    policy: "drop".into(),
                    label_names: Vec::new(),
                },
                &Labels::pairwise(),
                None,
                crate::metrics::Resampling {
                    resamples: bootstrap,
                    seed,
                    level: 1.0 - alpha,
                },
            )
        })
        .flatten();
    LabelStats {
        alpha,
        annotators,
        items: ids.len(),
        shared,
        contested,
        panel,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::label::ShownFirst;

    fn l(item: &str, who: &str, label: i64, shown: ShownFirst, seconds: f64) -> Label {
        Label {
            item_id: item.into(),
            annotator: who.into(),
            label,
            shown_first: shown,
            seconds,
            at_ms: 0,
            note: None,
        }
    }

    #[test]
    fn position_bias_counts_the_response_shown_first() {
        use ShownFirst::{Response1 as R1, Response2 as R2};
        // ann always picks what she saw first: 10 of 10 (scipy binomtest: p = 0.001953125).
        let mut labels: Vec<Label> = (0..10)
            .map(|k| {
                let shown = if k % 2 == 0 { R1 } else { R2 };
                let label = if shown == R1 { -1 } else { 1 };
                l(&format!("i{k}"), "ann", label, shown, k as f64)
            })
            .collect();
        labels.push(l("i0", "bob", 0, R2, 3.0));
        labels.push(l("i1", "bob", -1, R1, 5.0));
        let s = stats(&labels, 0.05, 0, 1);
        let ann = &s.annotators[0];
        assert_eq!((ann.labels, ann.decided, ann.chose_first), (10, 10, 10));
        assert!((ann.first_p.expect("p") - 0.001953125).abs() < 1e-12);
        assert!(ann.position_bias);
        let (lo, hi) = ann.first_ci.expect("ci");
        assert!(
            lo > 0.5 && hi == 1.0,
            "the interval excludes one half: {lo}"
        );
        assert_eq!(ann.seconds_median, 4.5);
        let bob = &s.annotators[1];
        assert_eq!(
            (bob.labels, bob.ties, bob.decided, bob.chose_first),
            (2, 1, 1, 1)
        );
        assert!(!bob.position_bias);
        assert_eq!((s.items, s.shared, s.contested), (10, 2, 2));
        assert!(s.panel.is_some(), "two annotators share two items");
    }
}
