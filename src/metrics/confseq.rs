//! Anytime-valid confidence sequences for the mean of observations in [0, 1]: the
//! predictable-mixture empirical-Bernstein sequence of Waudby-Smith and Ramdas (JRSS-B 2024),
//! as the `confseq` library computes it (`predmix_empbern_twosided_cs` with its defaults: no
//! running intersection, sampling with replacement, no fixed n). An interval holds at every t
//! at once with probability 1 − α, so a run may look after every item and stop when it
//! excludes a value. Matched to confseq's own code at every t to 1e-9
//! (tests/fixtures/generate_confseq_fixtures.py).

/// confseq's default truncation of the bets λ.
pub const TRUNCATION: f64 = 0.5;

/// The bets of `lambda_predmix_eb`: λ_t = sqrt(2 log(1/α) / (t log(1 + t) σ²_{t−1})) with the
/// regularized variance (prior mean ½, prior variance ¼, one fake observation), truncated.
fn bets(x: &[f64], alpha: f64, truncation: f64) -> Vec<f64> {
    let (prior_mean, prior_variance) = (0.5, 0.25);
    let log_alpha = (1.0 / alpha).ln();
    let (mut sum, mut squares) = (0.0, 0.0);
    let mut sigma2_before = prior_variance;
    let mut out = Vec::with_capacity(x.len());
    for (k, &xi) in x.iter().enumerate() {
        let t = (k + 1) as f64;
        let lambda = (2.0 * log_alpha / (t * (1.0 + t).ln() * sigma2_before)).sqrt();
        out.push(if lambda.is_nan() { 0.0 } else { lambda }.min(truncation));
        // The regularized mean and variance through t, for the next bet.
        sum += xi;
        let mu = ((prior_mean + sum) / (t + 1.0)).min(1.0);
        squares += (xi - mu).powi(2);
        sigma2_before = (prior_variance + squares) / (t + 1.0);
    }
    out
}

/// The lower sequence (`predmix_empbern_lower_cs`) at level 1 − α: one bound per t, ≥ 0.
pub fn lower(x: &[f64], alpha: f64, truncation: f64) -> Vec<f64> {
    let lambdas = bets(x, alpha, truncation);
    let log_alpha = (1.0 / alpha).ln();
    let (mut sum_x, mut sum_lambda, mut sum_lambda_x, mut sum_v_psi) = (0.0, 0.0, 0.0, 0.0);
    let mut out = Vec::with_capacity(x.len());
    for (k, (&xi, &lambda)) in x.iter().zip(&lambdas).enumerate() {
        // The mean before t (0 at the start), as the variance increment's centre.
        let mu_before = if k == 0 { 0.0 } else { sum_x / k as f64 };
        sum_x += xi;
        let v = (xi - mu_before).powi(2);
        let psi = -(1.0 - lambda).ln() - lambda;
        sum_v_psi += v * psi;
        sum_lambda += lambda;
        sum_lambda_x += lambda * xi;
        let margin = (log_alpha + sum_v_psi) / sum_lambda;
        out.push((sum_lambda_x / sum_lambda - margin).max(0.0));
    }
    out
}

/// The two-sided sequence (`predmix_empbern_twosided_cs`) at level 1 − α: α/2 on each side,
/// the upper bound 1 − the lower bound of 1 − x. (lower, upper), one pair per t.
pub fn twosided(x: &[f64], alpha: f64, truncation: f64) -> (Vec<f64>, Vec<f64>) {
    let low = lower(x, alpha / 2.0, truncation);
    let flipped: Vec<f64> = x.iter().map(|v| 1.0 - v).collect();
    let high = lower(&flipped, alpha / 2.0, truncation)
        .into_iter()
        .map(|l| 1.0 - l)
        .collect();
    (low, high)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bounds hold what they say on a stream with a known mean: the interval shrinks
    /// around it and contains it.
    #[test]
    fn the_interval_shrinks_around_the_mean() {
        let x: Vec<f64> = (0..4000).map(|i| f64::from(u8::from(i % 10 < 3))).collect();
        let (l, u) = twosided(&x, 0.05, TRUNCATION);
        assert!(l
            .iter()
            .zip(&u)
            .all(|(a, b)| (0.0..=1.0).contains(a) && a <= b));
        let last = x.len() - 1;
        assert!(l[last] < 0.3 && 0.3 < u[last], "{} {}", l[last], u[last]);
        assert!(u[last] - l[last] < u[99] - l[99]);
        assert!(u[last] - l[last] < 0.08, "{}", u[last] - l[last]);
    }
}
