//! How good a judge's probabilities are, against binary outcomes: y = 1 when the side the
//! probability is given to (response 2) is the better one. Pure; each figure is sklearn's:
//! `brier_score_loss`, `log_loss` (p clipped to [ε, 1 − ε], ε = 2.22e-16, as sklearn's float64
//! eps), `roc_auc_score` (ties count half; NaN with one class), `calibration_curve` (uniform
//! bins, `np.searchsorted` of the inner edges: a bin holds (lo, hi], the first also 0).
//!
//! Beyond them: the expected accuracy (the mean probability given to the right side,
//! AlpacaEval's soft agreement), the ECE over the same bins (Σ n_b / n · |observed − mean p|),
//! and selective accuracy: accuracy and coverage when the judge abstains below a confidence
//! max(p, 1 − p) (p = ½ exactly is worth half). Bootstrap intervals resample items; every
//! figure of a resample comes from one pass over the items in probability order.

use super::bootstrap::Resampling;
use super::random::{self, Purpose};
use rand::RngCore;

/// sklearn's clipping for log loss: float64's machine epsilon.
const EPS: f64 = f64::EPSILON;

/// The default number of equal-width bins.
pub const BINS: usize = 10;

/// The confidences at which selective accuracy is reported.
pub const THRESHOLDS: [f64; 7] = [0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99];

/// One equal-width bin of the reliability table.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Bin {
    pub lo: f64,
    pub hi: f64,
    pub n: usize,
    /// Mean probability in the bin (sklearn's `prob_pred`), NaN when empty.
    pub mean_p: f64,
    /// Share of y = 1 in the bin (sklearn's `prob_true`), NaN when empty.
    pub observed: f64,
}

/// Accuracy when abstaining below a confidence.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Selective {
    pub threshold: f64,
    pub n: usize,
    pub coverage: f64,
    /// NaN when nothing is covered.
    pub accuracy: f64,
}

/// Bootstrap intervals of the figures (1 − α).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Intervals {
    pub expected_accuracy: (f64, f64),
    pub brier: (f64, f64),
    pub log_loss: (f64, f64),
    pub ece: (f64, f64),
    pub auc: (f64, f64),
}

/// The figures of a set of probabilities.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibration {
    pub n: usize,
    /// Items with y = 1.
    pub positives: usize,
    pub expected_accuracy: f64,
    pub brier: f64,
    pub log_loss: f64,
    pub ece: f64,
    pub auc: f64,
    pub bins: Vec<Bin>,
    pub selective: Vec<Selective>,
    /// The selective curve: (coverage, accuracy) keeping the most confident 5%, 10%, ..., 100%.
    pub curve: Vec<(f64, f64)>,
    pub intervals: Option<Intervals>,
}

/// sklearn's bin of `p` among `bins` equal-width bins: the number of inner edges below p
/// (`np.searchsorted(edges[1:-1], p)`, side left).
pub fn bin_of(p: f64, bins: usize) -> usize {
    let step = 1.0 / bins as f64;
    // The inner edges as np.linspace makes them: i * step.
    let mut k = ((p / step).floor() as usize).min(bins - 1);
    while k > 0 && p <= k as f64 * step {
        k -= 1;
    }
    while k + 1 < bins && p > (k + 1) as f64 * step {
        k += 1;
    }
    k
}

/// Weighted sums one pass gives: every figure but the selective curve.
struct Pass {
    n: f64,
    expected: f64,
    brier: f64,
    log_loss: f64,
    bin_n: Vec<f64>,
    bin_p: Vec<f64>,
    bin_y: Vec<f64>,
    auc: f64,
}

/// The items in probability order, each item's terms computed once: a resample only weighs
/// them (its pass reads the arrays in order).
struct Items {
    y: Vec<bool>,
    p: Vec<f64>,
    bin: Vec<usize>,
    /// The probability given to the right side; the squared error; the log loss term.
    right: Vec<f64>,
    squared: Vec<f64>,
    loss: Vec<f64>,
    /// Where each group of equal probabilities ends (exclusive), in order.
    group_ends: Vec<usize>,
    bins: usize,
}

impl Items {
    fn new(y: &[bool], p: &[f64], bins: usize) -> Self {
        let mut order: Vec<usize> = (0..y.len()).collect();
        order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
        let y: Vec<bool> = order.iter().map(|&i| y[i]).collect();
        let p: Vec<f64> = order.iter().map(|&i| p[i]).collect();
        let right: Vec<f64> = y
            .iter()
            .zip(&p)
            .map(|(&t, &q)| if t { q } else { 1.0 - q })
            .collect();
        let mut group_ends: Vec<usize> = (1..p.len()).filter(|&k| p[k] != p[k - 1]).collect();
        group_ends.push(p.len());
        Self {
            bin: p.iter().map(|&q| bin_of(q, bins)).collect(),
            squared: y
                .iter()
                .zip(&p)
                .map(|(&t, &q)| (q - f64::from(u8::from(t))).powi(2))
                .collect(),
            loss: right
                .iter()
                .map(|q| -q.clamp(EPS, 1.0 - EPS).ln())
                .collect(),
            right,
            y,
            p,
            group_ends,
            bins,
        }
    }

