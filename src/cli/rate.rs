//! `raterlab rate`: one configuration's ratings to a file.

use super::data::DataArgs;
use super::judge::JudgeArgs;
use clap::Args;
use std::path::PathBuf;

const RATE_EXAMPLES: &str = "\
Examples:
  # the simulated judge on the bundled sample, offline
  raterlab rate --judge sim --prompt simple_with_tie --rater sc:5 --out ratings.csv

  # a local Ollama server
  raterlab rate --endpoint http://127.0.0.1:11434/v1 --model qwen2.5:7b \\
      --prompt mt-bench_pairwise --rater basic --limit 50 --out ratings.jsonl

  # replay recorded completions (e.g. LLMBar's) with the parser that reads them
  raterlab rate --data llmbar.parquet --both-orders --judge replay:GPT-4-Vanilla.jsonl \\
      --prompt simple_no_tie --parser output_ab --out replay.csv

Guide: docs/guide.md#judges-prompts-parsers-and-raters";

/// Rate every example with one judge configuration and write the ratings.
///
/// Each item ends rated (-1 response 1 better, 0 tie, 1 response 2 better), without a
/// verdict (the answer could not be read) or failed (no answer), with the reason, the raw
/// completions, latency and tokens. Answers are cached on disk as they arrive, so a re-run
/// makes no call it already paid for.
#[derive(Debug, Args)]
#[command(after_help = RATE_EXAMPLES)]
pub struct RateArgs {
    #[command(flatten)]
    pub data: DataArgs,

    #[command(flatten)]
    pub judge: JudgeArgs,

    /// Prompt template: a built-in name (see `raterlab prompts list`) or a TOML file.
    #[arg(long, value_name = "NAME|FILE", default_value = "simple_with_tie")]
    pub prompt: String,

    /// Verdict parser, replacing the template's (see `raterlab prompts list`).
    #[arg(long, value_name = "NAME")]
    pub parser: Option<String>,

    /// basic, sc:N[:mean|majority|unanimous], random, longer or first.
    #[arg(long, value_name = "RATER", default_value = "basic")]
    pub rater: String,

    /// Ratings file: .csv, .jsonl or .parquet.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}
