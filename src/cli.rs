//! Command-line arguments (clap). Nothing here is trusted: `commands::*` validate these into
//! settings before any work starts.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

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
    Plan(PlanSizeArgs),
}

const ANALYZE_EXAMPLES: &str = "\
Examples:
  # one file with id, gold and rating columns, per reward-bench subset
  raterlab analyze --input data/example-ratings.csv --group-col subset

  # gold labels and a judge's ratings in separate files, joined on their ids
  raterlab analyze --gold gold.parquet --ratings judge.jsonl --rating-col verdict

  # machine-readable output and a tidy CSV for a paper
  raterlab analyze --input ratings.parquet --json --csv metrics.csv

  # the tables and plots as one HTML page to open in a browser
  raterlab analyze --input data/example-ratings.csv --group-col subset --html analysis.html

  # three annotators per item (gold = their majority) and a judge: the human ceiling
  raterlab analyze --input panel.jsonl --annotators a1,a2,a3 --rating-col judge

Labels are integers: for pairwise preferences -1 (response 1 better), 0 (tie),
1 (response 2 better); any other integer scale (e.g. a 1-5 Likert score) works too.";

/// Agreement statistics for ratings you already have (from any judge, human or tool).
///
/// Reports accuracy, Cohen's kappa (unweighted, linear, quadratic), Spearman's rho and
/// Kendall's tau-b with p-values and percentile-bootstrap 95% confidence intervals, and the
/// confusion matrix. Values match scikit-learn and scipy.
#[derive(Debug, Args)]
#[command(after_help = ANALYZE_EXAMPLES)]
pub struct AnalyzeArgs {
    /// A CSV, Parquet or JSONL file with a gold column and a rating column.
    #[arg(long, value_name = "FILE", required_unless_present = "gold", conflicts_with_all = ["gold", "ratings"])]
    pub input: Option<PathBuf>,

    /// A file of gold labels (id + gold column); use with --ratings.
    #[arg(long, value_name = "FILE", requires = "ratings")]
    pub gold: Option<PathBuf>,

    /// A file of ratings (id + rating column), joined to --gold on the ids both files have.
    #[arg(long, value_name = "FILE", requires = "gold")]
    pub ratings: Option<PathBuf>,

    /// Column holding the pair id [default: id; with --input, rows stand in when the file has no id column]
    #[arg(long, value_name = "COL")]
    pub id_col: Option<String>,

    /// The ratings file's id column, when it differs from --id-col (two-file form).
    #[arg(long, value_name = "COL", requires = "ratings")]
    pub ratings_id_col: Option<String>,

    /// Column holding the gold label.
    #[arg(long, value_name = "COL", default_value = "gold")]
    pub gold_col: String,

    /// Column holding the rating under test.
    #[arg(long, value_name = "COL", default_value = "rating")]
    pub rating_col: String,

    /// Several annotators: one column each (read with --gold-map). Gold becomes their
    /// majority, and the report adds their agreement (pairwise Cohen's kappa, Fleiss' kappa,
    /// Krippendorff's alpha, Gwet's AC1), the human ceiling and the judge beside it.
    #[arg(
        long,
        value_name = "COL,COL,...",
        value_delimiter = ',',
        conflicts_with_all = ["gold", "ratings"]
    )]
    pub annotators: Vec<String>,

    /// With --annotators: items without a majority are left out of the judge's scores (drop)
    /// or scored as a tie (tie); either way they are counted.
    #[arg(long, value_name = "drop|tie", default_value = "drop")]
    pub no_majority: String,

    /// Also report each group of this column (e.g. subset) beside the overall row.
    #[arg(long, value_name = "COL")]
    pub group_col: Option<String>,

    /// The label set, in order [default: -1,0,1 when every label fits, else the labels seen]
    #[arg(
        long,
        value_name = "L1,L2,...",
        value_delimiter = ',',
        allow_hyphen_values = true
    )]
    pub labels: Option<Vec<String>>,

    /// Read these gold values as these labels, e.g. 1=-1,2=1,0=0.
    #[arg(
        long,
        value_name = "VALUE=LABEL,...",
        value_delimiter = ',',
        allow_hyphen_values = true
    )]
    pub gold_map: Vec<String>,

    /// Read these rating values as these labels, e.g. 1=-1,2=1,Tie=0.
    #[arg(
        long,
        value_name = "VALUE=LABEL,...",
        value_delimiter = ',',
        allow_hyphen_values = true
    )]
    pub rating_map: Vec<String>,

    /// What to do with a missing or unreadable label: stop with an error, or drop the row
    /// (counted in the report).
    #[arg(long, value_name = "error|drop", default_value = "error")]
    pub unreadable: String,

    /// Bootstrap resamples for the 95% confidence intervals (0 turns them off).
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub bootstrap: usize,

    /// Seed of the bootstrap's random generator (ChaCha8).
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,

    /// Print one JSON document to stdout instead of tables.
    #[arg(long)]
    pub json: bool,

    /// Also write the results as a tidy CSV (scope, metric, value, ci_lo, ci_hi).
    #[arg(long, value_name = "OUT")]
    pub csv: Option<PathBuf>,

    /// Also write one self-contained HTML page with the tables and plots (opens offline).
    #[arg(long, value_name = "OUT")]
    pub html: Option<PathBuf>,
}

