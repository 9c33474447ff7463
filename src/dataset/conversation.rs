//! Conversations: preference data whose two sides share every turn but the last assistant
//! reply. Read from HH-RLHF's transcripts (`"\n\nHuman: …\n\nAssistant: …"`) or from message
//! lists (`[{role, content}, …]`, reward-bench's and UltraFeedback's form). A pair keeps the
//! turns before the judged reply: `history` (every turn before the last user message) and
//! `prompt` (that message), so a single-turn pair is exactly what it was.

use serde::{Deserialize, Serialize};

/// Who speaks a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

impl Role {
    /// A message list's role name; HH-RLHF's `Human` is the user.
    pub fn parse(name: &str) -> Option<Self> {
        match name.trim().to_ascii_lowercase().as_str() {
            "system" => Some(Role::System),
            "user" | "human" => Some(Role::User),
            "assistant" | "gpt" | "bot" => Some(Role::Assistant),
            _ => None,
        }
    }

    /// How the conversation layout names the speaker.
    pub fn label(self) -> &'static str {
        match self {
            Role::System => "System",
            Role::User => "User",
            Role::Assistant => "Assistant",
        }
    }
}

/// One turn of a conversation.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Turn {
    pub role: Role,
    pub content: String,
}

/// The turns of an HH-RLHF transcript: each `"\n\nHuman: "` or `"\n\nAssistant: "` starts a
/// turn, whose text runs to the next one (a lone leading space after the colon is the
/// separator's). Text before the first marker is an error.
pub fn transcript(text: &str) -> Result<Vec<Turn>, String> {
    const MARKERS: [(&str, Role); 2] = [
        ("\n\nHuman:", Role::User),
        ("\n\nAssistant:", Role::Assistant),
    ];
    let mut starts: Vec<(usize, usize, Role)> = Vec::new();
    for (marker, role) in MARKERS {
        starts.extend(
            text.match_indices(marker)
                .map(|(at, m)| (at, at + m.len(), role)),
        );
    }
    starts.sort_by_key(|s| s.0);
    let Some(&(first, _, _)) = starts.first() else {
        return Err("no \"\\n\\nHuman:\" or \"\\n\\nAssistant:\" turn".into());
    };
    if !text[..first].trim().is_empty() {
        return Err(format!(
            "text before the first turn: \"{}\"",
            crate::dataset::conversation::clip(&text[..first])
        ));
    }
    Ok(starts
        .iter()
        .enumerate()
        .map(|(k, &(_, body, role))| {
            let end = starts.get(k + 1).map_or(text.len(), |s| s.0);
            let content = &text[body..end];
            Turn {
                role,
                content: content.strip_prefix(' ').unwrap_or(content).to_string(),
            }
        })
        .collect())
}

/// The start of a text, for an error message.
pub fn clip(text: &str) -> String {
    let t: String = text.chars().take(60).collect();
    if t.len() < text.len() {
        format!("{t}…")
    } else {
        t
    }
}

/// What a pair of conversations becomes: the shared turns before the last user message, that
/// message, and each side's final assistant reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    pub history: Vec<Turn>,
    pub prompt: String,
    pub first: String,
    pub second: String,
}

