//! What a run keeps of its ratings once their answers are written out: a `RatingRow` per item
//! (its rating, status, grades and each sample's verdict, no text) and a `CallTally` per
//! configuration (what its calls cost and how they failed). A `Rating` holds every sample's
//! answer and trace (about 1.2 KB for sc:5 before the texts); its row holds about 150 bytes.

use super::{Rating, Status, Usage};
use crate::judge::CallError;

/// A rating without its answers: one row of `ratings.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct RatingRow {
    pub rating: Option<i64>,
    pub status: Status,
    /// Samples whose verdict went into the rating.
    pub used: u32,
    /// Each sample's verdict (pointwise: each call's, response 1's then response 2's).
    pub verdicts: Box<[Option<i64>]>,
    /// The first problem among the samples.
    pub reason: Option<Box<str>>,
    /// Pointwise: the grades of response 1 and 2.
    pub grades: Option<(Option<f64>, Option<f64>)>,
    /// P(response 2 better), and why a template that reads logprobs found none.
    pub p_response2: Option<f64>,
    pub p_problem: Option<Box<str>>,
    /// Pointwise with logprobs: each response's expected grade.
    pub expected_grades: Option<(Option<f64>, Option<f64>)>,
}

impl From<&Rating> for RatingRow {
    fn from(r: &Rating) -> Self {
        Self {
            rating: r.rating,
            status: r.status,
            used: r.used,
            verdicts: r.samples.iter().map(|s| s.verdict).collect(),
            reason: r.reason().map(Box::from),
            grades: r.grades,
            p_response2: r.p_response2,
            p_problem: r.p_problem.as_deref().map(Box::from),
            expected_grades: r.expected_grades,
        }
    }
}

impl RatingRow {
    /// Samples behind the rating (its lines in completions.jsonl).
    pub fn samples(&self) -> usize {
        self.verdicts.len()
    }
}

/// A configuration's calls, counted rating by rating: their cost and their failures.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallTally {
    /// Calls made, cache hits and tokens (a shared pointwise grade counted once).
    pub usage: Usage,
    /// Calls behind the ratings (a shared grade once per item that uses it), and how many of
    /// them were answered.
    pub calls: usize,
    pub answered: usize,
    /// Calls the cache lacked under --offline.
    pub missed: usize,
    /// Calls not sent after the server refused the configuration.
    pub not_sent: usize,
    /// Calls refused (HTTP 401/403/404) and the first refusal.
    pub refused: usize,
    pub first_refusal: Option<CallError>,
    /// The first error of any call.
    pub first_error: Option<CallError>,
    /// The endpoint stopped answering: (endpoint, reason).
    pub gone: Option<(String, String)>,
    /// Answers cut off while thinking.
    pub cut_off: usize,
    /// Calls sent without a parameter the server refused ("without 'temperature'"), counted.
    pub sent_without: std::collections::BTreeMap<String, usize>,
}

impl CallTally {
    /// A jury's tally: no call of its own, its members' usage added up (on either form).
    pub fn of_members<'a>(members: impl Iterator<Item = &'a CallTally>) -> Self {
        CallTally {
            usage: members
                .map(|t| t.usage)
                .fold(super::Usage::default(), super::Usage::plus),
            ..CallTally::default()
        }
    }

    pub fn add(&mut self, r: &Rating) {
        for s in &r.samples {
            if !s.shared {
                self.usage.calls += 1;
                if let Some(done) = &s.completion {
                    self.usage.cache_hits += u64::from(done.cached);
                    self.usage.tokens_in += done.tokens_in;
                    self.usage.tokens_out += done.tokens_out;
                    self.usage.tokens_reasoning += done.tokens_reasoning;
                    self.usage.requests += u64::from(done.choice == 0);
                    self.usage.request_micros += (done.latency_ms * 1000.0).round().max(0.0) as u64;
                }
            }
            self.calls += 1;
            self.answered += usize::from(s.completion.is_some());
            self.cut_off += usize::from(s.cut_off);
            for adjusted in s.completion.iter().flat_map(|c| &c.sent_without) {
                *self.sent_without.entry(adjusted.clone()).or_default() += 1;
            }
            if self.first_error.is_none() {
                self.first_error = s.error.clone();
            }
            match &s.error {
                Some(CallError::CacheMiss) => self.missed += 1,
                Some(CallError::NotSent(_)) => self.not_sent += 1,
                Some(CallError::EndpointGone { endpoint, reason }) => {
                    self.gone
                        .get_or_insert_with(|| (endpoint.clone(), reason.clone()));
                }
                Some(e) if e.rejects_configuration() => {
                    self.refused += 1;
                    self.first_refusal.get_or_insert_with(|| e.clone());
                }
                _ => {}
            }
        }
    }

    /// The tally of some ratings.
    pub fn of<'a>(ratings: impl IntoIterator<Item = &'a Rating>) -> Self {
        let mut t = Self::default();
        for r in ratings {
            t.add(r);
        }
        t
    }
}

/// Adds up the calls behind the ratings.
pub fn usage(ratings: &[Rating]) -> Usage {
    CallTally::of(ratings).usage
}
