//! Judge text → verdict. Pure and table-tested; a parser never panics and always says why it
//! found no verdict.
//!
//! Verdicts are -1 (response 1 better), 0 (tie), 1 (response 2 better).
//!
//! Verbose answers (chain of thought) name both responses while they reason and may echo the
//! instructions: the pairwise parsers read *verdict statements* only (see `statements`), and
//! `regex` reproduces a published tool's own patterns exactly.

/// A built-in regex, compiled once on first use.
macro_rules! regex {
    ($name:ident, $re:expr) => {
        static $name: LazyLock<Regex> =
            LazyLock::new(|| Regex::new($re).expect("a valid built-in regex"));
    };
}

mod grades;
mod pattern;
pub mod probability;
mod published;
mod statements;
pub mod structured;
pub mod thinking;
mod verdict;

pub use pattern::{verdict_from_name, verdict_name, MatchPolicy, RegexParser};
pub use published::{py_strip, Published};

use grades::{
    binary, binary_answer, comparative, final_rating, json_grade, json_label, labelled_numbers,
    opening_numbers, rating, score,
};
use regex::Regex;
pub use statements::Span;
use statements::{
    closes_the_answer, concludes, decide, hedged, sentence_before, tag_is_mention, Statement,
};
use std::fmt;
use std::sync::{Arc, LazyLock};
pub use verdict::Verdict;
use verdict::{clip, none};

/// The verdict parsers, by their `--parser` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parser {
    /// `<winner>1</winner>` / `<winner>2</winner>`: the tag stated after any reasoning.
    WinnerTag,
    /// As `WinnerTag`, and `<tie>` gives a tie; `<tie>` beside a `<winner>` tag is no verdict
    /// (a model that echoes the instructions names every answer).
    WinnerTagTie,
    /// `[[A]]`, `[[B]]`, `[[C]]` (tie), as MT-Bench.
    AbBrackets,
    /// arena-hard's `[[A>>B]]`, `[[A>B]]`, `[[A=B]]`, `[[B>A]]`, `[[B>>A]]`.
    ArenaHard,
    /// LLMBar's / OffsetBias's "Output (a)" / "Output (b)": the answer that is only the label,
    /// or verdict statements in reasoning ("Output (a) is better", "Therefore, Output (b)",
    /// "Final verdict: Output (a)", "**Output (b)**", "I choose Output (a)").
    OutputAb,
    /// 0/1 or no/yes: "is response 2 the better one?"; 0 or no → response 1. The answer opens
    /// the text or follows "Answer:" / "Verdict:".
    Binary,
    /// A preference score from 1 (response 1 much better) to 5 (response 2 much better); 3 is
    /// a tie. The score opens the text or follows "Score:" / "Rating:"; outside 1..=5 it is no
    /// verdict.
    Score,
    /// Two scores, one per response: opening the text ("8 7", "8.5, 7.0") or labelled
    /// ("Score: 9; Score: 6", "Response 1: 8, Response 2: 7").
    Comparative,
    /// JSON `{"label": 1|2|0, "reason": ...}` (also "A"/"B"/"tie").
    JsonLabel,
    /// A template's own regular expressions, one per verdict, with a match policy (a TOML
    /// template's `[regex]` table).
    Regex(Arc<RegexParser>),
    /// A template's JSON reader (`parser = "json"`, a JMESPath `path` and a `values` table):
    /// JSON in the answer, a tool call's arguments or a fenced block.
    Json(Arc<structured::JsonParser>),
    /// Pointwise only: MT-Bench's `Rating: [[7]]` (the last `[[n]]`; else `[n]`).
    Rating,
    /// Pointwise only: a real number opening the text (a reward model's score).
    Number,
    /// Pointwise only: an integer 1-10 ending the answer, nothing after it, as reward-bench
    /// reads RewardBench 2's ratings (`\b([1-9]|10)\b\s*$` on the stripped text).
    FinalRating,
    /// Four-way (RewardBench 2's ranking): the stated `[[A]]`..`[[D]]`, read with the care of
    /// the pairwise tags (quoted, listed or conditional tags are mentions, not verdicts).
    /// The verdict is the slot picked: 0 for A .. 3 for D.
    Ranking,
    /// Four-way, as reward-bench reads it: `"[[A]]" in text` first, then B, C, D, so an answer
    /// that names several tags reads as the earliest letter.
    RankingPublished,
    /// A fine-tuned judge's own reader (Prometheus 2, JudgeLM, PandaLM, Auto-J,
    /// Skywork-Critic, OffsetBias): the presets' parsers.
    Published(Published),
}

