//! Result files → the response cache. Output order is never relied on; only successes are
//! cached; failures are counted by reason (and kept per request, so a run can resubmit the
//! retryable ones); unknown custom_ids are counted and skipped; a request already cached is
//! left alone, so ingesting a file twice changes nothing.

use super::results::{self, Failure};
use super::Key;
use crate::judge::cache::{append, open_log, Store};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::BufRead;
use std::sync::Mutex;

/// What an ingest saw.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    /// Result lines read (successes, failures and unknown ids).
    pub lines: u64,
    /// Answers newly written to the cache.
    pub cached: u64,
    /// Answers for requests the cache already held (a second ingest, a resubmission).
    pub already_cached: u64,
    /// Failed lines, by reason.
    pub failed: BTreeMap<String, u64>,
    /// Lines whose custom_id the manifest does not list.
    pub unknown: u64,
    /// Lines that could not be read (cut short, not JSON, another shape), and where the first
    /// one was.
    pub unreadable: u64,
    pub first_unreadable: Option<String>,
    /// The last failure of each request that has no answer yet.
    pub failures: HashMap<Key, Failure>,
    /// Requests answered by this ingest, when asked for (`Some`).
    pub fresh: Option<HashSet<Key>>,
    /// Answers that could not be written to the cache.
    pub write_errors: u64,
}

impl Tally {
    pub fn failed_total(&self) -> u64 {
        self.failed.values().sum()
    }
}

/// The keys of a plan (sorted, 32 bytes each) and whether the cache holds each: what an
/// ingest of millions of answers needs to know, without the cache's other keys or texts.
#[derive(Debug)]
pub struct PlanIndex {
    keys: Vec<Key>,
    cached: Mutex<Vec<bool>>,
    file: Mutex<std::fs::File>,
    path: std::path::PathBuf,
}

impl PlanIndex {
    /// Opens the cache in `dir` for the plan's `keys`.
    pub fn open(dir: &std::path::Path, mut keys: Vec<Key>) -> std::io::Result<Self> {
        keys.sort_unstable_by_key(|k| k.0);
        keys.dedup();
        let mut cached = vec![false; keys.len()];
        let (path, file, _) = open_log(dir, |key, _| {
            if let Some(i) = Key::parse(&key).and_then(|k| find(&keys, &k)) {
                cached[i] = true;
            }
        })?;
        Ok(Self {
            keys,
            cached: Mutex::new(cached),
            file: Mutex::new(file),
            path,
        })
    }

    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    pub fn knows(&self, key: &Key) -> bool {
        find(&self.keys, key).is_some()
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Keys of the plan the cache does not hold.
    pub fn missing(&self) -> usize {
        self.cached
            .lock()
            .map(|c| c.iter().filter(|x| !**x).count())
            .unwrap_or(self.keys.len())
    }
}

fn find(keys: &[Key], key: &Key) -> Option<usize> {
    keys.binary_search_by(|k| k.0.cmp(&key.0)).ok()
}

impl Store for PlanIndex {
    fn contains(&self, key: &str) -> bool {
        Key::parse(key)
            .and_then(|k| find(&self.keys, &k))
            .is_some_and(|i| self.cached.lock().is_ok_and(|c| c[i]))
    }
    fn put(&self, key: &str, completion: &crate::judge::Completion) -> std::io::Result<()> {
        append(&self.file, key, completion)?;
        if let (Some(i), Ok(mut cached)) = (
            Key::parse(key).and_then(|k| find(&self.keys, &k)),
            self.cached.lock(),
        ) {
            cached[i] = true;
        }
        Ok(())
    }
}

/// Bad input that stops an ingest (what was read before it stays in the cache).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    pub line: u64,
    pub message: String,
}

/// Takes one parsed result.
pub fn take<S: Store + ?Sized>(
    value: &Value,
    store: &S,
    known: &dyn Fn(&Key) -> bool,
    tally: &mut Tally,
) -> Result<(), String> {
    let line = results::read(value)?;
    tally.lines += 1;
    let Some(key) = Key::parse(&line.custom_id).filter(|k| known(k)) else {
        tally.unknown += 1;
        return Ok(());
    };
    match line.outcome {
        Ok(completion) => {
            if store.contains(&line.custom_id) {
                tally.already_cached += 1;
            } else if store.put(&line.custom_id, &completion).is_ok() {
                tally.cached += 1;
                if let Some(fresh) = &mut tally.fresh {
                    fresh.insert(key);
                }
            } else {
                tally.write_errors += 1;
            }
            tally.failures.remove(&key);
        }
        Err(failure) => {
            *tally.failed.entry(failure.reason.clone()).or_default() += 1;
            if !store.contains(&line.custom_id) {
                tally.failures.insert(key, failure);
            }
        }
    }
    Ok(())
}

