//! The alternative annotator test (Calderon, Reichart and Dror, ACL 2025): can a judge take
//! one annotator's place? Exactly the authors' `alt_test` (nitaytech/AltTest,
//! `alt_test_example.ipynb`), computed as numpy and scipy compute it:
//!
//! - an item counts when at least `min_annotators` annotators and the judge labelled it;
//! - each annotator with at least `min_items` such items is left out in turn, and on each of
//!   its items the left-out human and the judge are scored against the remaining annotators
//!   (`accuracy`: the share of them equal; `neg_rmse`: minus the root mean squared error);
//!   the judge wins an item when its score is ≥ the human's, the human when its score is ≥
//!   the judge's (a tie counts for both);
//! - the difference (human win − judge win) is tested against ε with a one-sided one-sample t
//!   test (`ttest_1samp(d, ε, alternative='less')`): a difference with no spread gives t = ±∞
//!   (p = 0 or 1) or, when its mean is ε or it has one item, p = NaN, as scipy gives;
//! - Benjamini–Yekutieli at q over the annotators' p-values: the rejected ones are beaten.
//!
//! The winning rate ω is the share of annotators beaten (the judge passes at ω ≥ 0.5); the
//! advantage probability ρ is the mean over annotators of the share of their items the judge
//! wins. Means are numpy's pairwise sums, so ties between scores break as the authors' do.

use super::random::{self, Purpose};
use rand::Rng;

/// How the left-out human and the judge are scored against the remaining annotators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Score {
    /// The share of the remaining annotators whose label equals (categories, verdicts).
    Accuracy,
    /// Minus the root mean squared difference from the remaining annotators (graded scores).
    NegRmse,
}

impl Score {
    /// The name the authors and raterlab's flags use.
    pub fn name(self) -> &'static str {
        match self {
            Score::Accuracy => "accuracy",
            Score::NegRmse => "neg_rmse",
        }
    }

    /// The score of `pred` against `remaining`. Labels are whole numbers, so the sums are
    /// exact in any order: the same bits as numpy's mean of the same list.
    fn of(self, pred: i64, remaining: &[i64]) -> f64 {
        let n = remaining.len() as f64;
        match self {
            Score::Accuracy => remaining.iter().filter(|&&a| a == pred).count() as f64 / n,
            Score::NegRmse => {
                let squares: i64 = remaining.iter().map(|&a| (pred - a).pow(2)).sum();
                -(squares as f64 / n).sqrt()
            }
        }
    }
}

/// The test's minimums (the authors' `min_humans_per_instance` and
/// `min_instances_per_human`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Minimums {
    /// Annotators an item needs to count (2).
    pub annotators: usize,
    /// Items an annotator needs to be tested (30).
    pub items: usize,
}

impl Default for Minimums {
    fn default() -> Self {
        Self {
            annotators: 2,
            items: 30,
        }
    }
}

/// One annotator left out: who won each of its items.
#[derive(Debug, Clone, PartialEq)]
pub struct LeftOut {
    /// The annotator's index.
    pub annotator: usize,
    /// Its items (indices into the votes), and on each whether the judge won and whether the
    /// human won (both on a tie).
    pub items: Vec<usize>,
    pub judge_wins: Vec<bool>,
    pub human_wins: Vec<bool>,
}

impl LeftOut {
    /// The share of its items the judge won.
    pub fn advantage(&self) -> f64 {
        share(&self.judge_wins)
    }
}

/// Who won every item of every annotator tested, and the annotators under the minimum (index,
/// items).
#[derive(Debug, Clone, PartialEq)]
pub struct Duels {
    pub tested: Vec<LeftOut>,
    pub too_few: Vec<(usize, usize)>,
    /// Items that count (enough annotators and a judge's label).
    pub items: usize,
    /// Items with at least one annotator's label that do not count.
    pub dropped: usize,
}

