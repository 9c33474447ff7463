//! `raterlab plan`: items needed before a difference between two judges is real.

use clap::Args;
use std::path::PathBuf;

const PLAN_EXAMPLES: &str = "\
Examples:
  # items needed to see a 3-point accuracy difference when 20% of items split the two judges
  raterlab plan --diff 0.03 --discordance 0.2

  # the same from a finished run: each compared pair's measured discordance
  raterlab plan --diff 0.03 --from notebooks-export/runs/20261122-101500-demo

  # quadratic kappa, by simulation with the simulated judge (accuracy 0.75 vs 0.80)
  raterlab plan --metric kappa_quadratic --accuracy 0.75 --diff 0.05

  # human labels for --estimate, from a pilot: 300 split by class, and for a 0.05-wide interval
  raterlab plan --labels 300 --width 0.05 --pilot pilot.csv

  # active labelling: which of the judged items to label, 10% of them on average
  raterlab plan --active --input judged.csv --probability p --budget 0.1 --pilot pilot.csv \
      --out queue.csv

Guide: docs/methods.md#raterlab-plan-how-many-items-before-a-difference-is-real";

/// How many items an evaluation needs before a difference between two judges is real; with
/// --labels or --width, how many human labels --estimate needs, from a pilot.
///
/// Accuracy: McNemar's test by the normal approximation (Connor 1987) from the discordance (the
/// share of items exactly one judge gets right), assumed with --discordance or measured per
/// compared pair of a run with --from. Quadratic kappa: by simulation with two simulated
/// judges (`--judge sim:accuracy=A,tie_rate=T`, no position bias) on gold ±1.
#[derive(Debug, Args)]
#[command(after_help = PLAN_EXAMPLES)]
pub struct PlanSizeArgs {
    /// The difference to detect (accuracy points as a fraction, e.g. 0.03; or kappa).
    #[arg(long, value_name = "D", allow_hyphen_values = true, required_unless_present_any = ["labels", "width", "active", "alt_test"])]
    pub diff: Option<f64>,

    /// Human labels for --estimate: split M calibration labels between items without and with
    /// the label (Lee et al.'s allocation), from --pilot's judge rate, sensitivity and
    /// specificity.
    #[arg(long, value_name = "M", requires = "pilot", conflicts_with = "diff")]
    pub labels: Option<usize>,

    /// Human labels for --estimate: the labelled items PPI++ needs for an interval W wide (at
    /// --alpha), from --pilot's variances, beside the humans alone.
    #[arg(long, value_name = "W", requires = "pilot", conflicts_with = "diff")]
    pub width: Option<f64>,

    /// With --labels or --width: a pilot, a file analyze reads with `gold` (empty where
    /// unlabelled) and `rating` columns (e.g. a one-configuration run's ratings.csv).
    #[arg(long, value_name = "FILE")]
    pub pilot: Option<PathBuf>,

    /// Active labelling (Zrnic and Candès, 2024): each item of --input gets the chance
    /// π = clip((1 − τ)·η·u + τ·B, 0, 1) of going to a human, u = min(p, 1 − p), τ tuned on
    /// --pilot; then a seeded Bernoulli(π) draw of the items to label.
    #[arg(long, requires_all = ["input", "probability", "budget", "pilot"], conflicts_with_all = ["diff", "labels", "width"])]
    pub active: bool,

    /// With --active: the judged items (an `id` column, or --id-col; and --probability).
    #[arg(long, value_name = "FILE", requires = "active")]
    pub input: Option<PathBuf>,

    /// With --active: the column of the judge's probability of label 1, in --input and
    /// --pilot.
    #[arg(long, value_name = "COL", requires = "active")]
    pub probability: Option<String>,

    /// With --active: the labels to pay for, as a share of the items (0.1) or a number (200);
    /// the draw asks for this many on average.
    #[arg(long, value_name = "B", requires = "active")]
    pub budget: Option<f64>,

    /// With --active: the pilot's gold column (read with --gold-map).
    #[arg(long, value_name = "COL", default_value = "gold")]
    pub gold_col: String,

