//! Error kinds that decide the exit code.
//!
//! Everything else travels as `anyhow::Error` with context; an [`InputError`] anywhere in the
//! chain means the user's input or flags were wrong (exit code 2).

use std::fmt;

/// Bad input or usage: the message says what, where and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InputError(pub String);

impl InputError {
    pub fn new(message: impl fmt::Display) -> Self {
        Self(message.to_string())
    }
}

/// Shorthand: an `anyhow::Error` carrying an [`InputError`].
pub fn input_error(message: impl fmt::Display) -> anyhow::Error {
    InputError::new(message).into()
}

/// Stopped by Ctrl-C (exit code 130); the message says how to resume.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Interrupted(pub String);

/// 2 when the chain holds an [`InputError`], 130 for [`Interrupted`], else 1.
pub fn exit_code(err: &anyhow::Error) -> u8 {
    if err.chain().any(|e| e.is::<InputError>()) {
        2
    } else if err.chain().any(|e| e.is::<Interrupted>()) {
        130
    } else {
        1
    }
}

/// True when the error is a closed pipe on stdout (`raterlab ... | head`): exit quietly with 0.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
