//! `calibrate --sequential`: the configurations raced as their ratings arrive, a configuration
//! dropped once it is shown worse, the run stopped once the race is decided. Each pair of
//! configurations is compared as `sequential` compares two judges (x_t = (c_A − c_B + 1)/2,
//! confseq's two-sided sequence), over the items both have rated, in the run's item order.
//!
//! Without named configurations every judged configuration races: each pair's sequence is at
//! α / (m(m − 1)/2) for m configurations (Bonferroni over every pair, because the leader a
//! configuration is held against is chosen from the same data), so with probability 1 − α no
//! configuration is ever dropped while it is as good as the one it lost to. A configuration is
//! dropped at the first item where its interval against a live one lies wholly on the losing
//! side; the race is decided when one is left. With two named configurations (`--sequential
//! A,B`) only their one comparison is made, at α, and the run stops when it is decided.
//! Baselines cost nothing: they are never dropped and count in no split, unless named.
//!
//! An item without a gold label moves the item count on and compares nothing; a failed call
//! or an unreadable answer does not agree with the gold.

use crate::metrics::confseq::{TwoSided, TRUNCATION};
use std::collections::BTreeMap;

/// Where the race ended, as run.json and `--json` keep it (configurations by name).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Raced {
    pub alpha: f64,
    /// The comparisons α is split over, and each one's level.
    pub comparisons: usize,
    pub alpha_each: f64,
    /// `--sequential A,B`: the two compared (None: every judged configuration raced).
    #[serde(default)]
    pub named: Option<[String; 2]>,
    /// The item (1-based, in the run's order) at which the race was decided and the run
    /// stopped; None when it ran through every item.
    #[serde(default)]
    pub stopped_at: Option<usize>,
    /// The decision at `stopped_at`.
    #[serde(default)]
    pub decided: Option<Decision>,
    /// The configurations shown worse before the end, in the order they were dropped.
    #[serde(default)]
    pub dropped: Vec<Decision>,
    /// Items each configuration was planned to rate.
    pub items: usize,
}

/// One comparison decided: `worse` shown worse than `better` at item `at`, after `n`
/// labelled items; `mean` and the interval are of x = (c_better − c_worse + 1)/2 (above ½).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Decision {
    pub better: String,
    pub worse: String,
    pub at: usize,
    pub n: usize,
    pub mean: f64,
    pub lower: f64,
    pub upper: f64,
}

impl Decision {
    /// The accuracy difference, better − worse, over the n items, and its interval.
    pub fn difference(&self) -> (f64, f64, f64) {
        let d = |x: f64| 2.0 * x - 1.0;
        (d(self.mean), d(self.lower), d(self.upper))
    }
}

impl Raced {
    /// The item after which `name` got no more calls: its drop, else the run's stop.
    pub fn stopped_at(&self, name: &str) -> Option<usize> {
        self.dropped
            .iter()
            .find(|d| d.worse == name)
            .map(|d| d.at)
            .or(self.stopped_at)
    }
}

/// What the caller does after a rating: drop these configurations, stop the run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Step {
    pub dropped: Vec<usize>,
    pub stop: bool,
}

/// One pair's sequence and its interval at the last item both rated.
#[derive(Debug, Clone)]
struct Pair {
    a: usize,
    b: usize,
    sequence: TwoSided,
    bounds: (f64, f64),
    /// x summed over the items both rated.
    sum: f64,
}

/// The race under way.
#[derive(Debug, Clone)]
pub struct Race {
    names: Vec<String>,
    /// Configurations racing (all judged ones, or the two named) and not dropped.
    live: Vec<bool>,
    /// Each racing configuration's correctness per item not yet compared, by the item's
    /// index (None: no gold): answers may arrive in any order.
    pending: Vec<BTreeMap<usize, Option<bool>>>,
    pairs: Vec<Pair>,
    right: Vec<usize>,
    t: usize,
    n: usize,
    raced: Raced,
}

impl Race {
    /// A race of `names` (`baseline[k]`: configuration k costs nothing), each rating `items`
    /// items; `named`: the two compared alone. `None` when fewer than two race.
    pub fn new(
        names: &[String],
        baseline: &[bool],
        named: Option<[usize; 2]>,
        items: usize,
        alpha: f64,
    ) -> Option<Self> {
        let racing: Vec<bool> = match named {
            Some(pair) => (0..names.len()).map(|k| pair.contains(&k)).collect(),
            None => baseline.iter().map(|b| !b).collect(),
        };
        let m = racing.iter().filter(|r| **r).count();
        if m < 2 {
            return None;
        }
        let comparisons = if named.is_some() { 1 } else { m * (m - 1) / 2 };
        let alpha_each = alpha / comparisons as f64;
        let mut pairs = Vec::new();
        for a in (0..names.len()).filter(|&k| racing[k]) {
            for b in (a + 1..names.len()).filter(|&k| racing[k]) {
                pairs.push(Pair {
                    a,
                    b,
                    sequence: TwoSided::new(alpha_each, TRUNCATION),
                    bounds: (0.0, 1.0),
                    sum: 0.0,
                });
            }
        }
        Some(Self {
            names: names.to_vec(),
            live: racing,
            pending: vec![BTreeMap::new(); names.len()],
            pairs,
            right: vec![0; names.len()],
            t: 0,
            n: 0,
            raced: Raced {
                alpha,
                comparisons,
                alpha_each,
                named: named.map(|[a, b]| [names[a].clone(), names[b].clone()]),
                stopped_at: None,
                decided: None,
                dropped: Vec::new(),
                items,
            },
        })
    }

