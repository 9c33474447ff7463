//! Several raters per item: agreement among annotators, the human ceiling, and a judge
//! measured the same ways.
//!
//! Votes are label indices (positions in a [`Labels`] set), `None` where a rater gave none.
//! Every statistic matches its reference implementation (fixtures in
//! `tests/fixtures/generate_metrics_fixtures.py`):
//!
//! - pairwise Cohen's kappa: `sklearn.metrics.cohen_kappa_score` on the items both rated;
//! - Fleiss' kappa: `statsmodels.stats.inter_rater.fleiss_kappa` (method "fleiss") on the
//!   items with the most votes any item has (every annotator's, when an item has them all;
//!   long form's N annotations of whoever made them);
//! - Krippendorff's alpha, nominal and ordinal: the `krippendorff` package (missing votes
//!   allowed; labels in their order for ordinal);
//! - Gwet's AC1: `irrCAC`'s `CAC(...).gwet()` with the label set as its categories.

mod ceiling;

pub use ceiling::{
    bootstrap_panel, ceiling, judge_ceiling, AnnotatorStats, Ceiling, JudgeStats, Panel,
};

use super::{kappa, Contingency, Labels, Weights};

/// Item × rater votes over a label set.
#[derive(Debug, Clone, PartialEq)]
pub struct Votes {
    pub labels: Labels,
    /// `items[i][r]`: rater r's label index for item i.
    pub items: Vec<Vec<Option<usize>>>,
}

impl Votes {
    pub fn raters(&self) -> usize {
        self.items.first().map_or(0, Vec::len)
    }
}

/// The label most votes name, when exactly one does (`None` for no vote or a tie for first).
pub fn unique_mode(votes: impl IntoIterator<Item = usize>, k: usize) -> Option<usize> {
    let mut counts = vec![0usize; k];
    for v in votes {
        counts[v] += 1;
    }
    let best = *counts.iter().max()?;
    if best == 0 || counts.iter().filter(|&&c| c == best).count() > 1 {
        return None;
    }
    counts.iter().position(|&c| c == best)
}

/// The label more than half of the votes (present ones) name, if any: the gold label of an
/// item with several annotators.
pub fn majority(votes: &[Option<i64>]) -> Option<i64> {
    let present: Vec<i64> = votes.iter().flatten().copied().collect();
    present
        .iter()
        .copied()
        .find(|v| present.iter().filter(|x| *x == v).count() * 2 > present.len())
}

/// Items grouped by their votes and the judge's rating. Every statistic here depends only on
/// how many items share each pattern, so it is computed once per pattern, and a bootstrap
/// resample is a multinomial draw over the patterns' counts (O(patterns), not O(items)).
#[derive(Debug, Clone)]
struct Patterns {
    labels: Labels,
    raters: usize,
    rows: Vec<(Vec<Option<usize>>, Option<usize>)>,
    counts: Vec<u64>,
}

impl Patterns {
    fn of(votes: &Votes, judge: Option<&[Option<usize>]>) -> Self {
        let mut index: std::collections::HashMap<(Vec<Option<usize>>, Option<usize>), usize> =
            std::collections::HashMap::new();
        let (mut rows, mut counts) = (Vec::new(), Vec::new());
        for (i, item) in votes.items.iter().enumerate() {
            let key = (item.clone(), judge.and_then(|j| j[i]));
            let slot = *index.entry(key.clone()).or_insert_with(|| {
                rows.push(key);
                counts.push(0);
                rows.len() - 1
            });
            counts[slot] += 1;
        }
        Self {
            labels: votes.labels.clone(),
            raters: votes.raters(),
            rows,
            counts,
        }
    }

    fn k(&self) -> usize {
        self.labels.len()
    }

    /// Each pattern's votes per label, with the pattern's weight.
    fn label_counts<'a>(&'a self, w: &'a [u64]) -> impl Iterator<Item = (Vec<u64>, u64)> + 'a {
        self.rows.iter().zip(w).map(|((votes, _), &w)| {
            let mut c = vec![0u64; self.k()];
            for v in votes.iter().flatten() {
                c[*v] += 1;
            }
            (c, w)
        })
    }
}

/// Cohen's kappa from a weighted k × k table of (a, b) pairs.
fn kappa_of(labels: &Labels, pairs: impl Iterator<Item = (usize, usize, u64)>) -> f64 {
    let k = labels.len();
    let mut counts = vec![0u64; k * k];
    for (x, y, w) in pairs {
        counts[x * k + y] += w;
    }
    kappa(
        &Contingency::from_counts(labels.clone(), counts),
        Weights::Unweighted,
    )
}

/// Cohen's kappa between two raters over the items both rated.
pub fn kappa_between(labels: &Labels, a: &[Option<usize>], b: &[Option<usize>]) -> f64 {
    kappa_of(
        labels,
        a.iter().zip(b).filter_map(|(x, y)| Some(((*x)?, (*y)?, 1))),
    )
}

