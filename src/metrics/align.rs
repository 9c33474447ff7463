//! Aligning two id → label maps; a rating without a gold label is kept as unlabelled.

use std::collections::HashMap;
use std::hash::Hash;

/// Labels of the ids both sides have, in sorted id order, and what only one side has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Aligned<K> {
    pub ids: Vec<K>,
    pub gold: Vec<i64>,
    pub rating: Vec<i64>,
    pub only_in_gold: usize,
    pub only_in_ratings: usize,
    /// The ratings of the ids without a gold label, in sorted id order.
    pub unlabelled: Vec<i64>,
}

/// Joins two (id, label) lists on the sorted intersection of their ids. Ids are assumed
/// unique on each side (the loaders check it).
pub fn align<K: Ord + Hash + Clone>(gold: &[(K, i64)], ratings: &[(K, i64)]) -> Aligned<K> {
    let by_id: HashMap<&K, i64> = ratings.iter().map(|(k, v)| (k, *v)).collect();
    let golds: std::collections::HashSet<&K> = gold.iter().map(|(k, _)| k).collect();
    let mut unlabelled: Vec<(&K, i64)> = ratings
        .iter()
        .filter(|(k, _)| !golds.contains(k))
        .map(|(k, v)| (k, *v))
        .collect();
    unlabelled.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut joined: Vec<(&K, i64, i64)> = gold
        .iter()
        .filter_map(|(k, g)| by_id.get(k).map(|r| (k, *g, *r)))
        .collect();
    joined.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let both = joined.len();
    Aligned {
        ids: joined.iter().map(|j| j.0.clone()).collect(),
        gold: joined.iter().map(|j| j.1).collect(),
        rating: joined.iter().map(|j| j.2).collect(),
        only_in_gold: gold.len() - both,
        only_in_ratings: ratings.len() - both,
        unlabelled: unlabelled.into_iter().map(|(_, v)| v).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_intersection_and_leftovers() {
        let gold = vec![("c", 1), ("a", -1), ("b", 1), ("x", 0)];
        let ratings = vec![("b", 0), ("a", -1), ("c", 1), ("y", 1), ("z", 1)];
        let aligned = align(&gold, &ratings);
        assert_eq!(aligned.ids, vec!["a", "b", "c"]);
        assert_eq!(aligned.gold, vec![-1, 1, 1]);
        assert_eq!(aligned.rating, vec![-1, 0, 1]);
        assert_eq!((aligned.only_in_gold, aligned.only_in_ratings), (1, 2));
        // The ratings without a gold label are kept, in id order.
        assert_eq!(aligned.unlabelled, vec![1, 1]);
    }
}
