//! The fine-tuned judges' own readers, each its project's rule (the presets' parsers):
//! Prometheus 2's `[RESULT]`, JudgeLM's two scores on the first line, PandaLM's first line,
//! Auto-J's last "final decision is" and `Rating: [[x]]`, Skywork-Critic's `[[A]]`/`[[B]]`
//! and OffsetBias' `Output (a)`/`Output (b)`. `tests/fixtures/generate_prompt_fixtures.py` runs
//! each project's own reader on the same answers; `published_prompts.rs` checks they agree.
//!
//! Where a project's reader falls back to a verdict on an answer it cannot read (PandaLM:
//! anything else is a tie; JudgeLM: `-1 -1`, a tie; JudgeBench reads Skywork-Critic's answer
//! as A when it holds the letter "A" anywhere), raterlab counts the answer unreadable, and the
//! project's rule is a parser of its own (`pandalm_tie`, `judgelm_tie`,
//! `skywork_critic_judgebench`).

use super::verdict::{clip, none, Verdict};
use regex::Regex;
use std::sync::LazyLock;

/// A published judge's reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Published {
    /// prometheus-eval's `_parse_output_relative`: `[RESULT] A` (and its variants) ending a
    /// line; A is response 1.
    PrometheusRelative,
    /// prometheus-eval's `_parse_output_absolute`: `[RESULT] 4` ending the answer, 1 to 5.
    PrometheusAbsolute,
    /// JudgeLM's `parse_score` and `translate_score_to_win_list(T=0)`: the first line holds
    /// two numbers (a comma or a space between them); the higher wins, equal ones tie.
    /// `tie_fallback`: its rule for any other answer, the scores -1 -1, a tie.
    JudgeLm { tie_fallback: bool },
    /// PandaLM's `parse_pandalm_response` after `filter_special_token`: the first line is
    /// 1, 2 or Tie. `tie_fallback`: its rule for any other first line, a tie.
    PandaLm { tie_fallback: bool },
    /// Auto-J's `extract_pariwise_result`: after the last "final decision is ", Response 1,
    /// Response 2 or Tie.
    AutojPairwise,
    /// Auto-J's `extract_single_rating`: the number in the last `Rating: [[x]]`.
    AutojRating,
    /// Skywork-Critic's `[[A]]` / `[[B]]`, exactly one of them. `judgebench`: JudgeBench's
    /// reader, `"A" in output` then `"B" in output`.
    SkyworkCritic { judgebench: bool },
    /// OffsetBias' `get_prediction`: `Output (a)` opening the answer or a line (one space
    /// before it allowed), checked before `Output (b)`.
    OffsetBias,
}

