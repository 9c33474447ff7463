//! What pointwise judges are judged on beside the pairwise metrics: how the grades of the
//! better and the worse response differ, how often equal grades force a tie, how well the
//! grade difference discriminates (AUC, Spearman, Kendall), and how much the missing-grade
//! rule moves the headline numbers.

use super::record::{headline, Headline, PointwiseRecord, RunRecord};
use super::settings::EvalSettings;
use crate::metrics::general::{kendall_tau_b, spearman};
use crate::metrics::random::{self, stream, Purpose};
use crate::metrics::Correlation;
// The verdict from two grades, as the raters give it.
use crate::raters::compare_grades as verdict;
use rand::RngCore;

/// A pointwise configuration's grade statistics over a scope.
#[derive(Debug, Clone, PartialEq)]
pub struct PointwiseStats {
    /// Pairs (counted once, in their seeded order) with a gold winner and both grades.
    pub pairs: usize,
    /// Pairs with a gold winner but a missing grade.
    pub missing: usize,
    /// Grade → count, for the better (chosen) and the worse (rejected) response.
    pub chosen: Vec<(f64, usize)>,
    pub rejected: Vec<(f64, usize)>,
    /// Mean of (chosen − rejected), with a bootstrap CI (1 − α) over pairs.
    pub mean_gap: f64,
    pub mean_gap_ci: (f64, f64),
    /// Share of pairs whose grades are equal (within the tie margin): a forced tie.
    pub equal_grades: f64,
    /// P(chosen > rejected) + ½ P(equal): the AUC of the grade difference, with a bootstrap
    /// CI (1 − α) over pairs.
    pub auc: f64,
    pub auc_ci: (f64, f64),
    /// Between the grade difference (response 2 − response 1) and gold, over the items with
    /// both grades (scipy's spearmanr / kendalltau).
    pub spearman: Correlation,
    pub kendall_tau_b: Correlation,
    /// Headline metrics when a missing grade drops the pair (honest) and when it takes the
    /// scale's lowest grade (context-bench's rule; `None` without a scale).
    pub drop: Headline,
    pub lowest: Option<Headline>,
}

fn histogram(values: &[f64]) -> Vec<(f64, usize)> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mut out: Vec<(f64, usize)> = Vec::new();
    for v in sorted {
        match out.last_mut() {
            Some((last, n)) if *last == v => *n += 1,
            _ => out.push((v, 1)),
        }
    }
    out
}

