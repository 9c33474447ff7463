//! Judges: whatever turns a chat request into a completion, behind one trait.
//!
//! - `openai`: any OpenAI-compatible `/chat/completions` endpoint (reqwest + tokio);
//! - `cache`: an on-disk, crash-safe response cache wrapping any judge;
//! - `replay`: answers from recorded completions of any tool;
//! - `reward`: a reward model behind vLLM (`/pooling`), text-embeddings-inference (`/predict`)
//!   or SGLang (`/classify`), its score per response as the answer;
//! - `sim`: a deterministic simulated judge for the offline demo and tests;
//! - `execute`: runs many calls with one shared concurrency budget and an optional
//!   requests-per-minute limit, and hands results back in order (synchronous API).
//!
//! The only home of tokio and (with `dataset::hub`) reqwest.

pub mod batch;
pub mod cache;
pub mod execute;
pub(crate) mod http;
pub mod openai;
pub mod replay;
pub mod reward;
pub mod scores;
pub mod sim;

use crate::verdicts::probability::Logprobs;
use crate::verdicts::Parser;
use serde::{Deserialize, Serialize};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// A chat message.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Message {
    pub role: String,
    pub content: String,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Self {
        Self {
            role: "system".into(),
            content: content.into(),
        }
    }
    pub fn user(content: impl Into<String>) -> Self {
        Self {
            role: "user".into(),
            content: content.into(),
        }
    }
}

/// Sampling parameters: everything besides the messages that determines a completion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Params {
    pub model: String,
    pub temperature: f64,
    pub max_tokens: u32,
    pub seed: Option<u64>,
    /// Ask for token log-probabilities with this many alternatives per position
    /// (`logprobs: true, top_logprobs: K`); part of the cache key only when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_logprobs: Option<u32>,
    /// A reasoning model's effort (`reasoning_effort`: low, medium, high); part of the cache
    /// key only when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<String>,
    /// The template's own request fields (`response_format`, `tools`, `tool_choice`), merged
    /// into the body; part of the cache key only when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<serde_json::Value>,
}

/// What a model's tokens cost: dollars per million input and output tokens. Reasoning tokens
/// are billed as output (they are among the completion tokens).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub input: f64,
    pub output: f64,
}

impl Price {
    /// Dollars for these tokens.
    pub fn usd(&self, tokens_in: u64, tokens_out: u64) -> f64 {
        (tokens_in as f64 * self.input + tokens_out as f64 * self.output) / 1e6
    }
}

/// The item behind a call, for judges that answer from the texts rather than the prompt
/// (replay matches recordings by them; the simulator needs the gold label and the format).
/// Never sent to an endpoint and never part of the cache key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemView {
    pub prompt: String,
    pub response1: String,
    pub response2: String,
    /// `None` for an item the data gives no label.
    pub gold: Option<i64>,
    pub parser: Parser,
    pub allows_tie: bool,
    /// Pointwise calls: the response graded (1 or 2, in the order shown).
    pub graded: Option<u8>,
    /// The pair's id, and whether it is shown swapped (a scores file may key by them).
    pub pair_id: String,
    pub swapped: bool,
    /// The conversation's turns before the last user message (a reward model behind an engine
    /// is sent them as messages); empty for a single-turn item.
    pub history: Arc<[crate::dataset::conversation::Turn]>,
}

impl ItemView {
    /// A view of an empty unlabelled pair read by `[[A]]`/`[[B]]`, for tests of what is done
    /// with calls rather than what they ask.
    #[cfg(test)]
    pub(crate) fn blank() -> Self {
        ItemView {
            prompt: String::new(),
            response1: String::new(),
            response2: String::new(),
            gold: None,
            parser: crate::verdicts::Parser::AbBrackets,
            allows_tie: true,
            graded: None,
            pair_id: String::new(),
            swapped: false,
            history: Default::default(),
        }
    }

    /// The graded response's text (pointwise calls).
    pub fn graded_text(&self) -> Option<&str> {
        match self.graded {
            Some(1) => Some(&self.response1),
            Some(2) => Some(&self.response2),
            _ => None,
        }
    }

    /// Whether the graded response is the source's first one (reward-bench: chosen).
    pub fn graded_is_first_in_source(&self) -> Option<bool> {
        self.graded.map(|side| (side == 1) != self.swapped)
    }
}

/// One request to a judge.
#[derive(Debug, Clone)]
pub struct Call {
    pub messages: Vec<Message>,
    pub params: Arc<Params>,
    /// Sample index (self-consistency draws 0..N); part of the cache key.
    pub sample: u32,
    pub item: Arc<ItemView>,
}

impl Call {
    /// What makes two calls of one run the same call: [`identity`] of its fields.
    pub fn identity(&self) -> u128 {
        identity(&self.params, self.sample, &self.messages)
    }
}

