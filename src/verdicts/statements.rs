//! Verdict statements versus mentions. A verbose judge names both answers while it reasons
//! ("Output (a) is concise, Output (b) adds facts") and may echo the instructions ("[[A]] if
//! assistant A is better"); only *statements* of a verdict count. Statements that all name one
//! side give that side; an explicit final statement ("Therefore, ...", "Final verdict: ...", the
//! tag that closes the answer on its own line) wins over earlier ones, because a judge may
//! revise itself; otherwise statements that disagree give no verdict.

use super::verdict::{none, Verdict};

/// One verdict statement found in a completion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Statement {
    /// Byte offsets of the statement (statements are decided in text order).
    pub start: usize,
    pub end: usize,
    /// The verdict it states, or why its content is not a verdict (`<winner>3</winner>`).
    pub value: Result<i64, String>,
    /// An explicit final form.
    pub last_word: bool,
}

fn side_name(v: &Result<i64, String>) -> String {
    match v {
        Ok(-1) => "response 1".into(),
        Ok(0) => "tie".into(),
        Ok(_) => "response 2".into(),
        Err(e) => e.clone(),
    }
}

/// The byte range of the text a parser read its verdict from.
pub type Span = Option<(usize, usize)>;

/// Decides among the statements of a completion, with the span of the deciding statement.
/// `nothing` is the reason when there is no statement at all.
pub(super) fn decide(
    mut statements: Vec<Statement>,
    nothing: impl FnOnce() -> String,
) -> (Verdict, Span) {
    statements.sort_by_key(|s| s.start);
    if let Some(last) = statements.iter().rev().find(|s| s.last_word) {
        let span = Some((last.start, last.end));
        return match &last.value {
            Ok(v) => (Verdict::Rated(*v), span),
            Err(e) => (none(e.clone()), span),
        };
    }
    let span = statements.last().map(|s| (s.start, s.end));
    let mut values: Vec<&Result<i64, String>> = statements.iter().map(|s| &s.value).collect();
    values.sort_by_key(|v| side_name(v));
    values.dedup();
    match values.as_slice() {
        [] => (none(nothing()), None),
        [Ok(v)] => (Verdict::Rated(*v), span),
        [Err(e)] => (none(e.clone()), span),
        many => (
            none(format!(
                "conflicting verdict statements ({}) and no final one",
                many.iter()
                    .map(|v| side_name(v))
                    .collect::<Vec<_>>()
                    .join(" vs ")
            )),
            None,
        ),
    }
}

/// Markers of a concluding statement, looked for in the same sentence before it.
const CONCLUDING: &[&str] = &[
    "therefore",
    "thus",
    "hence",
    "so",
    "in conclusion",
    "to conclude",
    "in summary",
    "overall",
    "ultimately",
    "consequently",
    "final verdict",
    "final answer",
    "final decision",
    "final choice",
    "final judgment",
    "final judgement",
    "verdict",
    "decision",
    "conclusion",
];

/// Words that make a following statement hypothetical, negated or qualified ("neither Output
/// (a) nor Output (b) is better", "whether [[A]]", "in terms of detail, Output (a) is better").
const HEDGES: &[&str] = &[
    "neither",
    "nor",
    "not",
    "whether",
    "if",
    "no",
    "in terms of",
    "when it comes to",
    "regarding",
];

/// The text of the sentence before `start` (back to the previous `.`, `!`, `?` or line
/// break; a heading line such as "# Decision:" just above counts too).
pub(super) fn sentence_before(text: &str, start: usize) -> &str {
    let head = &text[..start];
    let cut = head.rfind(['.', '!', '?', '\n']).map_or(0, |i| i + 1);
    let sentence = &head[cut..];
    if sentence.trim().is_empty() && head[..cut].ends_with('\n') {
        // The statement opens its line: the line above is its label when it is a short
        // heading ("# Decision:", "**Final verdict**").
        let above = head[..cut].trim_end();
        let line = above.rsplit('\n').next().unwrap_or("");
        if line.len() <= 40 {
            return line;
        }
    }
    sentence
}

fn has_word(haystack: &str, words: &[&str]) -> bool {
    let lower = haystack.to_ascii_lowercase();
    words.iter().any(|w| {
        lower.match_indices(w).any(|(i, _)| {
            let before = lower[..i].chars().next_back();
            let after = lower[i + w.len()..].chars().next();
            !before.is_some_and(|c| c.is_alphanumeric())
                && !after.is_some_and(|c| c.is_alphanumeric())
        })
    })
}

