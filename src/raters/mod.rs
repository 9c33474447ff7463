//! Raters: examples × judge → ratings. Basic (one call), self-consistency (N calls,
//! aggregated) and the baselines a judge must beat (random, longer, first).
//!
//! Calls go out through `judge::execute` (async lives there) a batch at a time (`calls.rs`);
//! everything here is synchronous aggregation of the outcomes, so each rating keeps its raw
//! completions, parse outcomes, latencies and tokens until the caller's `Answers` takes the
//! texts (a run directory writes them out as they come, so a run of millions of calls holds no
//! answer text).

mod aggregate;
mod calls;
mod kept;
mod kind;
mod pointwise;
pub mod rewardbench2;

pub use aggregate::aggregate;
#[cfg(test)]
use aggregate::baseline;
pub use calls::{
    calls_per_config, calls_per_part, for_each_call, for_each_part_call, messages, rate, rate_all,
    rate_parts, Answers, Part,
};
pub use kept::{usage, CallTally, RatingRow};
pub use kind::{Aggregation, RaterKind};
#[cfg(test)]
use pointwise::Graded;
pub use pointwise::{aggregate_pointwise, compare_grades, Missing, PointwiseRule};

use crate::judge::{CallError, Completion, Judge, Params};
use crate::prompts::Template;
use std::fmt;
use std::sync::Arc;

/// One judge configuration: prompt template (with its parser) × rater × judge.
#[derive(Clone)]
pub struct Config {
    pub name: String,
    pub template: Template,
    pub rater: RaterKind,
    pub judge: Arc<dyn Judge>,
    pub params: Arc<Params>,
    /// Pointwise templates: tie margin and missing-grade rule.
    pub pointwise: PointwiseRule,
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("name", &self.name)
            .field("rater", &self.rater.to_string())
            .finish()
    }
}

/// How an item ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// A verdict (-1, 0 or 1).
    Rated,
    /// Answers came back but none could be read.
    NoVerdict,
    /// No call produced an answer.
    Failed,
}

impl Status {
    /// Rated when there is a rating; else no verdict when any call was answered; else the
    /// calls failed.
    pub fn of(rating: Option<i64>, samples: &[SampleTrace]) -> Self {
        if rating.is_some() {
            Status::Rated
        } else if samples.iter().any(|s| s.completion.is_some()) {
            Status::NoVerdict
        } else {
            Status::Failed
        }
    }

    pub fn key(self) -> &'static str {
        match self {
            Status::Rated => "rated",
            Status::NoVerdict => "no_verdict",
            Status::Failed => "call_failed",
        }
    }
}

/// One sample's trace: the answer (or the failure) and what the parser made of it.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleTrace {
    pub sample: u32,
    /// Pointwise: the response graded (1 or 2, in the order shown).
    pub side: Option<u8>,
    /// Pointwise: the grade read (inside the template's scale).
    pub grade: Option<f64>,
    /// The same call serves another item too (a pointwise grade of a response shown in both
    /// orders): counted once in the usage, under the first item.
    pub shared: bool,
    pub completion: Option<Completion>,
    pub verdict: Option<i64>,
    /// Where in the completion the parser read the verdict (byte offsets).
    pub span: Option<(usize, usize)>,
    /// Why there is no verdict: the parser's reason or the call's error.
    pub problem: Option<String>,
    /// The call's error, when the call failed.
    pub error: Option<CallError>,
}

/// Calls, cache hits and tokens behind some ratings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub calls: u64,
    pub cache_hits: u64,
    pub tokens_in: u64,
    pub tokens_out: u64,
}

/// The rating of one item by one configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Rating {
    pub id: String,
    pub rating: Option<i64>,
    pub status: Status,
    /// Samples whose verdict went into the rating.
    pub used: u32,
    pub samples: Vec<SampleTrace>,
    /// Pointwise: the grades of response 1 and 2 (mean over samples), before the missing-grade
    /// policy.
    pub grades: Option<(Option<f64>, Option<f64>)>,
}

impl Rating {
    /// Latency and tokens summed over the samples.
    pub fn totals(&self) -> (f64, u64, u64) {
        self.samples
            .iter()
            .filter_map(|s| s.completion.as_ref())
            .fold((0.0, 0, 0), |(l, i, o), c| {
                (l + c.latency_ms, i + c.tokens_in, o + c.tokens_out)
            })
    }

