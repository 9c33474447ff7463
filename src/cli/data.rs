//! The data options every command that loads pairs shares, and `raterlab data`.

use clap::{Args, Subcommand};
use std::path::PathBuf;

/// Which pairs to load and how to present them (shared by `data` and, later, `calibrate`).
#[derive(Debug, Args, Clone)]
pub struct DataArgs {
    /// `sample` (bundled), `sample-v2` (bundled, RewardBench 2's shape), `filtered` or `raw`
    /// (reward-bench splits), `reward-bench-2` (its test split), or a CSV/Parquet/JSONL file.
    #[arg(long, value_name = "SPEC", default_value = "sample")]
    pub data: String,

    /// Column mapping for non-reward-bench files: FIELD=COL[+COL...], fields prompt, response1,
    /// response2, label, id, subset ('+' joins text columns; for label, the majority vote; an
    /// empty label: the item is unlabelled, rated and kept, in no agreement measure).
    #[arg(long, value_name = "FIELD=COL,...", value_delimiter = ',')]
    pub map: Vec<String>,

    /// Source label → gold label (-1 response 1 better, 0 tie, 1 response 2 better), e.g. 1=-1,2=1,0=0.
    #[arg(
        long,
        value_name = "VALUE=GOLD,...",
        value_delimiter = ',',
        allow_hyphen_values = true
    )]
    pub gold_map: Vec<String>,

    /// With several annotators (--map label=A+B+C): pairs without a majority are left out
    /// (drop) or kept as a tie (tie); either way they are counted, and the report adds the
    /// annotators' agreement and the human ceiling.
    #[arg(long, value_name = "drop|tie", default_value = "drop",
          value_parser = clap::value_parser!(crate::dataset::labels::NoMajority))]
    pub no_majority: crate::dataset::labels::NoMajority,

    /// Keep subsets matching this glob (repeatable), e.g. 'llmbar-*'.
    #[arg(long, value_name = "GLOB")]
    pub subset: Vec<String>,

    /// Keep one of reward-bench's sections (repeatable): chat, chat-hard, safety, reasoning.
    #[arg(long, value_name = "NAME")]
    pub section: Vec<String>,

    /// At most N pairs, sampled (seeded) across subsets in proportion to their size.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,

    /// At most N pairs from each subset (seeded).
    #[arg(long, value_name = "N")]
    pub per_subset: Option<usize>,

    /// Seed for positions and sampling.
    #[arg(long, value_name = "S", default_value_t = crate::dataset::examples::DEFAULT_SEED)]
    pub seed: u64,

    /// Show every pair in both orders (two items, ids suffixed #ab and #ba); on RewardBench 2
    /// rows, the pairs of pairwise configurations.
    #[arg(long)]
    pub both_orders: bool,

    /// Conversations whose two sides differ before their last replies: `error` (the default,
    /// naming the row and the first turn that differs) or `skip` (left out, counted and named
    /// in the run's summary).
    #[arg(long, value_name = "error|skip", default_value = "error", value_parser = unshared)]
    pub unshared: crate::dataset::conversation_file::Unshared,

    /// Gold from a label store (`raterlab label`): an item's gold is the label most of its
    /// annotators gave (none when two labels tie: contested); several annotators feed the
    /// human ceiling. Where the file has gold too, the file's is kept (see --labels-override).
    #[arg(long, value_name = "STORE")]
    pub labels: Option<PathBuf>,

    /// With --labels: the store's gold replaces the file's where both have one.
    #[arg(long, requires = "labels")]
    pub labels_override: bool,
}

fn unshared(s: &str) -> Result<crate::dataset::conversation_file::Unshared, String> {
    match s {
        "error" => Ok(crate::dataset::conversation_file::Unshared::Error),
        "skip" => Ok(crate::dataset::conversation_file::Unshared::Skip),
        _ => Err(format!("'{s}': use error or skip")),
    }
}

const DATA_EXAMPLES: &str = "\
Examples:
  raterlab data summary                                   # the bundled sample
  raterlab data summary --data filtered --section chat-hard
  raterlab data export --data llmbar.parquet --limit 50 --out examples.jsonl
  raterlab data summary --data sample-v2                  # RewardBench 2's shape
  # PandaLM: two text columns joined into the prompt, three annotators' majority as gold
  raterlab data summary --data pandalm.jsonl --gold-map 0=0,1=-1,2=1 \\
      --map prompt=instruction+input,response1=response1,response2=response2 \\
      --map label=annotator1+annotator2+annotator3,id=idx

Guide: docs/guide.md#datasets-raterlab-data";

/// Inspect a dataset: what the judge will see.
#[derive(Debug, Args)]
#[command(after_help = DATA_EXAMPLES)]
pub struct DataCommandArgs {
    #[command(subcommand)]
    pub command: DataCommand,
}

#[derive(Debug, Subcommand)]
pub enum DataCommand {
    /// Pairs per subset and section, gold label balance and text lengths.
    #[command(after_help = DATA_EXAMPLES)]
    Summary {
        #[command(flatten)]
        data: DataArgs,
        /// Bootstrap resamples for the annotators' intervals, when several annotators give
        /// the gold (0: none), as `calibrate --bootstrap`.
        #[arg(long, value_name = "N", default_value_t = crate::evaluation::DEFAULT_BOOTSTRAP)]
        bootstrap: usize,
    },
    /// Write the examples after selection and positions, with golden labels.
    #[command(after_help = DATA_EXAMPLES)]
    Export {
        #[command(flatten)]
        data: DataArgs,
        /// Output file: .csv, .jsonl or .parquet.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
}
