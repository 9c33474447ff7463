//! One result line of a batch engine → an answer or a failure. Recognized by shape:
//!
//! - OpenAI Batch output and error files, and vLLM `run-batch` output:
//!   `{"id", "custom_id", "response": {"status_code", "request_id", "body"}, "error"}`, where
//!   `error` is null, an object (`{"code", "message"}`) or (vLLM) a plain string, and `body`
//!   is null on error;
//! - Anthropic Message Batches results: `{"custom_id", "result": {"type": succeeded | errored
//!   | canceled | expired, ...}}`;
//! - a plain table row, as a Ray Data pipeline writes it: `{"custom_id", "text"}` or
//!   `{"custom_id", "generated_text"}`.
//!
//! Only a success with a body is an answer; everything else is a failure with a short reason
//! (counted by it) and whether sending the request again may succeed.

use super::super::{CallError, Completion};
use serde_json::Value;

/// Why a request has no answer.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Failure {
    /// Short and stable, for counting: `HTTP 400`, `batch_expired`, `expired`, ...
    pub reason: String,
    pub message: String,
    /// Sending it again may succeed (expired, cancelled, 429, 5xx, overloaded).
    pub retryable: bool,
    /// The HTTP status the engine reported, if any.
    pub status: Option<u16>,
}

impl Failure {
    fn new(reason: impl Into<String>, message: impl Into<String>, retryable: bool) -> Self {
        Self {
            reason: reason.into(),
            message: message.into(),
            retryable,
            status: None,
        }
    }

    /// As a call's error, so the item shows it like any failed call (4xx and 5xx keep their
    /// kinds: a 401/403/404 still says the configuration was refused).
    pub fn to_call_error(&self) -> CallError {
        match self.status {
            Some(s) if (400..500).contains(&s) && s != 429 => CallError::Client {
                status: s,
                message: self.message.clone(),
            },
            Some(s) if s >= 500 => CallError::Server {
                status: s,
                message: self.message.clone(),
            },
            _ => CallError::Batch {
                reason: self.reason.clone(),
                message: self.message.clone(),
            },
        }
    }
}

/// A result line, read.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Line {
    pub custom_id: String,
    pub outcome: Result<Completion, Failure>,
    /// The model that answered, as the engine names it (when it does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The answer's other choices, when the request asked for several samples (`n`): the
    /// samples after the first, in order (`Samples::split` gives each its own key).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub more: Vec<Completion>,
}

fn retryable_status(status: u16) -> bool {
    status == 429 || status >= 500
}

/// OpenAI's per-line error codes that a new batch may not meet again.
fn retryable_code(code: &str) -> bool {
    matches!(
        code,
        "batch_expired" | "batch_cancelled" | "rate_limit_exceeded" | "server_error" | "timeout"
    )
}

/// An engine's `error` value (object, string or anything else) → (reason, message).
fn error_of(error: &Value, status: Option<u16>) -> (String, String) {
    let message = error["message"]
        .as_str()
        .or(error.as_str())
        .map(str::to_string)
        .unwrap_or_else(|| error.to_string());
    let reason = match (&error["code"], status) {
        (Value::String(code), _) if !code.is_empty() => code.clone(),
        (Value::Number(n), _) => format!("HTTP {n}"),
        (_, Some(s)) => format!("HTTP {s}"),
        _ => "error".into(),
    };
    (reason, message)
}

fn openai_line(v: &Value, custom_id: String) -> Line {
    let response = &v["response"];
    let status = response["status_code"]
        .as_u64()
        .and_then(|s| u16::try_from(s).ok());
    let error = &v["error"];
    let body = &response["body"];
    let failure = |reason: String, message: String| {
        let retryable = status.is_some_and(retryable_status)
            || (status.is_none() || status == Some(200)) && retryable_code(&reason);
        Failure {
            reason,
            message,
            retryable,
            status: status.filter(|s| *s != 200),
        }
    };
    let outcome = if !error.is_null() {
        let (reason, message) = error_of(error, status.filter(|s| *s != 200));
        Err(failure(reason, message))
    } else if status != Some(200) {
        let s = status.map_or_else(|| "no status".to_string(), |s| format!("HTTP {s}"));
        let message = body["error"]["message"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| body.to_string());
        Err(failure(s, message))
    } else if body.is_null() {
        Err(failure(
            "no body".into(),
            "status 200 without a body".into(),
        ))
    } else {
        crate::judge::openai::choices_of(body, 0.0)
            .map_err(|e| failure("malformed body".into(), e.to_string()))
    };
    let model = body["model"].as_str().map(str::to_string);
    let (outcome, more) = match outcome {
        Ok(all) => {
            let mut choices = all.into_iter();
            match choices.next() {
                Some(first) => (Ok(first), choices.collect()),
                None => (
                    Err(failure("malformed body".into(), "empty \"choices\"".into())),
                    Vec::new(),
                ),
            }
        }
        Err(e) => (Err(e), Vec::new()),
    };
    Line {
        custom_id,
        outcome,
        model,
        more,
    }
}

