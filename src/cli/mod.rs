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
