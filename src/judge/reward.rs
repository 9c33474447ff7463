//! A reward model behind a serving engine, as a judge that grades one response a call: its
//! answer is the score, which the scores prompt's `number` parser reads back exactly (a scores
//! file's judge, served live). Like a scores file it never sees the order, so it is order
//! blind; unlike one it costs calls, so its answers are cached and its faults retried as chat
//! calls are (`execute`'s policy: transport errors, 429 and 5xx).
//!
//! - vLLM: `POST URL/pooling` with the chat messages (the engine applies the model's chat
//!   template) and `"use_activation": false`, the raw score: vLLM's default passes it through
//!   a sigmoid in the model's dtype, which in bf16 saturates near 1.0 and ties responses that
//!   differ. The score is `data[0].data[0]` (or `data[0].data` when it is a number).
//! - text-embeddings-inference: `POST URL/predict` with `{"inputs": [[prompt, response]],
//!   "raw_scores": true}`; the score is the first element's `score`.
//! - SGLang: `POST URL/classify` with the conversation rendered by the model's chat template
//!   (`--chat-template FILE`; `/classify` takes text); the score is `embedding[0]`.

use super::{Call, CallError, CallFuture, Completion, Judge, Message, RetryPolicy};
use crate::dataset::conversation::{Role, Turn};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// Which engine serves the reward model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Vllm,
    Tei,
    Sglang,
}

impl Engine {
    /// The judge spec's prefix (`vllm-reward:URL`).
    pub fn prefix(self) -> &'static str {
        match self {
            Engine::Vllm => "vllm-reward",
            Engine::Tei => "tei-reward",
            Engine::Sglang => "sglang-reward",
        }
    }

    pub const ALL: [Engine; 3] = [Engine::Vllm, Engine::Tei, Engine::Sglang];

    fn route(self) -> &'static str {
        match self {
            Engine::Vllm => "pooling",
            Engine::Tei => "predict",
            Engine::Sglang => "classify",
        }
    }
}

/// A reward model served by an engine.
#[derive(Debug)]
pub struct RewardModel {
    engine: Engine,
    url: String,
    /// Sent to vLLM and SGLang; for TEI (one model per server) only the cache key's.
    model: String,
    /// SGLang: the model's chat template (a Hugging Face jinja template).
    chat_template: Option<String>,
    http: reqwest::Client,
    retry: RetryPolicy,
    timeout: f64,
}

/// How the engine is reached.
#[derive(Debug)]
pub struct RewardConfig {
    pub engine: Engine,
    pub base_url: String,
    pub model: String,
    pub chat_template: Option<String>,
    pub timeout: Duration,
    pub retry: RetryPolicy,
}