/// Reads a JSONL result file. A first line that is not a result means the file is not one
/// (an error); later bad lines, and a last line cut short, are counted and skipped.
pub fn jsonl<S: Store + ?Sized>(
    reader: impl BufRead,
    name: &str,
    store: &S,
    known: &dyn Fn(&Key) -> bool,
    tally: &mut Tally,
) -> Result<(), Unreadable> {
    let mut reader = reader;
    let mut buffer = Vec::new();
    let mut number = 0u64;
    let mut seen_result = false;
    loop {
        buffer.clear();
        let n = reader
            .read_until(b'\n', &mut buffer)
            .map_err(|e| Unreadable {
                line: number + 1,
                message: format!("cannot read: {e}"),
            })?;
        if n == 0 {
            return Ok(());
        }
        number += 1;
        let complete = buffer.last() == Some(&b'\n');
        let text = buffer.trim_ascii();
        if text.is_empty() {
            continue;
        }
        let problem = match serde_json::from_slice::<Value>(text) {
            Ok(value) => take(&value, store, known, tally).err(),
            Err(e) if !complete => Some(format!("cut short ({e})")),
            Err(e) => Some(format!("not JSON ({e})")),
        };
        match problem {
            None => seen_result = true,
            Some(message) if !seen_result => {
                return Err(Unreadable {
                    line: number,
                    message,
                })
            }
            Some(message) => {
                tally.unreadable += 1;
                tally
                    .first_unreadable
                    .get_or_insert_with(|| format!("{name}, line {number}: {message}"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok_line(id: &str, text: &str) -> String {
        format!(
            r#"{{"id":"r","custom_id":"{id}","response":{{"status_code":200,"body":{{"choices":[{{"message":{{"content":"{text}"}}}}]}}}},"error":null}}"#
        )
    }

    #[test]
    fn counts_add_up_and_a_second_ingest_changes_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (a, b, c) = ("a".repeat(64), "b".repeat(64), "c".repeat(64));
        let keys: Vec<Key> = [&a, &b, &c].iter().filter_map(|k| Key::parse(k)).collect();
        let index = PlanIndex::open(dir.path(), keys).expect("cache");
        let known = |k: &Key| index.knows(k);
        let file = format!(
            "{}\n{}\n{}\nnot json\n{}\n{{\"custom_id\":\"{c}\",\"respo",
            ok_line(&b, "[[B]]"),
            r#"{"custom_id":"X","response":{"status_code":200,"body":{"choices":[{"message":{"content":"x"}}]}},"error":null}"#,
            format_args!(
                r#"{{"custom_id":"{c}","response":null,"error":{{"code":"batch_expired","message":"late"}}}}"#
            ),
            ok_line(&a, "[[A]]"),
        );
        let mut tally = Tally::default();
        jsonl(file.as_bytes(), "out.jsonl", &index, &known, &mut tally).expect("read");
        assert_eq!((tally.lines, tally.cached, tally.unknown), (4, 2, 1));
        assert_eq!(tally.failed.get("batch_expired"), Some(&1));
        assert_eq!(tally.unreadable, 2, "a bad line and a last line cut short");
        assert!(tally
            .first_unreadable
            .as_deref()
            .is_some_and(|f| f.starts_with("out.jsonl, line 4: not JSON")));
        assert!(tally.failures.contains_key(&Key::parse(&c).expect("key")));
        let mut again = Tally::default();
        jsonl(file.as_bytes(), "out.jsonl", &index, &known, &mut again).expect("read");
        assert_eq!((again.cached, again.already_cached), (0, 2));
        assert_eq!(index.missing(), 1);
        // Reopened, the cache says the same.
        drop(index);
        let keys: Vec<Key> = [&a, &b, &c].iter().filter_map(|k| Key::parse(k)).collect();
        let index = PlanIndex::open(dir.path(), keys).expect("cache");
        assert_eq!((index.len(), index.missing()), (3, 1));
        let known = |k: &Key| index.knows(k);
        // A file that is not results at all is an error, at its first line.
        let mut t = Tally::default();
        let e = jsonl("{\"a\":1}\n".as_bytes(), "x", &index, &known, &mut t).expect_err("shape");
        assert_eq!(e.line, 1);
        assert!(e.message.contains("custom_id"), "{}", e.message);
    }
}
