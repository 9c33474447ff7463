//! Conversations: preference data whose two sides share every turn but the last assistant
//! reply. Read from HH-RLHF's transcripts (`"\n\nHuman: …\n\nAssistant: …"`) or from message
//! lists (`[{role, content}, …]`, reward-bench's and UltraFeedback's form). A pair keeps the
//! turns before the judged reply: `history` (every turn before the last user message) and
//! `prompt` (that message), so a single-turn pair is exactly what it was.

use super::frame::Frame;
use super::pairs::Pair;
use crate::error::input_error;
use anyhow::Result;
use polars::prelude::DataType;
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

/// What to do with a row whose two sides do not share their earlier turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Unshared {
    /// Stop with the row's error (the default).
    #[default]
    Error,
    /// Leave it out, counted and named in the run's summary (`--unshared skip`).
    Skip,
}

/// The columns a frame's conversations come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `chosen`/`rejected` HH-RLHF transcripts.
    Transcripts,
    /// `chosen`/`rejected` message lists.
    Lists,
    /// A `messages` (or `prompt`) message list and `chosen`/`rejected` reply strings.
    PromptList(&'static str),
}

impl Shape {
    pub fn describe(self) -> &'static str {
        match self {
            Shape::Transcripts => {
                "HH-RLHF transcripts (chosen and rejected share every turn but the last)"
            }
            Shape::Lists => "message lists (chosen and rejected share every turn but the last)",
            Shape::PromptList(_) => "a message list before two replies",
        }
    }
}

fn is_message_list(frame: &Frame, name: &str) -> bool {
    frame.df.column(name).is_ok_and(
        |c| matches!(c.dtype(), DataType::List(inner) if matches!(**inner, DataType::Struct(_))),
    )
}

fn is_text(frame: &Frame, name: &str) -> bool {
    frame
        .df
        .column(name)
        .is_ok_and(|c| matches!(c.dtype(), DataType::String))
}

/// The conversation shape of a frame, recognized from its data: message lists, or transcripts
/// (text that opens with `\n\nHuman:`, no `prompt` column).
pub fn shape(frame: &Frame) -> Option<Shape> {
    if is_message_list(frame, "chosen") && is_message_list(frame, "rejected") {
        return Some(Shape::Lists);
    }
    if is_text(frame, "chosen") && is_text(frame, "rejected") {
        for list in ["messages", "prompt"] {
            if is_message_list(frame, list) {
                return Some(Shape::PromptList(if list == "messages" {
                    "messages"
                } else {
                    "prompt"
                }));
            }
        }
        let opens = frame.df.column("chosen").ok().and_then(|c| {
            c.str()
                .ok()
                .and_then(|s| s.get(0).map(|t| t.starts_with("\n\nHuman:")))
        });
        if frame.df.column("prompt").is_err() && opens == Some(true) {
            return Some(Shape::Transcripts);
        }
    }
    None
}

/// Each row's message list in column `name`: its turns, a role the list may not hold named
/// with the file, column, row and message.
fn message_lists(frame: &Frame, name: &str) -> Result<Vec<Vec<Turn>>> {
    let series = frame.df.column(name)?.as_materialized_series().clone();
    let list = series.list().map_err(anyhow::Error::from)?;
    let at = |row: usize| {
        format!(
            "'{}', column '{name}', row {}",
            frame.path.display(),
            row + 1
        )
    };
    list.series_iter()
        .enumerate()
        .map(|(row, value)| {
            let value = value.ok_or_else(|| input_error(format!("{}: the message list is missing (null)", at(row))))?;
            let fields = value.struct_().map_err(anyhow::Error::from)?;
            let field = |f: &str| -> Result<Vec<Option<String>>> {
                let s = fields.field_by_name(f).map_err(|_| {
                    input_error(format!(
                        "{}: the messages have no '{f}' field; a message list holds {{\"role\", \"content\"}} objects",
                        at(row)
                    ))
                })?;
                let s = s.cast(&DataType::String).map_err(anyhow::Error::from)?;
                Ok(s.str().map_err(anyhow::Error::from)?.iter().map(|v| v.map(str::to_string)).collect())
            };
            let (roles, contents) = (field("role")?, field("content")?);
            roles
                .into_iter()
                .zip(contents)
                .enumerate()
                .map(|(k, (role, content))| {
                    let role_name = role.unwrap_or_default();
                    let role = Role::parse(&role_name).ok_or_else(|| {
                        input_error(format!(
                            "{}, message {}: unknown role '{role_name}'; roles are system, user and assistant",
                            at(row),
                            k + 1
                        ))
                    })?;
                    Ok(Turn {
                        role,
                        content: content.unwrap_or_default(),
                    })
                })
                .collect()
        })
        .collect()
}

