//! An OpenAI-compatible chat-completions client (vLLM, Ollama, llama.cpp, OpenAI, ...). Its
//! retry policy (run by `execute`): exponential backoff and jitter on connection errors,
//! timeouts, 429 (honouring Retry-After) and 5xx; no retry on other 4xx. Once the server
//! rejects a model's configuration (401, 403, 404), later calls with that model are not sent.
//! Once the server is gone (every call in flight failed to connect, and nothing answered for
//! [`GONE_AFTER`]), no call is sent any more: the run ends within seconds instead of retrying
//! every remaining call against a dead server.

mod response;

pub use response::{choices_of, completion_of, parse_completion};

use super::{
    Call, CallError, CallFuture, Completion, Judge, RetryPolicy, SampleOutcome, SamplesFuture,
};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Client settings. The API key is held here and never printed (see `Debug`).
#[derive(Clone)]
pub struct OpenAiConfig {
    /// Base URL, e.g. `http://127.0.0.1:8000/v1`; requests go to `{base}/chat/completions`.
    pub base_url: String,
    pub api_key: Option<String>,
    pub timeout: Duration,
    /// How `execute` retries this client's retryable failures.
    pub retry: RetryPolicy,
    pub extra_headers: Vec<(String, String)>,
    /// At most this many samples of one call in one request (`n`); 1 sends each alone.
    pub samples_per_request: u32,
}

impl std::fmt::Debug for OpenAiConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("timeout", &self.timeout)
            .field("retry", &self.retry)
            .finish()
    }
}

impl OpenAiConfig {
    pub fn new(base_url: &str) -> Self {
        Self {
            base_url: base_url.trim_end_matches('/').to_string(),
            api_key: None,
            timeout: Duration::from_secs(120),
            retry: RetryPolicy {
                max_retries: 5,
                base_backoff: Duration::from_millis(500),
                max_backoff: Duration::from_secs(30),
            },
            extra_headers: Vec::new(),
            samples_per_request: MAX_SAMPLES_PER_REQUEST,
        }
    }
}

/// OpenAI's largest `n`.
pub const MAX_SAMPLES_PER_REQUEST: u32 = 128;

/// How long without any answer, while every call fails to connect, before the endpoint counts
/// as gone. Timeouts are not connection failures: a slow server keeps the lowering rule.
pub const GONE_AFTER: Duration = Duration::from_secs(3);

/// Whether the server is still there.
#[derive(Debug)]
struct Health {
    /// Calls sent and not back yet, and the most at once since the last answer.
    in_flight: usize,
    peak: usize,
    /// Connection failures (refused, reset, unreachable) since the last answer.
    failures: usize,
    /// The last answer of any kind (an HTTP status counts: the server is there), or the start.
    last_answer: Instant,
    /// Why the endpoint counts as gone.
    gone: Option<String>,
}

impl Health {
    fn new() -> Self {
        Self {
            in_flight: 0,
            peak: 0,
            failures: 0,
            last_answer: Instant::now(),
            gone: None,
        }
    }

    /// A call about to be sent: counted in flight, or, when the endpoint is gone, why not.
    fn send(&mut self) -> Option<String> {
        if self.gone.is_none() {
            self.in_flight += 1;
            self.peak = self.peak.max(self.in_flight);
        }
        self.gone.clone()
    }

    fn back(&mut self, outcome: Result<(), &CallError>) {
        self.in_flight = self.in_flight.saturating_sub(1);
        match outcome {
            Err(CallError::Connection(message)) => {
                self.failures += 1;
                if self.failures >= self.peak.max(2)
                    && self.last_answer.elapsed() >= GONE_AFTER
                    && self.gone.is_none()
                {
                    self.gone = Some(short_reason(message));
                }
            }
            // A timeout says the server is slow, not gone; a cut-short body says nothing.
            Err(CallError::Timeout(_) | CallError::BadResponse(_)) => {}
            _ => {
                self.failures = 0;
                self.peak = self.in_flight;
                self.last_answer = Instant::now();
            }
        }
    }
}

