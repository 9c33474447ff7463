//! What the answer says first, decided once here: the best judge (the one ranking's), the
//! runner-up, and where the best stands before it is named: whether any judge is
//! distinguishable from chance, and whether the adjusted paired tests tell it apart from the
//! best baseline. A baseline is its rater's kind (`ConfigRecord::is_baseline`).

use super::compare::Comparison;
use super::paired::Finding;
use super::record::RunRecord;
use super::result::ConfigResult;
use crate::metrics::Statistic;

/// The run's standing: the answer renders it.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    /// Every configuration, best first by the sort metric.
    pub order: Vec<usize>,
    /// The best configuration that calls a judge (else the first of all).
    pub best: usize,
    /// The next configuration that calls a judge and can be ranked.
    pub runner_up: Option<usize>,
    /// The judges ranked above the best by the sort metric (the best too, when no judge can
    /// be ranked) that cannot be the best, and why (`ranking::unranked`).
    pub unranked: Vec<(usize, super::ranking::Unranked)>,
    /// Where the best stands against chance and the baselines.
    pub against: Against,
}

/// The best judge against chance and against the best baseline.
#[derive(Debug, Clone, PartialEq)]
pub enum Against {
    /// No item is counted by any measure (none has a gold label, or none was asked): there is
    /// no agreement to rank on.
    Nothing,
    /// No judge's quadratic-kappa interval lies above 0 (its point, without intervals).
    Chance,
    /// No adjusted paired test separates the best judge from the best baseline (its pair is
    /// `comparisons[comparison]`).
    NotToldApart { baseline: usize, comparison: usize },
    /// The best baseline is found better than the best judge on these metrics (κq, then
    /// accuracy).
    BaselineBetter {
        baseline: usize,
        comparison: usize,
        on: Vec<Statistic>,
    },
    /// Above both, or there is nothing to compare with (no judge, no baseline, no test).
    Clear,
}

/// The standing of a run whose configurations are evaluated and compared; None without
/// configurations.
pub fn standing(
    run: &RunRecord,
    configs: &[ConfigResult],
    comparisons: &[Comparison],
    sort: Statistic,
) -> Option<Standing> {
    let order = super::ranking::order(configs, sort);
    let super::ranking::Picked {
        best,
        runner_up,
        unranked,
    } = super::ranking::pick(&super::ranking::candidates(run, configs), &order)?;
    let judged: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&i| !run.configs[i].is_baseline())
        .collect();
    let against = against(run, configs, comparisons, (best, &judged, &order));
    Some(Standing {
        runner_up,
        unranked,
        best,
        order,
        against,
    })
}

fn against(
    run: &RunRecord,
    configs: &[ConfigResult],
    comparisons: &[Comparison],
    (best, judged, order): (usize, &[usize], &[usize]),
) -> Against {
    if configs.iter().all(|c| c.overall.counts.examples == 0) {
        return Against::Nothing;
    }
    if judged.is_empty() {
        return Against::Clear;
    }
    // κq's interval's lower end (the point without intervals): above 0 is above chance.
    let lower = |i: usize| {
        let a = &configs[i].overall.agreement;
        a.intervals
            .as_ref()
            .map_or(a.get(Statistic::KappaQuadratic), |ci| {
                ci.get(Statistic::KappaQuadratic).lo
            })
    };
    if judged.iter().all(|&i| lower(i).is_nan() || lower(i) <= 0.0) {
        return Against::Chance;
    }
    let Some(baseline) = order
        .iter()
        .copied()
        .find(|&i| run.configs[i].is_baseline())
    else {
        return Against::Clear;
    };
    let Some(comparison) = comparisons
        .iter()
        .position(|c| (c.a, c.b) == (best, baseline) || (c.a, c.b) == (baseline, best))
    else {
        return Against::Clear;
    };
    let c = &comparisons[comparison];
    let separates = |f: Finding| matches!(f, Finding::ABetter | Finding::BBetter);
    let (fa, fk) = (c.accuracy.finding(), c.kappa.finding());
    if !separates(fa) && !separates(fk) {
        return Against::NotToldApart {
            baseline,
            comparison,
        };
    }
    let best_is_b = c.b == best;
    let baseline_better = |f: Finding| {
        matches!(
            (f, best_is_b),
            (Finding::ABetter, true) | (Finding::BBetter, false)
        )
    };
    let on: Vec<Statistic> = [(fk, Statistic::KappaQuadratic), (fa, Statistic::Accuracy)]
        .into_iter()
        .filter(|&(f, _)| baseline_better(f))
        .map(|(_, s)| s)
        .collect();
    if on.is_empty() {
        Against::Clear
    } else {
        Against::BaselineBetter {
            baseline,
            comparison,
            on,
        }
    }
}
