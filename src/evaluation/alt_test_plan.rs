//! `plan --alt-test`: how many items and annotators the alt-test needs to pass a judge, by the
//! authors' simulation (Calderon et al., 2025, appendix C; their notebook's "Simulation"):
//! for each of `datasets` simulated datasets, category priors drawn from a flat Dirichlet; each
//! item's gold label from the priors; each annotator's label from the priors scaled by its
//! noise, plus 1 − noise on the gold (the judge's likewise, with its own noise); then, for each
//! size, `boots` draws of that many items and `annotators` annotators (without replacement)
//! from the dataset's `max_items` and `pool` annotators, each tested at every ε by accuracy.
//! Seeded: a dataset's draws come from its own keyed stream.

use crate::metrics::alt_test::{self, Minimums, Score};
use crate::metrics::random::{self, Purpose};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// The simulation's settings (the notebook's parameters).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AltTestPlanSettings {
    pub epsilons: Vec<f64>,
    pub sizes: Vec<usize>,
    pub annotators: usize,
    /// The annotators each dataset has, drawn from for each test.
    pub pool: usize,
    pub categories: usize,
    /// η_h: the share of an annotator's label drawn from the priors instead of the gold.
    pub annotator_noise: f64,
    /// η_f: the judge's.
    pub judge_noise: f64,
    pub datasets: usize,
    pub boots: usize,
    pub max_items: usize,
    pub q: f64,
    pub seed: u64,
}

/// One ε at one size: the winning rate's mean and spread over the datasets' draws.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AtEpsilon {
    pub epsilon: f64,
    /// Mean ω over every draw.
    pub winning_rate: f64,
    /// The 5th and 95th percentiles of ω over the draws.
    pub winning_rate_spread: [f64; 2],
    /// The share of draws the judge passed (ω ≥ 0.5).
    pub passed: f64,
}

/// One size.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AtSize {
    pub items: usize,
    pub epsilons: Vec<AtEpsilon>,
    /// Mean advantage probability over the draws (the ε do not change it), and its 5th and
    /// 95th percentiles.
    pub advantage_probability: f64,
    pub advantage_probability_spread: [f64; 2],
}

/// The plan: every size, and per ε the fewest items whose mean ω reaches 0.5.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AltTestPlan {
    pub settings: AltTestPlanSettings,
    pub method: &'static str,
    pub sizes: Vec<AtSize>,
    /// Per ε: the fewest items (of the sizes tried) from which the mean ω is at least 0.5 at
    /// every size tried (null: not at the largest).
    pub items_needed: Vec<(f64, Option<usize>)>,
}

/// How the plan is made, for the outputs.
pub const METHOD: &str = "the authors' simulation (Calderon et al. 2025, appendix C): Dirichlet priors, annotators and judge noisy around a gold label, items and annotators drawn without replacement, accuracy scoring";

fn draw(rng: &mut ChaCha8Rng, p: &[f64]) -> usize {
    let u: f64 = rng.random();
    let mut acc = 0.0;
    for (k, w) in p.iter().enumerate() {
        acc += w;
        if u < acc {
            return k;
        }
    }
    p.len() - 1
}

/// A label around `gold`: the priors times `noise`, plus 1 − noise on the gold.
fn noisy(rng: &mut ChaCha8Rng, priors: &[f64], gold: usize, noise: f64) -> usize {
    let mut p: Vec<f64> = priors.iter().map(|w| w * noise).collect();
    p[gold] += 1.0 - noise;
    let total: f64 = p.iter().sum();
    p.iter_mut().for_each(|w| *w /= total);
    draw(rng, &p)
}

/// `k` of `0..n` without replacement (a partial Fisher–Yates shuffle).
fn choose(rng: &mut ChaCha8Rng, n: usize, k: usize) -> Vec<usize> {
    let mut all: Vec<usize> = (0..n).collect();
    for i in 0..k {
        let j = rng.random_range(i..n);
        all.swap(i, j);
    }
    all.truncate(k);
    all
}

fn spread(values: &mut [f64]) -> [f64; 2] {
    [
        crate::metrics::percentile(values, 5.0),
        crate::metrics::percentile(values, 95.0),
    ]
}

