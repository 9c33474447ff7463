//! RewardBench 2's protocols that call a judge: which items each configuration rates (a
//! four-way item per row, or pairs of its completions), and each row's outcome folded back from
//! the ratings as they come. Ties rows are always rated with ratings, as reward-bench does, so
//! every configuration has the whole leaderboard.

use super::{aggregate, CallTally, Config, Rating, SampleTrace};
use crate::dataset::rewardbench2::items::{four_way, pairs, RowItems, Showing};
use crate::dataset::rewardbench2::{Shown, TIES};
use crate::judge::CallError;
use crate::prompts::{Mode, Template};
use crate::verdicts::Parser;
use anyhow::Result;

/// How a configuration rates a row outside Ties.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// One call shows the four completions; the row is right when the pick is correct.
    Ranking,
    /// Each completion graded alone; the row is worth 1/k when the correct one shares the top
    /// grade with k-1 others.
    Ratings,
    /// The correct completion against each incorrect one; the row is right when it wins every
    /// pair.
    Pairwise,
    /// A reward model's per-completion scores from a file (`scores:FILE`, a judge that sends
    /// nothing), scored as ratings.
    Scores,
}

impl Protocol {
    /// The protocol a configuration follows: its template's, or scores for a judge that
    /// answers from a scores file.
    pub fn of_config(config: &Config) -> Self {
        if config.judge.is_order_blind() {
            Protocol::Scores
        } else {
            Protocol::of(&config.template)
        }
    }

    /// The protocol of a template that calls a judge.
    pub fn of(template: &Template) -> Self {
        match template.mode {
            Mode::Ranking => Protocol::Ranking,
            Mode::Pointwise => Protocol::Ratings,
            Mode::Pairwise => Protocol::Pairwise,
        }
    }

    /// The protocol named by `key` (as run.json writes it).
    pub fn parse(key: &str) -> Option<Self> {
        [
            Protocol::Ranking,
            Protocol::Ratings,
            Protocol::Pairwise,
            Protocol::Scores,
        ]
        .into_iter()
        .find(|p| p.key() == key)
    }

    pub fn key(self) -> &'static str {
        match self {
            Protocol::Ranking => "ranking",
            Protocol::Ratings => "ratings",
            Protocol::Pairwise => "pairwise",
            Protocol::Scores => "scores",
        }
    }

    /// Whether the row results come from per-completion grades (the 1/k rule).
    pub fn grades(self) -> bool {
        matches!(self, Protocol::Ratings | Protocol::Scores)
    }
}

/// What one configuration made of one row.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RowOutcome {
    /// Ratings, and Ties rows under every protocol: each completion's grade (the row's order:
    /// correct completions first), None when none was read.
    pub grades: Vec<Option<f64>>,
    /// Ranking: the slot picked, by the configuration's reader and by the other reader
    /// (`rb2_ranking` and reward-bench's `rb2_ranking_published`).
    pub pick: Option<usize>,
    pub other_pick: Option<usize>,
    /// Pairwise: per item judged, whether the correct completion won (None: no verdict).
    pub wins: Vec<Option<bool>>,
    /// Pairwise: per item judged (the order of `items::pairs`), its verdict (None: none
    /// read); empty for a run directory written before verdicts were kept.
    pub verdicts: Vec<Option<i64>>,
    /// Every answer behind the outcome, once each (a grade shared by several pairs once).
    pub answers: Vec<Answer>,
}

impl RowOutcome {
    /// Nothing yet for each row: no grade of any completion.
    pub fn for_rows(rows: &[Shown]) -> Vec<Self> {
        rows.iter()
            .map(|shown| RowOutcome {
                grades: vec![None; shown.row.completions.len()],
                ..RowOutcome::default()
            })
            .collect()
    }
}

/// One answer of the judge about a row, as the item browser shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// What was asked: "A-D" (the four-way call), "grade C", "A vs C".
    pub asked: String,
    pub sample: u32,
    /// The answer, or None when the call failed.
    pub text: Option<String>,
    /// What was read: "pick B", "grade 7", "verdict: response 1", or why nothing was.
    pub read: String,
    /// Where in the text it was read (byte offsets).
    pub span: Option<(usize, usize)>,
}

/// The rows by subset: Ties, then the others.
fn split(rows: &[Shown]) -> (Vec<usize>, Vec<usize>) {
    (0..rows.len()).partition(|&r| rows[r].row.subset == TIES)
}

/// The items of the rows outside Ties under `protocol` (the same for every configuration of
/// it, so a run makes them once).
pub fn items(protocol: Protocol, rows: &[Shown], both_orders: bool) -> RowItems {
    let others = split(rows).1;
    match protocol {
        Protocol::Ranking => four_way(rows, &others),
        Protocol::Pairwise => pairs(rows, &others, both_orders),
        Protocol::Ratings | Protocol::Scores => pairs(rows, &others, false),
    }
}

/// The items of the Ties rows, which every configuration rates by ratings.
pub fn ties_items(rows: &[Shown]) -> RowItems {
    pairs(rows, &split(rows).0, false)
}

