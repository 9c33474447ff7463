//! `raterlab report DIR`: a finished run evaluated and rendered again.

use clap::Args;
use std::path::PathBuf;

const REPORT_EXAMPLES: &str = "\
Examples:
  raterlab report notebooks-export/runs/20261122-101500-demo
  raterlab report RUN_DIR --bootstrap 5000 --sort accuracy     # tighter CIs, another order
  raterlab report RUN_DIR --json > results.json

Guide: docs/guide.md#run-directory";

/// Re-render tables, exports and plots of a finished run without calling any judge.
///
/// Reads a directory written by `raterlab calibrate` (run.json, ratings.parquet; for
/// RewardBench 2 runs also items.jsonl and completions.jsonl), evaluates again (the bootstrap
/// seed is the run's) and rewrites its tables, exports, plots and report.html.
#[derive(Debug, Args)]
#[command(after_help = REPORT_EXAMPLES)]
pub struct ReportArgs {
    /// A run directory written by `raterlab calibrate`.
    pub dir: PathBuf,

    /// Bootstrap resamples [default: the run's]
    #[arg(long, value_name = "N")]
    pub bootstrap: Option<usize>,

    /// Metric that orders the comparison table [default: the run's own].
    #[arg(long, value_name = "METRIC", value_parser = clap::value_parser!(crate::run::settings::SortKey))]
    pub sort: Option<crate::run::settings::SortKey>,

    /// Which paired comparisons get a verdict: best or all [default: the run's own]
    #[arg(long, value_name = "FAMILY", value_parser = clap::value_parser!(crate::evaluation::Family))]
    pub family: Option<crate::evaluation::Family>,

    /// The significance level of every test and interval (1 − α) [default: the run's own]
    #[arg(long, value_name = "ALPHA", value_parser = super::alpha)]
    pub alpha: Option<f64>,

    #[command(flatten)]
    pub cost: crate::cli::calibrate::CostArgs,

    /// Print one JSON document to stdout instead of tables.
    #[arg(long)]
    pub json: bool,

    /// On a terminal, print every table after the answer (as `calibrate --details`).
    #[arg(long)]
    pub details: bool,
}