    /// The sums under item weights (1 each, or a resample's counts), equal probabilities
    /// grouped for the AUC (a tie between a positive and a negative counts half).
    fn pass(&self, w: &[u32]) -> Pass {
        let mut s = Pass {
            n: 0.0,
            expected: 0.0,
            brier: 0.0,
            log_loss: 0.0,
            bin_n: vec![0.0; self.bins],
            bin_p: vec![0.0; self.bins],
            bin_y: vec![0.0; self.bins],
            auc: f64::NAN,
        };
        let (mut pos, mut neg, mut pairs) = (0.0, 0.0, 0.0);
        // The items are in probability order, so a bin's are one run of them: its sums are
        // kept in registers while the run lasts and added to the bin once (the same additions
        // in the same order as adding each item to the bin).
        let (mut bin, mut bin_n, mut bin_p, mut bin_y) = (usize::MAX, 0.0, 0.0, 0.0);
        let (mut group_pos, mut group_neg) = (0.0, 0.0);
        let mut ends = self.group_ends.iter().copied();
        let mut end = ends.next().unwrap_or(0);
        // The arrays side by side (no index checked per item). Branch-free weights: a
        // resample's are 0 for about a third of the items, at random.
        let terms = self
            .right
            .iter()
            .zip(&self.squared)
            .zip(&self.loss)
            .zip(&self.p);
        let items = w.iter().zip(&self.y).zip(&self.bin).zip(terms);
        for (i, (((&w, &y), &b), (((&right, &squared), &loss), &p))) in items.enumerate() {
            let wi = f64::from(w);
            let positive = wi * f64::from(u8::from(y));
            s.n += wi;
            s.expected += wi * right;
            s.brier += wi * squared;
            s.log_loss += wi * loss;
            if b != bin {
                if bin != usize::MAX {
                    s.bin_n[bin] += bin_n;
                    s.bin_p[bin] += bin_p;
                    s.bin_y[bin] += bin_y;
                }
                (bin, bin_n, bin_p, bin_y) = (b, 0.0, 0.0, 0.0);
            }
            bin_n += wi;
            bin_p += wi * p;
            bin_y += positive;
            group_pos += positive;
            group_neg += wi - positive;
            // The last item of a group of equal probabilities: its pairs with those before.
            if i + 1 == end {
                pairs += group_pos * (neg + 0.5 * group_neg);
                pos += group_pos;
                neg += group_neg;
                (group_pos, group_neg) = (0.0, 0.0);
                end = ends.next().unwrap_or(0);
            }
        }
        if bin != usize::MAX {
            s.bin_n[bin] += bin_n;
            s.bin_p[bin] += bin_p;
            s.bin_y[bin] += bin_y;
        }
        if pos > 0.0 && neg > 0.0 {
            s.auc = pairs / (pos * neg);
        }
        s
    }

    /// `resamples` bootstrap draws of the five figures, draw `r` from the stream
    /// `(seed, Calibration, r)`, split across [`random::threads`] threads: the draws are the
    /// same whatever the number of threads.
    fn bootstrap(&self, resamples: usize, seed: u64) -> Vec<[f64; 5]> {
        self.bootstrap_on(resamples, seed, random::threads())
    }

    fn bootstrap_on(&self, resamples: usize, seed: u64, threads: usize) -> Vec<[f64; 5]> {
        let n = self.y.len();
        random::split(resamples, threads, |r| {
            let mut rng = random::stream(seed, Purpose::Calibration, r as u64);
            let mut w = vec![0u32; n];
            // An index in 0..n by multiply-shift of 64 random bits (Lemire's without the
            // rejection step: a bias below n / 2^64).
            for _ in 0..n {
                let k = (u128::from(rng.next_u64()) * n as u128) >> 64;
                w[k as usize] += 1;
            }
            self.pass(&w).figures()
        })
    }
}

impl Pass {
    fn figures(&self) -> [f64; 5] {
        let ece = self
            .bin_n
            .iter()
            .zip(&self.bin_p)
            .zip(&self.bin_y)
            .filter(|((n, _), _)| **n > 0.0)
            .map(|((n, sp), sy)| n / self.n * (sy / n - sp / n).abs())
            .sum();
        [
            self.expected / self.n,
            self.brier / self.n,
            self.log_loss / self.n,
            ece,
            self.auc,
        ]
    }
}

/// Selective accuracy at each threshold.
pub fn selective(y: &[bool], p: &[f64], thresholds: &[f64]) -> Vec<Selective> {
    thresholds
        .iter()
        .map(|&threshold| {
            let (mut n, mut right) = (0usize, 0.0);
            for (&yi, &pi) in y.iter().zip(p) {
                if pi.max(1.0 - pi) >= threshold {
                    n += 1;
                    right += if pi == 0.5 {
                        0.5
                    } else if (pi > 0.5) == yi {
                        1.0
                    } else {
                        0.0
                    };
                }
            }
            Selective {
                threshold,
                n,
                coverage: n as f64 / y.len() as f64,
                accuracy: if n == 0 { f64::NAN } else { right / n as f64 },
            }
        })
        .collect()
}