/// Which pairs to load and how to present them (shared by `data` and, later, `calibrate`).
#[derive(Debug, Args, Clone)]
pub struct DataArgs {
    /// `sample` (bundled), `filtered` or `raw` (reward-bench splits), or a CSV/Parquet/JSONL file.
    #[arg(long, value_name = "SPEC", default_value = "sample")]
    pub data: String,

    /// Column mapping for non-reward-bench files: FIELD=COL[+COL...], fields prompt, response1,
    /// response2, label, id, subset ('+' joins text columns; for label, the majority vote).
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
    #[arg(long, value_name = "drop|tie", default_value = "drop")]
    pub no_majority: String,

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

    /// Show every pair in both orders (two items, ids suffixed #ab and #ba).
    #[arg(long)]
    pub both_orders: bool,
}

const DATA_EXAMPLES: &str = "\
Examples:
  raterlab data summary                                   # the bundled sample
  raterlab data summary --data filtered --section chat-hard
  raterlab data export --data llmbar.parquet --limit 50 --out examples.jsonl
  raterlab data summary --data pandalm.jsonl \\
      --map prompt=instruction+input,response1=response1,response2=response2,label=annotator1+annotator2+annotator3,id=idx \\
      --gold-map 0=0,1=-1,2=1";

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
    Summary(DataArgs),
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

/// Which judge answers, and how it is called (shared by `rate` and `calibrate`).
#[derive(Debug, Args, Clone)]
pub struct JudgeArgs {
    /// `openai` (the default when an endpoint is given), `replay:FILE.jsonl` (recorded
    /// completions) or `sim[:accuracy=0.8,position_bias=0.1,tie_rate=0.05,malformed=0.02]`.
    #[arg(long, value_name = "JUDGE")]
    pub judge: Option<String>,

    /// Base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1 (Ollama).
    #[arg(long, value_name = "URL", env = "OPENAI_BASE_URL")]
    pub endpoint: Option<String>,

    /// Model name sent to the server (repeatable with calibrate: one configuration set per model).
    #[arg(long, value_name = "NAME")]
    pub model: Vec<String>,

    /// Environment variable holding the API key (never printed or stored).
    #[arg(long, value_name = "VAR", default_value = "OPENAI_API_KEY")]
    pub api_key_env: String,

    /// Sampling temperature [default: 0 for basic, 1 for sc:N]
    #[arg(long, value_name = "T")]
    pub temperature: Option<f64>,

    /// Maximum tokens per completion.
    #[arg(long, value_name = "N", default_value_t = 1024)]
    pub max_tokens: u32,

    /// Sampling seed sent to the server (sample i of self-consistency uses seed + i).
    #[arg(long, value_name = "S")]
    pub judge_seed: Option<u64>,

    /// System prompt, replacing the template's.
    #[arg(long, value_name = "TEXT")]
    pub system: Option<String>,

    /// Seconds before a call times out (time queued at the server counts).
    #[arg(long, value_name = "SECONDS", default_value_t = 120.0)]
    pub timeout: f64,

    /// Extra HTTP header, NAME:VALUE (repeatable).
    #[arg(long = "header", value_name = "NAME:VALUE")]
    pub headers: Vec<String>,

    /// Calls in flight at once, shared by every configuration; halved when calls time out.
    /// For a local server, its number of parallel slots (llama.cpp's --parallel, Ollama's
    /// OLLAMA_NUM_PARALLEL).
    #[arg(long, value_name = "N", default_value_t = 16)]
    pub concurrency: usize,

    /// At most this many requests per minute.
    #[arg(long, value_name = "N")]
    pub rpm: Option<f64>,

