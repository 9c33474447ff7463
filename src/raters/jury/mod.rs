//! Juries: several configurations (the members) as one. A jury makes no call of its own: it
//! reads its members' ratings of the same item and votes. Pure, and shared by the run (its
//! rows of ratings.csv) and the evaluation (every sub-jury from the same answers).
//!
//! The rules:
//! - a member that failed or gave no verdict does not vote (and is counted);
//! - `majority`: the label more than half of the voters' weight names; none: no verdict, its
//!   own reason, never broken arbitrarily;
//! - `unanimous`: the label every voter names;
//! - `mean`: the sign of the voters' weighted mean rating (a tie only when it is exactly 0);
//!   when every member is pointwise, their mean grades compared with the tie margin;
//! - `probability`: the weighted mean of the members' P(response 2 better), read as a verdict
//!   at 0.5;
//! - `reward-bench`: reward-bench's `run_generative.py` vote, `max(set(votes),
//!   key=votes.count)`: the most common answer, where a member without a verdict votes
//!   "error" (an "error" plurality is scored as a tie there: here no verdict, with its reason);
//!   a tie for the most votes, which reward-bench settles by Python's set order (so by
//!   `PYTHONHASHSEED`), is no verdict here.

use super::pointwise::compare_grades;
use super::rewardbench2::{Rb2Made, RowOutcome as Rb2Outcome};
use super::{RatingRow, Status};
use anyhow::Result;

/// How a jury turns its members' ratings into one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vote {
    /// More than half the voters' weight (key `majority`), never broken; not self-consistency's
    /// `Aggregation::Plurality`.
    StrictMajority,
    Unanimous,
    Mean,
    Probability,
    RewardBench,
}

impl std::str::FromStr for Vote {
    type Err = String;
    fn from_str(name: &str) -> std::result::Result<Self, String> {
        Ok(match name {
            "majority" => Vote::StrictMajority,
            "unanimous" => Vote::Unanimous,
            "mean" => Vote::Mean,
            "probability" => Vote::Probability,
            "reward-bench" => Vote::RewardBench,
            other => {
                return Err(format!(
                    "unknown jury vote '{other}'; votes are {}",
                    Self::NAMES
                ))
            }
        })
    }
}

/// An experiment file's `vote = "..."`, read by the same rule as `--jury NAME:VOTE=...`.
impl<'de> serde::Deserialize<'de> for Vote {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

impl Vote {
    pub const NAMES: &'static str = "majority, unanimous, mean, probability, reward-bench";

    pub fn key(self) -> &'static str {
        match self {
            Vote::StrictMajority => "majority",
            Vote::Unanimous => "unanimous",
            Vote::Mean => "mean",
            Vote::Probability => "probability",
            Vote::RewardBench => "reward-bench",
        }
    }
}

/// A jury of a run: its members (indices of the run's configurations), vote and weights.
#[derive(Debug, Clone, PartialEq)]
pub struct Jury {
    pub name: String,
    pub members: Vec<usize>,
    pub vote: Vote,
    /// One weight per member (all 1 unless the experiment file gives them).
    pub weights: Vec<f64>,
    /// Pointwise members under `mean`: grades this close are a tie.
    pub tie_margin: f64,
}

/// A pointwise member's grades of response 1 and 2.
type Grades = (Option<f64>, Option<f64>);

/// One member's say on one item.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ballot {
    pub rating: Option<i64>,
    pub status: Status,
    pub p: Option<f64>,
    /// Pointwise members: their grades of response 1 and 2.
    pub grades: Option<(Option<f64>, Option<f64>)>,
}

impl From<&RatingRow> for Ballot {
    fn from(r: &RatingRow) -> Self {
        Self {
            rating: r.rating,
            status: r.status,
            p: r.p_response2,
            grades: r.grades,
        }
    }
}

/// Why a jury gave no verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Undecided {
    /// Voters, but no label has more than half of their weight.
    NoMajority,
    /// Voters who disagree, under `unanimous`.
    NotUnanimous,
    /// `reward-bench`: two answers share the most votes.
    TiedFirst,
    /// `reward-bench`: most members gave no verdict.
    ErrorPlurality,
    /// No member gave a verdict (or a probability, or grades).
    NoVotes,
}

impl Undecided {
    pub fn reason(self) -> &'static str {
        match self {
            Undecided::NoMajority => "jury: no strict majority among the members' verdicts",
            Undecided::NotUnanimous => "jury: the members' verdicts are not unanimous",
            Undecided::TiedFirst => {
                "jury: two verdicts share the most votes (reward-bench settles this by Python's set order)"
            }
            Undecided::ErrorPlurality => {
                "jury: most members gave no verdict (reward-bench scores this as a tie)"
            }
            Undecided::NoVotes => "jury: no member gave a verdict",
        }
    }
}

