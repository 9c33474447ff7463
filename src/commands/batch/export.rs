//! `raterlab batch export`: a plan's uncached calls as shard files and a manifest.

use super::{check_batchable, write_shards};
use crate::error::input_error;
use crate::judge::batch::{Format, Manifest};
use crate::raters::Part;
use crate::run::batch::ExportSummary;
use crate::run::data::{self, Dataset, Rows};
use crate::run::judges::{self, completions_dir};
use crate::run::plan::{data_settings, plan, Form, Plan};
use crate::run::rewardbench2::{layout, PartSpec, Rb2Items};
use crate::run::settings::PlanSettings;
use anyhow::{Context, Result};
use serde_json::json;
use std::collections::HashSet;
use std::path::Path;

/// The data a plan rates, as the manifest describes it.
struct Described {
    source: String,
    /// Examples of pairs; rows of RewardBench 2.
    examples: usize,
    both_orders: bool,
}

fn plan_json(args: &PlanSettings, data: &Described, plan: &Plan, seed: u64) -> serde_json::Value {
    json!({
        "source": data.source,
        "examples": data.examples,
        "seed": seed,
        "both_orders": data.both_orders,
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
    // Pairs: every configuration × every example; RewardBench 2 rows: each configuration's
    // parts, as calibrate lays them out.
    let rows = data::load_rows(
        &settings,
        &crate::report::media::progress::Download::default(),
    )?;
    let form = match &rows {
        Rows::Pairs(_) => Form::Pairs,
        Rows::RewardBench2(_) => Form::RewardBench2,
    };
    let planned = plan(
        &plan_args,
        form,
        settings.seed,
        &crate::report::media::progress::Steps::default(),
    )?;
    check_batchable(planned.configs.iter(), "batch export")?;
    // What each form rates, kept here for the parts to borrow.
    let dataset: Dataset;
    let laid_out: (Rb2Items, Vec<PartSpec>);
    let (parts, data): (Vec<Part<'_>>, Described) = match rows {
        Rows::Pairs(d) => {
            judges::check_configs(&planned.configs, &d.examples)?;
            let data = Described {
                source: d.source.clone(),
                examples: d.examples.len(),
                both_orders: d.both_orders,
            };
            dataset = d;
            let examples = dataset.examples.as_slice();
            (
                planned.configs.iter().map(|c| (c, examples)).collect(),
                data,
            )
        }
        Rows::RewardBench2(set) => {
            let data = Described {
                source: set.source.clone(),
                examples: set.rows.len(),
                both_orders: settings.both_orders,
            };
            laid_out = layout(&planned.configs, &set.rows, settings.both_orders)?;
            let (items, specs) = &laid_out;
            let parts = specs
                .iter()
                .map(|s| (&s.config, items.of(s.kind).examples.as_slice()))
                .collect();
            (parts, data)
        }
    };
    write(args, out, format, &planned, &parts, &data, settings.seed)
}

/// Writes the parts' uncached calls as shards and the manifest.
fn write(
    args: &PlanSettings,
    out: &Path,
    format: Format,
    planned: &Plan,
    parts: &[Part<'_>],
    data: &Described,
    seed: u64,
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
        plan: plan_json(args, data, planned, seed),
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
