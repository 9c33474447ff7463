//! A mean from few gold labels and many predictions, as the reference libraries compute it:
//! - the classical CLT interval on the labels alone (ppi_py's `classical_mean_ci`);
//! - prediction-powered inference, PPI (λ = 1) and PPI++ (λ tuned), as ppi_py's
//!   `ppi_mean_pointestimate`/`ppi_mean_ci` (Angelopoulos et al., Science 2023; PPI++, 2024);
//! - the Rogan–Gladen correction of a binary rate with its interval, and the split of a
//!   calibration budget between true negatives and true positives, as Lee et al.'s
//!   `llm_judge_reporting` (`point_estimator`, `confidence_interval`,
//!   `allocate_calibration_sample`).
//!
//! Standard deviations are ppi_py's (NumPy's default, ddof = 0), except the variance in λ's
//! denominator, which is `np.cov`'s (ddof = 1). Matched to each library's own code to 1e-9
//! (tests/fixtures/generate_ppi_fixtures.py).

use super::paired::normal_quantile;

/// A point estimate with its standard error and two-sided interval.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct MeanCi {
    pub estimate: f64,
    pub se: f64,
    pub ci: (f64, f64),
}

impl MeanCi {
    /// `estimate ± z·se` at 1 − α (statsmodels' `_zconfint_generic`, two-sided).
    fn new(estimate: f64, se: f64, alpha: f64) -> Self {
        let z = normal_quantile(1.0 - alpha / 2.0);
        Self {
            estimate,
            se,
            ci: (estimate - z * se, estimate + z * se),
        }
    }
}

/// The mean (NaN of nothing).
pub fn mean(x: impl ExactSizeIterator<Item = f64>) -> f64 {
    let n = x.len();
    x.sum::<f64>() / n as f64
}

/// NumPy's `var` (ddof = 0).
pub fn var0(x: &[f64]) -> f64 {
    let m = mean(x.iter().copied());
    x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / x.len() as f64
}

/// NumPy's `std` (ddof = 0).
fn std0(x: &[f64]) -> f64 {
    var0(x).sqrt()
}

/// The classical interval on the labels alone: mean ± z·std/√n.
pub fn classical_mean_ci(y: &[f64], alpha: f64) -> MeanCi {
    let n = y.len() as f64;
    MeanCi::new(mean(y.iter().copied()), std0(y) / n.sqrt(), alpha)
}

/// The prediction-powered estimate at λ: λ·mean(ŷ unlabelled) + mean(y − λ·ŷ), with its
/// standard error √(std(λ·ŷ_u)²/N + std(y − λ·ŷ)²/n).
pub fn ppi_mean_ci(y: &[f64], yhat: &[f64], unlabelled: &[f64], lambda: f64, alpha: f64) -> MeanCi {
    let (n, big_n) = (y.len() as f64, unlabelled.len() as f64);
    let rectifier: Vec<f64> = y.iter().zip(yhat).map(|(y, h)| y - lambda * h).collect();
    let imputed: Vec<f64> = unlabelled.iter().map(|h| lambda * h).collect();
    let estimate = mean(imputed.iter().copied()) + mean(rectifier.iter().copied());
    let se =
        ((std0(&imputed) / big_n.sqrt()).powi(2) + (std0(&rectifier) / n.sqrt()).powi(2)).sqrt();
    MeanCi::new(estimate, se, alpha)
}

/// PPI++'s λ as `ppi_mean_ci` tunes it: at the λ = 1 estimate θ, cov(y − θ, ŷ − θ) over the
/// labelled items (ddof 0, symmetrized) over 2(1 + n/N) times the variance of every prediction
/// (ddof 1), clipped to [0, 1]. ppi_py gives NaN when the predictions do not vary; here λ is 0
/// then (the predictions carry nothing, and PPI++ is the classical estimate).
pub fn ppi_lambda(y: &[f64], yhat: &[f64], unlabelled: &[f64]) -> f64 {
    let (n, big_n) = (y.len() as f64, unlabelled.len() as f64);
    let theta = ppi_mean_ci(y, yhat, unlabelled, 1.0, 0.05).estimate;
    let g: Vec<f64> = y.iter().map(|v| v - theta).collect();
    let gh: Vec<f64> = yhat.iter().map(|v| v - theta).collect();
    let (mg, mgh) = (mean(g.iter().copied()), mean(gh.iter().copied()));
    let cov = 2.0
        * g.iter()
            .zip(&gh)
            .map(|(a, b)| (a - mg) * (b - mgh))
            .sum::<f64>()
        / n;
    let all: Vec<f64> = yhat.iter().chain(unlabelled).map(|v| v - theta).collect();
    let m = mean(all.iter().copied());
    let var = all.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (all.len() as f64 - 1.0);
    let lambda = cov / (2.0 * (1.0 + n / big_n) * var);
    if lambda.is_nan() {
        0.0
    } else {
        lambda.clamp(0.0, 1.0)
    }
}