    /// Configuration `k`'s rating of item `index` (0-based, in the run's order; items may
    /// come in any order): the gold label and its label (None: no verdict). Compares, in the
    /// run's order, every next item all live configurations have rated.
    pub fn add(&mut self, k: usize, index: usize, gold: Option<i64>, label: Option<i64>) -> Step {
        if !self.live[k] || self.raced.stopped_at.is_some() || index < self.t {
            return Step::default();
        }
        self.pending[k].insert(index, gold.map(|g| label == Some(g)));
        let mut step = Step::default();
        while self.ready() {
            self.compare_next(&mut step);
            if step.stop {
                break;
            }
        }
        step
    }

    /// Whether every live configuration has rated the next item.
    fn ready(&self) -> bool {
        (0..self.names.len())
            .filter(|&k| self.live[k])
            .all(|k| self.pending[k].contains_key(&self.t))
    }

    fn compare_next(&mut self, step: &mut Step) {
        let live: Vec<usize> = (0..self.names.len()).filter(|&k| self.live[k]).collect();
        let c: Vec<Option<bool>> = live
            .iter()
            .map(|&k| self.pending[k].remove(&self.t).flatten())
            .collect();
        self.t += 1;
        // Every live configuration has a correctness exactly when the item has a gold label.
        if c.iter().any(Option::is_none) {
            return;
        }
        self.n += 1;
        let right = |k: usize| live.iter().position(|&l| l == k).and_then(|p| c[p]);
        for (&k, ck) in live.iter().zip(&c) {
            self.right[k] += usize::from(*ck == Some(true));
        }
        for pair in &mut self.pairs {
            if let (Some(ca), Some(cb)) = (right(pair.a), right(pair.b)) {
                let x = (f64::from(u8::from(ca)) - f64::from(u8::from(cb)) + 1.0) / 2.0;
                pair.bounds = pair.sequence.push(x);
                pair.sum += x;
            }
        }
        // Each live configuration shown worse than a live one (the one with the most right
        // answers, when several; then the first) is dropped.
        let mut worse: Vec<(usize, Decision)> = Vec::new();
        for &k in &live {
            let lost = self
                .pairs
                .iter()
                .filter(|p| self.live[p.a] && self.live[p.b])
                .filter_map(|p| self.lost(p, k))
                .min_by_key(|&(better, _)| (std::cmp::Reverse(self.right[better]), better));
            worse.extend(lost.map(|(_, d)| (k, d)));
        }
        if worse.is_empty() {
            return;
        }
        for &(k, _) in &worse {
            self.live[k] = false;
            self.pending[k].clear();
        }
        let left = self.live.iter().filter(|l| **l).count();
        if self.raced.named.is_some() || left <= 1 {
            // Named: their one comparison is decided. Otherwise the last one left has won,
            // shown better than the last configuration dropped.
            self.raced.stopped_at = Some(self.t);
            self.raced.decided = worse.last().map(|(_, d)| d.clone());
            step.stop = true;
        }
        if self.raced.named.is_none() {
            step.dropped.extend(worse.iter().map(|(k, _)| *k));
            self.raced.dropped.extend(worse.into_iter().map(|(_, d)| d));
        }
    }

    /// The configuration that beat `k` and the decision, when `pair`'s interval shows `k`
    /// worse than the other.
    fn lost(&self, pair: &Pair, k: usize) -> Option<(usize, Decision)> {
        let (lower, upper) = pair.bounds;
        // Both were live on every labelled item so far: the pair's items are the race's n.
        let mean = pair.sum / self.n as f64;
        // Above ½: a is better; below: b is. The figures are turned to the winner's side.
        let (better, mean, lower, upper) = if pair.b == k && lower > 0.5 {
            (pair.a, mean, lower, upper)
        } else if pair.a == k && upper < 0.5 {
            (pair.b, 1.0 - mean, 1.0 - upper, 1.0 - lower)
        } else {
            return None;
        };
        Some((
            better,
            Decision {
                better: self.names[better].clone(),
                worse: self.names[k].clone(),
                at: self.t,
                n: self.n,
                mean,
                lower,
                upper,
            },
        ))
    }

    pub fn finish(self) -> Raced {
        self.raced
    }
}

#[cfg(test)]
#[path = "race_tests.rs"]
mod tests;
