//! Self-consistency from one sample pool: what `sc:k` would have scored for every k = 1..N and
//! each vote rule, from the N samples `sc:N` already drew (no new call), and AlpacaEval's
//! decomposition of the judge's error into bias and variance.
//!
//! For each k, the rule is applied to a seeded set of k-subsets of the N samples (all of them
//! when there are at most [`SUBSETS`], else that many distinct ones drawn with ChaCha8), and
//! the statistics are those of the pooled table of every (subset, item) verdict against gold:
//! accuracy among verdicts, and quadratic kappa. Items are resampled for the bands: every
//! figure depends only on how many items share a (gold, verdict counts) pattern, so a
//! resample is a multinomial draw over the patterns.

use super::record::{share, RunRecord};
use crate::metrics::random::{stream, Purpose};
use crate::metrics::{kappa, redraws, Contingency, Labels, Resampling, Weights};
use crate::raters::Aggregation;
use rand::seq::index::sample;
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;

/// At most this many k-subsets per k.
pub const SUBSETS: usize = 20;

pub const RULES: [Aggregation; 3] = [
    Aggregation::Mean,
    Aggregation::Plurality,
    Aggregation::Unanimous,
];

/// One point of a curve.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Point {
    pub k: usize,
    /// The k-subsets used.
    pub subsets: usize,
    pub accuracy: f64,
    pub kappa_quadratic: f64,
    /// Share of (subset, item) verdicts that exist (a sample without a verdict is left out of
    /// its subset; a subset with none gives no verdict).
    pub rated: f64,
    pub accuracy_ci: Option<(f64, f64)>,
    pub kappa_quadratic_ci: Option<(f64, f64)>,
}

/// A configuration's curves and decomposition.
#[derive(Debug, Clone, PartialEq)]
pub struct Consistency {
    pub samples: usize,
    /// Per rule (in [`RULES`] order), k = 1..N.
    pub curves: Vec<(Aggregation, Vec<Point>)>,
    /// 1 − accuracy of the modal vote of all N samples (items with a unique mode).
    pub bias: f64,
    /// Share of (item, sample) verdicts that differ from the unique mode of the item's other
    /// samples (leave-one-out disagreement with itself).
    pub variance: f64,
    pub bias_ci: Option<(f64, f64)>,
    pub variance_ci: Option<(f64, f64)>,
}

/// The k-subsets of 0..n used for k: every one when there are at most [`SUBSETS`], else that
/// many distinct draws.
pub fn subsets(n: usize, k: usize, rng: &mut ChaCha8Rng) -> Vec<Vec<usize>> {
    let mut all = Vec::new();
    let mut current = Vec::with_capacity(k);
    // Enumerate while there are few enough.
    fn walk(start: usize, n: usize, k: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if out.len() > SUBSETS {
            return;
        }
        if cur.len() == k {
            out.push(cur.clone());
            return;
        }
        for i in start..n {
            cur.push(i);
            walk(i + 1, n, k, cur, out);
            cur.pop();
        }
    }
    walk(0, n, k, &mut current, &mut all);
    if all.len() <= SUBSETS {
        return all;
    }
    let mut seen = std::collections::BTreeSet::new();
    while seen.len() < SUBSETS {
        let mut s = sample(rng, n, k).into_vec();
        s.sort_unstable();
        seen.insert(s);
    }
    seen.into_iter().collect()
}

fn index(v: i64) -> usize {
    (v + 1).clamp(0, 2) as usize
}

/// Pooled gold × verdict counts (verdicts -1, 0, 1 and "none" in column 3) → (accuracy,
/// kappa_quadratic, rated share).
fn stats(t: &[u64; 12]) -> (f64, f64, f64) {
    let rated: Vec<u64> = (0..3)
        .flat_map(|g| (0..3).map(move |r| t[g * 4 + r]))
        .collect();
    let table = Contingency::from_counts(Labels::pairwise(), rated);
    (
        share(table.diagonal(), table.n()),
        kappa(&table, Weights::Quadratic),
        share(table.n(), t.iter().sum()),
    )
}

/// The unique mode of some verdicts.
fn mode(verdicts: impl Iterator<Item = i64>) -> Option<i64> {
    crate::metrics::raters::unique_mode(verdicts.map(index), 3).map(|i| i as i64 - 1)
}

