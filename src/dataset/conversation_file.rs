//! Conversation files → pairs: the shape of a frame's conversations (HH-RLHF transcripts,
//! chosen/rejected message lists, a message list before two replies), each row's two sides
//! split by `conversation::split`, and what becomes of a row whose sides differ before their
//! last replies.

use super::conversation::{split, transcript, Role, Turn};
use super::frame::Frame;
use super::pairs::Pair;
use crate::error::input_error;
use anyhow::Result;
use polars::prelude::DataType;

/// The subset of the conversations of a file without a subset column.
pub const DEFAULT_SUBSET: &str = "conversations";

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
    frame
        .list_rows(name)?
        .into_iter()
        .map(|(at, value)| {
            let fields = value.struct_().map_err(anyhow::Error::from)?;
            let field = |f: &str| -> Result<Vec<Option<String>>> {
                let s = fields.field_by_name(f).map_err(|_| {
                    input_error(format!(
                        "{at}: the messages have no '{f}' field; a message list holds {{\"role\", \"content\"}} objects"
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
                            "{at}, message {}: unknown role '{role_name}'; roles are system, user and assistant",
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
    let has_ids = frame.df.column("id").is_ok();
    let has_subsets = frame.df.column("subset").is_ok();
    // Without an id column, the row number names a row left out or in error; the item's id
    // comes from its content once split (`pairs::content_id`).
    let ids: Vec<String> = match has_ids {
        true => frame.text("id", "--map", "id")?,
        false => (1..=n).map(|k| format!("row {k}")).collect(),
    };
    // Without a subset column every conversation is in one subset, whatever the file's name.
    let subsets: Vec<String> = match has_subsets {
        true => frame.text("subset", "--map", "subset")?,
        false => vec![DEFAULT_SUBSET.to_string(); n],
    };
    let mut pairs = Vec::with_capacity(n);
    let mut skipped = Vec::new();
    for (row, ((first, second), (id, subset))) in rows
        .into_iter()
        .zip(ids.into_iter().zip(subsets))
        .enumerate()
    {
        let id = if has_ids {
            format!("{subset}-{id}")
        } else {
            id
        };
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
                let named = if has_ids {
                    format!(" (id '{id}')")
                } else {
                    String::new()
                };
                return Err(input_error(format!(
                    "'{}', row {}{named}: {e}{fix}",
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
            gold: Some(-1),
            reference: None,
            randomize: true,
            votes: Vec::new(),
            vote_order: Vec::new(),
            generators: None,
            history: s.history,
        });
    }
    if !has_ids {
        crate::dataset::pairs::with_content_ids(&mut pairs, has_subsets);
    }
    let keys: Vec<String> = pairs.iter().map(|p| p.id.clone()).collect();
    crate::dataset::pairs::check_unique_ids(&frame.path, &keys)?;
    Ok((pairs, skipped))
}
