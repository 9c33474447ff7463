//! Structured verdicts: a judge that answers in JSON (`response_format` with a schema, a tool
//! call's arguments, or a fenced ```json block) read by a JMESPath expression (`path`) whose
//! value a `values` table maps to a verdict (pairwise), or which is the grade (pointwise).
//!
//! Where the JSON is, in order: the whole answer; the last fenced ```json (or ```) block; the
//! span from the first `{` to the last `}`. Malformed JSON is an unreadable verdict whose reason
//! quotes the parse error.

use super::verdict::{clip, none, Verdict};
use serde_json::Value;
use std::collections::BTreeMap;

/// A template's JSON reader.
#[derive(Debug, Clone)]
pub struct JsonParser {
    path: String,
    expression: jmespath::Expression<'static>,
    /// The found value as text → verdict (-1, 0, 1); empty for grades.
    values: BTreeMap<String, i64>,
}

impl PartialEq for JsonParser {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path && self.values == other.values
    }
}

impl Eq for JsonParser {}

impl std::fmt::Display for JsonParser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "json({})", self.path)
    }
}

impl JsonParser {
    /// Compiles `path`; `values` maps what the path finds to a verdict (empty for grades).
    pub fn new(path: &str, values: BTreeMap<String, i64>) -> Result<Self, String> {
        let expression = jmespath::compile(path)
            .map_err(|e| format!("path '{path}' is not a JMESPath expression ({e})"))?;
        Ok(Self {
            path: path.to_string(),
            expression,
            values,
        })
    }

    pub fn path(&self) -> &str {
        &self.path
    }

    pub fn values(&self) -> &BTreeMap<String, i64> {
        &self.values
    }

    /// What the path finds in the answer's JSON: text for a string, the number's text,
    /// `true`/`false`; or why nothing.
    fn find(&self, text: &str) -> Result<(String, (usize, usize)), String> {
        let (json, span) = locate(text)?;
        let data = jmespath::Variable::from_json(&json.to_string())
            .map_err(|e| format!("JSON not readable by the path ({e})"))?;
        let found = self
            .expression
            .search(data)
            .map_err(|e| format!("path '{}' failed ({e})", self.path))?;
        let shown = match &*found {
            jmespath::Variable::Null => return Err(format!("path '{}' found nothing", self.path)),
            jmespath::Variable::String(s) => s.clone(),
            jmespath::Variable::Number(n) => n.to_string(),
            jmespath::Variable::Bool(b) => b.to_string(),
            other => {
                return Err(format!(
                    "path '{}' found {} where one value was wanted",
                    self.path,
                    clip(&other.to_string())
                ))
            }
        };
        Ok((shown, span))
    }

    /// The pairwise verdict, and where the JSON stands in the text.
    pub fn read(&self, text: &str) -> (Verdict, Option<(usize, usize)>) {
        match self.find(text) {
            Ok((value, span)) => match self.values.get(&value) {
                Some(&v) => (Verdict::Rated(v), Some(span)),
                None => (
                    none(format!(
                        "path '{}' found '{}', which values does not map ({})",
                        self.path,
                        clip(&value),
                        self.values.keys().cloned().collect::<Vec<_>>().join(", ")
                    )),
                    Some(span),
                ),
            },
            Err(why) => (none(why), None),
        }
    }

    /// The grade (pointwise): the value found, a number (or a number as text, or a mapped
    /// value).
    pub fn grade(&self, text: &str) -> Result<f64, String> {
        let (value, _) = self.find(text)?;
        if let Some(&v) = self.values.get(&value) {
            return Ok(v as f64);
        }
        value.trim().parse::<f64>().map_err(|_| {
            format!(
                "path '{}' found '{}', not a number",
                self.path,
                clip(&value)
            )
        })
    }
}