/// "connection refused" rather than reqwest's whole chain, when the chain says which.
fn short_reason(message: &str) -> String {
    let lower = message.to_ascii_lowercase();
    [
        ("refused", "connection refused"),
        ("reset", "connection reset"),
        ("unreachable", "unreachable"),
        ("dns error", "the host name does not resolve"),
        ("closed before message completed", "connection closed"),
    ]
    .iter()
    .find(|(needle, _)| lower.contains(needle))
    .map_or_else(|| message.to_string(), |(_, reason)| reason.to_string())
}

/// The client.
#[derive(Debug)]
pub struct OpenAi {
    config: OpenAiConfig,
    http: reqwest::Client,
    url: String,
    /// Per model, the server's first rejection of the configuration (see
    /// [`CallError::rejects_configuration`]).
    rejected: Mutex<HashMap<String, String>>,
    /// Per model, the parameters the server refused with an HTTP 400 naming them (reasoning
    /// models refuse `temperature`, ask `max_completion_tokens` for `max_tokens`): later calls
    /// go without them.
    refused_parameters: Mutex<HashMap<String, Vec<Adjustment>>>,
    /// Per model, why its samples go one request each: the server refused `n` (an HTTP 400
    /// naming it), or answered fewer choices than asked.
    one_per_request: Mutex<HashMap<String, String>>,
    health: Mutex<Health>,
}

/// Whether a 400's message is about `n` (OpenAI's "Invalid 'n'", vLLM's "n must be",
/// llama.cpp's "Only one completion choice is allowed").
fn names_n(message: &str) -> bool {
    message.to_ascii_lowercase().contains("completion choice")
        || message
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .any(|word| word == "n")
}

/// A change to a request body the server asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Adjustment {
    Drop(&'static str),
    Rename(&'static str, &'static str),
}

impl Adjustment {
    fn apply(&self, body: &mut Value) {
        if let Some(fields) = body.as_object_mut() {
            match self {
                Adjustment::Drop(name) => {
                    fields.remove(*name);
                    // `logprobs: true` goes with `top_logprobs`.
                    if *name == "logprobs" {
                        fields.remove("top_logprobs");
                    }
                }
                Adjustment::Rename(from, to) => {
                    if let Some(v) = fields.remove(*from) {
                        fields.insert((*to).to_string(), v);
                    }
                }
            }
        }
    }

    fn describe(&self) -> String {
        match self {
            Adjustment::Drop(name) => {
                format!("without '{name}' (the server refused it: HTTP 400 naming it)")
            }
            Adjustment::Rename(from, to) => {
                format!(
                    "with '{to}' for '{from}' (the server refused '{from}': HTTP 400 naming it)"
                )
            }
        }
    }
}

/// The optional parameters a body may carry that a server may refuse, longest first (so that
/// `top_logprobs` is found before `logprobs`).
const OPTIONAL: [&str; 6] = [
    "reasoning_effort",
    "top_logprobs",
    "temperature",
    "max_tokens",
    "logprobs",
    "seed",
];

/// What to change when a 400's message names a parameter of the body; `None` when it names
/// none (the request itself is bad).
fn adjustment(body: &Value, message: &str) -> Option<Adjustment> {
    let lower = message.to_ascii_lowercase();
    let name = OPTIONAL
        .into_iter()
        .find(|p| body.get(*p).is_some() && lower.contains(p))?;
    Some(
        if name == "max_tokens" && lower.contains("max_completion_tokens") {
            Adjustment::Rename("max_tokens", "max_completion_tokens")
        } else if name == "max_tokens" {
            // The length limit is not optional: a 400 about it is about its value.
            return None;
        } else {
            Adjustment::Drop(name)
        },
    )
}

