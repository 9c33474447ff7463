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

use super::bootstrap::interval95;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// sklearn's clipping for log loss: float64's machine epsilon.
const EPS: f64 = f64::EPSILON;

/// The default number of equal-width bins.
pub const BINS: usize = 10;

/// The confidences at which selective accuracy is reported.
pub const THRESHOLDS: [f64; 7] = [0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99];

/// One equal-width bin of the reliability table.
#[derive(Debug, Clone, PartialEq)]
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
#[derive(Debug, Clone, PartialEq)]
pub struct Selective {
    pub threshold: f64,
    pub n: usize,
    pub coverage: f64,
    /// NaN when nothing is covered.
    pub accuracy: f64,
}

/// 95% bootstrap intervals of the figures.
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

/// The figures from item weights (1 each, or a resample's counts), items visited in
/// probability order (`order`), ties grouped for the AUC.
fn pass(y: &[bool], p: &[f64], order: &[usize], bin: &[usize], bins: usize, w: &[f64]) -> Pass {
    let mut s = Pass {
        n: 0.0,
        expected: 0.0,
        brier: 0.0,
        log_loss: 0.0,
        bin_n: vec![0.0; bins],
        bin_p: vec![0.0; bins],
        bin_y: vec![0.0; bins],
        auc: f64::NAN,
    };
    let (mut pos, mut neg, mut pairs) = (0.0, 0.0, 0.0);
    let mut k = 0;
    while k < order.len() {
        // One group of equal probabilities.
        let mut end = k;
        let (mut group_pos, mut group_neg) = (0.0, 0.0);
        while end < order.len() && p[order[end]] == p[order[k]] {
            let i = order[end];
            let (wi, yi, pi) = (w[i], y[i], p[i]);
            if wi != 0.0 {
                let t = if yi { 1.0 } else { 0.0 };
                s.n += wi;
                s.expected += wi * if yi { pi } else { 1.0 - pi };
                s.brier += wi * (pi - t) * (pi - t);
                let q = if yi { pi } else { 1.0 - pi };
                s.log_loss -= wi * q.clamp(EPS, 1.0 - EPS).ln();
                s.bin_n[bin[i]] += wi;
                s.bin_p[bin[i]] += wi * pi;
                s.bin_y[bin[i]] += wi * t;
                if yi {
                    group_pos += wi;
                } else {
                    group_neg += wi;
                }
            }
            end += 1;
        }
        pairs += group_pos * (neg + 0.5 * group_neg);
        pos += group_pos;
        neg += group_neg;
        k = end;
    }
    if pos > 0.0 && neg > 0.0 {
        s.auc = pairs / (pos * neg);
    }
    s
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

/// The figures of probabilities `p` (of y = 1) against outcomes `y`, with `resamples`
/// bootstrap resamples of the items (0: no intervals).
pub fn calibration(y: &[bool], p: &[f64], bins: usize, resamples: usize, seed: u64) -> Calibration {
    let n = y.len();
    let bins = bins.max(1);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let bin: Vec<usize> = p.iter().map(|&x| bin_of(x, bins)).collect();
    let ones = vec![1.0; n];
    let whole = pass(y, p, &order, &bin, bins, &ones);
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
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x63616c6962);
        let mut w = vec![0.0; n];
        for _ in 0..resamples {
            w.iter_mut().for_each(|x| *x = 0.0);
            for _ in 0..n {
                w[rng.random_range(0..n)] += 1.0;
            }
            let figures = pass(y, p, &order, &bin, bins, &w).figures();
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
                interval95(&mut draws[k])
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
    fn a_perfect_and_an_empty_judge() {
        let c = calibration(&[true, false], &[1.0, 0.0], 10, 50, 1);
        assert_eq!(
            (c.expected_accuracy, c.brier, c.ece, c.auc),
            (1.0, 0.0, 0.0, 1.0)
        );
        assert!(c.log_loss > 0.0 && c.log_loss < 1e-15);
        let e = calibration(&[], &[], 10, 50, 1);
        assert!(e.brier.is_nan() && e.intervals.is_none());
        // One class only: no AUC.
        assert!(calibration(&[true, true], &[0.2, 0.9], 10, 0, 1)
            .auc
            .is_nan());
    }
}
