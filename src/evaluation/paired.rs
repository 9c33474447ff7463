//! One paired test of a difference (B − A), and Holm's adjustment over a family of them, with
//! intervals that agree with the verdicts.
//!
//! Every test here has an interval dual to it: at any level 1 − γ, the interval excludes 0
//! exactly when the test's p-value is below γ. Holm's procedure tests the pair at step j (the
//! j-th smallest p of m) at γ = α/(m − j), and stops at the first step r that does not reject;
//! each interval is given at the level of the step that decided its pair, 1 − α/(m − min(j, r)).
//! So an interval excludes 0 exactly when its pair is called different, in every output.
//!
//! The tests:
//! - [`MetricTest::mcnemar`]: McNemar's exact (binomial) test on the discordant items, and the
//!   Clopper–Pearson interval of the share of them B got right, times their share of the items;
//! - [`MetricTest::from_draws`]: a paired bootstrap's difference, tested with the normal
//!   approximation from its standard error (z = difference / SE). Its p-value is not floored
//!   at 1/(resamples + 1) as a percentile p-value is, so Holm over many pairs can reject.

use crate::metrics::paired::{clopper_pearson, holm, mcnemar_exact, normal_quantile as z};
use crate::metrics::pvalue::normal_two_sided;

/// The significance level unless told otherwise (`--alpha`).
pub const ALPHA: f64 = 0.05;

/// What an interval and a p-value are computed from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Basis {
    /// No test (no item rated by both, or no resamples).
    None,
    /// A paired bootstrap's standard error: difference ± z·SE.
    Normal { se: f64 },
    /// McNemar's discordant items (only A right, only B right) of n.
    McNemar { only_a: u64, only_b: u64, n: u64 },
}

/// One metric's paired test of B against A.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MetricTest {
    /// B − A.
    pub diff: f64,
    /// The interval at `level` (NaN bounds without a test).
    pub ci: (f64, f64),
    /// The interval's level: 0.95 without a verdict, else 1 − α/(m − step) (see the
    /// module's note).
    pub level: f64,
    /// The test's two-sided p-value (NaN when untested).
    pub p: f64,
    /// Holm-adjusted within the family (NaN when untested or without a verdict).
    pub p_holm: f64,
    pub basis: Basis,
    /// The significance level it is read at (`--alpha`): its finding, its family's Holm steps
    /// and, without a verdict, its interval at 1 − α.
    pub alpha: f64,
}

/// What a metric's test found (written `b_better`, `a_better`, `no_difference`, `no_verdict`,
/// `untested`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Finding {
    BBetter,
    ABetter,
    NoDifference,
    /// Tested, but given no verdict (`--family best` judges the best against the others):
    /// its raw p and an unadjusted interval.
    #[serde(rename = "no_verdict")]
    Unjudged,
    /// No test (no item rated by both, or no resamples for a bootstrap test).
    Untested,
}

impl Finding {
    /// The finding as the JSON documents and CSV files name it.
    pub fn key(self) -> &'static str {
        match self {
            Finding::BBetter => "b_better",
            Finding::ABetter => "a_better",
            Finding::NoDifference => "no_difference",
            Finding::Unjudged => "no_verdict",
            Finding::Untested => "untested",
        }
    }
}

/// The sample standard deviation (ddof 1) of the finite values; None with fewer than two.
fn std_dev(values: &[f64]) -> Option<f64> {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if finite.len() < 2 {
        return None;
    }
    let mean = finite.iter().sum::<f64>() / finite.len() as f64;
    let ss: f64 = finite.iter().map(|v| (v - mean).powi(2)).sum();
    Some((ss / (finite.len() - 1) as f64).sqrt())
}

impl MetricTest {
    /// No test of a difference (NaN when there is none either).
    pub fn untested(diff: f64) -> Self {
        Self {
            diff,
            ci: (f64::NAN, f64::NAN),
            level: 1.0 - ALPHA,
            p: f64::NAN,
            p_holm: f64::NAN,
            basis: Basis::None,
            alpha: ALPHA,
        }
    }

    /// The test read at level `alpha`, its interval (unadjusted) at 1 − α.
    pub fn at(self, alpha: f64) -> Self {
        let level = 1.0 - alpha;
        Self {
            alpha,
            level,
            ci: self.interval(level),
            ..self
        }
    }

    /// A paired bootstrap's test of `diff`: its resampled differences' standard error gives
    /// z = diff / SE, the two-sided normal p-value, and diff ± z·SE at any level. Untested
    /// with fewer than two defined resamples or an undefined difference.
    pub fn from_draws(diff: f64, draws: &[f64]) -> Self {
        match std_dev(draws) {
            Some(se) if diff.is_finite() => Self::with(diff, Basis::Normal { se }),
            _ => Self::untested(diff),
        }
    }

    /// McNemar's exact test of B's accuracy against A's on n items both rated, only_a of
    /// which only A got right and only_b only B.
    pub fn mcnemar(only_a: u64, only_b: u64, n: u64) -> Self {
        if n == 0 {
            return Self::untested(f64::NAN);
        }
        let diff = (only_b as f64 - only_a as f64) / n as f64;
        Self::with(diff, Basis::McNemar { only_a, only_b, n })
    }