impl OpenAi {
    pub fn new(config: OpenAiConfig) -> Result<Self, CallError> {
        let mut headers = reqwest::header::HeaderMap::new();
        for (k, v) in &config.extra_headers {
            let name = reqwest::header::HeaderName::from_bytes(k.as_bytes()).map_err(|_| {
                CallError::Client {
                    status: 0,
                    message: format!("bad header name '{k}'"),
                }
            })?;
            let value =
                reqwest::header::HeaderValue::from_str(v).map_err(|_| CallError::Client {
                    status: 0,
                    message: format!("bad value for header '{k}'"),
                })?;
            headers.insert(name, value);
        }
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            .connect_timeout(Duration::from_secs(10).min(config.timeout))
            .pool_max_idle_per_host(256)
            .default_headers(headers)
            .user_agent(concat!("raterlab/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| CallError::Connection(e.to_string()))?;
        let url = format!("{}/chat/completions", config.base_url);
        Ok(Self {
            config,
            http,
            url,
            rejected: Mutex::new(HashMap::new()),
            refused_parameters: Mutex::new(HashMap::new()),
            one_per_request: Mutex::new(HashMap::new()),
            health: Mutex::new(Health::new()),
        })
    }

    /// The request body of a call (also a batch request line's `body`).
    pub fn body(call: &Call) -> Value {
        let mut body = json!({
            "model": call.params.model,
            "messages": call.messages,
            "temperature": call.params.temperature,
            "max_tokens": call.params.max_tokens,
            "n": 1,
        });
        if let Some(seed) = call.params.seed {
            // Each sample gets its own seed so self-consistency draws differ.
            body["seed"] = json!(seed.wrapping_add(u64::from(call.sample)));
        }
        if let Some(top) = call.params.top_logprobs {
            body["logprobs"] = json!(true);
            body["top_logprobs"] = json!(top);
        }
        if let Some(effort) = &call.params.reasoning_effort {
            body["reasoning_effort"] = json!(effort);
        }
        // The template's own fields: a JSON schema to answer in, a tool to call.
        if let (Some(Value::Object(extra)), Some(fields)) =
            (&call.params.request, body.as_object_mut())
        {
            for (k, v) in extra {
                fields.insert(k.clone(), v.clone());
            }
        }
        body
    }

    async fn once(&self, body: &Value) -> Result<Vec<Completion>, CallError> {
        let start = Instant::now();
        let mut request = self.http.post(&self.url).json(body);
        if let Some(key) = &self.config.api_key {
            request = request.bearer_auth(key);
        }
        let text = super::http::post(request, self.config.timeout.as_secs_f64(), |_, m| m).await?;
        let latency_ms = start.elapsed().as_secs_f64() * 1000.0;
        let value: Value = serde_json::from_str(&text)
            .map_err(|e| CallError::BadResponse(format!("invalid JSON ({e})")))?;
        choices_of(&value, latency_ms)
    }

    fn rejection(&self, model: &str) -> Option<String> {
        self.rejected.lock().ok()?.get(model).cloned()
    }
}

impl Judge for OpenAi {
    fn describe(&self) -> String {
        format!("openai @ {}", self.config.base_url)
    }
    fn endpoint(&self) -> Option<crate::judge::Endpoint> {
        Some((self.config.base_url.clone(), self.config.api_key.clone()))
    }
    fn cacheable(&self) -> bool {
        true
    }
    fn retry_policy(&self) -> RetryPolicy {
        self.config.retry
    }
    fn complete<'a>(&'a self, call: &'a Call) -> CallFuture<'a> {
        Box::pin(async move {
            let mut answers = self.send(call, 1).await?;
            if answers.is_empty() {
                return Err(CallError::BadResponse("empty \"choices\"".into()));
            }
            Ok(answers.swap_remove(0))
        })
    }

    /// What `--samples-per-request` allows; a model known not to take `n` gets its bundles
    /// back unsent (`complete_samples`), so each of its samples is counted in the run's note.
    fn samples_per_request(&self, _params: &crate::judge::Params) -> u32 {
        self.config.samples_per_request.max(1)
    }

    fn complete_samples<'a>(&'a self, calls: &'a [Call]) -> SamplesFuture<'a> {
        Box::pin(async move {
            let Some(first) = calls.first() else {
                return Vec::new();
            };
            let asked = calls.len();
            let known = self
                .one_per_request
                .lock()
                .ok()
                .and_then(|m| m.get(&first.params.model).cloned());
            if let Some(why) = known {
                return calls
                    .iter()
                    .map(|_| SampleOutcome::Alone(why.clone()))
                    .collect();
            }
            match self.send(first, asked as u32).await {
                Ok(answers) => {
                    if !answers.is_empty() && answers.len() < asked {
                        self.one_at_a_time(
                            &first.params.model,
                            format!(
                                "the server answered {} choice(s) of the {asked} asked with 'n'",
                                answers.len()
                            ),
                        );
                    }
                    let why = self.why_alone(&first.params.model);
                    let mut answers = answers.into_iter();
                    calls
                        .iter()
                        .map(|_| {
                            answers.next().map_or_else(
                                || SampleOutcome::Alone(why.clone()),
                                |c| SampleOutcome::Done(Ok(c)),
                            )
                        })
                        .collect()
                }
                Err(e) => calls
                    .iter()
                    .map(|_| SampleOutcome::Done(Err(e.clone())))
                    .collect(),
            }
        })
    }
}

impl OpenAi {
    /// Remembers that `model`'s samples go one request each, and why.
    fn one_at_a_time(&self, model: &str, why: String) {
        if let Ok(mut m) = self.one_per_request.lock() {
            m.entry(model.to_string()).or_insert(why);
        }
    }

    /// Why `model`'s samples go one request each.
    fn why_alone(&self, model: &str) -> String {
        self.one_per_request
            .lock()
            .ok()
            .and_then(|m| m.get(model).cloned())
            .unwrap_or_else(|| "the server did not answer them together".into())
    }

    /// One request for `n` samples of `call` (its sample index the first's): every choice,
    /// or none when the server refused `n` (the samples are then asked one by one).
    async fn send(&self, call: &Call, n: u32) -> Result<Vec<Completion>, CallError> {
        let model = &call.params.model;
        if let Some(reason) = self.rejection(model) {
            return Err(CallError::NotSent(reason));
        }
        if let Some(reason) = self.health.lock().ok().and_then(|mut h| h.send()) {
            return Err(CallError::EndpointGone {
                endpoint: self.config.base_url.clone(),
                reason,
            });
        }
        let mut body = Self::body(call);
        body["n"] = json!(n);
        let known: Vec<Adjustment> = self
            .refused_parameters
            .lock()
            .ok()
            .and_then(|r| r.get(model).cloned())
            .unwrap_or_default();
        for a in &known {
            a.apply(&mut body);
        }
        let mut outcome = self.once(&body).await;
        // An HTTP 400 naming a parameter of the body: once more without it, and never
        // again for this model.
        let mut applied: Vec<Adjustment> = known;
        while let Err(CallError::Client {
            status: 400,
            message,
        }) = &outcome
        {
            if n > 1 && names_n(message) {
                self.one_at_a_time(model, format!("HTTP 400: {message}"));
                outcome = Ok(Vec::new());
                break;
            }
            let Some(a) = adjustment(&body, message).filter(|a| !applied.contains(a)) else {
                break;
            };
            a.apply(&mut body);
            if let Ok(mut refused) = self.refused_parameters.lock() {
                let list = refused.entry(model.clone()).or_default();
                if !list.contains(&a) {
                    list.push(a.clone());
                }
            }
            applied.push(a);
            outcome = self.once(&body).await;
        }
        if let Ok(answers) = &mut outcome {
            for c in answers {
                c.sent_without = applied.iter().map(Adjustment::describe).collect();
            }
        }
        if let Ok(mut health) = self.health.lock() {
            health.back(outcome.as_ref().map(|_| ()));
        }
        if let Err(e) = &outcome {
            if e.rejects_configuration() {
                if let Ok(mut rejected) = self.rejected.lock() {
                    rejected
                        .entry(model.clone())
                        .or_insert_with(|| e.to_string());
                }
            }
        }
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The servers' words for a refused `n`: OpenAI's, vLLM's and llama.cpp's `llama-server`
    /// (which allows one choice); other 400s are not about it.
    #[test]
    fn a_400_about_n_is_recognised() {
        for message in [
            "Invalid 'n': integer above maximum value. Expected a value <= 1, but got 5 instead.",
            "n must be 1 when using greedy sampling, got 5.",
            "Only one completion choice is allowed",
        ] {
            assert!(names_n(message), "{message}");
        }
        for message in [
            "This model's maximum context length is 4096 tokens",
            "Unsupported parameter: 'temperature' is not supported with this model.",
            "Invalid value for 'response_format'",
        ] {
            assert!(!names_n(message), "{message}");
        }
    }

    #[test]
    fn debug_hides_the_key() {
        let mut c = OpenAiConfig::new("http://x/v1/");
        c.api_key = Some("sk-secret".into());
        let shown = format!("{c:?}");
        assert!(!shown.contains("sk-secret") && shown.contains("<redacted>"));
        assert_eq!(c.base_url, "http://x/v1");
    }
}
