//! What each configuration cost, and the cheapest one as good as the best: every
//! configuration's headline metric against its cost, the Pareto frontier (no other
//! configuration both cheaper and better), and a non-inferiority test of the frontier's
//! cheaper members against the best.
//!
//! Non-inferiority by a margin δ: the candidate is not worse than the best by more than δ when
//! the one-sided 1 − α upper bound of best − candidate (the 100(1 − α)th percentile of its
//! paired bootstrap over the items both rated; the 95th at α = 0.05) lies below δ. The
//! frontier's members are tested in a fixed sequence, from the best down to the cheapest, and
//! the sequence stops at the first that fails: the family-wise error stays at α without
//! adjustment (each test's null is that the candidate is worse by δ or more).

use super::record::{Cost, RunRecord};
pub use super::record::{CostSettings, CostUnit, DEFAULT_MARGIN};
use crate::metrics::random::{pair, stream, Purpose};
use crate::metrics::{redraws, Estimates, Labels, Statistic};
use serde::Serialize;

/// One configuration's cost, as `--json` shows it (`configs[i].cost`, beside the counts it
/// always had). Answers from the cache cost what they cost when first paid; `cached` counts
/// them apart.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConfigCost {
    pub usd: Option<f64>,
    pub usd_per_1000: Option<f64>,
    /// The judge's time per 1000 items: its requests' latencies added up (None for a judge that
    /// answers locally and has no time).
    pub seconds_per_1000: Option<f64>,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub reasoning_tokens: u64,
    pub requests: Option<u64>,
    pub cached: u64,
}

impl ConfigCost {
    /// `cost` over `items` items.
    pub fn of(cost: &Cost, items: usize) -> Self {
        let per_1000 = |x: f64| (items > 0).then(|| x * 1000.0 / items as f64);
        Self {
            usd: cost.usd,
            usd_per_1000: cost.usd.and_then(per_1000),
            // A judge that answers locally (recordings, the simulator) takes no measured time:
            // its seconds are unknown, not 0.
            seconds_per_1000: cost
                .request_seconds
                .filter(|&s| s > 0.0 || cost.requests.unwrap_or(cost.calls) == 0)
                .and_then(per_1000),
            prompt_tokens: cost.tokens_in,
            completion_tokens: cost.tokens_out,
            reasoning_tokens: cost.tokens_reasoning,
            requests: cost.requests,
            cached: cost.cache_hits,
        }
    }
}

/// A configuration on the chart.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    pub name: String,
    #[serde(skip)]
    pub index: usize,
    pub cost: f64,
    pub value: f64,
    pub frontier: bool,
}

/// One non-inferiority test: the best against a cheaper configuration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NonInferior {
    pub name: String,
    #[serde(skip)]
    pub index: usize,
    pub cost: f64,
    /// best − candidate on the items both rated.
    pub difference: f64,
    /// The paired bootstrap's 1 − 2α interval of the difference (90% at α = 0.05): its upper
    /// end is the one-sided 1 − α bound the test compares with the margin.
    pub ci: Option<[f64; 2]>,
    /// How many times cheaper than the best (None when the candidate costs nothing).
    pub ratio: Option<f64>,
    /// Items both rated.
    pub n: u64,
    pub non_inferior: bool,
}

/// The cost analysis of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Frontier {
    pub metric: &'static str,
    pub unit: CostUnit,
    pub margin: f64,
    /// The non-inferiority tests' level (`--alpha`).
    pub alpha: f64,
    /// Every configuration with a defined metric and cost, cheapest first.
    pub points: Vec<Point>,
    /// The frontier's members, cheapest first.
    pub frontier: Vec<String>,
    pub best: String,
    #[serde(skip)]
    pub best_index: usize,
    pub best_cost: f64,
    /// The frontier's cheaper members in the order tested (from the best down); the sequence
    /// stops at the first that fails.
    pub tests: Vec<NonInferior>,
    pub cheapest_non_inferior: Option<NonInferior>,
    /// Configurations left out: no price for dollars, or no defined metric.
    pub left_out: Vec<String>,
    /// Configurations that cannot be ranked (`ranking::unranked`: dropped by the race, or too
    /// few readable answers), left off the chart.
    pub not_ranked: Vec<String>,
}

impl Frontier {
    /// The frontier with the configurations that cannot be ranked (`ranking::Unranked`, whose
    /// values were left off the chart) named as not ranked rather than left out for a missing
    /// value: what both forms' cost analyses do with the one rule's list.
    pub fn with_not_ranked(mut self, names: Vec<String>) -> Self {
        self.left_out.retain(|n| !names.contains(n));
        self.not_ranked = names;
        self
    }
}

