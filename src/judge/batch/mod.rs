//! Batch engines (OpenAI Batch, vLLM `run-batch`, Anthropic Message Batches, a Ray Data
//! pipeline): raterlab writes their input and reads their output; the engines do the work.
//!
//! The unit is a request keyed by its cache key: `custom_id` is the call's cache key (64
//! lowercase hex digits), so an answer that comes back by any route lands in the same cache an
//! online run reads, and a cached request never enters a batch.
//!
//! - `mod.rs`: request lines, shard files, the manifest, and `Settled`, the judge a run uses
//!   once the batches are done (answers from the cache, failures as the batch reported them);
//! - `results`: one result line of any engine → an answer or a failure with its reason;
//! - `api`: the OpenAI-compatible Batch API client (upload, create, poll, download, cancel).

pub mod api;
pub mod ingest;
pub mod results;
pub mod spill;

use super::cache::{key, key_digest, Cache};
use super::{Call, CallError, CallFuture, Judge};
use crate::dataset::hub::Progress;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// OpenAI's limit is 50,000 requests per file.
pub const MAX_LINES: u64 = 50_000;
/// OpenAI's limit is 200 MB per file; a shard stays under it with room to spare.
pub const MAX_BYTES: u64 = 190 * 1024 * 1024;

/// The request-line format of an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// OpenAI Batch JSONL (also vLLM `run-batch`, SGLang, and the Ray pipeline's input).
    Openai,
    /// Anthropic Message Batches request bodies.
    Anthropic,
}

impl Format {
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "openai" => Some(Format::Openai),
            "anthropic" => Some(Format::Anthropic),
            _ => None,
        }
    }
}

/// A cache key held as its 32 bytes, written as 64 lowercase hex digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key(pub [u8; 32]);

impl Key {
    pub fn parse(hex: &str) -> Option<Self> {
        super::cache::key_bytes(hex).map(Key)
    }
    pub fn hex(&self) -> String {
        super::cache::hex(&self.0)
    }
}

impl Serialize for Key {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.hex())
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = Key;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a cache key (64 lowercase hex digits)")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Key, E> {
                Key::parse(v).ok_or_else(|| E::custom(format!("'{v}' is not a cache key")))
            }
        }
        d.deserialize_str(Visit)
    }
}

/// One request line of a batch input file.
pub fn request_line(format: Format, custom_id: &str, call: &Call) -> Value {
    match format {
        Format::Openai => json!({
            "custom_id": custom_id,
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": super::openai::OpenAi::body(call),
        }),
        Format::Anthropic => {
            let system: Vec<&str> = call
                .messages
                .iter()
                .filter(|m| m.role == "system")
                .map(|m| m.content.as_str())
                .collect();
            let messages: Vec<&super::Message> = call
                .messages
                .iter()
                .filter(|m| m.role != "system")
                .collect();
            let mut params = json!({
                "model": call.params.model,
                "max_tokens": call.params.max_tokens,
                "temperature": call.params.temperature,
                "messages": messages,
            });
            if !system.is_empty() {
                params["system"] = json!(system.join("\n\n"));
            }
            json!({"custom_id": custom_id, "params": params})
        }
    }
}

/// A written shard: one file of request lines for one model.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Shard {
    /// File name, relative to the export folder.
    pub file: String,
    pub model: String,
    pub lines: u64,
    pub bytes: u64,
}

struct OpenShard {
    shard: Shard,
    partial: PathBuf,
    out: BufWriter<File>,
}

/// Writes request lines into shard files, one series per model, each file at most
/// `max_lines` lines and `max_bytes` bytes; files appear (renamed from `.partial`) only whole.
pub struct Shards {
    dir: PathBuf,
    format: Format,
    max_lines: u64,
    max_bytes: u64,
    open: HashMap<String, OpenShard>,
    next_index: HashMap<String, usize>,
    done: Vec<Shard>,
}

impl std::fmt::Debug for Shards {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shards")
            .field("dir", &self.dir)
            .field("done", &self.done.len())
            .finish()
    }
}

/// A model name as a file-name stem.
fn file_stem(model: &str) -> String {
    let stem: String = model
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    stem.trim_start_matches('.').to_string()
}

