//! Paired comparisons of configurations on the same items, one test per metric, each with
//! its own direction, interval and Holm family (`paired`):
//! - accuracy: the difference and McNemar's exact test on per-item correctness, with its dual
//!   interval;
//! - quadratic kappa: the difference and a paired-bootstrap test (normal approximation from
//!   the resamples' standard error), with its dual interval.
//!
//! The paired bootstrap is a multinomial over the joint gold × A × B table. Holm's family is
//! every pair; which pairs get a verdict is the user's choice ([`Family`]): by default the
//! best judged configuration against each other one.

use super::family::Family;
use super::paired::{adjust_holm, MetricTest};
use super::record::RunRecord;
use super::result::ConfigResult;
use super::settings::EvalSettings;
use crate::metrics::random::{pair, stream, Purpose};
use crate::metrics::{kappa, redraws, Contingency, Labels, Weights};

/// The Holm families the comparisons were adjusted in (`Default`: no test, at the default
/// level).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Tested {
    pub family: Family,
    /// The best judged configuration, the centre of `Family::Best` (None without one).
    #[serde(skip)]
    pub best: Option<usize>,
    /// Tests Holm counts on accuracy and on quadratic kappa (every pair tested).
    pub accuracy_tests: usize,
    pub kappa_quadratic_tests: usize,
    pub alpha: f64,
}

