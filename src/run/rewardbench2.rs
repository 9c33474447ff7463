//! What `calibrate` produced on RewardBench 2 rows: each configuration's leaderboard under
//! both missing-score rules (the chosen one first), its calls and its rows' outcomes; what a
//! plan rates on them (`layout`), which `calibrate` and `batch export` share; and how what the
//! configurations made of the rows is scored (`score`), which `calibrate` and `report DIR`
//! share.

use crate::dataset::rewardbench2::items::RowItems;
use crate::dataset::rewardbench2::{ties_number, Shown, TIES};
use crate::error::input_error;
use crate::evaluation::cost::{frontier_of, CostSettings, Costed, Frontier, PairedDraws};
use crate::evaluation::rewardbench2::analytics;
use crate::evaluation::rewardbench2::analytics::{Grades, Paired, Read, Slots};
use crate::evaluation::rewardbench2::{board, chance, decided, Board, Scored};
use crate::raters::rewardbench2::{
    check_rows, items as rewardbench2_items, ties_config, ties_items, Protocol, RowOutcome,
};
use crate::raters::{CallTally, Config, Missing};
use crate::run::judges;
use anyhow::Result;

/// What one configuration made of the rows, before they are scored: `calibrate` rates them,
/// `report DIR` reads them back.
#[derive(Debug, Clone)]
pub struct Rb2Made {
    pub name: String,
    pub protocol: Protocol,
    /// A jury: its vote's key (its rows from its members' answers: a row without a strict
    /// majority has no pick, and no call of its own).
    pub jury: Option<String>,
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

/// One configuration scored on RewardBench 2.
#[derive(Debug, Clone)]
pub struct Rb2Config {
    pub name: String,
    /// A jury: its vote's key.
    pub jury: Option<String>,
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

/// A RewardBench 2 run.
#[derive(Debug, Clone)]
pub struct Rb2Run {
    pub head: crate::run::record::RunHead,
    /// `--alpha`: the comparisons' level and every interval's (1 − α).
    pub alpha: f64,
    pub rows: usize,
    pub configs: Vec<Rb2Config>,
    /// The rows as shown (completions in their slots).
    pub shown: Vec<Shown>,
    /// Every pair of configurations, paired bootstrap, Holm-adjusted.
    pub comparisons: Vec<Paired>,
    /// The cost frontier of the compared score (None with fewer than two on the chart).
    pub cost_frontier: Option<Frontier>,
    /// The order, the best (the one rule's), the runner-up, those not ranked and the group no
    /// comparison finds worse than the best (None without configurations).
    pub standing: Option<analytics::Standing>,
    /// The judges' response caches.
    pub caches: Vec<std::sync::Arc<crate::judge::cache::Cache>>,
    /// `--sort accuracy`: the configurations shown by their leaderboard, the best first (else
    /// in the plan's order).
    pub by_score: bool,
}

impl Rb2Run {
    /// The best, then the configurations no comparison finds worse than it.
    pub fn group(&self) -> &[usize] {
        self.standing.as_ref().map_or(&[], |s| s.group.as_slice())
    }
}

impl crate::run::record::Made for Rb2Run {
    fn dir(&self) -> &std::path::Path {
        &self.head.dir
    }
    fn tallies(&self) -> Vec<(&str, &CallTally)> {
        self.configs
            .iter()
            .map(|c| (c.name.as_str(), &c.tally))
            .collect()
    }
    fn caches(&self) -> &[std::sync::Arc<crate::judge::cache::Cache>] {
        &self.caches
    }
}

/// What `--sort` means on RewardBench 2 rows: their one score is an accuracy (reward-bench's
/// leaderboard), so `accuracy` orders the configurations by it; the agreement statistics have
/// no value on best-of-4 rows and are refused before any call.
pub fn by_score(sort: Option<crate::run::settings::SortKey>) -> Result<bool> {
    use crate::run::settings::SortKey;
    match sort {
        None => Ok(false),
        Some(SortKey::Accuracy) => Ok(true),
        Some(other) => Err(input_error(format!(
            "--sort {}: RewardBench 2 rows are scored by accuracy (reward-bench's leaderboard: a row right, wrong, or 1/k on tied grades), which has no {}; use --sort accuracy, or leave --sort out for the plan's order",
            other.key(),
            other.key()
        ))),
    }
}

/// The items the configurations of a plan rate on RewardBench 2 rows: each protocol's rows
/// outside Ties (made once per protocol), and the Ties rows, which every configuration rates
/// by ratings.
#[derive(Debug)]
pub struct Rb2Items {
    ties: RowItems,
    mains: Vec<(Protocol, RowItems)>,
}

impl Rb2Items {
    /// A protocol's items, or Ties' (None).
    pub fn of(&self, kind: Option<Protocol>) -> &RowItems {
        kind.and_then(|p| self.mains.iter().find(|m| m.0 == p))
            .map_or(&self.ties, |m| &m.1)
    }
}

/// What one part of a plan rates, on either form (`run::forms::Layout` holds its items).
#[derive(Debug)]
pub struct PartSpec {
    /// The plan's configuration it belongs to.
    pub of: usize,
    /// As called (a RewardBench 2 Ties part's with the Ties prompt).
    pub config: Config,
    /// RewardBench 2: the protocol whose items it rates, None for the Ties rows; pairs: None
    /// (every part rates the data's examples).
    pub kind: Option<Protocol>,
}

/// Checks a plan against the rows (no baselines; a four-way prompt needs four completions;
/// each judge fits its items) and lays out its parts: each configuration's rows outside Ties
/// by its protocol, then its Ties rows by ratings, parts without items left out.
/// `calibrate` rates them, `batch export` writes their calls.
pub fn layout(
    configs: &[Config],
    rows: &[Shown],
    both_orders: bool,
) -> Result<(Rb2Items, Vec<PartSpec>)> {
    if let Some(c) = configs.iter().find(|c| c.rater.is_baseline()) {
        return Err(input_error(format!(
            "rater '{}' of '{}' is a baseline for pairs; RewardBench 2 rows take basic or sc:N raters",
            c.rater, c.name
        )));
    }
    let mut items = Rb2Items {
        ties: ties_items(rows),
        mains: Vec::new(),
    };
    for config in configs {
        check_rows(config, rows)?;
        let protocol = Protocol::of_config(config);
        if !items.mains.iter().any(|m| m.0 == protocol) {
            items
                .mains
                .push((protocol, rewardbench2_items(protocol, rows, both_orders)));
        }
    }
    let mut specs = Vec::new();
    for (of, config) in configs.iter().enumerate() {
        let protocol = Protocol::of_config(config);
        judges::check_configs(
            std::slice::from_ref(config),
            &items.of(Some(protocol)).examples,
        )?;
        for (config, kind) in [
            (config.clone(), Some(protocol)),
            (ties_config(config)?, None),
        ] {
            if !items.of(kind).examples.is_empty() {
                specs.push(PartSpec { of, config, kind });
            }
        }
    }
    Ok((items, specs))
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
#[derive(Debug)]
pub struct Rb2Scores {
    pub configs: Vec<Rb2Config>,
    pub comparisons: Vec<analytics::Paired>,
    pub standing: Option<analytics::Standing>,
    pub cost_frontier: Option<Frontier>,
}

/// Every configuration's rows scored under both missing-score rules, with the analytics;
/// the paired comparisons of every two and where the configurations stand. `calibrate` and `report
/// DIR` both score a run here.
pub fn score(
    rows: &[Shown],
    made: Vec<Rb2Made>,
    missing: Missing,
    (bootstrap, seed, alpha): (usize, u64, f64),
    cost: crate::run::settings::CostOptions,
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
    let comparisons = analytics::compare(&redrawn, alpha);
    let scores: Vec<f64> = configs
        .iter()
        .map(|c| analytics::overall_of(&c.boards[0]))
        .collect();
    let read: Vec<(usize, usize)> = configs
        .iter()
        .map(|c| c.read.own(c.jury.is_some()))
        .collect();
    let standing = analytics::standing(&scores, &read, &comparisons);
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
        unit: cost.unit,
        margin: cost.margin,
    };
    let cost_frontier = frontier_of(&costed, settings, alpha, |best, candidate| {
        let (difference, draws) = redrawn.paired(best, candidate);
        PairedDraws {
            difference,
            draws,
            n: rows.len() as u64,
        }
    })
    .map(|mut f| {
        let names: Vec<String> = unranked.iter().map(|&k| configs[k].name.clone()).collect();
        f.left_out.retain(|n| !names.contains(n));
        f.not_ranked = names;
        f
    });
    Rb2Scores {
        configs,
        comparisons,
        standing,
        cost_frontier,
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