fn anthropic_line(result: &Value, custom_id: String) -> Line {
    let kind = result["type"].as_str().unwrap_or("");
    let outcome = match kind {
        "succeeded" => {
            let message = &result["message"];
            let text: Option<String> = message["content"].as_array().map(|blocks| {
                blocks
                    .iter()
                    .filter(|b| b["type"] == "text")
                    .filter_map(|b| b["text"].as_str())
                    .collect()
            });
            match text {
                // Anthropic's API gives no token logprobs.
                Some(text) => Ok(Completion {
                    tokens_in: message["usage"]["input_tokens"].as_u64().unwrap_or(0),
                    tokens_out: message["usage"]["output_tokens"].as_u64().unwrap_or(0),
                    ..Completion::free(text)
                }),
                None => Err(Failure::new(
                    "malformed body",
                    "a succeeded result without message content",
                    false,
                )),
            }
        }
        "errored" => {
            let inner = &result["error"]["error"];
            let reason = inner["type"]
                .as_str()
                .or(result["error"]["type"].as_str())
                .unwrap_or("errored")
                .to_string();
            let retryable = matches!(
                reason.as_str(),
                "api_error" | "overloaded_error" | "rate_limit_error"
            );
            let message = inner["message"].as_str().unwrap_or("").to_string();
            Err(Failure::new(reason, message, retryable))
        }
        "canceled" | "expired" => Err(Failure::new(
            kind,
            format!("the batch ended with this request {kind}"),
            true,
        )),
        other => Err(Failure::new(
            "unknown result",
            format!("result type '{other}'"),
            false,
        )),
    };
    let model = result["message"]["model"].as_str().map(str::to_string);
    Line {
        custom_id,
        outcome,
        model,
        more: Vec::new(),
    }
}