/// The two sides' turns of every row, as the frame holds them.
fn sides(frame: &Frame, shape: Shape) -> Result<Vec<(Vec<Turn>, Vec<Turn>)>> {
    let path = frame.path.display().to_string();
    Ok(match shape {
        Shape::Lists => message_lists(frame, "chosen")?
            .into_iter()
            .zip(message_lists(frame, "rejected")?)
            .collect(),
        Shape::Transcripts => {
            let (c, r) = (
                frame.text("chosen", "--map", "chosen")?,
                frame.text("rejected", "--map", "rejected")?,
            );
            c.iter()
                .zip(&r)
                .enumerate()
                .map(|(row, (c, r))| {
                    let read = |name: &str, t: &str| {
                        transcript(t).map_err(|e| {
                            input_error(format!("'{path}', column '{name}', row {}: {e}", row + 1))
                        })
                    };
                    Ok((read("chosen", c)?, read("rejected", r)?))
                })
                .collect::<Result<_>>()?
        }
        Shape::PromptList(list) => {
            let before = message_lists(frame, list)?;
            let (c, r) = (
                frame.text("chosen", "--map", "chosen")?,
                frame.text("rejected", "--map", "rejected")?,
            );
            before
                .into_iter()
                .zip(c.into_iter().zip(r))
                .map(|(turns, (c, r))| {
                    let reply = |content: String| {
                        let mut v = turns.clone();
                        v.push(Turn {
                            role: Role::Assistant,
                            content,
                        });
                        v
                    };
                    (reply(c), reply(r))
                })
                .collect()
        }
    })
}

/// The pairs of a conversation frame (chosen first, gold -1, positions drawn from the seed),
/// and the ids of the rows left out under `Unshared::Skip`. Ids are the `id` column's when
/// the frame has one, else the row number; the subset is the `subset` column's, else the
/// file's stem.
pub fn from_frame(
    frame: &Frame,
    shape: Shape,
    unshared: Unshared,
) -> Result<(Vec<Pair>, Vec<String>)> {
    let rows = sides(frame, shape)?;
    let n = rows.len();
    let ids: Vec<String> = match frame.df.column("id") {
        Ok(_) => frame.text("id", "--map", "id")?,
        Err(_) => (1..=n).map(|k| k.to_string()).collect(),
    };
    let stem = frame
        .path
        .file_stem()
        .map_or("conversations".to_string(), |s| {
            s.to_string_lossy().into_owned()
        });
    let subsets: Vec<String> = match frame.df.column("subset") {
        Ok(_) => frame.text("subset", "--map", "subset")?,
        Err(_) => vec![stem; n],
    };
    let mut pairs = Vec::with_capacity(n);
    let mut skipped = Vec::new();
    for (row, ((first, second), (id, subset))) in rows
        .into_iter()
        .zip(ids.into_iter().zip(subsets))
        .enumerate()
    {
        let id = format!("{subset}-{id}");
        let s = match split(&first, &second) {
            Ok(s) => s,
            Err(e)
                if unshared == Unshared::Skip && e.contains("differ before their last replies") =>
            {
                skipped.push(id);
                continue;
            }
            Err(e) => {
                let fix = if e.contains("differ before") {
                    "; leave such rows out with --unshared skip (they are counted and named in the run's summary)"
                } else {
                    ""
                };
                return Err(input_error(format!(
                    "'{}', row {} (id '{id}'): {e}{fix}",
                    frame.path.display(),
                    row + 1
                )));
            }
        };
        pairs.push(Pair {
            id,
            subset,
            prompt: s.prompt,
            first: s.first,
            second: s.second,
            gold: -1,
            reference: None,
            randomize: true,
            votes: Vec::new(),
            generators: None,
            history: s.history,
        });
    }
    let keys: Vec<String> = pairs.iter().map(|p| p.id.clone()).collect();
    crate::dataset::pairs::check_unique_ids(&frame.path, &keys)?;
    Ok((pairs, skipped))
}