    /// Retries after connection errors, timeouts, 429 and 5xx.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub retries: u32,

    /// First retry delay in milliseconds (doubles each retry, with jitter).
    #[arg(long, value_name = "MS", default_value_t = 500, hide = true)]
    pub retry_base_ms: u64,

    /// Response cache folder [default: $RATERLAB_CACHE/completions or ~/.cache/raterlab/completions]
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,

    /// Do not read or write the response cache.
    #[arg(long, conflicts_with = "offline")]
    pub no_cache: bool,

    /// Answer only from the cache; a miss is an error and no call is made.
    #[arg(long)]
    pub offline: bool,

    /// Pointwise prompts: grades this close (|grade 2 − grade 1| ≤ M) make a tie
    #[arg(long, value_name = "M", default_value_t = 0.0)]
    pub tie_margin: f64,

    /// Pointwise prompts: a response without a grade (unreadable answer or failed call) makes
    /// the pair's verdict missing (drop), or gets the scale's lowest grade (lowest, the rule of
    /// context-bench's judge); the report shows both either way
    #[arg(long, value_name = "RULE", default_value = "drop")]
    pub pointwise_missing: String,
}

const RATE_EXAMPLES: &str = "\
Examples:
  # the simulated judge on the bundled sample, offline
  raterlab rate --judge sim --prompt simple_with_tie --rater sc:5 --out ratings.csv

  # a local Ollama server
  raterlab rate --endpoint http://127.0.0.1:11434/v1 --model qwen2.5:7b \\
      --prompt mt-bench_pairwise --rater basic --limit 50 --out ratings.jsonl

  # replay recorded completions (e.g. LLMBar's) with the parser that reads them
  raterlab rate --data llmbar.parquet --both-orders --judge replay:GPT-4-Vanilla.jsonl \\
      --prompt simple_no_tie --parser output_ab --out replay.csv";

/// Rate every example with one judge configuration and write the ratings.
///
/// Each item ends rated (-1 response 1 better, 0 tie, 1 response 2 better), without a
/// verdict (the answer could not be read) or failed (no answer), with the reason, the raw
/// completions, latency and tokens. Answers are cached on disk as they arrive, so a re-run
/// makes no call it already paid for.
#[derive(Debug, Args)]
#[command(after_help = RATE_EXAMPLES)]
pub struct RateArgs {
    #[command(flatten)]
    pub data: DataArgs,

    #[command(flatten)]
    pub judge: JudgeArgs,

    /// Prompt template: a built-in name (see `raterlab prompts list`) or a TOML file.
    #[arg(long, value_name = "NAME|FILE", default_value = "simple_with_tie")]
    pub prompt: String,

    /// Verdict parser, replacing the template's (see `raterlab prompts list`).
    #[arg(long, value_name = "NAME")]
    pub parser: Option<String>,

    /// basic, sc:N[:mean|majority|unanimous], random, longer or first.
    #[arg(long, value_name = "RATER", default_value = "basic")]
    pub rater: String,

    /// Ratings file: .csv, .jsonl or .parquet.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

const CALIBRATE_EXAMPLES: &str = "\
Examples:
  # offline demo: bundled sample, simulated judge, the notebook's three prompts x basic and sc:5, baselines
  raterlab calibrate --demo

  # two prompts x two raters against a local Ollama server, 200 reward-bench pairs in both orders
  raterlab calibrate --endpoint http://127.0.0.1:11434/v1 --model qwen2.5:7b \\
      --data filtered --limit 200 --both-orders \\
      --prompt simple_with_tie --prompt mt-bench_pairwise --rater basic --rater sc:5 --rater longer

  # an experiment file naming several judges (see README, \"Experiment files\")
  raterlab calibrate --config experiment.toml --json > results.json

  # re-render a finished run without calling any judge
  raterlab report notebooks-export/runs/20261122-101500-demo";

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
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub bootstrap: usize,

    /// Metric that orders the comparison table: kappa_quadratic, kappa, accuracy, spearman,
    /// kendall_tau_b.
    #[arg(long, value_name = "METRIC", default_value = "kappa_quadratic")]
    pub sort: String,

    /// Print one JSON document to stdout instead of tables.
    #[arg(long)]
    pub json: bool,

    /// Run directory [default: notebooks-export/runs/<timestamp>-<name>]
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Name of the run (in the run directory's name) [default: demo, or the data's name]
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,

    #[command(flatten)]
    pub batch: BatchRunArgs,
}