impl Shards {
    pub fn new(dir: &Path, format: Format, max_lines: u64, max_bytes: u64) -> Self {
        Self {
            dir: dir.to_path_buf(),
            format,
            max_lines: max_lines.max(1),
            max_bytes,
            open: HashMap::new(),
            next_index: HashMap::new(),
            done: Vec::new(),
        }
    }

    /// Appends one request.
    pub fn push(&mut self, key: Key, call: &Call) -> std::io::Result<()> {
        let model = call.params.model.clone();
        let mut line = serde_json::to_vec(&request_line(self.format, &key.hex(), call))
            .map_err(std::io::Error::other)?;
        line.push(b'\n');
        let len = line.len() as u64;
        let full = self.open.get(&model).is_some_and(|o| {
            o.shard.lines >= self.max_lines || o.shard.bytes + len > self.max_bytes
        });
        if full {
            if let Some(o) = self.open.remove(&model) {
                self.close(o)?;
            }
        }
        if !self.open.contains_key(&model) {
            let index = self.next_index.entry(model.clone()).or_insert(0);
            *index += 1;
            let file = format!("{}-{:03}.jsonl", file_stem(&model), index);
            let partial = self.dir.join(format!("{file}.partial"));
            let out = BufWriter::with_capacity(1 << 20, File::create(&partial)?);
            self.open.insert(
                model.clone(),
                OpenShard {
                    shard: Shard {
                        file,
                        model: model.clone(),
                        lines: 0,
                        bytes: 0,
                    },
                    partial,
                    out,
                },
            );
        }
        let Some(o) = self.open.get_mut(&model) else {
            return Err(std::io::Error::other("shard not open"));
        };
        o.out.write_all(&line)?;
        o.shard.lines += 1;
        o.shard.bytes += len;
        Ok(())
    }

    fn close(&mut self, mut o: OpenShard) -> std::io::Result<()> {
        o.out.flush()?;
        o.out.get_ref().sync_all()?;
        std::fs::rename(&o.partial, self.dir.join(&o.shard.file))?;
        self.done.push(o.shard);
        Ok(())
    }

    /// Closes every file; the shards in the order they were started, per model.
    pub fn finish(mut self) -> std::io::Result<Vec<Shard>> {
        let mut open: Vec<OpenShard> = self.open.drain().map(|(_, o)| o).collect();
        open.sort_by(|a, b| a.shard.file.cmp(&b.shard.file));
        for o in open {
            self.close(o)?;
        }
        self.done.sort_by(|a, b| a.file.cmp(&b.file));
        Ok(self.done)
    }
}

/// What an export counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Calls the plan makes (every configuration, item, order and sample).
    pub calls: u64,
    /// Already in the cache: never exported.
    pub cached: u64,
    /// The same request as an earlier call (same custom_id): exported once.
    pub duplicates: u64,
    /// Request lines written.
    pub pending: u64,
}

/// `manifest.json` of an export.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    pub raterlab_version: String,
    pub format: Format,
    pub created_unix: u64,
    /// What was planned (data, seed, configurations, command line).
    pub plan: Value,
    pub counts: Counts,
    pub shards: Vec<Shard>,
}

impl Manifest {
    pub fn read(path: &Path) -> Result<Self, String> {
        let file =
            File::open(path).map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
        serde_json::from_reader(std::io::BufReader::new(file)).map_err(|e| {
            format!(
                "'{}' is not a raterlab batch manifest ({e}); give the manifest.json that `raterlab batch export` wrote",
                path.display()
            )
        })
    }

    /// Written whole (temporary file, then renamed). Each shard is listed with its keys,
    /// read from its file in `dir` one shard at a time, so a manifest of millions of keys is
    /// written without holding them all.
    pub fn write(&self, path: &Path, dir: &Path) -> std::io::Result<()> {
        let partial = path.with_extension("json.partial");
        {
            let mut out = BufWriter::new(File::create(&partial)?);
            let head = serde_json::json!({
                "raterlab_version": self.raterlab_version,
                "format": self.format,
                "created_unix": self.created_unix,
                "plan": self.plan,
                "counts": self.counts,
            });
            let head = serde_json::to_string_pretty(&head).map_err(std::io::Error::other)?;
            // The object without its closing brace, then the shards.
            out.write_all(head.trim_end().trim_end_matches('}').trim_end().as_bytes())?;
            out.write_all(b",\n  \"shards\": [")?;
            for (i, shard) in self.shards.iter().enumerate() {
                let mut listed = serde_json::to_value(shard).map_err(std::io::Error::other)?;
                listed["keys"] = json!(shard_keys(&dir.join(&shard.file))?);
                out.write_all(if i == 0 { b"\n    " } else { b",\n    " })?;
                serde_json::to_writer(&mut out, &listed).map_err(std::io::Error::other)?;
            }
            out.write_all(b"\n  ]\n}\n")?;
            out.flush()?;
        }
        std::fs::rename(partial, path)
    }

