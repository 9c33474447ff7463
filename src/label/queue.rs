//! Which item an annotator sees next, and which response is shown first (pure).
//!
//! The items are put in one seeded order (each item's place drawn from the seed and its id
//! alone, so adding or dropping items moves no other). An annotator is shown, in that order:
//! the items that still lack `overlap` labels and that no one else has open, then those that
//! someone else has open, then the items that have their labels already (more overlap), and
//! last the items they skipped. Which response comes first is drawn per annotator and item
//! from the seed, so the humans' position bias can be measured as a judge's is.

use super::{current, Event, EventKind, Label, ShownFirst};
use crate::dataset::select::stable_hash;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{HashMap, HashSet};

/// What the page shows of the labels so far beside the item: the corrected estimate as labels
/// arrive (`--stop-at`), or where PAC labelling stands.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Status {
    /// What is being done, e.g. "PAC labelling: round 2 of 2".
    pub stage: String,
    /// One line: the estimate and its interval, the round's progress, the verdict.
    pub text: String,
    /// The estimate and its interval `[estimate, low, high]`, when one is made.
    pub interval: Option<[f64; 3]>,
    /// The target width (`--stop-at`).
    pub target: Option<f64>,
    /// Enough labels: the interval is at most the target wide, or the guarantee holds. The
    /// page stays usable after.
    pub enough: bool,
}

/// Which items are asked now, from every event so far, and what the page says of them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stage {
    /// Only these items (None: all).
    pub asked: Option<HashSet<String>>,
    pub status: Option<Status>,
    /// Decisions taken now from the labels, to record in the store: (kind, detail as JSON).
    pub decided: Vec<(String, String)>,
}

/// The rule that decides which items are asked (random, PAC, active: made by the command,
/// which knows the judge).
pub trait Asks: Send + Sync + std::fmt::Debug {
    fn stage(&self, events: &[Event]) -> Stage;
}

/// Every item, nothing said beside them.
#[derive(Debug, Clone, Copy, Default)]
pub struct Everything;

impl Asks for Everything {
    fn stage(&self, _events: &[Event]) -> Stage {
        Stage::default()
    }
}

/// The items in the order they are offered.
#[derive(Debug, Clone)]
pub struct Queue {
    /// Item ids in queue order.
    pub ids: Vec<String>,
    pub seed: u64,
    /// How many annotators each item needs.
    pub overlap: usize,
}

/// Where an annotator stands.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Progress {
    pub total: usize,
    /// Items this annotator has labelled.
    pub labelled: usize,
    pub left: usize,
    /// Items with at least `overlap` labels, from anyone.
    pub complete: usize,
    /// Mean seconds per label of this annotator (None before the first).
    pub seconds_per_item: Option<f64>,
}

impl Queue {
    /// The items of `ids` (in any order) in the seeded queue order.
    pub fn new(ids: Vec<String>, seed: u64, overlap: usize) -> Self {
        let mut keyed: Vec<(u64, String)> = ids
            .into_iter()
            .map(|id| {
                (
                    stable_hash(&[b"label-queue", &seed.to_le_bytes(), id.as_bytes()]),
                    id,
                )
            })
            .collect();
        keyed.sort();
        Self {
            ids: keyed.into_iter().map(|(_, id)| id).collect(),
            seed,
            overlap: overlap.max(1),
        }
    }

    /// This queue kept to the items `asked` (None: all), in the same order.
    pub fn only(&self, asked: Option<&HashSet<String>>) -> std::borrow::Cow<'_, Queue> {
        match asked {
            None => std::borrow::Cow::Borrowed(self),
            Some(set) => std::borrow::Cow::Owned(Queue {
                ids: self
                    .ids
                    .iter()
                    .filter(|id| set.contains(*id))
                    .cloned()
                    .collect(),
                seed: self.seed,
                overlap: self.overlap,
            }),
        }
    }

    /// Which response `annotator` sees first on item `id`.
    pub fn shown_first(&self, annotator: &str, id: &str) -> ShownFirst {
        let mut rng = ChaCha8Rng::seed_from_u64(stable_hash(&[
            b"label-shown",
            &self.seed.to_le_bytes(),
            annotator.as_bytes(),
            id.as_bytes(),
        ]));
        if rng.random_bool(0.5) {
            ShownFirst::Response2
        } else {
            ShownFirst::Response1
        }
    }

    /// The queue position of the next item for `annotator` (None: every item labelled).
    /// `open`: the items other annotators have open now.
    pub fn next(&self, annotator: &str, events: &[Event], open: &HashSet<&str>) -> Option<usize> {
        let labels = current(events);
        let counts = counts(&labels);
        let mine: HashSet<&str> = labels
            .iter()
            .filter(|l| l.annotator == annotator)
            .map(|l| l.item_id.as_str())
            .collect();
        let skipped: HashSet<&str> = events
            .iter()
            .filter(|e| e.kind == EventKind::Skip && e.annotator == annotator)
            .map(|e| e.item_id.as_str())
            .collect();
        let tier = |id: &str| -> Option<u8> {
            if mine.contains(id) {
                return None;
            }
            let full = counts.get(id).copied().unwrap_or(0) >= self.overlap;
            Some(if skipped.contains(id) {
                3
            } else if full {
                2
            } else if open.contains(id) {
                1
            } else {
                0
            })
        };
        self.ids
            .iter()
            .enumerate()
            .filter_map(|(k, id)| tier(id).map(|t| (t, k)))
            .min()
            .map(|(_, k)| k)
    }

    /// Where `annotator` stands on these items.
    pub fn progress(&self, annotator: &str, events: &[Event]) -> Progress {
        let labels = current(events);
        let ids: HashSet<&str> = self.ids.iter().map(String::as_str).collect();
        let mine: Vec<&Label> = labels
            .iter()
            .filter(|l| l.annotator == annotator && ids.contains(l.item_id.as_str()))
            .collect();
        let complete = counts(&labels)
            .iter()
            .filter(|(id, &c)| ids.contains(*id) && c >= self.overlap)
            .count();
        Progress {
            total: self.ids.len(),
            labelled: mine.len(),
            left: self.ids.len() - mine.len(),
            complete,
            seconds_per_item: (!mine.is_empty())
                .then(|| mine.iter().map(|l| l.seconds).sum::<f64>() / mine.len() as f64),
        }
    }
}

