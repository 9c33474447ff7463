//! The label store: append-only events in SQLite (WAL mode, `synchronous = FULL`).
//!
//! Table `events` (id, kind: label|undo|skip|note, item_id, annotator, label, shown_first,
//! seconds, at_ms, note, undoes) holds everything people did; nothing is updated or deleted,
//! so an undo is an event that names the label it takes back. Table `sessions` records what
//! decided each server's order (data, seed, overlap, items, annotator, start), so a reader can
//! reproduce it (`item_order`: `random`, or a JSON document of the rule: the seed, the queue's
//! file, the π of active labelling). Table `decisions` (at_ms, kind, detail as JSON) records
//! what was decided from the labels as they came (PAC labelling's threshold after its first
//! round). A write returns only once committed: the page acknowledges a label after
//! that, so a process killed at any point loses no acknowledged label. Several servers (and
//! `labels export` while they run) share one store, each waiting its turn for the write lock.
//! Users may open the file with `sqlite3`, pandas or DuckDB.

use super::{Event, EventKind, Label, ShownFirst};
use crate::error::input_error;
use anyhow::{Context, Result};
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL CHECK (kind IN ('label', 'undo', 'skip', 'note')),
    item_id TEXT NOT NULL,
    annotator TEXT NOT NULL,
    label INTEGER CHECK (label IS NULL OR label IN (-1, 0, 1)),
    shown_first TEXT CHECK (shown_first IS NULL OR shown_first IN ('response1', 'response2')),
    seconds REAL,
    at_ms INTEGER NOT NULL,
    note TEXT,
    undoes INTEGER REFERENCES events(id)
);
CREATE INDEX IF NOT EXISTS events_by_annotator ON events(annotator, id);
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started_ms INTEGER NOT NULL,
    annotator TEXT NOT NULL,
    data TEXT NOT NULL,
    seed INTEGER NOT NULL,
    overlap INTEGER NOT NULL,
    items INTEGER NOT NULL,
    item_order TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS decisions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at_ms INTEGER NOT NULL,
    kind TEXT NOT NULL,
    detail TEXT NOT NULL
);
";

/// How long a write waits for another process's.
const BUSY_WAIT: Duration = Duration::from_secs(30);

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// What decided a server's order, as recorded in `sessions`.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    pub annotator: String,
    pub data: String,
    pub seed: u64,
    pub overlap: usize,
    pub items: usize,
    /// How the queue is ordered (`random`: seeded).
    pub order: String,
}

/// A label to append.
#[derive(Debug, Clone, PartialEq)]
pub struct NewLabel<'a> {
    pub item_id: &'a str,
    pub annotator: &'a str,
    pub label: i64,
    pub shown_first: ShownFirst,
    pub seconds: f64,
    /// Written as a note event in the same transaction when not empty.
    pub note: Option<&'a str>,
}

/// One label store.
#[derive(Debug)]
pub struct Store {
    path: PathBuf,
    conn: Mutex<Connection>,
}

fn db(path: &Path) -> impl Fn(rusqlite::Error) -> anyhow::Error + '_ {
    move |e| {
        let damaged = e.sqlite_error_code().is_some_and(|c| {
            matches!(
                c,
                rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt
            )
        });
        if damaged {
            input_error(format!(
                "'{}' is not a raterlab label store ({e}); name a new file with --store, or the store `raterlab label` wrote",
                path.display()
            ))
        } else {
            anyhow::Error::new(e).context(format!("label store '{}'", path.display()))
        }
    }
}

