//! `raterlab batch export | ingest | cancel`.

use super::calibrate::PlanArgs;
use clap::{Args, Subcommand};
use std::path::PathBuf;

const BATCH_EXAMPLES: &str = "\
Examples:
  # write the uncached calls of a plan as OpenAI Batch JSONL (one file per model, <= 50,000 lines)
  raterlab batch export --model gpt-4o-mini --data filtered --both-orders \\
      --prompt simple_with_tie --rater sc:5 --out batch/

  # run them elsewhere (vLLM, OpenAI Batch, examples/ray_batch.py), then read the results
  vllm run-batch -i batch/gpt-4o-mini-001.jsonl -o results.jsonl --model gpt-4o-mini
  raterlab batch ingest results.jsonl --manifest batch/manifest.json

  # the same plan, reported from the cache
  raterlab calibrate --offline --model gpt-4o-mini --data filtered --both-orders \\
      --prompt simple_with_tie --rater sc:5

  # or all in one: upload, wait, download, ingest, report (resumable)
  raterlab calibrate --batch --endpoint https://api.openai.com/v1 --model gpt-4o-mini ...

Guide: docs/guide.md#batch-engines-openai-batch-vllm-run-batch-anthropic-ray-data";

/// Hand judge calls to batch engines (OpenAI Batch, vLLM run-batch, Anthropic Message
/// Batches, Ray Data) and take the answers back into the response cache.
///
/// Every request's custom_id is its cache key, so answers that come back by any route land in
/// the cache an online run reads: `calibrate --offline` with the same options then reports
/// exactly as an online run would.
#[derive(Debug, Args)]
#[command(after_help = BATCH_EXAMPLES)]
pub struct BatchArgs {
    #[command(subcommand)]
    pub command: BatchCommand,
}

#[derive(Debug, Subcommand)]
pub enum BatchCommand {
    /// Write the plan's uncached calls as batch input files and a manifest.json.
    ///
    /// Takes calibrate's plan options (data, prompts, raters, --model, seed, orders,
    /// sampling, --cache-dir); no endpoint. One file per model, split at 50,000 lines or
    /// about 190 MB, each custom_id once; cached calls are left out, so after an ingest the
    /// same command writes only what is still missing. On RewardBench 2 rows, each
    /// configuration's calls as calibrate makes them (Ties' grades included).
    #[command(after_help = BATCH_EXAMPLES)]
    Export {
        #[command(flatten)]
        plan: Box<PlanArgs>,

        /// Folder for the shard files and manifest.json (created if missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,

        /// Request format: openai (OpenAI Batch, vLLM run-batch, SGLang, Ray) or anthropic
        /// (Message Batches request bodies).
        #[arg(long, value_name = "FORMAT", default_value = "openai")]
        format: String,
    },
    /// Read batch results into the response cache.
    ///
    /// Reads OpenAI output and error files, vLLM run-batch output, Anthropic results and
    /// {custom_id, text | generated_text} tables (JSONL or Parquet, as a Ray Data pipeline
    /// writes them; a folder means every such file in it). Only successes are cached;
    /// failures are counted by reason, unknown custom_ids are counted and skipped, and a
    /// second ingest of the same file changes nothing.
    #[command(after_help = BATCH_EXAMPLES)]
    Ingest {
        /// Result files or folders.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,

        /// The export's manifest.json [default: manifest.json beside the first file or in a
        /// folder above it]
        #[arg(long, value_name = "FILE")]
        manifest: Option<PathBuf>,

        /// Response cache folder [default: $RATERLAB_CACHE/completions or ~/.cache/raterlab/completions]
        #[arg(long, value_name = "DIR")]
        cache_dir: Option<PathBuf>,
    },
    /// Cancel batches that `calibrate --batch` left running (results so far stay
    /// downloadable; the same calibrate command ingests them).
    Cancel {
        /// Base URL of the Batch API, e.g. https://api.openai.com/v1.
        #[arg(long, value_name = "URL", env = "OPENAI_BASE_URL")]
        endpoint: String,

        /// Environment variable holding the API key.
        #[arg(long, value_name = "VAR", default_value = "OPENAI_API_KEY")]
        api_key_env: String,

        /// The run's batch state file (calibrate --batch prints it); cancels its unfinished
        /// batches.
        #[arg(long, value_name = "FILE", required_unless_present = "ids")]
        state: Option<PathBuf>,

        /// Batch ids to cancel.
        #[arg(value_name = "BATCH_ID")]
        ids: Vec<String>,
    },
}