/// The judge against each annotator left out, on `votes` (items × annotators, None where one
/// did not label) and the judge's `labels` (None where it gave none).
pub fn duels(
    votes: &[Vec<Option<i64>>],
    judge: &[Option<i64>],
    score: Score,
    min: Minimums,
) -> Duels {
    let annotators = votes.first().map_or(0, Vec::len);
    let counts = |row: &Vec<Option<i64>>| row.iter().flatten().count();
    let kept: Vec<bool> = votes
        .iter()
        .zip(judge)
        .map(|(row, j)| j.is_some() && counts(row) >= min.annotators)
        .collect();
    let labelled = votes.iter().filter(|r| counts(r) > 0).count();
    let items = kept.iter().filter(|&&k| k).count();
    let mut tested = Vec::new();
    let mut too_few = Vec::new();
    let mut remaining = Vec::with_capacity(annotators);
    for a in 0..annotators {
        // Its items that count, each with its label and the judge's.
        let mine: Vec<(usize, i64, i64)> = (0..votes.len())
            .filter(|&i| kept[i])
            .filter_map(|i| Some((i, votes[i][a]?, judge[i]?)))
            .collect();
        if mine.len() < min.items {
            too_few.push((a, mine.len()));
            continue;
        }
        let (mut judge_wins, mut human_wins) = (Vec::new(), Vec::new());
        for &(i, human, llm) in &mine {
            remaining.clear();
            remaining.extend(
                (votes[i].iter().enumerate())
                    .filter(|&(b, _)| b != a)
                    .filter_map(|(_, v)| *v),
            );
            let (h, l) = (score.of(human, &remaining), score.of(llm, &remaining));
            judge_wins.push(l >= h);
            human_wins.push(h >= l);
        }
        tested.push(LeftOut {
            annotator: a,
            items: mine.iter().map(|&(i, _, _)| i).collect(),
            judge_wins,
            human_wins,
        });
    }
    Duels {
        tested,
        too_few,
        items,
        dropped: labelled - items,
    }
}

/// One annotator's test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tested {
    pub annotator: usize,
    pub n: usize,
    /// `ttest_1samp(human win − judge win, ε, alternative='less')`.
    pub p_value: f64,
    /// Rejected by Benjamini–Yekutieli at q: the judge beats this annotator.
    pub beaten: bool,
    /// The share of its items the judge won.
    pub advantage: f64,
}

/// The test's outcome. `winning_rate` and `advantage_probability` are NaN when no annotator
/// was tested.
#[derive(Debug, Clone, PartialEq)]
pub struct AltTest {
    pub winning_rate: f64,
    pub advantage_probability: f64,
    pub annotators: Vec<Tested>,
}

impl AltTest {
    /// The judge passes: it beats at least half the annotators tested.
    pub fn passed(&self) -> bool {
        self.winning_rate >= 0.5
    }
}

/// The authors' test over `duels` at margin `epsilon` and FDR level `q`.
pub fn test(duels: &Duels, epsilon: f64, q: f64) -> AltTest {
    let p: Vec<f64> = duels
        .tested
        .iter()
        .map(|d| {
            let diffs: Vec<f64> = (d.human_wins.iter().zip(&d.judge_wins))
                .map(|(&h, &l)| f64::from(u8::from(h)) - f64::from(u8::from(l)))
                .collect();
            t_test_less(&diffs, epsilon)
        })
        .collect();
    let beaten = benjamini_yekutieli(&p, q);
    let annotators: Vec<Tested> = (duels.tested.iter().zip(&p).zip(&beaten))
        .map(|((d, &p), &beaten)| Tested {
            annotator: d.annotator,
            n: d.items.len(),
            p_value: p,
            beaten,
            advantage: d.advantage(),
        })
        .collect();
    let m = annotators.len();
    let advantages: Vec<f64> = annotators.iter().map(|a| a.advantage).collect();
    AltTest {
        winning_rate: beaten.iter().filter(|&&b| b).count() as f64 / m as f64,
        advantage_probability: numpy_sum(&advantages) / m as f64,
        annotators,
    }
}