    /// With --active: read these gold values as these labels, e.g. agrees=1,disagrees=0.
    #[arg(
        long,
        value_name = "VALUE=LABEL,...",
        value_delimiter = ',',
        allow_hyphen_values = true
    )]
    pub gold_map: Vec<String>,

    /// With --active: the id column of --input [default: id, else the row number].
    #[arg(long, value_name = "COL")]
    pub id_col: Option<String>,

    /// With --active: write the plan as a table (id, p, label_prob, drawn) that
    /// `label --order active --queue` reads.
    #[arg(long, value_name = "FILE", requires = "active")]
    pub out: Option<PathBuf>,

    /// With --width: the unlabelled items the judge will rate [default: the pilot's].
    #[arg(long, value_name = "N", requires = "width")]
    pub unlabelled: Option<usize>,

    /// With --labels or --width: the label whose share is estimated.
    #[arg(long, value_name = "L", allow_hyphen_values = true, default_value_t = -1)]
    pub estimate_label: i64,

    /// accuracy or kappa_quadratic.
    #[arg(long, value_name = "METRIC", default_value = "accuracy",
          value_parser = clap::value_parser!(crate::run::settings::PlanMetric))]
    pub metric: crate::run::settings::PlanMetric,

    /// Accuracy: the assumed share of items exactly one of the two judges gets right.
    #[arg(long, value_name = "P", conflicts_with = "from")]
    pub discordance: Option<f64>,

    /// Accuracy: a run directory whose compared pairs give the measured discordance.
    #[arg(long, value_name = "RUN_DIR")]
    pub from: Option<PathBuf>,

    /// kappa_quadratic: the first simulated judge's accuracy (the second's is accuracy + diff).
    #[arg(long, value_name = "A", default_value_t = 0.75)]
    pub accuracy: f64,

    /// kappa_quadratic: how often both simulated judges say tie, before accuracy applies.
    #[arg(long, value_name = "T", default_value_t = 0.0)]
    pub tie_rate: f64,

    /// Significance level (two-sided).
    #[arg(long, value_name = "ALPHA", default_value_t = 0.05, value_parser = super::alpha)]
    pub alpha: f64,

    /// Power to reach.
    #[arg(long, value_name = "POWER", default_value_t = 0.8)]
    pub power: f64,

    /// kappa_quadratic: simulated datasets per size.
    #[arg(long, value_name = "N", default_value_t = 2000)]
    pub runs: usize,

    /// Seed of the simulation (ChaCha8).
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,

    /// The alt-test (Calderon et al., 2025): the winning rate a judge reaches by the number of
    /// items, at each margin ε given (e.g. 0.05,0.1,0.2), by the authors' simulation of
    /// annotators and a judge around a gold label (accuracy scoring, Benjamini–Yekutieli at
    /// --alpha).
    #[arg(long, value_name = "EPSILON,...", value_delimiter = ',')]
    pub alt_test: Vec<f64>,

    /// --alt-test: the annotators each test has.
    #[arg(long, value_name = "N", default_value_t = 3, requires = "alt_test")]
    pub annotators: usize,

    /// --alt-test: the label categories.
    #[arg(long, value_name = "K", default_value_t = 4, requires = "alt_test")]
    pub categories: usize,

    /// --alt-test: each annotator's noise η_h, the share of its labels drawn from the
    /// categories' priors rather than the gold label.
    #[arg(long, value_name = "ETA", default_value_t = 0.3, requires = "alt_test")]
    pub annotator_noise: f64,

    /// --alt-test: the judge's noise η_f, as --annotator-noise.
    #[arg(long, value_name = "ETA", default_value_t = 0.3, requires = "alt_test")]
    pub judge_noise: f64,

    /// --alt-test: the numbers of items to try [default: 30, 40, ..., 200].
    #[arg(
        long,
        value_name = "N,...",
        value_delimiter = ',',
        requires = "alt_test"
    )]
    pub sizes: Vec<usize>,

    /// --alt-test: simulated datasets (each with its own priors), and draws per size of each.
    #[arg(long, value_name = "N", default_value_t = 20, requires = "alt_test")]
    pub datasets: usize,

    /// --alt-test: draws of items and annotators per dataset and size.
    #[arg(long, value_name = "N", default_value_t = 10, requires = "alt_test")]
    pub boots: usize,

    /// Print one JSON document to stdout instead of a table.
    #[arg(long)]
    pub json: bool,
}