/// The unit costs are counted in: the one asked for, else dollars when every configuration
/// that calls a judge has a price, else tokens when any reported some, else requests.
fn unit(costs: &[&Cost], asked: Option<CostUnit>) -> CostUnit {
    if let Some(u) = asked {
        return u;
    }
    let calling = || costs.iter().filter(|c| c.calls > 0);
    if calling().next().is_some() && calling().all(|c| c.usd.is_some()) {
        CostUnit::Usd
    } else if calling().any(|c| c.tokens_in + c.tokens_out > 0) {
        CostUnit::Tokens
    } else {
        CostUnit::Requests
    }
}

/// A paired difference best − candidate, as a form measures it: the point difference, its
/// resampled differences and the items (or rows) both rated.
#[derive(Debug, Clone, Default)]
pub struct PairedDraws {
    pub difference: f64,
    pub draws: Vec<f64>,
    pub n: u64,
}

/// The configurations a frontier is drawn over, whatever the form: each one's name, cost and
/// headline value (`metric` names it).
#[derive(Debug)]
pub struct Costed<'a> {
    pub names: Vec<&'a str>,
    pub costs: Vec<&'a Cost>,
    pub values: Vec<f64>,
    pub metric: &'static str,
}

/// The frontier of a run over pairs, each configuration's headline metric in `values` (over
/// the items it rated); None with fewer than two configurations on the chart.
pub fn frontier(
    run: &RunRecord,
    values: &[f64],
    settings: CostSettings,
    (bootstrap, seed, alpha): (usize, u64, f64),
) -> Option<Frontier> {
    let costed = Costed {
        names: run.configs.iter().map(|c| c.name.as_str()).collect(),
        costs: run.configs.iter().map(|c| &c.cost).collect(),
        values: values.to_vec(),
        metric: settings.metric.key(),
    };
    frontier_of(&costed, settings, alpha, |best, candidate| {
        paired_items(run, (best, candidate), settings.metric, (bootstrap, seed))
    })
}

/// The frontier of any form's configurations: `paired(best, candidate)` measures the paired
/// difference a non-inferiority test reads.
pub fn frontier_of(
    costed: &Costed,
    settings: CostSettings,
    alpha: f64,
    paired: impl Fn(usize, usize) -> PairedDraws,
) -> Option<Frontier> {
    let unit = unit(&costed.costs, settings.unit);
    let mut left_out = Vec::new();
    let mut points: Vec<Point> = Vec::new();
    for (index, ((name, cost), &value)) in costed
        .names
        .iter()
        .zip(&costed.costs)
        .zip(&costed.values)
        .enumerate()
    {
        // A configuration that makes no call costs nothing in any unit (baselines, juries of
        // nothing); dollars need a price otherwise.
        let cost = if cost.calls == 0 {
            Some(0.0)
        } else {
            unit.of(cost)
        };
        match cost.filter(|_| value.is_finite()) {
            Some(cost) => points.push(Point {
                name: name.to_string(),
                index,
                cost,
                value,
                frontier: false,
            }),
            None => left_out.push(name.to_string()),
        }
    }
    if points.len() < 2 {
        return None;
    }
    points.sort_by(|a, b| a.cost.total_cmp(&b.cost).then(b.value.total_cmp(&a.value)));
    // Cheapest first: a point is on the frontier when it beats every cheaper one.
    let mut top = f64::NEG_INFINITY;
    for p in &mut points {
        if p.value > top {
            p.frontier = true;
            top = p.value;
        }
    }
    let best = points.iter().rev().find(|p| p.frontier).cloned()?;
    let mut tests = Vec::new();
    for p in points
        .iter()
        .rev()
        .filter(|p| p.frontier && p.cost < best.cost)
    {
        let test = non_inferior(
            (&best, p),
            (settings.margin, alpha),
            paired(best.index, p.index),
        );
        let passed = test.non_inferior;
        tests.push(test);
        if !passed {
            break;
        }
    }
    let cheapest = tests.iter().rev().find(|t| t.non_inferior).cloned();
    Some(Frontier {
        metric: costed.metric,
        unit,
        margin: settings.margin,
        alpha,
        frontier: points
            .iter()
            .filter(|p| p.frontier)
            .map(|p| p.name.clone())
            .collect(),
        best: best.name.clone(),
        best_index: best.index,
        best_cost: best.cost,
        points,
        tests,
        cheapest_non_inferior: cheapest,
        left_out,
        not_ranked: Vec::new(),
    })
}