/// The answer's JSON and its byte span: the whole text, the last fenced block, or the
/// outermost braces.
fn locate(text: &str) -> Result<(Value, (usize, usize)), String> {
    let start = text.len() - text.trim_start().len();
    let whole = text.trim();
    let first_error = match serde_json::from_str::<Value>(whole) {
        Ok(v) => return Ok((v, (start, start + whole.len()))),
        Err(e) => e.to_string(),
    };
    if let Some((body, span)) = last_fence(text) {
        return serde_json::from_str::<Value>(body.trim())
            .map(|v| (v, span))
            .map_err(|e| format!("malformed JSON in the fenced block ({e})"));
    }
    if let (Some(open), Some(close)) = (text.find('{'), text.rfind('}')) {
        if open < close {
            return serde_json::from_str::<Value>(&text[open..=close])
                .map(|v| (v, (open, close + 1)))
                .map_err(|e| format!("malformed JSON ({e})"));
        }
    }
    Err(if whole.is_empty() {
        "the answer is empty, no JSON".into()
    } else if whole.starts_with('{') || whole.starts_with('[') {
        format!("malformed JSON ({first_error})")
    } else {
        format!("no JSON in the answer ({first_error})")
    })
}

/// The body and span of the last ``` fence (```json or bare).
fn last_fence(text: &str) -> Option<(&str, (usize, usize))> {
    let mut found = None;
    let mut at = 0;
    while let Some(open) = text[at..].find("```").map(|i| at + i) {
        let after = open + 3;
        let line_end = text[after..].find('\n').map_or(text.len(), |i| after + i);
        let lang = text[after..line_end].trim();
        if !(lang.is_empty() || lang.eq_ignore_ascii_case("json")) {
            at = line_end;
            continue;
        }
        let body_start = (line_end + 1).min(text.len());
        let Some(close) = text[body_start..].find("```").map(|i| body_start + i) else {
            break;
        };
        found = Some((&text[body_start..close], (open, close + 3)));
        at = close + 3;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alpacaeval() -> JsonParser {
        let values = [("m".to_string(), -1), ("M".to_string(), 1)]
            .into_iter()
            .collect();
        JsonParser::new("ordered_models[?rank==`1`].model | [0]", values).expect("a path")
    }

    #[test]
    fn json_in_content_fenced_or_embedded() {
        let p = alpacaeval();
        let args = r#"{"concise_explanation": "M is right", "ordered_models": [{"model": "M", "rank": 1}, {"model": "m", "rank": 2}]}"#;
        assert_eq!(p.read(args).0, Verdict::Rated(1));
        let fenced = "Thinking done.\n```json\n{\"ordered_models\": [{\"model\": \"m\", \"rank\": 1}, {\"model\": \"M\", \"rank\": 2}]}\n```\nThat's it.";
        assert_eq!(p.read(fenced).0, Verdict::Rated(-1));
        assert_eq!(p.read(&format!("Here: {args} ok")).0, Verdict::Rated(1));
    }

    #[test]
    fn what_is_not_a_verdict_says_why() {
        let p = alpacaeval();
        let (v, _) = p.read(r#"{"ordered_models": [{"model": "m", "rank": 1"#);
        assert!(
            matches!(&v, Verdict::Unparseable(why) if why.contains("malformed JSON") || why.contains("no JSON")),
            "{v:?}"
        );
        let (v, _) = p.read(r#"{"ordered_models": [{"model": "x", "rank": 1}]}"#);
        assert!(
            matches!(&v, Verdict::Unparseable(why) if why.contains("found 'x'")),
            "{v:?}"
        );
        let (v, _) = p.read(r#"{"other": 1}"#);
        assert!(
            matches!(&v, Verdict::Unparseable(why) if why.contains("found nothing")),
            "{v:?}"
        );
        assert!(JsonParser::new("a[", BTreeMap::new()).is_err());
        // Grades: the number found.
        let g = JsonParser::new("score", BTreeMap::new()).expect("path");
        assert_eq!(g.grade(r#"{"reason": "ok", "score": 4}"#), Ok(4.0));
        assert!(g.grade(r#"{"score": "high"}"#).is_err());
    }
}
