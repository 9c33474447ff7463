//! Paired comparisons of configurations on the same items, one test per metric, each with
//! its own direction, interval and Holm family:
//! - accuracy: the difference, its paired bootstrap CI and McNemar's exact test on per-item
//!   correctness;
//! - quadratic kappa: the difference, its paired bootstrap CI and a paired-bootstrap p-value.
//!
//! The paired bootstrap is a multinomial over the joint gold × A × B table. A configuration is
//! found better on a metric only when the Holm-adjusted test rejects *and* the CI excludes 0.

use super::record::{EvalSettings, RunRecord};
use crate::metrics::{interval95, kappa, redraws, Contingency, Labels, Weights};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use statrs::distribution::{Binomial as BinomialDist, DiscreteCDF};

/// The significance level of every finding.
pub const ALPHA: f64 = 0.05;

/// One metric's paired test of B against A.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MetricTest {
    /// B − A.
    pub diff: f64,
    /// Paired bootstrap 95% CI of the difference (NaN without resamples).
    pub ci: (f64, f64),
    /// The test's two-sided p-value (NaN when untested).
    pub p: f64,
    /// Holm-adjusted within this metric's family (the pairs tested on it).
    pub p_holm: f64,
}

/// What a metric's test found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finding {
    BBetter,
    ABetter,
    NoDifference,
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
            Finding::Untested => "untested",
        }
    }
}

impl MetricTest {
    /// The same test read the other way round (A − B): the difference and its interval
    /// negated, so its finding names the other side.
    pub fn reversed(self) -> Self {
        Self {
            diff: -self.diff,
            ci: (-self.ci.1, -self.ci.0),
            ..self
        }
    }

    /// B or A is better only when the adjusted test rejects and the CI excludes 0 (with
    /// `--bootstrap 0` there is no CI, and the test decides alone).
    pub fn finding(&self) -> Finding {
        if self.p_holm.is_nan() || self.diff.is_nan() {
            return Finding::Untested;
        }
        let (lo, hi) = self.ci;
        let rejects = self.p_holm < ALPHA;
        let no_ci = lo.is_nan() || hi.is_nan();
        if rejects && self.diff > 0.0 && (no_ci || lo > 0.0) {
            Finding::BBetter
        } else if rejects && self.diff < 0.0 && (no_ci || hi < 0.0) {
            Finding::ABetter
        } else {
            Finding::NoDifference
        }
    }
}

/// One pair of configurations (B compared with A).
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub a: usize,
    pub b: usize,
    /// Items both rated.
    pub n: u64,
    /// Accuracy: McNemar's exact test.
    pub accuracy: MetricTest,
    /// Quadratic kappa: a paired-bootstrap test.
    pub kappa: MetricTest,
    /// Items only A got right, and only B.
    pub only_a_right: u64,
    pub only_b_right: u64,
    /// McNemar's power at α = 0.05 and 80% power, from the observed discordance.
    pub power: Power,
}

/// What the accuracy comparison could detect (`metrics::power`, α = 0.05, power 0.8).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Power {
    /// The share of items exactly one configuration got right.
    pub discordance: f64,
    /// The smallest accuracy difference these n items detect (NaN: none can be).
    pub min_detectable: f64,
    /// The items needed to detect the observed difference, rounded up (NaN: no difference
    /// observed).
    pub items_needed: f64,
}

impl Power {
    fn new(n: u64, only_a: u64, only_b: u64) -> Self {
        use crate::metrics::power::{mcnemar_items_needed, mcnemar_min_detectable, ALPHA, POWER};
        if n == 0 {
            return Self {
                discordance: f64::NAN,
                min_detectable: f64::NAN,
                items_needed: f64::NAN,
            };
        }
        let discordance = (only_a + only_b) as f64 / n as f64;
        let diff = (only_b as f64 - only_a as f64) / n as f64;
        Self {
            discordance,
            min_detectable: mcnemar_min_detectable(n as f64, discordance, ALPHA, POWER),
            items_needed: mcnemar_items_needed(discordance, diff, ALPHA, POWER).ceil(),
        }
    }
}

