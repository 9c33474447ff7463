//! Conversations by depth: the items grouped by how many user turns lead up to the judged
//! reply, each group scored as a scope of its own (accuracy, kappa, their intervals, and the
//! bias diagnostics, whose length is the final replies' alone). Its input is each item's
//! depth (`Depths`, which the record of a run over conversations carries).

use super::analytic::{Analytic, Context, Grouping};

/// Each item's depth, the user turns up to the judged reply (1 for a single turn): the
/// record's input when some item is a conversation of more than one turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Depths(pub Vec<u32>);

impl Depths {
    /// The depths as an input: None when every item is single-turn.
    pub fn of(depths: Vec<u32>) -> Option<Depths> {
        depths.iter().any(|&d| d != 1).then_some(Depths(depths))
    }
}

/// Where its scopes go: `configs[i].by_depth` in `--json`, `depth:<bucket>` in metrics.csv.
pub const KEY: &str = "by_depth";

/// The depth analytic: the items in its buckets, each a scope of every configuration.
#[derive(Debug)]
pub struct DepthAnalytic;

impl Analytic for DepthAnalytic {
    fn grouping(&self, cx: &Context) -> Option<Grouping> {
        let Depths(depths) = cx.run.inputs.get::<Depths>()?;
        Some(Grouping {
            key: KEY,
            prefix: "depth:",
            groups: buckets(depths),
        })
    }
}

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
