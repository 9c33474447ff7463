//! The response store: completions in SQLite, `completions.sqlite` in the cache folder.
//!
//! One row a completion, keyed by the call's cache key (`super::key`). A run asks for the keys
//! it needs, one indexed lookup each, so its time and memory follow the run, not the store's
//! size. WAL mode: readers never wait for the writer, and several processes (two runs, a run
//! and a `batch ingest`) write one store, each waiting its turn for the write lock
//! (`BUSY_WAIT`). Each answer is committed before it is used; a process killed at any point
//! loses at most the answer it was writing (`synchronous = NORMAL` keeps committed answers
//! across a process crash; only a power cut can lose the last ones).
//!
//! Users may open the file with `sqlite3`, pandas or DuckDB: table `completions` (key, model,
//! text, tokens_in, tokens_out, latency_ms, created_unix, logprobs: OpenAI's chat-shape object
//! as JSON, or NULL; reasoning: the thinking a server returned apart; finish_reason;
//! tokens_reasoning; choice: which of its request's `n` choices, NULL for the first, whose
//! row alone carries the request's prompt tokens and latency).

use super::legacy;
use crate::dataset::hub::Progress;
use crate::judge::Completion;
use rusqlite::{params, Connection, OpenFlags, OptionalExtension, TransactionBehavior};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicUsize;
use std::sync::Mutex;
use std::time::Duration;

/// One stored completion by its key (read by `completion_of`).
const SELECT_ONE: &str = "SELECT text, tokens_in, tokens_out, latency_ms, logprobs, reasoning, finish_reason, tokens_reasoning, choice FROM completions WHERE key = ?1";

fn completion_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<Completion> {
    let logprobs: Option<String> = r.get(4)?;
    Ok(Completion {
        text: r.get(0)?,
        tokens_in: r.get::<_, i64>(1)? as u64,
        tokens_out: r.get::<_, i64>(2)? as u64,
        latency_ms: r.get(3)?,
        cached: false,
        // Written by `insert` from the same type: a row that does not read back (edited by
        // hand) keeps its answer without logprobs.
        logprobs: logprobs.and_then(|json| serde_json::from_str(&json).ok()),
        reasoning: r.get(5)?,
        finish_reason: r.get(6)?,
        tokens_reasoning: r.get::<_, Option<i64>>(7)?.unwrap_or(0) as u64,
        sent_without: Vec::new(),
        choice: r.get::<_, Option<i64>>(8)?.unwrap_or(0) as u32,
    })
}

/// The store's file name in a cache folder.
pub const FILE: &str = "completions.sqlite";

/// What the former log is renamed to once its records are in the store (kept, never read
/// again: delete it when you like).
pub const MIGRATED: &str = "completions.jsonl.migrated";

/// How long a writer waits for another process's write (a bulk migration or ingest part).
const BUSY_WAIT: Duration = Duration::from_secs(300);

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS completions (
    key TEXT PRIMARY KEY NOT NULL,
    model TEXT,
    text TEXT NOT NULL,
    tokens_in INTEGER NOT NULL,
    tokens_out INTEGER NOT NULL,
    latency_ms REAL NOT NULL,
    created_unix INTEGER NOT NULL,
    logprobs TEXT,
    reasoning TEXT,
    finish_reason TEXT,
    tokens_reasoning INTEGER,
    choice INTEGER
);
CREATE INDEX IF NOT EXISTS completions_by_model ON completions(model, created_unix);
CREATE INDEX IF NOT EXISTS completions_by_time ON completions(created_unix);
";

pub(super) fn sql(e: rusqlite::Error) -> std::io::Error {
    std::io::Error::other(e)
}

/// Seconds since the Unix epoch, now.
pub fn now_unix() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// The response cache of one folder.
#[derive(Debug)]
pub struct Cache {
    path: PathBuf,
    conn: Mutex<Connection>,
    /// Lines of a former `completions.jsonl` skipped when it was moved in (torn by a crash, or
    /// edited).
    pub skipped: usize,
    /// Completions moved in from a former `completions.jsonl` by this open.
    pub migrated: u64,
    /// Completions that could not be written (disk full, ...): used, but not cached.
    pub write_errors: AtomicUsize,
}

