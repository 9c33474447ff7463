//! `raterlab calibrate` on RewardBench 2 rows: a reward model's per-completion scores
//! (`--judge scores:FILE`), or judge configurations by their protocol (a ranking template:
//! four-way; a pointwise one: ratings; a pairwise one: the correct completion against each
//! incorrect one; Ties rows always by ratings), scored as reward-bench scores them, under both
//! missing-score rules, with bootstrap CIs.

use crate::cli::CalibrateArgs;
use crate::dataset::best_of::{ties_number, Shown, TIES};
use crate::dataset::best_of_items::RowItems;
use crate::error::input_error;
use crate::evaluation::best_of;
use crate::evaluation::rewardbench2::{board, Scored};
use crate::raters::best_of::{fold, items, ties_config, Items, Protocol, RowOutcome};
use crate::raters::{CallTally, Config, Missing};
use crate::run::data::BestOfSet;
use crate::run::judges;
use crate::run::plan::plan;
use crate::run::rewardbench2::{Rb2Config, Rb2Run};
use anyhow::Result;

/// A row as the scoring sees it, its scores or decided result given.
fn scored(shown: &Shown, scores: Vec<Option<f64>>, decided: Option<f64>, floor: f64) -> Scored {
    let row = &shown.row;
    Scored {
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

/// What reward-bench gives a four-way answer it cannot read (`run_generative_v2.py`: "effectively
/// a tie").
const UNREAD_PICK: f64 = 0.25;

/// reward-bench's rating of a completion whose answer it cannot read (`_get_single_rating`).
const FAILED_RATING: f64 = -1.0;

fn other(missing: Missing) -> Missing {
    match missing {
        Missing::Drop => Missing::Lowest,
        Missing::Lowest => Missing::Drop,
    }
}

pub fn run(args: &CalibrateArgs, set: BestOfSet) -> Result<Rb2Run> {
    let judge = args.plan.judge.judge.as_deref().unwrap_or("");
    let missing = Missing::parse(&args.plan.judge.pointwise_missing)?;
    let (configs, made) = match judge.strip_prefix("scores:") {
        Some(path) => {
            let config = from_scores(args, &set, judge, path, missing)?;
            let name = args.name.clone().unwrap_or_else(|| "calibrate".into());
            let (dir, created) = super::out::create(args.out.as_deref(), &name)?;
            (
                vec![config],
                Made {
                    name,
                    dir,
                    created,
                    cache: None,
                },
            )
        }
        None => from_judges(args, &set, missing)?,
    };
    let scored: Vec<&[Scored]> = configs.iter().map(|c| c.scored.as_slice()).collect();
    let comparisons = best_of::compare(&scored, missing, args.bootstrap, set.seed);
    let group = best_of::best_group(
        &configs
            .iter()
            .map(|c| best_of::overall_of(&c.boards[0]))
            .collect::<Vec<_>>(),
        &comparisons,
    );
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
        dir: Some(made.dir),
        name: made.name,
        command: crate::run::command_line().join(" "),
        created_unix: made.created,
        cache: made.cache,
    })
}

/// A configuration's record from its rows' scores: both boards and the analytics.
fn config(
    args: &CalibrateArgs,
    set: &BestOfSet,
    name: String,
    protocol: &str,
    scored: Vec<Scored>,
    missing: Missing,
    (tally, outcomes): (CallTally, Vec<RowOutcome>),
) -> Rb2Config {
    let results = best_of::results(&scored, missing);
    let mut boards = [
        board(&scored, missing, args.bootstrap, set.seed),
        board(&scored, other(missing), args.bootstrap, set.seed),
    ];
    if protocol == "pairwise" {
        // A coin-flipping pairwise judge wins all of a row's n-1 pairs with 2^-(n-1).
        for b in &mut boards {
            for s in b.subsets.iter_mut().filter(|s| s.chance.is_some()) {
                let rows: Vec<f64> = scored
                    .iter()
                    .filter(|r| r.subset == s.name)
                    .map(|r| 0.5f64.powi(r.scores.len().saturating_sub(1) as i32))
                    .collect();
                s.chance = Some(rows.iter().sum::<f64>() / rows.len().max(1) as f64);
            }
        }
    }
    let picks: Option<Vec<Option<usize>>> =
        (protocol == "ranking").then(|| outcomes.iter().map(|o| o.pick).collect());
    Rb2Config {
        name,
        simulated: false,
        protocol: protocol.into(),
        boards,
        tally,
        readers_disagree: None,
        outcomes,
        slots: best_of::slots(&set.rows, picks.as_deref(), &results),
        grades: matches!(protocol, "ratings" | "scores").then(|| best_of::grades(&scored)),
        results,
        scored,
    }
}

