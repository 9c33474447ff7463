//! The response cache: every completion is stored as soon as it arrives, keyed by a SHA-256
//! of everything that determines it (model, messages, sampling parameters, sample index; not
//! the endpoint URL, not the API key). `store` keeps them in SQLite; `legacy` reads the
//! former JSONL log once, to move it in.

mod legacy;
mod store;
mod upkeep;

pub use store::{now_unix, open_read_only, Cache, FILE, MIGRATED};
pub use upkeep::{Entry, Filter, ModelStats, Stats};

use super::{Call, CallError, CallFuture, Completion, Judge, SampleOutcome, SamplesFuture};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Arc;

/// The cache key of a call.
pub fn key(call: &Call) -> String {
    hex(&key_digest(call))
}

/// The cache key of a call as its 32 bytes (what `key` writes in hex): SHA-256 of the call's
/// canonical JSON, `{"max_tokens":…,"messages":[{"content":…,"role":…}],"model":…,"sample":…,
/// "seed":…,"temperature":…,"v":1}` (keys sorted, no spaces; `"top_logprobs":K` before `"v"`
/// when the call asks for logprobs), written straight into the hash
/// (a run makes millions of keys; no JSON value is built).
pub fn key_digest(call: &Call) -> [u8; 32] {
    /// A message with its keys in sorted order.
    #[derive(serde::Serialize)]
    struct Sorted<'a> {
        content: &'a str,
        role: &'a str,
    }
    #[derive(serde::Serialize)]
    struct Canonical<'a> {
        max_tokens: u32,
        messages: Vec<Sorted<'a>>,
        model: &'a str,
        /// Only when a reasoning effort is set, so that every other key stays as it was.
        #[serde(skip_serializing_if = "Option::is_none")]
        reasoning_effort: Option<&'a str>,
        /// Likewise only for a template's own request fields.
        #[serde(skip_serializing_if = "Option::is_none")]
        request: Option<&'a serde_json::Value>,
        sample: u32,
        seed: Option<u64>,
        temperature: f64,
        /// Only when logprobs are asked for, so that every other key stays as it was.
        #[serde(skip_serializing_if = "Option::is_none")]
        top_logprobs: Option<u32>,
        v: u32,
    }
    struct Hashing(Sha256);
    impl std::io::Write for Hashing {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.update(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let canonical = Canonical {
        max_tokens: call.params.max_tokens,
        messages: call
            .messages
            .iter()
            .map(|m| Sorted {
                content: &m.content,
                role: &m.role,
            })
            .collect(),
        model: &call.params.model,
        reasoning_effort: call.params.reasoning_effort.as_deref(),
        request: call.params.request.as_ref(),
        sample: call.sample,
        seed: call.params.seed,
        temperature: call.params.temperature,
        top_logprobs: call.params.top_logprobs,
        v: 1,
    };
    let mut hashing = Hashing(Sha256::new());
    // Writing into a hash cannot fail, and these fields always serialize.
    let _ = serde_json::to_writer(&mut hashing, &canonical);
    hashing.0.finalize().into()
}

/// Lowercase hex of bytes (a table lookup: keys are made millions of times in an export).
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    out
}

/// Where answers go: the cache, or (for bulk ingest) the part of a plan being settled.
pub trait Store {
    fn contains(&self, key: &str) -> bool;
    /// Stores an answer of `model` (when known).
    fn put(
        &self,
        key: &str,
        model: Option<&str>,
        completion: &super::Completion,
    ) -> std::io::Result<()>;
}

impl Store for Cache {
    fn contains(&self, key: &str) -> bool {
        Cache::contains(self, key)
    }
    fn put(
        &self,
        key: &str,
        model: Option<&str>,
        completion: &super::Completion,
    ) -> std::io::Result<()> {
        Cache::put(self, key, model, completion)
    }
}

/// A cache key (64 lowercase hex digits) as its 32 bytes; `None` for anything else.
pub fn key_bytes(key: &str) -> Option<[u8; 32]> {
    let bytes = key.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let mut out = [0u8; 32];
    for (i, pair) in bytes.chunks_exact(2).enumerate() {
        out[i] = digit(pair[0])? << 4 | digit(pair[1])?;
    }
    Some(out)
}

