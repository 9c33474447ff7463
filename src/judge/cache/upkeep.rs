//! The store's upkeep: what `raterlab cache` shows, exports and prunes (stats by model, a
//! filter by model or age, the entries streamed).

use super::store::{sql, Cache};
use std::path::PathBuf;

/// One stored completion, as `export` writes it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Entry {
    pub key: String,
    pub model: Option<String>,
    pub text: String,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub latency_ms: f64,
    pub created_unix: i64,
}

/// Which completions a `prune` or an `export` takes: all, or those of one model, or older
/// than a time (both: those of the model older than the time).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    pub model: Option<String>,
    pub before_unix: Option<i64>,
}

impl Filter {
    fn clause(&self) -> (String, Vec<rusqlite::types::Value>) {
        use rusqlite::types::Value;
        let (mut terms, mut values) = (Vec::new(), Vec::new());
        if let Some(model) = &self.model {
            terms.push("model IS ?");
            values.push(Value::Text(model.clone()));
        }
        if let Some(before) = self.before_unix {
            terms.push("created_unix < ?");
            values.push(Value::Integer(before));
        }
        let clause = if terms.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", terms.join(" AND "))
        };
        (clause, values)
    }
}

/// A store's size and contents by model.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Stats {
    pub path: PathBuf,
    pub entries: u64,
    /// The store's files on disk (database and write-ahead log), in bytes.
    pub bytes: u64,
    pub text_bytes: u64,
    pub oldest_unix: Option<i64>,
    pub newest_unix: Option<i64>,
    pub models: Vec<ModelStats>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ModelStats {
    /// `None` for completions whose model is unknown (moved in from a former log).
    pub model: Option<String>,
    pub entries: u64,
    pub text_bytes: u64,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub oldest_unix: i64,
    pub newest_unix: i64,
}

impl Cache {
    /// The completions `filter` takes, streamed in the order they were stored.
    pub fn each_entry(
        &self,
        filter: &Filter,
        mut each: impl FnMut(Entry) -> std::io::Result<()>,
    ) -> std::io::Result<u64> {
        let conn = self.conn()?;
        let (clause, values) = filter.clause();
        let mut statement = conn
            .prepare(&format!(
                "SELECT key, model, text, tokens_in, tokens_out, latency_ms, created_unix FROM completions{clause} ORDER BY rowid"
            ))
            .map_err(sql)?;
        let mut rows = statement
            .query(rusqlite::params_from_iter(values))
            .map_err(sql)?;
        let mut n = 0;
        while let Some(r) = rows.next().map_err(sql)? {
            each(Entry {
                key: r.get(0).map_err(sql)?,
                model: r.get(1).map_err(sql)?,
                text: r.get(2).map_err(sql)?,
                tokens_in: r.get::<_, i64>(3).map_err(sql)? as u64,
                tokens_out: r.get::<_, i64>(4).map_err(sql)? as u64,
                latency_ms: r.get(5).map_err(sql)?,
                created_unix: r.get(6).map_err(sql)?,
            })?;
            n += 1;
        }
        Ok(n)
    }

    /// How many completions `filter` takes.
    pub fn count(&self, filter: &Filter) -> std::io::Result<u64> {
        let conn = self.conn()?;
        let (clause, values) = filter.clause();
        conn.query_row(
            &format!("SELECT count(*) FROM completions{clause}"),
            rusqlite::params_from_iter(values),
            |r| r.get::<_, i64>(0),
        )
        .map(|n| n as u64)
        .map_err(sql)
    }

    /// Deletes the completions `filter` takes and gives their pages back to the file system.
    /// Returns how many were deleted.
    pub fn prune(&self, filter: &Filter) -> std::io::Result<u64> {
        let conn = self.conn()?;
        let (clause, values) = filter.clause();
        let n = conn
            .execute(
                &format!("DELETE FROM completions{clause}"),
                rusqlite::params_from_iter(values),
            )
            .map_err(sql)?;
        conn.execute_batch("PRAGMA incremental_vacuum; PRAGMA wal_checkpoint(TRUNCATE);")
            .map_err(sql)?;
        Ok(n as u64)
    }

    pub fn stats(&self) -> std::io::Result<Stats> {
        let conn = self.conn()?;
        let mut statement = conn
            .prepare(
                "SELECT model, count(*), sum(length(CAST(text AS BLOB))), sum(tokens_in), sum(tokens_out), min(created_unix), max(created_unix)
                 FROM completions GROUP BY model ORDER BY count(*) DESC, model",
            )
            .map_err(sql)?;
        let models = statement
            .query_map([], |r| {
                Ok(ModelStats {
                    model: r.get(0)?,
                    entries: r.get::<_, i64>(1)? as u64,
                    text_bytes: r.get::<_, Option<i64>>(2)?.unwrap_or(0) as u64,
                    tokens_in: r.get::<_, Option<i64>>(3)?.unwrap_or(0) as u64,
                    tokens_out: r.get::<_, Option<i64>>(4)?.unwrap_or(0) as u64,
                    oldest_unix: r.get(5)?,
                    newest_unix: r.get(6)?,
                })
            })
            .map_err(sql)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(sql)?;
        let file_size = |suffix: &str| {
            let mut name = self.path().as_os_str().to_owned();
            name.push(suffix);
            std::fs::metadata(PathBuf::from(name)).map_or(0, |m| m.len())
        };
        Ok(Stats {
            path: self.path().to_path_buf(),
            entries: models.iter().map(|m| m.entries).sum(),
            bytes: file_size("") + file_size("-wal"),
            text_bytes: models.iter().map(|m| m.text_bytes).sum(),
            oldest_unix: models.iter().map(|m| m.oldest_unix).min(),
            newest_unix: models.iter().map(|m| m.newest_unix).max(),
            models,
        })
    }
}
