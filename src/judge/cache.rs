//! The response cache: every completion is appended to a JSONL log as soon as it arrives,
//! keyed by a SHA-256 of everything that determines it (model, messages, sampling parameters,
//! sample index; not the endpoint URL, not the API key).
//!
//! Crash safety: a record is one `write` of one whole line, made before the answer is used.
//! A kill -9 can at worst leave a last line cut short; loading skips any line that does not
//! parse or whose key does not match its content, and the next append starts on a new line.

use super::{Call, CallError, CallFuture, Completion, Judge};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

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

#[derive(Debug, Serialize, Deserialize)]
struct Record {
    key: String,
    completion: Completion,
    /// SHA-256 of the key and the text: a torn or edited line fails it.
    check: String,
}

fn check_of(key: &str, completion: &Completion) -> String {
    let mut h = Sha256::new();
    h.update(key.as_bytes());
    h.update([0]);
    h.update(completion.text.as_bytes());
    hex(&h.finalize()[..8])
}

/// An append-only store of completions.
#[derive(Debug)]
pub struct Cache {
    path: PathBuf,
    entries: Mutex<HashMap<String, Completion>>,
    file: Mutex<File>,
    /// Lines skipped on load (torn by a crash, or edited).
    pub skipped: usize,
    /// Completions that could not be written (disk full, ...): used, but not cached.
    pub write_errors: std::sync::atomic::AtomicUsize,
}

impl Cache {
    /// Opens (or creates) `dir/completions.jsonl`.
    pub fn open(dir: &Path) -> std::io::Result<Self> {
        let mut entries = HashMap::new();
        let (path, file, skipped) = open_log(dir, |key, completion| {
            entries.insert(key, completion);
        })?;
        Ok(Self {
            path,
            entries: Mutex::new(entries),
            file: Mutex::new(file),
            skipped,
            write_errors: Default::default(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn len(&self) -> usize {
        self.entries.lock().map(|e| e.len()).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, key: &str) -> Option<Completion> {
        self.entries.lock().ok()?.get(key).cloned()
    }

    /// Stores a completion: one whole line, written before the caller sees the answer.
    pub fn put(&self, key: &str, completion: &Completion) -> std::io::Result<()> {
        let stored = append(&self.file, key, completion)?;
        if let Ok(mut entries) = self.entries.lock() {
            entries.insert(key.to_string(), stored);
        }
        Ok(())
    }
}

/// Where answers go: the cache, or (for bulk ingest) the part of a plan being settled.
pub trait Store {
    fn contains(&self, key: &str) -> bool;
    fn put(&self, key: &str, completion: &Completion) -> std::io::Result<()>;
}

impl Store for Cache {
    fn contains(&self, key: &str) -> bool {
        self.entries
            .lock()
            .map(|e| e.contains_key(key))
            .unwrap_or(false)
    }
    fn put(&self, key: &str, completion: &Completion) -> std::io::Result<()> {
        Cache::put(self, key, completion)
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

/// Reads `dir/completions.jsonl` (each valid record to `each`; no log, no record) without
/// opening it for writing. Returns the number of lines skipped.
pub(crate) fn read_log(
    dir: &Path,
    mut each: impl FnMut(String, Completion),
) -> std::io::Result<usize> {
    let mut skipped = 0;
    let file = match File::open(dir.join("completions.jsonl")) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        file => Some(file?),
    };
    if let Some(file) = file {
        for line in BufReader::with_capacity(1 << 20, file).split(b'\n') {
            let line = line?;
            if line.is_empty() {
                continue;
            }
            match serde_json::from_slice::<Record>(&line) {
                Ok(r) if r.check == check_of(&r.key, &r.completion) => each(r.key, r.completion),
                _ => skipped += 1,
            }
        }
    }
    Ok(skipped)
}

/// Reads `dir/completions.jsonl` (each valid record to `each`) and opens it for appending.
/// Returns the path, the file and the number of lines skipped.
pub(crate) fn open_log(
    dir: &Path,
    each: impl FnMut(String, Completion),
) -> std::io::Result<(PathBuf, File, usize)> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join("completions.jsonl");
    let skipped = read_log(dir, each)?;
    let mut file = OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(&path)?;
    // A line cut short by a crash must not swallow the next record.
    let len = file.metadata()?.len();
    if len > 0 {
        let mut last = [0u8; 1];
        file.seek(SeekFrom::Start(len - 1))?;
        file.read_exact(&mut last)?;
        if last[0] != b'\n' {
            file.write_all(b"\n")?;
        }
    }
    Ok((path, file, skipped))
}

/// Appends one record as one whole line; returns the completion as stored.
pub(crate) fn append(
    file: &Mutex<impl Write>,
    key: &str,
    completion: &Completion,
) -> std::io::Result<Completion> {
    let mut stored = completion.clone();
    stored.cached = false;
    let record = Record {
        key: key.to_string(),
        check: check_of(key, &stored),
        completion: stored,
    };
    let mut line = serde_json::to_vec(&record).map_err(std::io::Error::other)?;
    line.push(b'\n');
    file.lock()
        .map_err(|_| std::io::Error::other("cache lock poisoned"))?
        .write_all(&line)?;
    Ok(record.completion)
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
            .field("cache", &self.cache.path)
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
            if self.cache.put(&key, &completion).is_err() {
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
