//! Command-line arguments (clap), one file per subcommand. Nothing here is trusted: `run/`
//! checks these into settings (`run::data`, `run::judges`, `run::plan`, `run::analysis`) before any
//! work starts.

mod analyze;
mod batch;
mod cache;
mod calibrate;
mod data;
mod judge;
mod label;
mod plan;
mod prompts;
mod rate;
mod report;
mod settings;

pub use analyze::*;
pub use batch::*;
pub use cache::*;
pub use calibrate::*;
pub use data::*;
pub use judge::*;
pub use label::*;
pub use plan::*;
pub use prompts::*;
pub use rate::*;
pub use report::*;

use clap::{Parser, Subcommand};

/// `--alpha` on every command: the significance level, read by `evaluation::alpha`'s one rule
/// (a number strictly between 0 and 1), refused as the arguments are read (exit code 2).
fn alpha(s: &str) -> Result<f64, String> {
    let level =
        "the significance level is a number strictly between 0 and 1, e.g. 0.05 for 95% intervals";
    match s.parse::<f64>() {
        Ok(a) if crate::evaluation::alpha(a).is_ok() => Ok(a),
        _ => Err(level.to_string()),
    }
}

/// Meta-evaluate LLM autoraters: how well does a judge agree with the gold labels, and is
/// configuration B really better than A?
#[derive(Debug, Parser)]
#[command(name = "raterlab", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    Analyze(Box<AnalyzeArgs>),
    Data(DataCommandArgs),
    Calibrate(Box<CalibrateArgs>),
    Report(ReportArgs),
    Rate(Box<RateArgs>),
    Prompts(PromptsArgs),
    Batch(Box<BatchArgs>),
    Cache(CacheArgs),
    Plan(PlanSizeArgs),
    Label(Box<LabelArgs>),
    Labels(LabelsArgs),
}