impl Parser {
    pub const ALL: [Parser; 9] = [
        Parser::WinnerTag,
        Parser::WinnerTagTie,
        Parser::AbBrackets,
        Parser::ArenaHard,
        Parser::OutputAb,
        Parser::Binary,
        Parser::Score,
        Parser::Comparative,
        Parser::JsonLabel,
    ];

    pub fn name(&self) -> &'static str {
        match self {
            Parser::WinnerTag => "winner_tag",
            Parser::WinnerTagTie => "winner_tag_tie",
            Parser::AbBrackets => "ab_brackets",
            Parser::ArenaHard => "arena_hard",
            Parser::OutputAb => "output_ab",
            Parser::Binary => "binary",
            Parser::Score => "score",
            Parser::Comparative => "comparative",
            Parser::JsonLabel => "json_label",
            Parser::Regex(_) => "regex",
            Parser::Json(_) => "json",
            Parser::Rating => "rating",
            Parser::Number => "number",
            Parser::FinalRating => "final_rating",
            Parser::Ranking => "rb2_ranking",
            Parser::RankingPublished => "rb2_ranking_published",
            Parser::Published(p) => p.name(),
        }
    }

    /// The parsers that read only grades (pointwise templates).
    pub const GRADE_ONLY: [Parser; 3] = [Parser::Rating, Parser::Number, Parser::FinalRating];

    /// The parsers that read a four-way pick (ranking templates).
    pub const PICKS: [Parser; 2] = [Parser::Ranking, Parser::RankingPublished];

    /// A built-in parser by name (`regex` needs its patterns: see [`RegexParser`]).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .chain(Self::GRADE_ONLY)
            .chain(Self::PICKS)
            .chain(Published::ALL.map(Parser::Published))
            .find(|p| p.name() == name)
    }

    /// Whether the parser reads a pairwise verdict.
    pub fn reads_verdicts(&self) -> bool {
        if let Parser::Published(p) = self {
            return !p.reads_grades();
        }
        !matches!(
            self,
            Parser::Rating
                | Parser::Number
                | Parser::FinalRating
                | Parser::Ranking
                | Parser::RankingPublished
        )
    }

    /// Whether the parser reads a four-way pick (the verdict is the slot, 0 for A).
    pub fn reads_picks(&self) -> bool {
        matches!(self, Parser::Ranking | Parser::RankingPublished)
    }

    /// Whether the parser reads the grade of one response (pointwise).
    pub fn reads_grades(&self) -> bool {
        if let Parser::Published(p) = self {
            return p.reads_grades();
        }
        matches!(
            self,
            Parser::Score
                | Parser::Binary
                | Parser::JsonLabel
                | Parser::Json(_)
                | Parser::Rating
                | Parser::Number
                | Parser::FinalRating
        )
    }

    /// The parsers a pointwise template takes, for messages.
    pub fn grading_names() -> &'static str {
        "score (1-5), rating ([[1..10]]), final_rating (1-10 ending the answer), binary (yes/no, 1/0), json_label ({\"label\": 1|0}) or number"
    }

    /// The grade range a pointwise template has unless it says otherwise.
    pub fn default_scale(&self) -> Option<(f64, f64)> {
        match self {
            Parser::Score => Some((1.0, 5.0)),
            Parser::Rating | Parser::FinalRating => Some((1.0, 10.0)),
            Parser::Binary | Parser::JsonLabel => Some((0.0, 1.0)),
            Parser::Published(p) => p.default_scale(),
            _ => None,
        }
    }

    /// The grade of one response (pointwise), or why there is none. The range is the
    /// template's business ([`crate::prompts::Template::scale`]).
    pub fn grade(&self, text: &str) -> Result<f64, String> {
        match self {
            Parser::Score => opening_numbers(text)
                .first()
                .copied()
                .or_else(|| labelled_numbers(text).first().copied())
                .ok_or_else(|| "no score opening the text or after 'Score:'".to_string()),
            Parser::Number => opening_numbers(text)
                .first()
                .copied()
                .ok_or_else(|| "no number opening the text".to_string()),
            Parser::Rating => rating(text),
            Parser::FinalRating => final_rating(text),
            Parser::Binary => match binary_answer(text) {
                Some(true) => Ok(1.0),
                Some(false) => Ok(0.0),
                None => Err("no 0/1 or yes/no answer opening the text or after 'Answer:'".into()),
            },
            Parser::JsonLabel => json_grade(text),
            Parser::Json(j) => j.grade(text),
            Parser::Published(p) => p.grade(text),
            other => Err(format!(
                "parser '{}' reads pairwise verdicts, not grades",
                other.name()
            )),
        }
    }

    /// A short completion that grades `grade` (for the simulated judge).
    pub fn render_grade(&self, grade: f64) -> String {
        match self {
            Parser::Rating => format!("The answer is adequate.\nRating: [[{grade}]]"),
            Parser::FinalRating => format!("The answer is adequate.\n\n{grade}"),
            Parser::Score => format!("Score: {grade}"),
            Parser::Binary => if grade >= 0.5 { "yes" } else { "no" }.to_string(),
            Parser::JsonLabel => format!(
                r#"{{"label": {}, "reason": "graded"}}"#,
                u8::from(grade >= 0.5)
            ),
            Parser::Published(p) => p.render_grade(grade),
            _ => format!("{grade}"),
        }
    }

    /// Whether the parser can return a tie.
    pub fn allows_tie(&self) -> bool {
        match self {
            Parser::Regex(r) => r.allows_tie(),
            Parser::Published(p) => p.allows_tie(),
            _ => !matches!(self, Parser::WinnerTag | Parser::OutputAb | Parser::Binary),
        }
    }

    /// Text a template must contain for this parser to fit it (any one of these; none for a
    /// template's own regular expressions, which fit it by construction).
    pub fn markers(&self) -> &'static [&'static str] {
        match self {
            Parser::WinnerTag | Parser::WinnerTagTie => &["<winner>"],
            Parser::AbBrackets => &["[[A]]"],
            Parser::ArenaHard => &["[[A>B]]", "[[A>>B]]"],
            Parser::OutputAb => &["Output (a)"],
            Parser::Binary => &["0 or 1", "yes or no", "Yes or No"],
            Parser::Score => &["score", "Score"],
            Parser::Comparative => &["Score:", "scores"],
            Parser::JsonLabel => &["\"label\""],
            Parser::Regex(_) | Parser::Json(_) => &[],
            Parser::Rating => &["[["],
            Parser::Number => &[],
            Parser::FinalRating => &["1 to 10"],
            Parser::Ranking | Parser::RankingPublished => &["[[D]]"],
            Parser::Published(p) => p.markers(),
        }
    }

    /// A short example of a completion this parser reads (for the simulated judge and docs).
    pub fn render(&self, verdict: i64) -> String {
        let pick = |a: &str, t: &str, b: &str| match verdict {
            -1 => a.to_string(),
            0 => t.to_string(),
            _ => b.to_string(),
        };
        match self {
            Parser::WinnerTag | Parser::WinnerTagTie => {
                pick("<winner>1</winner>", "<tie>", "<winner>2</winner>")
            }
            Parser::AbBrackets => pick("[[A]]", "[[C]]", "[[B]]"),
            Parser::ArenaHard => pick("[[A>B]]", "[[A=B]]", "[[B>A]]"),
            Parser::OutputAb => pick("Output (a)", "Output (a)", "Output (b)"),
            Parser::Binary => pick("0", "0", "1"),
            Parser::Score => pick("1", "3", "5"),
            Parser::Comparative => pick(
                "Score: 8; Score: 5",
                "Score: 7; Score: 7",
                "Score: 4; Score: 9",
            ),
            Parser::JsonLabel => pick(
                r#"{"label": 1, "reason": "Response 1 is better."}"#,
                r#"{"label": 0, "reason": "They are equally good."}"#,
                r#"{"label": 2, "reason": "Response 2 is better."}"#,
            ),
            Parser::Regex(r) => r.example(verdict),
            // The value mapped to the verdict, as JSON: a simulated judge's stand-in.
            Parser::Json(j) => j
                .values()
                .iter()
                .find(|(_, v)| **v == verdict)
                .map_or_else(|| "{}".to_string(), |(k, _)| format!("{k:?}")),
            Parser::Rating | Parser::Number | Parser::FinalRating => {
                self.render_grade(verdict as f64)
            }
            Parser::Ranking | Parser::RankingPublished => {
                format!("[[{}]]", (b'A' + verdict.clamp(0, 3) as u8) as char)
            }
            Parser::Published(p) => p.render(verdict),
        }
    }

    pub fn parse(&self, text: &str) -> Verdict {
        self.read(text).0
    }

    /// The verdict, with the span of the text it was read from (for the statement parsers
    /// and regex templates; `None` for the others, and when there is no verdict).
    pub fn read(&self, text: &str) -> (Verdict, Span) {
        let unspanned = |v: Verdict| (v, None);
        match self {
            Parser::WinnerTag => winner_tag(text, false),
            Parser::WinnerTagTie => winner_tag(text, true),
            Parser::AbBrackets => ab_brackets(text),
            Parser::ArenaHard => arena_hard(text),
            Parser::OutputAb => output_ab(text),
            Parser::Binary => unspanned(binary(text)),
            Parser::Score => unspanned(score(text)),
            Parser::Comparative => unspanned(comparative(text)),
            Parser::JsonLabel => unspanned(json_label(text)),
            Parser::Regex(r) => r.read(text),
            Parser::Json(j) => j.read(text),
            Parser::Ranking => ranking(text),
            Parser::RankingPublished => ranking_published(text),
            Parser::Published(p) => unspanned(p.read(text)),
            Parser::Rating | Parser::Number | Parser::FinalRating => unspanned(none(format!(
                "parser '{}' reads grades of one response (pointwise), not verdicts",
                self.name()
            ))),
        }
    }
}

