//! A `calibrate --batch` plan's saved state (`state.json`: every batch created, never
//! forgotten) and what its downloaded results already settled.

use super::ingest::{read_results, stopped};
use crate::error::input_error;
use crate::judge::batch::ingest::{self, Tally};
use crate::judge::batch::Key;
use crate::judge::cache::Cache;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

/// One batch of a `calibrate --batch` run, as saved in its state file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Entry {
    pub(super) id: String,
    pub(super) round: u32,
    /// The shard it was made from (relative to the state's folder).
    pub(super) shard: String,
    pub(super) model: String,
    pub(super) requests: u64,
    pub(super) status: String,
    /// Its result files (relative to the state's folder), once downloaded and ingested.
    pub(super) results: Vec<String>,
    pub(super) ingested: bool,
    #[serde(default)]
    pub(super) errors: Vec<String>,
    /// Its requests of several samples (`n`): their later samples' keys.
    #[serde(
        default,
        skip_serializing_if = "crate::judge::batch::Samples::is_empty"
    )]
    pub(super) samples: crate::judge::batch::Samples,
}

/// `state.json` of a plan's batches.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct State {
    pub(super) endpoint: String,
    pub(super) batches: Vec<Entry>,
}

impl State {
    pub(super) fn load(path: &Path) -> Result<Self> {
        match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| {
                input_error(format!(
                    "the batch state file '{}' is damaged ({e}); its batches are listed there for `raterlab batch cancel`; move it away to start new batches",
                    path.display()
                ))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(input_error(format!(
                "cannot read the batch state file '{}': {e}",
                path.display()
            ))),
        }
    }

    /// Written whole, at once: a batch created is never forgotten.
    pub(super) fn save(&self, path: &Path) -> Result<()> {
        let partial = path.with_extension("json.partial");
        let text = serde_json::to_string_pretty(self)?;
        std::fs::write(&partial, text)
            .and_then(|()| std::fs::rename(&partial, path))
            .with_context(|| format!("saving the batch state '{}'", path.display()))
    }
}

/// Reads one result file straight into the run's cache.
pub(super) fn ingest_cached(
    path: &Path,
    (cache, samples): (&Cache, &crate::judge::batch::Samples),
    known: &dyn Fn(&Key) -> bool,
    tally: &mut Tally,
) -> Result<()> {
    read_results(path, tally, samples, &mut ingest::settling(cache, known))?
        .map_err(|at| stopped(path, &at, tally.cached))
}

/// The tally of the results already downloaded (an earlier run of this command): they count
/// again, and their failures decide what is worth resubmitting.
pub(super) fn earlier_results(
    state: &State,
    dir: &Path,
    cache: &Arc<Cache>,
    known: &HashSet<Key>,
) -> Result<Tally> {
    let mut tally = Tally {
        fresh: Some(HashSet::new()),
        failures: Some(HashMap::new()),
        ..Tally::default()
    };
    for entry in state.batches.iter().filter(|b| b.ingested) {
        for name in &entry.results {
            ingest_cached(
                &dir.join(name),
                (cache.as_ref(), &entry.samples),
                &|k| known.contains(k),
                &mut tally,
            )?;
        }
    }
    Ok(tally)
}
