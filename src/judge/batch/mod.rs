//! Batch engines (OpenAI Batch, vLLM `run-batch`, Anthropic Message Batches, a Ray Data
//! pipeline): raterlab writes their input and reads their output; the engines do the work.
//!
//! The unit is a request keyed by its cache key: `custom_id` is the call's cache key (64
//! lowercase hex digits), so an answer that comes back by any route lands in the same cache an
//! online run reads, and a cached request never enters a batch.
//!
//! - `requests`: request lines and their `Key`; `shards`: the shard files; `manifest`: what an
//!   export planned; `pending`: the uncached calls of a plan, with bounded memory;
//! - `mod.rs`: `Settled`, the judge a run uses once the batches are done (answers from the
//!   cache, failures as the batch reported them);
//! - `ingest` and `spill`: result lines into any `Store`, part by part;
//! - `results`: one result line of any engine → an answer or a failure with its reason;
//! - `samples`: requests of several samples (`n`), their later samples' keys;
//! - `api`: the OpenAI-compatible Batch API client (upload, create, poll, download, cancel).

pub mod api;
pub mod ingest;
mod manifest;
mod pending;
mod requests;
pub mod results;
mod samples;
mod shards;
pub mod spill;

pub use manifest::{Counts, Manifest};
pub use pending::pending;
pub use requests::{request_line, Format, Key};
pub use samples::Samples;
pub use shards::{Shard, Shards, MAX_BYTES, MAX_LINES};

use super::cache::{key, Cache};
use super::{Call, CallError, CallFuture, Judge};
use std::collections::HashMap;
use std::sync::Arc;

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
    use serde_json::{json, Value};

    fn call(model: &str, text: &str, sample: u32) -> Call {
        Call {
            messages: vec![Message::system("Judge."), Message::user(text)],
            params: Arc::new(Params {
                model: model.into(),
                temperature: 1.0,
                max_tokens: 64,
                seed: Some(7),
                top_logprobs: None,
                reasoning_effort: None,
                request: None,
            }),
            sample,
            item: Arc::new(ItemView {
                prompt: String::new(),
                response1: String::new(),
                response2: String::new(),
                gold: Some(1),
                parser: Parser::WinnerTagTie,
                allows_tie: true,
                graded: None,
                pair_id: String::new(),
                swapped: false,
                history: Default::default(),
            }),
        }
    }

    #[test]
    fn lines_in_both_formats() {
        let c = call("m", "Which is better?", 2);
        let id = key(&c);
        let line = request_line(Format::Openai, &id, &c, 1);
        assert_eq!(line["custom_id"], json!(id));
        assert_eq!(line["url"], "/v1/chat/completions");
        assert_eq!(line["body"]["model"], "m");
        assert_eq!(line["body"]["seed"], 9, "sample 2 of seed 7");
        assert!(line["body"].get("stream").is_none());
        let line = request_line(Format::Anthropic, &id, &c, 1);
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
                .push(&[Key::parse(&key(&c)).expect("key")], &c)
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
                .push(&[Key::parse(&key(&c)).expect("key")], &c)
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
        let cache = Cache::open(&cache_dir, &Quiet).expect("cache");
        let answer = crate::judge::Completion {
            tokens_in: 1,
            tokens_out: 1,
            latency_ms: 0.0,
            ..crate::judge::Completion::free("[[A]]")
        };
        cache.put(&key(&q[1]), Some("m"), &answer).expect("put");
        drop(cache);
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
            shards.push(&[k], &c).expect("written");
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