impl fmt::Display for Parser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Parser::Regex(r) => write!(f, "{r}"),
            Parser::Json(j) => write!(f, "{j}"),
            _ => f.write_str(self.name()),
        }
    }
}

regex!(WINNER, r"(?s)<winner>(.*?)</winner>");
regex!(TIE, r"<tie\s*/?>");
regex!(AB, r"\[\[([ABC])\]\]");
regex!(FOUR_WAY, r"\[\[([ABCD])\]\]");
regex!(ARENA, r"\[\[([AB][<>=]{1,2}[AB])\]\]");
regex!(OUTPUT, r"(?i)output\s*\(([ab])\)");
// "Output (a) is better", "Output (b) is slightly better than ...", "Output (a) is worse".
regex!(
    OUTPUT_IS,
    r"(?i)output\s*\(([ab])\)\s+(?:is|was|seems|would be|appears to be|remains)\s+(?:(?:clearly|slightly|much|significantly|definitely|overall|still|far|the|a|somewhat|marginally|considerably|arguably|generally|indeed|also|better|more|preferred)\s+)*?(better|superior|preferred|preferable|the winner|the best|worse|inferior)\b"
);
// "better if the goal is ...", "better in terms of ...": qualified, not a verdict.
regex!(
    QUALIFIED_TAIL,
    r"(?i)^\s+(?:if|when|in terms of|with respect to|regarding|only)\b"
);
regex!(
    OUTPUT_CHOSEN,
    r"(?i)\bI\s+(?:would\s+|will\s+)?(?:choose|select|prefer|pick|go with|vote for)\s+[*_]*output\s*\(([ab])\)"
);
regex!(
    OUTPUT_LABELLED,
    r#"(?i)\b(?:final (?:verdict|answer|decision|choice|judge?ment)|verdict|answer|choice|decision)\s*(?:is)?\s*[:=\-]?\s*[*"'`_]*\s*output\s*\(([ab])\)"#
);
regex!(
    OUTPUT_THEREFORE_BARE,
    r"(?i)\b(?:therefore|thus|hence)\s*,?\s*[*_]*output\s*\(([ab])\)[*_]*\s*[.!]?\s*(?:\n|$)"
);
regex!(
    OUTPUT_LINE,
    r#"(?im)^[\s#*>_`'"]*output\s*\(([ab])\)[\s*_`'".!]*$"#
);
regex!(
    OUTPUT_OPENING,
    r#"(?i)^[\s#*>_`'"]*output\s*\(([ab])\)[*_]*\s*(?:[.!]|\n|$)"#
);
regex!(OUTPUT_BOLD, r"(?i)\*\*output\s*\(([ab])\)\*\*");
regex!(BOLD_HEADING_TAIL, r"^\s*:");

