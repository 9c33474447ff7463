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
    pub no_majority: String,
    pub subset: Vec<String>,
    pub section: Vec<String>,
    pub limit: Option<usize>,
    pub per_subset: Option<usize>,
    pub seed: u64,
    pub both_orders: bool,
}

/// How to reach and call the judges.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JudgeSettings {
    pub judge: Option<String>,
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
    pub pointwise_missing: String,
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
    /// `--jury NAME[:VOTE]=MEMBER,...`, as typed.
    pub juries: Vec<String>,
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
    pub sort: String,
    pub json: bool,
    /// Every table on a terminal too.
    pub details: bool,
    pub out: Option<PathBuf>,
    pub name: Option<String>,
    pub batch: BatchSettings,
    pub reference: Option<ReferenceSpec>,
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
    pub sort: String,
    pub json: bool,
    pub details: bool,
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
    pub diff: f64,
    pub metric: String,
    pub discordance: Option<f64>,
    pub from: Option<PathBuf>,
    pub accuracy: f64,
    pub tie_rate: f64,
    pub alpha: f64,
    pub power: f64,
    pub runs: usize,
    pub seed: u64,
    pub json: bool,
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
