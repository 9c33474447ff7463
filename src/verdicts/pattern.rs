//! The `regex` parser: a template's own regular expressions, one per verdict, and a policy
//! for which match decides. Published judge configurations are often written this way
//! (LLMBar reads `Output \(a\) is better.` first, then (b); JudgeBench's judges take the
//! unique `[[A>B]]`-style match), so a paper's reading can be reproduced exactly.

use super::verdict::{none, Verdict};
use regex::Regex;
use std::fmt;

/// Which match decides when several patterns match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchPolicy {
    /// The match that starts earliest in the text.
    First,
    /// The match that starts latest in the text.
    Last,
    /// Every match must name the same verdict, else no verdict.
    Unique,
    /// The patterns in the order listed: the first that matches anywhere decides (LLMBar's
    /// "try (a), then (b)").
    Priority,
}

impl MatchPolicy {
    pub const NAMES: &'static str = "first, last, unique, priority";

    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "first" => Some(Self::First),
            "last" => Some(Self::Last),
            "unique" => Some(Self::Unique),
            "priority" => Some(Self::Priority),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::First => "first",
            Self::Last => "last",
            Self::Unique => "unique",
            Self::Priority => "priority",
        }
    }
}

/// Verdict names in templates: `response1`, `response2`, `tie`.
pub fn verdict_from_name(name: &str) -> Option<i64> {
    match name {
        "response1" => Some(-1),
        "tie" => Some(0),
        "response2" => Some(1),
        _ => None,
    }
}

pub fn verdict_name(v: i64) -> &'static str {
    match v {
        -1 => "response1",
        0 => "tie",
        _ => "response2",
    }
}

#[derive(Debug, Clone)]
pub struct RegexParser {
    patterns: Vec<(i64, Regex)>,
    policy: MatchPolicy,
}

impl PartialEq for RegexParser {
    fn eq(&self, other: &Self) -> bool {
        self.policy == other.policy
            && self.patterns.len() == other.patterns.len()
            && self
                .patterns
                .iter()
                .zip(&other.patterns)
                .all(|(a, b)| a.0 == b.0 && a.1.as_str() == b.1.as_str())
    }
}

impl Eq for RegexParser {}

