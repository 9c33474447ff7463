//! `raterlab calibrate` and the plan options it shares with `batch export`.

use super::data::DataArgs;
use super::judge::JudgeArgs;
use clap::Args;
use std::path::PathBuf;

const CALIBRATE_EXAMPLES: &str = "\
Examples:
  # offline demo: bundled sample, simulated judge, the notebook's three prompts x basic and sc:5, baselines
  raterlab calibrate --demo

  # two prompts x two raters against a local Ollama server, 200 reward-bench pairs in both orders
  raterlab calibrate --endpoint http://127.0.0.1:11434/v1 --model qwen2.5:7b \\
      --data filtered --limit 200 --both-orders \\
      --prompt simple_with_tie --prompt mt-bench_pairwise --rater basic --rater sc:5 --rater longer

  # RewardBench 2 (best-of-4 rows): reward-bench's four-way judge, its ratings and a pairwise prompt
  raterlab calibrate --data reward-bench-2 --endpoint http://127.0.0.1:8080/v1 --model qwen \\
      --prompt rb2_ranking --prompt rb2_rating --prompt simple_no_tie

  # the system level: which models wrote the responses, each model's win rate, the ranking
  # against Chatbot Arena's Elo (see docs/methods.md, \"The system level\")
  raterlab calibrate --data rows.jsonl --judge replay:recordings.jsonl --prompt alpaca_eval_weighted \
      --map prompt=instruction,response1=output_1,response2=output_2,label=label,generator1=generator_1,generator2=generator_2 \
      --reference arena.csv --reference-map model=model,score=arena_elo

  # an experiment file naming several judges (see docs/guide.md, \"Experiment files\")
  raterlab calibrate --config experiment.toml --json > results.json

  # re-render a finished run without calling any judge
  raterlab report notebooks-export/runs/20261122-101500-demo

Guide: docs/guide.md#raterlab-calibrate (the methods: docs/methods.md)";

/// Compare judge configurations side by side: which prompt × rater × model agrees best with
/// the gold labels, by how much, and whether the difference is real.
///
/// Runs every configuration over the same examples with one shared concurrency budget
/// (answers are cached as they arrive, so an interrupted run resumes for free), then reports
/// counts, accuracy, Cohen's kappa (quadratic and unweighted), Spearman and Kendall with
/// bootstrap CIs, parse-failure policies, position bias (with --both-orders), reward-bench
/// section scores and paired tests (McNemar, paired bootstrap, Holm) between configurations.
/// Everything is written to a run directory (CSV, Parquet, JSON, LaTeX, SVG plots).
#[derive(Debug, Args, Clone)]
#[command(after_help = CALIBRATE_EXAMPLES)]
pub struct CalibrateArgs {
    #[command(flatten)]
    pub plan: PlanArgs,

    /// Bootstrap resamples for confidence intervals and paired tests (0 turns them off).
    #[arg(long, value_name = "N", default_value_t = crate::evaluation::DEFAULT_BOOTSTRAP)]
    pub bootstrap: usize,

    /// Metric that orders the comparison table: kappa_quadratic, kappa, accuracy, spearman,
    /// kendall_tau_b [default: kappa_quadratic; RewardBench 2 rows: accuracy orders the
    /// configurations by the leaderboard, the only score they have]
    #[arg(long, value_name = "METRIC", value_parser = clap::value_parser!(crate::run::settings::SortKey))]
    pub sort: Option<crate::run::settings::SortKey>,

    /// Which paired comparisons get a verdict: best (the best configuration on the sort
    /// metric against each other one, and each jury against its members) or all (every
    /// pair). Holm counts every pair either way, as the best is chosen from the same data;
    /// each interval beside a verdict is at the level of the Holm step that decided it.
    #[arg(long, value_name = "FAMILY", default_value = "best", value_parser = clap::value_parser!(crate::evaluation::Family))]
    pub family: crate::evaluation::Family,

    #[command(flatten)]
    pub cost: CostArgs,

    /// Print one JSON document to stdout instead of tables.
    #[arg(long)]
    pub json: bool,

    /// On a terminal, print every table (parse failures, position, pointwise, sections,
    /// confusion, bias, consistency, annotators) after the answer; piped or redirected
    /// output always has them.
    #[arg(long)]
    pub details: bool,

    /// Run directory [default: notebooks-export/runs/<timestamp>-<name>]
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Name of the run (in the run directory's name) [default: demo, or the data's name]
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,

    /// Model scores to compare each configuration's ranking of the models with (the data's
    /// generators: --map generator1=COL,generator2=COL, reward-bench's chosen_model and
    /// rejected_model, AlpacaEval's generator_1/2): a CSV/Parquet/JSONL table read with
    /// --reference-map, or `gold` for the ranking the gold labels give.
    #[arg(long, value_name = "FILE|gold")]
    pub reference: Option<String>,

    /// The reference table's columns: model=COL,score=COL (white space in names folded; a
    /// column name may hold commas).
    #[arg(long, value_name = "model=COL,score=COL", requires = "reference")]
    pub reference_map: Vec<String>,

    #[command(flatten)]
    pub batch: BatchRunArgs,

    #[command(flatten)]
    pub sequential: SequentialArgs,

    #[command(flatten)]
    pub estimate: EstimateArgs,

    #[command(flatten)]
    pub alt_test: super::AltTestArgs,
}

/// `calibrate --estimate`: corrected estimates from the items with gold and those without.
#[derive(Debug, Args, Clone)]
pub struct EstimateArgs {
    /// Corrected estimates: the items without a gold label are the unlabelled set, rated
    /// with the rest. For each configuration, the share of items labelled --estimate-label by
    /// the judge alone, the humans alone, PPI, PPI++ and Rogan–Gladen, each with a 1 − α
    /// interval, and the judge's worth in human labels; with the models named
    /// (--map generator1=COL,generator2=COL), each model's win rate and rank-set
    /// (prediction-powered ranking).
    #[arg(long)]
    pub estimate: bool,

