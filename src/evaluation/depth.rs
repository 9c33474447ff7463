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
    use crate::evaluation::record::fixtures::{config, item};
    use crate::evaluation::{EvalSettings, Outcome, RunRecord};

    #[test]
    fn conversations_are_scored_by_depth_and_single_turns_are_not() {
        assert_eq!(Depths::of(vec![1, 1, 1]), None);
        let gold = [-1, 1, 1, -1, 1, -1];
        let rated = [-1, 1, -1, -1, 1, 1];
        let mut run = RunRecord {
            labels: crate::metrics::Labels::pairwise(),
            inputs: Default::default(),
            items: gold.iter().enumerate().map(|(i, &g)| item(i, g)).collect(),
            configs: vec![config(
                "c",
                rated.iter().map(|&r| Outcome::Rated(r)).collect(),
            )],
            both_orders: false,
            annotators: None,
            shapes: Vec::new(),
            generators: None,
        };
        let analytics: &[&dyn Analytic] = &[&DepthAnalytic];
        let settings = EvalSettings::new(0, 0);
        let flat = crate::evaluation::evaluate(&run, settings.clone(), analytics);
        assert!(flat.configs[0].grouped.is_empty());
        let depths = Depths::of(vec![1, 1, 2, 2, 5, 12]).expect("conversations");
        run.inputs.put(Box::new(depths));
        let e = crate::evaluation::evaluate(&run, settings, analytics);
        let g = &e.configs[0].grouped[0];
        assert_eq!((g.key, g.prefix), ("by_depth", "depth:"));
        let names: Vec<&str> = g.scopes.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["1", "2", "4–5", "10+"]);
        // Each bucket is a scope of its items: depth 2 holds items 2 (wrong) and 3 (right).
        let two = &g.scopes[1].1;
        let accuracy = two.agreement.get(crate::metrics::Statistic::Accuracy);
        assert_eq!((two.counts.examples, accuracy), (2, 0.5));
    }

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