impl Default for Tested {
    fn default() -> Self {
        Tested {
            family: Family::default(),
            best: None,
            accuracy_tests: 0,
            kappa_quadratic_tests: 0,
            alpha: crate::evaluation::paired::ALPHA,
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
    /// McNemar's power at the run's α and 80% power, from the observed discordance.
    pub power: Power,
}

/// What the accuracy comparison could detect (`metrics::power`, at `alpha`, power 0.8).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Power {
    /// The error level the figures are for (the run's `--alpha`).
    pub alpha: f64,
    /// The share of items exactly one configuration got right.
    pub discordance: f64,
    /// The smallest accuracy difference these n items detect (NaN: none can be).
    pub min_detectable: f64,
    /// The items needed to detect the observed difference, rounded up (NaN: no difference
    /// observed).
    pub items_needed: f64,
}

impl Power {
    fn new(n: u64, only_a: u64, only_b: u64, alpha: f64) -> Self {
        use crate::metrics::power::{mcnemar_items_needed, mcnemar_min_detectable, POWER};
        if n == 0 {
            return Self {
                alpha,
                discordance: f64::NAN,
                min_detectable: f64::NAN,
                items_needed: f64::NAN,
            };
        }
        let discordance = (only_a + only_b) as f64 / n as f64;
        let diff = (only_b as f64 - only_a as f64) / n as f64;
        Self {
            alpha,
            discordance,
            min_detectable: mcnemar_min_detectable(n as f64, discordance, alpha, POWER),
            items_needed: mcnemar_items_needed(discordance, diff, alpha, POWER).ceil(),
        }
    }
}

/// The gold × A × B table (k × k × k over the record's labels: 3 × 3 × 3 on pairs, 5 × 5 × 5 on
/// grades 1-5) of the labelled items both configurations rated.
pub fn joint_table(run: &RunRecord, a: usize, b: usize) -> Vec<u64> {
    let labels = run.labels.as_slice();
    let k = labels.len();
    let at = |v: i64| labels.binary_search(&v).ok();
    let mut joint = vec![0u64; k * k * k];
    for (i, item) in run.items.iter().enumerate() {
        let (Some(gold), Some(ra), Some(rb)) = (
            item.gold.and_then(at),
            run.configs[a].outcomes[i].rating().and_then(at),
            run.configs[b].outcomes[i].rating().and_then(at),
        ) else {
            continue;
        };
        joint[(gold * k + ra) * k + rb] += 1;
    }
    joint
}

/// A's and B's gold × rating tables from a joint gold × A × B table over `labels`.
pub fn marginals(labels: &Labels, joint: &[u64]) -> (Contingency, Contingency) {
    let k = labels.len();
    let mut ta = vec![0u64; k * k];
    let mut tb = vec![0u64; k * k];
    for g in 0..k {
        for a in 0..k {
            for b in 0..k {
                let c = joint[(g * k + a) * k + b];
                ta[g * k + a] += c;
                tb[g * k + b] += c;
            }
        }
    }
    (
        Contingency::from_counts(labels.clone(), ta),
        Contingency::from_counts(labels.clone(), tb),
    )
}

/// Accuracy and quadratic kappa of A and B from a joint gold × A × B table over `labels`.
fn stats(labels: &Labels, joint: &[u64]) -> (f64, f64, f64, f64) {
    let (ta, tb) = marginals(labels, joint);
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
    let (labels, k) = (&run.labels, run.labels.len());
    // The discordant items: only A right, only B right.
    let (mut only_a, mut only_b) = (0, 0);
    for g in 0..k {
        for (x, y) in (0..k).flat_map(|x| (0..k).map(move |y| (x, y))) {
            let c = joint[(g * k + x) * k + y];
            only_a += if x == g && y != g { c } else { 0 };
            only_b += if y == g && x != g { c } else { 0 };
        }
    }
    let n: u64 = joint.iter().sum();
    let (acc_a, acc_b, k_a, k_b) = stats(labels, &joint);
    let mut rng = stream(settings.seed, Purpose::Compare, pair(a, b));
    let resamples = if n > 0 { settings.bootstrap } else { 0 };
    let d_kappa: Vec<f64> = redraws(&joint, resamples, 1, &mut rng, |w| {
        let (_, _, kx, ky) = stats(labels, w);
        vec![ky - kx]
    })
    .pop()
    .unwrap_or_default();
    Comparison {
        a,
        b,
        n,
        // No item rated by both: no test at all (not a test that found nothing).
        accuracy: MetricTest {
            diff: acc_b - acc_a,
            ..MetricTest::mcnemar(only_a, only_b, n)
        },
        kappa: if n == 0 {
            MetricTest::untested(f64::NAN)
        } else {
            MetricTest::from_draws(k_b - k_a, &d_kappa)
        },
        only_a_right: only_a,
        only_b_right: only_b,
        power: Power::new(n, only_a, only_b, settings.alpha),
    }
}

impl Comparison {
    /// Whether the pair has a verdict (`--family`): a metric's test was Holm-adjusted.
    pub fn judged(&self) -> bool {
        self.accuracy.judged() || self.kappa.judged()
    }
}

/// Every pair of configurations, each metric's p-values Holm-adjusted over every tested pair
/// (a pair without common rated items has no p-value and is not counted); under
/// `Family::Best` a pair that does not involve the best (or a jury and its member) keeps its
/// unadjusted test and 95% interval, and no verdict.
pub fn compare_all(
    run: &RunRecord,
    settings: EvalSettings,
    configs: &[ConfigResult],
) -> (Vec<Comparison>, Tested) {
    let m = run.configs.len();
    let mut out: Vec<Comparison> = (0..m)
        .flat_map(|a| (a + 1..m).map(move |b| (a, b)))
        .map(|(a, b)| compare(run, a, b, settings.clone()))
        .collect();
    let order = super::ranking::order(configs, settings.sort());
    let best = super::ranking::best(run, configs, &order);
    // A jury's pairs with its members answer the jury's own question: they join the family.
    let jury_pair = |a: usize, b: usize| {
        let of = |j: usize, m: usize| {
            run.configs[j]
                .jury
                .as_ref()
                .is_some_and(|jury| jury.members.contains(&m))
        };
        of(a, b) || of(b, a)
    };
    let in_family = |c: &Comparison| settings.family.judges(best, jury_pair, (c.a, c.b));
    // The best is chosen from the same data, so its pairs are a data-chosen subset of every
    // pair: Holm counts every pair (over the best's k − 1 alone, nine equal configurations
    // would be told apart 13.6% of the time at α = 0.05), and `best` keeps the verdicts of
    // the best's pairs (and the juries') only.
    let accuracy_tests = adjust_holm(out.iter_mut().map(|c| &mut c.accuracy), settings.alpha);
    let kappa_quadratic_tests = adjust_holm(out.iter_mut().map(|c| &mut c.kappa), settings.alpha);
    for c in out.iter_mut().filter(|c| !in_family(c)) {
        c.accuracy = c.accuracy.without_verdict();
        c.kappa = c.kappa.without_verdict();
    }
    let tested = Tested {
        family: settings.family,
        best,
        accuracy_tests,
        kappa_quadratic_tests,
        alpha: settings.alpha,
    };
    (out, tested)
}

#[cfg(test)]
/// A metric test whose p-value is already adjusted.
pub(crate) fn metric_test(diff: f64, ci: (f64, f64), p_holm: f64) -> MetricTest {
    MetricTest {
        diff,
        ci,
        p: p_holm,
        p_holm,
        ..MetricTest::untested(diff)
    }
}

#[cfg(test)]
#[path = "compare_sim.rs"]
mod simulation;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluation::Finding;

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
            labels: crate::metrics::Labels::pairwise(),
            inputs: Default::default(),
            items,
            configs: vec![config("a", right), config("b", wrong), config("c", silent)],
            both_orders: false,
            annotators: None,
            shapes: Vec::new(),
            generators: None,
        };
        let settings = EvalSettings {
            family: Family::All,
            ..EvalSettings::new(50, 1)
        };
        let c = crate::evaluation::evaluate(&run, settings, &[]).comparisons;
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
    fn better_is_the_adjusted_tests_rejection() {
        assert_eq!(test(0.2, (0.1, 0.3), 0.01).finding(), Finding::BBetter);
        assert_eq!(test(-0.2, (-0.3, -0.1), 0.01).finding(), Finding::ABetter);
        assert_eq!(test(0.2, (-0.1, 0.3), 0.2).finding(), Finding::NoDifference);
        assert_eq!(
            test(0.2, (f64::NAN, f64::NAN), f64::NAN).finding(),
            Finding::Untested
        );
        let outside = MetricTest {
            p_holm: f64::NAN,
            ..test(0.2, (0.1, 0.3), 0.01)
        };
        assert_eq!(outside.finding(), Finding::Unjudged);
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
            labels: crate::metrics::Labels::pairwise(),
            inputs: Default::default(),
            items,
            configs: vec![config("a", a), config("b", b)],
            both_orders: false,
            annotators: None,
            shapes: Vec::new(),
            generators: None,
        };
        let c = &crate::evaluation::evaluate(
            &run,
            EvalSettings {
                family: Family::Best,
                ..EvalSettings::new(2000, 3)
            },
            &[],
        )
        .comparisons[0];
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
            c.kappa.ci.0 > 0.0 && c.kappa.p_holm < crate::evaluation::paired::ALPHA,
            "{:?}",
            c.kappa
        );
    }
}