impl RegexParser {
    /// Compiles `(verdict, pattern)` pairs; the error names the pattern that does not compile.
    pub fn new(patterns: &[(i64, String)], policy: MatchPolicy) -> Result<Self, String> {
        if patterns.is_empty() {
            return Err("no patterns; give at least one per verdict".into());
        }
        let compiled = patterns
            .iter()
            .map(|(v, p)| {
                Regex::new(p).map(|re| (*v, re)).map_err(|e| {
                    // The regex crate's message spans lines (pattern, caret, error): keep
                    // the one-line error.
                    let text = e.to_string();
                    let why = text.lines().last().unwrap_or_default().trim();
                    format!(
                        "the {} pattern '{p}' is not a valid regular expression ({})",
                        verdict_name(*v),
                        why.trim_start_matches("error: ")
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            patterns: compiled,
            policy,
        })
    }

    pub fn policy(&self) -> MatchPolicy {
        self.policy
    }

    /// `(verdict, pattern)` in the order given.
    pub fn patterns(&self) -> impl Iterator<Item = (i64, &str)> {
        self.patterns.iter().map(|(v, re)| (*v, re.as_str()))
    }

    pub fn allows_tie(&self) -> bool {
        self.patterns.iter().any(|(v, _)| *v == 0)
    }

    pub fn parse(&self, text: &str) -> Verdict {
        self.read(text).0
    }

    /// The verdict and the span of the match that decided it.
    pub fn read(&self, text: &str) -> (Verdict, super::statements::Span) {
        let reason = || {
            format!(
                "no match for any pattern ({})",
                self.patterns
                    .iter()
                    .map(|(v, re)| format!("{} /{}/", verdict_name(*v), re.as_str()))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        if self.policy == MatchPolicy::Priority {
            return self
                .patterns
                .iter()
                .find_map(|(v, re)| re.find(text).map(|m| (*v, m)))
                .map_or_else(
                    || (none(reason()), None),
                    |(v, m)| (Verdict::Rated(v), Some((m.start(), m.end()))),
                );
        }
        // (start, listed index, verdict, end) of every match.
        let mut found: Vec<(usize, usize, i64, usize)> = self
            .patterns
            .iter()
            .enumerate()
            .flat_map(|(i, (v, re))| re.find_iter(text).map(move |m| (m.start(), i, *v, m.end())))
            .collect();
        found.sort_unstable();
        let pick = match self.policy {
            MatchPolicy::First => found.first(),
            MatchPolicy::Last => found.last(),
            _ => {
                let mut sides: Vec<i64> = found.iter().map(|f| f.2).collect();
                sides.sort_unstable();
                sides.dedup();
                if sides.len() > 1 {
                    return (
                        none(format!(
                            "patterns of different verdicts match ({}) and the policy is unique",
                            sides
                                .iter()
                                .map(|&v| verdict_name(v))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )),
                        None,
                    );
                }
                found.first()
            }
        };
        pick.map_or_else(
            || (none(reason()), None),
            |f| (Verdict::Rated(f.2), Some((f.0, f.3))),
        )
    }

    /// A text the pattern for `verdict` matches, for the simulated judge: the pattern with
    /// its escapes undone, when that reads back as the verdict.
    pub fn example(&self, verdict: i64) -> String {
        let Some((_, re)) = self.patterns.iter().find(|(v, _)| *v == verdict) else {
            return format!("(this template has no {} pattern)", verdict_name(verdict));
        };
        let mut out = String::new();
        let mut chars = re.as_str().trim_start_matches("(?i)").chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some('s') => out.push(' '),
                    Some('n') => out.push('\n'),
                    Some('d') => out.push('1'),
                    Some(other) => out.push(other),
                    None => {}
                },
                '^' | '$' | '?' | '*' | '+' => {}
                other => out.push(other),
            }
        }
        // `(?:^|\n)` (LLMBar's line start) comes out as "(:|\n)".
        let out = out.replace("(:|\n)", "");
        if self.parse(&out) == Verdict::Rated(verdict) {
            out
        } else {
            format!(
                "(no example for the {} pattern /{}/)",
                verdict_name(verdict),
                re.as_str()
            )
        }
    }
}

impl fmt::Display for RegexParser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "regex[{}](", self.policy.name())?;
        for (i, (v, re)) in self.patterns.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}=/{}/", verdict_name(*v), re.as_str())?;
        }
        f.write_str(")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn llmbar(policy: MatchPolicy) -> RegexParser {
        RegexParser::new(
            &[
                (-1, r"Output \(a\) is better.".into()),
                (1, r"Output \(b\) is better.".into()),
            ],
            policy,
        )
        .expect("valid patterns")
    }

    #[test]
    fn policies() {
        let text = "Output (b) is better. Later: Output (a) is better.";
        assert_eq!(
            llmbar(MatchPolicy::Priority).parse(text),
            Verdict::Rated(-1)
        );
        assert_eq!(llmbar(MatchPolicy::First).parse(text), Verdict::Rated(1));
        assert_eq!(llmbar(MatchPolicy::Last).parse(text), Verdict::Rated(-1));
        assert_eq!(
            llmbar(MatchPolicy::Unique).parse(text),
            Verdict::Unparseable(
                "patterns of different verdicts match (response1, response2) and the policy is unique".into()
            )
        );
        assert_eq!(
            llmbar(MatchPolicy::Unique).parse("Output (b) is better. Yes, Output (b) is better!"),
            Verdict::Rated(1)
        );
        assert!(
            matches!(llmbar(MatchPolicy::First).parse("neither"), Verdict::Unparseable(r) if r.starts_with("no match for any pattern"))
        );
    }

    #[test]
    fn examples_read_back_and_bad_patterns_are_named() {
        let p = llmbar(MatchPolicy::Priority);
        assert_eq!(p.example(-1), "Output (a) is better.");
        assert_eq!(p.parse(&p.example(1)), Verdict::Rated(1));
        assert!(p.example(0).contains("no tie pattern"));
        let err = RegexParser::new(&[(-1, "(".into())], MatchPolicy::First)
            .expect_err("an unbalanced parenthesis");
        assert!(
            err == "the response1 pattern '(' is not a valid regular expression (unclosed group)",
            "{err}"
        );
    }
}