/// Tags found by `re` (the verdict from each match), read as statements: mentions (quoted,
/// listed, conditional) are left out; a tag after a concluding label or closing the answer
/// on its own line is final.
fn read_tags(
    text: &str,
    found: Vec<(usize, usize, Result<i64, String>)>,
    what: &str,
) -> (Verdict, Span) {
    let spans: Vec<(usize, usize)> = found.iter().map(|f| (f.0, f.1)).collect();
    let total = found.len();
    let last_end = spans.iter().map(|s| s.1).max();
    let statements: Vec<Statement> = found
        .into_iter()
        .filter(|(s, e, _)| !tag_is_mention(text, *s, *e, &spans))
        .map(|(start, end, value)| Statement {
            start,
            end,
            value,
            last_word: concludes(sentence_before(text, start))
                || (Some(end) == last_end && closes_the_answer(text, start, end)),
        })
        .collect();
    decide(statements, || {
        if total == 0 {
            format!("no {what}")
        } else {
            format!("{what} only mentioned (quoted, listed or conditional, as in the instructions), never stated")
        }
    })
}

fn spans<F>(re: &Regex, text: &str, value: F) -> Vec<(usize, usize, Result<i64, String>)>
where
    F: Fn(&str) -> Result<i64, String>,
{
    re.captures_iter(text)
        .filter_map(|c| {
            let whole = c.get(0)?;
            let inner = c.get(1).map_or("", |m| m.as_str());
            Some((whole.start(), whole.end(), value(inner)))
        })
        .collect()
}

