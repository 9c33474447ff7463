//! The OpenAI-compatible Batch API: `POST /files` (purpose `batch`), `POST /batches`,
//! `GET /batches/{id}`, `GET /files/{id}/content`, `POST /batches/{id}/cancel`. Blocking
//! calls (a run waits on its batches anyway); transport errors, 429 and 5xx are retried with
//! backoff, so one bad poll does not end a day-long wait.

use super::super::http::error_message;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;

/// Why a Batch API request failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ApiError {
    #[error("{method} {path} returned HTTP {status}: {message}")]
    Status {
        method: &'static str,
        path: String,
        status: u16,
        message: String,
    },
    #[error("{method} {path}: {message}")]
    Transport {
        method: &'static str,
        path: String,
        message: String,
    },
}

impl ApiError {
    pub fn status(&self) -> Option<u16> {
        match self {
            ApiError::Status { status, .. } => Some(*status),
            ApiError::Transport { .. } => None,
        }
    }
    fn retryable(&self) -> bool {
        self.status().is_none_or(|s| s == 429 || s >= 500)
    }
}

/// `request_counts` of a batch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestCounts {
    #[serde(default)]
    pub total: u64,
    #[serde(default)]
    pub completed: u64,
    #[serde(default)]
    pub failed: u64,
}

/// What the server says of a batch.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchInfo {
    pub id: String,
    pub status: String,
    pub output_file_id: Option<String>,
    pub error_file_id: Option<String>,
    pub counts: RequestCounts,
    /// The batch's own errors (a failed validation), as messages.
    pub errors: Vec<String>,
}

impl BatchInfo {
    /// No further change will come: completed, failed, expired or cancelled.
    pub fn is_terminal(&self) -> bool {
        matches!(
            self.status.as_str(),
            "completed" | "failed" | "expired" | "cancelled"
        )
    }