regex!(
    PROMETHEUS_RELATIVE,
    r"(?imx)
        (?:                                # Start of non-capturing group
            \[RESULT\]|\[RESULT:\s*|        # Match [RESULT] or [RESULT:
            \[Response\s+|                  # Match [Response
            \[Result\](?:\s+Response)?|     # Match [Result] or [Result] Response
            \[Result:\s*|                   # Match [Result:
            (?:^|\n)Result:?\s*             # Match Result: at the start of a line
        )                                   # End of non-capturing group
        \s*                                 # Allow any whitespace
        (A|B)                               # Capture A or B
        (?:\])?                             # Allow closing bracket, whitespace, or end of string
        (?:\s*$)                            # Match from the end of string
    "
);
regex!(
    PROMETHEUS_ABSOLUTE,
    r"(?ix)
        (?:                        # Start of non-capturing group
            \[RESULT\]|\[SCORE\]|   # Match [RESULT] or [SCORE]
            Score:?|score:?|        # Match Score: or score:
            Result:?|\[Result\]:?|  # Match Result: or [Result]:
            score\s+of              # Match \x22score of\x22
        )                           # End of non-capturing group
        \s*                         # Allow any whitespace
        (?:\(|\[|\s)*               # Allow opening brackets or whitespace
        (\d+)                       # Capture the digit(s)
        (?:                         # Start of non-capturing group
            (?:\)|\]|\s|$)|         # Allow closing brackets, whitespace, or end of string
            (?:/\s*5|               # Allow /5 with optional whitespace
               \s*out\s*of\s*5)     # or \x22out of 5\x22 with flexible whitespace
        )?                          # End of non-capturing group
        (?:\s*$)                    # Match from the end of string
    "
);
regex!(OFFSETBIAS_A, r"(?:^|\n) ?Output \(a\)");
regex!(OFFSETBIAS_B, r"(?:^|\n) ?Output \(b\)");
regex!(
    PANDALM_SPECIAL,
    r"<unk>|<pad>|<s>|</s>|\[PAD\]|<\|endoftext\|>|\[UNK\]|\[CLS\]|\[MASK\]|<\|startofpiece\|>|<\|endofpiece\|>|\[gMASK\]|\[sMASK\]"
);

impl Published {
    pub const ALL: [Published; 11] = [
        Published::PrometheusRelative,
        Published::PrometheusAbsolute,
        Published::JudgeLm {
            tie_fallback: false,
        },
        Published::JudgeLm { tie_fallback: true },
        Published::PandaLm {
            tie_fallback: false,
        },
        Published::PandaLm { tie_fallback: true },
        Published::AutojPairwise,
        Published::AutojRating,
        Published::SkyworkCritic { judgebench: false },
        Published::SkyworkCritic { judgebench: true },
        Published::OffsetBias,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Published::PrometheusRelative => "prometheus_relative",
            Published::PrometheusAbsolute => "prometheus_absolute",
            Published::JudgeLm {
                tie_fallback: false,
            } => "judgelm",
            Published::JudgeLm { tie_fallback: true } => "judgelm_tie",
            Published::PandaLm {
                tie_fallback: false,
            } => "pandalm",
            Published::PandaLm { tie_fallback: true } => "pandalm_tie",
            Published::AutojPairwise => "autoj_pairwise",
            Published::AutojRating => "autoj_rating",
            Published::SkyworkCritic { judgebench: false } => "skywork_critic",
            Published::SkyworkCritic { judgebench: true } => "skywork_critic_judgebench",
            Published::OffsetBias => "offsetbias",
        }
    }

    /// Whether it reads the grade of one response (the others read a pairwise verdict).
    pub fn reads_grades(self) -> bool {
        matches!(self, Published::PrometheusAbsolute | Published::AutojRating)
    }

    pub fn default_scale(self) -> Option<(f64, f64)> {
        match self {
            Published::PrometheusAbsolute => Some((1.0, 5.0)),
            Published::AutojRating => Some((1.0, 10.0)),
            _ => None,
        }
    }

    pub fn allows_tie(self) -> bool {
        matches!(
            self,
            Published::JudgeLm { .. } | Published::PandaLm { .. } | Published::AutojPairwise
        )
    }

    /// Text its template asks for.
    pub fn markers(self) -> &'static [&'static str] {
        match self {
            Published::PrometheusRelative | Published::PrometheusAbsolute => &["[RESULT]"],
            Published::JudgeLm { .. } => &["two values indicating the scores"],
            Published::PandaLm { .. } => &["### Evaluation:"],
            Published::AutojPairwise => &["final decision is"],
            Published::AutojRating => &["Rating: [["],
            Published::SkyworkCritic { .. } => &["[[A]]"],
            Published::OffsetBias => &["Output (a)"],
        }
    }

    /// An answer in the judge's format (the simulated judge's).
    pub fn render(self, verdict: i64) -> String {
        let pick = |a: &str, t: &str, b: &str| match verdict {
            -1 => a.to_string(),
            0 => t.to_string(),
            _ => b.to_string(),
        };
        match self {
            Published::PrometheusRelative => pick(
                "Feedback: Response A follows the instruction. [RESULT] A",
                "Feedback: Response A follows the instruction. [RESULT] A",
                "Feedback: Response B follows the instruction. [RESULT] B",
            ),
            Published::JudgeLm { .. } => {
                pick("8 6", "7 7", "6 8") + "\nThe first answer is more accurate."
            }
            Published::PandaLm { .. } => pick("1", "Tie", "2") + "\n\n### Reason: (simulated)\n",
            Published::AutojPairwise => format!(
                "Accuracy decides it.\nSo, the final decision is {}.",
                pick("Response 1", "Tie", "Response 2")
            ),
            Published::SkyworkCritic { .. } => pick("[[A]]", "[[A]]", "[[B]]"),
            Published::OffsetBias => pick("Output (a)", "Output (a)", "Output (b)"),
            Published::PrometheusAbsolute | Published::AutojRating => {
                self.render_grade(verdict as f64)
            }
        }
    }

    /// A grade in the judge's format (the simulated judge's).
    pub fn render_grade(self, grade: f64) -> String {
        match self {
            Published::PrometheusAbsolute => {
                format!("The response meets the rubric. [RESULT] {grade}")
            }
            Published::AutojRating => {
                format!("The response is adequate.\n\nRating: [[{grade}]]")
            }
            other => other.render(if grade > 0.0 { 1 } else { -1 }),
        }
    }

    pub fn read(self, text: &str) -> Verdict {
        match self {
            Published::PrometheusRelative => match PROMETHEUS_RELATIVE.captures(text) {
                Some(c) if c[1].eq_ignore_ascii_case("a") => Verdict::Rated(-1),
                Some(_) => Verdict::Rated(1),
                None => none("no [RESULT] A or B ending a line"),
            },
            Published::JudgeLm { tie_fallback } => match judgelm_scores(text) {
                Some((s1, s2)) => Verdict::Rated(win(s1, s2)),
                None if tie_fallback => Verdict::Rated(0),
                None => none(format!(
                    "the first line is not two scores: {}",
                    clip(text.split('\n').next().unwrap_or(""))
                )),
            },
            Published::PandaLm { tie_fallback } => {
                let cleaned = PANDALM_SPECIAL.replace_all(py_strip(text), "");
                let first = py_strip(&cleaned).split('\n').next().unwrap_or("");
                match first {
                    "1" => Verdict::Rated(-1),
                    "2" => Verdict::Rated(1),
                    f if f.to_lowercase() == "tie" => Verdict::Rated(0),
                    _ if tie_fallback => Verdict::Rated(0),
                    f => none(format!("the first line is not 1, 2 or Tie: {}", clip(f))),
                }
            }
            Published::AutojPairwise => {
                let raw = py_strip(text);
                let Some(pos) = raw.rfind("final decision is ") else {
                    return none("no 'final decision is '");
                };
                let rest = py_strip(&raw[pos + "final decision is ".len()..]).to_lowercase();
                if rest.starts_with("response 1") {
                    Verdict::Rated(-1)
                } else if rest.starts_with("response 2") {
                    Verdict::Rated(1)
                } else if rest.starts_with("tie") {
                    Verdict::Rated(0)
                } else {
                    none(format!(
                        "the final decision is not Response 1, Response 2 or Tie: {}",
                        clip(&rest)
                    ))
                }
            }
            Published::SkyworkCritic { judgebench: true } => {
                if text.contains('A') {
                    Verdict::Rated(-1)
                } else if text.contains('B') {
                    Verdict::Rated(1)
                } else {
                    none("no letter A or B")
                }
            }
            Published::SkyworkCritic { judgebench: false } => {
                match (text.contains("[[A]]"), text.contains("[[B]]")) {
                    (true, false) => Verdict::Rated(-1),
                    (false, true) => Verdict::Rated(1),
                    (true, true) => none("both [[A]] and [[B]]"),
                    (false, false) => none("no [[A]] or [[B]]"),
                }
            }
            Published::OffsetBias => {
                if OFFSETBIAS_A.is_match(text) {
                    Verdict::Rated(-1)
                } else if OFFSETBIAS_B.is_match(text) {
                    Verdict::Rated(1)
                } else {
                    none("no 'Output (a)' or 'Output (b)' opening the answer or a line")
                }
            }
            Published::PrometheusAbsolute | Published::AutojRating => none(format!(
                "parser '{}' reads grades of one response (pointwise), not verdicts",
                self.name()
            )),
        }
    }

    pub fn grade(self, text: &str) -> Result<f64, String> {
        match self {
            Published::PrometheusAbsolute => {
                let c = PROMETHEUS_ABSOLUTE
                    .captures(text)
                    .ok_or("no [RESULT] and a score ending the answer")?;
                match c[1].parse::<i64>() {
                    Ok(g) if (1..=5).contains(&g) => Ok(g as f64),
                    _ => Err(format!("the score {} is not 1 to 5", clip(&c[1]))),
                }
            }
            Published::AutojRating => {
                let pos = text.rfind("Rating: [[").ok_or("no 'Rating: [['")?;
                let start = pos + "Rating: [[".len();
                let end = text[pos..]
                    .find("]]")
                    .map(|e| pos + e)
                    .filter(|&e| e >= start)
                    .ok_or("no ']]' closing the last 'Rating: [['")?;
                py_float(&text[start..end]).ok_or_else(|| {
                    format!("the rating {} is not a number", clip(&text[start..end]))
                })
            }
            other => Err(format!(
                "parser '{}' reads pairwise verdicts, not grades",
                other.name()
            )),
        }
    }
}