impl RewardModel {
    pub fn new(config: RewardConfig) -> Result<Self, CallError> {
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            .connect_timeout(Duration::from_secs(10).min(config.timeout))
            .pool_max_idle_per_host(256)
            .user_agent(concat!("raterlab/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| CallError::Connection(e.to_string()))?;
        // The routes are at the server's root; an OpenAI base URL's `/v1` is dropped.
        let root = config.base_url.trim_end_matches('/');
        let root = root.strip_suffix("/v1").unwrap_or(root);
        Ok(Self {
            url: format!("{root}/{}", config.engine.route()),
            engine: config.engine,
            model: config.model,
            chat_template: config.chat_template,
            http,
            retry: config.retry,
            timeout: config.timeout.as_secs_f64(),
        })
    }

    /// The request body for the response a call grades.
    pub fn body(&self, call: &Call) -> Result<Value, CallError> {
        let item = &call.item;
        let response = item.graded_text().ok_or_else(|| CallError::Client {
            status: 0,
            message: "a reward model grades one response a call (pointwise)".into(),
        })?;
        Ok(match self.engine {
            Engine::Vllm => json!({
                "model": self.model,
                "messages": conversation(&item.history, &item.prompt, response),
                "use_activation": false,
            }),
            Engine::Tei => json!({
                "inputs": [[
                    crate::dataset::conversation::layout(&item.history, &item.prompt),
                    response,
                ]],
                "raw_scores": true,
            }),
            Engine::Sglang => json!({
                "model": self.model,
                "text": self.rendered(&conversation(&item.history, &item.prompt, response))?,
            }),
        })
    }

    /// SGLang's text: the conversation through the model's chat template.
    fn rendered(&self, messages: &[Message]) -> Result<String, CallError> {
        let template = self
            .chat_template
            .as_deref()
            .ok_or_else(|| CallError::Client {
                status: 0,
                message: "sglang-reward needs the model's chat template (--chat-template FILE)"
                    .into(),
            })?;
        render_chat_template(template, messages).map_err(|e| CallError::Client {
            status: 0,
            message: format!("the chat template does not render: {e}"),
        })
    }

    async fn once(&self, body: &Value) -> Result<Completion, CallError> {
        let start = Instant::now();
        let request = self.http.post(&self.url).json(body);
        let text = super::http::post(request, self.timeout, |s, m| self.explained(s, m)).await?;
        let value: Value = serde_json::from_str(&text)
            .map_err(|e| CallError::BadResponse(format!("invalid JSON ({e})")))?;
        let score = score_of(self.engine, &value)?;
        Ok(Completion {
            latency_ms: start.elapsed().as_secs_f64() * 1000.0,
            ..Completion::free(format!("{score}"))
        })
    }

    /// A refusal worded for the engine: what to change.
    fn explained(&self, status: u16, message: String) -> String {
        match (self.engine, status) {
            (Engine::Vllm, 400 | 422) if message.contains("use_activation") => format!(
                "{message} — this vLLM does not take \"use_activation\", which raterlab sends so that scores are raw (vLLM's default passes them through a sigmoid in the model's dtype, which ties close responses); upgrade vLLM (pip install -U vllm; its /pooling takes use_activation from v0.11)"
            ),
            (_, 404) => format!(
                "{message} — no /{} here: serve the reward model with {}",
                self.engine.route(),
                match self.engine {
                    Engine::Vllm => "vllm serve MODEL --runner pooling",
                    Engine::Tei => "text-embeddings-router --model-id MODEL",
                    Engine::Sglang => "python -m sglang.launch_server --model-path MODEL --is-embedding",
                }
            ),
            _ => message,
        }
    }
}

/// The messages a chat reward model scores: the earlier turns, the question, the response.
fn conversation(history: &[Turn], question: &str, response: &str) -> Vec<Message> {
    let role = |r: Role| match r {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    history
        .iter()
        .map(|t| Message {
            role: role(t.role).into(),
            content: t.content.clone(),
        })
        .chain([
            Message::user(question),
            Message {
                role: "assistant".into(),
                content: response.into(),
            },
        ])
        .collect()
}

/// The score in an engine's answer.
pub fn score_of(engine: Engine, value: &Value) -> Result<f64, CallError> {
    let bad = |what: &str| CallError::BadResponse(format!("{what} in {}", clipped(value)));
    let number = match engine {
        Engine::Vllm => {
            let data = &value["data"][0]["data"];
            match data {
                Value::Array(v) => match v.first() {
                    Some(Value::Array(_)) => {
                        return Err(bad(
                            "one score per token, not one per response (serve the model as a sequence classifier or reward model)",
                        ))
                    }
                    first => first.and_then(Value::as_f64),
                },
                other => other.as_f64(),
            }
            .ok_or_else(|| bad("no score at data[0].data"))?
        }
        Engine::Tei => value[0]["score"]
            .as_f64()
            .or_else(|| value[0][0]["score"].as_f64())
            .ok_or_else(|| bad("no score at [0].score"))?,
        Engine::Sglang => {
            let first = if value.is_array() { &value[0] } else { value };
            first["embedding"][0]
                .as_f64()
                .ok_or_else(|| bad("no score at embedding[0]"))?
        }
    };
    if number.is_finite() {
        Ok(number)
    } else {
        Err(bad("a score that is not a finite number"))
    }
}

fn clipped(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}

/// A Hugging Face chat template filled with `messages` (no generation prompt: the last
/// message is the scored response), with the names such templates use.
pub fn render_chat_template(template: &str, messages: &[Message]) -> Result<String, String> {
    let mut env = minijinja::Environment::new();
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
    env.set_keep_trailing_newline(true);
    env.add_function(
        "raise_exception",
        |message: String| -> Result<String, minijinja::Error> {
            Err(minijinja::Error::new(
                minijinja::ErrorKind::InvalidOperation,
                message,
            ))
        },
    );
    env.render_str(
        template,
        minijinja::context! {
            messages => messages,
            add_generation_prompt => false,
            bos_token => "",
            eos_token => "",
        },
    )
    .map_err(|e| e.to_string())
}

impl Judge for RewardModel {
    fn describe(&self) -> String {
        format!("{}:{} ({})", self.engine.prefix(), self.url, self.model)
    }
    fn is_order_blind(&self) -> bool {
        true
    }
    fn cacheable(&self) -> bool {
        true
    }
    fn retry_policy(&self) -> RetryPolicy {
        self.retry
    }
    fn complete<'a>(&'a self, call: &'a Call) -> CallFuture<'a> {
        Box::pin(async move {
            let body = self.body(call)?;
            self.once(&body).await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_read_where_each_engine_puts_them() {
        let vllm = json!({"data": [{"index": 0, "data": [1.25]}]});
        assert_eq!(score_of(Engine::Vllm, &vllm), Ok(1.25));
        let bare = json!({"data": [{"index": 0, "data": -0.5}]});
        assert_eq!(score_of(Engine::Vllm, &bare), Ok(-0.5));
        let tokens = json!({"data": [{"data": [[0.1], [0.2]]}]});
        assert!(score_of(Engine::Vllm, &tokens).is_err());
        let tei = json!([{"score": 3.5, "label": "LABEL_0"}]);
        assert_eq!(score_of(Engine::Tei, &tei), Ok(3.5));
        let sglang = json!({"embedding": [2.0], "meta_info": {}});
        assert_eq!(score_of(Engine::Sglang, &sglang), Ok(2.0));
        let listed = json!([{"embedding": [-1.0]}]);
        assert_eq!(score_of(Engine::Sglang, &listed), Ok(-1.0));
        assert!(score_of(Engine::Tei, &json!({"error": "x"})).is_err());
    }

    #[test]
    fn a_chat_template_renders_the_scored_conversation() {
        let template = "{{ bos_token }}{% for m in messages %}<|{{ m.role }}|>\n{{ m.content }}<|end|>\n{% endfor %}{% if add_generation_prompt %}<|assistant|>\n{% endif %}";
        let messages = conversation(
            &[
                Turn {
                    role: Role::User,
                    content: "hi".into(),
                },
                Turn {
                    role: Role::Assistant,
                    content: "hello".into(),
                },
            ],
            "2+2?",
            "4",
        );
        assert_eq!(
            render_chat_template(template, &messages).as_deref(),
            Ok("<|user|>\nhi<|end|>\n<|assistant|>\nhello<|end|>\n<|user|>\n2+2?<|end|>\n<|assistant|>\n4<|end|>\n")
        );
        assert!(render_chat_template("{{ raise_exception('no system') }}", &messages).is_err());
    }
}
