//! Result files → the response cache. Output order is never relied on; only successes are
//! cached; failures are counted by reason (and, when asked, kept per request, so a run can
//! resubmit the retryable ones); unknown custom_ids are counted and skipped; a request already cached is
//! left alone, so ingesting a file twice changes nothing.

use super::results::{self, Failure, Line};
use super::spill::{Item, Spill};
use super::Key;
use crate::dataset::hub::Progress;
use crate::judge::cache::{Cache, Store};
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
    /// The first message of each failure reason.
    pub examples: BTreeMap<String, String>,
    /// The last failure of each request that has no answer yet, when asked for (`Some`):
    /// what a run resubmits or reports per item.
    pub failures: Option<HashMap<Key, Failure>>,
    /// Requests answered by this ingest, when asked for (`Some`).
    pub fresh: Option<HashSet<Key>>,
    /// Answers that could not be written to the cache.
    pub write_errors: u64,
    /// Samples a request of several (`n`) asked for that its answer had no choice for: an
    /// engine that ignores `n` answers one.
    pub samples_unanswered: u64,
}

impl Tally {
    pub fn failed_total(&self) -> u64 {
        self.failed.values().sum()
    }
}

/// Tags of a `Join`'s spilled records.
const PLANNED: u8 = 1;
const CACHED: u8 = 2;
const RESULT: u8 = 3;

/// An ingest of millions of results into the cache in bounded memory: the plan's keys, the
/// cache's keys and the results read go to disk in parts by their key's first byte (see
/// `spill`); `finish` then settles one part at a time, holding only that part's keys (about
/// 1/256 of the plan).
#[derive(Debug)]
pub struct Join {
    spill: Spill,
    /// The cache, written one transaction a part: an ingest cut short loses at most the part
    /// being settled, which the same ingest brings back.
    cache: Cache,
}

/// What a `Join` found besides its tally.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Joined {
    /// Distinct keys of the plan.
    pub planned: u64,
    /// Keys of the plan the cache does not hold after the ingest.
    pub missing: u64,
}

impl Join {
    /// Opens the cache in `dir` for the plan whose keys `plan` yields.
    pub fn open(
        dir: &std::path::Path,
        plan: impl FnOnce(&mut dyn FnMut(Key)) -> Result<(), String>,
        progress: &dyn Progress,
    ) -> Result<Self, String> {
        let io =
            |e: std::io::Error| format!("cannot use the cache folder '{}': {e}", dir.display());
        let mut spill = Spill::new(dir, "raterlab-ingest").map_err(io)?;
        let mut failed = None;
        plan(&mut |k: Key| {
            if failed.is_none() {
                failed = spill.push(k.0[0], PLANNED, &k.0).err();
            }
        })?;
        if let Some(e) = failed {
            return Err(io(e));
        }
        let cache = Cache::open(dir, progress).map_err(io)?;
        cache
            .each_key(|hex| match Key::parse(hex) {
                Some(k) => spill.push(k.0[0], CACHED, &k.0),
                None => Ok(()),
            })
            .map_err(io)?;
        Ok(Self { spill, cache })
    }

    pub fn path(&self) -> &std::path::Path {
        self.cache.path()
    }

    /// Takes one result (settled by `finish`).
    pub fn push(&mut self, line: &Line) -> std::io::Result<()> {
        let part = Key::parse(&line.custom_id).map_or(0, |k| k.0[0]);
        let bytes = serde_json::to_vec(line).map_err(std::io::Error::other)?;
        self.spill.push(part, RESULT, &bytes)
    }

