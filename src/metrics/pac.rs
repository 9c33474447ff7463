//! PAC labelling's statistics (Candès, Ilyas and Zrnic, 2025; tijana-zrnic/pac-labels'
//! `pac_utils.py`): the upper confidence bound of a mean error, asymptotic (`mean_ci` with
//! `asymptotic=True`) or the Waudby-Smith–Ramdas betting bound (`wsr`, on the same
//! 100,000-point grid, scanned as their loop scans it), and the uncertainty threshold that
//! `pac_labeling` finds by bisection. Pure; the decision around it is `evaluation::pac`'s.

use statrs::distribution::{ContinuousCDF, Normal};

/// Which bound `pac_labeling` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Bound {
    /// The central limit theorem's (`asymptotic=True`).
    Clt,
    /// Waudby-Smith and Ramdas' betting bound (`asymptotic=False`).
    #[default]
    Betting,
}

impl std::str::FromStr for Bound {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "clt" => Ok(Bound::Clt),
            "betting" => Ok(Bound::Betting),
            other => Err(format!("'{other}': use clt or betting")),
        }
    }
}

/// The grid `wsr` scans: numpy's `linspace(1e-5, 1 - 1e-5, 100000)`.
pub const GRID: usize = 100_000;

fn grid(k: usize) -> f64 {
    // numpy's linspace: start + k * step, the last point exactly the stop.
    let (start, stop) = (1e-5, 1.0 - 1e-5);
    if k == GRID - 1 {
        return stop;
    }
    let step = (stop - start) / (GRID - 1) as f64;
    start + k as f64 * step
}

/// `mean_ci(z, alpha, asymptotic, ub)[1]`: the upper end of the interval of the mean of `z`
/// (values in [0, ub]).
pub fn upper(z: &[f64], alpha: f64, bound: Bound, ub: f64) -> f64 {
    match bound {
        Bound::Clt => {
            let n = z.len() as f64;
            let mean = z.iter().sum::<f64>() / n;
            let var = z.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
            let isf = Normal::standard().inverse_cdf(1.0 - alpha);
            mean + isf * var.sqrt() / n.sqrt()
        }
        Bound::Betting => wsr_upper(z, alpha, 0.0, ub),
    }
}

/// `wsr(x, alpha, l=l, u=u)[1]` with their defaults (`theta = 0`, `c = 0.75`,
/// `intersection=True`): the grid points m whose capital `M_t(m)` stays below 1/α at every t;
/// the grid is scanned upwards and stops at the first point that fails after one passed, as
/// their loop does. Each point's test stops at the first t that fails (their vector would
/// fail there too), so the decisions are theirs at a fraction of the work.
pub fn wsr_upper(x: &[f64], alpha: f64, l: f64, u: f64) -> f64 {
    let n = x.len();
    let x: Vec<f64> = x.iter().map(|v| (v - l) / (u - l)).collect();
    // muhat_t, sigma2hat_{t-1} and lambda_t, as their cumulative sums give them.
    let mut lambda = vec![0.0; n];
    let (mut sum, mut sq) = (0.0f64, 0.0f64);
    let mut sigma_prev = 0.25;
    let log_term = 2.0 * (2.0 / alpha).ln();
    for t in 0..n {
        lambda[t] = (log_term / (n as f64 * sigma_prev)).sqrt();
        sum += x[t];
        let mu = (0.5 + sum) / (2.0 + t as f64);
        sq += (x[t] - mu).powi(2);
        sigma_prev = (0.25 + sq) / (2.0 + t as f64);
    }
    // Their defaults: theta = 0, so the capital is the "minus" process alone (theta times the
    // other is 0: each of its factors is at least 1 - c > 0, so never NaN or infinite), and
    // c = 0.75. exp(s) < 1/α is read as s < ln(1/α).
    let c = 0.75f64;
    let limit = (1.0 / alpha).ln();
    // How many leading t pass at m (n: all of them); `stop_early` ends at the first failure.
    let passes = |m: f64, stop_early: bool| -> usize {
        let mut log_capital = 0.0f64;
        let mut passed = 0usize;
        let cap = c / (1.0 - m);
        for t in 0..n {
            let lm = lambda[t].min(cap);
            log_capital += (1.0 - lm * (x[t] - m)).ln();
            if log_capital < limit {
                passed += 1;
            } else if stop_early {
                return passed;
            }
        }
        passed
    };
    // The grid in blocks, each block's points tested on two threads, the blocks read in
    // order as their loop reads the points.
    const BLOCK: usize = 2048;
    let mut first: Option<usize> = None;
    let mut last = 0usize;
    let mut done = false;
    let mut k0 = 0usize;
    while k0 < GRID && !done {
        let k1 = (k0 + BLOCK).min(GRID);
        let mid = k0 + (k1 - k0) / 2;
        let test = |a: usize, b: usize| -> Vec<bool> {
            (a..b).map(|k| passes(grid(k), true) == n).collect()
        };
        let (left, right) = std::thread::scope(|scope| {
            let right = scope.spawn(|| test(mid, k1));
            let left = test(k0, mid);
            (left, right.join().unwrap_or_else(|_| test(mid, k1)))
        });
        for (k, ok) in (k0..k1).zip(left.into_iter().chain(right)) {
            if ok {
                if first.is_none() {
                    first = Some(k);
                }
                last = k;
            } else if first.is_some() {
                done = true;
                break;
            }
        }
        k0 = k1;
    }
    if first.is_some() {
        return grid(last) * (u - l) + l;
    }
    // No point passes at every t: their fallback, the point where the most t pass (the first
    // of equals), as [grid[idx - 1], grid[idx]] unscaled, or the first two points.
    let (mut best, mut best_count) = (0usize, 0usize);
    for k in 0..GRID {
        let count = passes(grid(k), false);
        if count > best_count {
            (best, best_count) = (k, count);
        }
    }
    grid(if best == 0 { 1 } else { best })
}

