//! `raterlab batch export | ingest | cancel`, and `calibrate --batch`: a plan's uncached calls
//! written as batch input (`export`), batch results read into the response cache (`ingest`),
//! and (with --batch) the OpenAI-compatible Batch API driven end to end: upload, create, poll,
//! download, ingest, resubmit what is worth resubmitting, then report from the cache
//! (`rounds`). This file holds what they share: the plan's calls, keys and shard files.

pub mod export;
pub mod ingest;
pub mod rounds;
mod state;

use crate::error::input_error;
use crate::judge::batch::{self, Counts, Format, Key, Shard, Shards};
use crate::judge::Call;
use crate::raters::{for_each_part_call, Config, Part};
use anyhow::{Context, Result};
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::path::Path;

/// Every judged configuration must call an OpenAI-compatible endpoint: the simulator,
/// replays and score files answer locally.
pub(super) fn check_batchable<'a>(
    configs: impl Iterator<Item = &'a Config> + Clone,
    what: &str,
) -> Result<()> {
    if let Some(c) = configs
        .clone()
        .find(|c| !c.rater.is_baseline() && c.judge.cacheable() && c.judge.is_order_blind())
    {
        return Err(input_error(format!(
            "{what} writes chat-completion requests, and configuration '{}' is a reward model behind an engine ({}): its requests go to /pooling, /predict or /classify, which have no batch format here, and a batch of their results could not be read back; run `raterlab calibrate` against the server instead (one short request per response, cached, so a run that stops resumes where it stopped)",
            c.name,
            c.judge.describe()
        )));
    }
    if let Some(c) = configs
        .clone()
        .find(|c| !c.rater.is_baseline() && !c.judge.cacheable())
    {
        return Err(input_error(format!(
            "{what} sends calls to an OpenAI-compatible judge, and configuration '{}' uses {}, which answers locally; give --model NAME (and no --judge), or drop --demo",
            c.name,
            c.judge.describe()
        )));
    }
    if configs.clone().all(|c| c.rater.is_baseline()) {
        return Err(input_error(format!(
            "{what}: the plan has no judge call (only baselines); add --rater basic or sc:N"
        )));
    }
    Ok(())
}

/// The plan's calls, one at a time (the same ones at each call).
pub(super) fn calls<'a>(parts: &'a [Part<'a>]) -> impl Fn(&mut dyn FnMut(Call)) + 'a {
    move |f: &mut dyn FnMut(Call)| for_each_part_call(parts, |_, _, call| f(call))
}

/// The plan's keys, and its name: a SHA-256 over every key in order, which names the plan's
/// batch state. One pass over the calls.
pub(super) fn plan_keys(parts: &[Part<'_>]) -> (String, HashSet<Key>) {
    let mut h = Sha256::new();
    let mut keys = HashSet::new();
    for_each_part_call(parts, |_, _, call| {
        let hex = crate::judge::cache::key(&call);
        h.update(hex.as_bytes());
        keys.extend(Key::parse(&hex));
    });
    (crate::judge::cache::hex(&h.finalize()[..16]), keys)
}

/// The pending samples of one call gathered into one request (`n`): their keys and the first's
/// call.
#[derive(Default)]
struct Gathered {
    keys: Vec<Key>,
    head: Option<Call>,
    last_sample: u32,
}

impl Gathered {
    /// Whether `call` is the next sample of the gathered call, with room for it (its item and
    /// parameters make its messages).
    fn takes(&self, call: &Call, limit: usize) -> bool {
        self.head.as_ref().is_some_and(|h| {
            self.keys.len() < limit
                && std::sync::Arc::ptr_eq(&h.item, &call.item)
                && std::sync::Arc::ptr_eq(&h.params, &call.params)
                && call.sample == self.last_sample + 1
        })
    }

    /// Writes the gathered request, if any, and starts over.
    fn flush(&mut self, shards: &mut Shards) -> std::io::Result<()> {
        if let Some(head) = self.head.take() {
            shards.push(&self.keys, &head)?;
        }
        self.keys.clear();
        Ok(())
    }
}

/// Writes the pending requests of a plan (not in the cache in `cache_dir`, not in `skip`) as
/// shard files, the pending samples of one call in one request of at most
/// `samples_per_request` (`n`; OpenAI's format only); returns the shards and counts.
pub(super) fn write_shards(
    cache_dir: &Path,
    parts: &[Part<'_>],
    dir: &Path,
    (format, samples_per_request): (Format, u32),
    skip: &HashSet<Key>,
) -> Result<(Vec<Shard>, Counts)> {
    std::fs::create_dir_all(dir).map_err(|e| {
        input_error(format!(
            "cannot create the folder '{}': {e}; pass another --out",
            dir.display()
        ))
    })?;
    let mut shards = Shards::new(dir, format, batch::MAX_LINES, batch::MAX_BYTES);
    let progress = crate::report::media::progress::Steps::default();
    let limit = match format {
        Format::Openai => samples_per_request.max(1) as usize,
        Format::Anthropic => 1,
    };
    let mut gathered = Gathered::default();
    let write = |key, call: Call| {
        if skip.contains(&key) {
            return Ok(());
        }
        if gathered.takes(&call, limit) {
            gathered.keys.push(key);
            gathered.last_sample = call.sample;
            return Ok(());
        }
        gathered.flush(&mut shards)?;
        gathered.keys.push(key);
        gathered.last_sample = call.sample;
        gathered.head = Some(call);
        Ok(())
    };
    let mut counts = batch::pending(cache_dir, dir, calls(parts), write, &progress)
        .with_context(|| format!("writing batch files in '{}'", dir.display()))?;
    gathered
        .flush(&mut shards)
        .with_context(|| format!("writing batch files in '{}'", dir.display()))?;
    let shards = shards
        .finish()
        .with_context(|| format!("writing batch files in '{}'", dir.display()))?;
    counts.pending = shards.iter().map(|s| s.lines).sum();
    Ok((shards, counts))
}