    fn with(diff: f64, basis: Basis) -> Self {
        let mut t = Self {
            diff,
            ci: (f64::NAN, f64::NAN),
            level: 1.0 - ALPHA,
            p: f64::NAN,
            p_holm: f64::NAN,
            basis,
            alpha: ALPHA,
        };
        t.p = t.p_value();
        t.ci = t.interval(t.level);
        t
    }

    fn p_value(&self) -> f64 {
        match self.basis {
            Basis::None => f64::NAN,
            Basis::Normal { se: 0.0 } => {
                if self.diff == 0.0 {
                    1.0
                } else {
                    0.0
                }
            }
            Basis::Normal { se } => normal_two_sided(self.diff / se),
            Basis::McNemar { only_a, only_b, .. } => mcnemar_exact(only_a, only_b),
        }
    }

    /// The interval dual to the test at `level`: it excludes 0 exactly when p < 1 − level.
    pub fn interval(&self, level: f64) -> (f64, f64) {
        let gamma = 1.0 - level;
        match self.basis {
            Basis::None => (f64::NAN, f64::NAN),
            Basis::Normal { se } => {
                let half = z(1.0 - gamma / 2.0) * se;
                (self.diff - half, self.diff + half)
            }
            Basis::McNemar { only_a, only_b, n } => {
                let discordant = only_a + only_b;
                if discordant == 0 {
                    return (0.0, 0.0);
                }
                let share = discordant as f64 / n as f64;
                let (lo, hi) = clopper_pearson(only_b, discordant, gamma);
                (share * (2.0 * lo - 1.0), share * (2.0 * hi - 1.0))
            }
        }
    }

    /// The test with no verdict: its raw p, no adjusted one, and its unadjusted interval at
    /// 1 − α.
    pub fn without_verdict(self) -> Self {
        Self {
            p_holm: f64::NAN,
            level: 1.0 - self.alpha,
            ci: self.interval(1.0 - self.alpha),
            ..self
        }
    }

    /// Whether the test has a verdict (an adjusted p-value).
    pub fn judged(&self) -> bool {
        !self.p_holm.is_nan()
    }

    /// The same test read the other way round (A − B): the difference and its interval
    /// negated, so its finding names the other side.
    pub fn reversed(self) -> Self {
        let basis = match self.basis {
            Basis::McNemar { only_a, only_b, n } => Basis::McNemar {
                only_a: only_b,
                only_b: only_a,
                n,
            },
            other => other,
        };
        Self {
            diff: -self.diff,
            ci: (-self.ci.1, -self.ci.0),
            basis,
            ..self
        }
    }

    /// B or A is better when the Holm-adjusted test rejects; the interval beside it is at the
    /// level of the step that decided it, so it excludes 0 exactly then.
    pub fn finding(&self) -> Finding {
        if self.p.is_nan() || self.diff.is_nan() {
            return Finding::Untested;
        }
        if self.p_holm.is_nan() {
            return Finding::Unjudged;
        }
        if self.p_holm < self.alpha && self.diff > 0.0 {
            Finding::BBetter
        } else if self.p_holm < self.alpha && self.diff < 0.0 {
            Finding::ABetter
        } else {
            Finding::NoDifference
        }
    }
}

/// One paired test as every output writes it (`--json`, run.json): B against A on one
/// metric, the difference B − A, its interval at `ci_level` (null where the test has none),
/// the raw and Holm-adjusted p-values (null where untested or without a verdict) and the
/// finding (`b_better`, `a_better`, `no_difference`, `no_verdict`, `untested`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PairedTest {
    pub a: String,
    pub b: String,
    pub metric: &'static str,
    pub diff: f64,
    pub ci: Option<(f64, f64)>,
    pub ci_level: Option<f64>,
    pub p: f64,
    pub p_holm: f64,
    pub finding: Finding,
}

impl MetricTest {
    /// This test of `b` against `a` on `metric`, as the outputs write it.
    pub fn shaped(&self, a: &str, b: &str, metric: &'static str) -> PairedTest {
        PairedTest {
            a: a.to_string(),
            b: b.to_string(),
            metric,
            diff: self.diff,
            ci: Some(self.ci),
            ci_level: Some(self.level),
            p: self.p,
            p_holm: self.p_holm,
            finding: self.finding(),
        }
    }
}

impl PairedTest {
    /// The difference and its interval (diff, lo, hi), when all three are numbers.
    pub fn with_interval(&self) -> Option<(f64, f64, f64)> {
        let (lo, hi) = self.ci?;
        [self.diff, lo, hi]
            .iter()
            .all(|v| v.is_finite())
            .then_some((self.diff, lo, hi))
    }
}

/// The best configuration (B) against each other one (A) on `metric` (human agreement;
/// Spearman with a reference): `tests` holds (the other's name, its test of best − other),
/// adjusted by Holm as one family, each interval at the level of the step that decided it.
pub fn against_best(
    best: &str,
    metric: &'static str,
    mut tests: Vec<(String, MetricTest)>,
    alpha: f64,
) -> Vec<PairedTest> {
    adjust_holm(tests.iter_mut().map(|(_, t)| t), alpha);
    tests
        .into_iter()
        .map(|(other, t)| t.shaped(&other, best, metric))
        .collect()
}

