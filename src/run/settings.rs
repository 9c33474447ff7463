//! The settings every command below the command line works from. `cli/` parses the arguments
//! (clap, with their defaults) and turns them into these once; nothing below `cli/` names a
//! clap type. The data options become `run::data::DataSettings` and the plan's defaults
//! (`--demo`, a form's prompts) are applied in `run::plan`, so each default has one place.

use std::path::PathBuf;

/// The data options as given (`--data`, `--map`, `--subset`, ...); `DataSettings` checks them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DataOptions {
    pub data: String,
    pub map: Vec<String>,
    pub gold_map: Vec<String>,
    pub no_majority: crate::dataset::labels::NoMajority,
    pub subset: Vec<String>,
    pub section: Vec<String>,
    pub limit: Option<usize>,
    pub per_subset: Option<usize>,
    pub seed: u64,
    pub both_orders: bool,
    pub unshared: crate::dataset::conversation_file::Unshared,
    /// `--labels STORE`: gold from a label store; `--labels-override`: over the file's.
    pub labels: Option<PathBuf>,
    pub labels_override: bool,
}

/// How to reach and call the judges.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JudgeSettings {
    /// `--judge` (None: an OpenAI-compatible server).
    pub judge: Option<JudgeSpec>,
    pub endpoint: Option<String>,
    pub model: Vec<String>,
    pub api_key_env: String,
    pub temperature: Option<f64>,
    pub max_tokens: u32,
    pub judge_seed: Option<u64>,
    pub top_logprobs: Option<u32>,
    pub reasoning_effort: Option<String>,
    pub system: Option<String>,
    pub timeout: f64,
    pub headers: Vec<String>,
    pub concurrency: usize,
    pub rpm: Option<f64>,
    pub retries: u32,
    pub retry_base_ms: u64,
    pub cache_dir: Option<PathBuf>,
    pub no_cache: bool,
    pub offline: bool,
    pub tie_margin: f64,
    pub pointwise_missing: crate::raters::Missing,
    /// `--price MODEL=IN,OUT`, as parsed.
    pub prices: Vec<ModelPrice>,
    /// `--samples-per-request`: at most this many samples in one request (`n`).
    pub samples_per_request: u32,
    /// `--chat-template FILE`: the model's chat template (`sglang-reward:`).
    pub chat_template: Option<PathBuf>,
}

impl JudgeSettings {
    /// The judge replays recorded completions (`replay:FILE`).
    pub fn replays(&self) -> bool {
        matches!(self.judge, Some(JudgeSpec::Replay(_)))
    }
}

/// `--price MODEL=IN,OUT`: a model's dollars per million input and output tokens.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelPrice {
    pub model: String,
    pub price: crate::judge::Price,
}

impl std::str::FromStr for ModelPrice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let usage = "expected MODEL=IN,OUT, dollars per million input and output tokens, e.g. gpt-4o=2.5,10";
        let (model, rates) = s
            .rsplit_once('=')
            .ok_or_else(|| format!("'{s}': {usage}"))?;
        let (input, output) = rates
            .split_once(',')
            .ok_or_else(|| format!("'{s}': {usage}"))?;
        let rate = |x: &str| {
            x.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| {
                    format!(
                        "'{s}': '{}' is not a price (a number of dollars, 0 or more); {usage}",
                        x.trim()
                    )
                })
        };
        if model.trim().is_empty() {
            return Err(format!("'{s}': no model name; {usage}"));
        }
        Ok(Self {
            model: model.trim().to_string(),
            price: crate::judge::Price {
                input: rate(input)?,
                output: rate(output)?,
            },
        })
    }
}

/// The cost analysis: `--margin` and `--cost-unit`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CostOptions {
    pub margin: f64,
    pub unit: Option<crate::evaluation::cost::CostUnit>,
}

