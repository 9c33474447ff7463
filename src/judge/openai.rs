//! An OpenAI-compatible chat-completions client (vLLM, Ollama, llama.cpp, OpenAI, ...). Its
//! retry policy (run by `execute`): exponential backoff and jitter on connection errors,
//! timeouts, 429 (honouring Retry-After) and 5xx; no retry on other 4xx. Once the server
//! rejects a model's configuration (401, 403, 404), later calls with that model are not sent.
//! Once the server is gone (every call in flight failed to connect, and nothing answered for
//! [`GONE_AFTER`]), no call is sent any more: the run ends within seconds instead of retrying
//! every remaining call against a dead server.

use super::{Call, CallError, CallFuture, Completion, Judge, RetryPolicy};
use crate::verdicts::probability::Logprobs;
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
        }
    }
}

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

    fn back(&mut self, outcome: &Result<Completion, CallError>) {
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
    health: Mutex<Health>,
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
            Adjustment::Drop(name) => format!("without '{name}'"),
            Adjustment::Rename(from, to) => format!("with '{to}' for '{from}'"),
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

    async fn once(&self, body: &Value) -> Result<Completion, CallError> {
        let start = Instant::now();
        let mut request = self.http.post(&self.url).json(body);
        if let Some(key) = &self.config.api_key {
            request = request.bearer_auth(key);
        }
        let response = request.send().await.map_err(|e| self.transport(e))?;
        let status = response.status();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<f64>().ok());
        let text = response.text().await.map_err(|e| self.transport(e))?;
        if !status.is_success() {
            let message = error_message(&text);
            return Err(match status.as_u16() {
                429 => CallError::RateLimited { retry_after },
                s if s >= 500 => CallError::Server { status: s, message },
                s => CallError::Client { status: s, message },
            });
        }
        let latency_ms = start.elapsed().as_secs_f64() * 1000.0;
        parse_completion(&text, latency_ms)
    }

    fn rejection(&self, model: &str) -> Option<String> {
        self.rejected.lock().ok()?.get(model).cloned()
    }

    fn transport(&self, e: reqwest::Error) -> CallError {
        if e.is_timeout() {
            CallError::Timeout(self.config.timeout.as_secs_f64())
        } else if e.is_decode() || e.is_body() {
            CallError::BadResponse(format!(
                "body cut short or unreadable ({})",
                inner_message(&e)
            ))
        } else {
            CallError::Connection(inner_message(&e))
        }
    }
}

/// The error text without the URL (which may carry credentials in odd setups).
fn inner_message(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    if let Some(url) = e.url() {
        text = text.replace(url.as_str(), "<endpoint>");
    }
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text = format!("{text}: {s}");
        source = s.source();
    }
    text
}

/// `{"error": {"message": ...}}` (OpenAI, vLLM, Ollama), `{"error": "..."}` or FastAPI's
/// `{"detail": "..."}` (llama-cpp-python) when the server says so, else the start of the body.
pub(crate) fn error_message(body: &str) -> String {
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| {
            v["error"]["message"]
                .as_str()
                .or(v["error"].as_str())
                .or(v["detail"].as_str())
                .map(str::to_string)
        })
        .unwrap_or_else(|| body.chars().take(200).collect())
}

/// Reads a chat-completions response body.
pub fn parse_completion(body: &str, latency_ms: f64) -> Result<Completion, CallError> {
    let value: Value = serde_json::from_str(body)
        .map_err(|e| CallError::BadResponse(format!("invalid JSON ({e})")))?;
    completion_of(&value, latency_ms)
}

/// Reads a parsed chat-completions response body (also the `body` of a batch output line).
pub fn completion_of(value: &Value, latency_ms: f64) -> Result<Completion, CallError> {
    let choices = value["choices"]
        .as_array()
        .ok_or_else(|| CallError::BadResponse("no \"choices\" array".into()))?;
    let first = choices
        .first()
        .ok_or_else(|| CallError::BadResponse("empty \"choices\"".into()))?;
    let message = &first["message"];
    let content = message["content"]
        .as_str()
        .or_else(|| first["text"].as_str());
    // A judge that answers by calling a tool: the call's arguments are its answer.
    let arguments = message["tool_calls"][0]["function"]["arguments"]
        .as_str()
        .or_else(|| message["function_call"]["arguments"].as_str());
    let text = match (content, arguments) {
        (Some(c), Some(a)) if c.trim().is_empty() => a,
        (Some(c), _) => c,
        (None, Some(a)) => a,
        // Nothing but thinking (or nothing at all) when the length limit struck.
        (None, None) if first["finish_reason"] == "length" => "",
        (None, None) => {
            return Err(CallError::BadResponse(
                "the first choice has no message content".into(),
            ))
        }
    };
    let usage = &value["usage"];
    Ok(Completion {
        text: text.to_string(),
        tokens_in: usage["prompt_tokens"].as_u64().unwrap_or(0),
        tokens_out: usage["completion_tokens"].as_u64().unwrap_or(0),
        latency_ms,
        cached: false,
        // A server that ignores `logprobs` (or garbles them) still gave its verdict.
        logprobs: Logprobs::from_value(&first["logprobs"]).ok().flatten(),
        reasoning: message["reasoning_content"]
            .as_str()
            .or_else(|| message["reasoning"].as_str())
            .filter(|r| !r.is_empty())
            .map(str::to_string),
        finish_reason: first["finish_reason"].as_str().map(str::to_string),
        tokens_reasoning: reasoning_tokens(usage),
        sent_without: Vec::new(),
    })
}

/// The thinking's share of the completion tokens, by any of its spellings: OpenAI's
/// `completion_tokens_details.reasoning_tokens`, the Responses API's
/// `output_tokens_details.reasoning_tokens`, a flat `reasoning_tokens`.
fn reasoning_tokens(usage: &Value) -> u64 {
    usage["completion_tokens_details"]["reasoning_tokens"]
        .as_u64()
        .or_else(|| usage["output_tokens_details"]["reasoning_tokens"].as_u64())
        .or_else(|| usage["reasoning_tokens"].as_u64())
        .unwrap_or(0)
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
            if let Ok(c) = &mut outcome {
                c.sent_without = applied.iter().map(Adjustment::describe).collect();
            }
            if let Ok(mut health) = self.health.lock() {
                health.back(&outcome);
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
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_bodies() {
        let ok = r#"{"choices":[{"message":{"role":"assistant","content":"[[A]]"}}],"usage":{"prompt_tokens":12,"completion_tokens":3}}"#;
        let c = parse_completion(ok, 5.0).expect("valid");
        assert_eq!(
            (c.text.as_str(), c.tokens_in, c.tokens_out),
            ("[[A]]", 12, 3)
        );
        assert!(
            matches!(parse_completion(r#"{"choices":[]}"#, 1.0), Err(CallError::BadResponse(m)) if m == "empty \"choices\"")
        );
        assert!(matches!(
            parse_completion(r#"{"choices":[{"mess"#, 1.0),
            Err(CallError::BadResponse(_))
        ));
        assert_eq!(
            error_message(r#"{"error":{"message":"model 'x' not found"}}"#),
            "model 'x' not found"
        );
        assert_eq!(error_message(r#"{"detail":"Not Found"}"#), "Not Found");
        assert_eq!(error_message("<html>502</html>"), "<html>502</html>");
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
