//! Conversations by depth: the items grouped by how many user turns lead up to the judged
//! reply, each group scored as a scope of its own (accuracy, kappa, their intervals, and the
//! bias diagnostics, whose length is the final replies' alone).

/// The buckets of depths, in order: 1, 2, 3, 4–5, 6–9 and 10 or more user turns.
const BUCKETS: [(u32, u32, &str); 6] = [
    (1, 1, "1"),
    (2, 2, "2"),
    (3, 3, "3"),
    (4, 5, "4–5"),
    (6, 9, "6–9"),
    (10, u32::MAX, "10+"),
];

/// The items of each non-empty bucket, named by its depths (none without depths).
pub fn buckets(depths: &[u32]) -> Vec<(String, Vec<usize>)> {
    BUCKETS
        .iter()
        .filter_map(|&(lo, hi, name)| {
            let idx: Vec<usize> = (0..depths.len())
                .filter(|&i| (lo..=hi).contains(&depths[i]))
                .collect();
            (!idx.is_empty()).then(|| (name.to_string(), idx))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depths_fall_in_their_buckets() {
        let b = buckets(&[1, 2, 2, 5, 12, 1, 4]);
        let names: Vec<&str> = b.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["1", "2", "4–5", "10+"]);
        assert_eq!(b[0].1, [0, 5]);
        assert_eq!(b[2].1, [3, 6]);
        assert!(buckets(&[]).is_empty());
    }
}