/// Two judges' advantage probabilities compared on the items both labelled (each annotator's
/// share over those items, averaged over the annotators tested for both): the difference
/// B − A and `resamples` paired bootstrap redraws of it (items drawn with replacement, keyed
/// by `seed` and the pair `index`). An annotator with no item in a redraw is left out of it.
pub fn advantage_difference(
    a: &Duels,
    b: &Duels,
    resamples: usize,
    seed: u64,
    index: u64,
) -> Option<(f64, Vec<f64>)> {
    // Each annotator tested for both, with its items both judges were scored on.
    let mut rows: Vec<Vec<(usize, f64)>> = Vec::new();
    let mut items: Vec<usize> = Vec::new();
    for la in &a.tested {
        let Some(lb) = b.tested.iter().find(|l| l.annotator == la.annotator) else {
            continue;
        };
        let in_b: std::collections::HashMap<usize, bool> = lb
            .items
            .iter()
            .copied()
            .zip(lb.judge_wins.iter().copied())
            .collect();
        let row: Vec<(usize, f64)> = (la.items.iter().zip(&la.judge_wins))
            .filter_map(|(i, &wa)| {
                in_b.get(i)
                    .map(|&wb| (*i, f64::from(u8::from(wb)) - f64::from(u8::from(wa))))
            })
            .collect();
        if row.is_empty() {
            continue;
        }
        items.extend(row.iter().map(|(i, _)| *i));
        rows.push(row);
    }
    if rows.is_empty() {
        return None;
    }
    items.sort_unstable();
    items.dedup();
    let position: std::collections::HashMap<usize, usize> =
        items.iter().enumerate().map(|(k, &i)| (i, k)).collect();
    let rows: Vec<Vec<(usize, f64)>> = rows
        .into_iter()
        .map(|r| r.into_iter().map(|(i, d)| (position[&i], d)).collect())
        .collect();
    let of = |weights: &[u32]| -> f64 {
        let (mut total, mut counted) = (0.0, 0usize);
        for row in &rows {
            let (mut sum, mut n) = (0.0, 0u64);
            for &(k, d) in row {
                let w = weights[k];
                sum += f64::from(w) * d;
                n += u64::from(w);
            }
            if n > 0 {
                total += sum / n as f64;
                counted += 1;
            }
        }
        total / counted as f64
    };
    let diff = of(&vec![1; items.len()]);
    let mut rng = random::stream(seed, Purpose::AltTest, index);
    let mut weights = vec![0u32; items.len()];
    let draws = (0..resamples)
        .map(|_| {
            weights.iter_mut().for_each(|w| *w = 0);
            for _ in 0..items.len() {
                weights[rng.random_range(0..items.len())] += 1;
            }
            of(&weights)
        })
        .collect();
    Some((diff, draws))
}

fn share(wins: &[bool]) -> f64 {
    wins.iter().filter(|&&w| w).count() as f64 / wins.len() as f64
}

/// numpy's sum of float64 (`np.sum`, `np.mean`'s numerator): pairwise, eight lanes below 128
/// values, so that a mean here is numpy's to the last bit.
pub fn numpy_sum(values: &[f64]) -> f64 {
    let n = values.len();
    if n < 8 {
        let mut s = 0.0;
        for v in values {
            s += v;
        }
        return s;
    }
    if n <= 128 {
        let mut r = [0.0; 8];
        r.copy_from_slice(&values[..8]);
        let mut i = 8;
        while i < n - n % 8 {
            for (j, lane) in r.iter_mut().enumerate() {
                *lane += values[i + j];
            }
            i += 8;
        }
        let mut s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for v in &values[i..] {
            s += v;
        }
        return s;
    }
    let mut half = n / 2;
    half -= half % 8;
    numpy_sum(&values[..half]) + numpy_sum(&values[half..])
}

/// scipy's `ttest_1samp(x, popmean, alternative='less').pvalue`: P(T ≤ t) with n − 1 degrees
/// of freedom; NaN with fewer than two values or when t is 0/0.
pub fn t_test_less(x: &[f64], popmean: f64) -> f64 {
    let n = x.len();
    if n < 2 {
        return f64::NAN;
    }
    let mean = numpy_sum(x) / n as f64;
    let deviations: Vec<f64> = x.iter().map(|v| (v - mean).powi(2)).collect();
    let var = numpy_sum(&deviations) / (n - 1) as f64;
    let t = (mean - popmean) / (var / n as f64).sqrt();
    student_t_cdf(t, (n - 1) as f64)
}

/// P(T ≤ t) for Student's t with `df` degrees of freedom (scipy's `stdtr`).
pub fn student_t_cdf(t: f64, df: f64) -> f64 {
    if t.is_nan() || df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    if t == f64::NEG_INFINITY {
        return 0.0;
    }
    if t == f64::INFINITY {
        return 1.0;
    }
    let tail = 0.5 * statrs::function::beta::beta_reg(df / 2.0, 0.5, df / (df + t * t));
    if t < 0.0 {
        tail
    } else {
        1.0 - tail
    }
}

