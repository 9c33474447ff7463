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
/// JSON written straight to stdout fails as a `serde_json::Error` around the io error.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    let broken = Some(std::io::ErrorKind::BrokenPipe);
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>().map(std::io::Error::kind) == broken
            || e.downcast_ref::<serde_json::Error>()
                .and_then(serde_json::Error::io_error_kind)
                == broken
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Error, ErrorKind};

    /// `calibrate --json | head` exited 1 with "error: Broken pipe": the JSON writer's error
    /// wraps the io error.
    #[test]
    fn a_closed_pipe_is_seen_through_the_json_writer() {
        let pipe = || Error::from(ErrorKind::BrokenPipe);
        assert!(is_broken_pipe(&anyhow::Error::from(pipe())));
        assert!(is_broken_pipe(&anyhow::Error::from(serde_json::Error::io(
            pipe()
        ))));
        let other = serde_json::Error::io(Error::from(ErrorKind::PermissionDenied));
        assert!(!is_broken_pipe(&anyhow::Error::from(other)));
        assert!(!is_broken_pipe(&input_error("bad")));
    }
}