fn pairwise_of(p: &Patterns, w: &[u64]) -> Vec<Vec<f64>> {
    (0..p.raters)
        .map(|a| {
            (0..p.raters)
                .map(|b| {
                    kappa_of(
                        &p.labels,
                        p.rows
                            .iter()
                            .zip(w)
                            .filter_map(|((v, _), &w)| Some((v[a]?, v[b]?, w))),
                    )
                })
                .collect()
        })
        .collect()
}

/// Cohen's kappa for every pair of raters (the diagonal is each rater with itself).
pub fn pairwise_kappa(votes: &Votes) -> Vec<Vec<f64>> {
    let p = Patterns::of(votes, None);
    pairwise_of(&p, &p.counts)
}

/// (observed − expected) / (1 − expected): agreement beyond chance; NaN when chance agreement
/// is total.
fn chance_corrected(observed: f64, expected: f64) -> f64 {
    if 1.0 - expected == 0.0 {
        return f64::NAN;
    }
    (observed - expected) / (1.0 - expected)
}

fn fleiss_of(p: &Patterns, w: &[u64]) -> f64 {
    // statsmodels' formula needs the same number of votes on every item: the items with the
    // most votes any item has (every rater's, when some item has them all; long form's N
    // annotations of whoever made them), over every item, not a resample's.
    let votes_of = |votes: &[Option<usize>]| votes.iter().flatten().count();
    let r = p.rows.iter().map(|(v, _)| votes_of(v)).max().unwrap_or(0);
    if r < 2 {
        return f64::NAN;
    }
    let n = r as f64;
    let mut p_cat = vec![0.0; p.k()];
    let (mut p_mean, mut items) = (0.0, 0.0);
    for ((c, w), (votes, _)) in p.label_counts(w).zip(&p.rows) {
        if w == 0 || votes_of(votes) < r {
            continue;
        }
        let w = w as f64;
        items += w;
        let mut squares = 0.0;
        for (j, &x) in c.iter().enumerate() {
            p_cat[j] += w * x as f64;
            squares += (x * x) as f64;
        }
        p_mean += w * (squares - n) / (n * (n - 1.0));
    }
    if items == 0.0 {
        return f64::NAN;
    }
    p_mean /= items;
    let p_exp: f64 = p_cat
        .iter()
        .map(|x| {
            let q = x / (items * n);
            q * q
        })
        .sum();
    chance_corrected(p_mean, p_exp)
}

/// Fleiss' kappa over the items with the most votes any item has: those every rater rated,
/// when some item has every rater's vote (statsmodels' formula).
pub fn fleiss_kappa(votes: &Votes) -> f64 {
    let p = Patterns::of(votes, None);
    fleiss_of(&p, &p.counts)
}

fn krippendorff_of(p: &Patterns, w: &[u64], ordinal: bool) -> f64 {
    let k = p.k();
    // The coincidence matrix: each unit's ordered pairs of values from different raters,
    // weighted 1 / (m_u - 1).
    let mut o = vec![0.0; k * k];
    let mut pairable = false;
    for (c, w) in p.label_counts(w) {
        let m: u64 = c.iter().sum();
        if m < 2 || w == 0 {
            continue;
        }
        pairable = true;
        let unit = w as f64 / (m - 1) as f64;
        for a in 0..k {
            for b in 0..k {
                let pairs = if a == b {
                    c[a] * c[a].saturating_sub(1)
                } else {
                    c[a] * c[b]
                };
                o[a * k + b] += pairs as f64 * unit;
            }
        }
    }
    if !pairable {
        return f64::NAN;
    }
    let n_v: Vec<f64> = (0..k).map(|b| (0..k).map(|a| o[a * k + b]).sum()).collect();
    let n: f64 = n_v.iter().sum();
    let distance = |a: usize, b: usize| -> f64 {
        if ordinal {
            let (lo, hi) = (a.min(b), a.max(b));
            let between: f64 = n_v[lo..=hi].iter().sum();
            let d = between - (n_v[lo] + n_v[hi]) / 2.0;
            d * d
        } else {
            f64::from(u8::from(a != b))
        }
    };
    let (mut observed, mut expected) = (0.0, 0.0);
    for a in 0..k {
        for b in 0..k {
            let d = distance(a, b);
            observed += o[a * k + b] * d;
            let e = (n_v[a] * n_v[b] - if a == b { n_v[a] } else { 0.0 }) / (n - 1.0);
            expected += e * d;
        }
    }
    if expected == 0.0 {
        return f64::NAN;
    }
    1.0 - observed / expected
}

/// Krippendorff's alpha (nominal, or ordinal over the labels' order).
pub fn krippendorff_alpha(votes: &Votes, ordinal: bool) -> f64 {
    let p = Patterns::of(votes, None);
    krippendorff_of(&p, &p.counts, ordinal)
}

