//! Ratings files (one row per item) and the run summary of `raterlab rate`.

use crate::dataset::examples::Example;
use crate::evaluation::{counts, Outcome};
use crate::judge::cache::Cache;
use crate::raters::{usage, Config, Rating};
use crate::run::data::Dataset;
use anyhow::Result;
use polars::prelude::*;
use std::io::Write;
use std::path::Path;

/// The ratings as a table: item, gold, rating, status and the text behind it.
pub fn frame(config: &Config, examples: &[Example], ratings: &[Rating]) -> Result<DataFrame> {
    let n = ratings.len();
    let text = |f: &dyn Fn(usize) -> String| (0..n).map(f).collect::<Vec<String>>();
    let completions = |i: usize| {
        let texts: Vec<Option<&str>> = ratings[i]
            .samples
            .iter()
            .map(|s| s.completion.as_ref().map(|c| c.text.as_str()))
            .collect();
        serde_json::to_string(&texts).unwrap_or_default()
    };
    Ok(DataFrame::new_infer_height(vec![
        Column::new("config".into(), vec![config.name.clone(); n]),
        Column::new("id".into(), text(&|i| examples[i].id.clone())),
        Column::new("pair_id".into(), text(&|i| examples[i].pair_id.clone())),
        Column::new("subset".into(), text(&|i| examples[i].subset.clone())),
        Column::new(
            "order".into(),
            text(&|i| examples[i].order.key().to_string()),
        ),
        Column::new(
            "gold".into(),
            examples
                .iter()
                .map(|e| e.gold)
                .collect::<Vec<Option<i64>>>(),
        ),
        Column::new(
            "rating".into(),
            ratings
                .iter()
                .map(|r| r.rating)
                .collect::<Vec<Option<i64>>>(),
        ),
        Column::new(
            "status".into(),
            text(&|i| ratings[i].status.key().to_string()),
        ),
        Column::new(
            "samples_used".into(),
            ratings.iter().map(|r| r.used).collect::<Vec<u32>>(),
        ),
        Column::new(
            "reason".into(),
            ratings
                .iter()
                .map(|r| r.reason().map(str::to_string))
                .collect::<Vec<Option<String>>>(),
        ),
        Column::new(
            "latency_ms".into(),
            ratings.iter().map(|r| r.totals().0).collect::<Vec<f64>>(),
        ),
        Column::new(
            "tokens_in".into(),
            ratings.iter().map(|r| r.totals().1).collect::<Vec<u64>>(),
        ),
        Column::new(
            "tokens_out".into(),
            ratings.iter().map(|r| r.totals().2).collect::<Vec<u64>>(),
        ),
        Column::new("completions".into(), text(&completions)),
        Column::new(
            "grade1".into(),
            ratings
                .iter()
                .map(|r| r.grades.and_then(|g| g.0))
                .collect::<Vec<Option<f64>>>(),
        ),
        Column::new(
            "grade2".into(),
            ratings
                .iter()
                .map(|r| r.grades.and_then(|g| g.1))
                .collect::<Vec<Option<f64>>>(),
        ),
    ])?)
}

/// Writes the ratings file (CSV, JSONL or Parquet by extension), atomically.
pub fn write(path: &Path, config: &Config, examples: &[Example], ratings: &[Rating]) -> Result<()> {
    crate::dataset::frame::write(frame(config, examples, ratings)?, path)
}

pub fn emit_summary(
    config: &Config,
    data: &Dataset,
    ratings: &[Rating],
    cache: Option<&Cache>,
    out: &Path,
) -> Result<()> {
    let outcomes: Vec<Outcome> = ratings.iter().map(Outcome::from).collect();
    let c = counts(&outcomes);
    let u = usage(ratings);
    let mut w = crate::report::media::term::stdout();
    let simulated = if config.judge.is_simulated() {
        " [SIMULATED judge, not an LLM]"
    } else {
        ""
    };
    writeln!(
        w,
        "raterlab rate: {} on {} ({} items){simulated}",
        config.name, data.source, c.examples
    )?;
    writeln!(
        w,
        "judge: {} · model {}",
        config.judge.describe(),
        config.params.model
    )?;
    writeln!(
        w,
        "rated {} (ties {}) · no verdict {} · call failures {} · calls {} (cache hits {}) · tokens {} in / {} out",
        c.rated, c.ties, c.no_verdict, c.call_failures, u.calls, u.cache_hits, u.tokens_in, u.tokens_out
    )?;
    if u.tokens_reasoning > 0 || c.cut_off > 0 {
        writeln!(
            w,
            "thinking: {} of the tokens out · cut off while thinking: {}",
            u.tokens_reasoning, c.cut_off
        )?;
    }
    if let Some(cache) = cache {
        let errors = cache
            .write_errors
            .load(std::sync::atomic::Ordering::Relaxed);
        writeln!(
            w,
            "cache: {} answers in {}",
            cache.len(),
            cache.path().display()
        )?;
        if errors > 0 {
            writeln!(w, "warning: {errors} answers could not be written to the cache (they are in the ratings file)")?;
        }
        for note in cache_notes(cache) {
            writeln!(w, "note: {note}")?;
        }
    }
    writeln!(w, "wrote {}", out.display())?;
    w.flush()?;
    Ok(())
}

/// What opening a cache did that a user should know: a former `completions.jsonl` moved into
/// the store, and its damaged lines skipped.
pub fn cache_notes(cache: &Cache) -> Vec<String> {
    let mut notes = Vec::new();
    if cache.migrated > 0 || cache.skipped > 0 {
        let folder = cache.path().parent().unwrap_or(cache.path());
        notes.push(format!(
            "moved {} answers from {} into {} (once; the log is kept as {}, delete it when you like)",
            cache.migrated,
            folder.join("completions.jsonl").display(),
            cache.path().display(),
            crate::judge::cache::MIGRATED
        ));
    }
    if cache.skipped > 0 {
        notes.push(format!(
            "{} damaged cache lines were skipped (an interrupted run)",
            cache.skipped
        ));
    }
    notes
}