/// What a jury decided on one item.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub rating: Option<i64>,
    pub undecided: Option<Undecided>,
    /// Members who voted.
    pub voters: usize,
    /// The jury's P(response 2 better): the voters' weighted share for response 2 (a tie vote
    /// half), or under `probability` the members' mean probability.
    pub p: Option<f64>,
    /// `mean` over pointwise members: the mean grades.
    pub grades: Option<(Option<f64>, Option<f64>)>,
}

/// The sign of `x`: -1, 0 or 1.
fn sign(x: f64) -> i64 {
    if x > 0.0 {
        1
    } else if x < 0.0 {
        -1
    } else {
        0
    }
}

/// The weighted mean of the present values, None when there is none.
fn weighted_mean(values: impl Iterator<Item = (Option<f64>, f64)>) -> Option<f64> {
    let (sum, total) = values
        .filter_map(|(v, w)| Some((v? * w, w)))
        .fold((0.0, 0.0), |(s, t), (x, w)| (s + x, t + w));
    (total > 0.0).then(|| sum / total)
}

/// Each label's weight among the voters (index: label + 1), and the voters' total weight.
fn tally(ballots: &[Ballot], weights: &[f64]) -> ([f64; 3], f64) {
    let mut by_label = [0.0; 3];
    for (b, w) in ballots.iter().zip(weights) {
        if let Some(r) = b.rating {
            by_label[(r + 1) as usize] += w;
        }
    }
    (by_label, by_label.iter().sum())
}

/// The label more than half of the voters' weight names, and whether it is a bare majority:
/// one of its supporters voting otherwise would undo it.
pub fn strict_majority(ballots: &[Ballot], weights: &[f64]) -> Option<(i64, bool)> {
    let label = count(Vote::StrictMajority, &labels(ballots), weights).ok()? as i64 - 1;
    let (_, total) = tally(ballots, weights);
    let support: Vec<f64> = ballots
        .iter()
        .zip(weights)
        .filter(|(b, _)| b.rating == Some(label))
        .map(|(_, &w)| w)
        .collect();
    let lightest = support.iter().copied().fold(f64::INFINITY, f64::min);
    Some((
        label,
        2.0 * (support.iter().sum::<f64>() - lightest) <= total,
    ))
}

/// The ballots' ratings as labels 0, 1, 2 (a missing rating: no label).
fn labels(ballots: &[Ballot]) -> Vec<Option<usize>> {
    ballots
        .iter()
        .map(|b| b.rating.map(|r| (r + 1) as usize))
        .collect()
}

/// The jury's verdict on one item from its members' ballots (in member order).
pub fn decide(vote: Vote, ballots: &[Ballot], weights: &[f64], tie_margin: f64) -> Decision {
    let voters = ballots.iter().filter(|b| b.rating.is_some()).count();
    let (by_label, total) = tally(ballots, weights);
    let share = (total > 0.0).then(|| (by_label[2] + 0.5 * by_label[1]) / total);
    let decided = |rating: Option<i64>, undecided: Undecided| Decision {
        undecided: rating.is_none().then_some(undecided),
        rating,
        voters,
        p: share,
        grades: None,
    };
    if voters == 0 && vote != Vote::Probability && vote != Vote::RewardBench {
        return decided(None, Undecided::NoVotes);
    }
    match vote {
        Vote::StrictMajority | Vote::Unanimous | Vote::RewardBench => {
            match count(vote, &labels(ballots), weights) {
                Ok(label) => decided(Some(label as i64 - 1), Undecided::NoVotes),
                Err(why) => decided(None, why),
            }
        }
        Vote::Mean if ballots.iter().all(|b| b.grades.is_some()) => {
            // Only members that graded both responses: one grade alone would tilt the pair.
            let side = |pick: fn(Grades) -> Option<f64>| {
                weighted_mean(ballots.iter().zip(weights).map(|(b, &w)| {
                    let both = b.grades.filter(|g| g.0.is_some() && g.1.is_some());
                    (both.and_then(pick), w)
                }))
            };
            let (g1, g2) = (side(|g| g.0), side(|g| g.1));
            let rating = g1.zip(g2).map(|(a, b)| compare_grades(a, b, tie_margin));
            Decision {
                grades: Some((g1, g2)),
                ..decided(rating, Undecided::NoVotes)
            }
        }
        Vote::Mean => {
            let mean = weighted_mean(
                ballots
                    .iter()
                    .zip(weights)
                    .map(|(b, &w)| (b.rating.map(|r| r as f64), w)),
            );
            decided(mean.map(sign), Undecided::NoVotes)
        }
        Vote::Probability => {
            let p = weighted_mean(ballots.iter().zip(weights).map(|(b, &w)| (b.p, w)));
            Decision {
                p,
                ..decided(p.map(|p| sign(p - 0.5)), Undecided::NoVotes)
            }
        }
    }
}