fn auc_of(gaps: &[f64], margin: f64) -> f64 {
    let score: f64 = gaps
        .iter()
        .map(|&g| {
            if g.abs() <= margin {
                0.5
            } else if g > 0.0 {
                1.0
            } else {
                0.0
            }
        })
        .sum();
    score / gaps.len() as f64
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// Percentile bootstraps (1 − α) of the means of each column of per-pair values, over the
/// same resampled pairs (both figures here are means: the gap, and the AUC's 1, ½ or 0 per
/// pair). Resample `r` draws from the stream `(seed, Pointwise, r)`, so the resamples are
/// split across threads and come out the same on any number of them.
fn bootstrap_means<const K: usize>(
    columns: [&[f64]; K],
    settings: &EvalSettings,
) -> [(f64, f64); K] {
    let n = columns[0].len();
    if n == 0 || settings.bootstrap == 0 {
        return [(f64::NAN, f64::NAN); K];
    }
    let means = random::split(settings.bootstrap, random::threads(), |r| {
        let mut rng = stream(settings.seed, Purpose::Pointwise, r as u64);
        let mut sums = [0.0; K];
        for _ in 0..n {
            // An index in 0..n by multiply-shift of 64 random bits (a bias below n / 2^64).
            let k = ((u128::from(rng.next_u64()) * n as u128) >> 64) as usize;
            for (sum, column) in sums.iter_mut().zip(&columns) {
                *sum += column[k];
            }
        }
        sums.map(|s| s / n as f64)
    });
    std::array::from_fn(|c| {
        let mut draws: Vec<f64> = means.iter().map(|m| m[c]).collect();
        crate::metrics::interval(&mut draws, settings.level())
    })
}

pub fn pointwise(
    run: &RunRecord,
    record: &PointwiseRecord,
    indices: &[usize],
    settings: EvalSettings,
) -> PointwiseStats {
    let margin = record.tie_margin;
    let (mut chosen, mut rejected, mut gaps) = (Vec::new(), Vec::new(), Vec::new());
    let mut missing = 0;
    let (mut diff, mut gold_of_diff) = (Vec::new(), Vec::new());
    let (mut g_drop, mut r_drop, mut g_low, mut r_low) = (vec![], vec![], vec![], vec![]);
    for &i in indices {
        let item = run.items.get(i);
        let Some(gold) = item.gold else {
            continue;
        };
        let (g1, g2) = record.grades[i];
        if let (Some(a), Some(b)) = (g1, g2) {
            diff.push(b - a);
            gold_of_diff.push(gold as f64);
            g_drop.push(gold);
            r_drop.push(verdict(a, b, margin));
        }
        if let Some(lo) = record.lowest {
            g_low.push(gold);
            r_low.push(verdict(g1.unwrap_or(lo), g2.unwrap_or(lo), margin));
        }
        if !item.seeded || gold == 0 {
            continue;
        }
        let (better, worse) = if gold == -1 { (g1, g2) } else { (g2, g1) };
        match (better, worse) {
            (Some(b), Some(w)) => {
                chosen.push(b);
                rejected.push(w);
                gaps.push(b - w);
            }
            _ => missing += 1,
        }
    }
    let equal = gaps.iter().filter(|g| g.abs() <= margin).count();
    let credit: Vec<f64> = gaps.iter().map(|&g| auc_of(&[g], 0.0)).collect();
    let [mean_gap_ci, auc_ci] = bootstrap_means([&gaps, &credit], &settings);
    PointwiseStats {
        pairs: gaps.len(),
        missing,
        chosen: histogram(&chosen),
        rejected: histogram(&rejected),
        mean_gap: if gaps.is_empty() {
            f64::NAN
        } else {
            mean(&gaps)
        },
        mean_gap_ci,
        equal_grades: if gaps.is_empty() {
            f64::NAN
        } else {
            equal as f64 / gaps.len() as f64
        },
        auc: if gaps.is_empty() {
            f64::NAN
        } else {
            auc_of(&gaps, 0.0)
        },
        auc_ci,
        spearman: spearman(&diff, &gold_of_diff),
        kendall_tau_b: kendall_tau_b(&diff, &gold_of_diff),
        drop: headline(&g_drop, &r_drop),
        lowest: record.lowest.map(|_| headline(&g_low, &r_low)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluation::record::fixtures::item;

    fn record(grades: Vec<(Option<f64>, Option<f64>)>) -> PointwiseRecord {
        PointwiseRecord {
            grades,
            tie_margin: 0.0,
            lowest: Some(1.0),
            order_blind: false,
        }
    }

    /// Hand-computed: gold −1 (response 1 better) on every item.
    #[test]
    fn paired_mean_intervals_hold_their_points_and_repeat() {
        let gaps: Vec<f64> = (0..400).map(|i| f64::from(i % 7) - 2.0).collect();
        let credit: Vec<f64> = gaps.iter().map(|&g| auc_of(&[g], 0.0)).collect();
        let settings = EvalSettings::new(500, 3);
        let [gap, auc] = bootstrap_means([&gaps, &credit], &settings);
        assert!(gap.0 < mean(&gaps) && mean(&gaps) < gap.1, "{gap:?}");
        assert!(
            auc.0 < auc_of(&gaps, 0.0) && auc_of(&gaps, 0.0) < auc.1,
            "{auc:?}"
        );
        assert_eq!([gap, auc], bootstrap_means([&gaps, &credit], &settings));
        let none = bootstrap_means([&gaps], &EvalSettings::new(0, 3));
        assert!(none[0].0.is_nan() && none[0].1.is_nan());
    }

    #[test]
    fn grades_against_a_hand_computation() {
        let items = (0..5).map(|i| item(i, -1)).collect();
        let run = RunRecord {
            labels: crate::metrics::Labels::pairwise(),
            inputs: Default::default(),
            items,
            configs: vec![],
            both_orders: false,
            annotators: None,
            shapes: Vec::new(),
            generators: None,
        };
        let rec = record(vec![
            (Some(5.0), Some(3.0)), // gap +2
            (Some(4.0), Some(4.0)), // equal: a forced tie
            (Some(2.0), Some(3.0)), // gap −1
            (Some(5.0), None),      // missing
            (None, Some(2.0)),      // missing
        ]);
        let s = pointwise(&run, &rec, &[0, 1, 2, 3, 4], EvalSettings::new(200, 1));
        assert_eq!((s.pairs, s.missing), (3, 2));
        assert_eq!(s.chosen, vec![(2.0, 1), (4.0, 1), (5.0, 1)]);
        assert_eq!(s.rejected, vec![(3.0, 2), (4.0, 1)]);
        assert!((s.mean_gap - 1.0 / 3.0).abs() < 1e-12);
        assert!((s.equal_grades - 1.0 / 3.0).abs() < 1e-12);
        // (1 + ½ + 0) / 3
        assert!((s.auc - 0.5).abs() < 1e-12);
        assert!(s.auc_ci.0 <= s.auc && s.auc <= s.auc_ci.1);
        // drop: verdicts −1, 0, 1 against gold −1 → accuracy 1/3 over 3 items.
        assert_eq!(s.drop.n, 3);
        assert!((s.drop.accuracy - 1.0 / 3.0).abs() < 1e-12);
        // lowest (1): item 3 → (5, 1) → −1 right; item 4 → (1, 2) → 1 wrong: 2/5.
        let low = s.lowest.expect("a scale");
        assert_eq!(low.n, 5);
        assert!((low.accuracy - 2.0 / 5.0).abs() < 1e-12);
        // scipy.stats.spearmanr([-2, 0, 1], [-1, -1, -1]) is nan (constant gold).
        assert!(s.spearman.statistic.is_nan());
    }
}
