//! The judge options: which judge, its endpoint and model, sampling, concurrency, cache.

use clap::Args;
use std::path::PathBuf;

/// Which judge answers, and how it is called (shared by `rate` and `calibrate`).
#[derive(Debug, Args, Clone)]
pub struct JudgeArgs {
    /// `openai` (the default when an endpoint is given), `replay:FILE.jsonl` (recorded
    /// completions), `scores:FILE` (a reward model's per-response scores), a reward model
    /// served live: `vllm-reward:URL` (`/pooling`, with --model), `tei-reward:URL`
    /// (`/predict`) or `sglang-reward:URL` (`/classify`, with --model and --chat-template), or
    /// `sim[:accuracy=0.8,position_bias=0.1,tie_rate=0.05,malformed=0.02]` (the simulated judge).
    #[arg(long, value_name = "JUDGE", value_parser = clap::value_parser!(crate::run::settings::JudgeSpec))]
    pub judge: Option<crate::run::settings::JudgeSpec>,

    /// The reward model's chat template, a Hugging Face jinja file (`sglang-reward:`, whose
    /// `/classify` takes the conversation as text).
    #[arg(long, value_name = "FILE")]
    pub chat_template: Option<PathBuf>,

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

    /// Alternatives per token to ask for when a template reads probabilities
    /// (`top_logprobs`; OpenAI allows up to 20) [default: the template's, else 5]
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=20))]
    pub top_logprobs: Option<u32>,

    /// A reasoning model's effort, sent as `reasoning_effort` (OpenAI o-series, gpt-5, vLLM and
    /// others); its thinking counts as tokens_reasoning in the cost tables.
    #[arg(long, value_name = "low|medium|high", value_parser = ["minimal", "low", "medium", "high"])]
    pub reasoning_effort: Option<String>,

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

    /// At most this many samples of one prompt in one request (`n`): sc:5 asks for n = 5 once
    /// where the server takes it (OpenAI, vLLM), and falls back to one request per sample when
    /// it refuses; 1 always sends one request per sample.
    #[arg(long, value_name = "N", default_value_t = crate::judge::openai::MAX_SAMPLES_PER_REQUEST,
          value_parser = clap::value_parser!(u32).range(1..=i64::from(crate::judge::openai::MAX_SAMPLES_PER_REQUEST)))]
    pub samples_per_request: u32,

    /// A model's price, dollars per million input and output tokens (reasoning tokens are
    /// billed as output), e.g. gpt-4o=2.5,10; repeatable. Costs are in dollars when every
    /// judge has one, else in tokens.
    #[arg(long = "price", value_name = "MODEL=IN,OUT", value_parser = clap::value_parser!(crate::run::settings::ModelPrice))]
    pub prices: Vec<crate::run::settings::ModelPrice>,

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
    #[arg(long, value_name = "RULE", default_value = "drop", value_parser = clap::value_parser!(crate::raters::Missing))]
    pub pointwise_missing: crate::raters::Missing,
}
