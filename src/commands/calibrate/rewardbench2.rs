//! `calibrate`'s RewardBench 2 form: a reward model's per-completion scores
//! (`--judge scores:FILE`), or judge configurations by their protocol (a ranking template:
//! four-way; a pointwise one: ratings; a pairwise one: the correct completion against each
//! incorrect one; Ties rows always by ratings), scored as reward-bench scores them, under both
//! missing-score rules, with bootstrap CIs.

use super::session::{Part, Session};
use crate::dataset::rewardbench2::{ties_number, Shown, TIES};
use crate::error::input_error;
use crate::evaluation::rewardbench2::analytics;
use crate::evaluation::rewardbench2::{board, chance, decided, Scored, FAILED_RATING};
use crate::raters::rewardbench2::{fold, Protocol, RowOutcome};
use crate::raters::Missing;
use crate::run::data::Rb2Set;
use crate::run::plan::Form;
use crate::run::rewardbench2::{layout, Rb2Config, Rb2Made, Rb2Run};
use crate::run::settings::CalibrateSettings;
use anyhow::Result;

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

pub fn run(args: &CalibrateSettings, set: Rb2Set) -> Result<Rb2Run> {
    let by_score = crate::run::rewardbench2::by_score(args.sort)?;
    let (made, out) = from_judges(args, &set)?;
    let missing = args.plan.judge.pointwise_missing;
    let (configs, comparisons, group) = score(&set.rows, made, missing, args.bootstrap, set.seed);
    Ok(Rb2Run {
        rows: set.rows.len(),
        configs,
        source: set.source,
        seed: set.seed,
        bootstrap: args.bootstrap,
        shown: set.rows,
        comparisons,
        group,
        both_orders: args.plan.data.both_orders,
        dir: Some(out.dir),
        name: out.name,
        command: crate::run::command_line().join(" "),
        created_unix: out.created,
        caches: out.caches,
        by_score,
    })
}

/// Every configuration's rows scored under both missing-score rules, with the analytics;
/// the paired comparisons of every two and the group of the best. `calibrate` and `report
/// DIR` both score a run here.
pub fn score(
    rows: &[Shown],
    made: Vec<Rb2Made>,
    missing: Missing,
    bootstrap: usize,
    seed: u64,
) -> (Vec<Rb2Config>, Vec<analytics::Paired>, Vec<usize>) {
    let configs: Vec<Rb2Config> = made
        .into_iter()
        .map(|m| config(rows, m, missing, bootstrap, seed))
        .collect();
    let scored: Vec<&[Scored]> = configs.iter().map(|c| c.scored.as_slice()).collect();
    let comparisons = analytics::compare(&scored, missing, bootstrap, seed);
    let group = analytics::best_group(
        &configs
            .iter()
            .map(|c| analytics::overall_of(&c.boards[0]))
            .collect::<Vec<_>>(),
        &comparisons,
    );
    (configs, comparisons, group)
}

/// A configuration's record from what it made of the rows: both boards and the analytics.
fn config(
    rows: &[Shown],
    made: Rb2Made,
    missing: Missing,
    bootstrap: usize,
    seed: u64,
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
    let ranking = protocol == Protocol::Ranking;
    let picks: Option<Vec<Option<usize>>> =
        ranking.then(|| made.outcomes.iter().map(|o| o.pick).collect());
    // The rows outside Ties whose pick the other reader reads differently.
    let readers_disagree = ranking.then(|| {
        made.outcomes
            .iter()
            .zip(rows)
            .filter(|(o, s)| s.row.subset != TIES && o.pick != o.other_pick)
            .count()
    });
    Rb2Config {
        name: made.name,
        simulated: made.simulated,
        protocol,
        boards: [
            board(&scored, missing, bootstrap, seed),
            board(&scored, other(missing), bootstrap, seed),
        ],
        tally: made.tally,
        readers_disagree,
        outcomes: made.outcomes,
        slots: analytics::slots(rows, picks.as_deref(), &results),
        grades: protocol.grades().then(|| analytics::grades(&scored)),
        results,
        scored,
    }
}

