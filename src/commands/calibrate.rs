//! `raterlab calibrate`: every judge configuration over the same examples, evaluated and
//! compared, written to a run directory.

use crate::cli::CalibrateArgs;
use crate::evaluation::{self, ConfigRecord, Cost, EvalSettings, ItemRow, Outcome, RunRecord};
use crate::raters::{self, CallTally, RaterKind, RatingRow};
use crate::run::data::{self, Dataset};
use crate::run::judges;
use crate::run::plan::{check_sort, data_settings, plan, Plan};
use crate::run::record::{Run, RunMeta};
use anyhow::Result;
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// SHA-256 of the examples as the judge saw them (ids, golds, texts).
pub fn checksum(dataset: &Dataset) -> String {
    let mut h = Sha256::new();
    for e in &dataset.examples {
        for part in [
            e.id.as_str(),
            &e.gold.to_string(),
            &e.prompt,
            &e.response1,
            &e.response2,
        ] {
            h.update(part.as_bytes());
            h.update([0]);
        }
    }
    crate::judge::cache::hex(&h.finalize())
}

fn cost(u: raters::Usage, wall_seconds: f64) -> Cost {
    Cost {
        calls: u.calls,
        cache_hits: u.cache_hits,
        tokens_in: u.tokens_in,
        tokens_out: u.tokens_out,
        wall_seconds,
    }
}

/// Items as the evaluation sees them.
pub fn items(dataset: &Dataset) -> Vec<ItemRow> {
    dataset
        .examples
        .iter()
        .map(|e| ItemRow {
            id: e.id.clone(),
            pair_id: e.pair_id.clone(),
            subset: e.subset.clone(),
            order: e.order,
            gold: e.gold,
            seeded: e.seeded,
        })
        .collect()
}

/// What `calibrate` made: a run over pairs, or RewardBench 2's leaderboards.
#[derive(Debug)]
pub enum Calibrated {
    Pairs(Box<Run>),
    BestOf(Box<crate::run::rewardbench2::Rb2Run>),
}

/// `calibrate` on whichever form the data comes in.
pub fn run_any(args: &CalibrateArgs) -> Result<Calibrated> {
    check_sort(&args.sort)?;
    let settings = data_settings(&args.plan)?;
    match data::load_rows(&settings, &crate::report::progress::Download::default())? {
        data::Rows::BestOf(set) => Ok(Calibrated::BestOf(Box::new(super::rewardbench2::run(
            args, set,
        )?))),
        data::Rows::Pairs(dataset) => {
            Ok(Calibrated::Pairs(Box::new(run_with(args, Some(dataset))?)))
        }
    }
}

pub fn run(args: &CalibrateArgs) -> Result<Run> {
    run_with(args, None)
}