/// Benjamini–Yekutieli's step-up procedure at `q` (the authors' `by_procedure`): which
/// p-values are rejected. A NaN p-value counts in m and is never rejected.
pub fn benjamini_yekutieli(p: &[f64], q: f64) -> Vec<bool> {
    let m = p.len();
    let mut rejected = vec![false; m];
    if m == 0 {
        return rejected;
    }
    let harmonic: Vec<f64> = (1..=m).map(|k| 1.0 / k as f64).collect();
    let h = numpy_sum(&harmonic);
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    // NaN sorts last under total_cmp (a negative NaN first: move those last too).
    order.sort_by_key(|&i| p[i].is_nan());
    let last = (0..m)
        .filter(|&k| p[order[k]] <= ((k + 1) as f64 / m as f64) * (q / h))
        .max();
    if let Some(last) = last {
        for &i in &order[..=last] {
            rejected[i] = true;
        }
    }
    rejected
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numpy_sum_matches_a_plain_sum_on_whole_numbers_and_is_pairwise_above_seven() {
        let v: Vec<f64> = (1..=300).map(f64::from).collect();
        assert_eq!(numpy_sum(&v), 45150.0);
        // 0.1 ten times: numpy's lanes give 1.0 where a left-to-right sum gives 0.9999999999999999.
        let tenths = [0.1; 10];
        assert_eq!(numpy_sum(&tenths), 1.0);
        assert_ne!(tenths.iter().sum::<f64>(), 1.0);
        // 0.1 seventeen times: numpy 2.4.6 gives 1.7000000000000002.
        assert_eq!(numpy_sum(&[0.1; 17]), 1.7000000000000002);
    }

    #[test]
    fn the_t_test_is_scipys_including_no_spread() {
        // scipy 1.17.1: ttest_1samp([-1,0,1,0,0,-1], 0.1, alternative='less').pvalue
        let p = t_test_less(&[-1.0, 0.0, 1.0, 0.0, 0.0, -1.0], 0.1);
        assert!((p - 0.21261240344610602).abs() < 1e-12, "{p}");
        assert_eq!(t_test_less(&[0.0; 4], 0.1), 0.0);
        assert_eq!(t_test_less(&[1.0; 4], 0.1), 1.0);
        assert!(t_test_less(&[0.0; 4], 0.0).is_nan());
        assert!(t_test_less(&[-1.0], 0.1).is_nan());
    }

    #[test]
    fn benjamini_yekutieli_steps_up_and_never_rejects_nan() {
        // m = 3, H = 11/6, q = 0.05: thresholds 0.00909, 0.01818, 0.02727.
        assert_eq!(
            benjamini_yekutieli(&[0.02, 0.001, 0.5], 0.05),
            vec![false, true, false]
        );
        assert_eq!(
            benjamini_yekutieli(&[0.02, 0.001, 0.027], 0.05),
            vec![true, true, true]
        );
        assert_eq!(
            benjamini_yekutieli(&[f64::NAN, 0.0, 0.0], 0.05),
            vec![false, true, true]
        );
        assert!(benjamini_yekutieli(&[], 0.05).is_empty());
    }

    #[test]
    fn a_judge_equal_to_the_majority_beats_noisy_annotators() {
        // Three annotators; annotator k errs on every item i with i % 3 == k; the judge never.
        let votes: Vec<Vec<Option<i64>>> = (0..60)
            .map(|i| (0..3).map(|k| Some(i64::from(i % 3 == k))).collect())
            .collect();
        let judge = vec![Some(0); 60];
        let d = duels(&votes, &judge, Score::Accuracy, Minimums::default());
        assert_eq!((d.items, d.dropped, d.tested.len()), (60, 0, 3));
        let t = test(&d, 0.1, 0.05);
        assert!(t.passed());
        assert_eq!(t.winning_rate, 1.0);
        assert_eq!(t.advantage_probability, 1.0);
    }

    #[test]
    fn annotators_under_the_minimum_are_left_out() {
        let votes: Vec<Vec<Option<i64>>> = (0..40)
            .map(|i| vec![Some(1), Some(1), (i < 10).then_some(0)])
            .collect();
        let judge = vec![Some(1); 40];
        let d = duels(&votes, &judge, Score::NegRmse, Minimums::default());
        assert_eq!(d.too_few, vec![(2, 10)]);
        assert_eq!(d.tested.len(), 2);
    }
}