/// JudgeLM's verdict from the two scores: response 1 when its score is higher (its win 1),
/// response 2 when lower, else a tie (equal, or not comparable).
fn win(s1: f64, s2: f64) -> i64 {
    if s1 - s2 > 0.0 {
        -1
    } else if s2 - s1 > 0.0 {
        1
    } else {
        0
    }
}

/// JudgeLM's `parse_score`: the first line, commas as spaces, split on single spaces into
/// exactly two numbers (Python's `float`).
fn judgelm_scores(text: &str) -> Option<(f64, f64)> {
    let line = text.split('\n').next().unwrap_or("").replace(',', " ");
    let parts: Vec<&str> = line.split(' ').collect();
    match parts.as_slice() {
        [a, b] => Some((py_float(a)?, py_float(b)?)),
        _ => None,
    }
}

/// Python's `str.strip()`: the characters `str.isspace` calls whitespace (also the jinja
/// templates' `strip` filter).
pub fn py_strip(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

/// Python's `float()` of a string: surrounding whitespace allowed, underscores between digits,
/// `inf`/`nan` in any case; anything else is not a number.
fn py_float(text: &str) -> Option<f64> {
    let t = py_strip(text);
    if t.is_empty() {
        return None;
    }
    let digits: String = if t.contains('_') {
        let chars: Vec<char> = t.chars().collect();
        let ok = chars.iter().enumerate().all(|(i, &c)| {
            c != '_'
                || (i > 0
                    && i + 1 < chars.len()
                    && chars[i - 1].is_ascii_digit()
                    && chars[i + 1].is_ascii_digit())
        });
        if !ok {
            return None;
        }
        t.replace('_', "")
    } else {
        t.to_string()
    };
    digits.parse::<f64>().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_floats() {
        for (text, want) in [
            ("8", Some(8.0)),
            (" 7.5\r", Some(7.5)),
            ("1e1", Some(10.0)),
            ("1_0", Some(10.0)),
            ("_1", None),
            ("", None),
            ("eight", None),
            ("-1", Some(-1.0)),
        ] {
            assert_eq!(py_float(text), want, "{text:?}");
        }
        assert!(py_float("nan").is_some_and(f64::is_nan));
        assert_eq!(py_float("Infinity"), Some(f64::INFINITY));
    }
}
