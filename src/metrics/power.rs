//! Power of McNemar's test for two paired accuracies, by the normal approximation of Connor
//! (1987): with discordance ψ (the share of items exactly one of the two gets right) and
//! difference d (the difference of the two accuracies), n items detect d at level α with
//! power 1 − β when n·d² ≥ (z₁₋α/₂·√ψ + z₁₋β·√(ψ − d²))².

use statrs::distribution::{ContinuousCDF, Normal};

/// The level and power the reports use.
pub const ALPHA: f64 = 0.05;
pub const POWER: f64 = 0.8;

/// The standard normal quantile.
pub fn z(p: f64) -> f64 {
    Normal::new(0.0, 1.0)
        .map(|n| n.inverse_cdf(p))
        .unwrap_or(f64::NAN)
}

fn required(discordance: f64, d: f64, alpha: f64, power: f64) -> f64 {
    let root = z(1.0 - alpha / 2.0) * discordance.sqrt()
        + z(power) * (discordance - d * d).max(0.0).sqrt();
    root * root
}

/// Items needed to detect a difference `diff` given the discordance (a real number; round
/// it up to report it). NaN when `diff` is 0 or the inputs are impossible (|diff| > ψ).
pub fn mcnemar_items_needed(discordance: f64, diff: f64, alpha: f64, power: f64) -> f64 {
    let d = diff.abs();
    if !(d > 0.0 && d <= discordance && discordance <= 1.0) {
        return f64::NAN;
    }
    required(discordance, d, alpha, power) / (d * d)
}

/// The smallest difference `n` items detect given the discordance: the root of
/// n·d² = (z₁₋α/₂·√ψ + z₁₋β·√(ψ − d²))² on (0, ψ], by bisection. NaN when even d = ψ is
/// not detectable (too few items or too little discordance), or when n or ψ is 0.
pub fn mcnemar_min_detectable(n: f64, discordance: f64, alpha: f64, power: f64) -> f64 {
    if !(n > 0.0 && discordance > 0.0 && discordance <= 1.0) {
        return f64::NAN;
    }
    let gap = |d: f64| n * d * d - required(discordance, d, alpha, power);
    if gap(discordance) < 0.0 {
        return f64::NAN;
    }
    let (mut lo, mut hi) = (0.0, discordance);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if gap(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-15 {
            break;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_needed_and_detectable_difference_are_inverse() {
        // With ψ = 0.2 and d = 0.05: n = (1.95996·√0.2 + 0.84162·√0.1975)² / 0.0025.
        let n = mcnemar_items_needed(0.2, 0.05, ALPHA, POWER);
        let want = (1.959963984540054 * 0.2f64.sqrt() + 0.8416212335729143 * 0.1975f64.sqrt())
            .powi(2)
            / 0.0025;
        assert!((n - want).abs() < 1e-9, "{n} vs {want}");
        let d = mcnemar_min_detectable(n, 0.2, ALPHA, POWER);
        assert!((d - 0.05).abs() < 1e-12, "{d}");
        assert!(mcnemar_items_needed(0.2, 0.0, ALPHA, POWER).is_nan());
        assert!(mcnemar_min_detectable(10.0, 0.01, ALPHA, POWER).is_nan());
    }
}
