//! Percentile bootstrap over pairs.
//!
//! Resampling n pairs with replacement from a table of counts is a multinomial draw over its
//! cells, so a resample costs O(k²) binomial draws instead of O(n) index draws; the
//! distribution is the same as resampling the pairs themselves.

use super::random::{stream, Purpose};
use super::{Contingency, Estimates, Statistic};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Binomial, Distribution};

/// A two-sided interval; NaN bounds when every resample was undefined.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    pub lo: f64,
    pub hi: f64,
}

/// 95% intervals for every [`Statistic`], indexed like [`Statistic::ALL`].
#[derive(Debug, Clone, PartialEq)]
pub struct Intervals {
    pub resamples: usize,
    pub level: f64,
    pub bounds: [Interval; 8],
}

impl Intervals {
    pub fn get(&self, statistic: Statistic) -> Interval {
        self.bounds[statistic as usize]
    }
}

/// Resamples n = sum(counts) items with replacement from items counted in cells: a
/// multinomial draw over the cells, as a chain of binomial draws (O(cells), not O(n)).
pub fn multinomial(counts: &[u64], rng: &mut ChaCha8Rng) -> Vec<u64> {
    let mut out = vec![0u64; counts.len()];
    let total: u64 = counts.iter().sum();
    let mut left_n = total;
    let mut left_mass = total;
    for (slot, &count) in out.iter_mut().zip(counts) {
        if left_n == 0 || count == 0 {
            continue;
        }
        let draw = if count == left_mass {
            left_n
        } else {
            let p = count as f64 / left_mass as f64;
            match Binomial::new(left_n, p) {
                Ok(binomial) => binomial.sample(rng),
                Err(_) => 0,
            }
        };
        *slot = draw;
        left_n -= draw;
        left_mass -= count;
    }
    out
}

/// The figures `stat` computes from each of `resamples` multinomial redraws of `counts`
/// (the counted items resampled with replacement), one column per figure: `width` columns of
/// `resamples` values. The draws use `rng` in order, one redraw per resample.
pub fn redraws(
    counts: &[u64],
    resamples: usize,
    width: usize,
    rng: &mut ChaCha8Rng,
    mut stat: impl FnMut(&[u64]) -> Vec<f64>,
) -> Vec<Vec<f64>> {
    let mut columns: Vec<Vec<f64>> = vec![Vec::with_capacity(resamples); width];
    for _ in 0..resamples {
        let figures = stat(&multinomial(counts, rng));
        for (column, value) in columns.iter_mut().zip(figures) {
            column.push(value);
        }
    }
    columns
}

/// How an analytic's intervals are drawn: `resamples` redraws (0: none), from streams keyed
/// by `seed`, each interval at `level` (1 − α). `EvalSettings::resampling` makes it from the
/// command's `--bootstrap`, `--seed` and `--alpha`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Resampling {
    pub resamples: usize,
    pub seed: u64,
    pub level: f64,
}

impl Resampling {
    /// `resamples` redraws from `seed`, 95% intervals.
    pub fn at95(resamples: usize, seed: u64) -> Self {
        Self {
            resamples,
            seed,
            level: 0.95,
        }
    }

    /// The interval of these draws at this level.
    pub fn interval(&self, draws: &mut [f64]) -> (f64, f64) {
        interval(draws, self.level)
    }
}

/// The percentile-bootstrap interval at `level` of some draws (NaN bounds when none is
/// defined).
pub fn interval(draws: &mut [f64], level: f64) -> (f64, f64) {
    // The tail in percent, rounded off its float error: 0.95 gives exactly 2.5.
    let tail = ((1.0 - level) * 50.0 * 1e9).round() / 1e9;
    (percentile(draws, tail), percentile(draws, 100.0 - tail))
}

/// [`interval`] as `[lo, hi]`, None when a bound is not defined (for serialized results).
pub fn interval_defined(draws: &mut [f64], level: f64) -> Option<[f64; 2]> {
    let (lo, hi) = interval(draws, level);
    (lo.is_finite() && hi.is_finite()).then_some([lo, hi])
}

/// Percentile bootstrap at `level`: `resamples` tables drawn from the stream
/// `(seed, Agreement, 0)`.
pub fn bootstrap_table(table: &Contingency, resamples: usize, seed: u64, level: f64) -> Intervals {
    let mut rng = stream(seed, Purpose::Agreement, 0);
    let mut samples = redraws(
        table.counts(),
        resamples,
        Statistic::ALL.len(),
        &mut rng,
        |counts| {
            Estimates::of(&table.with_counts(counts.to_vec()))
                .0
                .to_vec()
        },
    );
    let tail = (1.0 - level) / 2.0 * 100.0;
    let bounds = std::array::from_fn(|s| Interval {
        lo: percentile(&mut samples[s], tail),
        hi: percentile(&mut samples[s], 100.0 - tail),
    });
    Intervals {
        resamples,
        level,
        bounds,
    }
}