    /// Settles every result taken: answers to the cache, the counts to `tally`.
    pub fn finish(self, tally: &mut Tally, progress: &dyn Progress) -> std::io::Result<Joined> {
        let mut joined = Joined::default();
        progress.start(
            "batch ingest: parts of the key space settled",
            Some(super::spill::PARTS as u64),
        );
        let mut part = Part {
            planned: HashSet::new(),
            cached: Mutex::new(HashSet::new()),
            answers: Mutex::new(Vec::new()),
        };
        self.spill.drain(|item| {
            match item {
                Item::Record(PLANNED, key) => {
                    part.planned
                        .insert(Key(key.try_into().map_err(std::io::Error::other)?));
                }
                Item::Record(CACHED, key) => {
                    let key = Key(key.try_into().map_err(std::io::Error::other)?);
                    if part.planned.contains(&key) {
                        part.cached_mut().insert(key);
                    }
                }
                Item::Record(_, line) => {
                    let line: Line = serde_json::from_slice(line).map_err(std::io::Error::other)?;
                    let planned = &part.planned;
                    settle(line, &part, &|k| planned.contains(k), tally);
                }
                Item::PartEnd => {
                    let answers = std::mem::take(part.answers_mut());
                    // A part that cannot be stored stops the ingest (what was stored stays).
                    self.cache.put_many(
                        answers
                            .iter()
                            .map(|(k, model, c)| (k.as_str(), model.as_deref(), c)),
                    )?;
                    let cached = part.cached_mut().len() as u64;
                    joined.planned += part.planned.len() as u64;
                    joined.missing += part.planned.len() as u64 - cached;
                    part.planned.clear();
                    part.cached_mut().clear();
                    progress.advance(1);
                }
            }
            Ok(())
        })?;
        progress.finish();
        Ok(joined)
    }
}

/// An answer waiting for its part's transaction: key, model, completion.
type Answer = (String, Option<String>, crate::judge::Completion);

/// One part of a `Join`: its keys of the plan, which of them the cache holds, and the
/// answers to store when the part is done (one transaction).
struct Part {
    planned: HashSet<Key>,
    cached: Mutex<HashSet<Key>>,
    answers: Mutex<Vec<Answer>>,
}

impl Part {
    fn cached_mut(&mut self) -> &mut HashSet<Key> {
        self.cached.get_mut().unwrap_or_else(|e| e.into_inner())
    }
    fn answers_mut(&mut self) -> &mut Vec<Answer> {
        self.answers.get_mut().unwrap_or_else(|e| e.into_inner())
    }
}

impl Store for Part {
    fn contains(&self, key: &str) -> bool {
        Key::parse(key).is_some_and(|k| self.cached.lock().is_ok_and(|c| c.contains(&k)))
    }
    fn put(
        &self,
        key: &str,
        model: Option<&str>,
        completion: &crate::judge::Completion,
    ) -> std::io::Result<()> {
        let (Some(k), Ok(mut cached), Ok(mut answers)) =
            (Key::parse(key), self.cached.lock(), self.answers.lock())
        else {
            return Err(std::io::Error::other("an ingest part's lock was poisoned"));
        };
        cached.insert(k);
        answers.push((
            key.to_string(),
            model.map(str::to_string),
            completion.clone(),
        ));
        Ok(())
    }
}

/// Bad input that stops an ingest (what was read before it stays in the cache).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    pub line: u64,
    pub message: String,
}

/// Where `jsonl` hands each result it reads.
pub type Sink<'a> = dyn FnMut(Line, &mut Tally) -> std::io::Result<()> + 'a;

/// A sink that settles each result into `store` at once.
pub fn settling<'a, S: Store + ?Sized>(
    store: &'a S,
    known: &'a dyn Fn(&Key) -> bool,
) -> impl FnMut(Line, &mut Tally) -> std::io::Result<()> + 'a {
    move |line, tally| {
        settle(line, store, known, tally);
        Ok(())
    }
}

/// Settles one result: an answer to the store (once), a failure counted and kept.
pub fn settle<S: Store + ?Sized>(
    line: Line,
    store: &S,
    known: &dyn Fn(&Key) -> bool,
    tally: &mut Tally,
) {
    tally.lines += 1;
    let Some(key) = Key::parse(&line.custom_id).filter(|k| known(k)) else {
        tally.unknown += 1;
        return;
    };
    match line.outcome {
        Ok(completion) => {
            if store.contains(&line.custom_id) {
                tally.already_cached += 1;
            } else if store
                .put(&line.custom_id, line.model.as_deref(), &completion)
                .is_ok()
            {
                tally.cached += 1;
                if let Some(fresh) = &mut tally.fresh {
                    fresh.insert(key);
                }
            } else {
                tally.write_errors += 1;
            }
            if let Some(failures) = &mut tally.failures {
                failures.remove(&key);
            }
        }
        Err(failure) => {
            *tally.failed.entry(failure.reason.clone()).or_default() += 1;
            tally
                .examples
                .entry(failure.reason.clone())
                .or_insert_with(|| failure.message.clone());
            if let Some(failures) = &mut tally.failures {
                if !store.contains(&line.custom_id) {
                    failures.insert(key, failure);
                }
            }
        }
    }
}