/// The metric of A and of B from a joint gold × A × B table.
fn pair_values(labels: &Labels, joint: &[u64], metric: Statistic) -> (f64, f64) {
    let (ta, tb) = crate::evaluation::compare::marginals(labels, joint);
    (
        Estimates::of(&ta).get(metric),
        Estimates::of(&tb).get(metric),
    )
}

/// best − candidate on the items both rated, and its paired bootstrap over them.
fn paired_items(
    run: &RunRecord,
    (best, candidate): (usize, usize),
    metric: Statistic,
    (bootstrap, seed): (usize, u64),
) -> PairedDraws {
    let joint = crate::evaluation::compare::joint_table(run, best, candidate);
    let n: u64 = joint.iter().sum();
    let (a, b) = pair_values(&run.labels, &joint, metric);
    let mut rng = stream(seed, Purpose::Cost, pair(best, candidate));
    let resamples = if n > 0 { bootstrap } else { 0 };
    let draws = redraws(&joint, resamples, 1, &mut rng, |w| {
        let (x, y) = pair_values(&run.labels, w, metric);
        vec![x - y]
    })
    .pop()
    .unwrap_or_default();
    PairedDraws {
        difference: a - b,
        draws,
        n,
    }
}

/// The test of `candidate` against `best` from their paired difference: whether the one-sided
/// 1 − α bound (the 100(1 − α)th percentile of the resampled differences) lies below the
/// margin.
fn non_inferior(
    (best, candidate): (&Point, &Point),
    (margin, alpha): (f64, f64),
    p: PairedDraws,
) -> NonInferior {
    let mut draws = p.draws;
    let (lo, hi) = crate::metrics::interval(&mut draws, 1.0 - 2.0 * alpha);
    let ci = (lo.is_finite() && hi.is_finite()).then_some([lo, hi]);
    NonInferior {
        name: candidate.name.clone(),
        index: candidate.index,
        cost: candidate.cost,
        difference: p.difference,
        ci,
        ratio: (candidate.cost > 0.0).then(|| best.cost / candidate.cost),
        n: p.n,
        non_inferior: ci.is_some_and(|[_, upper]| upper < margin),
    }
}

/// Each configuration's metric against its cost: the frontier and the cheapest configuration
/// not worse than the best by more than the margin.
#[derive(Debug)]
pub struct CostAnalytic;

