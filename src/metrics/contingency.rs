//! Label sets and the k×k contingency table (rows: gold, columns: rating, in label order).

use std::fmt;

/// Which of the two aligned lists a value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Gold,
    Rating,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Gold => "gold",
            Side::Rating => "rating",
        })
    }
}

/// Why two label lists cannot be tabulated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LabelError {
    #[error("the label set is empty")]
    EmptyLabels,
    #[error("the lists differ in length: {gold} gold labels, {rating} ratings")]
    LengthMismatch { gold: usize, rating: usize },
    #[error("{side} label {value} at position {index} is not in the label set {labels}")]
    OutsideLabels {
        side: Side,
        index: usize,
        value: i64,
        labels: Labels,
    },
}

/// A sorted, duplicate-free, non-empty set of integer labels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Labels(Vec<i64>);

/// The pairwise-preference labels: -1 (response 1 better), 0 (tie), 1 (response 2 better).
pub const PAIRWISE: [i64; 3] = [-1, 0, 1];

impl Labels {
    pub fn new(mut values: Vec<i64>) -> Result<Self, LabelError> {
        values.sort_unstable();
        values.dedup();
        if values.is_empty() {
            return Err(LabelError::EmptyLabels);
        }
        Ok(Self(values))
    }

    /// The default label set: `[-1, 0, 1]` when every value lies in it, else the sorted union.
    pub fn infer(gold: &[i64], rating: &[i64]) -> Self {
        Self::infer_from(gold.iter().chain(rating).copied())
    }

    /// `infer` on the values as they come (gold's and ratings' alike), with no list of them
    /// kept while they are few.
    pub fn infer_from(values: impl Iterator<Item = i64>) -> Self {
        let mut seen: Vec<i64> = Vec::new();
        let mut many: Option<std::collections::BTreeSet<i64>> = None;
        for v in values {
            if let Some(set) = many.as_mut() {
                set.insert(v);
            } else if !seen.contains(&v) {
                seen.push(v);
                if seen.len() > 64 {
                    // Many distinct values: a sorted set of the union.
                    many = Some(seen.drain(..).collect());
                }
            }
        }
        if let Some(set) = many {
            return Self(set.into_iter().collect());
        }
        if seen.iter().all(|v| PAIRWISE.contains(v)) {
            return Self(PAIRWISE.to_vec());
        }
        seen.sort_unstable();
        Self(seen)
    }

    pub fn pairwise() -> Self {
        Self(PAIRWISE.to_vec())
    }

    pub fn as_slice(&self) -> &[i64] {
        &self.0
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// True for the pairwise-preference label set `[-1, 0, 1]`.
    pub fn is_pairwise(&self) -> bool {
        self.0 == PAIRWISE
    }

    /// True when every label is a pairwise preference (-1, 0, 1; a subset such as `[-1, 1]`
    /// too): what the pairwise analytics read.
    pub fn fits_pairwise(&self) -> bool {
        self.0.iter().all(|l| PAIRWISE.contains(l))
    }

    pub fn contains(&self, value: i64) -> bool {
        self.0.binary_search(&value).is_ok()
    }

    /// Position of the tie label 0, when the set has one.
    pub fn tie_index(&self) -> Option<usize> {
        self.0.binary_search(&0).ok()
    }

    fn indexer(&self) -> Indexer {
        let (lo, hi) = (self.0[0], self.0[self.0.len() - 1]);
        match hi.checked_sub(lo) {
            Some(span) if span < 4096 => {
                let mut slots = vec![u32::MAX; span as usize + 1];
                for (i, &v) in self.0.iter().enumerate() {
                    slots[(v - lo) as usize] = i as u32;
                }
                Indexer::Dense { lo, slots }
            }
            _ => Indexer::Sparse(self.0.clone()),
        }
    }
}

impl fmt::Display for Labels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.0.iter().map(i64::to_string).collect();
        write!(f, "[{}]", parts.join(", "))
    }
}

/// Maps a label value to its index in O(1) for compact label ranges.
enum Indexer {
    Dense { lo: i64, slots: Vec<u32> },
    Sparse(Vec<i64>),
}

impl Indexer {
    #[inline]
    fn index(&self, value: i64) -> Option<usize> {
        match self {
            Indexer::Dense { lo, slots } => {
                let offset = value.checked_sub(*lo)?;
                let slot = *slots.get(usize::try_from(offset).ok()?)?;
                (slot != u32::MAX).then_some(slot as usize)
            }
            Indexer::Sparse(values) => values.binary_search(&value).ok(),
        }
    }
}

/// Counts of (gold, rating) label pairs: `count(i, j)` pairs have gold `labels[i]` and rating
/// `labels[j]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contingency {
    labels: Labels,
    counts: Vec<u64>,
}

impl Contingency {
    /// Tabulates two aligned lists in one pass.
    pub fn from_pairs(labels: &Labels, gold: &[i64], rating: &[i64]) -> Result<Self, LabelError> {
        if gold.len() != rating.len() {
            return Err(LabelError::LengthMismatch {
                gold: gold.len(),
                rating: rating.len(),
            });
        }
        Self::tabulate(labels, gold.iter().copied().zip(rating.iter().copied()))
    }