    /// Every key the manifest at `path` lists, streamed from the file (never all in memory).
    pub fn for_each_key(path: &Path, each: impl FnMut(Key)) -> Result<(), String> {
        let file =
            File::open(path).map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
        let mut reader = serde_json::Deserializer::from_reader(std::io::BufReader::new(file));
        let mut each = each;
        serde::de::DeserializeSeed::deserialize(
            keys::At(keys::Where::Manifest, &mut each),
            &mut reader,
        )
        .map_err(|e| {
            format!(
                "'{}': cannot read the manifest's keys ({e}); give the manifest.json that `raterlab batch export` wrote, unedited",
                path.display()
            )
        })
    }
}

/// Streaming the manifest's keys: the manifest object → its `shards` array → each shard
/// object → its `keys` array.
mod keys {
    use super::Key;
    use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

    /// Where in the manifest a value is.
    #[derive(Clone, Copy)]
    pub enum Where {
        Manifest,
        Shards,
        Shard,
        Keys,
    }

    /// A value of the manifest at `.0`, its keys handed to `.1`.
    pub struct At<'a, F>(pub Where, pub &'a mut F);

    impl<'de, F: FnMut(Key)> DeserializeSeed<'de> for At<'_, F> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }

    impl<'de, F: FnMut(Key)> Visitor<'de> for At<'_, F> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str(match self.0 {
                Where::Manifest | Where::Shard => "an object",
                Where::Shards | Where::Keys => "an array",
            })
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let (field, inside) = match self.0 {
                Where::Manifest => ("shards", Where::Shards),
                Where::Shard => ("keys", Where::Keys),
                _ => return Err(serde::de::Error::custom("an object where an array belongs")),
            };
            while let Some(name) = map.next_key::<String>()? {
                if name == field {
                    map.next_value_seed(At(inside, &mut *self.1))?;
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            match self.0 {
                Where::Shards => {
                    while seq
                        .next_element_seed(At(Where::Shard, &mut *self.1))?
                        .is_some()
                    {}
                }
                Where::Keys => {
                    while let Some(key) = seq.next_element::<Key>()? {
                        (self.1)(key);
                    }
                }
                _ => return Err(serde::de::Error::custom("an array where an object belongs")),
            }
            Ok(())
        }
    }
}

/// The custom_ids of a shard file, in order.
fn shard_keys(path: &Path) -> std::io::Result<Vec<Key>> {
    use std::io::BufRead;
    #[derive(Deserialize)]
    struct Id {
        custom_id: Key,
    }
    let mut keys = Vec::new();
    for line in std::io::BufReader::new(File::open(path)?).lines() {
        let id: Id = serde_json::from_str(&line?).map_err(std::io::Error::other)?;
        keys.push(id.custom_id);
    }
    Ok(keys)
}

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
    super::cache::read_log(cache_dir, |hex, _| match Key::parse(&hex) {
        Some(k) if failed.is_none() => failed = spill.push(k.0[0], CACHED, &head(&k.0)).err(),
        _ => {}
    })?;
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

/// A judge after its batches: answers from the cache, the failure a batch reported for a
/// request, or (for a request no batch answered) the reason it is missing. Never calls out.
pub struct Settled {
    pub cache: Arc<Cache>,
    pub failures: Arc<HashMap<Key, CallError>>,
    /// Answers the batches of this run brought (shown as calls, not cache hits).
    pub fresh: Arc<std::collections::HashSet<Key>>,
    /// Why a request without an answer or a reported failure has none.
    pub missing: String,
    pub describe: String,
}

impl std::fmt::Debug for Settled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settled")
            .field("judge", &self.describe)
            .field("failures", &self.failures.len())
            .finish()
    }
}