impl super::Analytic for CostAnalytic {
    fn run(&self, cx: &super::Context, configs: &[super::ConfigResult]) -> super::Found {
        let s = &cx.settings;
        // The one rule of "best": a configuration that cannot be ranked (the race dropped it,
        // or it read too few of its answers) is neither the frontier's best nor a cheaper
        // candidate; it is named apart.
        let unranked: Vec<usize> = (0..configs.len())
            .filter(|&i| super::ranking::unranked(cx.run, configs, i).is_some())
            .collect();
        let values: Vec<f64> = configs
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if unranked.contains(&i) {
                    f64::NAN
                } else {
                    c.overall.agreement.get(s.sort)
                }
            })
            .collect();
        // Its own settings, on the run's sort metric.
        let cost = CostSettings {
            metric: s.sort,
            ..s.option::<CostSettings>()
        };
        let frontier = frontier(cx.run, &values, cost, (s.bootstrap, s.seed, s.alpha)).map(|f| {
            f.with_not_ranked(
                unranked
                    .iter()
                    .map(|&i| cx.run.configs[i].name.clone())
                    .collect(),
            )
        });
        super::Found::of_run(super::analytic::kept(frontier))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluation::record::fixtures::{config, item};
    use crate::evaluation::record::Outcome;
    use crate::evaluation::EvalSettings;

    /// 400 items; the best (costs $10) right on 360; the candidate (costs $1) right on the
    /// best's items but `lost` of them, and on `gained` of the best's misses.
    fn run(lost: usize, gained: usize) -> RunRecord {
        let golds: Vec<i64> = (0..400).map(|i| if i % 2 == 0 { -1 } else { 1 }).collect();
        let best_right = |i: usize| i % 10 != 0;
        let best = golds
            .iter()
            .enumerate()
            .map(|(i, &g)| Outcome::Rated(if best_right(i) { g } else { -g }))
            .collect();
        let (mut l, mut w) = (0, 0);
        let cheap = golds
            .iter()
            .enumerate()
            .map(|(i, &g)| {
                let right = if best_right(i) {
                    l += 1;
                    l > lost
                } else {
                    w += 1;
                    w <= gained
                };
                Outcome::Rated(if right { g } else { -g })
            })
            .collect();
        let priced = |name: &str, outcomes, usd: f64| {
            let mut c = config(name, outcomes);
            c.cost = Cost {
                calls: 400,
                usd: Some(usd),
                ..Cost::default()
            };
            c
        };
        RunRecord {
            labels: crate::metrics::Labels::pairwise(),
            inputs: Default::default(),
            items: golds.iter().enumerate().map(|(i, &g)| item(i, g)).collect(),
            configs: vec![priced("best", best, 10.0), priced("cheap", cheap, 1.0)],
            both_orders: false,
            annotators: None,
            shapes: Vec::new(),
            generators: None,
        }
    }

    fn frontier_of(run: &RunRecord) -> Frontier {
        let settings = EvalSettings::new(2000, 7);
        let cost = CostSettings {
            metric: Statistic::Accuracy,
            unit: None,
            margin: 0.02,
        };
        let values: Vec<f64> = run
            .configs
            .iter()
            .map(|c| {
                let (golds, ratings): (Vec<i64>, Vec<i64>) = run
                    .items
                    .iter()
                    .zip(&c.outcomes)
                    .filter_map(|(item, o)| Some((item.gold?, o.rating()?)))
                    .unzip();
                crate::metrics::Agreement::of(crate::evaluation::record::table_on(
                    &crate::metrics::Labels::pairwise(),
                    &golds,
                    &ratings,
                ))
                .get(cost.metric)
            })
            .collect();
        frontier(
            run,
            &values,
            cost,
            (settings.bootstrap, settings.seed, settings.alpha),
        )
        .expect("a frontier")
    }

    #[test]
    fn a_cheap_configuration_within_the_margin_is_named() {
        // 4 items lost, 2 gained: 0.005 below the best.
        let f = frontier_of(&run(4, 2));
        assert_eq!(f.unit, CostUnit::Usd);
        assert_eq!(f.best, "best");
        assert_eq!(f.frontier, ["cheap", "best"]);
        let t = f.cheapest_non_inferior.expect("non-inferior");
        assert_eq!(t.name, "cheap");
        assert!((t.difference - 0.005).abs() < 1e-12);
        let [lo, hi] = t.ci.expect("interval");
        assert!(lo < 0.005 && hi < 0.02, "{lo} {hi}");
        assert_eq!(t.ratio, Some(10.0));
    }

    #[test]
    fn a_cheap_configuration_far_below_the_best_is_not() {
        // 40 lost: 0.1 below, the whole interval above the margin.
        let f = frontier_of(&run(40, 0));
        assert!(f.cheapest_non_inferior.is_none());
        let t = &f.tests[0];
        assert!((t.difference - 0.1).abs() < 1e-12);
        assert!(t.ci.expect("interval")[0] > 0.02 && !t.non_inferior);
    }

    #[test]
    fn an_interval_that_straddles_the_margin_is_not_enough() {
        // 10 lost, 2 gained: 0.02 below, the interval on both sides of the margin.
        let f = frontier_of(&run(10, 2));
        let t = &f.tests[0];
        assert!((t.difference - 0.02).abs() < 1e-12);
        let [lo, hi] = t.ci.expect("interval");
        assert!(lo < 0.02 && hi > 0.02, "{lo} {hi}");
        assert!(!t.non_inferior && f.cheapest_non_inferior.is_none());
    }

    #[test]
    fn frontier_members_and_the_fixed_sequence() {
        // Three configurations: a dominated one (dearer and worse than the cheap one) is off
        // the frontier and never tested.
        let mut r = run(4, 2);
        let mut dominated = r.configs[1].clone();
        dominated.name = "dominated".into();
        dominated.cost.usd = Some(5.0);
        dominated.outcomes = r.configs[0]
            .outcomes
            .iter()
            .zip(r.items.iter())
            .map(|(_, item)| item.gold.map_or(Outcome::NotAsked, |g| Outcome::Rated(-g)))
            .collect();
        r.configs.push(dominated);
        let f = frontier_of(&r);
        assert_eq!(f.frontier, ["cheap", "best"]);
        assert_eq!(f.tests.len(), 1);
        let p = f
            .points
            .iter()
            .find(|p| p.name == "dominated")
            .expect("point");
        assert!(!p.frontier);
        // Without a price for one configuration, dollars give way to tokens.
        r.configs[2].cost.usd = None;
        r.configs[2].cost.tokens_in = 10;
        assert_eq!(frontier_of(&r).unit, CostUnit::Tokens);
    }
}
