//! The uncached calls of a plan, each once, in two passes over the plan with bounded memory.

use super::manifest::Counts;
use super::requests::Key;
use super::spill;
use crate::dataset::hub::Progress;
use crate::judge::cache::key_digest;
use crate::judge::Call;
use std::path::Path;

/// Tags of `pending`'s spilled records.
const CACHED: u8 = 1;

const CALL: u8 = 2;

/// The calls of a plan that are not cached, each once: (key, call) in plan order, and the
/// counts. `calls` yields the plan's calls, the same ones each time it is called (twice).
///
/// Memory stays bounded by 1/256 of the plan, whatever its size: the cache's keys and the
/// plan's keys go to disk in parts by their first byte (see `spill`), each part finds its
/// cached and repeated calls, and a bit a call remembers them for the second pass, which
/// writes the rest. Keys are compared by their first 16 bytes (two different requests share
/// them with probability about n² / 2^129).
pub fn pending(
    cache_dir: &Path,
    spill_dir: &Path,
    calls: impl Fn(&mut dyn FnMut(Call)),
    mut each: impl FnMut(Key, Call) -> std::io::Result<()>,
    progress: &dyn Progress,
) -> std::io::Result<Counts> {
    // Progress moves in steps of STEP calls (a bar update is a lock).
    const STEP: u64 = 4096;
    let head = |k: &[u8; 32]| {
        let mut head = [0u8; 16];
        head.copy_from_slice(&k[..16]);
        head
    };
    let mut spill = spill::Spill::new(spill_dir, "raterlab-export")?;
    let mut failed: Option<std::io::Error> = None;
    if let Some(cache) = crate::judge::cache::Cache::open_existing(cache_dir, progress)? {
        cache.each_key(|hex| match Key::parse(hex) {
            Some(k) => spill.push(k.0[0], CACHED, &head(&k.0)),
            None => Ok(()),
        })?;
    }
    let mut counts = Counts::default();
    progress.start("batch export: the plan's calls (pass 1 of 2)", None);
    calls(&mut |call: Call| {
        if failed.is_some() {
            return;
        }
        if counts.calls % STEP == 0 {
            progress.advance(STEP.min(counts.calls));
        }
        let k = Key(key_digest(&call));
        let mut record = [0u8; 24];
        record[..16].copy_from_slice(&head(&k.0));
        record[16..].copy_from_slice(&counts.calls.to_le_bytes());
        counts.calls += 1;
        failed = spill.push(k.0[0], CALL, &record).err();
    });
    if let Some(e) = failed {
        return Err(e);
    }
    let mut skip = spill::Bits::default();
    let mut cached = std::collections::HashSet::new();
    let mut seen = std::collections::HashSet::new();
    spill.drain(|item| {
        let spill::Item::Record(tag, record) = item else {
            // A part done: its keys never come again.
            cached.clear();
            seen.clear();
            return Ok(());
        };
        let damaged = || std::io::Error::other("the export's spill file is damaged");
        let head = record
            .get(..16)
            .and_then(|h| h.try_into().ok())
            .ok_or_else(damaged)?;
        let head = u128::from_le_bytes(head);
        if tag == CACHED {
            cached.insert(head);
            return Ok(());
        }
        let index = record
            .get(16..24)
            .and_then(|i| i.try_into().ok())
            .ok_or_else(damaged)?;
        let index = u64::from_le_bytes(index);
        if cached.contains(&head) {
            counts.cached += 1;
            skip.set(index);
        } else if !seen.insert(head) {
            counts.duplicates += 1;
            skip.set(index);
        } else {
            counts.pending += 1;
        }
        Ok(())
    })?;
    let mut index = 0u64;
    progress.start(
        "batch export: request lines (pass 2 of 2)",
        Some(counts.calls),
    );
    calls(&mut |call: Call| {
        let i = index;
        index += 1;
        if index % STEP == 0 {
            progress.advance(STEP);
        }
        if failed.is_some() || skip.get(i) {
            return;
        }
        failed = each(Key(key_digest(&call)), call).err();
    });
    progress.finish();
    match failed {
        Some(e) => Err(e),
        None if index != counts.calls => Err(std::io::Error::other(format!(
            "the plan yielded {} calls, then {index}: a plan must yield the same calls each time",
            counts.calls
        ))),
        None => Ok(counts),
    }
}