    /// Tabulates (gold, rating) pairs as they come, with no list of them kept.
    pub fn tabulate(
        labels: &Labels,
        pairs: impl IntoIterator<Item = (i64, i64)>,
    ) -> Result<Self, LabelError> {
        let k = labels.len();
        let indexer = labels.indexer();
        let mut counts = vec![0u64; k * k];
        let outside = |side, index, value| LabelError::OutsideLabels {
            side,
            index,
            value,
            labels: labels.clone(),
        };
        for (index, (g, r)) in pairs.into_iter().enumerate() {
            let gi = indexer
                .index(g)
                .ok_or_else(|| outside(Side::Gold, index, g))?;
            let ri = indexer
                .index(r)
                .ok_or_else(|| outside(Side::Rating, index, r))?;
            counts[gi * k + ri] += 1;
        }
        Ok(Self {
            labels: labels.clone(),
            counts,
        })
    }

    /// A table from counts given row by row (gold) in label order.
    pub fn from_counts(labels: Labels, counts: Vec<u64>) -> Self {
        assert_eq!(counts.len(), labels.len() * labels.len(), "k×k counts");
        Self { labels, counts }
    }

    /// The same labels with other counts (a bootstrap resample).
    pub(crate) fn with_counts(&self, counts: Vec<u64>) -> Self {
        Self::from_counts(self.labels.clone(), counts)
    }

    pub fn labels(&self) -> &Labels {
        &self.labels
    }

    pub fn k(&self) -> usize {
        self.labels.len()
    }

    pub fn count(&self, gold: usize, rating: usize) -> u64 {
        self.counts[gold * self.k() + rating]
    }

    /// All counts, row by row.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// The matrix as rows (gold) of columns (rating).
    pub fn rows(&self) -> Vec<Vec<u64>> {
        self.counts.chunks(self.k()).map(<[u64]>::to_vec).collect()
    }

    pub fn n(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Row sums: how often each gold label occurs.
    pub fn gold_margins(&self) -> Vec<u64> {
        self.counts
            .chunks(self.k())
            .map(|r| r.iter().sum())
            .collect()
    }

    /// Column sums: how often each rating label occurs.
    pub fn rating_margins(&self) -> Vec<u64> {
        let k = self.k();
        (0..k)
            .map(|j| (0..k).map(|i| self.counts[i * k + j]).sum())
            .collect()
    }

    pub fn diagonal(&self) -> u64 {
        (0..self.k()).map(|i| self.count(i, i)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn infer_uses_pairwise_set_when_values_fit() {
        assert_eq!(Labels::infer(&[-1, 1], &[1, 1]).as_slice(), &[-1, 0, 1]);
        assert_eq!(Labels::infer(&[1, 5], &[3, 2]).as_slice(), &[1, 2, 3, 5]);
        assert_eq!(Labels::infer(&[0, 2], &[1]).as_slice(), &[0, 1, 2]);
    }

    #[test]
    fn infer_many_distinct_values() {
        let gold: Vec<i64> = (0..200).rev().collect();
        let labels = Labels::infer(&gold, &[7]);
        assert_eq!(labels.len(), 200);
        assert_eq!(labels.as_slice()[0], 0);
    }

    #[test]
    fn tabulates_rows_gold_columns_rating() {
        let t = Contingency::from_pairs(&Labels::pairwise(), &[-1, -1, 1, 1], &[-1, 0, 1, -1])
            .expect("labels fit");
        assert_eq!(t.rows(), vec![vec![1, 1, 0], vec![0, 0, 0], vec![1, 0, 1]]);
        assert_eq!(t.gold_margins(), vec![2, 0, 2]);
        assert_eq!(t.rating_margins(), vec![2, 1, 1]);
        assert_eq!(t.diagonal(), 2);
    }

    #[test]
    fn rejects_values_outside_the_label_set() {
        let err = Contingency::from_pairs(&Labels::pairwise(), &[-1, 1], &[1, 2])
            .expect_err("2 is outside");
        assert_eq!(
            err.to_string(),
            "rating label 2 at position 1 is not in the label set [-1, 0, 1]"
        );
        let sparse = Labels::new(vec![-1_000_000, 1_000_000]).expect("non-empty");
        assert!(Contingency::from_pairs(&sparse, &[5], &[5]).is_err());
        assert!(Contingency::from_pairs(&sparse, &[i64::MIN], &[1_000_000]).is_err());
        assert!(Contingency::from_pairs(&sparse, &[1_000_000], &[-1_000_000]).is_ok());
    }

    #[test]
    fn rejects_lists_of_different_length() {
        assert_eq!(
            Contingency::from_pairs(&Labels::pairwise(), &[1], &[]),
            Err(LabelError::LengthMismatch { gold: 1, rating: 0 })
        );
    }
}