/// The scores protocol: a reward model's per-completion scores, no calls.
fn from_scores(
    args: &CalibrateArgs,
    set: &BestOfSet,
    judge: &str,
    path: &str,
    missing: Missing,
) -> Result<Rb2Config> {
    let table = crate::dataset::scores::load(std::path::Path::new(path))?;
    let score = |shown: &Shown, text: &String| {
        let key = (shown.row.prompt.clone(), text.clone());
        table
            .by_text
            .get(&key)
            .or_else(|| table.by_text.get(&(String::new(), text.clone())))
            .copied()
            .flatten()
    };
    let scores: Vec<Vec<Option<f64>>> = set
        .rows
        .iter()
        .map(|shown| {
            shown
                .row
                .completions
                .iter()
                .map(|t| score(shown, t))
                .collect()
        })
        .collect();
    // A missing score under `lowest`: below the file's lowest (finite, so Ties' margins are).
    let floor = scores
        .iter()
        .flatten()
        .flatten()
        .copied()
        .fold(f64::INFINITY, f64::min)
        - 1.0;
    let rows: Vec<Scored> = set
        .rows
        .iter()
        .zip(scores)
        .map(|(shown, scores)| scored(shown, scores, None, floor))
        .collect();
    let scored_count = rows
        .iter()
        .flat_map(|r| &r.scores)
        .filter(|s| s.is_some())
        .count();
    if scored_count == 0 {
        return Err(input_error(format!(
            "'{path}' scores none of the {} completions of {}: its prompt and response columns must hold the rows' prompts and completions as they are",
            rows.iter().map(|r| r.scores.len()).sum::<usize>(),
            set.source
        )));
    }
    Ok(config(
        args,
        set,
        judge.to_string(),
        "scores",
        rows,
        missing,
        (CallTally::default(), Vec::new()),
    ))
}

/// Where a run went: its name, directory, when, and the judges' cache.
struct Made {
    name: String,
    dir: std::path::PathBuf,
    created: u64,
    cache: Option<std::sync::Arc<crate::judge::cache::Cache>>,
}

/// What one configuration rates: its rows outside Ties, or its Ties rows.
struct Part {
    /// The configuration of the plan it belongs to.
    of: usize,
    config: Config,
    items: RowItems,
}

/// Failures that fail the run once its directory is written (exit code 2): refusals, and
/// with `--offline` calls missing from the cache.
pub fn finish(args: &CalibrateArgs, run: &Rb2Run) -> Result<()> {
    judges::check_failures(
        &args.plan.judge,
        run.cache.as_deref(),
        run.configs.iter().map(|c| (c.name.as_str(), &c.tally)),
        &format!(
            "the run directory was written: {}",
            run.dir
                .as_ref()
                .map_or_else(String::new, |d| d.display().to_string())
        ),
    )
}

