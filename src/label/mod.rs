//! Labels from people: the label store (`store.rs`, SQLite), which item an annotator sees next
//! and in which order its responses are shown (`queue.rs`, pure), and the labelling page's
//! server (`server.rs`, axum on tokio). `raterlab label` serves the page, `raterlab labels`
//! exports and summarises the store, and `--labels STORE` makes gold of it for every command
//! that loads pairs (`run::data`).
//!
//! This file is the room's vocabulary: what a label is, whichever file reads or writes it.

pub mod queue;
pub mod server;
pub mod store;

use serde::Serialize;

/// Which response of the data a person saw first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ShownFirst {
    Response1,
    Response2,
}

impl ShownFirst {
    pub fn key(self) -> &'static str {
        match self {
            ShownFirst::Response1 => "response1",
            ShownFirst::Response2 => "response2",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "response1" => Some(ShownFirst::Response1),
            "response2" => Some(ShownFirst::Response2),
            _ => None,
        }
    }

    /// The label in the data's order (-1 response 1 better, 1 response 2, 0 tie) of a key
    /// pressed on the page: 1 the response shown first is better, 2 the one shown second,
    /// 0 a tie. `None` for any other key.
    pub fn label_of_key(self, key: u8) -> Option<i64> {
        let first_better = match self {
            ShownFirst::Response1 => -1,
            ShownFirst::Response2 => 1,
        };
        match key {
            1 => Some(first_better),
            2 => Some(-first_better),
            0 => Some(0),
            _ => None,
        }
    }

    /// Whether `label` (in the data's order) chose the response shown first; `None` for a tie.
    pub fn chose_first(self, label: i64) -> Option<bool> {
        match (self, label) {
            (_, 0) => None,
            (ShownFirst::Response1, l) => Some(l < 0),
            (ShownFirst::Response2, l) => Some(l > 0),
        }
    }
}

/// What an event in the store does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EventKind {
    Label,
    Undo,
    Skip,
    Note,
}

impl EventKind {
    pub fn key(self) -> &'static str {
        match self {
            EventKind::Label => "label",
            EventKind::Undo => "undo",
            EventKind::Skip => "skip",
            EventKind::Note => "note",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "label" => EventKind::Label,
            "undo" => EventKind::Undo,
            "skip" => EventKind::Skip,
            "note" => EventKind::Note,
            _ => return None,
        })
    }
}

/// One event as stored (append-only): `labels export --history` writes these.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Event {
    pub id: i64,
    pub kind: EventKind,
    /// The item's content id (`dataset::pairs::content_id` of its texts).
    pub item_id: String,
    pub annotator: String,
    /// Label events: -1 (response 1 better), 0 (tie), 1 (response 2 better), in the data's order.
    pub label: Option<i64>,
    pub shown_first: Option<ShownFirst>,
    pub seconds: Option<f64>,
    /// Milliseconds since the Unix epoch, as committed.
    pub at_ms: i64,
    pub note: Option<String>,
    /// Undo events: the label event they take back.
    pub undoes: Option<i64>,
}

/// One annotator's current label of one item: the latest label event not undone, with the
/// latest note that annotator wrote on the item.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Label {
    pub item_id: String,
    pub annotator: String,
    pub label: i64,
    pub shown_first: ShownFirst,
    pub seconds: f64,
    pub at_ms: i64,
    pub note: Option<String>,
}

/// Folds events (in commit order) into the current labels, in the order they were given.
pub fn current(events: &[Event]) -> Vec<Label> {
    use std::collections::HashMap;
    // Live label events per (item, annotator), oldest first; an undo removes its target.
    let mut live: HashMap<(&str, &str), Vec<&Event>> = HashMap::new();
    let mut notes: HashMap<(&str, &str), &str> = HashMap::new();
    let mut undone = std::collections::HashSet::new();
    for e in events {
        match e.kind {
            EventKind::Undo => {
                if let Some(id) = e.undoes {
                    undone.insert(id);
                }
            }
            EventKind::Note => {
                if let Some(n) = &e.note {
                    notes.insert((&e.item_id, &e.annotator), n);
                }
            }
            _ => {}
        }
    }
    for e in events {
        if e.kind == EventKind::Label && !undone.contains(&e.id) {
            live.entry((&e.item_id, &e.annotator)).or_default().push(e);
        }
    }
    let mut out: Vec<Label> = live
        .into_iter()
        .filter_map(|(key, list)| {
            let e = list.last()?;
            Some(Label {
                item_id: e.item_id.clone(),
                annotator: e.annotator.clone(),
                label: e.label?,
                shown_first: e.shown_first?,
                seconds: e.seconds.unwrap_or(0.0),
                at_ms: e.at_ms,
                note: notes
                    .get(&key)
                    .map(|n| n.to_string())
                    .filter(|n| !n.is_empty()),
            })
        })
        .collect();
    out.sort_by(|a, b| {
        (a.at_ms, &a.annotator, &a.item_id).cmp(&(b.at_ms, &b.annotator, &b.item_id))
    });
    out
}

