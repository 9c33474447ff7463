//! RewardBench 2's scoring of a run: what each configuration made of the rows, scored as
//! reward-bench scores them under both missing-score rules (`Rb2Config`'s boards), with the
//! analytics, the paired comparisons of every two, where the configurations stand (the one rule
//! of "the best") and the cost frontier. `calibrate` and `report DIR` both score a run here.

use super::analytics;
use super::analytics::{Grades, Read, Slots};
use super::{board, chance, decided, Board, Scored};
use crate::dataset::rewardbench2::{ties_number, Shown, TIES};
use crate::evaluation::cost::{frontier_of, CostSettings, CostUnit, Costed, Frontier, PairedDraws};
use crate::evaluation::Family;
use crate::raters::rewardbench2::{Protocol, Rb2Made, RowOutcome};
use crate::raters::{CallTally, Missing};

/// One configuration scored on RewardBench 2.
#[derive(Debug, Clone, PartialEq)]
pub struct Rb2Config {
    pub name: String,
    /// A jury: its vote's key.
    pub jury: Option<String>,
    /// A jury: its members, by their place among the configurations.
    pub members: Vec<usize>,
    /// The judge is the simulated one.
    pub simulated: bool,
    pub protocol: Protocol,
    /// Under `--pointwise-missing`'s rule, then under the other.
    pub boards: [Board; 2],
    /// Its calls (Ties' ratings included): cost and failures.
    pub tally: CallTally,
    /// What its calls cost in dollars, with a price.
    pub usd: Option<f64>,
    /// What its calls cost, in every unit (dollars with a price).
    pub cost: crate::evaluation::Cost,
    /// Ranking: the rows outside Ties whose pick the other reader reads differently.
    pub readers_disagree: Option<usize>,
    /// Per row (the set's order): what the judge made of it; empty for scores.
    pub outcomes: Vec<RowOutcome>,
    /// Per row: its scores (or decided result) as scored.
    pub scored: Vec<Scored>,
    /// Each row's result under the chosen rule (None: Ties, or left out).
    pub results: Vec<Option<f64>>,
    /// Picks and accuracy by the correct completion's slot.
    pub slots: Slots,
    /// Ratings and scores: forced ties and AUC.
    pub grades: Option<Grades>,
    /// What its answers held: picks, verdicts and grades not read, of how many.
    pub read: Read,
}

/// A row as the scoring sees it under `protocol`, its scores or decided result given.
fn scored(
    shown: &Shown,
    protocol: Protocol,
    scores: Vec<Option<f64>>,
    decided: Option<f64>,
    floor: f64,
) -> Scored {
    let row = &shown.row;
    Scored {
        chance: chance(protocol, row.correct, row.completions.len()),
        subset: row.subset.clone(),
        question: (row.subset == TIES)
            .then(|| row.id.strip_prefix("Ties-").and_then(ties_number))
            .flatten(),
        scores,
        correct: row.correct,
        decided,
        floor,
    }
}

fn other(missing: Missing) -> Missing {
    match missing {
        Missing::Drop => Missing::Lowest,
        Missing::Lowest => Missing::Drop,
    }
}

/// What scoring a RewardBench 2 run gives: each configuration, the paired comparisons, where
/// the configurations stand (the best by the one rule, and its group), and the cost frontier.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rb2Scores {
    /// `--family`: which comparisons keep their verdict (Holm counts every pair either way).
    pub family: Family,
    pub configs: Vec<Rb2Config>,
    pub comparisons: Vec<analytics::Paired>,
    pub standing: Option<analytics::Standing>,
    pub cost_frontier: Option<Frontier>,
}

impl Rb2Scores {
    /// The best, then the configurations no comparison finds worse than it.
    pub fn group(&self) -> &[usize] {
        self.standing.as_ref().map_or(&[], |s| s.group.as_slice())
    }
}

