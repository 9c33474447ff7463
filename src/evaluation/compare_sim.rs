//! Seeded simulations of the paired comparisons' verdicts (tests, not benchmarks): the
//! family-wise error with no true difference, and the power at a quadratic-kappa difference of
//! 0.3 on 200 items against the unadjusted percentile interval at α/m.

use super::*;
use crate::evaluation::record::fixtures::{config, item};
use crate::evaluation::record::Outcome;
use crate::evaluation::{evaluate, Finding};
use crate::metrics::percentile;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

const ITEMS: usize = 200;

/// A judge that is right with probability `right`, ties with `tie`, else wrong.
#[derive(Clone, Copy)]
struct Judge {
    right: f64,
    tie: f64,
}

fn run(judges: &[Judge], rng: &mut ChaCha8Rng) -> RunRecord {
    let golds: Vec<i64> = (0..ITEMS)
        .map(|i| if i % 2 == 0 { -1 } else { 1 })
        .collect();
    let configs = judges
        .iter()
        .enumerate()
        .map(|(k, j)| {
            let outcomes = golds
                .iter()
                .map(|&g| {
                    let u: f64 = rng.random();
                    Outcome::Rated(if u < j.right {
                        g
                    } else if u < j.right + j.tie {
                        0
                    } else {
                        -g
                    })
                })
                .collect();
            config(&format!("c{k}"), outcomes)
        })
        .collect();
    RunRecord {
        labels: crate::metrics::Labels::pairwise(),
        inputs: Default::default(),
        items: golds.iter().enumerate().map(|(i, &g)| item(i, g)).collect(),
        configs,
        both_orders: false,
        annotators: None,
        shapes: Vec::new(),
        generators: None,
    }
}

fn settings(seed: u64, family: Family, bootstrap: usize) -> EvalSettings {
    EvalSettings {
        family,
        ..EvalSettings::new(bootstrap, seed)
    }
}

/// The comparisons with `bootstrap` resamples for the tests (the configurations' own
/// intervals are left out: they do not enter the verdicts).
fn comparisons(run: &RunRecord, s: EvalSettings) -> Vec<Comparison> {
    let configs = evaluate(
        run,
        EvalSettings {
            bootstrap: 0,
            ..s.clone()
        },
        &[],
    )
    .configs;
    compare_all(run, s, &configs).0
}

fn called(f: Finding) -> bool {
    matches!(f, Finding::BBetter | Finding::ABetter)
}

/// The one-sided 99% upper margin of a rate measured on `runs` runs at a true rate `p`.
fn upper(p: f64, runs: usize) -> f64 {
    p + 2.326 * (p * (1.0 - p) / runs as f64).sqrt()
}

/// `runs` seeded runs of these judges, each with its number (the seed of its resamples).
fn runs_of(
    judges: &[Judge],
    runs: usize,
    seed: u64,
) -> impl Iterator<Item = (u64, RunRecord)> + '_ {
    let mut rng =
        crate::metrics::random::stream(seed, crate::metrics::random::Purpose::Simulation, 0);
    (0..runs as u64).map(move |r| (r, run(judges, &mut rng)))
}

/// Each count of false verdicts over `runs` runs stays within α and its binomial margin.
fn within_alpha(errors: &[usize], runs: usize) {
    let bound = upper(super::super::paired::ALPHA, runs);
    for e in errors {
        assert!(
            *e as f64 / runs as f64 <= bound,
            "{errors:?} of {runs} runs (bound {bound})"
        );
    }
}

/// Nine configurations of the same judge: no verdict may be "better" in more than α of the
/// runs (family-wise), for either family. The Holm family counts every pair: over the best's
/// eight alone, these runs call a difference 13.6% of the time (the range of nine).
#[test]
fn nine_equal_configurations_are_told_apart_at_most_alpha_of_the_time() {
    let runs = 300;
    let judges = [Judge {
        right: 0.7,
        tie: 0.1,
    }; 9];
    // Runs with any verdict, per family (best, all) and metric (accuracy, κq).
    let mut errors = [0usize; 4];
    for (r, run) in runs_of(&judges, runs, 53) {
        for (k, family) in [Family::Best, Family::All].into_iter().enumerate() {
            let c = comparisons(&run, settings(r, family, 100));
            errors[2 * k] += usize::from(c.iter().any(|c| called(c.accuracy.finding())));
            errors[2 * k + 1] += usize::from(c.iter().any(|c| called(c.kappa.finding())));
        }
    }
    within_alpha(&errors, runs);
}

/// Two equally good configurations at the top and seven worse: the two are called different
/// at most α of the time on each metric.
#[test]
fn two_equal_configurations_among_nine_keep_the_false_positive_rate() {
    let runs = 300;
    let top = Judge {
        right: 0.75,
        tie: 0.05,
    };
    let worse = Judge {
        right: 0.5,
        tie: 0.1,
    };
    let judges = [top, top, worse, worse, worse, worse, worse, worse, worse];
    let mut errors = [0usize; 2];
    for (r, run) in runs_of(&judges, runs, 54) {
        let c = comparisons(&run, settings(r, Family::Best, 100));
        let pair = c.iter().find(|c| (c.a, c.b) == (0, 1)).expect("the pair");
        errors[0] += usize::from(called(pair.accuracy.finding()));
        errors[1] += usize::from(called(pair.kappa.finding()));
    }
    within_alpha(&errors, runs);
}

/// κq 0.6 against 0.3 (right 0.8 against 0.65, no ties) on 200 items, among nine
/// configurations: the pair is called different at least as often as its unadjusted
/// percentile interval at α/m (m = 36, every pair) excludes 0.
#[test]
fn a_kappa_difference_of_three_tenths_is_found_as_often_as_the_percentile_interval_finds_it() {
    let runs = 150;
    let good = Judge {
        right: 0.8,
        tie: 0.0,
    };
    let fair = Judge {
        right: 0.65,
        tie: 0.0,
    };
    let judges = [good, fair, fair, fair, fair, fair, fair, fair, fair];
    let (mut ours, mut percentile_rule) = (0usize, 0usize);
    for (r, run) in runs_of(&judges, runs, 55) {
        let c = comparisons(&run, settings(r, Family::Best, 400));
        let pair = c.iter().find(|c| (c.a, c.b) == (0, 1)).expect("the pair");
        ours += usize::from(called(pair.kappa.finding()));
        // The unadjusted percentile interval of the same pair at α/m, from 4,000 resamples.
        let m = c.len() as f64;
        let joint = joint_table(&run, 0, 1);
        let mut draw_rng =
            crate::metrics::random::stream(r, crate::metrics::random::Purpose::Simulation, 1);
        let mut d = crate::metrics::redraws(&joint, 4000, 1, &mut draw_rng, |w| {
            let (_, _, ka, kb) = stats(&run.labels, w);
            vec![kb - ka]
        })
        .pop()
        .expect("one column");
        let tail = 100.0 * super::super::paired::ALPHA / m / 2.0;
        let (lo, hi) = (percentile(&mut d, tail), percentile(&mut d, 100.0 - tail));
        percentile_rule += usize::from(lo > 0.0 || hi < 0.0);
    }
    // Within the difference of two binomial rates' 99% margin.
    let margin = 2.326 * (0.25 * 2.0 / runs as f64).sqrt();
    assert!(
        ours as f64 / runs as f64 >= percentile_rule as f64 / runs as f64 - margin,
        "called {ours} of {runs}, the percentile interval {percentile_rule}"
    );
    // And the simulation has power to show it: most runs find the difference.
    assert!(ours * 2 > runs, "called {ours} of {runs}");
}