impl Default for CostOptions {
    fn default() -> Self {
        Self {
            margin: crate::evaluation::cost::DEFAULT_MARGIN,
            unit: None,
        }
    }
}

/// What a run rates: data, judges, prompts and raters (`calibrate` and `batch export`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlanSettings {
    pub data: DataOptions,
    pub judge: JudgeSettings,
    pub prompts: Vec<String>,
    pub raters: Vec<String>,
    pub parser: Option<String>,
    pub config: Option<PathBuf>,
    /// `--jury NAME[:VOTE]=MEMBER,...`.
    pub juries: Vec<JuryEntry>,
    pub demo: bool,
}

/// `calibrate --batch`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BatchSettings {
    pub batch: bool,
    pub poll_interval: f64,
    pub batch_rounds: u32,
}

/// `calibrate`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CalibrateSettings {
    pub plan: PlanSettings,
    pub bootstrap: usize,
    /// `--sort` when given (pairs: kappa_quadratic without it; RewardBench 2 rows: accuracy,
    /// the leaderboard, orders their configurations, and the plan's order stands without it).
    pub sort: Option<SortKey>,
    /// `--family`: which paired comparisons get a verdict.
    pub family: crate::evaluation::Family,
    pub json: bool,
    /// Every table on a terminal too.
    pub details: bool,
    pub out: Option<PathBuf>,
    pub name: Option<String>,
    pub batch: BatchSettings,
    pub reference: Option<ReferenceSpec>,
    pub cost: CostOptions,
    /// `--sequential`: None without it.
    pub sequential: Option<SequentialSettings>,
    /// `--estimate`: None without it.
    pub estimate: Option<crate::evaluation::estimate::EstimateSettings>,
    /// `--alt-test EPSILON` and its options (off without ε).
    pub alt_test: crate::evaluation::alt_test::AltTestSettings,
    /// `--alpha`: the significance level of every test and interval.
    pub alpha: f64,
}

/// `calibrate --sequential [A,B]` and `--no-shuffle`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SequentialSettings {
    /// The two configurations compared alone (None: every configuration races).
    pub named: Option<[String; 2]>,
    /// The items in a seeded random order (`--no-shuffle`: the file's).
    pub shuffle: bool,
}

/// `--reference`: a table of model scores and its columns, or the gold labels' ranking.
#[derive(Debug, Clone, PartialEq)]
pub enum ReferenceSpec {
    Table {
        path: PathBuf,
        model: String,
        score: String,
    },
    Gold,
}

/// `report DIR`.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportSettings {
    pub dir: PathBuf,
    pub bootstrap: Option<usize>,
    /// `--sort` when given, else the run's own.
    pub sort: Option<SortKey>,
    /// `--family` when given, else the run's own.
    pub family: Option<crate::evaluation::Family>,
    /// `--alpha` when given, else the run's own.
    pub alpha: Option<f64>,
    pub json: bool,
    pub details: bool,
    pub cost: CostOptions,
}

/// `rate`.
#[derive(Debug, Clone, PartialEq)]
pub struct RateSettings {
    pub data: DataOptions,
    pub judge: JudgeSettings,
    pub prompt: String,
    pub parser: Option<String>,
    pub rater: String,
    pub out: PathBuf,
}

/// `plan`: the sample size of a comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct SizeSettings {
    /// None with `--labels`/`--width` (the labels plan).
    pub diff: Option<f64>,
    pub labels: Option<usize>,
    pub width: Option<f64>,
    pub pilot: Option<PathBuf>,
    pub unlabelled: Option<usize>,
    pub estimate_label: i64,
    pub metric: PlanMetric,
    pub discordance: Option<f64>,
    pub from: Option<PathBuf>,
    pub accuracy: f64,
    pub tie_rate: f64,
    pub alpha: f64,
    pub power: f64,
    pub runs: usize,
    pub seed: u64,
    pub json: bool,
    pub active: Option<crate::run::labelling::ActiveRequest>,
    /// `--alt-test`: the simulation's settings.
    pub alt_test: Option<crate::evaluation::alt_test_plan::AltTestPlanSettings>,
}

