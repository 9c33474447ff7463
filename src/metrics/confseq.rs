//! Anytime-valid confidence sequences for the mean of observations in [0, 1]: the
//! predictable-mixture empirical-Bernstein sequence of Waudby-Smith and Ramdas (JRSS-B 2024),
//! as the `confseq` library computes it (`predmix_empbern_twosided_cs` with its defaults: no
//! running intersection, sampling with replacement, no fixed n). An interval holds at every t
//! at once with probability 1 − α, so a run may look after every item and stop when it
//! excludes a value. Matched to confseq's own code at every t to 1e-9
//! (tests/fixtures/generate_confseq_fixtures.py).

/// confseq's default truncation of the bets λ.
pub const TRUNCATION: f64 = 0.5;

/// The lower sequence (`predmix_empbern_lower_cs`) as the observations arrive: each `push`
/// gives the bound at that t, equal to [`lower`]'s. Its bets are `lambda_predmix_eb`'s:
/// λ_t = sqrt(2 log(1/α) / (t log(1 + t) σ²_{t−1})) with the regularized variance (prior mean
/// ½, prior variance ¼, one fake observation), truncated.
#[derive(Debug, Clone)]
pub struct Lower {
    log_alpha: f64,
    truncation: f64,
    t: usize,
    /// The bets' running sums: of x, and of squares about the regularized mean.
    sum: f64,
    squares: f64,
    sigma2_before: f64,
    /// The bound's running sums.
    sum_lambda: f64,
    sum_lambda_x: f64,
    sum_v_psi: f64,
}

impl Lower {
    pub fn new(alpha: f64, truncation: f64) -> Self {
        Self {
            log_alpha: (1.0 / alpha).ln(),
            truncation,
            t: 0,
            sum: 0.0,
            squares: 0.0,
            sigma2_before: 0.25,
            sum_lambda: 0.0,
            sum_lambda_x: 0.0,
            sum_v_psi: 0.0,
        }
    }

    /// Takes the next observation (in [0, 1]) and gives the lower bound through it (≥ 0).
    pub fn push(&mut self, xi: f64) -> f64 {
        let (prior_mean, prior_variance) = (0.5, 0.25);
        let k = self.t;
        let t = (k + 1) as f64;
        let bet = (2.0 * self.log_alpha / (t * (1.0 + t).ln() * self.sigma2_before)).sqrt();
        let lambda = if bet.is_nan() { 0.0 } else { bet }.min(self.truncation);
        // The mean before t (0 at the start), as the variance increment's centre.
        let mu_before = if k == 0 { 0.0 } else { self.sum / k as f64 };
        let v = (xi - mu_before).powi(2);
        let psi = -(1.0 - lambda).ln() - lambda;
        self.sum_v_psi += v * psi;
        self.sum_lambda += lambda;
        self.sum_lambda_x += lambda * xi;
        // The regularized mean and variance through t, for the next bet.
        self.sum += xi;
        let mu = ((prior_mean + self.sum) / (t + 1.0)).min(1.0);
        self.squares += (xi - mu).powi(2);
        self.sigma2_before = (prior_variance + self.squares) / (t + 1.0);
        self.t += 1;
        let margin = (self.log_alpha + self.sum_v_psi) / self.sum_lambda;
        (self.sum_lambda_x / self.sum_lambda - margin).max(0.0)
    }
}

/// The lower sequence (`predmix_empbern_lower_cs`) at level 1 − α: one bound per t, ≥ 0.
pub fn lower(x: &[f64], alpha: f64, truncation: f64) -> Vec<f64> {
    let mut running = Lower::new(alpha, truncation);
    x.iter().map(|&xi| running.push(xi)).collect()
}

/// The two-sided sequence as the observations arrive: each `push` gives (lower, upper) at that
/// t, equal to [`twosided`]'s.
#[derive(Debug, Clone)]
pub struct TwoSided {
    low: Lower,
    high: Lower,
}

impl TwoSided {
    pub fn new(alpha: f64, truncation: f64) -> Self {
        Self {
            low: Lower::new(alpha / 2.0, truncation),
            high: Lower::new(alpha / 2.0, truncation),
        }
    }

    pub fn push(&mut self, xi: f64) -> (f64, f64) {
        (self.low.push(xi), 1.0 - self.high.push(1.0 - xi))
    }
}

/// The two-sided sequence (`predmix_empbern_twosided_cs`) at level 1 − α: α/2 on each side,
/// the upper bound 1 − the lower bound of 1 − x. (lower, upper), one pair per t.
pub fn twosided(x: &[f64], alpha: f64, truncation: f64) -> (Vec<f64>, Vec<f64>) {
    let mut running = TwoSided::new(alpha, truncation);
    x.iter().map(|&xi| running.push(xi)).unzip()
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
