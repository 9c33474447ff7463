//! `raterlab cache stats | export | prune`: open the store (moving a former log in), then
//! count, write or delete.

use crate::dataset::hub::Progress;
use crate::error::input_error;
use crate::judge::cache::{now_unix, Cache, Filter};
use crate::run::cache::{prune_filter, Done};
use crate::run::judges::completions_dir;
use crate::run::settings::CacheRequest;
use anyhow::{Context, Result};
use std::io::Write;
use std::path::Path;

pub fn run(command: CacheRequest, progress: &dyn Progress) -> Result<Done> {
    match command {
        CacheRequest::Stats { cache_dir, json } => {
            let cache = open(cache_dir.as_deref(), progress)?;
            Ok(Done::Stats {
                stats: cache.stats().context("cannot read the response cache")?,
                json,
            })
        }
        CacheRequest::Export {
            cache_dir,
            model,
            out,
        } => {
            let cache = open(cache_dir.as_deref(), progress)?;
            let filter = Filter {
                model: model.clone(),
                before_unix: None,
            };
            let entries = export(&cache, &filter, &out)?;
            Ok(Done::Exported {
                entries,
                out,
                model,
            })
        }
        CacheRequest::Prune {
            cache_dir,
            model,
            older_than,
            all,
            dry_run,
        } => {
            let (filter, what) = prune_filter(model, older_than.as_deref(), all, now_unix())?;
            let cache = open(cache_dir.as_deref(), progress)?;
            let entries = if dry_run {
                cache.count(&filter)
            } else {
                cache.prune(&filter)
            }
            .context("cannot prune the response cache")?;
            Ok(Done::Pruned {
                entries,
                left: cache.len() as u64,
                dry_run,
                what,
            })
        }
    }
}

/// The store of the folder given (or the default); a folder without one is an error, not a
/// new empty store.
fn open(dir: Option<&Path>, progress: &dyn Progress) -> Result<Cache> {
    let dir = completions_dir(dir);
    let cannot = |e: std::io::Error| {
        input_error(format!(
            "cannot open the response cache in '{}': {e}",
            dir.display()
        ))
    };
    Cache::open_existing(&dir, progress)
        .map_err(cannot)?
        .ok_or_else(|| {
            input_error(format!(
                "no response cache in '{}' (no {}); pass --cache-dir with the folder your runs used",
                dir.display(),
                crate::judge::cache::FILE
            ))
        })
}

/// Writes the completions `filter` takes as JSONL at `out` (a partial file renamed into
/// place), streamed: one row in memory at a time.
fn export(cache: &Cache, filter: &Filter, out: &Path) -> Result<u64> {
    let cannot = |e: std::io::Error| {
        input_error(format!(
            "cannot write '{}': {e}; check the folder exists and is writable",
            out.display()
        ))
    };
    let mut partial = out.as_os_str().to_owned();
    partial.push(".partial");
    let partial = std::path::PathBuf::from(partial);
    let mut file = std::io::BufWriter::new(std::fs::File::create(&partial).map_err(cannot)?);
    let written = cache.each_entry(filter, |entry| {
        serde_json::to_writer(&mut file, &entry).map_err(std::io::Error::other)?;
        file.write_all(b"\n")
    });
    let finished = written.and_then(|n| {
        file.flush()?;
        drop(file);
        std::fs::rename(&partial, out)?;
        Ok(n)
    });
    if finished.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    finished.map_err(cannot)
}