impl Cache {
    /// Opens (or creates) the store in `dir`. A former `completions.jsonl` there is moved in
    /// first, once, streamed (its progress to `progress`), then renamed to `MIGRATED`.
    pub fn open(dir: &Path, progress: &dyn Progress) -> std::io::Result<Self> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(FILE);
        Self::open_at(dir, path.clone(), progress).map_err(|e| {
            let damaged = e
                .get_ref()
                .and_then(|e| e.downcast_ref::<rusqlite::Error>())
                .and_then(rusqlite::Error::sqlite_error_code)
                .is_some_and(|c| {
                    matches!(
                        c,
                        rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt
                    )
                });
            if damaged {
                std::io::Error::other(format!(
                    "'{}' is not a readable SQLite database ({e}); move it aside (the answers in it are lost to raterlab) and run again",
                    path.display()
                ))
            } else {
                e
            }
        })
    }

    fn open_at(dir: &Path, path: PathBuf, progress: &dyn Progress) -> std::io::Result<Self> {
        let mut conn = Connection::open(&path).map_err(sql)?;
        conn.busy_timeout(BUSY_WAIT).map_err(sql)?;
        // Set before the first table exists (later opens keep it): prune can give pages back.
        conn.pragma_update(None, "auto_vacuum", "INCREMENTAL")
            .map_err(sql)?;
        let mode: String = conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .map_err(sql)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(std::io::Error::other(format!(
                "the store could not use write-ahead logging (journal mode '{mode}'); is the folder on a network file system?"
            )));
        }
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(sql)?;
        conn.execute_batch(SCHEMA).map_err(sql)?;
        add_logprobs_column(&conn).map_err(sql)?;
        let (migrated, skipped) = migrate(&mut conn, dir, progress)?;
        Ok(Self {
            path,
            conn: Mutex::new(conn),
            skipped,
            migrated,
            write_errors: AtomicUsize::new(0),
        })
    }

    /// Opens the store in `dir` only if there is one (or a former log to move in).
    pub fn open_existing(dir: &Path, progress: &dyn Progress) -> std::io::Result<Option<Self>> {
        if dir.join(FILE).is_file() || dir.join(legacy::FILE).is_file() {
            Self::open(dir, progress).map(Some)
        } else {
            Ok(None)
        }
    }

    /// The store's file (its folder holds `batches/` too).
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(super) fn conn(&self) -> std::io::Result<std::sync::MutexGuard<'_, Connection>> {
        self.conn
            .lock()
            .map_err(|_| std::io::Error::other("cache lock poisoned"))
    }

    pub fn len(&self) -> usize {
        self.conn()
            .ok()
            .and_then(|c| {
                c.query_row("SELECT count(*) FROM completions", [], |r| {
                    r.get::<_, i64>(0)
                })
                .ok()
            })
            .map_or(0, |n| n as usize)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The completion stored under `key` (`None` also when the store cannot be read).
    pub fn get(&self, key: &str) -> Option<Completion> {
        let conn = self.conn().ok()?;
        let mut statement = conn.prepare_cached(SELECT_ONE).ok()?;
        statement.query_row([key], completion_of).optional().ok()?
    }

    /// The completions stored under `keys` (sorted: the lookups walk the index in order), read
    /// in one transaction.
    pub fn get_many(&self, keys: &[String]) -> HashMap<String, Completion> {
        let mut found = HashMap::new();
        let Ok(conn) = self.conn() else {
            return found;
        };
        let Ok(tx) = conn.unchecked_transaction() else {
            return found;
        };
        if let Ok(mut statement) = tx.prepare_cached(SELECT_ONE) {
            for key in keys {
                if let Ok(Some(c)) = statement.query_row([key], completion_of).optional() {
                    found.insert(key.clone(), c);
                }
            }
        }
        let _ = tx.commit();
        found
    }

    pub fn contains(&self, key: &str) -> bool {
        self.conn().is_ok_and(|conn| {
            conn.prepare_cached("SELECT 1 FROM completions WHERE key = ?1")
                .and_then(|mut s| s.exists([key]))
                .unwrap_or(false)
        })
    }

    /// Stores one completion, committed before this returns. A key already stored keeps its
    /// first completion (the same request).
    pub fn put(
        &self,
        key: &str,
        model: Option<&str>,
        completion: &Completion,
    ) -> std::io::Result<()> {
        let conn = self.conn()?;
        insert(&conn, key, model, completion, now_unix()).map_err(sql)
    }

    /// Stores many completions in one transaction (a batch ingest's part).
    pub fn put_many<'a>(
        &self,
        entries: impl IntoIterator<Item = (&'a str, Option<&'a str>, &'a Completion)>,
    ) -> std::io::Result<()> {
        let mut conn = self.conn()?;
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
        let now = now_unix();
        for (key, model, completion) in entries {
            insert(&tx, key, model, completion, now).map_err(sql)?;
        }
        tx.commit().map_err(sql)
    }

    /// Every stored key, streamed in key order.
    pub fn each_key(
        &self,
        mut each: impl FnMut(&str) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let conn = self.conn()?;
        let mut statement = conn
            .prepare("SELECT key FROM completions ORDER BY key")
            .map_err(sql)?;
        let mut rows = statement.query([]).map_err(sql)?;
        while let Some(row) = rows.next().map_err(sql)? {
            each(row.get_ref(0).map_err(sql)?.as_str().map_err(sql_from)?)?;
        }
        Ok(())
    }
}

