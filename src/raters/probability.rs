//! Every probability source in one place: after a rating is made, its P(response 2 better)
//! (`p_response2`, in the item's order) from
//! - **logprobs**: a template with `[probability]` reads each answer's token logprobs
//!   (`verdicts::probability`); pairwise, the mean over the samples; pointwise, each
//!   response's grade distribution (the samples' mixture) and P(G2 > G1) + ½ P(G2 = G1);
//! - **votes**: `sc:N` (N ≥ 2) without logprobs: the share of the samples' verdicts for
//!   response 2, a tie counting half;
//! - **scores**: a reward model's scores (`scores:FILE`): the Bradley–Terry probability
//!   σ(s2 − s1) at scale 1, the reward models' own training objective.

use super::kind::RaterKind;
use super::{Config, Rating};
use crate::prompts::Mode;
use crate::verdicts::probability::{p_second_better, Reading};

/// Where a configuration's probabilities come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Logprobs,
    Votes,
    Scores,
    /// A jury's voters (`raters::jury`).
    Jury,
}

impl Source {
    pub fn key(self) -> &'static str {
        match self {
            Source::Logprobs => "logprobs",
            Source::Votes => "votes",
            Source::Scores => "scores",
            Source::Jury => "jury",
        }
    }

    /// How the probability is made, for reports.
    pub fn describe(self) -> &'static str {
        match self {
            Source::Logprobs => "the answer's token logprobs",
            Source::Votes => "the share of sc:N votes for response 2 (a tie counts half)",
            Source::Scores => "σ(score2 − score1), the Bradley–Terry probability at scale 1",
            Source::Jury => "a jury's voters' share for response 2 (a tie counts half; vote = probability: the members' mean)",
        }
    }

    pub fn from_key(key: &str) -> Option<Self> {
        [
            Source::Logprobs,
            Source::Votes,
            Source::Scores,
            Source::Jury,
        ]
        .into_iter()
        .find(|s| s.key() == key)
    }
}

/// The probability source of a configuration, if it has one.
pub fn source(config: &Config) -> Option<Source> {
    if config.rater.is_baseline() || config.template.mode == Mode::Ranking {
        return None;
    }
    if config.template.probability.is_some() {
        Some(Source::Logprobs)
    } else if config.template.mode == Mode::Pointwise && config.judge.is_order_blind() {
        Some(Source::Scores)
    } else if config.template.mode == Mode::Pairwise
        && matches!(config.rater, RaterKind::SelfConsistency { .. })
        && config.rater.samples() >= 2
    {
        Some(Source::Votes)
    } else {
        None
    }
}

fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// Sets the rating's probability (and each sample's reading) from its source.
pub fn attach(config: &Config, rating: &mut Rating) {
    match source(config) {
        Some(Source::Logprobs) => logprobs(config, rating),
        Some(Source::Votes) => {
            let verdicts: Vec<f64> = rating
                .samples
                .iter()
                .filter_map(|s| s.verdict)
                .map(|v| (v.signum() as f64 + 1.0) / 2.0)
                .collect();
            rating.p_response2 = mean(&verdicts);
        }
        Some(Source::Scores) => {
            if let Some((Some(g1), Some(g2))) = rating.grades {
                rating.p_response2 = Some(1.0 / (1.0 + (g1 - g2).exp()));
            }
        }
        // A jury is never a configuration that calls (`jury::rows` sets its probability).
        Some(Source::Jury) | None => {}
    }
}

fn logprobs(config: &Config, rating: &mut Rating) {
    let Some(spec) = &config.template.probability else {
        return;
    };
    for s in &mut rating.samples {
        let Some(c) = &s.completion else {
            continue;
        };
        match spec.read(c.logprobs.as_ref(), &c.text, s.span) {
            Ok(reading) => s.probability = Some(reading),
            Err(why) => s.probability_problem = Some(why),
        }
    }
    let problem = || {
        rating
            .samples
            .iter()
            .find_map(|s| s.probability_problem.clone())
            .or_else(|| Some("no call was answered".into()))
    };
    match config.template.mode {
        Mode::Pairwise => {
            let ps: Vec<f64> = rating
                .samples
                .iter()
                .filter_map(|s| match s.probability {
                    Some(Reading::Pair(p)) => Some(p),
                    _ => None,
                })
                .collect();
            rating.p_response2 = mean(&ps);
            if rating.p_response2.is_none() && !rating.samples.is_empty() {
                rating.p_problem = problem();
            }
        }
        Mode::Pointwise => {
            let side = |n: u8| -> Option<Vec<(f64, f64)>> {
                let readings: Vec<&Vec<(f64, f64)>> = rating
                    .samples
                    .iter()
                    .filter(|s| s.side == Some(n))
                    .filter_map(|s| match &s.probability {
                        Some(Reading::Grade { distribution, .. }) => Some(distribution),
                        _ => None,
                    })
                    .collect();
                if readings.is_empty() {
                    return None;
                }
                // The samples' mixture: each sample's distribution weighs the same.
                let mut mixed: Vec<(f64, f64)> = Vec::new();
                for d in &readings {
                    for &(g, p) in d.iter() {
                        let w = p / readings.len() as f64;
                        match mixed.iter_mut().find(|(x, _)| *x == g) {
                            Some(slot) => slot.1 += w,
                            None => mixed.push((g, w)),
                        }
                    }
                }
                mixed.sort_by(|a, b| a.0.total_cmp(&b.0));
                Some(mixed)
            };
            let (d1, d2) = (side(1), side(2));
            let expected = |d: &Option<Vec<(f64, f64)>>| {
                d.as_ref()
                    .map(|d| d.iter().map(|(g, p)| g * p).sum::<f64>())
            };
            rating.expected_grades = Some((expected(&d1), expected(&d2)));
            match (&d1, &d2) {
                (Some(a), Some(b)) => rating.p_response2 = Some(p_second_better(a, b)),
                _ => rating.p_problem = problem(),
            }
        }
        Mode::Ranking => {}
    }
}
