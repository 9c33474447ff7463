//! Examples as the judge sees them: positions drawn per pair from the seed and its id.

use super::pairs::Pair;
use super::select::stable_hash;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The default `--seed`.
pub const DEFAULT_SEED: u64 = 42;

/// Which order a pair is shown in, relative to its source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// The source's first response (reward-bench: chosen) is response 1.
    AsSource,
    /// Swapped: the source's first response is response 2.
    Swapped,
}

impl Order {
    pub fn key(self) -> &'static str {
        match self {
            Order::AsSource => "as-source",
            Order::Swapped => "swapped",
        }
    }
}

/// One item to rate. `gold`: -1 response 1 better, 0 tie, 1 response 2 better.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Example {
    /// Unique item id: the pair id, suffixed `#ab`/`#ba` when both orders are shown.
    pub id: String,
    pub pair_id: String,
    pub subset: String,
    pub prompt: String,
    pub response1: String,
    pub response2: String,
    /// A ranking item's further responses (shown as C, D); empty for a pair.
    pub more: Vec<String>,
    /// Pairs: -1 (response 1 better), 0, 1. Ranking items: the slot of the correct response
    /// (0 for A). `None`: the data gives no label (rated and kept, in no agreement measure).
    pub gold: Option<i64>,
    pub order: Order,
    /// The pair's reference answer, if the data has one.
    pub reference: Option<String>,
    /// Whether this is the order drawn for the pair without `--both-orders` (its seeded
    /// position); always true in a one-order run.
    pub seeded: bool,
    /// Each annotator's label in this order (flipped with gold when swapped; `None`: that
    /// annotator gave none, as in a label store); empty without several annotators.
    pub votes: Vec<Option<i64>>,
    /// The pair's `vote_order` (long form by annotator).
    pub vote_order: Vec<usize>,
    /// The models that wrote response 1 and response 2 as shown, when the data says.
    pub generators: Option<[String; 2]>,
    /// A conversation's turns before `prompt` (the same in either order; empty for a single
    /// turn).
    pub history: std::sync::Arc<[super::conversation::Turn]>,
}

impl Example {
    /// Its two responses in the data's order (as the pair was loaded, before positions).
    pub fn in_source_order(&self) -> [&str; 2] {
        match self.order {
            Order::AsSource => [&self.response1, &self.response2],
            Order::Swapped => [&self.response2, &self.response1],
        }
    }

    /// Its content id (`pairs::content_hash` of its turns, prompt and responses in the data's
    /// order): the same whatever the file's name, shape or id column.
    pub fn content_id(&self) -> String {
        let [first, second] = self.in_source_order();
        super::pairs::content_hash(&self.history, &self.prompt, first, second)
    }

    /// A label in the data's order, in this item's order.
    pub fn shown(&self, label: i64) -> i64 {
        match self.order {
            Order::AsSource => label,
            Order::Swapped => -label,
        }
    }
}

/// Whether pair `id` is shown swapped under `seed`: a ChaCha8 draw seeded from the seed and
/// the id alone, so selecting or dropping other pairs never moves this one.
pub fn is_swapped(seed: u64, id: &str) -> bool {
    let mut rng = ChaCha8Rng::seed_from_u64(stable_hash(&[
        b"position",
        &seed.to_le_bytes(),
        id.as_bytes(),
    ]));
    rng.random_bool(0.5)
}

/// An item from a pair, taking its texts (no copy).
fn example(pair: Pair, order: Order, id: String, seeded: bool) -> Example {
    let (response1, response2, gold, votes, generators) = match order {
        Order::AsSource => (
            pair.first,
            pair.second,
            pair.gold,
            pair.votes,
            pair.generators,
        ),
        Order::Swapped => (
            pair.second,
            pair.first,
            pair.gold.map(|g| -g),
            pair.votes.iter().map(|v| v.map(|v| -v)).collect(),
            pair.generators.map(|[a, b]| [b, a]),
        ),
    };
    Example {
        id,
        history: pair.history.into(),
        pair_id: pair.id,
        subset: pair.subset,
        prompt: pair.prompt,
        response1,
        response2,
        more: Vec::new(),
        gold,
        order,
        reference: pair.reference,
        seeded,
        votes,
        vote_order: pair.vote_order,
        generators,
    }
}

/// Builds the items: one per pair (positions drawn for pairs that allow it), or two per pair
/// with `both_orders`. Consumes the pairs, so one order costs no copy of the texts.
pub fn build(pairs: Vec<Pair>, seed: u64, both_orders: bool) -> Vec<Example> {
    let mut out = Vec::with_capacity(pairs.len() * if both_orders { 2 } else { 1 });
    for pair in pairs {
        let drawn = if pair.randomize && is_swapped(seed, &pair.id) {
            Order::Swapped
        } else {
            Order::AsSource
        };
        if both_orders {
            let (ab, ba) = (format!("{}#ab", pair.id), format!("{}#ba", pair.id));
            let swapped_drawn = drawn == Order::Swapped;
            out.push(example(pair.clone(), Order::AsSource, ab, !swapped_drawn));
            out.push(example(pair, Order::Swapped, ba, swapped_drawn));
        } else {
            let id = pair.id.clone();
            out.push(example(pair, drawn, id, true));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(id: &str) -> Pair {
        Pair {
            id: id.into(),
            subset: "s".into(),
            prompt: "p".into(),
            first: "good".into(),
            second: "bad".into(),
            gold: Some(-1),
            reference: None,
            randomize: true,
            votes: Vec::new(),
            vote_order: Vec::new(),
            generators: None,
            history: Vec::new(),
        }
    }

    #[test]
    fn positions_depend_only_on_seed_and_id() {
        let pairs: Vec<Pair> = (0..200).map(|i| pair(&format!("s-{i}"))).collect();
        let all = build(pairs.clone(), 7, false);
        let some = build(pairs[50..60].to_vec(), 7, false);
        assert_eq!(&all[50..60], &some[..]);
        let swapped = all.iter().filter(|e| e.order == Order::Swapped).count();
        assert!((70..130).contains(&swapped), "{swapped} of 200 swapped");
        for e in &all {
            let chosen_first = e.response1 == "good";
            assert_eq!(e.gold, Some(if chosen_first { -1 } else { 1 }));
        }
        assert_ne!(all, build(pairs, 8, false));
    }

    #[test]
    fn both_orders_gives_two_items_per_pair() {
        let items = build(vec![pair("s-1")], 0, true);
        assert_eq!(items.len(), 2);
        assert_eq!((items[0].id.as_str(), items[0].gold), ("s-1#ab", Some(-1)));
        assert_eq!((items[1].id.as_str(), items[1].gold), ("s-1#ba", Some(1)));
        assert_eq!(items[1].response1, "bad");
        // Exactly one of the two is the order a one-order run shows.
        assert!(items[0].seeded != items[1].seeded);
        assert_eq!(items[1].seeded, is_swapped(0, "s-1"));
    }

    #[test]
    fn given_positions_are_kept() {
        let mut p = pair("s-2");
        p.randomize = false;
        p.gold = Some(0);
        let items = build(vec![p], 3, false);
        assert_eq!((items[0].order, items[0].gold), (Order::AsSource, Some(0)));
    }
}