/// A store made before answers kept their logprobs and thinking gains those columns (empty for
/// its rows).
fn add_logprobs_column(conn: &Connection) -> rusqlite::Result<()> {
    for (column, kind) in [
        ("logprobs", "TEXT"),
        ("reasoning", "TEXT"),
        ("finish_reason", "TEXT"),
        ("tokens_reasoning", "INTEGER"),
        ("choice", "INTEGER"),
    ] {
        let has = conn
            .prepare("SELECT 1 FROM pragma_table_info('completions') WHERE name = ?1")?
            .exists([column])?;
        if !has {
            conn.execute_batch(&format!(
                "ALTER TABLE completions ADD COLUMN {column} {kind}"
            ))?;
        }
    }
    Ok(())
}

fn sql_from(e: rusqlite::types::FromSqlError) -> std::io::Error {
    std::io::Error::other(e)
}

fn insert(
    conn: &Connection,
    key: &str,
    model: Option<&str>,
    completion: &Completion,
    created_unix: i64,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT OR IGNORE INTO completions (key, model, text, tokens_in, tokens_out, latency_ms, created_unix, logprobs, reasoning, finish_reason, tokens_reasoning, choice)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    )?
    .execute(params![
        key,
        model,
        completion.text,
        completion.tokens_in as i64,
        completion.tokens_out as i64,
        completion.latency_ms,
        created_unix,
        completion
            .logprobs
            .as_ref()
            .and_then(|l| serde_json::to_string(l).ok()),
        completion.reasoning,
        completion.finish_reason,
        completion.tokens_reasoning as i64,
        (completion.choice > 0).then_some(i64::from(completion.choice))
    ])
    .map(|_| ())
}

/// Moves a former `completions.jsonl` in `dir` into the store: one transaction (another
/// process opening the store meanwhile waits, then finds the log gone), then the log is
/// renamed. A crash before the rename leaves the log, whose records the next open moves in
/// again (keys already stored are kept). Returns (moved, skipped lines).
fn migrate(
    conn: &mut Connection,
    dir: &Path,
    progress: &dyn Progress,
) -> std::io::Result<(u64, usize)> {
    let log = dir.join(legacy::FILE);
    if !log.is_file() {
        return Ok((0, 0));
    }
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(sql)?;
    // Another process may have moved it while this one waited for the lock.
    let file = match std::fs::File::open(&log) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((0, 0)),
        file => file?,
    };
    let meta = file.metadata()?;
    // The log keeps no times: its records are dated by its last write.
    let written = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or_else(now_unix, |d| d.as_secs() as i64);
    progress.start(
        &format!("response cache: moving {} into {FILE} (once)", legacy::FILE),
        Some(meta.len()),
    );
    let (mut moved, mut reported) = (0u64, 0u64);
    let skipped = legacy::read(
        std::io::BufReader::with_capacity(1 << 20, file),
        |key, completion, bytes| {
            insert(&tx, &key, None, &completion, written).map_err(sql)?;
            moved += 1;
            if bytes - reported >= 1 << 20 {
                progress.advance(bytes - reported);
                reported = bytes;
            }
            Ok(())
        },
    )?;
    tx.commit().map_err(sql)?;
    std::fs::rename(&log, dir.join(MIGRATED))?;
    progress.finish();
    Ok((moved, skipped))
}