/// What a run rates: data, judges, prompts and raters (shared by `calibrate` and
/// `batch export`, so an export holds exactly the calls the same `calibrate` makes).
#[derive(Debug, Args, Clone)]
pub struct PlanArgs {
    #[command(flatten)]
    pub data: DataArgs,

    #[command(flatten)]
    pub judge: JudgeArgs,

    /// Prompt template (repeatable): a built-in name or a TOML file [default: simple_with_tie]
    #[arg(long = "prompt", value_name = "NAME|FILE")]
    pub prompts: Vec<String>,

    /// Rater (repeatable): basic, sc:N[:mean|majority|unanimous], random, longer, first [default: basic]
    #[arg(long = "rater", value_name = "RATER")]
    pub raters: Vec<String>,

    /// Verdict parser for every prompt, replacing the templates' own.
    #[arg(long, value_name = "NAME")]
    pub parser: Option<String>,

    /// Experiment file (TOML) naming judges, prompts and raters.
    #[arg(long, value_name = "FILE", conflicts_with = "demo")]
    pub config: Option<PathBuf>,

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

const PLAN_EXAMPLES: &str = "\
Examples:
  # items needed to see a 3-point accuracy difference when 20% of items split the two judges
  raterlab plan --diff 0.03 --discordance 0.2

  # the same from a finished run: each compared pair's measured discordance
  raterlab plan --diff 0.03 --from notebooks-export/runs/20261122-101500-demo

  # quadratic kappa, by simulation with the simulated judge (accuracy 0.75 vs 0.80)
  raterlab plan --metric kappa_quadratic --accuracy 0.75 --diff 0.05";

/// How many items an evaluation needs before a difference between two judges is real.
///
/// Accuracy: McNemar's test by the normal approximation (Connor 1987) from the discordance (the
/// share of items exactly one judge gets right), assumed with --discordance or measured per
/// compared pair of a run with --from. Quadratic kappa: by simulation with two simulated
/// judges (`--judge sim:accuracy=A,tie_rate=T`, no position bias) on gold ±1.
#[derive(Debug, Args)]
#[command(after_help = PLAN_EXAMPLES)]
pub struct PlanSizeArgs {
    /// The difference to detect (accuracy points as a fraction, e.g. 0.03; or kappa).
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    pub diff: f64,

    /// accuracy or kappa_quadratic.
    #[arg(long, value_name = "METRIC", default_value = "accuracy")]
    pub metric: String,

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
    #[arg(long, value_name = "ALPHA", default_value_t = 0.05)]
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

    /// Print one JSON document to stdout instead of a table.
    #[arg(long)]
    pub json: bool,
}

const BATCH_EXAMPLES: &str = "\
Examples:
  # write the uncached calls of a plan as OpenAI Batch JSONL (one file per model, <= 50,000 lines)
  raterlab batch export --model gpt-4o-mini --data filtered --both-orders \\
      --prompt simple_with_tie --rater sc:5 --out batch/

  # run them elsewhere (vLLM, OpenAI Batch, examples/ray_batch.py), then read the results
  vllm run-batch -i batch/gpt-4o-mini-001.jsonl -o results.jsonl --model gpt-4o-mini
  raterlab batch ingest results.jsonl --manifest batch/manifest.json

  # the same plan, reported from the cache
  raterlab calibrate --offline --model gpt-4o-mini --data filtered --both-orders \\
      --prompt simple_with_tie --rater sc:5