/// Holm's adjustment over one family at level `alpha`: every test is read at `alpha`, and the
/// tests with a p-value (a test without one is not counted) get their `p_holm`, and their
/// interval at the level of the step that decided them (α/(m − j) for the j-th smallest p
/// while Holm rejects, then the level of the step where it stopped). Returns the family's
/// size m.
pub fn adjust_holm<'a>(tests: impl IntoIterator<Item = &'a mut MetricTest>, alpha: f64) -> usize {
    let mut tested: Vec<&mut MetricTest> = tests
        .into_iter()
        .map(|t| {
            *t = t.at(alpha);
            t
        })
        .filter(|t| !t.p.is_nan())
        .collect();
    let m = tested.len();
    let p: Vec<f64> = tested.iter().map(|t| t.p).collect();
    let adjusted = holm(&p);
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| p[i].total_cmp(&p[j]));
    // The first step that does not reject, read from the same products as `holm`.
    let stop = order
        .iter()
        .enumerate()
        .position(|(step, &i)| (m - step) as f64 * p[i] >= alpha)
        .unwrap_or(m);
    for (step, &i) in order.iter().enumerate() {
        let t = &mut tested[i];
        t.p_holm = adjusted[i];
        t.level = 1.0 - alpha / (m - step.min(stop)) as f64;
        t.ci = t.interval(t.level);
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    /// At every level, every discordant count and both kinds of test: the interval excludes 0
    /// exactly when p is below 1 − level.
    #[test]
    fn every_interval_is_dual_to_its_test() {
        for gamma in [0.05, 0.05 / 8.0, 0.05 / 36.0, 0.2] {
            for n in 1..=40u64 {
                for only_b in 0..=n {
                    let t = MetricTest::mcnemar(n - only_b, only_b, 2 * n);
                    let (lo, hi) = t.interval(1.0 - gamma);
                    assert_eq!(
                        lo > 0.0 || hi < 0.0,
                        t.p < gamma,
                        "n {n} only_b {only_b} γ {gamma}: [{lo}, {hi}] p {}",
                        t.p
                    );
                }
            }
            for k in 0..200 {
                let diff = (k as f64 - 100.0) / 250.0;
                let t = MetricTest::from_draws(diff, &[0.1, -0.1, 0.05, -0.05]);
                let (lo, hi) = t.interval(1.0 - gamma);
                assert_eq!(lo > 0.0 || hi < 0.0, t.p < gamma, "{diff} γ {gamma}");
            }
        }
    }

    /// Holm's steps: the first two reject (0.001·4 and 0.01·3 below 0.05), the third stops
    /// (0.03·2); each interval is at its step's level and the stopped ones at the third's.
    #[test]
    fn each_interval_is_at_the_level_of_the_step_that_decided_it() {
        let se = 1.0;
        let with_p = |p: f64| {
            let d = z(1.0 - p / 2.0) * se;
            MetricTest::with(d, Basis::Normal { se })
        };
        let mut tests = [with_p(0.03), with_p(0.001), with_p(0.2), with_p(0.01)];
        assert_eq!(adjust_holm(tests.iter_mut(), ALPHA), 4);
        let levels: Vec<f64> = tests.iter().map(|t| t.level).collect();
        let want = [
            1.0 - 0.05 / 2.0,
            1.0 - 0.05 / 4.0,
            1.0 - 0.05 / 2.0,
            1.0 - 0.05 / 3.0,
        ];
        for (l, w) in levels.iter().zip(want) {
            assert!((l - w).abs() < 1e-15, "{levels:?}");
        }
        for t in &tests {
            let excludes = t.ci.0 > 0.0 || t.ci.1 < 0.0;
            let different = matches!(t.finding(), Finding::BBetter | Finding::ABetter);
            assert_eq!(excludes, different, "{t:?}");
        }
        assert_eq!(
            tests.map(|t| t.finding()),
            [
                Finding::NoDifference,
                Finding::BBetter,
                Finding::NoDifference,
                Finding::BBetter
            ]
        );
    }

    #[test]
    fn a_bootstrap_p_is_not_floored_by_the_resamples() {
        // Four resamples, a difference 5 SEs from 0: p = 2·Φ(−5) (scipy: 2 * norm.sf(5) =
        // 5.733031437583866e-07), far below the 1/5 a percentile p-value could reach.
        let draws = [0.9, 1.1, 1.0, 1.0];
        let se = std_dev(&draws).expect("four draws");
        let t = MetricTest::from_draws(5.0 * se, &draws);
        assert!(
            (t.p / 5.733_031_437_583_866e-7 - 1.0).abs() < 1e-9,
            "{}",
            t.p
        );
        assert!(MetricTest::from_draws(1.0, &[f64::NAN, 1.0]).p.is_nan());
        assert_eq!(MetricTest::from_draws(0.0, &[0.0, 0.0]).p, 1.0);
    }
}
