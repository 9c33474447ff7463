//! Answers from recorded completions, matched by the pair's texts in the order shown:
//! - JSONL, one object per call: `prompt, response1, response2, completion`, optional `sample`
//!   and `logprobs` (a choice's logprobs object, OpenAI's chat shape or the completions shape);
//! - AlpacaEval's annotation files (a `.json` array of `instruction, output_1, output_2,
//!   raw_completion`): each row recorded in the order AlpacaEval showed it
//!   (`dataset::alpacaeval`), its answer `raw_completion.message.content` with
//!   `raw_completion.logprobs`. Rows without a `raw_completion` (identical outputs, which
//!   AlpacaEval does not send) record nothing.

use super::{Call, CallError, CallFuture, Completion, Judge};
use crate::dataset::alpacaeval;
use crate::error::input_error;
use crate::verdicts::probability::Logprobs;
use anyhow::Result;
use serde_json::Value;
use std::collections::HashMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};

type Key = (String, String, String, u32);

#[derive(Debug)]
pub struct Replay {
    path: PathBuf,
    recorded: HashMap<Key, (String, Option<Logprobs>)>,
}

/// Recordings as they are read, before they are keyed.
struct Recorded {
    recorded: HashMap<Key, (String, Option<Logprobs>)>,
    occurrences: HashMap<(String, String, String), u32>,
}

impl Recorded {
    fn add(
        &mut self,
        [prompt, r1, r2]: [String; 3],
        sample: Option<u32>,
        answer: (String, Option<Logprobs>),
    ) {
        let sample = sample.unwrap_or_else(|| {
            let n = self
                .occurrences
                .entry((prompt.clone(), r1.clone(), r2.clone()))
                .or_default();
            *n += 1;
            *n - 1
        });
        self.recorded.insert((prompt, r1, r2, sample), answer);
    }
}

impl Replay {
    pub fn open(path: &Path) -> Result<Self> {
        let mut recorded = Recorded {
            recorded: HashMap::new(),
            occurrences: HashMap::new(),
        };
        if path.extension().is_some_and(|e| e == "json") {
            read_alpacaeval(path, &mut recorded)?;
        } else {
            read_jsonl(path, &mut recorded)?;
        }
        if recorded.recorded.is_empty() {
            return Err(input_error(format!(
                "the replay file '{}' holds no recordings",
                path.display()
            )));
        }
        Ok(Self {
            path: path.to_path_buf(),
            recorded: recorded.recorded,
        })
    }

    pub fn len(&self) -> usize {
        self.recorded.len()
    }

    pub fn is_empty(&self) -> bool {
        self.recorded.is_empty()
    }
}

fn read_jsonl(path: &Path, recorded: &mut Recorded) -> Result<()> {
    let file = std::fs::File::open(path).map_err(|e| {
        input_error(format!(
            "cannot read the replay file '{}': {e}; check the path after replay:",
            path.display()
        ))
    })?;
    for (row, line) in std::io::BufReader::new(file).lines().enumerate() {
        let at = || format!("'{}', line {}", path.display(), row + 1);
        let line = line.map_err(|e| input_error(format!("{}: {e}", at())))?;
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(&line).map_err(|e| {
            input_error(format!(
                "{}: not JSON ({e}); a replay file has one JSON object per line",
                at()
            ))
        })?;
        let text = |field: &str| -> Result<String> {
            value[field].as_str().map(str::to_string).ok_or_else(|| {
                input_error(format!(
                    "{}: no text field '{field}'; recordings need prompt, response1, response2 and completion",
                    at()
                ))
            })
        };
        let texts = [text("prompt")?, text("response1")?, text("response2")?];
        let completion = text("completion")?;
        let logprobs = Logprobs::from_value(&value["logprobs"])
            .map_err(|why| input_error(format!("{}: {why}", at())))?;
        let sample = value["sample"].as_u64().map(|s| s as u32);
        recorded.add(texts, sample, (completion, logprobs));
    }
    Ok(())
}

fn read_alpacaeval(path: &Path, recorded: &mut Recorded) -> Result<()> {
    for (row, a) in alpacaeval::read_file(path)?.into_iter().enumerate() {
        let Some(raw) = &a.raw_completion else {
            continue;
        };
        let text = raw["message"]["content"]
            .as_str()
            .or(raw["text"].as_str())
            .map(str::to_string)
            // The function-calling judges keep the parsed arguments: the answer is their JSON.
            .unwrap_or_else(|| raw.to_string());
        let logprobs = Logprobs::from_value(&raw["logprobs"]).map_err(|why| {
            input_error(format!(
                "'{}', row {}: raw_completion.{why}",
                path.display(),
                row + 1
            ))
        })?;
        let (first, second) = a.shown();
        let texts = [a.instruction.clone(), first.to_string(), second.to_string()];
        recorded.add(texts, None, (text, logprobs));
    }
    Ok(())
}

impl Judge for Replay {
    fn describe(&self) -> String {
        format!("replay:{}", self.path.display())
    }
    fn answers_at_once(&self, _call: &Call) -> bool {
        true
    }
    fn complete<'a>(&'a self, call: &'a Call) -> CallFuture<'a> {
        Box::pin(async move {
            let item = &call.item;
            let key = (
                item.prompt.clone(),
                item.response1.clone(),
                item.response2.clone(),
                call.sample,
            );
            match self.recorded.get(&key) {
                Some((text, logprobs)) => Ok(Completion {
                    logprobs: logprobs.clone(),
                    ..Completion::free(text.clone())
                }),
                None => Err(CallError::NoRecording(format!(
                    "sample {} of a pair whose prompt starts {:?}",
                    call.sample,
                    item.prompt.chars().take(40).collect::<String>()
                ))),
            }
        })
    }
}