/// Each item's pattern (gold and its verdicts, padded to `n`), the distinct patterns in first
/// seen order with their counts. When every k-subset is used for every k (`exhaustive`), which
/// sample said what does not matter, only how many said each verdict: the verdicts are sorted,
/// and there are far fewer patterns.
fn patterns(
    run: &RunRecord,
    samples: &[Vec<Option<i64>>],
    n: usize,
    exhaustive: bool,
) -> (Vec<Pattern>, Vec<u64>) {
    let mut patterns: HashMap<Pattern, u64> = HashMap::new();
    let mut keys: Vec<Pattern> = Vec::new();
    for (item, s) in run.items.iter().zip(samples) {
        let Some(gold) = item.gold else {
            continue;
        };
        let mut verdicts = s.clone();
        verdicts.resize(n, None);
        if exhaustive {
            verdicts.sort_unstable();
        }
        let key = (gold, verdicts);
        let count = patterns.entry(key.clone()).or_insert_with(|| {
            keys.push(key);
            0
        });
        *count += 1;
    }
    let counts = keys.iter().map(|k| patterns[k]).collect();
    (keys, counts)
}

/// An item's gold and its samples' verdicts.
type Pattern = (i64, Vec<Option<i64>>);

/// A pattern's 12 pooled cells over the k-subsets, per rule and k.
fn pattern_cells((gold, verdicts): &Pattern, per_k: &[Vec<Vec<usize>>]) -> Vec<Vec<[u64; 12]>> {
    RULES
        .iter()
        .map(|rule| {
            per_k
                .iter()
                .map(|sets| {
                    let mut t = [0u64; 12];
                    for set in sets {
                        let chosen: Vec<i64> = set
                            .iter()
                            .filter_map(|&i| verdicts.get(i).copied().flatten())
                            .collect();
                        let column = if chosen.is_empty() {
                            3
                        } else {
                            index(rule.apply(&chosen))
                        };
                        t[index(*gold) * 4 + column] += 1;
                    }
                    t
                })
                .collect()
        })
        .collect()
}

/// A pattern's bias and variance counts: (mode right, has a mode) and (samples that differ
/// from the mode of the others, samples whose others have a mode).
fn pattern_decomposition((gold, verdicts): &Pattern) -> [u64; 4] {
    let present: Vec<i64> = verdicts.iter().flatten().copied().collect();
    let m = mode(present.iter().copied());
    let mut d = [u64::from(m == Some(*gold)), u64::from(m.is_some()), 0, 0];
    for (i, v) in present.iter().enumerate() {
        let others = present
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, x)| *x);
        if let Some(o) = mode(others) {
            d[2] += u64::from(*v != o);
            d[3] += 1;
        }
    }
    d
}

/// Curves and decomposition for one configuration's samples (`samples[item][sample]`).
pub fn consistency(
    run: &RunRecord,
    samples: &[Vec<Option<i64>>],
    r: Resampling,
) -> Option<Consistency> {
    let n = samples.iter().map(Vec::len).max()?;
    if n < 2 || samples.len() != run.items.len() {
        return None;
    }
    let mut rng = stream(r.seed, Purpose::Consistency, 0);
    let per_k: Vec<Vec<Vec<usize>>> = (1..=n).map(|k| subsets(n, k, &mut rng)).collect();
    let choose =
        |k: usize| -> usize { (0..k).fold(1usize, |acc, i| acc.saturating_mul(n - i) / (i + 1)) };
    let exhaustive = per_k
        .iter()
        .enumerate()
        .all(|(k, sets)| sets.len() == choose(k + 1));
    let (keys, counts) = patterns(run, samples, n, exhaustive);
    let cells: Vec<Vec<Vec<[u64; 12]>>> = keys.iter().map(|p| pattern_cells(p, &per_k)).collect();
    let decomposition: Vec<[u64; 4]> = keys.iter().map(pattern_decomposition).collect();
    let pooled = |w: &[u64], rule: usize, k: usize| -> [u64; 12] {
        let mut t = [0u64; 12];
        for (p, &w) in cells.iter().zip(w) {
            for (x, y) in t.iter_mut().zip(&p[rule][k]) {
                *x += w * y;
            }
        }
        t
    };
    let decompose = |w: &[u64]| -> (f64, f64) {
        let mut s = [0u64; 4];
        for (d, &w) in decomposition.iter().zip(w) {
            for (x, y) in s.iter_mut().zip(d) {
                *x += w * y;
            }
        }
        (1.0 - share(s[0], s[1]), share(s[2], s[3]))
    };
    // Bootstrap draws of every figure.
    let width = RULES.len() * n * 2 + 2;
    let mut draws = redraws(&counts, r.resamples, width, &mut rng, |w| {
        let mut figures = Vec::with_capacity(width);
        for rule in 0..RULES.len() {
            for k in 0..n {
                let (a, kq, _) = stats(&pooled(w, rule, k));
                figures.extend([a, kq]);
            }
        }
        let (b, v) = decompose(w);
        figures.extend([b, v]);
        figures
    });
    let mut band = |i: usize| (r.resamples > 0).then(|| r.interval(&mut draws[i]));
    let mut curves = Vec::new();
    let mut slot = 0;
    for (r, rule) in RULES.iter().enumerate() {
        let mut points = Vec::new();
        for k in 0..n {
            let (accuracy, kappa_quadratic, rated) = stats(&pooled(&counts, r, k));
            points.push(Point {
                k: k + 1,
                subsets: per_k[k].len(),
                accuracy,
                kappa_quadratic,
                rated,
                accuracy_ci: band(slot),
                kappa_quadratic_ci: band(slot + 1),
            });
            slot += 2;
        }
        curves.push((*rule, points));
    }
    let (bias, variance) = decompose(&counts);
    Some(Consistency {
        samples: n,
        curves,
        bias,
        variance,
        bias_ci: band(slot),
        variance_ci: band(slot + 1),
    })
}