/// A scores file's missing score under `lowest`: below the file's lowest (finite, so Ties'
/// margins are).
pub fn scores_floor(scores: impl Iterator<Item = f64>) -> f64 {
    scores.fold(f64::INFINITY, f64::min) - 1.0
}

/// Where a run went: its name, directory, when, and the judges' caches.
struct Out {
    name: String,
    dir: std::path::PathBuf,
    created: u64,
    caches: Vec<std::sync::Arc<crate::judge::cache::Cache>>,
}

/// A jury's rows from its members' (one protocol): picks and wins by its vote, grades their
/// mean; its cost its members'.
fn jury_made(jury: &crate::raters::jury::Jury, made: &[Rb2Made]) -> Result<Rb2Made> {
    use crate::raters::jury::Vote;
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
        protocol,
        simulated: members.iter().any(|m| m.simulated),
        floor: FAILED_RATING,
        tally: crate::raters::CallTally {
            usage: members
                .iter()
                .map(|m| m.tally.usage)
                .fold(crate::raters::Usage::default(), crate::raters::Usage::plus),
            ..crate::raters::CallTally::default()
        },
        outcomes: (0..rows)
            .map(|r| {
                let of: Vec<&RowOutcome> = members.iter().map(|m| &m.outcomes[r]).collect();
                crate::raters::jury::rb2_outcome(jury, &of)
            })
            .collect(),
    })
}

/// A scores file's configuration: its floor under `lowest`, refused when the file scores none
/// of the completions (its texts are not the rows').
fn scores_made(made: &Rb2Made, source: &str) -> Result<f64> {
    let all = || made.outcomes.iter().flat_map(|o| &o.grades);
    if all().all(Option::is_none) {
        return Err(input_error(format!(
            "'{}' scores none of the {} completions of {source}: its prompt and response columns must hold the rows' prompts and completions as they are",
            made.name,
            all().count(),
        )));
    }
    Ok(scores_floor(all().flatten().copied()))
}

/// The protocols that call a judge: every configuration of the plan, one budget.
fn from_judges(args: &CalibrateSettings, set: &Rb2Set) -> Result<(Vec<Rb2Made>, Out)> {
    let session = Session::plan(args, Form::RewardBench2, set.seed)?;
    let plan = &session.plan;
    let (items, specs) = layout(&plan.configs, &set.rows, args.plan.data.both_orders)?;
    let items_of = |kind: Option<Protocol>| items.of(kind);
    let kinds: Vec<Option<Protocol>> = specs.iter().map(|s| s.kind).collect();
    let parts: Vec<Part<'_>> = specs
        .into_iter()
        .map(|s| Part {
            of: s.of,
            items: &items.of(s.kind).examples,
            config: s.config,
        })
        .collect();
    let mut outcomes: Vec<Vec<RowOutcome>> =
        vec![RowOutcome::for_rows(&set.rows); plan.configs.len()];
    let mut next = vec![0usize; parts.len()];
    let rated = session.rate(args, parts, &mut |k, part, rating| {
        fold(
            &mut outcomes[part.of],
            &set.rows,
            items_of(kinds[k]),
            next[k],
            &part.config,
            rating,
        );
        next[k] += 1;
    })?;
    let mut made: Vec<Rb2Made> = plan
        .configs
        .iter()
        .zip(outcomes)
        .zip(rated.tallies)
        .map(|((config, outcomes), tally)| Rb2Made {
            name: config.name.clone(),
            protocol: Protocol::of_config(config),
            simulated: config.judge.is_simulated(),
            floor: FAILED_RATING,
            tally,
            outcomes,
        })
        .collect();
    for m in made.iter_mut().filter(|m| m.protocol == Protocol::Scores) {
        m.floor = scores_made(m, &set.source)?;
    }
    for (jury, _) in &plan.juries {
        made.push(jury_made(jury, &made)?);
    }
    Ok((
        made,
        Out {
            name: session.name.clone(),
            dir: rated.dir,
            created: rated.created_unix,
            caches: plan.caches.clone(),
        },
    ))
}
