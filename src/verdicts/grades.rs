//! Pointwise and score readers: MT-Bench's `[[rating]]`, JSON grades, a 0/1 or yes/no answer,
//! scores (one or two), and the JSON label of a pairwise judge.

use super::verdict::{clip, none, Verdict};
use regex::Regex;
use std::sync::LazyLock;

regex!(
    OPENING_NUMBERS,
    r"^[\s*_#>`'\x22(\[]*([-+]?\d+(?:\.\d+)?)(?:[\s,;/|]+([-+]?\d+(?:\.\d+)?))?"
);
regex!(
    LABELLED_NUMBER,
    r"(?i)(?:\b(?:score|rating)s?\b\s*(?:is|of|=|:)?|\b(?:response|assistant|output)\s*\(?[12ab]\)?\s*(?::|=|gets|scores?))\s*[*_]*\s*([-+]?\d+(?:\.\d+)?)"
);
regex!(OPENING_BINARY, r"(?i)^[\s*_#>`'\x22(\[]*(0|1|yes|no)\b");
regex!(
    LABELLED_BINARY,
    r"(?i)\b(?:answer|verdict)\b\s*(?:is|:|=)\s*[*_'\x22]*\s*(0|1|yes|no)\b"
);
regex!(JSON_LABEL, r#""label"\s*:\s*("[^"]*"|[^,}\s]+)"#);
regex!(V2_LABEL_DOUBLE, r#"(?i)"label"\s*:\s*([01])"#);
regex!(V2_LABEL_SINGLE, r"(?i)'label'\s*:\s*([01])");
regex!(V2_LABEL_BARE, r"(?i)\blabel\b\s*[:=]\s*([01])");

/// The 0/1 or no/yes answer opening the text or after "Answer:" / "Verdict:": true for 1/yes.
pub(super) fn binary_answer(text: &str) -> Option<bool> {
    OPENING_BINARY
        .captures(text)
        .or_else(|| LABELLED_BINARY.captures(text))
        .and_then(|c| c.get(1))
        .map(|m| !matches!(m.as_str().to_ascii_lowercase().as_str(), "0" | "no"))
}

pub(super) fn binary(text: &str) -> Verdict {
    match binary_answer(text) {
        None => none("no 0/1 or yes/no answer opening the text or after 'Answer:'"),
        Some(false) => Verdict::Rated(-1),
        Some(true) => Verdict::Rated(1),
    }
}

regex!(RATING_DOUBLE, r"\[\[\s*([-+]?\d+(?:\.\d+)?)\s*\]\]");
regex!(RATING_SINGLE, r"\[\s*([-+]?\d+(?:\.\d+)?)\s*\]");

regex!(FINAL_RATING, r"\b([1-9]|10)\b\s*$");

/// reward-bench's RewardBench 2 ratings reader: an integer 1-10 ending the stripped answer.
pub(super) fn final_rating(text: &str) -> Result<f64, String> {
    FINAL_RATING
        .captures(text.trim())
        .and_then(|c| number(c.get(1)))
        .ok_or_else(|| "no rating 1-10 ending the answer (nothing may follow it)".to_string())
}

/// MT-Bench's rating: the last `[[n]]` (after any reasoning), else the first `[n]`, as
/// MT-Bench falls back.
pub(super) fn rating(text: &str) -> Result<f64, String> {
    let last = RATING_DOUBLE
        .captures_iter(text)
        .last()
        .and_then(|c| number(c.get(1)));
    last.or_else(|| RATING_SINGLE.captures(text).and_then(|c| number(c.get(1))))
        .ok_or_else(|| "no [[rating]] such as 'Rating: [[7]]'".to_string())
}

/// LongMemEval-V2's binary label, read as the published port of its
/// `_parse_llm_binary_judgement` reads it: a Markdown fence wrapping the answer is stripped;
/// the first `{` to the last `}` parsed as a JSON object whose `label` is 0 or 1 (a number, or
/// the string "0" or "1"); else the first `"label": 0|1`, then `'label': 0|1`, then
/// `label: 0|1` or `label = 0|1` (any case). As in that port after its review, the digit must
/// end there: `label: 10` and `"label": 0.5` are not labels (no digit, nor `.` and a digit,
/// after it). Anything else (`true`, `"yes"`, 2) is unreadable.
pub(super) fn json_grade(text: &str) -> Result<f64, String> {
    let cleaned = strip_fence(text.trim());
    if cleaned.is_empty() {
        return Err("an empty answer".into());
    }
    // A strict JSON label outside the contract, named in the error if no fallback reads one.
    let mut outside = None;
    if let Some(map) = json_object(cleaned) {
        outside = map.get("label").map(label_text);
        let label = match map.get("label") {
            Some(serde_json::Value::Number(n)) => n.as_f64().filter(|v| *v == 0.0 || *v == 1.0),
            Some(serde_json::Value::String(s)) if s == "0" || s == "1" => s.parse().ok(),
            _ => None,
        };
        if let Some(label) = label {
            return Ok(label);
        }
    }
    for pattern in [&*V2_LABEL_DOUBLE, &*V2_LABEL_SINGLE, &*V2_LABEL_BARE] {
        let ended = pattern.captures_iter(cleaned).find_map(|c| {
            let digit = c.get(1)?;
            let mut after = cleaned[digit.end()..].chars();
            let ends = match after.next() {
                Some(c) if c.is_ascii_digit() => false,
                Some('.') => !after.next().is_some_and(|c| c.is_ascii_digit()),
                _ => true,
            };
            ends.then(|| digit.as_str())
        });
        if let Some(digit) = ended {
            return Ok(if digit == "1" { 1.0 } else { 0.0 });
        }
    }
    Err(match outside {
        Some(label) => format!("label {} is not 1 or 0", clip(&label)),
        None => format!("no label 0 or 1 in {}", clip(cleaned)),
    })
}

/// The text inside a Markdown fence that wraps all of it (three lines at least), trimmed.
fn strip_fence(text: &str) -> &str {
    if text.len() >= 6 && text.starts_with("```") && text.ends_with("```") {
        let (first, last) = (text.find('\n'), text.rfind('\n'));
        if let (Some(first), Some(last)) = (first, last) {
            if first < last {
                return text[first + 1..last].trim();
            }
        }
    }
    text
}

pub(super) fn number(m: Option<regex::Match<'_>>) -> Option<f64> {
    m.and_then(|m| m.as_str().parse::<f64>().ok())
        .filter(|v| v.is_finite())
}

/// Labelled numbers ("Score: 8", "Response 2: 7"), in order.
pub(super) fn labelled_numbers(text: &str) -> Vec<f64> {
    LABELLED_NUMBER
        .captures_iter(text)
        .filter_map(|c| number(c.get(1)))
        .collect()
}

/// The numbers opening the text: one, or two ("8 7", "8.5, 7.0").
pub(super) fn opening_numbers(text: &str) -> Vec<f64> {
    // A text that is one number and nothing else (a score read from a file is written so) is
    // what the pattern reads from it, without running the pattern.
    if is_plain_number(text) {
        return text
            .parse::<f64>()
            .into_iter()
            .filter(|v| v.is_finite())
            .collect();
    }
    by_pattern(text)
}

/// The numbers `OPENING_NUMBERS` captures at the start of `text`.
fn by_pattern(text: &str) -> Vec<f64> {
    OPENING_NUMBERS
        .captures(text)
        .map(|c| {
            [c.get(1), c.get(2)]
                .into_iter()
                .filter_map(number)
                .collect()
        })
        .unwrap_or_default()
}

/// Whether `text` is all of one `[-+]?\d+(?:\.\d+)?`: what `OPENING_NUMBERS` captures as
/// its first number when nothing comes before or after it.
fn is_plain_number(text: &str) -> bool {
    let b = text.as_bytes();
    let b = match b.first() {
        Some(b'-' | b'+') => &b[1..],
        _ => b,
    };
    let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
    match b.iter().position(|&c| c == b'.') {
        Some(dot) => digits(&b[..dot]) && digits(&b[dot + 1..]),
        None => digits(b),
    }
}

pub(super) fn score(text: &str) -> Verdict {
    let found = opening_numbers(text)
        .first()
        .copied()
        .or_else(|| labelled_numbers(text).first().copied());
    match found {
        None => none("no score opening the text or after 'Score:'"),
        Some(v) if !(1.0..=5.0).contains(&v) => none(format!("score {v} is outside 1 to 5")),
        Some(v) => Verdict::Rated(if v < 3.0 {
            -1
        } else if v > 3.0 {
            1
        } else {
            0
        }),
    }
}

pub(super) fn comparative(text: &str) -> Verdict {
    let mut scores = opening_numbers(text);
    if scores.len() < 2 {
        scores = labelled_numbers(text);
    }
    match scores.as_slice() {
        [a, b, ..] => Verdict::Rated(if a > b {
            -1
        } else if a < b {
            1
        } else {
            0
        }),
        [_] => none("one score, expected two"),
        [] => none("no scores opening the text or labelled 'Score:'"),
    }
}

pub(super) fn label_value(token: &str) -> Option<i64> {
    match token
        .trim()
        .trim_matches('"')
        .trim()
        .to_ascii_lowercase()
        .as_str()
    {
        "1" | "a" | "response 1" => Some(-1),
        "2" | "b" | "response 2" => Some(1),
        "0" | "tie" | "c" => Some(0),
        _ => None,
    }
}

/// The label's token: from the first `{...}` block that parses as JSON (strict), else the
/// token after `"label":` (almost-JSON); the caller checks it against its contract.
pub(super) fn json_label_token(text: &str) -> Result<String, String> {
    if let Some(map) = json_object(text) {
        return map
            .get("label")
            .map(label_text)
            .ok_or_else(|| "JSON without a \"label\" field".into());
    }
    JSON_LABEL
        .captures(text)
        .and_then(|c| c.get(1))
        .map(|m| m.as_str().to_string())
        .ok_or_else(|| "no JSON object with a \"label\"".into())
}

pub(super) fn json_label(text: &str) -> Verdict {
    match json_label_token(text) {
        Err(reason) => none(reason),
        Ok(token) => label_value(&token).map_or_else(
            || none(format!("label {} is not 1, 2 or 0", clip(&token))),
            Verdict::Rated,
        ),
    }
}

/// The first `{` to the last `}` of the text, when it parses as a JSON object (strict).
fn json_object(text: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
    let (start, end) = (text.find('{')?, text.rfind('}')?);
    if start >= end {
        return None;
    }
    match serde_json::from_str(&text[start..=end]) {
        Ok(serde_json::Value::Object(map)) => Some(map),
        _ => None,
    }
}

/// A JSON label as text: a string's contents, any other value as written.
fn label_text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_number_reads_as_the_pattern_reads_it() {
        let huge = "9".repeat(400);
        let texts = [
            "0.054999999999999966",
            "-2.5",
            "+3",
            "-0",
            "007",
            "1.",
            ".5",
            "-",
            "+",
            "",
            "1.2.3",
            "1e5",
            "3 ",
            " 3",
            "8 7",
            "8.5, 7.0",
            "１",
            huge.as_str(),
        ];
        for text in texts {
            // The pattern alone, as `opening_numbers` read every text before its shortcut.
            let (got, want) = (opening_numbers(text), by_pattern(text));
            assert_eq!(
                got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                want.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                "{text:?}"
            );
        }
        assert!(is_plain_number("-2.5") && is_plain_number("007"));
        assert!(!is_plain_number("1.") && !is_plain_number(".5") && !is_plain_number("1e5"));
        assert_eq!(opening_numbers(&huge), Vec::<f64>::new());
    }
}
