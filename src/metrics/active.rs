//! Active statistical inference for a mean (Zrnic and Candès, ICML 2024; their notebooks in
//! tijana-zrnic/active-inference): label item i with probability π_i that grows with the
//! model's uncertainty, and correct the model's predictions with inverse-probability weights.
//!
//! - the rule: π_i = clip((1 − τ)·η·u_i + τ·B, 0, 1), with u = min(p, 1 − p), η = B / mean(u)
//!   and B the expected share of items labelled;
//! - τ: of `linspace(0.01, 0.99, 100)`, the first that minimises mean((y − p)² / π) on a pilot
//!   with gold (η the pilot's own);
//! - the estimate: mean(p + (y − p)·ξ/π) ± z_{1−α/2}·std/√n (NumPy's std, ddof = 0), ξ_i = 1
//!   where item i was drawn (and labelled).
//!
//! Pure: numbers in, numbers out.

use super::paired::normal_quantile;
use super::ppi::{mean, var0, MeanCi};

/// How many values of τ are tried, from 0.01 to 0.99.
pub const TAUS: usize = 100;

/// The i-th τ of NumPy's `linspace(0.01, 0.99, 100)`.
pub fn tau(i: usize) -> f64 {
    let (start, stop) = (0.01, 0.99);
    if i == TAUS - 1 {
        return stop;
    }
    start + i as f64 * ((stop - start) / (TAUS - 1) as f64)
}

/// The uncertainty of a probability: min(p, 1 − p).
pub fn uncertainty(p: f64) -> f64 {
    p.min(1.0 - p)
}

/// η = B / mean(u): scales the uncertainties so that their π average B before clipping.
pub fn eta(u: &[f64], budget: f64) -> f64 {
    budget / mean(u.iter().copied())
}

/// π_i = clip((1 − τ)·η·u_i + τ·B, 0, 1).
pub fn label_probs(u: &[f64], budget: f64, tau: f64) -> Vec<f64> {
    let eta = eta(u, budget);
    u.iter()
        .map(|&ui| ((1.0 - tau) * eta * ui + tau * budget).clamp(0.0, 1.0))
        .collect()
}

/// The τ of the grid that minimises mean((y − p)² / π) on a pilot (`y` its gold outcomes, `p`
/// the model's probabilities), the first on equal values, as their loop keeps it.
pub fn tune_tau(y: &[f64], p: &[f64], budget: f64) -> f64 {
    let u: Vec<f64> = p.iter().map(|&v| uncertainty(v)).collect();
    let mut best = (f64::INFINITY, tau(0));
    for i in 0..TAUS {
        let t = tau(i);
        let pi = label_probs(&u, budget, t);
        let var = mean(
            y.iter()
                .zip(p)
                .zip(&pi)
                .map(|((y, p), pi)| (y - p).powi(2) / pi),
        );
        if var < best.0 {
            best = (var, t);
        }
    }
    best.1
}

/// The active estimate of the mean of y over every item: mean(p + (y − p)·ξ/π) and its
/// interval at 1 − α. `y` is None where the item was not drawn (ξ = 0).
pub fn estimate(p: &[f64], y: &[Option<f64>], pi: &[f64], alpha: f64) -> MeanCi {
    let terms: Vec<f64> = p
        .iter()
        .zip(y)
        .zip(pi)
        .map(|((&p, y), &pi)| match y {
            Some(y) => p + (y - p) / pi,
            None => p,
        })
        .collect();
    let n = terms.len() as f64;
    let m = mean(terms.iter().copied());
    let se = var0(&terms).sqrt() / n.sqrt();
    let z = normal_quantile(1.0 - alpha / 2.0);
    MeanCi {
        estimate: m,
        se,
        ci: (m - z * se, m + z * se),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_is_numpys() {
        assert_eq!(tau(0), 0.01);
        assert_eq!(tau(99), 0.99);
        // np.linspace(0.01, 0.99, 100)[50] and [33], to the bit
        assert_eq!(tau(50), 0.504_949_494_949_494_9);
        assert_eq!(tau(33), 0.336_666_666_666_666_67);
    }

    #[test]
    fn the_probabilities_average_the_budget_before_clipping() {
        let u = [0.1, 0.2, 0.3, 0.4];
        let pi = label_probs(&u, 0.2, 0.5);
        let m = pi.iter().sum::<f64>() / 4.0;
        assert!((m - 0.2).abs() < 1e-12, "{m}");
        // More uncertain, more likely asked.
        assert!(pi.windows(2).all(|w| w[0] < w[1]));
        // τ = 1 would be uniform; the grid's last is close to it.
        let flat = label_probs(&u, 0.2, 0.99);
        assert!(flat.iter().all(|p| (p - 0.2).abs() < 0.01));
    }

    #[test]
    fn an_informative_uncertainty_favours_a_small_tau() {
        // The model errs only where it is unsure: the best π follows u (τ at the grid's start).
        let p: Vec<f64> = (0..200)
            .map(|i| if i % 4 == 0 { 0.5 } else { 0.98 })
            .collect();
        let y: Vec<f64> = (0..200)
            .map(|i| {
                if i % 4 == 0 {
                    f64::from(u8::from(i % 8 == 0))
                } else {
                    1.0
                }
            })
            .collect();
        assert_eq!(tune_tau(&y, &p, 0.1), 0.01);
        // Uninformative (every u alike): every τ gives π = B, up to rounding.
        let flat = vec![0.3; 50];
        for i in [0, 40, 99] {
            assert!(label_probs(&flat, 0.1, tau(i))
                .iter()
                .all(|pi| (pi - 0.1).abs() < 1e-15));
        }
    }

    #[test]
    fn the_estimate_weights_the_drawn_residuals() {
        let p = [0.2, 0.8, 0.5, 0.9];
        let y = [Some(1.0), None, Some(0.0), None];
        let pi = [0.5, 0.25, 1.0, 0.2];
        let e = estimate(&p, &y, &pi, 0.05);
        let terms = [0.2 + 0.8 / 0.5, 0.8, 0.5 - 0.5, 0.9];
        let m = terms.iter().sum::<f64>() / 4.0;
        assert!((e.estimate - m).abs() < 1e-15);
        let sd = (terms.iter().map(|t| (t - m).powi(2)).sum::<f64>() / 4.0).sqrt();
        assert!((e.se - sd / 2.0).abs() < 1e-15);
        assert!((e.ci.1 - e.estimate - 1.959_963_984_540_054 * e.se).abs() < 1e-12);
    }
}
