//! The kinds of rater (`basic`, `sc:N[:rule]`, the baselines) and how self-consistency
//! combines its samples (`Aggregation`).

use crate::error::input_error;
use anyhow::Result;
use std::fmt;

/// How self-consistency samples become one rating.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aggregation {
    /// The notebook's rule: mean > 0.5 → 1, mean < -0.5 → -1, else 0.
    Mean,
    /// The most frequent verdict (a plurality; its key is `majority`, as in `sc:5:majority`);
    /// a tie for most frequent gives 0. Not a jury's `Vote::StrictMajority`.
    Plurality,
    /// The verdict all samples agree on, else 0.
    Unanimous,
}

impl Aggregation {
    pub fn name(self) -> &'static str {
        match self {
            Aggregation::Mean => "mean",
            Aggregation::Plurality => "majority",
            Aggregation::Unanimous => "unanimous",
        }
    }

    pub fn apply(self, verdicts: &[i64]) -> i64 {
        if verdicts.is_empty() {
            return 0;
        }
        match self {
            Aggregation::Mean => {
                let mean = verdicts.iter().sum::<i64>() as f64 / verdicts.len() as f64;
                if mean > 0.5 {
                    1
                } else if mean < -0.5 {
                    -1
                } else {
                    0
                }
            }
            Aggregation::Plurality => crate::metrics::raters::unique_mode(
                verdicts.iter().map(|&v| (v.clamp(-1, 1) + 1) as usize),
                3,
            )
            .map_or(0, |i| i as i64 - 1),
            Aggregation::Unanimous => {
                if verdicts.iter().all(|&v| v == verdicts[0]) {
                    verdicts[0]
                } else {
                    0
                }
            }
        }
    }
}

/// Which rater.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RaterKind {
    Basic,
    SelfConsistency {
        samples: u32,
        rule: Aggregation,
    },
    /// -1 or 1 at random, seeded by the item id.
    Random {
        seed: u64,
    },
    /// Prefers the longer response (a tie when equally long).
    Longer,
    /// Always response 1.
    First,
}

impl RaterKind {
    /// `basic`, `sc:N`, `sc:N:mean|majority|unanimous`, `random`, `longer`, `first`.
    pub fn parse(text: &str, seed: u64) -> Result<Self> {
        let bad = || {
            input_error(format!(
                "unknown rater '{text}'; raters are basic, sc:N[:mean|majority|unanimous] (e.g. sc:5), random, longer, first"
            ))
        };
        Ok(match text {
            "basic" => RaterKind::Basic,
            "random" => RaterKind::Random { seed },
            "longer" => RaterKind::Longer,
            "first" => RaterKind::First,
            _ => {
                let mut parts = text.split(':');
                if parts.next() != Some("sc") {
                    return Err(bad());
                }
                let n = parts.next().unwrap_or("");
                let samples: u32 = n
                    .parse()
                    .ok()
                    .filter(|n| (1..=1000).contains(n))
                    .ok_or_else(|| {
                        input_error(format!(
                            "rater '{text}': the number of samples N in sc:N must be a whole number from 1 to 1000, not '{n}' (e.g. sc:5)"
                        ))
                    })?;
                let rule = match parts.next() {
                    None | Some("mean") => Aggregation::Mean,
                    Some("majority") => Aggregation::Plurality,
                    Some("unanimous") => Aggregation::Unanimous,
                    Some(other) => {
                        return Err(input_error(format!(
                            "rater '{text}': '{other}' is not a vote rule; use sc:{samples}:mean, sc:{samples}:majority or sc:{samples}:unanimous"
                        )))
                    }
                };
                if parts.next().is_some() {
                    return Err(bad());
                }
                RaterKind::SelfConsistency { samples, rule }
            }
        })
    }

    /// Calls per item (0 for the baselines).
    pub fn samples(self) -> u32 {
        match self {
            RaterKind::Basic => 1,
            RaterKind::SelfConsistency { samples, .. } => samples,
            _ => 0,
        }
    }

    pub fn is_baseline(self) -> bool {
        self.samples() == 0
    }
}

impl fmt::Display for RaterKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RaterKind::Basic => f.write_str("basic"),
            RaterKind::SelfConsistency {
                samples,
                rule: Aggregation::Mean,
            } => write!(f, "sc:{samples}"),
            RaterKind::SelfConsistency { samples, rule } => {
                write!(f, "sc:{samples}:{}", rule.name())
            }
            RaterKind::Random { .. } => f.write_str("random"),
            RaterKind::Longer => f.write_str("longer"),
            RaterKind::First => f.write_str("first"),
        }
    }
}