/// `cache stats | export | prune`.
#[derive(Debug, Clone, PartialEq)]
pub enum CacheRequest {
    Stats {
        cache_dir: Option<PathBuf>,
        json: bool,
    },
    Export {
        cache_dir: Option<PathBuf>,
        model: Option<String>,
        out: PathBuf,
    },
    Prune {
        cache_dir: Option<PathBuf>,
        model: Option<String>,
        older_than: Option<String>,
        all: bool,
        dry_run: bool,
    },
}

/// `--sort`: the metric that orders the configurations and is the headline (the answer, the
/// frontier), typed when the command line is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortKey {
    #[default]
    KappaQuadratic,
    Kappa,
    Accuracy,
    Spearman,
    KendallTauB,
}

impl SortKey {
    pub const ALL: [SortKey; 5] = [
        SortKey::KappaQuadratic,
        SortKey::Kappa,
        SortKey::Accuracy,
        SortKey::Spearman,
        SortKey::KendallTauB,
    ];

    /// The name `--sort` takes and run.json keeps.
    pub fn key(self) -> &'static str {
        self.statistic().key()
    }

    pub fn statistic(self) -> crate::metrics::Statistic {
        use crate::metrics::Statistic;
        match self {
            SortKey::KappaQuadratic => Statistic::KappaQuadratic,
            SortKey::Kappa => Statistic::Kappa,
            SortKey::Accuracy => Statistic::Accuracy,
            SortKey::Spearman => Statistic::Spearman,
            SortKey::KendallTauB => Statistic::KendallTauB,
        }
    }
}

impl std::str::FromStr for SortKey {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|k| k.key() == s).ok_or_else(|| {
            format!(
                "'{s}' is not a metric; use one of {}",
                Self::ALL.map(SortKey::key).join(", ")
            )
        })
    }
}

/// `plan --metric`: the statistic whose difference the sample size is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PlanMetric {
    /// McNemar's test, in closed form.
    #[default]
    Accuracy,
    /// Quadratic-weighted kappa, by simulation.
    KappaQuadratic,
}

impl std::str::FromStr for PlanMetric {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "accuracy" => Ok(PlanMetric::Accuracy),
            "kappa_quadratic" => Ok(PlanMetric::KappaQuadratic),
            other => Err(format!(
                "'{other}': use accuracy (McNemar, closed form) or kappa_quadratic (simulation)"
            )),
        }
    }
}

/// `--judge` (and an experiment file's `judge`): which judge answers, read once.
#[derive(Debug, Clone, PartialEq)]
pub enum JudgeSpec {
    /// An OpenAI-compatible server (`openai`, with `--endpoint`).
    OpenAi,
    /// Recorded completions (`replay:FILE.jsonl`).
    Replay(PathBuf),
    /// A reward model's per-response scores (`scores:FILE`).
    Scores(PathBuf),
    /// A reward model behind a serving engine (`vllm-reward:URL`, `tei-reward:URL`,
    /// `sglang-reward:URL`).
    Reward {
        engine: crate::judge::reward::Engine,
        url: String,
    },
    /// The simulated judge (`sim[:KEY=VALUE,...]`).
    Sim(crate::judge::sim::Sim),
}