/// Reads a JSONL result file. A first line that is not a result means the file is not one
/// (an error); later bad lines, and a last line cut short, are counted and skipped.
pub fn jsonl(
    reader: impl BufRead,
    name: &str,
    tally: &mut Tally,
    sink: &mut Sink,
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
            Ok(value) => match results::read(&value) {
                Ok(line) => {
                    sink(line, tally).map_err(|e| Unreadable {
                        line: number,
                        message: format!("cannot keep its result: {e}"),
                    })?;
                    None
                }
                Err(message) => Some(message),
            },
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

    /// One ingest of `file` through a `Join` for the plan `keys`.
    fn ingest(dir: &std::path::Path, keys: &[&String], file: &str) -> (Tally, Joined) {
        let mut join = Join::open(
            dir,
            |each| {
                keys.iter().filter_map(|k| Key::parse(k)).for_each(each);
                Ok(())
            },
            &crate::dataset::hub::Quiet,
        )
        .expect("cache");
        let mut tally = Tally::default();
        jsonl(file.as_bytes(), "out.jsonl", &mut tally, &mut |line, _| {
            join.push(&line)
        })
        .expect("read");
        let joined = join
            .finish(&mut tally, &crate::dataset::hub::Quiet)
            .expect("settled");
        (tally, joined)
    }

    #[test]
    fn counts_add_up_and_a_second_ingest_changes_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        // Keys in three different parts.
        let (a, b, c) = ("a".repeat(64), "b".repeat(64), "c".repeat(64));
        let file = format!(
            "{}\n{}\n{}\nnot json\n{}\n{}\n{{\"custom_id\":\"{c}\",\"respo",
            ok_line(&b, "[[B]]"),
            r#"{"custom_id":"X","response":{"status_code":200,"body":{"choices":[{"message":{"content":"x"}}]}},"error":null}"#,
            format_args!(
                r#"{{"custom_id":"{c}","response":null,"error":{{"code":"batch_expired","message":"late"}}}}"#
            ),
            ok_line(&a, "[[A]]"),
            ok_line(&a, "[[A]] again"),
        );
        let (tally, joined) = ingest(dir.path(), &[&a, &b, &c], &file);
        assert_eq!(
            (
                tally.lines,
                tally.cached,
                tally.already_cached,
                tally.unknown
            ),
            (5, 2, 1, 1)
        );
        assert_eq!(tally.failed.get("batch_expired"), Some(&1));
        assert_eq!(tally.unreadable, 2, "a bad line and a last line cut short");
        assert!(tally
            .first_unreadable
            .as_deref()
            .is_some_and(|f| f.starts_with("out.jsonl, line 4: not JSON")));
        assert_eq!(
            tally.examples.get("batch_expired").map(String::as_str),
            Some("late")
        );
        assert_eq!(
            joined,
            Joined {
                planned: 3,
                missing: 1
            }
        );
        let cache = crate::judge::cache::Cache::open(dir.path(), &crate::dataset::hub::Quiet)
            .expect("cache");
        assert_eq!(cache.len(), 2);
        assert_eq!(cache.get(&a).map(|c| c.text), Some("[[A]]".to_string()));
        // Again: nothing new, and the cache says the same.
        let (again, joined) = ingest(dir.path(), &[&a, &b, &c], &file);
        assert_eq!((again.cached, again.already_cached), (0, 3));
        assert_eq!(
            joined,
            Joined {
                planned: 3,
                missing: 1
            }
        );
        assert_eq!(
            crate::judge::cache::Cache::open(dir.path(), &crate::dataset::hub::Quiet)
                .expect("cache")
                .len(),
            2
        );
        let spills = std::fs::read_dir(dir.path())
            .expect("dir")
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with(".raterlab"))
            .count();
        assert_eq!(spills, 0, "the spilled parts are removed");
        // A file that is not results at all is an error, at its first line.
        let mut t = Tally::default();
        let e =
            jsonl("{\"a\":1}\n".as_bytes(), "x", &mut t, &mut |_, _| Ok(())).expect_err("shape");
        assert_eq!(e.line, 1);
        assert!(e.message.contains("custom_id"), "{}", e.message);
    }
}