    /// The first problem among the samples, for a one-line reason.
    pub fn reason(&self) -> Option<&str> {
        self.samples.iter().find_map(|s| s.problem.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregation_rules() {
        assert_eq!(Aggregation::Mean.apply(&[1, 1, 0]), 1);
        assert_eq!(Aggregation::Mean.apply(&[1, -1, 1]), 0);
        assert_eq!(Aggregation::Mean.apply(&[-1, -1, -1, 1]), 0);
        assert_eq!(Aggregation::Mean.apply(&[-1, -1, -1, -1, 1]), -1);
        assert_eq!(Aggregation::Majority.apply(&[1, 1, -1]), 1);
        assert_eq!(Aggregation::Majority.apply(&[1, -1]), 0);
        assert_eq!(Aggregation::Unanimous.apply(&[1, 1, 1]), 1);
        assert_eq!(Aggregation::Unanimous.apply(&[1, 1, -1]), 0);
    }

    /// `n` pairs "{prefix}{i}" asking "question {i}", shown in both orders.
    pub(super) fn both_orders(n: usize, prefix: &str) -> Vec<crate::dataset::examples::Example> {
        let pairs = (0..n)
            .map(|i| crate::dataset::pairs::Pair {
                id: format!("{prefix}{i}"),
                subset: "s".into(),
                prompt: format!("question {i}"),
                first: "good".into(),
                second: "bad".into(),
                gold: -1,
                reference: None,
                randomize: true,
                votes: Vec::new(),
            })
            .collect();
        crate::dataset::examples::build(pairs, 42, true)
    }

    /// Found in a real session: the random baseline agreed with itself across the two orders
    /// of no pair at all (consistency 0.0 on 20 pairs), because it read the low bit of an
    /// FNV-1a hash, which is the parity of the id's bytes.
    #[test]
    fn the_random_baseline_is_random_in_each_order() {
        let items = both_orders(1000, "llmbar-natural-");
        let kind = RaterKind::parse("random", 42).expect("random");
        let verdicts: Vec<i64> = items.iter().map(|e| baseline(kind, e)).collect();
        // Un-swapped, the two orders agree when the raw verdicts differ.
        let consistent = verdicts.chunks(2).filter(|v| v[0] == -v[1]).count();
        assert!(
            (430..=570).contains(&consistent),
            "{consistent} of 1000 pairs"
        );
        let firsts = verdicts.iter().filter(|&&v| v == -1).count();
        assert!(
            (930..=1070).contains(&firsts),
            "{firsts} of 2000 for response 1"
        );
    }

    fn graded(texts: &[&str]) -> Vec<Graded> {
        texts
            .iter()
            .map(|t| {
                (
                    Ok(Completion {
                        text: t.to_string(),
                        tokens_in: 1,
                        tokens_out: 1,
                        latency_ms: 0.0,
                        cached: false,
                    }),
                    false,
                )
            })
            .collect()
    }

    /// `sc:N` (mean) averages each response's grades, `sc:N:majority` votes on per-sample
    /// comparisons; the missing-grade rule and the tie margin apply to both.
    #[test]
    fn pointwise_aggregation_rules() {
        let t = crate::prompts::resolve("reference_1-5").expect("built-in");
        let rule = PointwiseRule::default();
        let sc = |name: &str| RaterKind::parse(name, 0).expect("rater");
        // Response 1: 5, 1, 1 (mean 2.33); response 2: 2, 2, 2 (mean 2).
        let (a, b) = (graded(&["5", "1", "1"]), graded(&["2", "2", "2"]));
        let mean = aggregate_pointwise("x", sc("sc:3"), &t, rule, a.clone(), b.clone());
        assert_eq!((mean.rating, mean.used), (Some(-1), 6));
        let grades = mean.grades.expect("grades");
        assert!((grades.0.expect("g1") - 7.0 / 3.0).abs() < 1e-12 && grades.1 == Some(2.0));
        // Per sample: 1 wins once, 2 wins twice → majority says response 2.
        let vote = aggregate_pointwise("x", sc("sc:3:majority"), &t, rule, a, b);
        assert_eq!((vote.rating, vote.used), (Some(1), 3));
        // A margin of 0.5 makes 2.33 vs 2 a tie.
        let wide = PointwiseRule {
            tie_margin: 0.5,
            ..rule
        };
        let tie = aggregate_pointwise(
            "x",
            sc("sc:3"),
            &t,
            wide,
            graded(&["5", "1", "1"]),
            graded(&["2", "2", "2"]),
        );
        assert_eq!(tie.rating, Some(0));
        // A grade outside the scale is no grade; drop leaves no verdict, lowest grades it 1.
        let (a, b) = (graded(&["9"]), graded(&["2"]));
        let dropped = aggregate_pointwise("x", sc("basic"), &t, rule, a.clone(), b.clone());
        assert_eq!((dropped.rating, dropped.status), (None, Status::NoVerdict));
        assert_eq!(
            dropped.reason(),
            Some("unparseable: grade 9 is outside 1 to 5")
        );
        let lowest = PointwiseRule {
            missing: Missing::Lowest,
            ..rule
        };
        let low = aggregate_pointwise("x", sc("basic"), &t, lowest, a, b);
        assert_eq!((low.rating, low.status), (Some(1), Status::Rated));
        assert_eq!(
            low.grades,
            Some((None, Some(2.0))),
            "raw grades keep the gap"
        );
    }

    #[test]
    fn rater_names_round_trip() {
        for name in [
            "basic",
            "sc:5",
            "sc:3:majority",
            "sc:7:unanimous",
            "random",
            "longer",
            "first",
        ] {
            assert_eq!(RaterKind::parse(name, 0).expect(name).to_string(), name);
        }
        for bad in ["sc", "sc:0", "sc:x", "sc:3:vote", "best", "sc:3:mean:x"] {
            assert!(RaterKind::parse(bad, 0).is_err(), "{bad}");
        }
    }
}
