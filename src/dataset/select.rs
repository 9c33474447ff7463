//! Choosing pairs: subset globs, sections, a seeded stratified limit, a per-subset cap.

use super::pairs::Pair;
use super::sections::{section_of, Section};
use crate::error::input_error;
use anyhow::Result;
use std::collections::BTreeMap;

/// What to keep.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Subset globs (`*`, `?`); a pair is kept when any matches. Empty keeps all.
    pub subsets: Vec<String>,
    pub sections: Vec<Section>,
    /// At most this many pairs in all, spread over subsets in proportion to their size.
    pub limit: Option<usize>,
    /// At most this many pairs from each subset.
    pub per_subset: Option<usize>,
    pub seed: u64,
}

/// What selection reads of an item: its subset and its unique id.
pub trait Selectable {
    fn subset(&self) -> &str;
    fn id(&self) -> &str;
}

impl Selectable for Pair {
    fn subset(&self) -> &str {
        &self.subset
    }
    fn id(&self) -> &str {
        &self.id
    }
}

/// `*` matches any run of characters, `?` any one character.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// FNV-1a, 64 bits: a portable, stable hash of text (Rust's own hasher may change).
pub fn stable_hash(parts: &[&[u8]]) -> u64 {
    crate::metrics::random::key_of(parts)
}

/// Largest-remainder shares of `limit` over groups of these sizes, at least one each when the
/// limit allows, never more than a group has.
fn proportional(sizes: &[usize], limit: usize) -> Vec<usize> {
    let total: usize = sizes.iter().sum();
    if limit >= total {
        return sizes.to_vec();
    }
    let mut take: Vec<usize> = sizes.iter().map(|&s| s * limit / total).collect();
    if limit >= sizes.len() {
        for (t, &s) in take.iter_mut().zip(sizes) {
            if *t == 0 && s > 0 {
                *t = 1;
            }
        }
    }
    // Hand out what is left by largest remainder, or take back from the largest shares.
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse((sizes[i] * limit) % total.max(1)));
    while take.iter().sum::<usize>() < limit {
        let before = take.iter().sum::<usize>();
        for &i in &order {
            if take.iter().sum::<usize>() < limit && take[i] < sizes[i] {
                take[i] += 1;
            }
        }
        if take.iter().sum::<usize>() == before {
            break;
        }
    }
    while take.iter().sum::<usize>() > limit {
        let largest = (0..take.len()).max_by_key(|&i| take[i]).unwrap_or(0);
        take[largest] -= 1;
    }
    take
}

impl Selection {
    /// Applies the selection. Order within the result follows the input order.
    pub fn apply<T: Selectable>(&self, pairs: Vec<T>) -> Result<Vec<T>> {
        if self.limit == Some(0) {
            return Err(input_error(
                "--limit 0 selects nothing; give a positive number of pairs",
            ));
        }
        if self.per_subset == Some(0) {
            return Err(input_error(
                "--per-subset 0 selects nothing; give a positive number of pairs",
            ));
        }
        let known: Vec<&str> = {
            let mut names: Vec<&str> = pairs.iter().map(|p| p.subset()).collect();
            names.sort_unstable();
            names.dedup();
            names
        };
        for pattern in &self.subsets {
            if !known.iter().any(|s| glob_match(pattern, s)) {
                return Err(input_error(format!(
                    "--subset '{pattern}' matches no subset of the data (subsets: {}); check the name or use a glob such as 'llmbar-*'",
                    known.join(", ")
                )));
            }
        }
        let keep = |p: &T| {
            (self.subsets.is_empty() || self.subsets.iter().any(|g| glob_match(g, p.subset())))
                && (self.sections.is_empty()
                    || section_of(p.subset()).is_some_and(|s| self.sections.contains(&s)))
        };
        let mut kept: Vec<T> = pairs.into_iter().filter(keep).collect();
        if kept.is_empty() {
            return Err(input_error(
                "the selection keeps no pair; loosen --subset/--section",
            ));
        }
        if self.limit.is_none() && self.per_subset.is_none() {
            return Ok(kept);
        }
        // Within each subset, a seeded order that depends only on the seed and the pair id.
        let seed = self.seed.to_le_bytes();
        let rank = |p: &T| stable_hash(&[b"sample", &seed, p.id().as_bytes()]);
        let mut by_subset: BTreeMap<&str, Vec<(u64, usize)>> = BTreeMap::new();
        for (i, p) in kept.iter().enumerate() {
            by_subset.entry(p.subset()).or_default().push((rank(p), i));
        }
        for members in by_subset.values_mut() {
            members.sort_unstable();
            if let Some(cap) = self.per_subset {
                members.truncate(cap);
            }
        }
        if let Some(limit) = self.limit {
            let sizes: Vec<usize> = by_subset.values().map(Vec::len).collect();
            for (members, take) in by_subset.values_mut().zip(proportional(&sizes, limit)) {
                members.truncate(take);
            }
        }
        let mut chosen = vec![false; kept.len()];
        for members in by_subset.values() {
            for &(_, i) in members {
                chosen[i] = true;
            }
        }
        let mut flags = chosen.into_iter();
        kept.retain(|_| flags.next().unwrap_or(false));
        Ok(kept)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("llmbar-*", "llmbar-adver-neighbor"));
        assert!(glob_match("*hard", "mt-bench-hard"));
        assert!(glob_match("hep-?o", "hep-go"));
        assert!(!glob_match("hep-?o", "hep-cpp"));
        assert!(glob_match("*", ""));
        assert!(!glob_match("a*b", "acbd"));
        assert!(glob_match("a*b*", "acbd"));
    }

    #[test]
    fn proportional_shares() {
        assert_eq!(proportional(&[100, 50, 10], 16), vec![10, 5, 1]);
        assert_eq!(proportional(&[1000, 1, 1], 3), vec![1, 1, 1]);
        assert_eq!(proportional(&[5, 5], 100), vec![5, 5]);
        assert_eq!(proportional(&[3, 3, 3], 2).iter().sum::<usize>(), 2);
        assert_eq!(proportional(&[10, 3], 12), vec![9, 3]);
    }

    #[test]
    fn hash_is_stable() {
        // Pinned: positions and samples must not change across versions or platforms.
        assert_eq!(
            stable_hash(&[b"abc"]),
            18_165_309_246_051_714_780,
            "if this fails, every seeded draw changed"
        );
    }
}