impl Store {
    /// Opens (or, with `create`, creates) the store at `path`.
    pub fn open(path: &Path, create: bool) -> Result<Self> {
        if !create && !path.is_file() {
            return Err(input_error(format!(
                "--labels/--store '{}': no such label store; `raterlab label --store {}` creates it",
                path.display(),
                path.display()
            )));
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("creating '{}'", dir.display()))?;
        }
        let conn = Connection::open(path).map_err(db(path))?;
        conn.busy_timeout(BUSY_WAIT).map_err(db(path))?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(db(path))?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(db(path))?;
        conn.execute_batch(SCHEMA).map_err(db(path))?;
        Ok(Self {
            path: path.to_path_buf(),
            conn: Mutex::new(conn),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Records what decided a server's order.
    pub fn begin(&self, s: &Session) -> Result<()> {
        self.conn()
            .execute(
                "INSERT INTO sessions (started_ms, annotator, data, seed, overlap, items, item_order) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![now_ms(), s.annotator, s.data, s.seed as i64, s.overlap as i64, s.items as i64, s.order],
            )
            .map_err(db(&self.path))?;
        Ok(())
    }

    /// Appends a label (and its note), committed when this returns; its event id.
    pub fn label(&self, l: &NewLabel<'_>) -> Result<i64> {
        let mut conn = self.conn();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(db(&self.path))?;
        let at = now_ms();
        tx.execute(
            "INSERT INTO events (kind, item_id, annotator, label, shown_first, seconds, at_ms) VALUES ('label', ?1, ?2, ?3, ?4, ?5, ?6)",
            params![l.item_id, l.annotator, l.label, l.shown_first.key(), l.seconds, at],
        )
        .map_err(db(&self.path))?;
        let id = tx.last_insert_rowid();
        if let Some(note) = l.note.filter(|n| !n.trim().is_empty()) {
            tx.execute(
                "INSERT INTO events (kind, item_id, annotator, at_ms, note) VALUES ('note', ?1, ?2, ?3, ?4)",
                params![l.item_id, l.annotator, at, note],
            )
            .map_err(db(&self.path))?;
        }
        tx.commit().map_err(db(&self.path))?;
        Ok(id)
    }

    /// Appends a skip, committed when this returns.
    pub fn skip(&self, item_id: &str, annotator: &str, seconds: f64) -> Result<()> {
        self.conn()
            .execute(
                "INSERT INTO events (kind, item_id, annotator, seconds, at_ms) VALUES ('skip', ?1, ?2, ?3, ?4)",
                params![item_id, annotator, seconds, now_ms()],
            )
            .map_err(db(&self.path))?;
        Ok(())
    }

    /// Takes back `annotator`'s latest label that is still in force: the item it was given
    /// on, or `None` when there is nothing to undo. Read and written in one transaction, so
    /// two undos never take back the same label.
    pub fn undo(&self, annotator: &str) -> Result<Option<String>> {
        let mut conn = self.conn();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(db(&self.path))?;
        let target: Option<(i64, String)> = tx
            .query_row(
                "SELECT id, item_id FROM events e WHERE kind = 'label' AND annotator = ?1 \
                 AND NOT EXISTS (SELECT 1 FROM events u WHERE u.kind = 'undo' AND u.undoes = e.id) \
                 ORDER BY id DESC LIMIT 1",
                params![annotator],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(db(&self.path))?;
        let Some((id, item)) = target else {
            return Ok(None);
        };
        tx.execute(
            "INSERT INTO events (kind, item_id, annotator, at_ms, undoes) VALUES ('undo', ?1, ?2, ?3, ?4)",
            params![item, annotator, now_ms(), id],
        )
        .map_err(db(&self.path))?;
        tx.commit().map_err(db(&self.path))?;
        Ok(Some(item))
    }

    /// Every event, in commit order.
    pub fn events(&self) -> Result<Vec<Event>> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare(
                "SELECT id, kind, item_id, annotator, label, shown_first, seconds, at_ms, note, undoes FROM events ORDER BY id",
            )
            .map_err(db(&self.path))?;
        let rows = stmt
            .query_map([], |r| {
                let kind: String = r.get(1)?;
                let shown: Option<String> = r.get(5)?;
                Ok(Event {
                    id: r.get(0)?,
                    // The schema's CHECKs allow only these; anything else reads as a note.
                    kind: EventKind::parse(&kind).unwrap_or(EventKind::Note),
                    item_id: r.get(2)?,
                    annotator: r.get(3)?,
                    label: r.get(4)?,
                    shown_first: shown.as_deref().and_then(ShownFirst::parse),
                    seconds: r.get(6)?,
                    at_ms: r.get(7)?,
                    note: r.get(8)?,
                    undoes: r.get(9)?,
                })
            })
            .map_err(db(&self.path))?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .map_err(db(&self.path))
    }

    /// The labels in force: one per item and annotator.
    pub fn current(&self) -> Result<Vec<Label>> {
        Ok(super::current(&self.events()?))
    }

    /// Records a decision taken from the labels (`kind`, and its `detail` as JSON).
    pub fn decide(&self, kind: &str, detail: &str) -> Result<()> {
        self.conn()
            .execute(
                "INSERT INTO decisions (at_ms, kind, detail) VALUES (?1, ?2, ?3)",
                params![now_ms(), kind, detail],
            )
            .map_err(db(&self.path))?;
        Ok(())
    }

    /// The decisions of one kind, oldest first: their details.
    pub fn decisions(&self, kind: &str) -> Result<Vec<String>> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare("SELECT detail FROM decisions WHERE kind = ?1 ORDER BY id")
            .map_err(db(&self.path))?;
        let rows = stmt
            .query_map([kind], |r| r.get(0))
            .map_err(db(&self.path))?;
        rows.collect::<rusqlite::Result<Vec<String>>>()
            .map_err(db(&self.path))
    }

    /// What decided each server's order, oldest first.
    pub fn sessions(&self) -> Result<Vec<Session>> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare("SELECT annotator, data, seed, overlap, items, item_order FROM sessions ORDER BY id")
            .map_err(db(&self.path))?;
        let rows = stmt
            .query_map([], |r| {
                Ok(Session {
                    annotator: r.get(0)?,
                    data: r.get(1)?,
                    seed: r.get::<_, i64>(2)? as u64,
                    overlap: r.get::<_, i64>(3)? as usize,
                    items: r.get::<_, i64>(4)? as usize,
                    order: r.get(5)?,
                })
            })
            .map_err(db(&self.path))?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .map_err(db(&self.path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new<'a>(item: &'a str, who: &'a str, label: i64) -> NewLabel<'a> {
        NewLabel {
            item_id: item,
            annotator: who,
            label,
            shown_first: ShownFirst::Response1,
            seconds: 2.0,
            note: None,
        }
    }

    #[test]
    fn labels_undos_and_notes_survive_a_reopen() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("labels.sqlite");
        {
            let s = Store::open(&path, true).expect("open");
            s.label(&new("a", "ann", -1)).expect("label");
            s.label(&NewLabel {
                note: Some("both wrong"),
                ..new("b", "ann", 0)
            })
            .expect("label");
            s.label(&new("a", "bob", 1)).expect("label");
            assert_eq!(s.undo("ann").expect("undo").as_deref(), Some("b"));
            assert_eq!(s.undo("ann").expect("undo").as_deref(), Some("a"));
            assert_eq!(s.undo("ann").expect("undo"), None);
            s.label(&new("a", "ann", 1)).expect("label");
            s.skip("c", "ann", 3.0).expect("skip");
        }
        let s = Store::open(&path, false).expect("reopen");
        let now = s.current().expect("current");
        let got: Vec<(&str, &str, i64)> = now
            .iter()
            .map(|l| (l.item_id.as_str(), l.annotator.as_str(), l.label))
            .collect();
        assert_eq!(got, [("a", "bob", 1), ("a", "ann", 1)]);
        let events = s.events().expect("events");
        assert_eq!(events.len(), 8, "4 labels, a note, 2 undos, a skip");
        assert_eq!(events[2].note.as_deref(), Some("both wrong"));
        assert_eq!(
            events.iter().filter(|e| e.kind == EventKind::Undo).count(),
            2
        );
        s.decide("pac-threshold", r#"{"threshold":0.4}"#)
            .expect("decide");
        drop(s);
        let s = Store::open(&path, false).expect("reopen");
        assert_eq!(
            s.decisions("pac-threshold").expect("read"),
            [r#"{"threshold":0.4}"#]
        );
        assert!(s.decisions("other").expect("read").is_empty());
    }

    #[test]
    fn a_missing_or_foreign_store_is_bad_input() {
        let dir = tempfile::tempdir().expect("dir");
        let missing = dir.path().join("none.sqlite");
        let e = Store::open(&missing, false).expect_err("missing");
        assert!(crate::error::exit_code(&e) == 2, "{e:#}");
        let foreign = dir.path().join("notes.sqlite");
        std::fs::write(&foreign, "not a database, just text ".repeat(100)).expect("write");
        let e = Store::open(&foreign, false).expect_err("foreign");
        assert!(
            format!("{e:#}").contains("not a raterlab label store"),
            "{e:#}"
        );
        assert_eq!(crate::error::exit_code(&e), 2);
    }
}
