//! `raterlab label` (the labelling page) and `raterlab labels` (the store's labels exported
//! and summarised).

use super::DataArgs;
use crate::error::input_error;
use anyhow::Result;
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
  # PAC labelling: 200 uniform items first, then those the judge is unsure of
  raterlab label --data pairs.csv --map ... --store labels.sqlite --annotator ann \
      --order pac --judge judged.csv --uncertainty-col uncertainty --first-round 200
  # the corrected estimate shown as labels arrive; the page says when it is 0.1 wide
  raterlab label --data pairs.csv --map ... --store labels.sqlite --annotator ann \
      --judge judged.csv --stop-at 0.1
  # active labelling: the items plan --active drew
  raterlab label --data pairs.csv --map ... --store labels.sqlite --annotator ann \
      --order active --queue queue.csv --stop-at 0.1

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

    /// Which items, in what order: random (every item, seeded), pac (a uniform first round,
    /// then the items at or above PAC labelling's threshold; needs --judge and
    /// --uncertainty-col), active (the items of --queue that plan --active drew).
    #[arg(long, value_name = "random|pac|active", default_value = "random",
          value_parser = clap::value_parser!(crate::run::labelling::Order))]
    pub order: crate::run::labelling::Order,

    /// Only the items of this table's `id` column (e.g. analyze --pac-out's, plan --active
    /// --out's, whose `drawn`, `p` and `label_prob` columns --order active reads).
    #[arg(long, value_name = "FILE")]
    pub queue: Option<PathBuf>,

    /// The judge's verdicts on the items: a table with the data's ids (`id`, or
    /// --judge-id-col) and the judge's label (--rating-col); with --order pac its uncertainty.
    #[arg(long, value_name = "FILE")]
    pub judge: Option<PathBuf>,

    /// --judge: the id column.
    #[arg(long, value_name = "COL", default_value = "id", requires = "judge")]
    pub judge_id_col: String,

    /// --judge: the judge's label (-1 response 1 better, 0 tie, 1 response 2; --rating-map
    /// reads other values).
    #[arg(long, value_name = "COL", default_value = "rating", requires = "judge")]
    pub rating_col: String,

    /// --judge: read these rating values as these labels, e.g. A=-1,B=1,tie=0.
    #[arg(
        long,
        value_name = "VALUE=LABEL,...",
        value_delimiter = ',',
        allow_hyphen_values = true,
        requires = "judge"
    )]
    pub rating_map: Vec<String>,

    /// --order pac: the judge's uncertainty per item in --judge (e.g. 1 − its confidence).
    #[arg(long, value_name = "COL", requires = "judge")]
    pub uncertainty_col: Option<String>,

    /// --order pac: the uniform first round's size (its labels set the threshold).
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub first_round: usize,

    /// --order pac: the error the labelled set may have at most.
    #[arg(long, value_name = "E", default_value_t = 0.05)]
    pub epsilon: f64,

    /// --order pac: the authors' asymptotic bound (clt) or their betting bound (betting).
    #[arg(long, value_name = "clt|betting", default_value = "betting",
          value_parser = clap::value_parser!(crate::metrics::pac::Bound))]
    pub pac_bound: crate::metrics::pac::Bound,

    /// Show the corrected estimate and its interval as labels arrive (PPI++ from the judge's
    /// labels in --judge, or the active estimate), and say when it is at most W wide.
    #[arg(long, value_name = "W")]
    pub stop_at: Option<f64>,

    /// --stop-at: the label whose share is estimated (-1 response 1 better, 0 tie, 1 response
    /// 2); active labelling estimates label 1's, whose probability --queue's `p` is.
    #[arg(long, value_name = "L", allow_hyphen_values = true, default_value_t = -1)]
    pub estimate_label: i64,

    /// The intervals' level (1 − α) and PAC's guarantee (error at most ε with probability
    /// at least 1 − α).
    #[arg(long, value_name = "A", default_value_t = 0.05, value_parser = super::alpha)]
    pub alpha: f64,
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
        #[arg(long, value_name = "A", default_value_t = 0.05, value_parser = super::alpha)]
        alpha: f64,
        /// The bootstrap's seed.
        #[arg(long, value_name = "S", default_value_t = crate::dataset::examples::DEFAULT_SEED)]
        seed: u64,
    },
}