/// The simulation.
pub fn simulate(s: &AltTestPlanSettings) -> AltTestPlan {
    let e = s.epsilons.len();
    // [size][ε] → ω of each draw; [size] → ρ of each draw.
    let mut omegas: Vec<Vec<Vec<f64>>> = vec![vec![Vec::new(); e]; s.sizes.len()];
    let mut rhos: Vec<Vec<f64>> = vec![Vec::new(); s.sizes.len()];
    let runs = random::split(s.datasets, random::threads(), |d| {
        let mut rng = random::stream(s.seed, Purpose::AltTestPlan, d as u64);
        let weights: Vec<f64> = (0..s.categories)
            .map(|_| -(1.0 - rng.random::<f64>()).ln())
            .collect();
        let total: f64 = weights.iter().sum();
        let priors: Vec<f64> = weights.iter().map(|w| w / total).collect();
        let mut items: Vec<(Vec<i64>, i64)> = Vec::with_capacity(s.max_items);
        for _ in 0..s.max_items {
            let gold = draw(&mut rng, &priors);
            let humans = (0..s.pool)
                .map(|_| noisy(&mut rng, &priors, gold, s.annotator_noise) as i64)
                .collect();
            items.push((humans, noisy(&mut rng, &priors, gold, s.judge_noise) as i64));
        }
        let mut found: Vec<(usize, Vec<f64>, f64)> = Vec::new();
        for (z, &size) in s.sizes.iter().enumerate() {
            for _ in 0..s.boots {
                let rows = choose(&mut rng, s.max_items, size.min(s.max_items));
                let who = choose(&mut rng, s.pool, s.annotators.min(s.pool));
                let votes: Vec<Vec<Option<i64>>> = (rows.iter())
                    .map(|&r| who.iter().map(|&a| Some(items[r].0[a])).collect())
                    .collect();
                let judge: Vec<Option<i64>> = rows.iter().map(|&r| Some(items[r].1)).collect();
                let duels = alt_test::duels(&votes, &judge, Score::Accuracy, Minimums::default());
                let tests: Vec<alt_test::AltTest> = (s.epsilons.iter())
                    .map(|&eps| alt_test::test(&duels, eps, s.q))
                    .collect();
                let rho = tests.first().map_or(f64::NAN, |t| t.advantage_probability);
                found.push((z, tests.iter().map(|t| t.winning_rate).collect(), rho));
            }
        }
        found
    });
    for (z, ws, rho) in runs.into_iter().flatten() {
        for (k, w) in ws.into_iter().enumerate() {
            omegas[z][k].push(w);
        }
        rhos[z].push(rho);
    }
    let mean = |v: &[f64]| {
        let defined: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
        defined.iter().sum::<f64>() / defined.len() as f64
    };
    let sizes: Vec<AtSize> = (s.sizes.iter().enumerate())
        .map(|(z, &items)| AtSize {
            items,
            epsilons: (s.epsilons.iter().enumerate())
                .map(|(k, &epsilon)| {
                    let mut w = omegas[z][k].clone();
                    w.retain(|x| x.is_finite());
                    AtEpsilon {
                        epsilon,
                        winning_rate: mean(&w),
                        passed: w.iter().filter(|&&x| x >= 0.5).count() as f64 / w.len() as f64,
                        winning_rate_spread: spread(&mut w),
                    }
                })
                .collect(),
            advantage_probability: mean(&rhos[z]),
            advantage_probability_spread: {
                let mut r: Vec<f64> = rhos[z].iter().copied().filter(|x| x.is_finite()).collect();
                spread(&mut r)
            },
        })
        .collect();
    // The first size from which every size tried reaches 0.5: a noisy curve that touches 0.5
    // once and falls back is not yet enough.
    let items_needed = (s.epsilons.iter().enumerate())
        .map(|(k, &eps)| {
            let reached = |z: &AtSize| z.epsilons[k].winning_rate >= 0.5;
            let from = sizes.iter().rposition(|z| !reached(z)).map_or(0, |z| z + 1);
            (eps, sizes.get(from).map(|z| z.items))
        })
        .collect();
    AltTestPlan {
        settings: s.clone(),
        method: METHOD,
        sizes,
        items_needed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(judge_noise: f64) -> AltTestPlanSettings {
        AltTestPlanSettings {
            epsilons: vec![0.0, 0.2],
            sizes: vec![30, 100],
            annotators: 3,
            pool: 6,
            categories: 4,
            annotator_noise: 0.3,
            judge_noise,
            datasets: 4,
            boots: 3,
            max_items: 200,
            q: 0.05,
            seed: 1,
        }
    }

    #[test]
    fn a_better_judge_and_a_wider_margin_win_more_and_the_plan_is_seeded() {
        let good = simulate(&settings(0.1));
        let bad = simulate(&settings(0.9));
        assert_eq!(good, simulate(&settings(0.1)), "seeded");
        let w = |p: &AltTestPlan, z: usize, k: usize| p.sizes[z].epsilons[k].winning_rate;
        assert!(w(&good, 1, 1) > w(&bad, 1, 1));
        assert!(
            w(&good, 1, 1) >= w(&good, 1, 0),
            "a wider ε never beats fewer"
        );
        assert!(good.sizes[1].advantage_probability > bad.sizes[1].advantage_probability);
        let [lo, hi] = good.sizes[1].epsilons[1].winning_rate_spread;
        assert!(lo <= w(&good, 1, 1) && w(&good, 1, 1) <= hi);
    }
}
