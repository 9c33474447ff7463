//! What `batch export`, `batch ingest`, `batch cancel` and `calibrate --batch` tell the user.

use crate::judge::batch::api::BatchInfo;
use crate::judge::batch::Format;
use crate::report::media::format::thousands;
use crate::run::batch::{ExportSummary, IngestSummary, Watch};
use anyhow::Result;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use std::collections::HashMap;
use std::io::Write;
use std::sync::Mutex;

pub fn emit_export(s: &ExportSummary) -> Result<()> {
    let mut out = crate::report::media::term::stdout();
    let c = &s.counts;
    writeln!(
        out,
        "batch export: {} requests in {} file(s) in {} ({} format)",
        thousands(c.pending),
        s.shards.len(),
        s.dir.display(),
        match s.format {
            Format::Openai => "OpenAI Batch",
            Format::Anthropic => "Anthropic Message Batches",
        }
    )?;
    writeln!(
        out,
        "  the plan makes {} calls: {} already cached (left out), {} repeats of an earlier request (sent once)",
        thousands(c.calls),
        thousands(c.cached),
        thousands(c.duplicates)
    )?;
    for shard in &s.shards {
        writeln!(
            out,
            "  {}  {} lines, {:.1} MB, model {}",
            shard.file,
            thousands(shard.lines),
            shard.bytes as f64 / 1e6,
            shard.model
        )?;
    }
    writeln!(out, "  manifest: {}", s.manifest.display())?;
    if c.pending == 0 {
        writeln!(
            out,
            "nothing to send: every call is cached ({}); run the same calibrate command with --offline",
            s.cache.display()
        )?;
    } else {
        writeln!(
            out,
            "next: run the files through a batch engine, then `raterlab batch ingest RESULTS --manifest {}{}`, then the same calibrate command with --offline",
            s.manifest.display(),
            cache_flag(&s.cache)
        )?;
    }
    out.flush()?;
    Ok(())
}

/// ` --cache-dir DIR` when the cache is not the default one.
fn cache_flag(cache: &std::path::Path) -> String {
    if cache == crate::run::judges::completions_dir(None) {
        String::new()
    } else {
        format!(" --cache-dir {}", cache.display())
    }
}

pub fn emit_ingest(s: &IngestSummary) -> Result<()> {
    let mut out = crate::report::media::term::stdout();
    let t = &s.tally;
    writeln!(
        out,
        "batch ingest: {} result lines from {} file(s) into {}",
        thousands(t.lines),
        s.files.len(),
        s.cache.display()
    )?;
    writeln!(out, "  cached        {}", thousands(t.cached))?;
    writeln!(out, "  already there {}", thousands(t.already_cached))?;
    let reasons: Vec<String> = t
        .failed
        .iter()
        .map(|(reason, n)| format!("{reason} {}", thousands(*n)))
        .collect();
    writeln!(
        out,
        "  failed        {}{}",
        thousands(t.failed_total()),
        if reasons.is_empty() {
            String::new()
        } else {
            format!(" ({})", reasons.join(", "))
        }
    )?;
    for (reason, message) in &t.examples {
        writeln!(out, "    e.g. {reason}: {message}")?;
    }
    writeln!(
        out,
        "  unknown id    {} (not in {}; skipped)",
        thousands(t.unknown),
        s.manifest.display()
    )?;
    if t.unreadable > 0 {
        writeln!(
            out,
            "  unreadable    {} lines skipped (first: {})",
            thousands(t.unreadable),
            t.first_unreadable.as_deref().unwrap_or("")
        )?;
    }
    if t.write_errors > 0 {
        writeln!(
            out,
            "  not written   {} answers could not be written to the cache",
            thousands(t.write_errors)
        )?;
    }
    if t.samples_unanswered > 0 {
        writeln!(
            out,
            "  no choice     {} samples asked together with 'n' came back without a choice: the engine ignores 'n' (llama.cpp's servers do); export again with --samples-per-request 1",
            thousands(t.samples_unanswered)
        )?;
    }
    writeln!(
        out,
        "the plan's {} requests: {} answered, {} still missing",
        thousands(s.planned),
        thousands(s.planned - s.missing),
        thousands(s.missing)
    )?;
    if s.missing > 0 {
        writeln!(
            out,
            "to send the missing ones again, run the same `raterlab batch export` command: it writes only what is still uncached"
        )?;
    } else {
        writeln!(
            out,
            "every request is answered: run the same calibrate command with --offline"
        )?;
    }
    out.flush()?;
    Ok(())
}

pub fn emit_cancelled(batches: &[BatchInfo]) -> Result<()> {
    let mut out = crate::report::media::term::stdout();
    if batches.is_empty() {
        writeln!(out, "no unfinished batch to cancel")?;
    }
    for b in batches {
        writeln!(out, "batch {}: {}", b.id, b.status)?;
    }
    out.flush()?;
    Ok(())
}

/// Notes on stderr and one bar per batch (done/total from `request_counts`).
#[derive(Default)]
pub struct Watcher {
    multi: Mutex<Option<MultiProgress>>,
    bars: Mutex<HashMap<String, ProgressBar>>,
}

impl std::fmt::Debug for Watcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watcher").finish()
    }
}

impl Watch for Watcher {
    fn note(&self, message: &str) {
        match self
            .multi
            .lock()
            .ok()
            .and_then(|m| m.clone())
            .filter(|m| !m.is_hidden())
        {
            Some(multi) => {
                let _ = multi.println(message);
            }
            None => crate::report::media::format::stderr_line(message),
        }
    }

    fn polled(&self, batches: &[BatchInfo]) {
        let (Ok(mut multi), Ok(mut bars)) = (self.multi.lock(), self.bars.lock()) else {
            return;
        };
        let multi = multi.get_or_insert_with(|| {
            MultiProgress::with_draw_target(crate::report::media::progress::draw_target())
        });
        for b in batches {
            let bar = bars.entry(b.id.clone()).or_insert_with(|| {
                let bar = multi.add(ProgressBar::new(b.counts.total.max(1)));
                bar.set_style(
                    ProgressStyle::with_template("{prefix} {bar:30} {pos}/{len} {msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_bar()),
                );
                bar.set_prefix(b.id.clone());
                bar
            });
            if b.counts.total > 0 {
                bar.set_length(b.counts.total);
            }
            bar.set_position(b.counts.completed + b.counts.failed);
            bar.set_message(format!("{} ({} failed)", b.status, b.counts.failed));
        }
    }

    fn done(&self) {
        if let Ok(mut bars) = self.bars.lock() {
            for (_, bar) in bars.drain() {
                bar.finish_and_clear();
            }
        }
        if let Ok(mut multi) = self.multi.lock() {
            *multi = None;
        }
    }
}
