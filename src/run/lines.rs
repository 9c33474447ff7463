//! JSONL files of a run directory read back (the page's item browser, `report DIR`): each
//! line that reads, and the texts of items.jsonl.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::io::BufRead;
use std::path::Path;

/// Each line of a JSONL file that reads as `T` (an unreadable line is left out: the page shows
/// what it can).
pub fn read_lines<T: DeserializeOwned>(path: &Path) -> Vec<T> {
    let mut out = Vec::new();
    each_line(path, |t| out.push(t));
    out
}

/// `read_lines` one line at a time: a run's completions.jsonl can hold millions of answers.
pub fn each_line<T: DeserializeOwned>(path: &Path, mut f: impl FnMut(T)) {
    let Ok(file) = std::fs::File::open(path) else {
        return;
    };
    for line in std::io::BufReader::with_capacity(1 << 16, file)
        .lines()
        .map_while(Result::ok)
    {
        if let Ok(t) = serde_json::from_str(&line) {
            f(t);
        }
    }
}

/// A line of items.jsonl (a run over pairs): written by the run directory's writer, read by
/// `report DIR` and report.html.
#[derive(Debug, Deserialize, Serialize)]
pub struct ItemTexts {
    pub id: String,
    #[serde(default)]
    pub prompt: String,
    #[serde(default)]
    pub response1: String,
    #[serde(default)]
    pub response2: String,
    /// The models that wrote response 1 and 2, when the data says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator1: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator2: Option<String>,
    /// A conversation's turns before the prompt (each {role, content}).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub turns: Vec<crate::dataset::conversation::Turn>,
}

/// Writes `line` as one JSON line, its keys in name order (as every JSON file raterlab writes).
pub fn write_line(w: &mut impl std::io::Write, line: &impl Serialize) -> std::io::Result<()> {
    let value = serde_json::to_value(line).map_err(std::io::Error::from)?;
    serde_json::to_writer(&mut *w, &value).map_err(std::io::Error::from)?;
    w.write_all(b"\n")
}

/// A line of completions.jsonl: one sample's answer as the run kept it, written as the answers
/// come and read back by `report DIR`.
#[derive(Debug, Default, Deserialize, Serialize)]
pub struct AnswerLine {
    /// The part (configuration, or a RewardBench 2 configuration's Ties part) that asked.
    pub config: String,
    pub id: String,
    pub sample: u32,
    pub side: Option<u8>,
    pub grade: Option<f64>,
    #[serde(default)]
    pub shared: bool,
    /// Where the verdict was read, in characters.
    pub span: Option<[usize; 2]>,
    pub text: Option<String>,
    pub verdict: Option<i64>,
    pub problem: Option<String>,
    #[serde(default)]
    pub latency_ms: Option<f64>,
    #[serde(default)]
    pub tokens_in: Option<u64>,
    #[serde(default)]
    pub tokens_out: Option<u64>,
    #[serde(default)]
    pub cached: Option<bool>,
    /// What the answer's logprobs said, when the template reads them: P(response 2), or the
    /// expected grade and the distribution over the grades.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_response2: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_grade: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grade_distribution: Option<Vec<GradeShare>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probability_problem: Option<String>,
    /// A reasoning judge's thinking returned apart, and its thinking tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_reasoning: Option<u64>,
    /// `length` when the answer was cut off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
}

/// A grade and its probability.
#[derive(Debug, Deserialize, Serialize)]
pub struct GradeShare {
    pub grade: f64,
    pub p: f64,
}

/// A configuration's result on a RewardBench 2 row, in items.jsonl.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct ResultLine {
    pub config: String,
    /// The row's result under the chosen rule (None: Ties, or left out).
    #[serde(default)]
    pub result: Option<f64>,
    #[serde(default)]
    pub pick: Option<usize>,
    /// By slot.
    #[serde(default)]
    pub grades: Option<Vec<Option<f64>>>,
    /// Pairs won of pairs judged ("2/3"), for pairwise configurations.
    #[serde(default)]
    pub wins: Option<String>,
    /// Pairwise: each pair won, lost or unread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pairs: Option<Vec<Option<bool>>>,
}

/// A row of a RewardBench 2 run's items.jsonl.
#[derive(Debug, Deserialize, Serialize)]
pub struct RowLine {
    pub id: String,
    pub subset: String,
    pub prompt: String,
    /// In their slots.
    pub completions: Vec<String>,
    /// The correct slots' letters.
    pub correct: Vec<String>,
    /// `order[slot]`: the completion (correct ones first) shown at the slot.
    pub order: Vec<usize>,
    pub results: Vec<ResultLine>,
}