/// The two-sided paired-bootstrap p-value of a difference: twice the smaller share of
/// resampled differences on either side of 0 (each count + 1, so never 0), at most 1.
pub fn bootstrap_p(diffs: &[f64]) -> f64 {
    let finite: Vec<f64> = diffs.iter().copied().filter(|d| d.is_finite()).collect();
    if finite.is_empty() {
        return f64::NAN;
    }
    let below = finite.iter().filter(|&&d| d <= 0.0).count();
    let above = finite.iter().filter(|&&d| d >= 0.0).count();
    (2.0 * (below.min(above) + 1) as f64 / (finite.len() + 1) as f64).min(1.0)
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

/// Holm over the tests that were made (`None`: no test, left out of the family and of the
/// result).
pub fn holm_tested(p: &[Option<f64>]) -> Vec<Option<f64>> {
    let tested: Vec<usize> = (0..p.len()).filter(|&k| p[k].is_some()).collect();
    let values: Vec<f64> = tested.iter().filter_map(|&k| p[k]).collect();
    let mut out = vec![None; p.len()];
    for (&k, adjusted) in tested.iter().zip(holm(&values)) {
        out[k] = adjusted.is_finite().then_some(adjusted);
    }
    out
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

const K: usize = 3;

fn idx(v: i64) -> usize {
    (v + 1) as usize
}

/// The gold × A × B table (3 × 3 × 3, pairwise labels) of the items both configurations rated.
pub fn joint_table(run: &RunRecord, a: usize, b: usize) -> Vec<u64> {
    let mut joint = vec![0u64; K * K * K];
    for (i, item) in run.items.iter().enumerate() {
        let (Some(ra), Some(rb)) = (
            run.configs[a].outcomes[i].rating(),
            run.configs[b].outcomes[i].rating(),
        ) else {
            continue;
        };
        joint[(idx(item.gold) * K + idx(ra)) * K + idx(rb)] += 1;
    }
    joint
}

/// A's and B's gold × rating tables from a joint gold × A × B table.
pub fn marginals(joint: &[u64]) -> (Contingency, Contingency) {
    let mut ta = vec![0u64; K * K];
    let mut tb = vec![0u64; K * K];
    for g in 0..K {
        for a in 0..K {
            for b in 0..K {
                let c = joint[(g * K + a) * K + b];
                ta[g * K + a] += c;
                tb[g * K + b] += c;
            }
        }
    }
    (
        Contingency::from_counts(Labels::pairwise(), ta),
        Contingency::from_counts(Labels::pairwise(), tb),
    )
}

/// Accuracy and quadratic kappa of A and B from a joint gold × A × B table.
fn stats(joint: &[u64]) -> (f64, f64, f64, f64) {
    let (ta, tb) = marginals(joint);
    let n = ta.n() as f64;
    (
        ta.diagonal() as f64 / n,
        tb.diagonal() as f64 / n,
        kappa(&ta, Weights::Quadratic),
        kappa(&tb, Weights::Quadratic),
    )
}

fn compare(run: &RunRecord, a: usize, b: usize, settings: EvalSettings) -> Comparison {
    let joint = joint_table(run, a, b);
    // The discordant items: only A right, only B right.
    let (mut only_a, mut only_b) = (0, 0);
    for g in 0..K {
        for (x, y) in (0..K).flat_map(|x| (0..K).map(move |y| (x, y))) {
            let c = joint[(g * K + x) * K + y];
            only_a += if x == g && y != g { c } else { 0 };
            only_b += if y == g && x != g { c } else { 0 };
        }
    }
    let n: u64 = joint.iter().sum();
    let (acc_a, acc_b, k_a, k_b) = stats(&joint);
    let mut rng = ChaCha8Rng::seed_from_u64(settings.seed ^ ((a as u64) << 32 | b as u64));
    let resamples = if n > 0 { settings.bootstrap } else { 0 };
    let [mut d_acc, mut d_kappa]: [Vec<f64>; 2] = redraws(&joint, resamples, 2, &mut rng, |w| {
        let (x, y, kx, ky) = stats(w);
        vec![y - x, ky - kx]
    })
    .try_into()
    .unwrap_or_default();
    Comparison {
        a,
        b,
        n,
        accuracy: MetricTest {
            diff: acc_b - acc_a,
            ci: interval95(&mut d_acc),
            // No item rated by both: no test at all (not a test that found nothing).
            p: if n == 0 {
                f64::NAN
            } else {
                mcnemar_exact(only_a, only_b)
            },
            p_holm: f64::NAN,
        },
        kappa: MetricTest {
            diff: k_b - k_a,
            ci: interval95(&mut d_kappa),
            p: if n == 0 || (k_b - k_a).is_nan() {
                f64::NAN
            } else {
                bootstrap_p(&d_kappa)
            },
            p_holm: f64::NAN,
        },
        only_a_right: only_a,
        only_b_right: only_b,
        power: Power::new(n, only_a, only_b),
    }
}

/// Holm's adjustment over the tests of one family: the tests with a p-value (a test without
/// one is not counted) get their `p_holm`.
pub fn adjust_holm<'a>(tests: impl IntoIterator<Item = &'a mut MetricTest>) {
    let mut tested: Vec<&mut MetricTest> = tests.into_iter().filter(|t| !t.p.is_nan()).collect();
    let p: Vec<f64> = tested.iter().map(|t| t.p).collect();
    for (t, adjusted) in tested.iter_mut().zip(holm(&p)) {
        t.p_holm = adjusted;
    }
}

/// Every pair of configurations, with Holm-adjusted p-values per metric; a family is the
/// pairs tested on that metric (a pair without common rated items has no p-value and is not
/// counted).
pub fn compare_all(run: &RunRecord, settings: EvalSettings) -> Vec<Comparison> {
    let m = run.configs.len();
    let mut out: Vec<Comparison> = (0..m)
        .flat_map(|a| (a + 1..m).map(move |b| (a, b)))
        .map(|(a, b)| compare(run, a, b, settings))
        .collect();
    adjust_holm(out.iter_mut().map(|c| &mut c.accuracy));
    adjust_holm(out.iter_mut().map(|c| &mut c.kappa));
    out
}

#[cfg(test)]
/// A metric test whose p-value is already adjusted.
pub(crate) fn metric_test(diff: f64, ci: (f64, f64), p_holm: f64) -> MetricTest {
    MetricTest {
        diff,
        ci,
        p: p_holm,
        p_holm,
    }
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
    fn a_pair_without_common_items_is_not_tested_nor_counted_by_holm() {
        use crate::evaluation::record::fixtures::{config, item};
        use crate::evaluation::record::Outcome;
        let golds = [-1, 1, 1, -1, 1, -1, -1, 1, 1, -1];
        let items = golds.iter().enumerate().map(|(i, &g)| item(i, g)).collect();
        let right = golds.iter().map(|&g| Outcome::Rated(g)).collect();
        let wrong = golds.iter().map(|&g| Outcome::Rated(-g)).collect();
        let silent = golds.iter().map(|_| Outcome::NoVerdict).collect();
        let run = RunRecord {
            items,
            configs: vec![config("a", right), config("b", wrong), config("c", silent)],
            both_orders: false,
            annotators: None,
            shapes: Vec::new(),
            depths: Vec::new(),
            generators: None,
        };
        let settings = EvalSettings {
            bootstrap: 50,
            seed: 1,
            cost: Default::default(),
        };
        let c = compare_all(&run, settings);
        assert_eq!((c[0].a, c[0].b, c[0].n), (0, 1, 10));
        // scipy.stats.binomtest(0, 10, 0.5).pvalue = 0.001953125; a family of one test.
        assert!((c[0].accuracy.p - 0.001_953_125).abs() < 1e-12);
        assert_eq!(c[0].accuracy.p_holm, c[0].accuracy.p);
        assert_eq!(c[0].accuracy.finding(), Finding::ABetter);
        for untested in &c[1..] {
            assert_eq!(untested.n, 0);
            assert!(untested.accuracy.p.is_nan() && untested.accuracy.p_holm.is_nan());
            assert!(untested.accuracy.ci.0.is_nan());
            assert_eq!(untested.kappa.finding(), Finding::Untested);
        }
    }

    use crate::evaluation::compare::metric_test as test;

    #[test]
    fn better_needs_a_rejecting_test_and_an_interval_without_zero() {
        assert_eq!(test(0.2, (0.1, 0.3), 0.01).finding(), Finding::BBetter);
        assert_eq!(test(-0.2, (-0.3, -0.1), 0.01).finding(), Finding::ABetter);
        // The test rejects but the interval spans 0: no claim.
        assert_eq!(
            test(0.09, (-0.08, 0.27), 0.01).finding(),
            Finding::NoDifference
        );
        // The interval excludes 0 but the adjusted test does not reject: no claim.
        assert_eq!(test(0.2, (0.1, 0.3), 0.2).finding(), Finding::NoDifference);
        assert_eq!(
            test(0.2, (f64::NAN, f64::NAN), f64::NAN).finding(),
            Finding::Untested
        );
    }

    #[test]
    fn bootstrap_p_counts_both_sides() {
        assert_eq!(bootstrap_p(&[1.0; 99]), 0.02);
        assert_eq!(bootstrap_p(&[-1.0, 1.0, 1.0, 1.0]), 0.8);
        assert_eq!(bootstrap_p(&[0.0, 0.0]), 1.0);
        assert!(bootstrap_p(&[f64::NAN]).is_nan());
    }

    /// B is much less accurate, yet its quadratic kappa is higher: its misses are ties, A's
    /// are reversals. Each metric keeps its own direction, interval and test.
    #[test]
    fn accuracy_worse_while_kappa_higher() {
        use crate::evaluation::record::fixtures::{config, item};
        use crate::evaluation::record::Outcome;
        // 60 items, gold alternating. A: right on 45, wrong (the opposite) on 15, never a
        // tie. B: right on 32, ties on 28 where A was right or wrong.
        let golds: Vec<i64> = (0..60).map(|i| if i % 2 == 0 { -1 } else { 1 }).collect();
        let items = golds.iter().enumerate().map(|(i, &g)| item(i, g)).collect();
        let a = golds
            .iter()
            .enumerate()
            .map(|(i, &g)| Outcome::Rated(if i < 45 { g } else { -g }))
            .collect();
        let b = golds
            .iter()
            .enumerate()
            .map(|(i, &g)| Outcome::Rated(if i < 32 { g } else { 0 }))
            .collect();
        let run = RunRecord {
            items,
            configs: vec![config("a", a), config("b", b)],
            both_orders: false,
            annotators: None,
            shapes: Vec::new(),
            depths: Vec::new(),
            generators: None,
        };
        let c = &compare_all(
            &run,
            EvalSettings {
                bootstrap: 2000,
                seed: 3,
                cost: Default::default(),
            },
        )[0];
        // accuracy 45/60 vs 32/60; McNemar on 13 (only A right) vs 0 (only B right).
        assert!((c.accuracy.diff - (32.0 - 45.0) / 60.0).abs() < 1e-12);
        assert_eq!((c.only_a_right, c.only_b_right), (13, 0));
        assert_eq!(c.accuracy.finding(), Finding::ABetter);
        // Quadratic kappa: sklearn cohen_kappa_score(gold, a, weights="quadratic") = 0.5,
        // (gold, b) = 0.6956521739130435: B is higher (its misses are ties, not reversals).
        assert!((c.kappa.diff - (0.695_652_173_913_043_5 - 0.5)).abs() < 1e-12);
        // Significantly so: the paired bootstrap puts the difference above 0.
        assert_eq!(c.kappa.finding(), Finding::BBetter);
        assert!(
            c.kappa.ci.0 > 0.0 && c.kappa.p_holm < ALPHA,
            "{:?}",
            c.kappa
        );
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