/// Accuracy of the most confident items at coverages 1/`points` .. 1 (confidence
/// max(p, 1 − p), most confident first, equal confidences in item order; p = ½ worth half).
pub fn selective_curve(y: &[bool], p: &[f64], points: usize) -> Vec<(f64, f64)> {
    let n = y.len();
    if n == 0 {
        return Vec::new();
    }
    let confidence = |i: usize| p[i].max(1.0 - p[i]);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| confidence(b).total_cmp(&confidence(a)));
    let credit = |i: usize| {
        if p[i] == 0.5 {
            0.5
        } else if (p[i] > 0.5) == y[i] {
            1.0
        } else {
            0.0
        }
    };
    let mut out = Vec::with_capacity(points);
    let (mut taken, mut right) = (0usize, 0.0);
    for k in 1..=points {
        let upto = (n * k).div_ceil(points);
        while taken < upto {
            right += credit(order[taken]);
            taken += 1;
        }
        out.push((taken as f64 / n as f64, right / taken as f64));
    }
    out
}

/// The figures of probabilities `p` (of y = 1) against outcomes `y`, with `r.resamples`
/// bootstrap resamples of the items (0: no intervals), intervals at `r.level`.
pub fn calibration(y: &[bool], p: &[f64], bins: usize, r: Resampling) -> Calibration {
    let (resamples, seed) = (r.resamples, r.seed);
    let n = y.len();
    let bins = bins.max(1);
    let items = Items::new(y, p, bins);
    let whole = items.pass(&vec![1; n]);
    let [expected_accuracy, brier, log_loss, ece, auc] = if n == 0 {
        [f64::NAN; 5]
    } else {
        whole.figures()
    };
    let table = (0..bins)
        .map(|b| {
            let count = whole.bin_n[b];
            Bin {
                lo: b as f64 / bins as f64,
                hi: (b + 1) as f64 / bins as f64,
                n: count as usize,
                mean_p: if count > 0.0 {
                    whole.bin_p[b] / count
                } else {
                    f64::NAN
                },
                observed: if count > 0.0 {
                    whole.bin_y[b] / count
                } else {
                    f64::NAN
                },
            }
        })
        .collect();
    let intervals = (resamples > 0 && n > 0).then(|| {
        let mut draws: [Vec<f64>; 5] = Default::default();
        for figures in items.bootstrap(resamples, seed) {
            for (d, f) in draws.iter_mut().zip(figures) {
                if f.is_finite() {
                    d.push(f);
                }
            }
        }
        let mut ci = |k: usize| {
            if draws[k].is_empty() {
                (f64::NAN, f64::NAN)
            } else {
                r.interval(&mut draws[k])
            }
        };
        Intervals {
            expected_accuracy: ci(0),
            brier: ci(1),
            log_loss: ci(2),
            ece: ci(3),
            auc: ci(4),
        }
    });
    Calibration {
        n,
        positives: y.iter().filter(|&&t| t).count(),
        expected_accuracy,
        brier,
        log_loss,
        ece,
        auc,
        bins: table,
        selective: selective(y, p, &THRESHOLDS),
        curve: selective_curve(y, p, 20),
        intervals,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_follow_searchsorted() {
        // An edge belongs to the bin below it; 0 to the first, 1 to the last.
        assert_eq!(bin_of(0.0, 10), 0);
        assert_eq!(bin_of(0.1, 10), 0);
        assert_eq!(bin_of(0.1000001, 10), 1);
        assert_eq!(bin_of(0.3, 10), 2); // 0.3 < 3 * 0.1 = 0.30000000000000004
        assert_eq!(bin_of(1.0, 10), 9);
        assert_eq!(bin_of(0.95, 10), 9);
    }

    #[test]
    fn the_bootstrap_draws_the_same_on_one_thread_and_on_two() {
        let y: Vec<bool> = (0..300).map(|i| (i * 7) % 5 < 3).collect();
        let p: Vec<f64> = (0..300).map(|i| ((i * 13) % 100) as f64 / 100.0).collect();
        let items = Items::new(&y, &p, 10);
        let one = items.bootstrap_on(101, 9, 1);
        assert_eq!(one.len(), 101);
        assert_eq!(one, items.bootstrap_on(101, 9, 2));
        assert_ne!(one, items.bootstrap_on(101, 10, 2));
    }

    #[test]
    fn a_perfect_and_an_empty_judge() {
        let c = calibration(&[true, false], &[1.0, 0.0], 10, Resampling::at95(50, 1));
        assert_eq!(
            (c.expected_accuracy, c.brier, c.ece, c.auc),
            (1.0, 0.0, 0.0, 1.0)
        );
        assert!(c.log_loss > 0.0 && c.log_loss < 1e-15);
        let e = calibration(&[], &[], 10, Resampling::at95(50, 1));
        assert!(e.brier.is_nan() && e.intervals.is_none());
        // One class only: no AUC.
        assert!(
            calibration(&[true, true], &[0.2, 0.9], 10, Resampling::at95(0, 1))
                .auc
                .is_nan()
        );
    }
}