/// The q-th percentile (0..=100) of the non-NaN values, with numpy's default linear
/// interpolation (`np.nanpercentile`). NaN when no value is defined. The two order statistics
/// it interpolates between are selected (linear time), not sorted for: the same values a sort
/// gives.
pub fn percentile(values: &mut [f64], q: f64) -> f64 {
    let mut defined: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
    if defined.is_empty() {
        return f64::NAN;
    }
    let position = q / 100.0 * (defined.len() - 1) as f64;
    let below = position.floor() as usize;
    let fraction = position - below as f64;
    let (_, &mut low, above) = defined.select_nth_unstable_by(below, f64::total_cmp);
    // The next order statistic: the least of those above (the last, when there are none).
    let high = above.iter().copied().min_by(f64::total_cmp).unwrap_or(low);
    low + (high - low) * fraction
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Labels;

    #[test]
    fn percentile_matches_numpy() {
        // np.percentile([1, 2, 3, 4], [2.5, 50, 97.5]) = [1.075, 2.5, 3.925]
        let mut v = vec![4.0, f64::NAN, 1.0, 3.0, 2.0];
        assert!((percentile(&mut v, 2.5) - 1.075).abs() < 1e-12);
        assert!((percentile(&mut v, 50.0) - 2.5).abs() < 1e-12);
        assert!((percentile(&mut v, 97.5) - 3.925).abs() < 1e-12);
        assert!(percentile(&mut [f64::NAN], 50.0).is_nan());
    }

    /// The selected order statistics are those of a sort, with ties, signed zeros, NaN and
    /// every percentile the intervals use.
    #[test]
    fn percentile_selects_what_a_sort_gives() {
        let sorted = |values: &[f64], q: f64| -> f64 {
            let mut d: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
            if d.is_empty() {
                return f64::NAN;
            }
            d.sort_by(f64::total_cmp);
            let position = q / 100.0 * (d.len() - 1) as f64;
            let below = position.floor() as usize;
            let above = (below + 1).min(d.len() - 1);
            d[below] + (d[above] - d[below]) * (position - below as f64)
        };
        let mut rng =
            crate::metrics::random::stream(7, crate::metrics::random::Purpose::Simulation, 1);
        for n in [1usize, 2, 3, 10, 999, 1000] {
            for _ in 0..20 {
                let mut v: Vec<f64> = (0..n)
                    .map(|_| match rand::Rng::random_range(&mut rng, 0..10) {
                        0 => f64::NAN,
                        1 => -0.0,
                        2 => 0.0,
                        k => {
                            f64::from(k % 4) / 3.0
                                + f64::from(rand::Rng::random_range(&mut rng, 0..3))
                        }
                    })
                    .collect();
                for q in [0.0, 0.5, 2.5, 5.0, 50.0, 95.0, 97.5, 99.5, 100.0] {
                    let (a, b) = (percentile(&mut v, q), sorted(&v, q));
                    assert!(
                        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                        "{n} {q}: {a} {b}"
                    );
                }
            }
        }
    }

    #[test]
    fn resamples_keep_n_and_are_seeded() {
        let gold: Vec<i64> = (0..1000).map(|i| if i % 3 == 0 { 1 } else { -1 }).collect();
        let rating: Vec<i64> = (0..1000).map(|i| [1, -1, 0][i % 3]).collect();
        let table = Contingency::from_pairs(&Labels::pairwise(), &gold, &rating).expect("fits");
        let mut rng =
            crate::metrics::random::stream(7, crate::metrics::random::Purpose::Simulation, 0);
        for _ in 0..50 {
            let counts = multinomial(table.counts(), &mut rng);
            assert_eq!(counts.iter().sum::<u64>(), 1000);
            // Cells that are empty in the data stay empty.
            for (c, r) in table.counts().iter().zip(&counts) {
                assert!(*c > 0 || *r == 0);
            }
        }
        let a = bootstrap_table(&table, 200, 42, 0.95);
        assert_eq!(a, bootstrap_table(&table, 200, 42, 0.95));
        assert_ne!(a, bootstrap_table(&table, 200, 43, 0.95));
        let wide = bootstrap_table(&table, 200, 42, 0.99).get(Statistic::Accuracy);
        let narrow = a.get(Statistic::Accuracy);
        assert!(
            wide.lo <= narrow.lo && narrow.hi <= wide.hi,
            "a 99% interval holds the 95%"
        );
        let acc = a.get(Statistic::Accuracy);
        assert!(acc.lo < 2.0 / 3.0 && 2.0 / 3.0 < acc.hi, "{acc:?}");
    }
}
