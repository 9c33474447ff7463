//! `calibrate --sequential` on pairs: the items' seeded order, the race set up from the plan
//! (`evaluation::race` decides), and each rating handed to it as it arrives, its step turned
//! into the rating loop's `Flow`.

use crate::dataset::select::stable_hash;
use crate::evaluation::race::Race;
use crate::raters::{Config, Flow, Rating, Status};
use crate::run::data::Dataset;
use crate::run::record::SequentialRun;
use crate::run::settings::SequentialSettings;
use anyhow::Result;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Puts the items in a seeded random order: the pairs are shuffled (a pair's two orders stay
/// together, as rated), so the order is independent of the items' content.
pub fn shuffle(dataset: &mut Dataset) {
    let mut pairs: Vec<Vec<crate::dataset::examples::Example>> = Vec::new();
    for e in std::mem::take(&mut dataset.examples) {
        match pairs.last_mut() {
            Some(last) if last[0].pair_id == e.pair_id => last.push(e),
            _ => pairs.push(vec![e]),
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(stable_hash(&[
        b"sequential order",
        &dataset.seed.to_le_bytes(),
    ]));
    pairs.shuffle(&mut rng);
    dataset.examples = pairs.into_iter().flatten().collect();
}

/// The race under way, with what it needs of each rating: the gold of each item.
#[derive(Debug)]
pub struct Racing {
    race: Race,
    gold: Vec<Option<i64>>,
    not_asked: Vec<usize>,
    order: &'static str,
    seed: u64,
}

/// The race of a plan's configurations over `dataset` (in the order they will be rated);
/// refused when a named configuration is not in the plan or fewer than two race.
pub fn race(
    settings: &SequentialSettings,
    configs: &[Config],
    juries: &[String],
    (dataset, alpha): (&Dataset, f64),
) -> Result<Racing> {
    let names: Vec<String> = configs.iter().map(|c| c.name.clone()).collect();
    let baseline: Vec<bool> = configs.iter().map(|c| c.rater.is_baseline()).collect();
    let index = |name: &str| -> Result<usize> {
        names.iter().position(|n| n == name).ok_or_else(|| {
            let why = if juries.iter().any(|j| j == name) {
                "is a jury, which votes from its members after the run; name two configurations"
                    .to_string()
            } else {
                format!("is not a configuration of this run ({})", names.join(", "))
            };
            crate::error::input_error(format!("--sequential: '{name}' {why}"))
        })
    };
    let named = match &settings.named {
        Some([a, b]) => Some([index(a)?, index(b)?]),
        None => None,
    };
    let items = dataset.examples.len();
    // The race at the run's α (`--alpha`), split over its comparisons.
    let race = Race::new(&names, &baseline, named, items, alpha).ok_or_else(|| {
        crate::error::input_error(format!(
            "--sequential races configurations against each other, but this run has {} judged configuration(s): add prompts, raters or models (baselines do not race), or name two with --sequential A,B",
            baseline.iter().filter(|b| !**b).count()
        ))
    })?;
    Ok(Racing {
        race,
        gold: dataset.examples.iter().map(|e| e.gold).collect(),
        not_asked: vec![0; configs.len()],
        order: if settings.shuffle { "shuffled" } else { "file" },
        seed: dataset.seed,
    })
}

impl Racing {
    /// Configuration `k`'s rating of item `item`: the race's step as the rating loop's flow.
    pub fn add(&mut self, k: usize, item: usize, rating: &Rating) -> Flow {
        if rating.status == Status::NotAsked {
            self.not_asked[k] += 1;
            return Flow::Go;
        }
        let label = rating.rating.filter(|_| rating.status == Status::Rated);
        let gold = self.gold.get(item).copied().flatten();
        let step = self.race.add(k, item, gold, label);
        if step.stop {
            Flow::Stop
        } else if step.dropped.is_empty() {
            Flow::Go
        } else {
            Flow::Drop(step.dropped)
        }
    }

    /// The race's end, with the calls saved: each configuration's planned calls
    /// (`planned[k]`) in the share of its items never asked.
    pub fn finish(self, planned: &[u64]) -> SequentialRun {
        let items = self.gold.len().max(1) as u64;
        let saved = planned
            .iter()
            .zip(&self.not_asked)
            .map(|(&p, &n)| (p * n as u64).div_ceil(items))
            .sum();
        SequentialRun {
            order: self.order.to_string(),
            seed: self.seed,
            raced: self.race.finish(),
            calls_planned: planned.iter().sum(),
            calls_saved: saved,
        }
    }
}