fn winner_tag(text: &str, ties: bool) -> (Verdict, Span) {
    let mut found = spans(&WINNER, text, |inner| match inner.trim() {
        "1" => Ok(-1),
        "2" => Ok(1),
        other => Err(format!(
            "the <winner> tag holds '{}', expected 1 or 2",
            clip(other)
        )),
    });
    if ties {
        found.extend(spans(&TIE, text, |_| Ok(0)));
    }
    read_tags(
        text,
        found,
        if ties {
            "<winner> tag or <tie>"
        } else {
            "<winner> tag"
        },
    )
}

fn ab_brackets(text: &str) -> (Verdict, Span) {
    let found = spans(&AB, text, |inner| {
        Ok(match inner {
            "A" => -1,
            "B" => 1,
            _ => 0,
        })
    });
    read_tags(text, found, "[[A]], [[B]] or [[C]]")
}

fn ranking(text: &str) -> (Verdict, Span) {
    let found = spans(&FOUR_WAY, text, |inner| {
        Ok(inner.bytes().next().map_or(0, |b| i64::from(b - b'A')))
    });
    read_tags(text, found, "[[A]], [[B]], [[C]] or [[D]]")
}

/// reward-bench's `process_judgement`: the first of A, B, C, D whose tag is anywhere in the
/// text, whatever else it says.
fn ranking_published(text: &str) -> (Verdict, Span) {
    for (slot, tag) in ["[[A]]", "[[B]]", "[[C]]", "[[D]]"].iter().enumerate() {
        if let Some(start) = text.find(tag) {
            return (
                Verdict::Rated(slot as i64),
                Some((start, start + tag.len())),
            );
        }
    }
    (none("none of [[A]], [[B]], [[C]], [[D]] in the text"), None)
}

