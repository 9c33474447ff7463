//! One JSON POST to a judge's server and its faults as `CallError`s, shared by the chat client
//! (`openai`) and the reward-model engines (`reward`): 429 with its Retry-After, 5xx, other
//! statuses with the server's message, transport errors without the URL.

use super::CallError;
use serde_json::Value;

/// Sends the request and returns the body of a successful answer; `explain` words a refusal
/// (status, the server's message) for the caller's engine.
pub async fn post(
    request: reqwest::RequestBuilder,
    timeout: f64,
    explain: impl Fn(u16, String) -> String,
) -> Result<String, CallError> {
    let response = request.send().await.map_err(|e| transport(e, timeout))?;
    let status = response.status();
    let retry_after = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<f64>().ok());
    let text = response.text().await.map_err(|e| transport(e, timeout))?;
    if status.is_success() {
        return Ok(text);
    }
    let message = error_message(&text);
    Err(match status.as_u16() {
        429 => CallError::RateLimited { retry_after },
        s if s >= 500 => CallError::Server { status: s, message },
        s => CallError::Client {
            status: s,
            message: explain(s, message),
        },
    })
}

/// A transport failure: a timeout, a body cut short, or no connection.
pub fn transport(e: reqwest::Error, timeout: f64) -> CallError {
    if e.is_timeout() {
        CallError::Timeout(timeout)
    } else if e.is_decode() || e.is_body() {
        CallError::BadResponse(format!(
            "body cut short or unreadable ({})",
            inner_message(&e)
        ))
    } else {
        CallError::Connection(inner_message(&e))
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
pub fn error_message(body: &str) -> String {
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
