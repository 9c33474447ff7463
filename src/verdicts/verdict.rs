//! The room's vocabulary: what reading one completion gives (`Verdict`), and the helpers every
//! reader shares.

/// The outcome of reading one completion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Rated(i64),
    /// No verdict could be read; the reason says why.
    Unparseable(String),
}

impl Verdict {
    pub fn rating(&self) -> Option<i64> {
        match self {
            Verdict::Rated(v) => Some(*v),
            Verdict::Unparseable(_) => None,
        }
    }
}

pub(super) fn none(reason: impl Into<String>) -> Verdict {
    Verdict::Unparseable(reason.into())
}

// Answers are read where an answer stands (opening the text, or after a label), never from
// anywhere in the text: a judge that repeats the prompt ("Response 1: ...", "a score from 1
// to 5") must not be read as answering.
pub(super) fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if s.chars().count() > 40 {
        out.push('…');
    }
    out
}