/// Splits two conversations that share every turn but their last assistant replies. `Err`
/// says what is wrong, naming the turn (counted from 1).
pub fn split(first: &[Turn], second: &[Turn]) -> Result<Split, String> {
    for (side, turns) in [("chosen", first), ("rejected", second)] {
        match turns.last() {
            None => return Err(format!("the {side} conversation has no turn")),
            Some(t) if t.role != Role::Assistant => {
                return Err(format!(
                "the {side} conversation ends with a {} turn, not the assistant's reply to judge",
                t.role.label().to_ascii_lowercase()
            ))
            }
            _ => {}
        }
        // An empty final reply is a response (the assistant said nothing: three of HH-RLHF's
        // first 1,000 test rows); an empty earlier turn is a broken row.
        if let Some(k) = turns[..turns.len() - 1]
            .iter()
            .position(|t| t.content.trim().is_empty())
        {
            return Err(format!(
                "turn {} of the {side} conversation is empty",
                k + 1
            ));
        }
    }
    let (a, b) = (&first[..first.len() - 1], &second[..second.len() - 1]);
    if let Some(k) = (0..a.len().max(b.len())).find(|&k| a.get(k) != b.get(k)) {
        let what = |t: Option<&Turn>| {
            t.map_or("nothing".to_string(), |t| {
                format!(
                    "{} \"{}\"",
                    t.role.label().to_ascii_lowercase(),
                    clip(&t.content)
                )
            })
        };
        return Err(format!(
            "the two sides differ before their last replies, at turn {} (chosen: {}; rejected: {})",
            k + 1,
            what(a.get(k)),
            what(b.get(k))
        ));
    }
    let Some(last_user) = a.iter().rposition(|t| t.role == Role::User) else {
        return Err("no user turn before the replies".into());
    };
    if last_user + 1 != a.len() {
        return Err(format!(
            "turn {} before the replies is the assistant's, not the user's",
            a.len()
        ));
    }
    // Two turns of one speaker in a row are kept as they are: HH-RLHF has them (rows 668
    // and 764 of its harmless test split hold two assistant turns in a row).
    Ok(Split {
        history: a[..last_user].to_vec(),
        prompt: a[last_user].content.clone(),
        first: first[first.len() - 1].content.clone(),
        second: second[second.len() - 1].content.clone(),
    })
}

/// A conversation's depth: its user turns up to the judged reply, the last user message (not
/// among `history`) counted (1 for a single-turn item).
pub fn depth(history: &[Turn]) -> u32 {
    1 + history.iter().filter(|t| t.role == Role::User).count() as u32
}

/// The conversation before the judged reply in raterlab's layout, which `{prompt}` and
/// `{conversation}` show: each turn as `### User:`, `### Assistant:` or `### System:` on a
/// line of its own, then its text, turns apart by a blank line (FastChat's multi-turn judge
/// layout). A single-turn item is its prompt alone.
pub fn layout<'a>(history: &[Turn], prompt: &'a str) -> std::borrow::Cow<'a, str> {
    if history.is_empty() {
        return std::borrow::Cow::Borrowed(prompt);
    }
    let mut out = String::new();
    for t in history {
        out.push_str("### ");
        out.push_str(t.role.label());
        out.push_str(":\n");
        out.push_str(&t.content);
        out.push_str("\n\n");
    }
    out.push_str("### User:\n");
    out.push_str(prompt);
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(role: Role, content: &str) -> Turn {
        Turn {
            role,
            content: content.into(),
        }
    }

    #[test]
    fn transcripts_split_into_turns() {
        let t = transcript(
            "\n\nHuman: hi there\n\nAssistant: hello\n\nHuman:  two spaces\n\nAssistant:",
        )
        .expect("turns");
        assert_eq!(
            t,
            [
                turn(Role::User, "hi there"),
                turn(Role::Assistant, "hello"),
                turn(Role::User, " two spaces"),
                turn(Role::Assistant, ""),
            ]
        );
        assert!(transcript("preamble\n\nHuman: x").is_err());
        assert!(transcript("no turns").is_err());
    }

    #[test]
    fn pairs_share_every_turn_but_the_last() {
        let shared = [
            turn(Role::User, "q1"),
            turn(Role::Assistant, "a1"),
            turn(Role::User, "q2"),
        ];
        let with = |last: &str| {
            let mut v = shared.to_vec();
            v.push(turn(Role::Assistant, last));
            v
        };
        let s = split(&with("good"), &with("bad")).expect("split");
        assert_eq!(s.history, shared[..2]);
        assert_eq!(
            (s.prompt.as_str(), s.first.as_str(), s.second.as_str()),
            ("q2", "good", "bad")
        );
        assert_eq!(
            layout(&s.history, &s.prompt),
            "### User:\nq1\n\n### Assistant:\na1\n\n### User:\nq2"
        );
        let mut other = with("bad");
        other[1].content = "different".into();
        let e = split(&with("good"), &other).expect_err("differs");
        assert!(
            e.contains("at turn 2") && e.contains("assistant \"a1\""),
            "{e}"
        );
        let mut open = with("x");
        open.pop();
        assert!(split(&open, &with("y"))
            .expect_err("no reply")
            .contains("ends with a user turn"));
        let mut empty = with("good");
        empty[0].content = " ".into();
        assert!(split(&empty, &with("b")).is_err());
        // An empty final reply is a response.
        assert_eq!(split(&with(""), &with("b")).expect("split").first, "");
    }
}