    /// --estimate: the label whose share is estimated: -1 (response 1 better), 0 (a tie) or 1
    /// (response 2 better).
    #[arg(long, value_name = "L", requires = "estimate", allow_hyphen_values = true, default_value_t = -1)]
    pub estimate_label: i64,

    /// The significance level: every paired test, the family's Holm steps, the significance
    /// groups, the race of --sequential, --estimate's intervals, and every interval at 1 − α.
    #[arg(long, value_name = "ALPHA", default_value_t = crate::evaluation::paired::ALPHA, value_parser = super::alpha)]
    pub alpha: f64,
}

/// `calibrate --sequential`: the run stops paying once its comparison is decided.
#[derive(Debug, Args, Clone)]
pub struct SequentialArgs {
    /// Race the configurations as their answers arrive, with anytime-valid intervals
    /// (confseq's empirical-Bernstein sequence, α = 0.05 split over every pair): a
    /// configuration shown worse than another gets no more calls, and the run stops when one
    /// is left. With A,B (two configuration names) only those two are compared, and the run
    /// stops once they are told apart. Items come in a seeded random order.
    #[arg(long, value_name = "A,B", num_args = 0..=1, default_missing_value = "")]
    pub sequential: Option<String>,

    /// --sequential: rate the items in the file's order instead of a seeded random one (the
    /// intervals assume an order independent of the items' content).
    #[arg(long, requires = "sequential")]
    pub no_shuffle: bool,
}

/// What a run rates: data, judges, prompts and raters (shared by `calibrate` and
/// `batch export`, so an export holds exactly the calls the same `calibrate` makes).
#[derive(Debug, Args, Clone)]
pub struct PlanArgs {
    #[command(flatten)]
    pub data: DataArgs,

    #[command(flatten)]
    pub judge: JudgeArgs,

    /// Prompt template (repeatable): a built-in name (`raterlab prompts list`) or a TOML file
    /// [default: simple_with_tie; rb2_ranking on RewardBench 2 rows; --demo: its three]
    #[arg(long = "prompt", value_name = "NAME|FILE")]
    pub prompts: Vec<String>,

    /// Rater (repeatable): basic, sc:N[:mean|majority|unanimous], random, longer, first
    /// [default: basic; --demo on pairs: basic, sc:5 and the three baselines]
    #[arg(long = "rater", value_name = "RATER")]
    pub raters: Vec<String>,

    /// Verdict parser for every prompt, replacing the templates' own.
    #[arg(long, value_name = "NAME")]
    pub parser: Option<String>,

    /// Experiment file (TOML) naming judges, prompts and raters.
    #[arg(long, value_name = "FILE", conflicts_with = "demo")]
    pub config: Option<PathBuf>,

    /// A jury (repeatable): several configurations voting as one, from their answers (no
    /// new call). Members are judge labels (a jury per prompt × rater) or configuration
    /// names; VOTE is majority (default), unanimous, mean, probability or reward-bench.
    /// Example: --jury poll=qwen,llama,gpt4 or --jury poll:mean=qwen,llama,gpt4
    #[arg(long = "jury", value_name = "NAME[:VOTE]=MEMBER,MEMBER,...",
          value_parser = clap::value_parser!(crate::run::settings::JuryEntry))]
    pub juries: Vec<crate::run::settings::JuryEntry>,

    /// The offline demo: bundled sample, simulated judge, the notebook's three prompts ×
    /// basic and sc:5 (9 configurations with the random, longer and first baselines).
    #[arg(long)]
    pub demo: bool,
}

/// `calibrate --batch`: the calls go through the endpoint's Batch API.
#[derive(Debug, Args, Clone)]
pub struct BatchRunArgs {
    /// Send the uncached calls through the endpoint's Batch API (OpenAI-compatible: /files
    /// and /batches) instead of one request each, wait for the batches, then report as
    /// usual. Batch ids are saved at once: the same command again resumes them.
    #[arg(long, conflicts_with_all = ["offline", "no_cache"])]
    pub batch: bool,

    /// --batch: seconds before the first status poll; the wait grows 1.5x per poll up to 10
    /// minutes.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 30.0,
        requires = "batch"
    )]
    pub poll_interval: f64,

    /// --batch: rounds of batches at most (the first, then resubmissions of requests that
    /// expired, were cancelled or failed in a way worth retrying).
    #[arg(long, value_name = "N", default_value_t = 3, requires = "batch")]
    pub batch_rounds: u32,
}

/// The cost analysis's options (`calibrate` and `report`).
#[derive(Debug, Args, Clone)]
pub struct CostArgs {
    /// Non-inferiority margin on the sort metric: the cheapest configuration whose paired
    /// bootstrap puts it within this much of the best (one-sided 95% bound) is named.
    #[arg(long, value_name = "DELTA", default_value_t = crate::evaluation::cost::DEFAULT_MARGIN,
          value_parser = margin)]
    pub margin: f64,

    /// What costs are counted in: usd, tokens, seconds (the requests' latencies) or requests
    /// [default: usd when every judge has a --price, else tokens]
    #[arg(long, value_name = "UNIT", value_parser = clap::value_parser!(crate::evaluation::cost::CostUnit))]
    pub cost_unit: Option<crate::evaluation::cost::CostUnit>,
}

fn margin(s: &str) -> Result<f64, String> {
    s.parse::<f64>()
        .ok()
        .filter(|m| m.is_finite() && *m > 0.0)
        .ok_or_else(|| format!("'{s}' is not a margin: give a number above 0 on the sort metric's scale, e.g. 0.02"))
}