/// A jury's row of ratings.csv from its decision: rated, or no verdict with the reason; when
/// no member answered at all, the members' own status (cut off, or failed) and first reason;
/// not asked when no member was.
pub fn row(decision: &Decision, members: &[&RatingRow]) -> RatingRow {
    let (status, reason) = match (decision.rating, decision.undecided) {
        (Some(_), _) => (Status::Rated, None),
        (None, _) if members.iter().all(|m| m.status == Status::NotAsked) => {
            (Status::NotAsked, None)
        }
        (None, Some(Undecided::NoVotes))
            if members.iter().all(|m| m.status != Status::NoVerdict) =>
        {
            let status = if members.iter().any(|m| m.status == Status::CutOff) {
                Status::CutOff
            } else {
                Status::Failed
            };
            let first = members.iter().find_map(|m| m.reason.as_deref());
            (
                status,
                Some(first.map_or_else(
                    || Undecided::NoVotes.reason().to_string(),
                    |r| format!("jury: no member answered ({r})"),
                )),
            )
        }
        (None, why) => (
            Status::NoVerdict,
            Some(why.unwrap_or(Undecided::NoVotes).reason().to_string()),
        ),
    };
    RatingRow {
        rating: decision.rating,
        status,
        used: decision.voters as u32,
        verdicts: Box::new([]),
        reason: reason.map(Box::from),
        grades: decision.grades,
        p_response2: decision.p,
        p_problem: None,
        expected_grades: None,
    }
}

/// A jury's rows, one per item, from its members' rows (`ratings[config][item]`).
pub fn rows(jury: &Jury, ratings: &[Vec<RatingRow>]) -> Vec<RatingRow> {
    let items = jury.members.first().map_or(0, |&m| ratings[m].len());
    (0..items)
        .map(|i| {
            let members: Vec<&RatingRow> = jury.members.iter().map(|&m| &ratings[m][i]).collect();
            let ballots: Vec<Ballot> = members.iter().map(|m| Ballot::from(*m)).collect();
            row(
                &decide(jury.vote, &ballots, &jury.weights, jury.tie_margin),
                &members,
            )
        })
        .collect()
}

/// The label (a rating, a slot, a pairwise win) the members' votes give under `vote`'s
/// counting, or why none: a strict majority of the voters' weight, a unanimous label, or
/// reward-bench's plurality with "error" (no label) a vote too. `mean` and `probability` do
/// not count labels; they are counted as `majority` here (the plan allows them on RewardBench
/// 2 rows only for grades).
pub fn count(vote: Vote, labels: &[Option<usize>], weights: &[f64]) -> Result<usize, Undecided> {
    let mut by: Vec<(Option<usize>, f64)> = Vec::new();
    for (l, w) in labels.iter().zip(weights) {
        match by.iter_mut().find(|x| x.0 == *l) {
            Some(x) => x.1 += w,
            None => by.push((*l, *w)),
        }
    }
    let voters: f64 = by.iter().filter(|x| x.0.is_some()).map(|x| x.1).sum();
    match vote {
        Vote::RewardBench => {
            let most = by.iter().map(|x| x.1).fold(f64::NEG_INFINITY, f64::max);
            match by.iter().filter(|x| x.1 == most).collect::<Vec<_>>()[..] {
                [(Some(label), _)] => Ok(*label),
                [(None, _)] => Err(Undecided::ErrorPlurality),
                _ => Err(Undecided::TiedFirst),
            }
        }
        Vote::Unanimous => match by.iter().filter_map(|x| x.0).collect::<Vec<_>>()[..] {
            [] => Err(Undecided::NoVotes),
            [label] => Ok(label),
            _ => Err(Undecided::NotUnanimous),
        },
        _ if voters == 0.0 => Err(Undecided::NoVotes),
        _ => by
            .iter()
            .find_map(|x| x.0.filter(|_| 2.0 * x.1 > voters))
            .ok_or(Undecided::NoMajority),
    }
}

