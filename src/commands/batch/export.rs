//! `raterlab batch export`: a plan's uncached calls as shard files and a manifest.

use super::{check_batchable, write_shards};
use crate::error::input_error;
use crate::judge::batch::{Format, Manifest};
use crate::raters::Part;
use crate::run::batch::ExportSummary;
use crate::run::data;
use crate::run::forms::Described;
use crate::run::judges::completions_dir;
use crate::run::plan::{data_settings, plan, Plan};
use crate::run::settings::PlanSettings;
use anyhow::{Context, Result};
use serde::Serialize;
use std::collections::HashSet;
use std::path::Path;

/// The plan as the manifest describes it.
#[derive(Serialize)]
struct PlanJson<'a> {
    source: &'a str,
    /// Examples of pairs; rows of RewardBench 2.
    examples: usize,
    seed: u64,
    both_orders: bool,
    configs: Vec<ConfigJson<'a>>,
    command: Vec<String>,
    cache_dir: std::path::PathBuf,
}

/// A configuration that calls a model.
#[derive(Serialize)]
struct ConfigJson<'a> {
    name: &'a str,
    model: &'a str,
    prompt: &'a str,
    rater: &'a str,
    temperature: f64,
    max_tokens: u32,
}

fn plan_json(
    args: &PlanSettings,
    data: &Described,
    both_orders: bool,
    plan: &Plan,
) -> serde_json::Value {
    serde_json::to_value(PlanJson {
        source: &data.source,
        examples: data.examples,
        seed: data.seed,
        both_orders,
        configs: plan
            .metas
            .iter()
            .filter(|m| m.model != "-")
            .map(|m| ConfigJson {
                name: &m.name,
                model: &m.model,
                prompt: &m.prompt,
                rater: &m.rater,
                temperature: m.temperature,
                max_tokens: m.max_tokens,
            })
            .collect(),
        command: crate::run::command_line(),
        cache_dir: completions_dir(args.judge.cache_dir.as_deref()),
    })
    .unwrap_or_default()
}

/// `raterlab batch export`.
pub fn export(args: &PlanSettings, out: &Path, format: &str) -> Result<ExportSummary> {
    let format = Format::parse(format).ok_or_else(|| {
        input_error(format!(
            "--format '{format}' is not a batch format; use openai (OpenAI Batch, vLLM run-batch, Ray) or anthropic"
        ))
    })?;
    if out.is_file() {
        return Err(input_error(format!(
            "--out '{}' is a file; batch export writes a folder of shard files and manifest.json",
            out.display()
        )));
    }
    let settings = data_settings(args)?;
    let mut plan_args = args.clone();
    // No endpoint, no call, and the cache read for its keys only (below).
    plan_args.judge.offline = true;
    plan_args.judge.no_cache = true;
    // Pairs: every configuration × every example; RewardBench 2 rows: each configuration's
    // parts, as calibrate lays them out.
    let rows = data::load_rows(
        &settings,
        &crate::report::media::progress::Download::default(),
    )?;
    let planned = plan(
        &plan_args,
        rows.form(),
        settings.seed,
        &crate::report::media::progress::Steps::default(),
    )?;
    check_batchable(planned.configs.iter(), "batch export")?;
    let laid_out = rows.layout(&planned.configs, settings.both_orders)?;
    write(
        args,
        out,
        format,
        &planned,
        &laid_out.parts(),
        (&rows.described(), settings.both_orders),
    )
}

/// Writes the parts' uncached calls as shards and the manifest.
fn write(
    args: &PlanSettings,
    out: &Path,
    format: Format,
    planned: &Plan,
    parts: &[Part<'_>],
    (data, both_orders): (&Described, bool),
) -> Result<ExportSummary> {
    let cache_dir = completions_dir(args.judge.cache_dir.as_deref());
    if cache_dir.is_file() {
        return Err(input_error(format!(
            "--cache-dir '{}' is a file; give the folder of the response cache",
            cache_dir.display()
        )));
    }
    // Shards of an earlier export into this folder are replaced, never mixed in.
    let manifest_path = out.join("manifest.json");
    if let Ok(old) = Manifest::read(&manifest_path) {
        for s in old.shards {
            let _ = std::fs::remove_file(out.join(s.file));
        }
    }
    let per_request = crate::run::judges::samples_per_request(&args.judge);
    let (shards, counts) = write_shards(
        &cache_dir,
        parts,
        out,
        (format, per_request),
        &HashSet::new(),
    )?;
    let manifest = Manifest {
        raterlab_version: env!("CARGO_PKG_VERSION").into(),
        format,
        created_unix: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
        plan: plan_json(args, data, both_orders, planned),
        counts: counts.clone(),
        shards: shards.clone(),
    };
    manifest
        .write(&manifest_path, out)
        .with_context(|| format!("writing '{}'", manifest_path.display()))?;
    Ok(ExportSummary {
        dir: out.to_path_buf(),
        manifest: manifest_path,
        format,
        counts,
        shards,
        cache: cache_dir,
    })
}