/// The protocols that call a judge: every configuration of the plan, one budget.
fn from_judges(
    args: &CalibrateArgs,
    set: &BestOfSet,
    missing: Missing,
) -> Result<(Vec<Rb2Config>, Made)> {
    // Without --prompt: reward-bench's four-way judge; the demo shows the three protocols.
    let mut plan_args = args.plan.clone();
    if plan_args.prompts.is_empty() {
        plan_args.prompts = if plan_args.demo {
            vec![
                "rb2_ranking".into(),
                "rb2_rating".into(),
                "simple_no_tie".into(),
            ]
        } else {
            vec!["rb2_ranking".into()]
        };
    }
    if plan_args.demo && plan_args.raters.is_empty() {
        plan_args.raters = vec!["basic".into()];
    }
    let plan = plan(
        &plan_args,
        set.seed,
        &crate::report::progress::Steps::default(),
    )?;
    let name = args
        .name
        .clone()
        .or(plan.name.clone())
        .unwrap_or_else(|| if args.plan.demo { "demo" } else { "calibrate" }.into());
    if let Some(c) = plan.configs.iter().find(|c| c.rater.is_baseline()) {
        return Err(input_error(format!(
            "rater '{}' of '{}' is a baseline for pairs; RewardBench 2 rows take basic or sc:N raters",
            c.rater, c.name
        )));
    }
    // Each configuration rates its rows outside Ties by its protocol, and Ties by ratings.
    let mut parts: Vec<Part> = Vec::new();
    for (of, config) in plan.configs.iter().enumerate() {
        let Items { main, ties } = items(config, &set.rows, args.plan.data.both_orders)?;
        judges::check_configs(std::slice::from_ref(config), &main.examples)?;
        for (config, items) in [(config.clone(), main), (ties_config(config)?, ties)] {
            if !items.examples.is_empty() {
                parts.push(Part { of, config, items });
            }
        }
    }
    let configs: Vec<Config> = parts.iter().map(|p| p.config.clone()).collect();
    let rated: Vec<crate::raters::Part<'_>> = parts
        .iter()
        .map(|p| (&p.config, p.items.examples.as_slice()))
        .collect();
    let (dir, created) = super::out::create(args.out.as_deref(), &name)?;
    let mut log = crate::report::run_dir::AnswerLog::create(
        &dir,
        configs.iter().map(|c| c.name.clone()).collect(),
    )?;
    let observer =
        crate::report::progress::Calls::new(&configs, &crate::raters::calls_per_part(&rated));
    let mut outcomes: Vec<Vec<RowOutcome>> =
        vec![vec![RowOutcome::default(); set.rows.len()]; plan.configs.len()];
    let mut tallies: Vec<CallTally> = vec![CallTally::default(); plan.configs.len()];
    let mut next = vec![0usize; parts.len()];
    crate::raters::rate_parts(
        &rated,
        judges::budget(&args.plan.judge)?,
        observer.clone(),
        &mut |k, rating| {
            let p = &parts[k];
            fold(
                &mut outcomes[p.of],
                &set.rows,
                &p.items,
                next[k],
                &p.config,
                &rating,
            );
            next[k] += 1;
            tallies[p.of].add(&rating);
            log.add(k, &rating);
        },
    );
    observer.finish();
    log.finish()?;
    let mut out = Vec::new();
    for (k, config) in plan.configs.iter().enumerate() {
        let protocol = Protocol::of(&config.template);
        let rows: Vec<Scored> = set
            .rows
            .iter()
            .zip(&outcomes[k])
            .map(|(shown, o)| {
                let n = shown.row.completions.len();
                let grades = if o.grades.is_empty() {
                    vec![None; n]
                } else {
                    o.grades.clone()
                };
                let decided = (shown.row.subset != TIES).then(|| match protocol {
                    Protocol::Ratings => None,
                    // No pick read: 1/4, reward-bench's "effectively a tie".
                    Protocol::Ranking => Some(o.pick.map_or(UNREAD_PICK, |p| {
                        f64::from(u8::from(shown.gold.contains(&p)))
                    })),
                    Protocol::Pairwise => Some(f64::from(u8::from(
                        !o.wins.is_empty() && o.wins.iter().all(|w| *w == Some(true)),
                    ))),
                });
                scored(shown, grades, decided.flatten(), FAILED_RATING)
            })
            .collect();
        let readers_disagree = (protocol == Protocol::Ranking).then(|| {
            outcomes[k]
                .iter()
                .zip(&set.rows)
                .filter(|(o, s)| s.row.subset != TIES && o.pick != o.other_pick)
                .count()
        });
        let mut c = self::config(
            args,
            set,
            config.name.clone(),
            protocol.key(),
            rows,
            missing,
            (tallies[k].clone(), std::mem::take(&mut outcomes[k])),
        );
        c.readers_disagree = readers_disagree;
        c.simulated = config.judge.is_simulated();
        out.push(c);
    }
    Ok((
        out,
        Made {
            name,
            dir,
            created,
            cache: plan.caches.first().cloned(),
        },
    ))
}
