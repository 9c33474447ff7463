//! Raters: examples × judge → ratings. Basic (one call), self-consistency (N calls,
//! aggregated) and the baselines a judge must beat (random, longer, first).
//!
//! Calls go out through `judge::execute` (async lives there) a block of items at a time across
//! the configurations, and the caller may stop the run after any rating (`calls.rs`);
//! everything here is synchronous aggregation of the outcomes, so each rating keeps its raw
//! completions, parse outcomes, latencies and tokens until the caller's `Answers` takes the
//! texts (a run directory writes them out as they come, so a run of millions of calls holds no
//! answer text).

mod aggregate;
mod calls;
mod counted;
pub mod jury;
mod kept;
mod kind;
mod pointwise;
pub mod probability;
pub mod rewardbench2;
mod schedule;

pub use aggregate::aggregate;
pub use calls::{
    calls_per_config, for_each_call, for_each_part_call, messages, Answers, Flow, Part,
};
pub use counted::Counted;
pub use kept::{usage, CallTally, RatingRow};
pub use kind::{Aggregation, RaterKind};
pub use pointwise::{aggregate_pointwise, compare_grades, Missing, PointwiseRule};
pub use schedule::{rate, rate_all, rate_parts, Blocks};

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
    /// The judge was stopped while thinking (`max_tokens`): no answer to read.
    CutOff,
    /// No call produced an answer.
    Failed,
    /// No call was sent: the run stopped before this item's block.
    NotAsked,
}

impl Status {
    /// Rated when there is a rating; else no verdict when an answer came back and could not
    /// be read; else cut off when the answers were cut off while thinking; else the calls
    /// failed.
    pub fn of(rating: Option<i64>, samples: &[SampleTrace]) -> Self {
        if rating.is_some() {
            Status::Rated
        } else if samples.iter().any(|s| s.completion.is_some() && !s.cut_off) {
            Status::NoVerdict
        } else if samples.iter().any(|s| s.cut_off) {
            Status::CutOff
        } else {
            Status::Failed
        }
    }

    pub fn key(self) -> &'static str {
        match self {
            Status::Rated => "rated",
            Status::NoVerdict => "no_verdict",
            Status::CutOff => "cut_off",
            Status::Failed => "call_failed",
            Status::NotAsked => "not_asked",
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
    /// The answer was cut off while the judge was thinking (`verdicts::thinking`).
    pub cut_off: bool,
    /// What the answer's logprobs say (a template with `[probability]`), or why they say
    /// nothing.
    pub probability: Option<crate::verdicts::probability::Reading>,
    pub probability_problem: Option<String>,
}

/// Calls, cache hits and tokens behind some ratings.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    pub calls: u64,
    pub cache_hits: u64,
    pub tokens_in: u64,
    pub tokens_out: u64,
    /// Of `tokens_out`, the thinking's.
    pub tokens_reasoning: u64,
    /// Requests behind the answers (samples asked together with `n` are one), and their
    /// latencies added up, in whole microseconds (so any order of adding gives the same sum).
    pub requests: u64,
    pub request_micros: u64,
}

impl Usage {
    /// The requests' latencies added up, in seconds.
    pub fn request_seconds(&self) -> f64 {
        self.request_micros as f64 / 1e6
    }

    /// Seconds (as `request_seconds` wrote them) back in microseconds.
    pub fn micros(seconds: f64) -> u64 {
        (seconds * 1e6).round().max(0.0) as u64
    }

    /// Both together (a jury's, from its members').
    /// What these calls cost in dollars at `price`: nothing called costs nothing; without a
    /// price, unknown. Answers from the cache count at what they cost when first paid.
    pub fn usd(&self, price: Option<crate::judge::Price>) -> Option<f64> {
        if self.calls == 0 {
            Some(0.0)
        } else {
            price.map(|p| p.usd(self.tokens_in, self.tokens_out))
        }
    }

    pub fn plus(self, o: Usage) -> Usage {
        Usage {
            calls: self.calls + o.calls,
            cache_hits: self.cache_hits + o.cache_hits,
            tokens_in: self.tokens_in + o.tokens_in,
            tokens_out: self.tokens_out + o.tokens_out,
            tokens_reasoning: self.tokens_reasoning + o.tokens_reasoning,
            requests: self.requests + o.requests,
            request_micros: self.request_micros + o.request_micros,
        }
    }
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
    /// P(response 2, as shown, is the better one), from the configuration's probability
    /// source (`probability`); why not, when its template reads logprobs and found none.
    pub p_response2: Option<f64>,
    pub p_problem: Option<String>,
    /// Pointwise with logprobs: each response's expected grade.
    pub expected_grades: Option<(Option<f64>, Option<f64>)>,
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
mod tests;