/// A judge behind the cache. With `offline`, a miss is an error and nothing is called.
pub struct Cached {
    pub inner: Arc<dyn Judge>,
    pub cache: Arc<Cache>,
    pub offline: bool,
    /// The answers of the calls sent and not yet made, read a batch at a time by `prefetch`
    /// (in key order: the store's pages are visited in order, not at random), each taken out
    /// when its call is made.
    ready: std::sync::Mutex<HashMap<String, Completion>>,
}

impl Cached {
    pub fn new(inner: Arc<dyn Judge>, cache: Arc<Cache>, offline: bool) -> Self {
        Self {
            inner,
            cache,
            offline,
            ready: Default::default(),
        }
    }
}

impl Cached {
    /// The stored answer of `key`, read by `prefetch` or now.
    fn hit(&self, key: &str) -> Option<Completion> {
        let ready = self.ready.lock().ok().and_then(|mut r| r.remove(key));
        ready.or_else(|| self.cache.get(key)).map(|mut hit| {
            hit.cached = true;
            hit
        })
    }
}

impl std::fmt::Debug for Cached {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cached")
            .field("judge", &self.inner.describe())
            .field("cache", &self.cache.path())
            .finish()
    }
}

impl Judge for Cached {
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn endpoint(&self) -> Option<crate::judge::Endpoint> {
        self.inner.endpoint()
    }
    fn is_simulated(&self) -> bool {
        self.inner.is_simulated()
    }
    fn is_order_blind(&self) -> bool {
        self.inner.is_order_blind()
    }
    fn answers_none_of(&self, items: &[crate::dataset::examples::Example]) -> Option<String> {
        self.inner.answers_none_of(items)
    }
    fn cacheable(&self) -> bool {
        self.inner.cacheable()
    }
    fn keeps_answers(&self) -> bool {
        self.inner.cacheable()
    }
    fn retry_policy(&self) -> super::RetryPolicy {
        self.inner.retry_policy()
    }
    /// Offline (a miss is an error at once), or the call's stored answer read by `prefetch`.
    fn answers_at_once(&self, call: &Call) -> bool {
        self.offline
            || self.inner.answers_at_once(call)
            || self
                .ready
                .lock()
                .is_ok_and(|ready| ready.contains_key(&key(call)))
    }
    fn prefetch(&self, calls: &[&Call]) {
        let mut keys: Vec<String> = calls.iter().map(|c| key(c)).collect();
        keys.sort_unstable();
        keys.dedup();
        let found = self.cache.get_many(&keys);
        if let Ok(mut ready) = self.ready.lock() {
            ready.extend(found);
        }
    }

    fn samples_per_request(&self, params: &crate::judge::Params) -> u32 {
        self.inner.samples_per_request(params)
    }

    /// The stored samples, and the others asked of the judge in one request, each answer
    /// stored as it is one call's (its own key); the request's answers in one transaction, so
    /// a kill loses all of them or none.
    fn complete_samples<'a>(&'a self, calls: &'a [Call]) -> SamplesFuture<'a> {
        Box::pin(async move {
            let keys: Vec<String> = calls.iter().map(key).collect();
            let mut out: Vec<Option<SampleOutcome>> = keys
                .iter()
                .map(|k| self.hit(k).map(|c| SampleOutcome::Done(Ok(c))))
                .collect();
            let missing: Vec<usize> = (0..calls.len()).filter(|&i| out[i].is_none()).collect();
            if self.offline {
                for &i in &missing {
                    out[i] = Some(SampleOutcome::Done(Err(CallError::CacheMiss)));
                }
            } else if missing.len() == 1 {
                let i = missing[0];
                out[i] = Some(SampleOutcome::Done(self.complete(&calls[i]).await));
            } else if !missing.is_empty() {
                let asked: Vec<Call> = missing.iter().map(|&i| calls[i].clone()).collect();
                let answered = self.inner.complete_samples(&asked).await;
                let model = Some(calls[0].params.model.as_str());
                let fresh: Vec<(&str, Option<&str>, &Completion)> = missing
                    .iter()
                    .zip(&answered)
                    .filter_map(|(&i, a)| match a {
                        SampleOutcome::Done(Ok(c)) => Some((keys[i].as_str(), model, c)),
                        _ => None,
                    })
                    .collect();
                if !fresh.is_empty() && self.cache.put_many(fresh.iter().copied()).is_err() {
                    self.cache
                        .write_errors
                        .fetch_add(fresh.len(), std::sync::atomic::Ordering::Relaxed);
                }
                for (&i, a) in missing.iter().zip(answered) {
                    out[i] = Some(a);
                }
            }
            out.into_iter()
                .map(|o| o.unwrap_or_else(|| SampleOutcome::Alone("not answered".into())))
                .collect()
        })
    }