/// Reads one parsed line. `Err` says what shape was expected (the line is not a result).
pub fn read(v: &Value) -> Result<Line, String> {
    let Some(object) = v.as_object() else {
        return Err("not a JSON object".into());
    };
    let custom_id = match object.get("custom_id") {
        Some(Value::String(s)) => s.clone(),
        _ => {
            return Err(
                "no \"custom_id\" string; expected an OpenAI/vLLM batch output line, an Anthropic result or a {custom_id, text} row".into(),
            )
        }
    };
    if object.contains_key("body") && object.contains_key("method") {
        return Err("a batch request line (the input `batch export` wrote), not a result; ingest the engine's output file".into());
    }
    if object.contains_key("response") || object.contains_key("error") {
        return Ok(openai_line(v, custom_id));
    }
    if let Some(result) = object.get("result") {
        return Ok(anthropic_line(result, custom_id));
    }
    for column in ["text", "generated_text"] {
        if let Some(text) = object.get(column) {
            let outcome = match text {
                Value::String(t) => Ok(Completion {
                    tokens_in: object
                        .get("num_input_tokens")
                        .and_then(Value::as_u64)
                        .unwrap_or(0),
                    tokens_out: object
                        .get("num_generated_tokens")
                        .and_then(Value::as_u64)
                        .unwrap_or(0),
                    logprobs: object.get("logprobs").and_then(|l| {
                        crate::verdicts::probability::Logprobs::from_value(l)
                            .ok()
                            .flatten()
                    }),
                    finish_reason: object
                        .get("finish_reason")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    ..Completion::free(t.clone())
                }),
                _ => Err(Failure::new(
                    "no text",
                    format!("\"{column}\" is {text}"),
                    true,
                )),
            };
            let model = object
                .get("model")
                .and_then(Value::as_str)
                .map(str::to_string);
            return Ok(Line {
                custom_id,
                outcome,
                model,
                more: Vec::new(),
            });
        }
    }
    Err("a \"custom_id\" but no \"response\", \"error\", \"result\", \"text\" or \"generated_text\"".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(v: Value) -> Line {
        read(&v).expect("a result line")
    }

    #[test]
    fn openai_and_vllm_shapes() {
        let ok = line(
            json!({"id": "batch_req_1", "custom_id": "k1", "response": {"status_code": 200, "request_id": "r", "body": {"choices": [{"message": {"content": "[[A]]"}}], "usage": {"prompt_tokens": 5, "completion_tokens": 2}}}, "error": null}),
        );
        let c = ok.outcome.expect("answer");
        assert_eq!(
            (c.text.as_str(), c.tokens_in, c.tokens_out),
            ("[[A]]", 5, 2)
        );
        // OpenAI error file: status 400 with the error in the body.
        let bad = line(
            json!({"id": "x", "custom_id": "k2", "response": {"status_code": 400, "request_id": "r", "body": {"error": {"message": "too long", "type": "invalid_request_error"}}}, "error": null}),
        );
        let f = bad.outcome.expect_err("failure");
        assert_eq!(
            (f.reason.as_str(), f.message.as_str(), f.retryable),
            ("HTTP 400", "too long", false)
        );
        assert!(matches!(
            f.to_call_error(),
            CallError::Client { status: 400, .. }
        ));
        // OpenAI: an expired request.
        let expired = line(
            json!({"id": "x", "custom_id": "k3", "response": null, "error": {"code": "batch_expired", "message": "not executed in time"}}),
        );
        let f = expired.outcome.expect_err("failure");
        assert_eq!((f.reason.as_str(), f.retryable), ("batch_expired", true));
        // vLLM: error as a plain string, body null.
        let v1 = line(
            json!({"id": "vllm-1", "custom_id": "k4", "response": {"status_code": 400, "request_id": "vllm-batch-1", "body": null}, "error": "Only /v1/chat/completions is supported"}),
        );
        let f = v1.outcome.expect_err("failure");
        assert_eq!(
            (f.reason.as_str(), f.message.as_str()),
            ("HTTP 400", "Only /v1/chat/completions is supported")
        );
        // vLLM: error as an object with a numeric code.
        let v2 = line(
            json!({"id": "vllm-2", "custom_id": "k5", "response": {"status_code": 400, "request_id": "r", "body": null}, "error": {"object": "error", "message": "maximum context length is 2048 tokens", "type": "BadRequestError", "param": null, "code": 400}}),
        );
        let f = v2.outcome.expect_err("failure");
        assert_eq!((f.reason.as_str(), f.retryable), ("HTTP 400", false));
        let busy = line(
            json!({"custom_id": "k6", "response": {"status_code": 503, "body": null}, "error": {"code": "server_error", "message": "overloaded"}}),
        );
        assert!(busy.outcome.expect_err("failure").retryable);
    }

    #[test]
    fn anthropic_and_plain_shapes() {
        let ok = line(
            json!({"custom_id": "k1", "result": {"type": "succeeded", "message": {"content": [{"type": "text", "text": "Output (a)"}], "usage": {"input_tokens": 9, "output_tokens": 3}}}}),
        );
        assert_eq!(ok.outcome.expect("answer").text, "Output (a)");
        let err = line(
            json!({"custom_id": "k2", "result": {"type": "errored", "error": {"type": "error", "error": {"type": "invalid_request_error", "message": "bad"}}}}),
        );
        let f = err.outcome.expect_err("failure");
        assert_eq!(
            (f.reason.as_str(), f.retryable),
            ("invalid_request_error", false)
        );
        let gone = line(json!({"custom_id": "k3", "result": {"type": "expired"}}));
        assert!(gone.outcome.expect_err("failure").retryable);
        let ray =
            line(json!({"custom_id": "k4", "generated_text": "[[B]]", "num_input_tokens": 10}));
        assert_eq!(ray.outcome.expect("answer").tokens_in, 10);
        assert_eq!(
            line(json!({"custom_id": "k5", "text": "x"}))
                .outcome
                .expect("answer")
                .text,
            "x"
        );
        assert!(read(&json!({"id": 1})).is_err());
        assert!(read(&json!({"custom_id": "k", "other": 1})).is_err());
        assert!(read(&json!([1])).is_err());
    }
}