fn gwet_of(p: &Patterns, w: &[u64]) -> f64 {
    let q = p.k() as f64;
    if q < 2.0 {
        return f64::NAN;
    }
    let rated: Vec<(Vec<u64>, u64)> = p
        .label_counts(w)
        .filter(|(c, w)| *w > 0 && c.iter().sum::<u64>() > 0)
        .collect();
    let n: f64 = rated.iter().map(|(_, w)| *w as f64).sum();
    if n == 0.0 {
        return f64::NAN;
    }
    let (mut pa, mut two_or_more) = (0.0, 0.0);
    let mut pi = vec![0.0; p.k()];
    for (c, w) in &rated {
        let w = *w as f64;
        let r: u64 = c.iter().sum();
        if r >= 2 {
            two_or_more += w;
            let agree: u64 = c.iter().map(|&x| x * x.saturating_sub(1)).sum();
            pa += w * agree as f64 / (r * (r - 1)) as f64;
        }
        for (j, &x) in c.iter().enumerate() {
            pi[j] += w * x as f64 / r as f64 / n;
        }
    }
    if two_or_more == 0.0 {
        return f64::NAN;
    }
    pa /= two_or_more;
    let pe = pi.iter().map(|p| p * (1.0 - p)).sum::<f64>() / (q - 1.0);
    chance_corrected(pa, pe)
}

/// Gwet's AC1 (irrCAC's formula: agreement over items with two or more votes, chance from
/// the label shares averaged over every item with a vote, q = the label set's size).
pub fn gwet_ac1(votes: &Votes) -> f64 {
    let p = Patterns::of(votes, None);
    gwet_of(&p, &p.counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn votes(rows: &[[i8; 3]]) -> Votes {
        Votes {
            labels: Labels::pairwise(),
            items: rows
                .iter()
                .map(|r| r.iter().map(|&v| (v >= 0).then_some(v as usize)).collect())
                .collect(),
        }
    }

    #[test]
    fn modes_and_ceilings_by_hand() {
        assert_eq!(unique_mode([0, 2, 2], 3), Some(2));
        assert_eq!(unique_mode([0, 2], 3), None);
        assert_eq!(unique_mode([], 3), None);
        // Labels -1, 0 (tie, index 1), 1.
        let v = votes(&[[0, 0, 0], [0, 0, 2], [0, 1, 2], [2, 2, -1]]);
        let c = ceiling(&v);
        // Leave-one-out: item 1: 3 of 3; item 2: each 0 faces [0, 2] (no unique mode,
        // skipped), the 2 faces [0, 0] (a miss); item 3: no unique mode of the others anywhere;
        // item 4: each 2 against [2]: 2 of 2. 5 of 6.
        assert!((c.leave_one_out - 5.0 / 6.0).abs() < 1e-12, "{c:?}");
        // Per vote: 3 + 1 + 0 + 1 equal pairs of 3 + 3 + 3 + 1.
        assert!((c.per_vote - 5.0 / 10.0).abs() < 1e-12, "{c:?}");
        // Without ties: item 3 keeps one pair (0 vs 2), so 5 of 8.
        assert!((c.per_vote_no_ties - 5.0 / 8.0).abs() < 1e-12, "{c:?}");
        let j = judge_ceiling(&v, &[Some(0), Some(2), Some(1), None]);
        // Modes: 0, 0, none, (skipped: no judge): 1 of 2. Votes: 3 + 1 + 1 of 3 + 3 + 3.
        assert!(
            (j.leave_one_out - 0.5).abs() < 1e-12 && (j.per_vote - 5.0 / 9.0).abs() < 1e-12,
            "{j:?}"
        );
    }

    #[test]
    fn bootstrap_is_seeded_and_brackets_the_estimate() {
        let rows: Vec<[i8; 3]> = (0..60)
            .map(|i| match i % 5 {
                0 => [0, 0, 0],
                1 => [2, 2, 2],
                2 => [0, 2, 0],
                3 => [2, 2, 1],
                _ => [1, 1, -1],
            })
            .collect();
        let v = votes(&rows);
        let judge: Vec<Option<usize>> = (0..60).map(|i| Some([0, 2, 0, 2, 1][i % 5])).collect();
        let a = bootstrap_panel(&v, Some(&judge), crate::metrics::Resampling::at95(200, 3));
        assert_eq!(
            a,
            bootstrap_panel(&v, Some(&judge), crate::metrics::Resampling::at95(200, 3))
        );
        let flat = Panel::of(&v, Some(&judge)).flat();
        assert_eq!(flat.len(), 7 + 9 + 3 + 3);
        assert_eq!(a.len(), flat.len());
        for (i, (value, (lo, hi))) in flat.iter().zip(&a).enumerate() {
            assert!(
                lo <= value && value <= hi,
                "figure {i}: {value} not in [{lo}, {hi}]"
            );
        }
    }
}