impl std::str::FromStr for JudgeSpec {
    type Err = String;
    fn from_str(spec: &str) -> Result<Self, String> {
        if spec == "openai" {
            Ok(JudgeSpec::OpenAi)
        } else if let Some(path) = spec.strip_prefix("replay:") {
            Ok(JudgeSpec::Replay(PathBuf::from(path)))
        } else if let Some(path) = spec.strip_prefix("scores:") {
            Ok(JudgeSpec::Scores(PathBuf::from(path)))
        } else if let Some((engine, url)) = crate::judge::reward::Engine::ALL
            .iter()
            .find_map(|e| Some((*e, spec.strip_prefix(e.prefix())?.strip_prefix(':')?)))
        {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(format!(
                    "'{spec}': {}:URL takes the server's base URL, e.g. {}:http://127.0.0.1:8000",
                    engine.prefix(),
                    engine.prefix()
                ));
            }
            Ok(JudgeSpec::Reward {
                engine,
                url: url.trim_end_matches('/').to_string(),
            })
        } else if spec == "sim" || spec.starts_with("sim:") {
            crate::judge::sim::Sim::parse(spec)
                .map(JudgeSpec::Sim)
                .map_err(|e| e.to_string())
        } else {
            Err(format!(
                "unknown judge '{spec}'; use openai (with --endpoint), replay:FILE.jsonl, scores:FILE (per-response scores), vllm-reward:URL, tei-reward:URL, sglang-reward:URL (a served reward model) or sim[:accuracy=0.8,...]"
            ))
        }
    }
}

/// A `[[jury]]` entry of an experiment file.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JuryEntry {
    pub name: String,
    pub members: Vec<String>,
    /// None: `majority`.
    pub vote: Option<crate::raters::jury::Vote>,
    pub weights: Option<Vec<f64>>,
}

impl std::str::FromStr for JuryEntry {
    type Err = String;
    /// `--jury NAME[:VOTE]=MEMBER,MEMBER,...`.
    fn from_str(text: &str) -> std::result::Result<Self, String> {
        parse_flag(text)
    }
}

/// `NAME[:VOTE]=MEMBER,MEMBER,...`.
fn parse_flag(text: &str) -> std::result::Result<JuryEntry, String> {
    let bad = || {
        format!(
            "'{text}' is not NAME[:VOTE]=MEMBER,MEMBER,...; for example --jury poll=qwen,llama,gpt4 or --jury poll:mean=qwen,llama,gpt4 (votes: {})",
            crate::raters::jury::Vote::NAMES
        )
    };
    let (head, members) = text.split_once('=').ok_or_else(bad)?;
    let (name, vote) = match head.split_once(':') {
        Some((n, v)) => (n, Some(v.parse::<crate::raters::jury::Vote>()?)),
        None => (head, None),
    };
    let members: Vec<String> = members
        .split(',')
        .map(|m| m.trim().to_string())
        .filter(|m| !m.is_empty())
        .collect();
    if name.trim().is_empty() || members.is_empty() {
        return Err(bad());
    }
    Ok(JuryEntry {
        name: name.trim().to_string(),
        members,
        vote,
        weights: None,
    })
}

// `analyze`'s settings.

/// Where a table comes from: a file, or values a program handed over (the Python module's
/// `analyze`), read alike.
#[derive(Debug, Clone)]
pub enum Table {
    File(PathBuf),
    Values(crate::dataset::frame::Frame),
}

impl Table {
    /// How the table is named in reports.
    pub fn describe(&self) -> String {
        match self {
            Table::File(path) => path.display().to_string(),
            Table::Values(frame) => frame.path.display().to_string(),
        }
    }
}

/// What `analyze` reads: one table, or a gold table and one ratings table or several (one
/// judge's samples) to join.
#[derive(Debug, Clone)]
pub enum AnalyzeInput {
    One(Table),
    Two { gold: Table, ratings: Vec<Table> },
}

impl AnalyzeInput {
    /// How the source is named in reports.
    pub fn describe(&self) -> String {
        match self {
            AnalyzeInput::One(table) => table.describe(),
            AnalyzeInput::Two { gold, ratings } => {
                let ratings: Vec<String> = ratings.iter().map(Table::describe).collect();
                format!(
                    "{} (gold) × {} (ratings)",
                    gold.describe(),
                    ratings.join(" + ")
                )
            }
        }
    }
}

