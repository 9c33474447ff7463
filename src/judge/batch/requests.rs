//! Request lines: a call as an OpenAI (Batch, vLLM `run-batch`, Ray) or Anthropic request,
//! keyed by its cache key (`Key`, the `custom_id`).

use crate::judge::Call;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// The request-line format of an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// OpenAI Batch JSONL (also vLLM `run-batch`, SGLang, and the Ray pipeline's input).
    Openai,
    /// Anthropic Message Batches request bodies.
    Anthropic,
}

impl Format {
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "openai" => Some(Format::Openai),
            "anthropic" => Some(Format::Anthropic),
            _ => None,
        }
    }
}

/// A cache key held as its 32 bytes, written as 64 lowercase hex digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key(pub [u8; 32]);

impl Key {
    pub fn parse(hex: &str) -> Option<Self> {
        crate::judge::cache::key_bytes(hex).map(Key)
    }
    pub fn hex(&self) -> String {
        crate::judge::cache::hex(&self.0)
    }
}

impl Serialize for Key {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.hex())
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = Key;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a cache key (64 lowercase hex digits)")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Key, E> {
                Key::parse(v).ok_or_else(|| E::custom(format!("'{v}' is not a cache key")))
            }
        }
        d.deserialize_str(Visit)
    }
}

/// One request line of a batch input file, asking for `n` samples (OpenAI's format only;
/// Anthropic's has no `n`, so its lines are one sample each).
pub fn request_line(format: Format, custom_id: &str, call: &Call, n: u32) -> Value {
    match format {
        Format::Openai => {
            let mut body = crate::judge::openai::OpenAi::body(call);
            body["n"] = json!(n);
            json!({
                "custom_id": custom_id,
                "method": "POST",
                "url": "/v1/chat/completions",
                "body": body,
            })
        }
        Format::Anthropic => {
            let system: Vec<&str> = call
                .messages
                .iter()
                .filter(|m| m.role == "system")
                .map(|m| m.content.as_str())
                .collect();
            let messages: Vec<&crate::judge::Message> = call
                .messages
                .iter()
                .filter(|m| m.role != "system")
                .collect();
            let mut params = json!({
                "model": call.params.model,
                "max_tokens": call.params.max_tokens,
                "temperature": call.params.temperature,
                "messages": messages,
            });
            if !system.is_empty() {
                params["system"] = json!(system.join("\n\n"));
            }
            json!({"custom_id": custom_id, "params": params})
        }
    }
}