/// The authors' bisection over the sorted uncertainties (`lams`): the largest threshold
/// `lams[j]` whose errors below it have an upper bound at most `epsilon`, as `lams[lb - 1]`.
/// `errors[k]` is the loss of the k-th labelled draw (π = 1), `draw_uncertainty[k]` its
/// uncertainty. Their code takes `lams[-1]` (the largest) when even the first fails; here that
/// case gives `None`: no threshold holds, every item goes to a human.
pub fn threshold(
    lams: &[f64],
    errors: &[f64],
    draw_uncertainty: &[f64],
    (epsilon, alpha): (f64, f64),
    bound: Bound,
    ub: f64,
) -> Option<usize> {
    let (mut lb, mut hi) = (0isize, lams.len() as isize - 1);
    let mut masked = vec![0.0; errors.len()];
    while lb <= hi {
        let j = (lb + hi) / 2;
        let lam = lams[j as usize];
        for (k, e) in errors.iter().enumerate() {
            masked[k] = if draw_uncertainty[k] < lam { *e } else { 0.0 };
        }
        if upper(&masked, alpha, bound, ub) > epsilon {
            hi = j - 1;
        } else {
            lb = j + 1;
        }
    }
    (lb > 0).then(|| lb as usize - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_is_numpys_linspace() {
        assert_eq!(grid(0), 1e-5);
        assert_eq!(grid(GRID - 1), 1.0 - 1e-5);
        // np.linspace(1e-5, 1 - 1e-5, 100000) at 1, 12345 and 50000, to the bit.
        assert_eq!(grid(1), 1.999_989_999_899_999e-5);
        assert_eq!(grid(12_345), 0.123_458_765_487_654_87);
        assert_eq!(grid(50_000), 0.500_004_999_949_999_5);
    }

    #[test]
    fn the_clt_bound_is_mean_plus_z_sd_over_root_n() {
        // mean 0.25, population sd sqrt(0.1875), n 4: 0.25 + 1.6448536269514722 * 0.4330127/2
        let u = upper(&[0.0, 0.0, 0.0, 1.0], 0.05, Bound::Clt, 1.0);
        assert!((u - (0.25 + 1.644_853_626_951_472_2 * 0.1875f64.sqrt() / 2.0)).abs() < 1e-12);
    }
}