/// Opens the store in `dir` read-only, without creating or migrating anything (`None` when
/// there is none): for tests and tools that only look.
pub fn open_read_only(dir: &Path) -> std::io::Result<Option<Connection>> {
    let path = dir.join(FILE);
    if !path.is_file() {
        return Ok(None);
    }
    let conn = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(sql)?;
    conn.busy_timeout(BUSY_WAIT).map_err(sql)?;
    Ok(Some(conn))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::hub::Quiet;
    use crate::judge::cache::Filter;

    fn completion(text: &str) -> Completion {
        Completion {
            tokens_in: 10,
            tokens_out: 2,
            latency_ms: 7.5,
            ..Completion::free(text)
        }
    }

    #[test]
    fn stores_reads_counts_and_prunes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = Cache::open(dir.path(), &Quiet).expect("open");
        assert!(cache.is_empty());
        cache
            .put("k1", Some("m1"), &completion("[[A]]"))
            .expect("put");
        cache
            .put("k1", Some("m1"), &completion("changed"))
            .expect("put");
        cache
            .put_many([
                ("k2", Some("m2"), &completion("[[B]]")),
                ("k3", None, &completion("tie")),
            ])
            .expect("put_many");
        assert_eq!(cache.len(), 3);
        assert_eq!(
            cache.get("k1").map(|c| c.text),
            Some("[[A]]".into()),
            "first kept"
        );
        assert_eq!(cache.get("k2"), Some(completion("[[B]]")));
        assert!(cache.get("nope").is_none());
        assert!(cache.contains("k3") && !cache.contains("k4"));
        let many = cache.get_many(&["k1".into(), "k2".into(), "nope".into()]);
        assert_eq!(many.len(), 2, "only what is stored");
        assert_eq!(many.get("k2"), Some(&completion("[[B]]")));
        assert_eq!(many.get("k1").map(|c| c.text.as_str()), Some("[[A]]"));
        let stats = cache.stats().expect("stats");
        assert_eq!(stats.entries, 3);
        assert_eq!(stats.text_bytes, 13);
        assert_eq!(stats.models.len(), 3);
        let by_model = Filter {
            model: Some("m2".into()),
            before_unix: None,
        };
        assert_eq!(cache.count(&by_model).expect("count"), 1);
        let mut keys = Vec::new();
        cache
            .each_key(|k| {
                keys.push(k.to_string());
                Ok(())
            })
            .expect("keys");
        assert_eq!(keys, ["k1", "k2", "k3"]);
        assert_eq!(cache.prune(&by_model).expect("prune"), 1);
        let future = Filter {
            model: None,
            before_unix: Some(now_unix() + 10),
        };
        let mut exported = Vec::new();
        cache
            .each_entry(&future, |e| {
                exported.push(e.key);
                Ok(())
            })
            .expect("export");
        assert_eq!(exported, ["k1", "k3"]);
        assert_eq!(cache.prune(&future).expect("prune"), 2);
        assert!(cache.is_empty());
    }

    #[test]
    fn a_former_log_is_moved_in_once_and_kept_renamed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let line = |key: &str, text: &str| {
            serde_json::json!({
                "key": key,
                "completion": {"text": text, "tokens_in": 1, "tokens_out": 1, "latency_ms": 2.0},
                "check": legacy::check_of(key, text),
            })
            .to_string()
        };
        let log = format!(
            "{}\n{}\n{}",
            line("a", "x"),
            line("b", "y"),
            &line("c", "z")[..9]
        );
        std::fs::write(dir.path().join(legacy::FILE), &log).expect("log");
        let cache = Cache::open(dir.path(), &Quiet).expect("open");
        assert_eq!((cache.migrated, cache.skipped, cache.len()), (2, 1, 2));
        assert_eq!(cache.get("b").map(|c| c.text), Some("y".into()));
        assert!(!dir.path().join(legacy::FILE).exists());
        assert_eq!(
            std::fs::read_to_string(dir.path().join(MIGRATED)).expect("kept"),
            log
        );
        drop(cache);
        let again = Cache::open(dir.path(), &Quiet).expect("open");
        assert_eq!((again.migrated, again.skipped, again.len()), (0, 0, 2));
    }
}
