//! Reading an OpenAI-compatible server's answers: a chat-completions body's choices (their
//! texts, logprobs, thinking and the request's usage shared out among them) and an error
//! body's message.

use crate::judge::{CallError, Completion};
use crate::verdicts::probability::Logprobs;
use serde_json::Value;

/// Reads a chat-completions response body.
pub fn parse_completion(body: &str, latency_ms: f64) -> Result<Completion, CallError> {
    let value: Value = serde_json::from_str(body)
        .map_err(|e| CallError::BadResponse(format!("invalid JSON ({e})")))?;
    completion_of(&value, latency_ms)
}

/// Reads a parsed chat-completions response body (also the `body` of a batch output line):
/// its first choice.
pub fn completion_of(value: &Value, latency_ms: f64) -> Result<Completion, CallError> {
    let mut all = choices_of(value, latency_ms)?;
    Ok(all.swap_remove(0))
}

/// Every choice of a parsed response body, in order (`n` samples of one request). The first
/// carries the request's prompt tokens and time; the completion tokens (and the thinking's)
/// are shared out evenly, the first choices taking the remainder, so the answers add up to
/// the server's usage.
pub fn choices_of(value: &Value, latency_ms: f64) -> Result<Vec<Completion>, CallError> {
    let choices = value["choices"]
        .as_array()
        .ok_or_else(|| CallError::BadResponse("no \"choices\" array".into()))?;
    if choices.is_empty() {
        return Err(CallError::BadResponse("empty \"choices\"".into()));
    }
    let usage = &value["usage"];
    let n = choices.len() as u64;
    let share = |total: u64, k: u64| total / n + u64::from(k < total % n);
    let (tokens_out, reasoning) = (
        usage["completion_tokens"].as_u64().unwrap_or(0),
        reasoning_tokens(usage),
    );
    // The server's order, by `index` where it gives one.
    let mut ordered: Vec<&Value> = choices.iter().collect();
    ordered.sort_by_key(|c| c["index"].as_u64().unwrap_or(0));
    ordered
        .into_iter()
        .enumerate()
        .map(|(k, choice)| {
            let k64 = k as u64;
            Ok(Completion {
                tokens_in: if k == 0 {
                    usage["prompt_tokens"].as_u64().unwrap_or(0)
                } else {
                    0
                },
                tokens_out: share(tokens_out, k64),
                tokens_reasoning: share(reasoning, k64),
                latency_ms: if k == 0 { latency_ms } else { 0.0 },
                choice: k as u32,
                ..choice_of(choice)?
            })
        })
        .collect()
}

/// One choice's answer (no usage: `choices_of` shares it out).
fn choice_of(choice: &Value) -> Result<Completion, CallError> {
    let message = &choice["message"];
    let content = message["content"]
        .as_str()
        .or_else(|| choice["text"].as_str());
    // A judge that answers by calling a tool: the call's arguments are its answer.
    let arguments = message["tool_calls"][0]["function"]["arguments"]
        .as_str()
        .or_else(|| message["function_call"]["arguments"].as_str());
    let text = match (content, arguments) {
        (Some(c), Some(a)) if c.trim().is_empty() => a,
        (Some(c), _) => c,
        (None, Some(a)) => a,
        // Nothing but thinking (or nothing at all) when the length limit struck.
        (None, None) if choice["finish_reason"] == "length" => "",
        (None, None) => {
            return Err(CallError::BadResponse(
                "the first choice has no message content".into(),
            ))
        }
    };
    Ok(Completion {
        // A server that ignores `logprobs` (or garbles them) still gave its verdict.
        logprobs: Logprobs::from_value(&choice["logprobs"]).ok().flatten(),
        reasoning: message["reasoning_content"]
            .as_str()
            .or_else(|| message["reasoning"].as_str())
            .filter(|r| !r.is_empty())
            .map(str::to_string),
        finish_reason: choice["finish_reason"].as_str().map(str::to_string),
        ..Completion::free(text)
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
            crate::judge::http::error_message(r#"{"error":{"message":"model 'x' not found"}}"#),
            "model 'x' not found"
        );
        let error_message = crate::judge::http::error_message;
        assert_eq!(error_message(r#"{"detail":"Not Found"}"#), "Not Found");
        assert_eq!(error_message("<html>502</html>"), "<html>502</html>");
    }
}