/// Each item's gold from its annotators' current labels: the single most common label, or
/// none when two labels are most common (a contested item).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Gold {
    /// Annotator names, in first-label order.
    pub annotators: Vec<String>,
    /// item id → each annotator's label (in `annotators`' order; `None`: not labelled).
    pub votes: std::collections::HashMap<String, Vec<Option<i64>>>,
}

impl Gold {
    pub fn of(labels: &[Label]) -> Self {
        let mut annotators: Vec<String> = Vec::new();
        for l in labels {
            if !annotators.contains(&l.annotator) {
                annotators.push(l.annotator.clone());
            }
        }
        let mut votes: std::collections::HashMap<String, Vec<Option<i64>>> =
            std::collections::HashMap::new();
        for l in labels {
            let k = annotators
                .iter()
                .position(|a| *a == l.annotator)
                .unwrap_or_default();
            votes
                .entry(l.item_id.clone())
                .or_insert_with(|| vec![None; annotators.len()])[k] = Some(l.label);
        }
        Self { annotators, votes }
    }

    /// The item's votes and its gold: the single most common label (`None` when contested or
    /// unlabelled).
    pub fn of_item(&self, item_id: &str) -> Option<(&[Option<i64>], Option<i64>)> {
        let votes = self.votes.get(item_id)?;
        Some((votes, most_common(votes)))
    }
}

/// The single most common label among the votes, if one is.
pub fn most_common(votes: &[Option<i64>]) -> Option<i64> {
    let mut counts = [0usize; 3];
    for v in votes.iter().flatten() {
        if (-1..=1).contains(v) {
            counts[(*v + 1) as usize] += 1;
        }
    }
    let best = *counts.iter().max()?;
    if best == 0 || counts.iter().filter(|&&c| c == best).count() > 1 {
        return None;
    }
    counts.iter().position(|&c| c == best).map(|k| k as i64 - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(id: i64, kind: EventKind, item: &str, who: &str, label: Option<i64>) -> Event {
        Event {
            id,
            kind,
            item_id: item.into(),
            annotator: who.into(),
            label,
            shown_first: label.map(|_| ShownFirst::Response2),
            seconds: Some(1.5),
            at_ms: id,
            note: None,
            undoes: None,
        }
    }

    #[test]
    fn keys_become_labels_in_the_datas_order() {
        let table = [
            (ShownFirst::Response1, 1, Some(-1)),
            (ShownFirst::Response1, 2, Some(1)),
            (ShownFirst::Response2, 1, Some(1)),
            (ShownFirst::Response2, 2, Some(-1)),
            (ShownFirst::Response2, 0, Some(0)),
            (ShownFirst::Response1, 3, None),
        ];
        for (shown, key, label) in table {
            assert_eq!(shown.label_of_key(key), label, "{shown:?} key {key}");
            if let Some(l) = label {
                assert_eq!(
                    shown.chose_first(l),
                    match key {
                        1 => Some(true),
                        2 => Some(false),
                        _ => None,
                    }
                );
            }
        }
    }

    #[test]
    fn an_undo_takes_back_its_label_and_a_relabel_counts_once() {
        let mut undo = ev(3, EventKind::Undo, "x", "ann", None);
        undo.undoes = Some(2);
        let events = vec![
            ev(1, EventKind::Label, "w", "ann", Some(-1)),
            ev(2, EventKind::Label, "x", "ann", Some(1)),
            undo,
            ev(4, EventKind::Label, "x", "ann", Some(0)),
            ev(5, EventKind::Label, "x", "bob", Some(1)),
            ev(6, EventKind::Skip, "y", "ann", None),
        ];
        let now = current(&events);
        let got: Vec<(&str, &str, i64)> = now
            .iter()
            .map(|l| (l.item_id.as_str(), l.annotator.as_str(), l.label))
            .collect();
        assert_eq!(got, [("w", "ann", -1), ("x", "ann", 0), ("x", "bob", 1)]);
        let gold = Gold::of(&now);
        assert_eq!(gold.annotators, ["ann", "bob"]);
        assert_eq!(gold.of_item("x").map(|g| g.1), Some(None), "contested");
        assert_eq!(gold.of_item("w").map(|g| g.1), Some(Some(-1)));
        assert_eq!(gold.of_item("y"), None);
    }

    #[test]
    fn the_most_common_label_is_gold_only_when_single() {
        assert_eq!(most_common(&[Some(1), Some(1), Some(-1)]), Some(1));
        assert_eq!(most_common(&[Some(1), Some(-1), Some(0)]), None);
        assert_eq!(
            most_common(&[Some(-1), Some(-1), Some(0), Some(1)]),
            Some(-1)
        );
        assert_eq!(most_common(&[None, None]), None);
        assert_eq!(most_common(&[Some(0), None]), Some(0));
    }
}