impl TryFrom<crate::cli::LabelArgs> for crate::run::settings::LabelSettings {
    type Error = anyhow::Error;

    fn try_from(a: crate::cli::LabelArgs) -> Result<Self> {
        use crate::run::labelling::{Asks, JudgeFile, Order};
        let unit = |flag: &str, v: f64| {
            if v > 0.0 && v < 1.0 {
                Ok(v)
            } else {
                Err(input_error(format!(
                    "{flag} {v}: a number strictly between 0 and 1"
                )))
            }
        };
        let alpha = a.alpha;
        if let Some(w) = a.stop_at {
            unit("--stop-at", w)?;
        }
        let judge = match &a.judge {
            Some(path) => Some(JudgeFile {
                path: path.clone(),
                id_col: a.judge_id_col.clone(),
                rating_col: a.rating_col.clone(),
                rating: super::settings::parse_reading(
                    "--rating-map",
                    &a.rating_map,
                    crate::run::settings::Unreadable::Error,
                )?,
                uncertainty_col: a.uncertainty_col.clone(),
            }),
            None => None,
        };
        let pac = match a.order {
            Order::Pac => {
                if judge.as_ref().is_none_or(|j| j.uncertainty_col.is_none()) {
                    return Err(input_error(
                        "--order pac needs the judge's labels and uncertainty: give --judge FILE and --uncertainty-col COL",
                    ));
                }
                if a.first_round == 0 {
                    return Err(input_error(
                        "--first-round 0: PAC labelling sets its threshold from a uniform first round; give its size, e.g. 200",
                    ));
                }
                Some(crate::evaluation::pac::PacSettings {
                    epsilon: unit("--epsilon", a.epsilon)?,
                    alpha,
                    bound: a.pac_bound,
                    seed: a.data.seed,
                })
            }
            _ => None,
        };
        if a.order == Order::Active && a.queue.is_none() {
            return Err(input_error(
                "--order active asks the items plan --active drew: give --queue FILE (plan --active --out's table)",
            ));
        }
        if a.stop_at.is_some() && a.order != Order::Active && judge.is_none() {
            return Err(input_error(
                "--stop-at corrects the judge's labels with yours: give --judge FILE (the judge's label per item id)",
            ));
        }
        Ok(Self {
            data: a.data.into(),
            store: a.store,
            annotator: a.annotator,
            addr: std::net::SocketAddr::new(a.host, a.port),
            guidelines: a.guidelines,
            overlap: a.overlap,
            asks: Asks {
                order: a.order,
                queue: a.queue,
                judge,
                first_round: a.first_round,
                pac,
                stop_at: a.stop_at,
                estimate_label: a.estimate_label,
                alpha,
            },
        })
    }
}

impl TryFrom<crate::cli::LabelsCommand> for crate::run::labelling::LabelsRequest {
    type Error = anyhow::Error;

    fn try_from(c: crate::cli::LabelsCommand) -> Result<Self> {
        use crate::cli::{ExportFormat, LabelsCommand};
        use crate::dataset::frame::Format;
        if let LabelsCommand::Export { out, .. } = &c {
            super::settings::writable_folder("--out", out)?;
        }
        Ok(match c {
            LabelsCommand::Export {
                store,
                format,
                out,
                history,
            } => Self::Export {
                store,
                format: match format {
                    ExportFormat::Jsonl => Format::JsonLines,
                    ExportFormat::Csv => Format::Csv,
                    ExportFormat::Parquet => Format::Parquet,
                },
                out,
                history,
            },
            LabelsCommand::Stats {
                store,
                bootstrap,
                alpha,
                seed,
            } => Self::Stats {
                store,
                bootstrap,
                alpha,
                seed,
            },
        })
    }
}