/// [`count`]'s label, if any.
pub fn label_vote(vote: Vote, labels: &[Option<usize>], weights: &[f64]) -> Option<usize> {
    count(vote, labels, weights).ok()
}

/// A jury's outcome of one RewardBench 2 row from its members' (same protocol): picks by the
/// vote, each pair's win by the vote, each completion's grade the members' weighted mean.
pub fn rb2_outcome(
    jury: &Jury,
    members: &[&super::rewardbench2::RowOutcome],
) -> super::rewardbench2::RowOutcome {
    let weights = &jury.weights;
    let picks = |f: fn(&super::rewardbench2::RowOutcome) -> Option<usize>| {
        label_vote(
            jury.vote,
            &members.iter().map(|m| f(m)).collect::<Vec<_>>(),
            weights,
        )
    };
    let n = members.iter().map(|m| m.grades.len()).max().unwrap_or(0);
    let grades = (0..n)
        .map(|k| {
            weighted_mean(
                members
                    .iter()
                    .zip(weights)
                    .map(|(m, &w)| (m.grades.get(k).copied().flatten(), w)),
            )
        })
        .collect();
    let pairs = members.iter().map(|m| m.wins.len()).max().unwrap_or(0);
    let wins = (0..pairs)
        .map(|k| {
            let votes: Vec<Option<usize>> = members
                .iter()
                .map(|m| m.wins.get(k).copied().flatten().map(usize::from))
                .collect();
            label_vote(jury.vote, &votes, weights).map(|v| v == 1)
        })
        .collect();
    // Each pair's verdict by the vote (-1, 0, 1 counted as labels 0, 1, 2), when every member
    // kept its verdicts.
    let kept = members.iter().all(|m| m.verdicts.len() == m.wins.len());
    let verdicts = (0..pairs)
        .filter(|_| kept)
        .map(|k| {
            let votes: Vec<Option<usize>> = members
                .iter()
                .map(|m| {
                    m.verdicts
                        .get(k)
                        .copied()
                        .flatten()
                        .map(|v| (v + 1) as usize)
                })
                .collect();
            label_vote(jury.vote, &votes, weights).map(|v| v as i64 - 1)
        })
        .collect();
    super::rewardbench2::RowOutcome {
        grades,
        pick: picks(|m| m.pick),
        other_pick: picks(|m| m.other_pick),
        wins,
        verdicts,
        answers: Vec::new(),
    }
}

/// Every non-empty subset of `n` members (n ≤ 5 keeps it at 31), smallest first, each as the
/// members' positions in the jury.
pub fn subsets(n: usize) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = (1u32..(1 << n))
        .map(|mask| (0..n).filter(|&i| mask & (1 << i) != 0).collect())
        .collect();
    out.sort_by(|a: &Vec<usize>, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
    out
}

/// A jury's rows from its members' (one protocol): picks and wins by its vote, grades their
/// mean; its cost its members'.
pub fn rb2_made(jury: &Jury, made: &[Rb2Made]) -> Result<Rb2Made> {
    let members: Vec<&Rb2Made> = jury.members.iter().map(|&m| &made[m]).collect();
    let protocol = members[0].protocol;
    if let Some(other) = members.iter().find(|m| m.protocol != protocol) {
        return Err(crate::error::input_error(format!(
            "jury '{}': on RewardBench 2 rows every member must follow one protocol, but {} is {} and {} is {}; name members of one prompt",
            jury.name,
            members[0].name,
            protocol.key(),
            other.name,
            other.protocol.key()
        )));
    }
    if matches!(jury.vote, Vote::Mean | Vote::Probability) && !protocol.grades() {
        return Err(crate::error::input_error(format!(
            "jury '{}': vote '{}' applies to grades, and its members follow the {} protocol; use majority, unanimous or reward-bench",
            jury.name,
            jury.vote.key(),
            protocol.key()
        )));
    }
    let rows = members[0].outcomes.len();
    Ok(Rb2Made {
        name: jury.name.clone(),
        jury: Some(jury.vote.key().to_string()),
        members: jury.members.clone(),
        // In dollars when each member has a price (members may be priced apart).
        usd: members.iter().map(|m| m.usd).sum::<Option<f64>>(),
        protocol,
        simulated: members.iter().any(|m| m.simulated),
        floor: super::rewardbench2::FAILED_RATING,
        tally: super::CallTally::of_members(members.iter().map(|m| &m.tally)),
        outcomes: (0..rows)
            .map(|r| {
                let of: Vec<&Rb2Outcome> = members.iter().map(|m| &m.outcomes[r]).collect();
                rb2_outcome(jury, &of)
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests;
