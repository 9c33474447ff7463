//! A template's `[probability]` table: which generated token gives the probability and what
//! its alternatives mean, checked against the template's mode; and the same written back.
//!
//! ```toml
//! [probability]
//! position = "first"                            # or "verdict": the token where the parser read the verdict
//! tokens = { m = "response1", M = "response2" } # pairwise ("tie" too); pointwise: { "1" = 1, ..., "5" = 5 }
//! whitespace = "exact"                          # or "strip": " A" and "A" both count as "A"
//! top_logprobs = 5                              # alternatives asked for per token
//! ```

use super::template::Mode;
use crate::verdicts::probability::{Meaning, Position, Spec, Whitespace, DEFAULT_TOP};
use serde::Deserialize;
use std::collections::BTreeMap;

/// The table as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ProbabilityTable {
    position: Option<String>,
    tokens: BTreeMap<String, toml::Value>,
    whitespace: Option<String>,
    top_logprobs: Option<u32>,
    /// `"tie"`: identical responses are a tie with P = ½, no call (AlpacaEval's rule).
    identical: Option<String>,
}

/// The spec of a table, or what is wrong with it (the caller names the file).
pub(super) fn spec(table: &ProbabilityTable, mode: Mode) -> Result<Spec, String> {
    let position = match table.position.as_deref() {
        None | Some("first") => Position::First,
        Some("verdict") => Position::Verdict,
        Some(other) => {
            return Err(format!(
                "[probability] position = \"{other}\": use \"first\" (the first generated token) or \"verdict\" (the token where the parser read the verdict)"
            ))
        }
    };
    let whitespace = match table.whitespace.as_deref() {
        None | Some("exact") => Whitespace::Exact,
        Some("strip") => Whitespace::Strip,
        Some(other) => {
            return Err(format!(
                "[probability] whitespace = \"{other}\": use \"exact\" or \"strip\""
            ))
        }
    };
    let identical_tie = match table.identical.as_deref() {
        None | Some("call") => false,
        Some("tie") if mode == Mode::Pairwise => true,
        Some("tie") => return Err("[probability] identical = \"tie\" is for pairwise templates".into()),
        Some(other) => {
            return Err(format!(
                "[probability] identical = \"{other}\": use \"tie\" (a tie with P = 0.5, no call) or \"call\" (the default)"
            ))
        }
    };
    let top = table.top_logprobs.unwrap_or(DEFAULT_TOP);
    if !(1..=20).contains(&top) {
        return Err(format!(
            "[probability] top_logprobs = {top}: servers take 1 to 20"
        ));
    }
    if table.tokens.is_empty() {
        return Err("[probability] tokens is empty; map each verdict token to what it means, e.g. tokens = { A = \"response1\", B = \"response2\" }".into());
    }
    let mut tokens = Vec::with_capacity(table.tokens.len());
    for (token, value) in &table.tokens {
        let meaning = match (mode, value) {
            (Mode::Pairwise, toml::Value::String(s)) => match s.as_str() {
                "response1" => Meaning::Response(1),
                "response2" => Meaning::Response(2),
                "tie" => Meaning::Tie,
                other => return Err(format!(
                    "[probability] tokens: {token:?} = \"{other}\"; a pairwise token means \"response1\", \"response2\" or \"tie\""
                )),
            },
            (Mode::Pointwise, toml::Value::Integer(g)) => Meaning::Grade(*g as f64),
            (Mode::Pointwise, toml::Value::Float(g)) if g.is_finite() => Meaning::Grade(*g),
            (Mode::Pairwise, _) => return Err(format!(
                "[probability] tokens: {token:?} = {value}; a pairwise token means \"response1\", \"response2\" or \"tie\""
            )),
            (Mode::Pointwise, _) => return Err(format!(
                "[probability] tokens: {token:?} = {value}; a pointwise token maps to its grade, a number (\"4\" = 4)"
            )),
            (Mode::Ranking, _) => return Err(
                "[probability] is for pairwise and pointwise templates, not ranking ones".into(),
            ),
        };
        tokens.push((token.clone(), meaning));
    }
    if mode == Mode::Pairwise {
        let sides = |n| tokens.iter().any(|(_, m)| *m == Meaning::Response(n));
        if !(sides(1) && sides(2)) {
            return Err("[probability] tokens must name a token for \"response1\" and one for \"response2\"".into());
        }
    }
    Ok(Spec {
        position,
        tokens,
        whitespace,
        top,
        identical_tie,
    })
}

/// The table as TOML (`prompts show --toml`).
pub(super) fn to_toml(spec: &Spec) -> String {
    let tokens: Vec<String> = spec
        .tokens
        .iter()
        .map(|(t, m)| {
            let value = match m {
                Meaning::Response(n) => format!("\"response{n}\""),
                Meaning::Tie => "\"tie\"".into(),
                Meaning::Grade(g) => format!("{g}"),
            };
            format!("{t:?} = {value}")
        })
        .collect();
    let identical = if spec.identical_tie {
        "identical = \"tie\"\n"
    } else {
        ""
    };
    format!(
        "\n[probability]\nposition = {:?}\ntokens = {{ {} }}\nwhitespace = {:?}\ntop_logprobs = {}\n{identical}",
        spec.position.key(),
        tokens.join(", "),
        match spec.whitespace {
            Whitespace::Exact => "exact",
            Whitespace::Strip => "strip",
        },
        spec.top
    )
}