impl Judge for Settled {
    fn describe(&self) -> String {
        self.describe.clone()
    }
    fn complete<'a>(&'a self, call: &'a Call) -> CallFuture<'a> {
        Box::pin(async move {
            let hex = key(call);
            let k = Key::parse(&hex);
            if let Some(mut hit) = self.cache.get(&hex) {
                hit.cached = !k.is_some_and(|k| self.fresh.contains(&k));
                return Ok(hit);
            }
            if let Some(failure) = k.and_then(|k| self.failures.get(&k)) {
                return Err(failure.clone());
            }
            Err(CallError::Batch {
                reason: "missing".into(),
                message: self.missing.clone(),
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::hub::Quiet;
    use crate::judge::{ItemView, Message, Params};
    use crate::verdicts::Parser;

    fn call(model: &str, text: &str, sample: u32) -> Call {
        Call {
            messages: vec![Message::system("Judge."), Message::user(text)],
            params: Arc::new(Params {
                model: model.into(),
                temperature: 1.0,
                max_tokens: 64,
                seed: Some(7),
            }),
            sample,
            item: Arc::new(ItemView {
                prompt: String::new(),
                response1: String::new(),
                response2: String::new(),
                gold: 1,
                parser: Parser::WinnerTagTie,
                allows_tie: true,
                graded: None,
                pair_id: String::new(),
                swapped: false,
            }),
        }
    }

    #[test]
    fn lines_in_both_formats() {
        let c = call("m", "Which is better?", 2);
        let id = key(&c);
        let line = request_line(Format::Openai, &id, &c);
        assert_eq!(line["custom_id"], json!(id));
        assert_eq!(line["url"], "/v1/chat/completions");
        assert_eq!(line["body"]["model"], "m");
        assert_eq!(line["body"]["seed"], 9, "sample 2 of seed 7");
        assert!(line["body"].get("stream").is_none());
        let line = request_line(Format::Anthropic, &id, &c);
        assert_eq!(line["params"]["system"], "Judge.");
        assert_eq!(line["params"]["messages"].as_array().map(Vec::len), Some(1));
        assert_eq!(line["params"]["messages"][0]["role"], "user");
        assert!(regex::Regex::new("^[a-zA-Z0-9_-]{1,64}$")
            .expect("regex")
            .is_match(&id));
    }

    #[test]
    fn shards_split_by_model_lines_and_bytes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut shards = Shards::new(dir.path(), Format::Openai, 3, 10_000);
        for i in 0..7 {
            let c = call(if i % 2 == 0 { "a/b" } else { "c" }, &format!("q{i}"), 0);
            shards
                .push(Key::parse(&key(&c)).expect("key"), &c)
                .expect("written");
        }
        let done = shards.finish().expect("closed");
        let files: Vec<(&str, u64)> = done.iter().map(|s| (s.file.as_str(), s.lines)).collect();
        assert_eq!(
            files,
            [
                ("a_b-001.jsonl", 3),
                ("a_b-002.jsonl", 1),
                ("c-001.jsonl", 3)
            ]
        );
        for s in &done {
            let text = std::fs::read_to_string(dir.path().join(&s.file)).expect("shard");
            assert_eq!(text.lines().count() as u64, s.lines);
            assert_eq!(text.len() as u64, s.bytes);
        }
        // The byte limit splits too: each line is over 150 bytes.
        let dir = tempfile::tempdir().expect("tempdir");
        let mut shards = Shards::new(dir.path(), Format::Openai, 50, 400);
        for i in 0..5 {
            let c = call("m", &format!("question {i}"), 0);
            shards
                .push(Key::parse(&key(&c)).expect("key"), &c)
                .expect("written");
        }
        let done = shards.finish().expect("closed");
        assert!(
            done.len() >= 3 && done.iter().all(|s| s.bytes <= 400),
            "{done:?}"
        );
        assert_eq!(done.iter().map(|s| s.lines).sum::<u64>(), 5);
    }

    #[test]
    fn pending_skips_cached_and_repeated_calls_and_keeps_plan_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache_dir = dir.path().join("cache");
        let q: Vec<Call> = (0..4).map(|i| call("m", &format!("q{i}"), 0)).collect();
        let cache = Cache::open(&cache_dir).expect("cache");
        let answer = crate::judge::Completion {
            text: "[[A]]".into(),
            tokens_in: 1,
            tokens_out: 1,
            latency_ms: 0.0,
            cached: false,
        };
        cache.put(&key(&q[1]), &answer).expect("put");
        let plan = [&q[0], &q[1], &q[0], &q[2], &q[1], &q[3], &q[2]];
        let mut got = Vec::new();
        let counts = pending(
            &cache_dir,
            dir.path(),
            |f: &mut dyn FnMut(Call)| plan.iter().for_each(|c| f((*c).clone())),
            |k, c| {
                assert_eq!(k.hex(), key(&c));
                got.push(k);
                Ok(())
            },
            &Quiet,
        )
        .expect("pending");
        assert_eq!(
            counts,
            Counts {
                calls: 7,
                cached: 2,
                duplicates: 2,
                pending: 3
            }
        );
        let want: Vec<Key> = [&q[0], &q[2], &q[3]]
            .iter()
            .filter_map(|c| Key::parse(&key(c)))
            .collect();
        assert_eq!(got, want, "first occurrences, in plan order");
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .expect("dir")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name())
            .collect();
        assert_eq!(
            left,
            vec![std::ffi::OsString::from("cache")],
            "no spill left"
        );
        // An error of the writer stops the export and comes back.
        let e = pending(
            &cache_dir,
            dir.path(),
            |f: &mut dyn FnMut(Call)| plan.iter().for_each(|c| f((*c).clone())),
            |_, _| Err(std::io::Error::other("disk full")),
            &Quiet,
        )
        .expect_err("stopped");
        assert_eq!(e.to_string(), "disk full");
        // A plan that yields other calls the second time is an error, not a wrong export.
        let passes = std::cell::Cell::new(0);
        let e = pending(
            &cache_dir,
            dir.path(),
            |f: &mut dyn FnMut(Call)| {
                passes.set(passes.get() + 1);
                plan.iter()
                    .take(8 - passes.get())
                    .for_each(|c| f((*c).clone()))
            },
            |_, _| Ok(()),
            &Quiet,
        )
        .expect_err("changed");
        assert!(e.to_string().contains("yielded 7 calls, then 6"), "{e}");
    }

    #[test]
    fn a_manifest_lists_its_shards_keys_and_streams_them_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut shards = Shards::new(dir.path(), Format::Openai, 2, MAX_BYTES);
        let mut keys = Vec::new();
        for i in 0..5 {
            let c = call(if i < 3 { "a" } else { "b" }, &format!("q{i}"), 0);
            let k = Key::parse(&key(&c)).expect("key");
            keys.push(k);
            shards.push(k, &c).expect("written");
        }
        let manifest = Manifest {
            raterlab_version: "test".into(),
            format: Format::Openai,
            created_unix: 1,
            plan: json!({"seed": 3}),
            counts: Counts::default(),
            shards: shards.finish().expect("closed"),
        };
        let path = dir.path().join("manifest.json");
        manifest.write(&path, dir.path()).expect("written");
        let text: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
        assert_eq!(text["shards"].as_array().map(Vec::len), Some(3));
        assert_eq!(text["shards"][0]["keys"][1], json!(keys[1].hex()));
        let back = Manifest::read(&path).expect("manifest");
        assert_eq!(back.shards.len(), 3);
        assert_eq!(back.plan["seed"], 3);
        let mut streamed = Vec::new();
        Manifest::for_each_key(&path, |k| streamed.push(k)).expect("keys");
        assert_eq!(streamed, keys, "shards a-001, a-002, b-001 in order");
        std::fs::write(&path, r#"{"shards": [{"keys": ["zz"]}]}"#).expect("write");
        let e = Manifest::for_each_key(&path, |_| {}).expect_err("bad key");
        assert!(e.contains("manifest.json") && e.contains("keys"), "{e}");
    }

    #[test]
    fn keys_round_trip() {
        let hex = "00ff".repeat(16);
        let k = Key::parse(&hex).expect("key");
        assert_eq!(k.hex(), hex);
        let json = serde_json::to_string(&vec![k]).expect("json");
        assert_eq!(
            serde_json::from_str::<Vec<Key>>(&json).expect("back"),
            vec![k]
        );
        assert!(Key::parse("ABCD").is_none() && Key::parse(&"G".repeat(64)).is_none());
    }
}
