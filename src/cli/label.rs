//! `raterlab label` (the labelling page) and `raterlab labels` (the store's labels exported
//! and summarised).

use super::DataArgs;
use clap::{Args, Subcommand, ValueEnum};
use std::path::PathBuf;

const LABEL_EXAMPLES: &str = "\
Examples:
  # 30 pairs of a file without gold, labelled in the browser (open the printed address)
  raterlab label --data pairs.csv --map prompt=question,response1=a,response2=b \\
      --store labels.sqlite --annotator ann --limit 30
  # a team: every item labelled by two people, one server each (or ?annotator=NAME on one)
  raterlab label --data pairs.csv --map ... --store labels.sqlite --annotator bob --overlap 2
  # then: the judge against the people's gold
  raterlab calibrate --data pairs.csv --map ... --labels labels.sqlite

On another machine, reach the page through an SSH tunnel (ssh -L 8377:127.0.0.1:8377 HOST),
not with --host 0.0.0.0 on an open network.

Guide: docs/guide.md#labelling-with-raterlab";

/// Label pairs in the browser: a page served on 127.0.0.1, one item at a time by key
/// (1 the response shown first is better, 2 the one shown second, 0 a tie, u undo, s skip),
/// every label committed to a SQLite store before the page moves on.
///
/// The first line printed is the page's address with its token. It serves until Ctrl-C or
/// SIGTERM; run it again on the same store to go on where each annotator stopped.
#[derive(Debug, Args)]
#[command(after_help = LABEL_EXAMPLES)]
pub struct LabelArgs {
    #[command(flatten)]
    pub data: DataArgs,

    /// The label store (SQLite; created if missing). Several servers may share one.
    #[arg(long, value_name = "STORE")]
    pub store: PathBuf,

    /// Who labels (letters, digits, _ . @ -); the page's address may name another with
    /// &annotator=NAME.
    #[arg(long, value_name = "NAME")]
    pub annotator: String,

    /// The port (0: a free one, printed).
    #[arg(long, value_name = "N", default_value_t = 8377)]
    pub port: u16,

    /// The address to bind. Anything but loopback exposes unpublished data: prefer an SSH tunnel.
    #[arg(long, value_name = "IP", default_value = "127.0.0.1")]
    pub host: std::net::IpAddr,

    /// Labelling guidelines (markdown), shown above the first item and on key g after.
    #[arg(long, value_name = "FILE.md")]
    pub guidelines: Option<PathBuf>,

    /// How many annotators each item needs: items that lack them are shown first.
    #[arg(long, value_name = "K", default_value_t = 1)]
    pub overlap: usize,
}

const LABELS_EXAMPLES: &str = "\
Examples:
  raterlab labels export --store labels.sqlite --format csv --out labels.csv
  raterlab labels export --store labels.sqlite --format jsonl --out events.jsonl --history
  raterlab labels stats --store labels.sqlite

Guide: docs/guide.md#labelling-with-raterlab";

/// The labels of a store (`raterlab label`): exported, or summarised per annotator.
#[derive(Debug, Args)]
#[command(after_help = LABELS_EXAMPLES)]
pub struct LabelsArgs {
    #[command(subcommand)]
    pub command: LabelsCommand,
}

/// An export's file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    Jsonl,
    Csv,
    Parquet,
}

#[derive(Debug, Subcommand)]
pub enum LabelsCommand {
    /// The labels in force, one row per label: item_id, annotator, label (-1 response 1
    /// better, 0 tie, 1 response 2, in the data's order), shown_first, seconds, labelled_at,
    /// note.
    #[command(after_help = LABELS_EXAMPLES)]
    Export {
        #[arg(long, value_name = "STORE")]
        store: PathBuf,
        #[arg(long, value_enum)]
        format: ExportFormat,
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// Every event instead (label, undo, skip, note), in the order committed.
        #[arg(long)]
        history: bool,
    },
    /// Per annotator: labels, time per item and position bias; agreement between annotators
    /// on the items they share.
    #[command(after_help = LABELS_EXAMPLES)]
    Stats {
        #[arg(long, value_name = "STORE")]
        store: PathBuf,
        /// Bootstrap resamples for the agreement's intervals (0: none).
        #[arg(long, value_name = "N", default_value_t = crate::evaluation::DEFAULT_BOOTSTRAP)]
        bootstrap: usize,
        /// The tests' level; intervals are at 1 − α.
        #[arg(long, value_name = "A", default_value_t = 0.05)]
        alpha: f64,
        /// The bootstrap's seed.
        #[arg(long, value_name = "S", default_value_t = crate::dataset::examples::DEFAULT_SEED)]
        seed: u64,
    },
}
