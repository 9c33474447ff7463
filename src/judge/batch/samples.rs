//! Requests that ask for several samples of one call at once (`n`): the request line's
//! `custom_id` is the first sample's key, and the keys of the samples after it are listed here
//! (in the manifest, and in a `calibrate --batch` run's state), so each answer's choices land
//! under their own keys, as an online run stores them.

use super::requests::Key;
use super::results::Line;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The first sample's key → the keys of the samples after it, for each request of several.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Samples(pub BTreeMap<Key, Vec<Key>>);

impl Samples {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every key listed after a first one.
    pub fn later_keys(&self) -> impl Iterator<Item = &Key> {
        self.0.values().flatten()
    }

    pub fn extend(&mut self, other: Samples) {
        self.0.extend(other.0);
    }

    /// The samples after the first that `line` asked for and has no choice for.
    pub fn unanswered(&self, line: &Line) -> usize {
        let later = Key::parse(&line.custom_id).and_then(|k| self.0.get(&k));
        match (later, &line.outcome) {
            (Some(later), Ok(_)) => later.len().saturating_sub(line.more.len()),
            _ => 0,
        }
    }

    /// One result line per sample: the first keeps the line's first choice, each later
    /// sample gets its choice (a sample the engine gave no choice for gets no line: it stays
    /// unanswered, and a run asks it again), and a failure is every sample's.
    pub fn split(&self, line: Line) -> Vec<Line> {
        let later = Key::parse(&line.custom_id).and_then(|k| self.0.get(&k));
        let Some(later) = later else {
            return vec![Line {
                more: Vec::new(),
                ..line
            }];
        };
        let each = |key: &Key, outcome| Line {
            custom_id: key.hex(),
            outcome,
            model: line.model.clone(),
            more: Vec::new(),
        };
        let mut out: Vec<Line> = match &line.outcome {
            Ok(_) => later
                .iter()
                .zip(&line.more)
                .map(|(key, c)| each(key, Ok(c.clone())))
                .collect(),
            Err(failure) => later
                .iter()
                .map(|key| each(key, Err(failure.clone())))
                .collect(),
        };
        out.insert(
            0,
            Line {
                more: Vec::new(),
                ..line
            },
        );
        out
    }
}