/// How many annotators labelled each item.
fn counts(labels: &[Label]) -> HashMap<&str, usize> {
    let mut out = HashMap::new();
    for l in labels {
        *out.entry(l.item_id.as_str()).or_insert(0) += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(id: i64, item: &str, who: &str) -> Event {
        Event {
            id,
            kind: EventKind::Label,
            item_id: item.into(),
            annotator: who.into(),
            label: Some(1),
            shown_first: Some(ShownFirst::Response1),
            seconds: Some(4.0),
            at_ms: id,
            note: None,
            undoes: None,
        }
    }

    fn ids(n: usize) -> Vec<String> {
        (0..n).map(|k| format!("item{k}")).collect()
    }

    #[test]
    fn the_order_is_seeded_and_stable_under_other_items() {
        let q = Queue::new(ids(20), 7, 1);
        assert_eq!(
            q.ids,
            Queue::new(ids(20).into_iter().rev().collect(), 7, 1).ids
        );
        assert_ne!(q.ids, Queue::new(ids(20), 8, 1).ids);
        let fewer = Queue::new(ids(20)[..10].to_vec(), 7, 1);
        let kept: Vec<&String> = q.ids.iter().filter(|id| fewer.ids.contains(id)).collect();
        assert_eq!(kept, fewer.ids.iter().collect::<Vec<_>>());
    }

    #[test]
    fn items_lacking_labels_come_first_then_the_rest_then_skips() {
        let q = Queue::new(ids(4), 1, 2);
        let [a, b, c, d] = [0, 1, 2, 3].map(|k| q.ids[k].as_str());
        let mut events = vec![label(1, a, "bob"), label(2, a, "cat"), label(3, b, "bob")];
        let none = HashSet::new();
        // a has its two labels: ann gets b first (lacks one), then c, d, then a.
        assert_eq!(q.next("ann", &events, &none), Some(1));
        let open: HashSet<&str> = [b].into();
        assert_eq!(
            q.next("ann", &events, &open),
            Some(2),
            "b is open elsewhere"
        );
        events.push(Event {
            kind: EventKind::Skip,
            label: None,
            ..label(4, b, "ann")
        });
        assert_eq!(q.next("ann", &events, &none), Some(2));
        events.extend([label(5, c, "ann"), label(6, d, "ann")]);
        assert_eq!(
            q.next("ann", &events, &none),
            Some(0),
            "full items before skips"
        );
        events.push(label(7, a, "ann"));
        assert_eq!(
            q.next("ann", &events, &none),
            Some(1),
            "the skipped item last"
        );
        events.push(label(8, b, "ann"));
        assert_eq!(q.next("ann", &events, &none), None);
        let p = q.progress("ann", &events);
        assert_eq!((p.total, p.labelled, p.left, p.complete), (4, 4, 0, 2));
        assert_eq!(p.seconds_per_item, Some(4.0));
    }

    #[test]
    fn positions_are_drawn_per_annotator_and_item_about_evenly() {
        let q = Queue::new(ids(400), 3, 1);
        let firsts = |who: &str| {
            q.ids
                .iter()
                .filter(|id| q.shown_first(who, id) == ShownFirst::Response2)
                .count()
        };
        let (ann, bob) = (firsts("ann"), firsts("bob"));
        assert!(
            (160..240).contains(&ann) && (160..240).contains(&bob),
            "{ann} {bob}"
        );
        let same = q
            .ids
            .iter()
            .filter(|id| q.shown_first("ann", id) == q.shown_first("bob", id))
            .count();
        assert!(same < 260, "drawn per annotator: {same} of 400 alike");
        assert_eq!(q.shown_first("ann", "item3"), q.shown_first("ann", "item3"));
    }
}
