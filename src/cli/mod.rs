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

/// `--alt-test EPSILON` and its options, on every command with several annotators
/// (`analyze`, `calibrate`): can the judge replace an annotator?
#[derive(Debug, clap::Args, Clone, Default)]
pub struct AltTestArgs {
    /// The alternative annotator test (Calderon et al., 2025) at margin ε: each annotator left
    /// out in turn, is the judge closer to the others than they are? A one-sided t-test per
    /// annotator, Benjamini–Yekutieli at --alpha; the judge passes when it beats half the
    /// annotators. The authors recommend ε 0.2 for experts, 0.15 for skilled annotators, 0.1
    /// for crowd workers. Needs several annotators.
    #[arg(long, value_name = "EPSILON")]
    pub alt_test: Option<f64>,

    /// --alt-test: how the left-out human and the judge are scored against the others
    /// [default: accuracy for categories and verdicts, neg_rmse for graded labels]
    #[arg(long, value_name = "accuracy|neg_rmse", value_parser = alt_test_score)]
    pub alt_test_score: Option<crate::metrics::alt_test::Score>,

    /// --alt-test: the annotators an item needs to count [default: 2]
    #[arg(long, value_name = "N")]
    pub alt_test_min_annotators: Option<usize>,

    /// --alt-test: the items an annotator needs to be tested; one with fewer is left out and
    /// named [default: 30]
    #[arg(long, value_name = "N")]
    pub alt_test_min_items: Option<usize>,
}

fn alt_test_score(s: &str) -> Result<crate::metrics::alt_test::Score, String> {
    match s {
        "accuracy" => Ok(crate::metrics::alt_test::Score::Accuracy),
        "neg_rmse" => Ok(crate::metrics::alt_test::Score::NegRmse),
        _ => {
            Err("the scoring is accuracy (categories, verdicts) or neg_rmse (graded labels)".into())
        }
    }
}

impl AltTestArgs {
    /// The settings, checked (exit code 2 on a bad value).
    pub fn settings(&self) -> anyhow::Result<crate::evaluation::alt_test::AltTestSettings> {
        crate::evaluation::alt_test::AltTestSettings {
            epsilon: self.alt_test,
            score: self.alt_test_score,
            min_annotators: self.alt_test_min_annotators,
            min_items: self.alt_test_min_items,
        }
        .checked()
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
    Plan(Box<PlanSizeArgs>),
    Label(Box<LabelArgs>),
    Labels(LabelsArgs),
}
