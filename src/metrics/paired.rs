//! The exact pieces of paired comparisons, as scipy and statsmodels compute them: McNemar's
//! exact (binomial) test, the Clopper–Pearson interval it inverts, Holm's step-down adjustment
//! and the normal quantile. `evaluation::paired` builds its tests and families from them.

use statrs::distribution::{Binomial as BinomialDist, ContinuousCDF, DiscreteCDF, Normal};
use statrs::function::beta::beta_reg;

/// The standard normal quantile at `q`.
pub fn normal_quantile(q: f64) -> f64 {
    Normal::new(0.0, 1.0).map_or(f64::NAN, |n| n.inverse_cdf(q))
}

/// P(X ≥ k) for X ~ Binomial(n, p), as the regularized incomplete beta I_p(k, n − k + 1).
fn upper_tail(k: u64, n: u64, p: f64) -> f64 {
    if k == 0 {
        1.0
    } else {
        beta_reg(k as f64, (n - k + 1) as f64, p)
    }
}

/// The p where `f` (increasing in p on [0, 1]) crosses `target`, by bisection.
fn solve(f: impl Fn(f64) -> f64, target: f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The Clopper–Pearson 1 − γ interval of a binomial proportion, k successes of n (n > 0).
pub fn clopper_pearson(k: u64, n: u64, gamma: f64) -> (f64, f64) {
    let lo = if k == 0 {
        0.0
    } else {
        solve(|p| upper_tail(k, n, p), gamma / 2.0)
    };
    // P(X ≤ k) = 1 − P(X ≥ k + 1) falls in p: the hi bound is where it reaches γ/2.
    let hi = if k == n {
        1.0
    } else {
        solve(|p| upper_tail(k + 1, n, p), 1.0 - gamma / 2.0)
    };
    (lo, hi)
}

/// McNemar's exact (binomial) two-sided p-value.
pub fn mcnemar_exact(only_a: u64, only_b: u64) -> f64 {
    let n = only_a + only_b;
    if n == 0 {
        return 1.0;
    }
    let k = only_a.min(only_b);
    match BinomialDist::new(0.5, n) {
        Ok(d) => (2.0 * d.cdf(k)).min(1.0),
        Err(_) => f64::NAN,
    }
}

/// Holm's step-down adjustment.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| p[i].total_cmp(&p[j]));
    let mut adjusted = vec![0.0; m];
    let mut running = 0.0f64;
    for (rank, &i) in order.iter().enumerate() {
        running = running.max(((m - rank) as f64 * p[i]).min(1.0));
        adjusted[i] = running;
    }
    adjusted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcnemar_matches_scipy_binomtest() {
        // scipy.stats.binomtest(2, 12, 0.5).pvalue = 0.03857421875
        assert!((mcnemar_exact(2, 10) - 0.038_574_218_75).abs() < 1e-12);
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        assert_eq!(mcnemar_exact(5, 5), 1.0);
    }

    #[test]
    fn clopper_pearson_matches_scipy() {
        // scipy.stats.beta.ppf(0.025, 7, 14), beta.ppf(0.975, 8, 13)
        // = (0.15390920478454118, 0.5921885345328282)
        let (lo, hi) = clopper_pearson(7, 20, 0.05);
        assert!((lo - 0.153_909_204_784_541_18).abs() < 1e-9, "{lo}");
        assert!((hi - 0.592_188_534_532_828_2).abs() < 1e-9, "{hi}");
        // 0 of 10: (0, beta.ppf(0.975, 1, 10)) = (0, 0.3084971078187607)
        let (lo, hi) = clopper_pearson(0, 10, 0.05);
        assert_eq!(lo, 0.0);
        assert!((hi - 0.308_497_107_818_760_7).abs() < 1e-9, "{hi}");
    }

    #[test]
    fn holm_adjustment() {
        // statsmodels.stats.multitest.multipletests([0.01, 0.04, 0.03], method='holm')
        let adj = holm(&[0.01, 0.04, 0.03]);
        let want = [0.03, 0.06, 0.06];
        for (a, w) in adj.iter().zip(want) {
            assert!((a - w).abs() < 1e-12, "{adj:?}");
        }
    }
}