/// Whether the sentence before a statement concludes ("Therefore, ...").
pub(super) fn concludes(before: &str) -> bool {
    has_word(before, CONCLUDING)
}

/// Whether the sentence before a statement hedges it.
pub(super) fn hedged(before: &str) -> bool {
    has_word(before, HEDGES)
}

/// Whether the match at `start..end` stands alone on the last line with content: nothing but
/// markup and a short label ("Final verdict:") before it on its line, only markup after it.
pub(super) fn closes_the_answer(text: &str, start: usize, end: usize) -> bool {
    let markup = |s: &str| {
        s.chars()
            .all(|c| c.is_whitespace() || "*_`'\".!#>:-()[]".contains(c))
    };
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..start];
    let labelled = markup(before) || (before.len() <= 40 && concludes(before));
    labelled && markup(&text[end..]) && line_start > 0
}

/// Whether a tag at `start..end` is a mention rather than a statement: quoted, listed among
/// other tags ("[[A]], [[B]] or [[C]]"), or conditional ("[[A]] if assistant A is better",
/// "if they are equal, <tie>").
pub(super) fn tag_is_mention(
    text: &str,
    start: usize,
    end: usize,
    neighbours: &[(usize, usize)],
) -> bool {
    let prev = text[..start].chars().next_back();
    let next = text[end..].chars().next();
    let quote = |c: Option<char>| c.is_some_and(|c| "\"'`“”‘’".contains(c));
    if quote(prev) && quote(next) {
        return true;
    }
    let joiner = |between: &str| {
        let t = between
            .trim()
            .trim_matches([',', '/', '|', ';', '"', '\'', '`'])
            .trim();
        between.len() <= 12 && (t.is_empty() || t == "or" || t == "and" || t == "or a" || t == "vs")
    };
    for &(s, e) in neighbours {
        if (s, e) == (start, end) {
            continue;
        }
        if (e <= start && joiner(&text[e..start])) || (s >= end && joiner(&text[end..s])) {
            return true;
        }
    }
    let after = text[end..].trim_start_matches(['"', '\'', '`', ' ', ',']);
    let after_lower = after
        .chars()
        .take(8)
        .collect::<String>()
        .to_ascii_lowercase();
    if after_lower.starts_with("if ")
        || after_lower.starts_with("when ")
        || after_lower.starts_with("for a tie")
    {
        return true;
    }
    let before = sentence_before(text, start).to_ascii_lowercase();
    has_word(
        &before,
        &[
            "if",
            "when",
            "whether",
            "format",
            "output your",
            "e.g",
            "such as",
            "either",
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(start: usize, v: i64, last_word: bool) -> Statement {
        Statement {
            start,
            end: start + 1,
            value: Ok(v),
            last_word,
        }
    }

    #[test]
    fn decide_prefers_the_last_final_statement_and_refuses_conflicts() {
        assert_eq!(
            decide(vec![st(0, -1, false), st(5, -1, false)], String::new).0,
            Verdict::Rated(-1)
        );
        assert_eq!(
            decide(vec![st(0, -1, false), st(5, 1, true)], String::new).0,
            Verdict::Rated(1)
        );
        assert_eq!(
            decide(vec![st(9, -1, true), st(5, 1, true)], String::new).0,
            Verdict::Rated(-1)
        );
        assert_eq!(
            decide(vec![st(9, -1, true), st(5, 1, true)], String::new).1,
            Some((9, 10)),
            "the span is the deciding statement's"
        );
        assert_eq!(
            decide(vec![st(0, -1, false), st(5, 1, false)], String::new).0,
            Verdict::Unparseable(
                "conflicting verdict statements (response 1 vs response 2) and no final one".into()
            )
        );
        assert_eq!(
            decide(vec![], || "nothing".into()).0,
            Verdict::Unparseable("nothing".into())
        );
    }

    #[test]
    fn sentences_and_markers() {
        let t = "A is long. Therefore, X";
        assert_eq!(sentence_before(t, t.len() - 1), " Therefore, ");
        assert!(concludes(" Therefore, "));
        assert!(!concludes("Also, "));
        assert!(!concludes("Sorting is"));
        let t = "# Decision:\nX";
        assert_eq!(sentence_before(t, t.len() - 1), "# Decision:");
        assert!(hedged("neither "));
        assert!(!hedged("nothing but "));
    }
}
