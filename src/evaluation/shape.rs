//! What a response looks like (length, lists, headers, bold): the features the bias
//! diagnostics compare.

use regex::Regex;
use std::sync::LazyLock;

/// What a response looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Shape {
    pub chars: u32,
    /// A line that is a list item: `- `, `* `, `+ `, `1. ` or `1) `.
    pub list: bool,
    /// A Markdown header line: `#` to `######` and a space.
    pub header: bool,
    /// `**bold**` or `__bold__`.
    pub bold: bool,
    /// A list by AlpacaEval's `contains_list` (its evaluator measures' rule, `alpacaeval.rs`).
    pub alpaca_list: bool,
}

static LIST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+\S").unwrap_or_else(|_| unreachable!())
});
static HEADER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?m)^[ ]{0,3}#{1,6}[ \t]+\S").unwrap_or_else(|_| unreachable!()));
static BOLD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\*\*[^*\n]+\*\*|__[^_\n]+__").unwrap_or_else(|_| unreachable!()));

impl Shape {
    /// Each example's two responses' shapes, each distinct text's once (a response is in
    /// several pairs, and in both orders).
    pub fn of_examples(examples: &[crate::dataset::examples::Example]) -> Vec<[Shape; 2]> {
        let mut seen: std::collections::HashMap<
            &str,
            Shape,
            xxhash_rust::xxh3::Xxh3DefaultBuilder,
        > = Default::default();
        let mut out = Vec::with_capacity(examples.len());
        for e in examples {
            let mut shape = |text| *seen.entry(text).or_insert_with(|| Shape::of(text));
            out.push([shape(e.response1.as_str()), shape(e.response2.as_str())]);
        }
        out
    }

    pub fn of(text: &str) -> Self {
        Self {
            chars: u32::try_from(text.chars().count()).unwrap_or(u32::MAX),
            list: LIST.is_match(text),
            header: HEADER.is_match(text),
            bold: BOLD.is_match(text),
            alpaca_list: super::alpacaeval::contains_list(text),
        }
    }
}
