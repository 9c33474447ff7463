//! A reasoning judge's answer, its thinking set apart: a verdict is read only from what the
//! judge answered, never from what it thought on the way.
//!
//! - A leading `<think>…</think>` (or `<thinking>…</thinking>`) block is thinking; the answer
//!   follows it. A text with a closing `</think>` and no opening tag (the opening tag sat in the
//!   chat template) is thinking up to the tag.
//! - An opening tag that never closes, or an empty answer when the generation stopped at
//!   `max_tokens` (`finish_reason: "length"`), is an answer **cut off while thinking**: there
//!   is no answer to read, whatever the thinking said.
//! - Thinking a server returns apart (`reasoning_content`) never reaches the text at all.

/// What a completion's text holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer<'a> {
    /// The answer (`offset`: where it starts in the text) and the thinking before it, if any.
    Text {
        answer: &'a str,
        offset: usize,
        thinking: Option<&'a str>,
    },
    /// The judge was stopped before it answered.
    CutOff { thinking: &'a str },
}

const TAGS: [(&str, &str); 2] = [("<think>", "</think>"), ("<thinking>", "</thinking>")];

/// Splits a completion's text into thinking and answer (`finish_reason` as the server gave it).
pub fn answer<'a>(text: &'a str, finish_reason: Option<&str>) -> Answer<'a> {
    let start = text.len() - text.trim_start().len();
    let opened = TAGS.iter().find(|(open, _)| {
        text[start..]
            .get(..open.len())
            .is_some_and(|t| t.eq_ignore_ascii_case(open))
    });
    let split = match opened {
        Some((open, close)) => {
            let body = start + open.len();
            match find_ci(&text[body..], close) {
                Some(at) => Some((&text[body..body + at], body + at + close.len())),
                None => {
                    return Answer::CutOff {
                        thinking: &text[body..],
                    }
                }
            }
        }
        // A closing tag without an opening one: the template opened the thinking.
        None => TAGS.iter().find_map(|(open, close)| {
            let at = find_ci(text, close)?;
            (find_ci(&text[..at], open).is_none()).then(|| (&text[..at], at + close.len()))
        }),
    };
    let (thinking, offset) = match split {
        Some((thinking, after)) => (Some(thinking), after),
        None => (None, 0),
    };
    let answer = &text[offset..];
    if answer.trim().is_empty() && finish_reason == Some("length") {
        return Answer::CutOff {
            thinking: thinking.unwrap_or(""),
        };
    }
    Answer::Text {
        answer,
        offset,
        thinking,
    }
}

/// The byte offset of `needle` in `hay`, ignoring ASCII case.
fn find_ci(hay: &str, needle: &str) -> Option<usize> {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    (0..=h.len().checked_sub(n.len())?).find(|&i| h[i..i + n.len()].eq_ignore_ascii_case(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(a: Answer<'_>) -> Option<(&str, usize)> {
        match a {
            Answer::Text { answer, offset, .. } => Some((answer, offset)),
            Answer::CutOff { .. } => None,
        }
    }

    #[test]
    fn thinking_is_set_apart() {
        assert_eq!(text(answer("[[A]]", None)), Some(("[[A]]", 0)));
        let t = "<think>B looks better... no, [[B]]? Actually A.</think>\nFinal: [[A]]";
        assert_eq!(text(answer(t, Some("stop"))), Some(("\nFinal: [[A]]", 55)));
        assert_eq!(
            text(answer("  <THINKING>x</thinking>[[B]]", None)),
            Some(("[[B]]", 24))
        );
        // The template opened the thinking: only the closing tag is in the text.
        assert_eq!(
            text(answer("so [[B]] maybe</think>[[A]]", None)),
            Some(("[[A]]", 22))
        );
        // A literal tag later in the answer is not thinking.
        assert_eq!(
            text(answer("[[A]] (I used <think> tags)", None)),
            Some(("[[A]] (I used <think> tags)", 0))
        );
    }

    #[test]
    fn an_answer_cut_off_while_thinking_has_no_verdict() {
        assert!(matches!(
            answer("<think>Response 1 is better: [[A]]. But wait", Some("length")),
            Answer::CutOff { thinking } if thinking.contains("[[A]]")
        ));
        // Unclosed is cut off whatever the finish reason says.
        assert!(matches!(
            answer("<think>[[A]]", Some("stop")),
            Answer::CutOff { .. }
        ));
        // Empty after the thinking, stopped by the length limit.
        assert!(matches!(
            answer("<think>[[A]]</think>  ", Some("length")),
            Answer::CutOff { .. }
        ));
        assert!(matches!(answer("", Some("length")), Answer::CutOff { .. }));
        // Empty but stopped on its own: an empty answer, not a cut-off.
        assert!(matches!(answer("", Some("stop")), Answer::Text { .. }));
    }
}