/// What makes two calls of one run the same call: the cache key's fields (model, messages,
/// sampling, sample index; `cache::key_digest`), each length-prefixed, as 128 bits of XXH3. A
/// run tells its shared and identical calls apart by it (millions of keys, each over the call's
/// whole text); the cache's SHA-256 of the canonical JSON is what outlives the run.
pub fn identity(params: &Params, sample: u32, messages: &[Message]) -> u128 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    let mut field = |bytes: &[u8]| {
        h.update(&(bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    field(params.model.as_bytes());
    field(&params.temperature.to_bits().to_le_bytes());
    field(&params.max_tokens.to_le_bytes());
    field(&params.seed.map_or([0; 9], tagged));
    field(&params.top_logprobs.map_or([0; 9], |k| tagged(u64::from(k))));
    field(
        params
            .reasoning_effort
            .as_deref()
            .map_or(&[][..], str::as_bytes),
    );
    field(
        params
            .request
            .as_ref()
            .map(|r| r.to_string())
            .unwrap_or_default()
            .as_bytes(),
    );
    field(&sample.to_le_bytes());
    field(&(messages.len() as u64).to_le_bytes());
    for m in messages {
        field(m.role.as_bytes());
        field(m.content.as_bytes());
    }
    h.digest128()
}

/// A value that is there, told apart from none (`[0; 9]`).
fn tagged(v: u64) -> [u8; 9] {
    let mut out = [1; 9];
    out[1..].copy_from_slice(&v.to_le_bytes());
    out
}

/// A judge's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Completion {
    pub text: String,
    pub tokens_in: u64,
    pub tokens_out: u64,
    /// Time of the call that produced it (for a cache hit: of the original call).
    pub latency_ms: f64,
    #[serde(default)]
    pub cached: bool,
    /// The answer's token log-probabilities, when asked for and given (OpenAI's chat shape).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logprobs: Option<Logprobs>,
    /// A reasoning model's thinking, when the server returns it apart from the answer
    /// (`reasoning_content` or `reasoning`); thinking inside the text stays there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// Why the generation stopped (`stop`, `length`, `tool_calls`), when the server says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// Of `tokens_out`, those spent thinking (`completion_tokens_details.reasoning_tokens`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub tokens_reasoning: u64,
    /// Parameters the server refused (HTTP 400 naming them) that this call was sent without.
    #[serde(skip)]
    pub sent_without: Vec<String>,
    /// Which choice of its request this answer was (`n` samples in one request): 0 for the
    /// first, which carries the request's prompt tokens and time; a later choice's
    /// `tokens_in` and `latency_ms` are 0, so sums over answers are what the requests cost.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub choice: u32,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_zero_u32(n: &u32) -> bool {
    *n == 0
}

impl Completion {
    /// An answer of `text` with no cost and no logprobs (recordings, the simulator, tests).
    pub fn free(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            tokens_in: 0,
            tokens_out: 0,
            latency_ms: 0.0,
            cached: false,
            logprobs: None,
            reasoning: None,
            finish_reason: None,
            tokens_reasoning: 0,
            sent_without: Vec::new(),
            choice: 0,
        }
    }

    /// What the judge answered, its thinking set apart (`verdicts::thinking`).
    pub fn answer(&self) -> crate::verdicts::thinking::Answer<'_> {
        crate::verdicts::thinking::answer(&self.text, self.finish_reason.as_deref())
    }
}

/// Why a call produced no completion. Callers branch on the kind: some are retried.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CallError {
    #[error("timed out after {0} s")]
    Timeout(f64),
    #[error("rate limited (HTTP 429)")]
    RateLimited { retry_after: Option<f64> },
    #[error("server error HTTP {status}: {message}")]
    Server { status: u16, message: String },
    #[error("request rejected with HTTP {status}: {message}")]
    Client { status: u16, message: String },
    #[error("connection failed: {0}")]
    Connection(String),
    #[error("malformed response: {0}")]
    BadResponse(String),
    #[error("not in the cache and --offline forbids calling the judge")]
    CacheMiss,
    #[error("no recorded completion for this item: {0}")]
    NoRecording(String),
    /// Not sent: the server had already rejected this judge's configuration.
    #[error("not sent after an earlier refusal: {0}")]
    NotSent(String),
    /// A batch engine's answer for this request was a failure (or never came).
    #[error("batch: {reason}: {message}")]
    Batch { reason: String, message: String },
    /// Not sent: the endpoint had stopped answering (every call failed to connect for a while).
    #[error("not sent: the endpoint {endpoint} stopped answering ({reason})")]
    EndpointGone { endpoint: String, reason: String },
}

impl CallError {
    /// Worth another try: transport trouble, 429 and 5xx; never other 4xx.
    pub fn retryable(&self) -> bool {
        matches!(
            self,
            CallError::Timeout(_)
                | CallError::RateLimited { .. }
                | CallError::Server { .. }
                | CallError::Connection(_)
                | CallError::BadResponse(_)
        )
    }

    /// The server refused the configuration itself, not this one request: a wrong model name
    /// or path (404), a missing or bad key (401), no permission (403). Every other call with
    /// the same configuration would fail the same way.
    pub fn rejects_configuration(&self) -> bool {
        matches!(
            self,
            CallError::Client {
                status: 401 | 403 | 404,
                ..
            } | CallError::NotSent(_)
        )
    }
}