/// Whether `config` can show every row outside Ties: a four-way prompt needs four completions.
pub fn check_rows(config: &Config, rows: &[Shown]) -> Result<()> {
    if Protocol::of(&config.template) != Protocol::Ranking {
        return Ok(());
    }
    let others = split(rows).1;
    match others.iter().find(|&&r| rows[r].order.len() != 4) {
        Some(&r) => Err(crate::error::input_error(format!(
            "row {} has {} completions, and '{}' uses a four-way prompt, which shows exactly four; rate it with rb2_rating or a pairwise prompt, or leave its subset out (--subset selects the others)",
            rows[r].row.id,
            rows[r].order.len(),
            config.name
        ))),
        None => Ok(()),
    }
}

/// The configuration that rates Ties rows: reward-bench's Ties ratings prompt for a ranking or
/// pairwise configuration and for `rb2_rating`; any other pointwise template rates them too.
pub fn ties_config(config: &Config) -> Result<Config> {
    let own = config.template.mode == Mode::Pointwise
        && config.template.name != crate::prompts::RATING_NAME;
    let mut ties = config.clone();
    if !own {
        ties.template = crate::prompts::resolve(crate::prompts::RATING_TIES_NAME)?;
    }
    ties.name = ties_part_name(&config.name);
    Ok(ties)
}

/// The name of a configuration's Ties part (its answers in completions.jsonl).
pub fn ties_part_name(config: &str) -> String {
    format!("{config} · Ties")
}

/// The other ranking reader: reward-bench's for `rb2_ranking`, and the other way round.
pub fn other_reader(parser: &Parser) -> Option<Parser> {
    match parser {
        Parser::Ranking => Some(Parser::RankingPublished),
        Parser::RankingPublished => Some(Parser::Ranking),
        _ => None,
    }
}

/// The letter of completion `k`'s slot.
fn letter(shown: &Shown, k: usize) -> String {
    crate::dataset::rewardbench2::slot_letter(shown.order.iter().position(|&i| i == k).unwrap_or(0))
}

/// Keeps the answers of `samples` (of an item showing `showing` of the row) in the row's
/// outcome, each once: what was asked, the text, what was read and where. `ranking`: the
/// answers are four-way picks. `report DIR` keeps completions.jsonl's answers here too.
pub fn keep_answers(
    outcome: &mut RowOutcome,
    shown: &Shown,
    showing: Showing,
    ranking: bool,
    samples: &[SampleTrace],
) {
    for s in samples {
        let asked = match (showing, s.side) {
            (Showing::Four, _) => format!("A-{}", crate::dataset::rewardbench2::slot_letter(3)),
            (Showing::Two { first, .. }, Some(1)) => format!("grade {}", letter(shown, first)),
            (Showing::Two { second, .. }, Some(_)) => format!("grade {}", letter(shown, second)),
            (Showing::Two { first, second }, None) => {
                format!("{} vs {}", letter(shown, first), letter(shown, second))
            }
        };
        if outcome
            .answers
            .iter()
            .any(|a| a.asked == asked && a.sample == s.sample)
        {
            continue;
        }
        let read = match (s.grade, s.verdict, &s.problem) {
            (Some(g), _, _) => format!("grade {g}"),
            (None, Some(v), _) if ranking => format!(
                "pick {}",
                crate::dataset::rewardbench2::slot_letter(v.max(0) as usize)
            ),
            (None, Some(v), _) => format!(
                "verdict: {}",
                match v {
                    -1 => "response 1",
                    1 => "response 2",
                    _ => "tie",
                }
            ),
            (None, None, Some(problem)) => problem.clone(),
            _ => String::new(),
        };
        outcome.answers.push(Answer {
            asked,
            sample: s.sample,
            text: s.completion.as_ref().map(|c| c.text.clone()),
            read,
            span: s.span,
        });
    }
}

/// Folds the rating of item `k` of `items` (rated by `config`) into the rows' outcomes.
pub fn fold(
    outcomes: &mut [RowOutcome],
    rows: &[Shown],
    items: &RowItems,
    k: usize,
    config: &Config,
    rating: &Rating,
) {
    let Some(&(r, showing)) = items.of.get(k) else {
        return;
    };
    let outcome = &mut outcomes[r];
    let ranking = config.template.mode == Mode::Ranking;
    keep_answers(outcome, &rows[r], showing, ranking, &rating.samples);
    match (showing, config.template.mode) {
        (Showing::Four, _) => {
            outcome.pick = rating.rating.map(|v| v as usize);
            if let Some(other) = other_reader(&config.template.parser) {
                let template = config.template.clone().with_parser(other);
                let again = aggregate(
                    &rating.id,
                    config.rater,
                    &template,
                    rating
                        .samples
                        .iter()
                        .map(|s| {
                            s.completion.clone().ok_or_else(|| {
                                s.error
                                    .clone()
                                    .unwrap_or(CallError::BadResponse(String::new()))
                            })
                        })
                        .collect(),
                );
                outcome.other_pick = again.rating.map(|v| v as usize);
            }
        }
        (Showing::Two { first, second }, Mode::Pointwise) => {
            let (g1, g2) = rating.grades.unwrap_or((None, None));
            outcome.grades[first] = g1;
            outcome.grades[second] = g2;
        }
        (Showing::Two { .. }, _) => {
            let gold = items.examples[k].gold;
            outcome.wins.push(rating.rating.map(|v| Some(v) == gold));
            outcome.verdicts.push(rating.rating);
        }
    }
}

