//! Pairwise ratings from call outcomes: the baselines (no call), one verdict (`basic`) or
//! several combined (self-consistency, by the rater's `Aggregation`).

use super::kind::{Aggregation, RaterKind};
use super::{Rating, SampleTrace, Status};
use crate::dataset::examples::Example;
use crate::dataset::select::stable_hash;
use crate::judge::{CallError, Completion};
use crate::prompts::Template;
use crate::verdicts::thinking::Answer;
use crate::verdicts::Verdict;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub(super) fn baseline(kind: RaterKind, example: &Example) -> i64 {
    match kind {
        RaterKind::Random { seed } => {
            // A ChaCha8 draw seeded from the hash, never a bit of the hash itself: FNV-1a's
            // low bit is the parity of the id's bytes, the same for "x#ab" and "x#ba", which
            // made the baseline pick the same position in both orders of every pair.
            let mut rng = ChaCha8Rng::seed_from_u64(stable_hash(&[
                b"random-rater",
                &seed.to_le_bytes(),
                example.id.as_bytes(),
            ]));
            if rng.random_bool(0.5) {
                -1
            } else {
                1
            }
        }
        RaterKind::Longer => {
            let (a, b) = (
                example.response1.chars().count(),
                example.response2.chars().count(),
            );
            (b as i64 - a as i64).signum()
        }
        _ => -1,
    }
}

/// Folds a configuration's sample outcomes for one item into a rating.
pub fn aggregate(
    id: &str,
    kind: RaterKind,
    template: &Template,
    outcomes: Vec<Result<Completion, CallError>>,
) -> Rating {
    let samples: Vec<SampleTrace> = outcomes
        .into_iter()
        .enumerate()
        .map(|(i, outcome)| match outcome {
            Ok(c) => {
                // The verdict is read from the answer alone, never from the thinking.
                let (verdict, span, problem, cut_off) = match c.answer() {
                    Answer::Text { answer, offset, .. } => {
                        let (verdict, span) = template.parser.read(answer);
                        let span = span.map(|(a, b)| (a + offset, b + offset));
                        match verdict {
                            Verdict::Rated(v) => (Some(v), span, None, false),
                            Verdict::Unparseable(why) => {
                                (None, span, Some(format!("unparseable: {why}")), false)
                            }
                        }
                    }
                    Answer::CutOff { .. } => (None, None, Some(cut_off_problem(&c)), true),
                };
                SampleTrace {
                    sample: i as u32,
                    side: None,
                    grade: None,
                    shared: false,
                    completion: Some(c),
                    verdict,
                    span,
                    problem,
                    error: None,
                    cut_off,
                    probability: None,
                    probability_problem: None,
                }
            }
            Err(e) => failed_trace(i as u32, None, e),
        })
        .collect();
    let verdicts: Vec<i64> = samples.iter().filter_map(|s| s.verdict).collect();
    let used = verdicts.len() as u32;
    let rule = match kind {
        RaterKind::SelfConsistency { rule, .. } => rule,
        _ => Aggregation::Mean,
    };
    let rating = match verdicts.as_slice() {
        [] => None,
        [one] => Some(*one),
        // A four-way pick has no mean: the samples' most frequent pick, none when several
        // are (or, unanimous, when any sample differs).
        _ if template.mode == crate::prompts::Mode::Ranking => match rule {
            Aggregation::Unanimous => verdicts
                .iter()
                .all(|&v| v == verdicts[0])
                .then_some(verdicts[0]),
            _ => crate::metrics::raters::unique_mode(
                verdicts.iter().map(|&v| v.clamp(0, 3) as usize),
                4,
            )
            .map(|slot| slot as i64),
        },
        _ => Some(rule.apply(&verdicts)),
    };
    let status = Status::of(rating, &samples);
    Rating {
        id: id.to_string(),
        rating,
        status,
        used,
        samples,
        grades: None,
        p_response2: None,
        p_problem: None,
        expected_grades: None,
    }
}

/// Why an answer cut off while thinking has no verdict, and what to do about it.
pub(super) fn cut_off_problem(c: &Completion) -> String {
    let thinking = if c.tokens_reasoning > 0 {
        format!(" ({} of them thinking)", c.tokens_reasoning)
    } else {
        String::new()
    };
    format!(
        "cut off while thinking after {} tokens{thinking}: raise --max-tokens or lower --reasoning-effort",
        c.tokens_out
    )
}

pub(super) fn failed_trace(sample: u32, side: Option<u8>, e: CallError) -> SampleTrace {
    SampleTrace {
        sample,
        side,
        grade: None,
        shared: false,
        completion: None,
        verdict: None,
        span: None,
        problem: Some(format!("call failed: {e}")),
        error: Some(e),
        cut_off: false,
        probability: None,
        probability_problem: None,
    }
}