    fn complete<'a>(&'a self, call: &'a Call) -> CallFuture<'a> {
        Box::pin(async move {
            let key = key(call);
            if let Some(hit) = self.hit(&key) {
                return Ok(hit);
            }
            if self.offline {
                return Err(CallError::CacheMiss);
            }
            let completion = self.inner.complete(call).await?;
            // An answer that cannot be stored is still used (and counted, for the report).
            if self
                .cache
                .put(&key, Some(&call.params.model), &completion)
                .is_err()
            {
                self.cache
                    .write_errors
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            Ok(completion)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_lowercase_and_round_trips_through_key_bytes() {
        let bytes: Vec<u8> = (0..=255u8).collect();
        let text = hex(&bytes);
        assert_eq!(&text[..8], "00010203");
        assert_eq!(&text[text.len() - 4..], "feff");
        assert_eq!(text.len(), 512);
        let key: [u8; 32] = std::array::from_fn(|i| (i as u8).wrapping_mul(37));
        assert_eq!(key_bytes(&hex(&key)), Some(key));
        assert_eq!(hex(&[0xab, 0x0c]), format!("{:02x}{:02x}", 0xab, 0x0c));
    }

    /// Caches made by every earlier version stay valid: the key is the hash of the JSON value
    /// those versions built (serde_json's sorted keys), byte for byte.
    #[test]
    fn keys_are_the_hash_of_the_canonical_json_value() {
        use crate::judge::{ItemView, Message, Params};
        let item = Arc::new(ItemView {
            gold: Some(-1),
            ..ItemView::blank()
        });
        let texts = ["", "plain", "quotes \" and \\ \n\t é 😀 \u{7f} </script>"];
        let mut calls = Vec::new();
        for (i, text) in texts.iter().enumerate() {
            for (temperature, seed) in [
                (0.0, None),
                (0.7, Some(42)),
                (1e-7, Some(u64::MAX)),
                (f64::NAN, None),
            ] {
                let mut messages = vec![Message::user(text.to_string())];
                if i > 0 {
                    messages.insert(0, Message::system("You are a judge."));
                }
                calls.push(Call {
                    messages,
                    params: Arc::new(Params {
                        model: format!("model {i}"),
                        temperature,
                        max_tokens: 512 + i as u32,
                        seed,
                        top_logprobs: (seed == Some(42)).then_some(5),
                        reasoning_effort: (seed.is_none() && i == 1).then(|| "low".to_string()),
                        request: (seed.is_none() && i == 2).then(
                            || serde_json::json!({"response_format": {"type": "json_object"}}),
                        ),
                    }),
                    sample: i as u32,
                    item: item.clone(),
                });
            }
        }
        for call in &calls {
            let mut value = serde_json::json!({
                "v": 1,
                "model": call.params.model,
                "temperature": call.params.temperature,
                "max_tokens": call.params.max_tokens,
                "seed": call.params.seed,
                "messages": call.messages,
                "sample": call.sample,
            });
            // Only a call that asks for logprobs has the key (older keys stay as they were).
            if let Some(k) = call.params.top_logprobs {
                value["top_logprobs"] = serde_json::json!(k);
            }
            if let Some(e) = &call.params.reasoning_effort {
                value["reasoning_effort"] = serde_json::json!(e);
            }
            if let Some(r) = &call.params.request {
                value["request"] = r.clone();
            }
            let was: [u8; 32] = Sha256::digest(value.to_string().as_bytes()).into();
            assert_eq!(key_digest(call), was, "{value}");
        }
        // A run's own identity of a call tells the same calls apart as the key does, a text
        // moved from one message to the next included.
        let mut moved = calls[4].clone();
        moved.messages = vec![Message::system("You are a judge.plain"), Message::user("")];
        calls.push(moved);
        for a in &calls {
            for b in &calls {
                assert_eq!(
                    a.identity() == b.identity(),
                    key_digest(a) == key_digest(b),
                    "{a:?} {b:?}"
                );
            }
        }
        assert_eq!(calls[0].identity(), calls[0].clone().identity());
        // And one key as a literal, so a change of serde_json cannot move both sides.
        assert_eq!(
            key(&calls[0]),
            "7520a933c7762edc38e03dfeb8aff884e7f06aec0d4a87c2d2045abdc04bcbb0"
        );
    }
}