/// The self-consistency analytic: what every k = 1..N would have scored (`sc:N` raters).
#[derive(Debug)]
pub struct ConsistencyAnalytic;

impl super::Analytic for ConsistencyAnalytic {
    fn run(&self, cx: &super::Context, _configs: &[super::ConfigResult]) -> super::Found {
        let s = &cx.settings;
        super::Found::per_config(cx.run.configs.iter().map(|c| {
            super::analytic::kept(
                c.samples
                    .as_ref()
                    .and_then(|samples| consistency(cx.run, samples, s.resampling())),
            )
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::examples::Order;
    use crate::evaluation::items::ItemRow;

    fn run(golds: &[i64]) -> RunRecord {
        RunRecord {
            labels: crate::metrics::Labels::pairwise(),
            inputs: Default::default(),
            items: golds
                .iter()
                .enumerate()
                .map(|(i, &g)| ItemRow {
                    id: i.to_string().into(),
                    pair_id: i.to_string().into(),
                    subset: "s".into(),
                    order: Order::AsSource,
                    gold: Some(g),
                    seeded: true,
                })
                .collect(),
            configs: Vec::new(),
            both_orders: false,
            annotators: None,
            shapes: Vec::new(),
            generators: None,
        }
    }

    #[test]
    fn subsets_enumerate_or_draw() {
        let mut rng =
            crate::metrics::random::stream(1, crate::metrics::random::Purpose::Simulation, 0);
        assert_eq!(subsets(5, 2, &mut rng).len(), 10);
        assert_eq!(subsets(5, 5, &mut rng), vec![vec![0, 1, 2, 3, 4]]);
        let drawn = subsets(10, 5, &mut rng);
        assert_eq!(drawn.len(), SUBSETS);
        assert!(drawn
            .iter()
            .all(|s| s.len() == 5 && s.windows(2).all(|w| w[0] < w[1])));
    }

    #[test]
    fn curves_by_hand() {
        // Item 1 (gold -1): samples -1, -1, 1; item 2 (gold 1): 1, 1, 1.
        let r = run(&[-1, 1]);
        let samples = vec![
            vec![Some(-1), Some(-1), Some(1)],
            vec![Some(1), Some(1), Some(1)],
        ];
        let c = consistency(&r, &samples, Resampling::at95(0, 7)).expect("curves");
        let majority = &c.curves[1].1;
        // k = 1: item 1 right in 2 of 3 single samples, item 2 always: 5 of 6.
        assert!((majority[0].accuracy - 5.0 / 6.0).abs() < 1e-12);
        // k = 2 majority: item 1's pairs {-1,-1} right, {-1,1} twice a tie (wrong): 1 of 3
        // right; item 2 always: 4 of 6.
        assert!((majority[1].accuracy - 4.0 / 6.0).abs() < 1e-12);
        // k = 3: the majority of all three is right for both.
        assert!((majority[2].accuracy - 1.0).abs() < 1e-12);
        // Unanimous at k = 3: item 1 is a tie (wrong), item 2 right.
        assert!((c.curves[2].1[2].accuracy - 0.5).abs() < 1e-12);
        // Bias: both modes right → 0. Variance: item 1's 1 differs from the others' mode -1,
        // each -1 faces {-1, 1} (no unique mode, skipped): 1 of 1; item 2: 0 of 3. 1 of 4.
        assert!(c.bias.abs() < 1e-12);
        assert!((c.variance - 0.25).abs() < 1e-12, "{}", c.variance);
    }
}