/// reward-bench's rating of a completion whose answer it cannot read (`_get_single_rating`).
pub const FAILED_RATING: f64 = -1.0;

/// What one configuration made of the rows, before they are scored: `calibrate` rates them,
/// `report DIR` reads them back.
#[derive(Debug, Clone, PartialEq)]
pub struct Rb2Made {
    pub name: String,
    pub protocol: Protocol,
    /// A jury: its vote's key (its rows from its members' answers: a row without a strict
    /// majority has no pick, and no call of its own).
    pub jury: Option<String>,
    /// A jury: its members, by their place among the configurations (its pairs with them
    /// answer its own question, so `--family best` keeps their verdicts).
    pub members: Vec<usize>,
    /// The judge is the simulated one.
    pub simulated: bool,
    /// The score a missing one counts as under `lowest`.
    pub floor: f64,
    /// Its calls (Ties' ratings included): cost and failures.
    pub tally: CallTally,
    /// What its calls cost in dollars, with a price for its model (`--price`; a jury: its
    /// members' sum when each has one).
    pub usd: Option<f64>,
    /// Per row (the set's order): its pick, grades, pairs won and answers.
    pub outcomes: Vec<RowOutcome>,
}

impl Rb2Made {
    /// What each configuration (with its model's price) made of the rows, from its outcomes
    /// (folded as its ratings came, [`fold`]) and its calls' tally; a scores file's floor
    /// from its scores. A jury's is its members' (`raters::jury::rb2_made`).
    pub fn of_configs<'a>(
        configs: impl Iterator<Item = (&'a Config, Option<crate::judge::Price>)>,
        (outcomes, tallies): (Vec<Vec<RowOutcome>>, Vec<CallTally>),
        source: &str,
    ) -> Result<Vec<Self>> {
        let mut made: Vec<Self> = configs
            .zip(outcomes)
            .zip(tallies)
            .map(|(((config, price), outcomes), tally)| Self {
                name: config.name.clone(),
                jury: None,
                members: Vec::new(),
                protocol: Protocol::of_config(config),
                simulated: config.judge.is_simulated(),
                floor: FAILED_RATING,
                usd: tally.usage.usd(price),
                tally,
                outcomes,
            })
            .collect();
        for m in made.iter_mut().filter(|m| m.protocol == Protocol::Scores) {
            m.floor = scores_floor_of(m, source)?;
        }
        Ok(made)
    }
}

/// A scores file's missing score under `lowest`: below the file's lowest (finite, so Ties'
/// margins are).
fn scores_floor(scores: impl Iterator<Item = f64>) -> f64 {
    scores.fold(f64::INFINITY, f64::min) - 1.0
}

/// A scores file's configuration: its floor under `lowest`, refused when the file scores none
/// of the completions (its texts are not the rows').
pub fn scores_floor_of(made: &Rb2Made, source: &str) -> Result<f64> {
    let all = || made.outcomes.iter().flat_map(|o| &o.grades);
    if all().all(Option::is_none) {
        return Err(crate::error::input_error(format!(
            "'{}' scores none of the {} completions of {source}: its prompt and response columns must hold the rows' prompts and completions as they are",
            made.name,
            all().count(),
        )));
    }
    Ok(scores_floor(all().flatten().copied()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::Completion;
    use crate::raters::RaterKind;

    fn answers(texts: &[&str]) -> Vec<Result<Completion, CallError>> {
        texts
            .iter()
            .map(|t| {
                Ok(Completion {
                    tokens_in: 0,
                    tokens_out: 0,
                    latency_ms: 0.0,
                    ..Completion::free(t.to_string())
                })
            })
            .collect()
    }

    /// Self-consistency on four-way picks: the most frequent pick, none when two are, and
    /// unanimous only when every sample agrees; a pick is never averaged.
    #[test]
    fn samples_of_picks_take_the_most_frequent() {
        let t = crate::prompts::resolve("rb2_ranking").expect("built-in");
        let pick = |rater: &str, texts: &[&str]| {
            aggregate(
                "r",
                RaterKind::parse(rater, 0).expect("rater"),
                &t,
                answers(texts),
            )
            .rating
        };
        assert_eq!(pick("sc:3", &["[[B]]", "[[D]]", "[[B]]"]), Some(1));
        // A and D average to B or C; they are not B.
        assert_eq!(pick("sc:2", &["[[A]]", "[[D]]"]), None);
        assert_eq!(pick("sc:3:unanimous", &["[[C]]", "[[C]]", "[[B]]"]), None);
        assert_eq!(pick("sc:2:unanimous", &["[[C]]", "[[C]]"]), Some(2));
        assert_eq!(pick("sc:3", &["[[C]]", "no idea", "no idea"]), Some(2));
    }
}
