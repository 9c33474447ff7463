//! `raterlab batch export`: a plan's uncached calls as shard files and a manifest.

use super::{check_batchable, write_shards};
use crate::error::input_error;
use crate::judge::batch::{Format, Manifest};
use crate::run::batch::ExportSummary;
use crate::run::data::{self, Dataset};
use crate::run::judges::{self, completions_dir};
use crate::run::plan::{data_settings, plan, Plan};
use crate::run::settings::PlanSettings;
use anyhow::{Context, Result};
use serde_json::json;
use std::collections::HashSet;
use std::path::Path;

fn plan_json(args: &PlanSettings, dataset: &Dataset, plan: &Plan, seed: u64) -> serde_json::Value {
    json!({
        "source": dataset.source,
        "examples": dataset.examples.len(),
        "seed": seed,
        "both_orders": dataset.both_orders,
        "configs": plan.metas.iter().filter(|m| m.model != "-").map(|m| json!({
            "name": m.name, "model": m.model, "prompt": m.prompt, "rater": m.rater,
            "temperature": m.temperature, "max_tokens": m.max_tokens,
        })).collect::<Vec<_>>(),
        "command": crate::run::command_line(),
        "cache_dir": completions_dir(args.judge.cache_dir.as_deref()),
    })
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
    let planned = plan(
        &plan_args,
        crate::run::plan::Form::Pairs,
        settings.seed,
        &crate::report::media::progress::Steps::default(),
    )?;
    check_batchable(planned.configs.iter(), "batch export")?;
    let dataset = data::load(
        &settings,
        &crate::report::media::progress::Download::default(),
    )?;
    judges::check_configs(&planned.configs, &dataset.examples)?;
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
    let parts: Vec<crate::raters::Part<'_>> = planned
        .configs
        .iter()
        .map(|c| (c, dataset.examples.as_slice()))
        .collect();
    let (shards, counts) = write_shards(&cache_dir, &parts, out, format, &HashSet::new())?;
    let manifest = Manifest {
        raterlab_version: env!("CARGO_PKG_VERSION").into(),
        format,
        created_unix: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
        plan: plan_json(args, &dataset, &planned, settings.seed),
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