/// The Rogan–Gladen estimate of a rate from the judge's rate p, its specificity q0 and
/// sensitivity q1: (p + q0 − 1)/(q0 + q1 − 1), unclipped (the caller clips and says so).
pub fn rogan_gladen(p: f64, q0: f64, q1: f64) -> f64 {
    (p + q0 - 1.0) / (q0 + q1 - 1.0)
}

/// Lee et al.'s interval for the Rogan–Gladen estimate: the plug-in standard error with
/// smoothing (p by Wilson's z²/2, q0 and q1 by one success and one failure), centred with its
/// bias correction, each end clipped to [0, 1]. n test items, m0 labelled negatives and m1
/// labelled positives.
pub fn rogan_gladen_ci(
    p: f64,
    q0: f64,
    q1: f64,
    (n, m0, m1): (usize, usize, usize),
    alpha: f64,
) -> (f64, f64) {
    let z = normal_quantile(1.0 - alpha / 2.0);
    let z2 = z * z;
    let (n, m0, m1) = (n as f64, m0 as f64, m1 as f64);
    let p = (n * p + z2 / 2.0) / (n + z2);
    let q0 = (m0 * q0 + 1.0) / (m0 + 2.0);
    let q1 = (m1 * q1 + 1.0) / (m1 + 2.0);
    let (n, m0, m1) = (n + z2, m0 + 2.0, m1 + 2.0);
    let th = (p + q0 - 1.0) / (q0 + q1 - 1.0);
    let dth = 2.0 * z2 * (-(1.0 - th) * q0 * (1.0 - q0) / m0 + th * q1 * (1.0 - q1) / m1);
    let se = (p * (1.0 - p) / n
        + (1.0 - th).powi(2) * q0 * (1.0 - q0) / m0
        + th.powi(2) * q1 * (1.0 - q1) / m1)
        .sqrt()
        / (q0 + q1 - 1.0);
    let clip = |x: f64| x.clamp(0.0, 1.0);
    (clip(th + dth - z * se), clip(th + dth + z * se))
}

/// Lee et al.'s split of m calibration labels into (m0 negatives, m1 positives), from the
/// judge's positive rate p and a pilot's specificity q0 and sensitivity q1 over `pilot` labels
/// (0: q0 and q1 taken as given). m1 = m / (1 + (1/p − 1)·√κ), κ the ratio of the two error
/// rates, rounded half to even as Python's `round`.
pub fn allocate(m: usize, p: f64, q0: f64, q1: f64, pilot: usize) -> (usize, usize) {
    let eps = 1e-6;
    let mf = m as f64;
    let m1 = if p < eps {
        m.saturating_sub(pilot)
    } else {
        let kappa = if pilot == 0 {
            (1.0 - q0) / (1.0 - q1.min(1.0 - eps))
        } else {
            let mp = pilot as f64;
            (mp * (1.0 - q0) + 1.0) / (mp * (1.0 - q1) + 1.0)
        };
        let m1 = mf / (1.0 + (1.0 / p - 1.0) * kappa.sqrt());
        let capped = m1.min((m - pilot.min(m)) as f64).round_ties_even();
        (capped as usize).max(pilot)
    };
    (m - m1.min(m), m1.min(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ppi_at_lambda_zero_is_the_classical_interval() {
        let y = [1.0, 0.0, 1.0, 1.0, 0.0];
        let yhat = [0.9, 0.2, 0.6, 0.8, 0.4];
        let unlabelled = [0.3, 0.7, 0.9, 0.1];
        let c = classical_mean_ci(&y, 0.1);
        let p0 = ppi_mean_ci(&y, &yhat, &unlabelled, 0.0, 0.1);
        assert!((c.estimate - p0.estimate).abs() < 1e-15);
        assert!((c.ci.0 - p0.ci.0).abs() < 1e-15 && (c.ci.1 - p0.ci.1).abs() < 1e-15);
        // A constant judge tells nothing: λ is 0.
        assert_eq!(ppi_lambda(&y, &[1.0; 5], &[1.0; 4]), 0.0);
        let l = ppi_lambda(&y, &yhat, &unlabelled);
        assert!((0.0..=1.0).contains(&l));
    }

    #[test]
    fn rogan_gladen_undoes_a_known_misclassification() {
        // True rate 0.3, sensitivity 0.9, specificity 0.8: the judge says 0.3·0.9 + 0.7·0.2.
        let p = 0.3 * 0.9 + 0.7 * 0.2;
        assert!((rogan_gladen(p, 0.8, 0.9) - 0.3).abs() < 1e-12);
        let (lo, hi) = rogan_gladen_ci(p, 0.8, 0.9, (10_000, 5_000, 5_000), 0.05);
        assert!(lo < 0.3 && 0.3 < hi && hi - lo < 0.05, "{lo} {hi}");
        let (m0, m1) = allocate(200, 0.41, 0.8, 0.9, 0);
        assert_eq!(m0 + m1, 200);
        assert!(m1 > 0 && m0 > 0);
        assert_eq!(allocate(200, 0.0, 0.8, 0.9, 0), (0, 200));
    }
}