fn arena_hard(text: &str) -> (Verdict, Span) {
    let found = spans(&ARENA, text, |token| match token {
        "A>>B" | "A>B" | "B<A" | "B<<A" => Ok(-1),
        "B>>A" | "B>A" | "A<B" | "A<<B" => Ok(1),
        "A=B" | "B=A" | "A==B" | "B==A" => Ok(0),
        other => Err(format!(
            "'[[{other}]]' is not one of the five arena-hard verdicts"
        )),
    });
    read_tags(text, found, "[[A>B]]-style verdict")
}

fn output_side(c: &regex::Captures<'_>) -> i64 {
    match c.get(1).map(|m| m.as_str()) {
        Some("a" | "A") => -1,
        _ => 1,
    }
}

/// `Output (a)` / `Output (b)`: the statements of a verdict among the mentions.
fn output_ab(text: &str) -> (Verdict, Span) {
    let mut statements = Vec::new();
    let mut push = |m: regex::Match<'_>, value: i64, last_word: bool| {
        statements.push(Statement {
            start: m.start(),
            end: m.end(),
            value: Ok(value),
            last_word,
        })
    };
    for c in OUTPUT_IS.captures_iter(text) {
        let (Some(whole), Some(word)) = (c.get(0), c.get(2)) else {
            continue;
        };
        let before = sentence_before(text, whole.start());
        if hedged(before) || QUALIFIED_TAIL.is_match(&text[whole.end()..]) {
            continue;
        }
        let worse = matches!(
            word.as_str().to_ascii_lowercase().as_str(),
            "worse" | "inferior"
        );
        let side = output_side(&c);
        push(whole, if worse { -side } else { side }, concludes(before));
    }
    for c in OUTPUT_CHOSEN.captures_iter(text) {
        if let Some(whole) = c.get(0) {
            let before = sentence_before(text, whole.start());
            if !hedged(before) {
                push(whole, output_side(&c), concludes(before));
            }
        }
    }
    for re in [&*OUTPUT_LABELLED, &*OUTPUT_THEREFORE_BARE] {
        for c in re.captures_iter(text) {
            if let Some(whole) = c.get(0) {
                push(whole, output_side(&c), true);
            }
        }
    }
    for c in OUTPUT_LINE
        .captures_iter(text)
        .chain(OUTPUT_OPENING.captures_iter(text))
    {
        if let Some(whole) = c.get(0) {
            push(whole, output_side(&c), false);
        }
    }
    for c in OUTPUT_BOLD.captures_iter(text) {
        if let Some(whole) = c.get(0) {
            if !BOLD_HEADING_TAIL.is_match(&text[whole.end()..]) {
                push(whole, output_side(&c), false);
            }
        }
    }
    decide(statements, || {
        if OUTPUT.is_match(text) {
            "Output (a)/(b) only mentioned, no verdict statement such as 'Output (a) is better'"
                .into()
        } else {
            "no 'Output (a)' or 'Output (b)'".into()
        }
    })
}

#[cfg(test)]
mod tests;