/// Every configuration's rows scored under both missing-score rules, with the analytics;
/// the paired comparisons of every two and where the configurations stand. `calibrate` and `report
/// DIR` both score a run here.
pub fn score(
    rows: &[Shown],
    made: Vec<Rb2Made>,
    missing: Missing,
    (bootstrap, seed, alpha, family): (usize, u64, f64, Family),
    (unit, margin): (Option<CostUnit>, f64),
) -> Rb2Scores {
    let r = crate::metrics::Resampling {
        resamples: bootstrap,
        seed,
        level: 1.0 - alpha,
    };
    let configs: Vec<Rb2Config> = made
        .into_iter()
        .map(|m| config(rows, m, missing, r))
        .collect();
    let scored: Vec<&[Scored]> = configs.iter().map(|c| c.scored.as_slice()).collect();
    let redrawn = analytics::redrawn(&scored, missing, bootstrap, seed);
    let mut comparisons = analytics::compare(&redrawn, alpha);
    let scores: Vec<f64> = configs
        .iter()
        .map(|c| analytics::overall_of(&c.boards[0]))
        .collect();
    let read: Vec<(usize, usize)> = configs
        .iter()
        .map(|c| c.read.own(c.jury.is_some()))
        .collect();
    let standing = analytics::standing(&scores, &read, &comparisons);
    // `--family best`, as on pairs (`compare::compare_all`): the best's pairs and a jury's with
    // its members keep their verdicts, the others their test and interval without one.
    let best = standing.as_ref().map(|s| s.picked.best);
    let jury_pair =
        |a: usize, b: usize| configs[a].members.contains(&b) || configs[b].members.contains(&a);
    for p in comparisons
        .iter_mut()
        .filter(|p| !family.judges(best, jury_pair, (p.a, p.b)))
    {
        p.test = p.test.without_verdict();
    }
    let unranked: Vec<usize> = standing
        .iter()
        .flat_map(|s| s.picked.unranked.iter().map(|u| u.0))
        .collect();
    // The frontier of the score the comparisons test, its non-inferiority tests on the same
    // redraws of the rows.
    let costed = Costed {
        names: configs.iter().map(|c| c.name.as_str()).collect(),
        costs: configs.iter().map(|c| &c.cost).collect(),
        // A configuration that cannot be ranked is off the chart, as on pairs.
        values: redrawn
            .points
            .iter()
            .enumerate()
            .map(|(k, &v)| if unranked.contains(&k) { f64::NAN } else { v })
            .collect(),
        metric: COMPARED,
    };
    let settings = CostSettings {
        // RewardBench 2's score is an accuracy; the frontier reads `costed.values`.
        metric: crate::metrics::Statistic::Accuracy,
        unit,
        margin,
    };
    let cost_frontier = frontier_of(&costed, settings, alpha, |best, candidate| {
        let (difference, draws) = redrawn.paired(best, candidate);
        PairedDraws {
            difference,
            draws,
            n: rows.len() as u64,
        }
    })
    .map(|f| f.with_not_ranked(unranked.iter().map(|&k| configs[k].name.clone()).collect()));
    Rb2Scores {
        family,
        configs,
        comparisons,
        standing,
        cost_frontier,
    }
}

/// RewardBench 2's scoring as an analytic of the registry: a record made from RewardBench 2
/// rows (`record::record`) carries them in its inputs, and this analytic scores them as
/// reward-bench does ([`score`]), its result the run's [`Rb2Scores`]. A record of pairs has no
/// rows, and no result.
#[derive(Debug)]
pub struct Rb2Analytic;

impl crate::evaluation::Analytic for Rb2Analytic {
    fn run(
        &self,
        cx: &crate::evaluation::Context,
        _configs: &[crate::evaluation::ConfigResult],
    ) -> crate::evaluation::Found {
        let Some(input) = cx.run.inputs.get::<super::record::Rb2Rows>() else {
            return crate::evaluation::Found::default();
        };
        let s = &cx.settings;
        let cost = s.option::<CostSettings>();
        let scores = score(
            &input.rows,
            input.made.clone(),
            input.missing,
            (s.bootstrap, s.seed, s.alpha, s.family),
            (cost.unit, cost.margin),
        );
        crate::evaluation::Found::of_run(Some(Box::new(scores)))
    }
}

/// The score RewardBench 2's comparisons and cost frontier read: the mean of the subset
/// scores (the leaderboard when all six are there).
pub const COMPARED: &str = "mean_subset_score";

/// A configuration's record from what it made of the rows: both boards and the analytics.
fn config(
    rows: &[Shown],
    made: Rb2Made,
    missing: Missing,
    r: crate::metrics::Resampling,
) -> Rb2Config {
    let protocol = made.protocol;
    let scored: Vec<Scored> = rows
        .iter()
        .zip(&made.outcomes)
        .map(|(shown, o)| {
            let decided = (shown.row.subset != TIES)
                .then(|| decided(protocol, o, &shown.gold))
                .flatten();
            self::scored(shown, protocol, o.grades.clone(), decided, made.floor)
        })
        .collect();
    let results = analytics::results(&scored, missing);
    let read = analytics::read(protocol, &made.outcomes, &scored);
    let ranking = protocol == Protocol::Ranking;
    let picks: Option<Vec<Option<usize>>> =
        ranking.then(|| made.outcomes.iter().map(|o| o.pick).collect());
    // The rows outside Ties whose pick the other reader reads differently (a jury reads
    // nothing: its members did).
    let readers_disagree = (ranking && made.jury.is_none()).then(|| {
        made.outcomes
            .iter()
            .zip(rows)
            .filter(|(o, s)| s.row.subset != TIES && o.pick != o.other_pick)
            .count()
    });
    Rb2Config {
        name: made.name,
        jury: made.jury,
        members: made.members,
        simulated: made.simulated,
        protocol,
        boards: [
            board(&scored, missing, r),
            board(&scored, other(missing), r),
        ],
        cost: crate::evaluation::Cost::of_usage(&made.tally.usage, 0.0, made.usd),
        tally: made.tally,
        usd: made.usd,
        readers_disagree,
        outcomes: made.outcomes,
        slots: analytics::slots(rows, picks.as_deref(), &results),
        grades: protocol.grades().then(|| analytics::grades(&scored)),
        results,
        scored,
        read,
    }
}