/// What to print and write.
#[derive(Debug, Clone)]
pub struct AnalyzeOutput {
    pub json: bool,
    pub csv: Option<PathBuf>,
    pub html: Option<PathBuf>,
}

/// Validated settings.
#[derive(Debug, Clone)]
pub struct AnalyzeSettings {
    pub input: AnalyzeInput,
    /// `--labels STORE [--labels-override]`: the gold from a label store.
    pub store: Option<(PathBuf, bool)>,
    /// `--pac --uncertainty-col U [--pac-out FILE]`: PAC labelling's column, settings and file.
    pub pac: Option<(String, crate::evaluation::pac::PacSettings, Option<PathBuf>)>,
    pub columns: crate::dataset::labels::ColumnNames,
    pub labels: Option<crate::metrics::Labels>,
    /// How gold and rating values are read.
    pub reading: (
        crate::dataset::frame::LabelReading,
        crate::dataset::frame::LabelReading,
    ),
    pub bootstrap: usize,
    pub seed: u64,
    pub output: AnalyzeOutput,
    /// Several annotators' columns and what is done with items without a majority.
    pub annotators: Option<(Vec<String>, crate::dataset::labels::NoMajority)>,
    /// Several annotations per item in long form (two-file form).
    pub long: LongSettings,
    /// `--generators`: the system level (one-file form).
    pub systems: Option<SystemsSettings>,
    /// `--estimate [--estimate-label L] [--alpha A]`: the label as given, and α.
    pub estimate: Option<(Option<String>, f64)>,
    /// `--alt-test EPSILON` and its options (off without ε).
    pub alt_test: crate::evaluation::alt_test::AltTestSettings,
    /// `--scale`: the grades' scale, declared (None: read from the labels).
    pub scale: Option<crate::metrics::scale::Scale>,
    /// `--alpha`: the error level of the sequential comparison (`--compare-col
    /// --sequential`), the estimate's intervals and PAC's guarantee.
    pub alpha: f64,
    /// `--label-prob COL`: each row's chance of being labelled (active labelling's π).
    pub label_prob: Option<String>,
}

/// `analyze --generators COL1,COL2 [--prompt-col COL] [--reference FILE|gold]`.
#[derive(Debug, Clone)]
pub struct SystemsSettings {
    pub generators: (String, String),
    pub prompt: Option<String>,
    pub reference: Option<ReferenceSpec>,
}

/// LongSettings form's options (`dataset::long`).
#[derive(Debug, Clone, Default)]
pub struct LongSettings {
    /// `--annotator-col`: the column naming the annotation.
    pub annotation: Option<String>,
    /// `--annotations-per-item`.
    pub per_item: Option<usize>,
    /// `--texts`: the two responses' columns.
    pub texts: Option<(String, String)>,
    /// `--no-majority`: items whose annotators have no majority.
    pub no_majority: crate::dataset::labels::NoMajority,
}

impl LongSettings {
    /// Whether an option asks for long form even when no file has an annotation column.
    pub fn asked(&self) -> bool {
        self.annotation.is_some() || self.per_item.is_some() || self.texts.is_some()
    }
}

/// `--unreadable`: what a missing or unreadable label does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Unreadable {
    /// Stops with an error naming the row.
    #[default]
    Error,
    /// Leaves the row out (counted in the report).
    Drop,
}

impl std::str::FromStr for Unreadable {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "error" => Ok(Unreadable::Error),
            "drop" => Ok(Unreadable::Drop),
            other => Err(format!("'{other}': use error or drop")),
        }
    }
}

/// `label`: the page's data, store, annotator, address, guidelines and overlap.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelSettings {
    pub data: DataOptions,
    pub store: PathBuf,
    pub annotator: String,
    pub addr: std::net::SocketAddr,
    pub guidelines: Option<PathBuf>,
    pub overlap: usize,
    /// Which items are asked, in what order, and when to say enough.
    pub asks: crate::run::labelling::Asks,
}