/// How a judge's failed calls are retried. `execute` does the retrying, so a call waiting
/// to retry holds no slot of the concurrency budget and retries respect the rpm limit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    pub max_retries: u32,
    /// First backoff; doubles each retry up to `max_backoff`, times a jitter in [0.5, 1.5).
    pub base_backoff: std::time::Duration,
    pub max_backoff: std::time::Duration,
}

impl RetryPolicy {
    /// No retry at all (replay, the simulator).
    pub const NONE: RetryPolicy = RetryPolicy {
        max_retries: 0,
        base_backoff: std::time::Duration::ZERO,
        max_backoff: std::time::Duration::ZERO,
    };

    /// The wait before retry number `attempt` (from 0) after `error`: the server's
    /// Retry-After when it gave one, else exponential backoff with jitter.
    pub fn backoff(&self, attempt: u32, error: &CallError) -> std::time::Duration {
        use rand::Rng;
        if let CallError::RateLimited {
            retry_after: Some(seconds),
        } = error
        {
            return std::time::Duration::from_secs_f64(seconds.clamp(0.0, 300.0));
        }
        let base = self.base_backoff.as_secs_f64() * 2f64.powi(attempt.min(30) as i32);
        let capped = base.min(self.max_backoff.as_secs_f64());
        std::time::Duration::from_secs_f64(capped * rand::rng().random_range(0.5..1.5))
    }
}

/// Waits `d` without holding a thread: for a judge that takes a server's time (tests, the
/// simulator).
pub async fn pause(d: std::time::Duration) {
    tokio::time::sleep(d).await;
}

pub type CallFuture<'a> = Pin<Box<dyn Future<Output = Result<Completion, CallError>> + Send + 'a>>;

/// What became of one call of several samples sent together.
#[derive(Debug, Clone, PartialEq)]
pub enum SampleOutcome {
    Done(Result<Completion, CallError>),
    /// Not answered by the request: to be sent on its own, and why (the server refused `n`,
    /// or gave fewer choices).
    Alone(String),
}

pub type SamplesFuture<'a> = Pin<Box<dyn Future<Output = Vec<SampleOutcome>> + Send + 'a>>;

/// An OpenAI-compatible server: its base URL and API key.
pub type Endpoint = (String, Option<String>);

/// Anything that answers chat requests.
pub trait Judge: Send + Sync {
    /// How the judge is named in reports ("openai:gpt-4o @ http://...", "sim:...").
    fn describe(&self) -> String;
    /// True for the simulated judge: its results are labelled as simulated wherever shown.
    fn is_simulated(&self) -> bool {
        false
    }
    /// True for a judge whose answer cannot depend on the order shown (a file of scores per
    /// response): position statistics are no-ops for it and reported as such.
    fn is_order_blind(&self) -> bool {
        false
    }
    /// Why this judge can answer none of `items`, checked before any call (a scores file that
    /// holds none of their responses); None when it may answer them.
    fn answers_none_of(&self, _items: &[crate::dataset::examples::Example]) -> Option<String> {
        None
    }
    /// Whether answers are worth caching on disk (real calls cost money; replay and the
    /// simulator are free and deterministic).
    /// An OpenAI-compatible server's base URL and API key (what `calibrate --batch` sends
    /// this judge's calls to); None for judges that answer locally.
    fn endpoint(&self) -> Option<Endpoint> {
        None
    }
    fn cacheable(&self) -> bool {
        false
    }
    /// Whether this judge stores its answers in the response cache as they come (the cache's
    /// wrapper): an identical later call is answered from it.
    fn keeps_answers(&self) -> bool {
        false
    }
    /// How `execute` retries this judge's retryable failures.
    fn retry_policy(&self) -> RetryPolicy {
        RetryPolicy::NONE
    }
    /// True when the judge answers `call` from memory without waiting on anything (a scores
    /// file, replay, the simulator; the cache when the call's answer was prefetched, or
    /// offline): `execute` answers such calls where they are sent, in order, rather than
    /// handing each to the runtime's threads and waking the caller for each answer.
    fn answers_at_once(&self, _call: &Call) -> bool {
        false
    }
    /// Told the calls of a batch before they are made: a judge that answers many calls at
    /// once more cheaply than one by one (the cache: one read in key order) gets them ready.
    fn prefetch(&self, _calls: &[&Call]) {}
    /// One attempt at a call (retries are `execute`'s).
    fn complete<'a>(&'a self, call: &'a Call) -> CallFuture<'a>;
    /// How many samples of one call (the same messages and parameters, consecutive sample
    /// indices) one request may carry (`n`); 1 for judges that answer one at a time.
    fn samples_per_request(&self, _params: &Params) -> u32 {
        1
    }
    /// One attempt at several samples of one call in one request, an outcome per call in
    /// order (asked only when `samples_per_request` is above 1).
    fn complete_samples<'a>(&'a self, calls: &'a [Call]) -> SamplesFuture<'a> {
        Box::pin(async move {
            calls
                .iter()
                .map(|_| SampleOutcome::Alone("the judge answers one sample a request".into()))
                .collect()
        })
    }
}