  # or all in one: upload, wait, download, ingest, report (resumable)
  raterlab calibrate --batch --endpoint https://api.openai.com/v1 --model gpt-4o-mini ...";

/// Hand judge calls to batch engines (OpenAI Batch, vLLM run-batch, Anthropic Message
/// Batches, Ray Data) and take the answers back into the response cache.
///
/// Every request's custom_id is its cache key, so answers that come back by any route land in
/// the cache an online run reads: `calibrate --offline` with the same options then reports
/// exactly as an online run would.
#[derive(Debug, Args)]
#[command(after_help = BATCH_EXAMPLES)]
pub struct BatchArgs {
    #[command(subcommand)]
    pub command: BatchCommand,
}

#[derive(Debug, Subcommand)]
pub enum BatchCommand {
    /// Write the plan's uncached calls as batch input files and a manifest.json.
    ///
    /// Takes calibrate's plan options (data, prompts, raters, --model, seed, orders,
    /// sampling, --cache-dir); no endpoint. One file per model, split at 50,000 lines or
    /// about 190 MB, each custom_id once; cached calls are left out, so after an ingest the
    /// same command writes only what is still missing.
    #[command(after_help = BATCH_EXAMPLES)]
    Export {
        #[command(flatten)]
        plan: Box<PlanArgs>,

        /// Folder for the shard files and manifest.json (created if missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,

        /// Request format: openai (OpenAI Batch, vLLM run-batch, SGLang, Ray) or anthropic
        /// (Message Batches request bodies).
        #[arg(long, value_name = "FORMAT", default_value = "openai")]
        format: String,
    },
    /// Read batch results into the response cache.
    ///
    /// Reads OpenAI output and error files, vLLM run-batch output, Anthropic results and
    /// {custom_id, text | generated_text} tables (JSONL or Parquet, as a Ray Data pipeline
    /// writes them; a folder means every such file in it). Only successes are cached;
    /// failures are counted by reason, unknown custom_ids are counted and skipped, and a
    /// second ingest of the same file changes nothing.
    #[command(after_help = BATCH_EXAMPLES)]
    Ingest {
        /// Result files or folders.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,

        /// The export's manifest.json [default: manifest.json beside the first file or in a
        /// folder above it]
        #[arg(long, value_name = "FILE")]
        manifest: Option<PathBuf>,

        /// Response cache folder [default: $RATERLAB_CACHE/completions or ~/.cache/raterlab/completions]
        #[arg(long, value_name = "DIR")]
        cache_dir: Option<PathBuf>,
    },
    /// Cancel batches that `calibrate --batch` left running (results so far stay
    /// downloadable; the same calibrate command ingests them).
    Cancel {
        /// Base URL of the Batch API, e.g. https://api.openai.com/v1.
        #[arg(long, value_name = "URL", env = "OPENAI_BASE_URL")]
        endpoint: String,

        /// Environment variable holding the API key.
        #[arg(long, value_name = "VAR", default_value = "OPENAI_API_KEY")]
        api_key_env: String,

        /// The run's batch state file (calibrate --batch prints it); cancels its unfinished
        /// batches.
        #[arg(long, value_name = "FILE", required_unless_present = "ids")]
        state: Option<PathBuf>,

        /// Batch ids to cancel.
        #[arg(value_name = "BATCH_ID")]
        ids: Vec<String>,
    },
}

const REPORT_EXAMPLES: &str = "\
Examples:
  raterlab report notebooks-export/runs/20261122-101500-demo
  raterlab report RUN_DIR --bootstrap 5000 --sort accuracy     # tighter CIs, another order
  raterlab report RUN_DIR --json > results.json";

/// Re-render tables, exports and plots of a finished run without calling any judge.
///
/// Reads run.json and ratings.parquet from a directory written by `raterlab calibrate`,
/// evaluates again (the bootstrap seed is the run's) and rewrites metrics.csv,
/// confusion.csv, comparisons.csv, table.tex and the plots.
#[derive(Debug, Args)]
#[command(after_help = REPORT_EXAMPLES)]
pub struct ReportArgs {
    /// A run directory written by `raterlab calibrate`.
    pub dir: PathBuf,

    /// Bootstrap resamples [default: the run's]
    #[arg(long, value_name = "N")]
    pub bootstrap: Option<usize>,

    /// Metric that orders the comparison table.
    #[arg(long, value_name = "METRIC", default_value = "kappa_quadratic")]
    pub sort: String,

    /// Print one JSON document to stdout instead of tables.
    #[arg(long)]
    pub json: bool,
}

const PROMPTS_EXAMPLES: &str = "\
Examples:
  raterlab prompts list
  raterlab prompts show mt-bench_pairwise
  raterlab prompts show simple_with_tie --toml > my_prompt.toml   # start your own template
  raterlab calibrate --demo --prompt my_prompt.toml";

/// Built-in prompt templates and verdict parsers.
#[derive(Debug, Args)]
#[command(after_help = PROMPTS_EXAMPLES)]
pub struct PromptsArgs {
    #[command(subcommand)]
    pub command: PromptsCommand,
}

#[derive(Debug, Subcommand)]
pub enum PromptsCommand {
    /// List the built-in templates and the parsers.
    List,
    /// Print a template (or a TOML file's) as the judge would see it.
    Show {
        /// Built-in name or TOML file.
        name: String,
        /// Print it as a TOML file to start your own template from.
        #[arg(long)]
        toml: bool,
    },
}
