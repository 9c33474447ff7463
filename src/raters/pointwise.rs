//! Pointwise ratings: each response graded alone (one call per response, shared by every
//! item that shows it), the grades compared with the tie margin and the missing-grade rule.

use super::aggregate::failed_trace;
use super::kind::{Aggregation, RaterKind};
use super::{Rating, SampleTrace, Status};
use crate::error::input_error;
use crate::judge::{CallError, Completion};
use crate::prompts::Template;
use crate::verdicts::thinking::Answer;
use anyhow::Result;

/// What a pointwise configuration does with its grades.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointwiseRule {
    /// Grades this close are a tie.
    pub tie_margin: f64,
    pub missing: Missing,
}

impl Default for PointwiseRule {
    fn default() -> Self {
        Self {
            tie_margin: 0.0,
            missing: Missing::Drop,
        }
    }
}

/// A response without a grade (unreadable answer or failed call).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Missing {
    /// The pair has no verdict (honest).
    #[default]
    Drop,
    /// The response gets the scale's lowest grade (context-bench's convention: a rating of 1
    /// when no digit is found, 0 when the call fails).
    Lowest,
}

impl std::str::FromStr for Missing {
    type Err = String;
    fn from_str(name: &str) -> std::result::Result<Self, String> {
        match name {
            "drop" => Ok(Missing::Drop),
            "lowest" => Ok(Missing::Lowest),
            other => Err(format!(
                "'{other}': use drop (no verdict when a grade is missing) or lowest (the scale's lowest grade, context-bench's rule)"
            )),
        }
    }
}

impl Missing {
    /// A rule as run.json keeps it (a run directory being read back).
    pub fn parse(name: &str) -> Result<Self> {
        name.parse()
            .map_err(|e: String| input_error(format!("run.json's missing-grade rule {e}")))
    }

    pub fn key(self) -> &'static str {
        match self {
            Missing::Drop => "drop",
            Missing::Lowest => "lowest",
        }
    }
}

/// One sample's grade read from its answer alone (never from the thinking), checked against
/// the template's scale.
fn grade_trace(template: &Template, side: u8, i: usize, (outcome, shared): Graded) -> SampleTrace {
    let scale = template.scale;
    let mut t = match outcome {
        Ok(c) => {
            // The grade is read from the answer alone, never from the thinking.
            let answer = match c.answer() {
                Answer::Text { answer, .. } => Some(answer),
                Answer::CutOff { .. } => None,
            };
            let read = answer.map(|a| {
                template.parser.grade(a).and_then(|g| match scale {
                    Some((lo, hi)) if !(lo..=hi).contains(&g) => {
                        Err(format!("grade {g} is outside {lo} to {hi}"))
                    }
                    _ => Ok(g),
                })
            });
            let (grade, problem) = match read {
                Some(Ok(g)) => (Some(g), None),
                Some(Err(why)) => (None, Some(format!("unparseable: {why}"))),
                None => (None, Some(super::aggregate::cut_off_problem(&c))),
            };
            let cut_off = answer.is_none();
            SampleTrace {
                sample: i as u32,
                side: Some(side),
                grade,
                shared: false,
                completion: Some(c),
                verdict: None,
                span: None,
                problem,
                error: None,
                cut_off,
                probability: None,
                probability_problem: None,
            }
        }
        Err(e) => failed_trace(i as u32, Some(side), e),
    };
    t.shared = shared;
    t
}

/// The pair verdict from two grades: response 2 better when its grade is higher by more than
/// the margin, response 1 when lower, else a tie.
pub fn compare_grades(grade1: f64, grade2: f64, tie_margin: f64) -> i64 {
    let d = grade2 - grade1;
    if d.abs() <= tie_margin {
        0
    } else if d > 0.0 {
        1
    } else {
        -1
    }
}

/// One pointwise call's outcome, with whether another item already counted it.
pub(super) type Graded = (Result<Completion, CallError>, bool);

/// Folds the grading calls of one pair (samples of response 1, then of response 2) into a
/// rating: `sc:N:mean` (and `basic`) average each response's grades and compare;
/// `sc:N:majority`/`unanimous` compare per sample and vote.
pub fn aggregate_pointwise(
    id: &str,
    kind: RaterKind,
    template: &Template,
    rule: PointwiseRule,
    side1: Vec<Graded>,
    side2: Vec<Graded>,
) -> Rating {
    let scale = template.scale;
    let trace = |side: u8, (i, graded): (usize, Graded)| grade_trace(template, side, i, graded);
    let mut samples: Vec<SampleTrace> =
        side1.into_iter().enumerate().map(|x| trace(1, x)).collect();
    samples.extend(side2.into_iter().enumerate().map(|x| trace(2, x)));
    let lowest = scale.map(|s| s.0);
    // A sample's grade under the missing-grade rule.
    let under_rule = |s: &SampleTrace| match (s.grade, rule.missing) {
        (Some(g), _) => Some(g),
        (None, Missing::Lowest) => lowest,
        (None, Missing::Drop) => None,
    };
    let of_side = |side: u8| samples.iter().filter(move |s| s.side == Some(side));
    let mean = |grades: Vec<f64>| {
        (!grades.is_empty()).then(|| grades.iter().sum::<f64>() / grades.len() as f64)
    };
    let raw = (
        mean(of_side(1).filter_map(|s| s.grade).collect()),
        mean(of_side(2).filter_map(|s| s.grade).collect()),
    );
    let rule_of = match kind {
        RaterKind::SelfConsistency { rule, .. } => rule,
        _ => Aggregation::Mean,
    };
    let (rating, used) = match rule_of {
        Aggregation::Mean => {
            let g1 = mean(of_side(1).filter_map(under_rule).collect());
            let g2 = mean(of_side(2).filter_map(under_rule).collect());
            match (g1, g2) {
                (Some(a), Some(b)) => (
                    Some(compare_grades(a, b, rule.tie_margin)),
                    of_side(1)
                        .chain(of_side(2))
                        .filter(|s| under_rule(s).is_some())
                        .count() as u32,
                ),
                _ => (None, 0),
            }
        }
        vote => {
            let verdicts: Vec<i64> = of_side(1)
                .zip(of_side(2))
                .filter_map(|(a, b)| {
                    Some(compare_grades(
                        under_rule(a)?,
                        under_rule(b)?,
                        rule.tie_margin,
                    ))
                })
                .collect();
            let used = verdicts.len() as u32;
            match verdicts.len() {
                0 => (None, 0),
                1 => (Some(verdicts[0]), used),
                _ => (Some(vote.apply(&verdicts)), used),
            }
        }
    };
    for s in samples.iter_mut() {
        if s.problem.is_some() && rule.missing == Missing::Lowest && lowest.is_some() {
            s.problem = s.problem.take().map(|p| format!("{p} (graded lowest)"));
        }
    }
    let status = Status::of(rating, &samples);
    Rating {
        id: id.to_string(),
        rating,
        status,
        used,
        samples,
        grades: Some(raw),
        p_response2: None,
        p_problem: None,
        expected_grades: None,
    }
}
