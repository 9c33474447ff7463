//! `raterlab cache stats | export | prune`: the response store.

use clap::{Args, Subcommand};
use std::path::PathBuf;

const CACHE_EXAMPLES: &str = "\
Examples:
  raterlab cache stats
  raterlab cache stats --cache-dir team-cache --json
  raterlab cache export --model qwen2.5-7b --out answers.jsonl
  raterlab cache prune --older-than 90d --dry-run
  raterlab cache prune --model gpt-4o-mini-2024-07-18

The store is SQLite (completions.sqlite in the cache folder, table `completions`): sqlite3,
pandas (read_sql) or DuckDB open it as it is.

Guide: docs/guide.md#the-response-cache-raterlab-cache";

/// The response cache: what it holds, its answers as JSONL, and pruning.
#[derive(Debug, Args)]
#[command(after_help = CACHE_EXAMPLES)]
pub struct CacheArgs {
    #[command(subcommand)]
    pub command: CacheCommand,
}

/// The cache folder, as every cache subcommand takes it.
#[derive(Debug, Clone, Args)]
pub struct CacheDir {
    /// Response cache folder [default: $RATERLAB_CACHE/completions or ~/.cache/raterlab/completions]
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum CacheCommand {
    /// Entries, size on disk, and per model: entries, text, tokens, oldest and newest.
    Stats {
        #[command(flatten)]
        dir: CacheDir,
        /// Print the figures as JSON (key `entries` for the count).
        #[arg(long)]
        json: bool,
    },
    /// Write the cached completions (of one model, or all) as JSONL.
    Export {
        #[command(flatten)]
        dir: CacheDir,
        /// Only this model's completions (as `cache stats` names it).
        #[arg(long, value_name = "NAME")]
        model: Option<String>,
        /// The JSONL file to write (written whole, then renamed into place).
        #[arg(long, value_name = "FILE.jsonl")]
        out: PathBuf,
    },
    /// Delete cached completions by model, by age, or all; --dry-run only counts them.
    Prune {
        #[command(flatten)]
        dir: CacheDir,
        /// Only this model's completions (as `cache stats` names it).
        #[arg(long, value_name = "NAME")]
        model: Option<String>,
        /// Only completions stored longer ago than this: 90d, 12h, 2w.
        #[arg(long, value_name = "AGE")]
        older_than: Option<String>,
        /// Every completion (needed when neither --model nor --older-than is given).
        #[arg(long, conflicts_with_all = ["model", "older_than"])]
        all: bool,
        /// Count what would be deleted; delete nothing.
        #[arg(long)]
        dry_run: bool,
    },
}
