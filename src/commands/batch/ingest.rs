//! `raterlab batch ingest`: result files of any batch engine read into the response cache.

use crate::dataset::hub::Progress;
use crate::error::input_error;
use crate::judge::batch::ingest::{self, Tally};
use crate::judge::batch::{self, Manifest};
use crate::run::batch::IngestSummary;
use crate::run::judges::completions_dir;
use anyhow::{Context, Result};
use serde_json::json;
use std::path::{Path, PathBuf};

/// `manifest.json` beside the file, or in one of the three folders above it.
fn find_manifest(file: &Path) -> Option<PathBuf> {
    let start = if file.is_dir() {
        Some(file)
    } else {
        file.parent()
    };
    start?
        .ancestors()
        .take(4)
        .map(|d| d.join("manifest.json"))
        .find(|m| m.is_file())
}

/// The result files a path names: the file, or a folder's JSON, JSONL and Parquet files.
fn result_files(path: &Path) -> Result<Vec<PathBuf>> {
    if path.is_dir() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(|e| input_error(format!("cannot read the folder '{}': {e}", path.display())))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.is_file()
                    && p.file_name().is_some_and(|n| n != "manifest.json")
                    && matches!(
                        p.extension().and_then(|e| e.to_str()),
                        Some("json" | "jsonl" | "parquet")
                    )
            })
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(input_error(format!(
                "the folder '{}' holds no .jsonl, .json or .parquet result file",
                path.display()
            )));
        }
        return Ok(files);
    }
    if !path.exists() {
        return Err(input_error(format!(
            "cannot read '{}': file not found; check the path",
            path.display()
        )));
    }
    Ok(vec![path.to_path_buf()])
}

/// The error for a result file that stopped being readable at a line.
pub(super) fn stopped(path: &Path, at: &ingest::Unreadable, cached: u64) -> anyhow::Error {
    input_error(format!(
        "'{}', line {}: {}; batch ingest reads OpenAI/vLLM batch output, Anthropic results or {{custom_id, text}} rows (JSONL or Parquet). {cached} answers read before it are in the cache",
        path.display(),
        at.line,
        at.message,
    ))
}

/// Reads one result file, each result to `sink`, a request of several samples (`samples`)
/// as one result per sample. `Ok(Err(at))`: the file stopped being readable at a line
/// (results before it were taken).
pub(super) fn read_results(
    path: &Path,
    tally: &mut Tally,
    samples: &batch::Samples,
    sink: &mut ingest::Sink,
) -> Result<Result<(), ingest::Unreadable>> {
    let sink = &mut |line: batch::results::Line, tally: &mut Tally| -> std::io::Result<()> {
        tally.samples_unanswered += samples.unanswered(&line) as u64;
        for one in samples.split(line) {
            sink(one, tally)?;
        }
        Ok(())
    };
    if path.extension().and_then(|e| e.to_str()) == Some("parquet") {
        let frame = crate::dataset::frame::read(path)?;
        let ids = frame.text("custom_id", "custom_id", "custom_id")?;
        let column = ["text", "generated_text"]
            .into_iter()
            .find(|c| frame.column_names().iter().any(|n| n == c))
            .ok_or_else(|| {
                input_error(format!(
                    "'{}' has no \"text\" or \"generated_text\" column (it has {}); a results table holds custom_id and the answer's text",
                    path.display(),
                    frame.column_names().join(", ")
                ))
            })?;
        let texts = frame.optional_text(column, column, "text")?;
        for (row, (id, text)) in ids.into_iter().zip(texts).enumerate() {
            let at = |message: String| ingest::Unreadable {
                line: row as u64 + 1,
                message,
            };
            let line = match batch::results::read(&json!({"custom_id": id, column: text})) {
                Ok(line) => line,
                Err(m) => return Ok(Err(at(m))),
            };
            if let Err(e) = sink(line, tally) {
                return Ok(Err(at(format!("cannot keep its result: {e}"))));
            }
        }
        return Ok(Ok(()));
    }
    let file = std::fs::File::open(path)
        .map_err(|e| input_error(format!("cannot read '{}': {e}", path.display())))?;
    let name = path.display().to_string();
    Ok(ingest::jsonl(
        std::io::BufReader::with_capacity(1 << 20, file),
        &name,
        tally,
        sink,
    ))
}

/// `raterlab batch ingest`: the results are taken in one pass over the files, then settled
/// part by part (`ingest::Join`), so memory stays bounded however many there are.
pub fn ingest_files(
    files: &[PathBuf],
    manifest: Option<&Path>,
    cache_dir: Option<&Path>,
) -> Result<IngestSummary> {
    let mut paths = Vec::new();
    for f in files {
        paths.extend(result_files(f)?);
    }
    let manifest_path = match manifest {
        Some(m) => m.to_path_buf(),
        None => files.first().and_then(|f| find_manifest(f)).ok_or_else(|| {
            input_error(format!(
                "no manifest.json beside '{}' or in a folder above it; pass --manifest DIR/manifest.json (written by `raterlab batch export --out DIR`)",
                files.first().map(|f| f.display().to_string()).unwrap_or_default()
            ))
        })?,
    };
    // Checked whole first (without its keys), then its keys streamed into the join.
    let manifest = Manifest::read(&manifest_path).map_err(input_error)?;
    let mut samples = batch::Samples::default();
    for shard in manifest.shards {
        samples.extend(shard.samples);
    }
    let cache = completions_dir(cache_dir);
    if cache.is_file() {
        return Err(input_error(format!(
            "--cache-dir '{}' is a file; give the folder of the response cache",
            cache.display()
        )));
    }
    let progress = crate::report::media::progress::Steps::default();
    let mut join = ingest::Join::open(
        &cache,
        |each| Manifest::for_each_key(&manifest_path, each),
        &progress,
    )
    .map_err(input_error)?;
    let mut tally = Tally::default();
    let mut stop = None;
    progress.start("batch ingest: result lines read", None);
    let mut lines = 0u64;
    for path in &paths {
        let read = read_results(path, &mut tally, &samples, &mut |line, _| {
            lines += 1;
            if lines % 4096 == 0 {
                progress.advance(4096);
            }
            join.push(&line)
        });
        match read {
            Ok(Ok(())) => {}
            // What was read before the stop is still settled into the cache.
            Ok(Err(at)) => {
                stop = Some((path.clone(), Ok(at)));
                break;
            }
            Err(e) => {
                stop = Some((path.clone(), Err(e)));
                break;
            }
        }
    }
    let joined = join
        .finish(&mut tally, &progress)
        .with_context(|| format!("writing answers to the cache in '{}'", cache.display()))?;
    match stop {
        Some((path, Ok(at))) => return Err(stopped(&path, &at, tally.cached)),
        Some((_, Err(e))) => return Err(e),
        None => {}
    }
    Ok(IngestSummary {
        files: paths,
        tally,
        cache,
        manifest: manifest_path,
        planned: joined.planned,
        missing: joined.missing,
    })
}
