//! The response cache: every completion is stored as soon as it arrives, keyed by a SHA-256
//! of everything that determines it (model, messages, sampling parameters, sample index; not
//! the endpoint URL, not the API key). `store` keeps them in SQLite; `legacy` reads the
//! former JSONL log once, to move it in.

mod legacy;
mod store;

pub use store::{
    now_unix, open_read_only, Cache, Entry, Filter, ModelStats, Stats, FILE, MIGRATED,
};

use super::{Call, CallError, CallFuture, Judge};
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// The cache key of a call.
pub fn key(call: &Call) -> String {
    hex(&key_digest(call))
}

/// The cache key of a call as its 32 bytes (what `key` writes in hex).
pub fn key_digest(call: &Call) -> [u8; 32] {
    let canonical = serde_json::json!({
        "v": 1,
        "model": call.params.model,
        "temperature": call.params.temperature,
        "max_tokens": call.params.max_tokens,
        "seed": call.params.seed,
        "messages": call.messages,
        "sample": call.sample,
    });
    Sha256::digest(canonical.to_string().as_bytes()).into()
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
    fn is_simulated(&self) -> bool {
        self.inner.is_simulated()
    }
    fn is_order_blind(&self) -> bool {
        self.inner.is_order_blind()
    }
    fn cacheable(&self) -> bool {
        self.inner.cacheable()
    }
    fn retry_policy(&self) -> super::RetryPolicy {
        self.inner.retry_policy()
    }
    fn complete<'a>(&'a self, call: &'a Call) -> CallFuture<'a> {
        Box::pin(async move {
            let key = key(call);
            if let Some(mut hit) = self.cache.get(&key) {
                hit.cached = true;
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
}