    fn from_json(v: &Value) -> Result<Self, String> {
        let id = v["id"]
            .as_str()
            .ok_or("a batch object without \"id\"")?
            .to_string();
        let status = v["status"]
            .as_str()
            .ok_or("a batch object without \"status\"")?
            .to_string();
        // An empty id means absent (some servers send "" rather than null).
        let file = |name: &str| {
            v[name]
                .as_str()
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let errors = v["errors"]["data"]
            .as_array()
            .map(|list| {
                list.iter()
                    .map(|e| {
                        let line = e["line"]
                            .as_u64()
                            .map_or_else(String::new, |l| format!(" (line {l})"));
                        format!("{}{line}", e["message"].as_str().unwrap_or("error"))
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(Self {
            id,
            status,
            output_file_id: file("output_file_id"),
            error_file_id: file("error_file_id"),
            counts: serde_json::from_value(v["request_counts"].clone()).unwrap_or_default(),
            errors,
        })
    }
}

/// A Batch API endpoint.
#[derive(Debug)]
pub struct BatchApi {
    base: String,
    key: Option<String>,
    http: reqwest::blocking::Client,
    retries: u32,
}

impl BatchApi {
    /// `base` as for chat calls, e.g. `https://api.openai.com/v1`.
    pub fn new(base: &str, key: Option<String>, timeout: Duration) -> Result<Self, String> {
        let http = reqwest::blocking::Client::builder()
            .timeout(timeout)
            .connect_timeout(Duration::from_secs(10).min(timeout))
            .user_agent(concat!("raterlab/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Self {
            base: base.trim_end_matches('/').to_string(),
            key,
            http,
            retries: 4,
        })
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    /// One request, retried on transport errors, 429 and 5xx.
    fn send(
        &self,
        method: &'static str,
        path: &str,
        build: impl Fn(reqwest::blocking::RequestBuilder) -> reqwest::blocking::RequestBuilder,
    ) -> Result<reqwest::blocking::Response, ApiError> {
        let url = format!("{}{path}", self.base);
        let mut attempt = 0;
        loop {
            let mut request = match method {
                "GET" => self.http.get(&url),
                _ => self.http.post(&url),
            };
            if let Some(key) = &self.key {
                request = request.bearer_auth(key);
            }
            let outcome = build(request).send().map_err(|e| ApiError::Transport {
                method,
                path: path.to_string(),
                message: e.without_url().to_string(),
            });
            let error = match outcome {
                Ok(response) if response.status().is_success() => return Ok(response),
                Ok(response) => {
                    let status = response.status().as_u16();
                    let body = response.text().unwrap_or_default();
                    ApiError::Status {
                        method,
                        path: path.to_string(),
                        status,
                        message: error_message(&body),
                    }
                }
                Err(e) => e,
            };
            if !error.retryable() || attempt >= self.retries {
                return Err(error);
            }
            std::thread::sleep(Duration::from_millis(200 << attempt.min(6)));
            attempt += 1;
        }
    }

    fn json(
        &self,
        method: &'static str,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Value, ApiError> {
        let response = self.send(method, path, |r| match body {
            Some(b) => r.json(b),
            None => r,
        })?;
        response.json::<Value>().map_err(|e| ApiError::Transport {
            method,
            path: path.to_string(),
            message: format!("the reply is not JSON ({})", e.without_url()),
        })
    }

    fn batch(&self, v: Value, method: &'static str, path: &str) -> Result<BatchInfo, ApiError> {
        BatchInfo::from_json(&v).map_err(|message| ApiError::Transport {
            method,
            path: path.to_string(),
            message,
        })
    }

    /// Uploads a shard (purpose `batch`); returns the file id.
    pub fn upload(&self, file: &Path) -> Result<String, ApiError> {
        let path = "/files";
        let bytes = std::fs::read(file).map_err(|e| ApiError::Transport {
            method: "POST",
            path: path.into(),
            message: format!("cannot read '{}': {e}", file.display()),
        })?;
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "batch.jsonl".into());
        let response = self.send("POST", path, |r| {
            let part = reqwest::blocking::multipart::Part::bytes(bytes.clone())
                .file_name(name.clone())
                .mime_str("application/jsonl")
                .unwrap_or_else(|_| reqwest::blocking::multipart::Part::bytes(bytes.clone()));
            let form = reqwest::blocking::multipart::Form::new()
                .text("purpose", "batch")
                .part("file", part);
            r.multipart(form)
        })?;
        let v: Value = response.json().map_err(|e| ApiError::Transport {
            method: "POST",
            path: path.into(),
            message: format!("the reply is not JSON ({})", e.without_url()),
        })?;
        v["id"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| ApiError::Transport {
                method: "POST",
                path: path.into(),
                message: "the reply names no file id".into(),
            })
    }

    /// Creates a batch over an uploaded file (chat completions, 24h window).
    pub fn create(&self, input_file_id: &str) -> Result<BatchInfo, ApiError> {
        let body = json!({
            "input_file_id": input_file_id,
            "endpoint": "/v1/chat/completions",
            "completion_window": "24h",
            "metadata": {"created_by": concat!("raterlab ", env!("CARGO_PKG_VERSION"))},
        });
        let v = self.json("POST", "/batches", Some(&body))?;
        self.batch(v, "POST", "/batches")
    }

    pub fn get(&self, id: &str) -> Result<BatchInfo, ApiError> {
        let path = format!("/batches/{id}");
        let v = self.json("GET", &path, None)?;
        self.batch(v, "GET", &path)
    }

    pub fn cancel(&self, id: &str) -> Result<BatchInfo, ApiError> {
        let path = format!("/batches/{id}/cancel");
        let v = self.json("POST", &path, None)?;
        self.batch(v, "POST", &path)
    }

    /// Downloads a file's content to `to` (written whole: a temporary file, then renamed).
    pub fn download(&self, file_id: &str, to: &Path) -> Result<u64, ApiError> {
        let path = format!("/files/{file_id}/content");
        let mut response = self.send("GET", &path, |r| r)?;
        let io = |e: std::io::Error| ApiError::Transport {
            method: "GET",
            path: path.clone(),
            message: format!("cannot write '{}': {e}", to.display()),
        };
        let partial = to.with_extension("partial");
        let mut file = std::fs::File::create(&partial).map_err(io)?;
        let n = response
            .copy_to(&mut file)
            .map_err(|e| ApiError::Transport {
                method: "GET",
                path: path.clone(),
                message: format!("download cut short ({})", e.without_url()),
            })?;
        file.sync_all().map_err(io)?;
        std::fs::rename(&partial, to).map_err(io)?;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_objects() {
        let v = json!({"id": "batch_1", "object": "batch", "status": "completed", "output_file_id": "file-2", "error_file_id": "", "request_counts": {"total": 3, "completed": 2, "failed": 1}});
        let b = BatchInfo::from_json(&v).expect("batch");
        assert_eq!(b.output_file_id.as_deref(), Some("file-2"));
        assert_eq!(b.error_file_id, None, "an empty id is absent");
        assert_eq!(b.counts.failed, 1);
        assert!(b.is_terminal());
        let v = json!({"id": "b", "status": "failed", "errors": {"data": [{"code": "duplicate_custom_id", "message": "duplicate custom_id", "line": 4}]}});
        let b = BatchInfo::from_json(&v).expect("batch");
        assert_eq!(b.errors, ["duplicate custom_id (line 4)"]);
        assert!(BatchInfo::from_json(&json!({"status": "x"})).is_err());
    }
}
