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

/// A line of items.jsonl as written: `ItemTexts` borrowed, with its keys in name order, so
/// that it writes what `write_line` writes of an `ItemTexts` without a JSON value of every text
/// on the way (`write_ordered`).
#[derive(Debug, Serialize)]
pub struct ItemLine<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generator1: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generator2: Option<&'a str>,
    pub id: &'a str,
    pub prompt: &'a str,
    pub response1: &'a str,
    pub response2: &'a str,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub turns: Vec<TurnLine<'a>>,
}

/// A turn as items.jsonl writes it (keys in name order).
#[derive(Debug, Serialize)]
pub struct TurnLine<'a> {
    pub content: &'a str,
    pub role: crate::dataset::conversation::Role,
}

impl<'a> TurnLine<'a> {
    pub fn of(turn: &'a crate::dataset::conversation::Turn) -> Self {
        Self {
            content: &turn.content,
            role: turn.role,
        }
    }
}

/// Writes `line`, whose fields are declared in name order, as one JSON line: what
/// `write_line` writes of it, as it is serialized.
pub fn write_ordered(w: &mut impl std::io::Write, line: &impl Serialize) -> std::io::Result<()> {
    serde_json::to_writer(&mut *w, line).map_err(std::io::Error::from)?;
    w.write_all(b"\n")
}

/// Writes `line` as one JSON line, its keys in name order (as every JSON file raterlab writes).
pub fn write_line(w: &mut impl std::io::Write, line: &impl Serialize) -> std::io::Result<()> {
    let value = serde_json::to_value(line).map_err(std::io::Error::from)?;
    serde_json::to_writer(&mut *w, &value).map_err(std::io::Error::from)?;
    w.write_all(b"\n")
}

/// A line of completions.jsonl: one sample's answer as the run kept it, written as the answers
/// come (`write_ordered`: its fields are in name order) and read back by `report DIR`.
#[derive(Debug, Default, Deserialize, Serialize)]
pub struct AnswerLine {
    #[serde(default)]
    pub cached: Option<bool>,
    /// The part (configuration, or a RewardBench 2 configuration's Ties part) that asked.
    pub config: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_grade: Option<f64>,
    /// `length` when the answer was cut off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    pub grade: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grade_distribution: Option<Vec<GradeShare>>,
    pub id: String,
    #[serde(default)]
    pub latency_ms: Option<f64>,
    /// What the answer's logprobs said, when the template reads them: P(response 2), or the
    /// expected grade and the distribution over the grades.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_response2: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probability_problem: Option<String>,
    pub problem: Option<String>,
    /// A reasoning judge's thinking returned apart, and its thinking tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    pub sample: u32,
    #[serde(default)]
    pub shared: bool,
    pub side: Option<u8>,
    /// Where the verdict was read, in characters.
    pub span: Option<[usize; 2]>,
    pub text: Option<String>,
    #[serde(default)]
    pub tokens_in: Option<u64>,
    #[serde(default)]
    pub tokens_out: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_reasoning: Option<u64>,
    pub verdict: Option<i64>,
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
    /// Pairwise: each pair's verdict (-1, 0, 1; null: none read), in `pairs`' order (absent
    /// in run directories written before they were kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdicts: Option<Vec<Option<i64>>>,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::conversation::{Role, Turn};

    /// items.jsonl's borrowed line writes the bytes the owned one writes through a JSON value,
    /// generators and turns included and left out.
    #[test]
    fn an_items_line_writes_what_write_line_writes() {
        let turns = vec![
            Turn {
                role: Role::User,
                content: "a \"quoted\" <b>\n\u{e9}".into(),
            },
            Turn {
                role: Role::Assistant,
                content: "b".into(),
            },
        ];
        for (generators, turns) in [
            ([Some("m1"), Some("m2")], turns.clone()),
            ([None, None], Vec::new()),
        ] {
            let owned = ItemTexts {
                id: "x-1".into(),
                prompt: "p\t".into(),
                response1: "r1".into(),
                response2: "r\u{2028}2".into(),
                generator1: generators[0].map(String::from),
                generator2: generators[1].map(String::from),
                turns: turns.clone(),
            };
            let borrowed = ItemLine {
                generator1: generators[0],
                generator2: generators[1],
                id: &owned.id,
                prompt: &owned.prompt,
                response1: &owned.response1,
                response2: &owned.response2,
                turns: turns.iter().map(TurnLine::of).collect(),
            };
            let (mut a, mut b) = (Vec::new(), Vec::new());
            write_line(&mut a, &owned).expect("written");
            write_ordered(&mut b, &borrowed).expect("written");
            assert_eq!(String::from_utf8_lossy(&a), String::from_utf8_lossy(&b));
        }
    }

    /// completions.jsonl's lines are written as they are serialized: their fields are in name
    /// order, so they write what `write_line` writes, every field set and none.
    #[test]
    fn an_answer_line_is_written_in_name_order() {
        let full = AnswerLine {
            cached: Some(false),
            config: "c".into(),
            expected_grade: Some(7.5),
            finish_reason: Some("length".into()),
            grade: Some(8.0),
            grade_distribution: Some(vec![GradeShare {
                grade: 1.0,
                p: 0.25,
            }]),
            id: "x-1#ab".into(),
            latency_ms: Some(12.25),
            p_response2: Some(0.125),
            probability_problem: Some("pp".into()),
            problem: Some("p".into()),
            reasoning: Some("r".into()),
            sample: 3,
            shared: true,
            side: Some(2),
            span: Some([1, 4]),
            text: Some("[[B]] <x> \"".into()),
            tokens_in: Some(10),
            tokens_out: Some(2),
            tokens_reasoning: Some(1),
            verdict: Some(1),
        };
        for line in [full, AnswerLine::default()] {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            write_line(&mut a, &line).expect("written");
            write_ordered(&mut b, &line).expect("written");
            assert_eq!(String::from_utf8_lossy(&a), String::from_utf8_lossy(&b));
        }
    }
}