/// `run`, with the data already loaded (`run_any`) or not.
fn run_with(args: &CalibrateArgs, loaded: Option<Dataset>) -> Result<Run> {
    check_sort(&args.sort)?;
    let data_settings = data_settings(&args.plan)?;
    let mut plan_args = args.plan.clone();
    if args.batch.batch {
        // Every call is answered by a batch (or fails as the batch said): none goes out alone.
        super::batch::rounds::check_batch_judges(&plan_args)?;
        plan_args.judge.offline = true;
    }
    let Plan {
        configs,
        metas,
        caches,
        name,
    } = plan(
        &plan_args,
        data_settings.seed,
        &crate::report::progress::Steps::default(),
    )?;
    let name = args.name.clone().or(name).unwrap_or_else(|| {
        if args.plan.demo {
            "demo".into()
        } else {
            "calibrate".into()
        }
    });
    let budget = judges::budget(&args.plan.judge)?;
    let dataset = match loaded {
        Some(dataset) => dataset,
        None => data::load(
            &data_settings,
            &crate::report::progress::Download::default(),
        )?,
    };
    judges::check_configs(&configs, &dataset.examples)?;
    let (dir, created_unix) = super::out::create(args.out.as_deref(), &name)?;
    let configs = if args.batch.batch {
        super::batch::rounds::run_batches(
            args,
            configs,
            &dataset.examples,
            &caches,
            &crate::report::batch::Watcher::default(),
        )?
    } else {
        configs
    };
    let observer = crate::report::progress::Calls::new(
        &configs,
        &crate::raters::calls_per_config(&configs, &dataset.examples),
    );
    // The answers go to the run directory as they come; the run keeps a row per rating.
    let mut log = crate::report::run_dir::AnswerLog::create(
        &dir,
        configs.iter().map(|c| c.name.clone()).collect(),
    )?;
    let mut ratings: Vec<Vec<RatingRow>> = configs
        .iter()
        .map(|_| Vec::with_capacity(dataset.examples.len()))
        .collect();
    let mut tallies: Vec<CallTally> = vec![CallTally::default(); configs.len()];
    raters::rate(
        &configs,
        &dataset.examples,
        budget,
        observer.clone(),
        &mut |config, rating| {
            log.add(config, &rating);
            tallies[config].add(&rating);
            ratings[config].push(RatingRow::from(&rating));
        },
    );
    observer.finish();
    log.finish()?;
    let record = RunRecord {
        items: items(&dataset),
        configs: metas
            .iter()
            .zip(&ratings)
            .zip(&tallies)
            .enumerate()
            .map(|(i, ((m, r), tally))| ConfigRecord {
                name: m.name.clone(),
                prompt: m.prompt.clone(),
                rater: m.rater.clone(),
                judge: m.judge.clone(),
                simulated: m.simulated,
                outcomes: r.iter().map(Outcome::from).collect(),
                cost: cost(tally.usage, observer.wall_seconds(i)),
                reasons: evaluation::tally(
                    r.iter()
                        .filter(|x| x.status != raters::Status::Rated)
                        .filter_map(|x| x.reason.as_deref()),
                ),
                pointwise: (configs[i].template.mode == crate::prompts::Mode::Pointwise
                    && !configs[i].rater.is_baseline())
                .then(|| evaluation::PointwiseRecord {
                    grades: r.iter().map(|x| x.grades.unwrap_or((None, None))).collect(),
                    tie_margin: configs[i].pointwise.tie_margin,
                    lowest: configs[i].template.scale.map(|s| s.0),
                    order_blind: configs[i].judge.is_order_blind(),
                }),
                samples: (configs[i].template.mode == crate::prompts::Mode::Pairwise
                    && matches!(configs[i].rater, RaterKind::SelfConsistency { .. }))
                .then(|| r.iter().map(|x| x.verdicts.to_vec()).collect()),
            })
            .collect(),
        both_orders: dataset.both_orders,
        annotators: (!dataset.annotators.is_empty()).then(|| evaluation::Annotations {
            names: dataset.annotators.clone(),
            votes: dataset.examples.iter().map(|e| e.votes.clone()).collect(),
            no_majority: dataset.no_majority,
            policy: dataset.no_majority_policy.name().to_string(),
        }),
        shapes: dataset
            .examples
            .iter()
            .map(|e| {
                [
                    evaluation::bias::Shape::of(&e.response1),
                    evaluation::bias::Shape::of(&e.response2),
                ]
            })
            .collect(),
    };
    let evaluation = evaluation::evaluate(
        &record,
        EvalSettings {
            bootstrap: args.bootstrap,
            seed: data_settings.seed,
        },
    );
    let meta = RunMeta {
        name,
        dir,
        source: dataset.source.clone(),
        seed: data_settings.seed,
        both_orders: dataset.both_orders,
        bootstrap: args.bootstrap,
        checksum: checksum(&dataset),
        configs: metas,
        command: crate::run::command_line(),
        created_unix,
        sort: args.sort.clone(),
        no_majority: dataset.no_majority,
    };
    Ok(Run {
        meta,
        record,
        evaluation,
        ratings: Some(ratings),
        tallies,
        caches,
        texts: Some(
            dataset
                .examples
                .iter()
                .map(|e| [e.prompt.clone(), e.response1.clone(), e.response2.clone()])
                .collect(),
        ),
    })
}

/// Problems to report after the run directory is written: answers that could not be cached,
/// and (with `--offline`) calls missing from the cache, which fail the run.
pub fn finish(args: &CalibrateArgs, run: &Run) -> Result<()> {
    let unwritten: usize = run
        .caches
        .iter()
        .map(|c| c.write_errors.load(std::sync::atomic::Ordering::Relaxed))
        .sum();
    for cache in &run.caches {
        for note in crate::report::ratings::cache_notes(cache) {
            crate::report::format::stderr_line(&format!("note: {note}"));
        }
    }
    if unwritten > 0 {
        crate::report::format::warn(&format!(
            "{unwritten} answers could not be written to the cache; they are in the run directory"
        ));
    }
    judges::check_failures(
        &args.plan.judge,
        run.caches.first().map(Arc::as_ref),
        run.meta
            .configs
            .iter()
            .map(|c| c.name.as_str())
            .zip(&run.tallies),
        &format!("the run directory was written: {}", run.meta.dir.display()),
    )
}
