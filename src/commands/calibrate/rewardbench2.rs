//! `calibrate`'s RewardBench 2 form: judge configurations by their protocol (a ranking
//! template: four-way; a pointwise one or a reward model's scores, `--judge scores:FILE`:
//! ratings; a pairwise one: the correct completion against each incorrect one; Ties rows always
//! by ratings), each rating folded into its row, then scored as reward-bench scores them
//! (`evaluation::rewardbench2::score`).

use super::session::Session;
use crate::error::input_error;
use crate::evaluation::rewardbench2::record::record;
use crate::evaluation::{Evaluation, RunRecord};
use crate::raters::rewardbench2::{fold, Protocol, RowOutcome};
use crate::raters::rewardbench2::{scores_floor_of, Rb2Made, FAILED_RATING};
use crate::raters::Missing;
use crate::run::data::Rb2Set;
use crate::run::file::Rb2RunFile;
use crate::run::plan::Form;
use crate::run::record::Rb2Run;
use crate::run::record::RunHead;
use crate::run::settings::{CalibrateSettings, ReportSettings};
use anyhow::Result;

pub fn run(args: &CalibrateSettings, set: Rb2Set) -> Result<Rb2Run> {
    if args.reference.is_some() {
        return Err(input_error(
            "--reference ranks the models that wrote each response; RewardBench 2's rows do not say which models wrote their completions, so there is no ranking to compare",
        ));
    }
    if args.estimate.is_some() {
        return Err(input_error(
            "--estimate corrects the share of pairs a judge labels one way; RewardBench 2's best-of-4 rows are scored from several ratings each, which it does not estimate: leave out --estimate, or convert the rows to pairs",
        ));
    }
    if args.sequential.is_some() {
        return Err(input_error(
            "--sequential races configurations on pairs, one verdict against one gold label per item; RewardBench 2's best-of-4 rows score a row from several ratings, which it does not race yet: leave out --sequential, or convert the rows to pairs",
        ));
    }
    let by_score = crate::run::record::by_score(args.sort)?;
    let (made, out) = from_judges(args, &set)?;
    let missing = args.plan.judge.pointwise_missing;
    let both_orders = args.plan.data.both_orders;
    let (record, evaluation) = evaluated(
        record(set.rows, made, missing, both_orders),
        (args.bootstrap, set.seed, args.alpha, args.family),
        args.cost,
    );
    Ok(Rb2Run::of(
        RunHead {
            name: out.name,
            dir: out.dir,
            source: set.source,
            seed: set.seed,
            both_orders: args.plan.data.both_orders,
            bootstrap: args.bootstrap,
            command: crate::run::command_line(),
            created_unix: out.created,
        },
        (args.alpha, by_score),
        record,
        evaluation,
        out.caches,
    ))
}

/// The run's record evaluated by the registry's analytics (RewardBench 2's scoring among
/// them), on reward-bench's score, accuracy: `calibrate` and `report DIR` alike.
fn evaluated(
    record: RunRecord,
    (bootstrap, seed, alpha, family): (usize, u64, f64, crate::evaluation::Family),
    cost: crate::run::settings::CostOptions,
) -> (RunRecord, Evaluation) {
    let settings = super::session::eval_settings(
        (bootstrap, seed),
        crate::run::plan::cost_settings(crate::run::settings::SortKey::Accuracy, cost),
        family,
        None,
        alpha,
    );
    let evaluation = crate::evaluation::registry::evaluate(&record, settings);
    (record, evaluation)
}

/// Where a run went: its name, directory, when, and the judges' caches.
struct Out {
    name: String,
    dir: std::path::PathBuf,
    created: u64,
    caches: Vec<std::sync::Arc<crate::judge::cache::Cache>>,
}

/// The protocols that call a judge: every configuration of the plan, one budget.
fn from_judges(args: &CalibrateSettings, set: &Rb2Set) -> Result<(Vec<Rb2Made>, Out)> {
    let session = Session::plan(args, Form::RewardBench2, set.seed)?;
    let plan = &session.plan;
    let layout = set.layout(&plan.configs, args.plan.data.both_orders)?;
    let mut outcomes: Vec<Vec<RowOutcome>> =
        vec![RowOutcome::for_rows(&set.rows); plan.configs.len()];
    let rated = session.rate(args, &layout, &mut |_, part, index, rating| {
        // RewardBench 2 rows always lay out their own items.
        if let Some(items) = layout.rewardbench2() {
            fold(
                &mut outcomes[part.of],
                &set.rows,
                items.of(part.kind),
                index,
                &part.config,
                rating,
            );
        }
        crate::raters::Flow::Go
    })?;
    let mut made: Vec<Rb2Made> = plan
        .configs
        .iter()
        .zip(&plan.metas)
        .zip(outcomes)
        .zip(rated.tallies)
        .map(|(((config, meta), outcomes), tally)| Rb2Made {
            name: config.name.clone(),
            jury: None,
            members: Vec::new(),
            protocol: Protocol::of_config(config),
            simulated: config.judge.is_simulated(),
            floor: FAILED_RATING,
            usd: tally.usage.usd(meta.price),
            tally,
            outcomes,
        })
        .collect();
    for m in made.iter_mut().filter(|m| m.protocol == Protocol::Scores) {
        m.floor = scores_floor_of(m, &set.source)?;
    }
    for (jury, _) in &plan.juries {
        made.push(crate::raters::jury::rb2_made(jury, &made)?);
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

/// `report DIR` on a RewardBench 2 run: its rows and what each configuration made read back
/// and scored again (`--bootstrap` and `--sort` given, else the run's own).
pub fn reread(args: &ReportSettings, file: Rb2RunFile) -> Result<Rb2Run> {
    let dir = &args.dir;
    let own = file.sort.as_deref().and_then(|s| s.parse().ok());
    let by_score = crate::run::record::by_score(args.sort.or(own))?;
    let (rows, made) = crate::run::read_rewardbench2::read(dir, &file)?;
    let missing = Missing::parse(file.configs.first().map_or("drop", |c| &c.missing))?;
    let bootstrap = args.bootstrap.unwrap_or(file.bootstrap);
    let seed = file.data.seed;
    let alpha = args.alpha.unwrap_or(file.alpha);
    let family = args
        .family
        .unwrap_or(file.family.parse().unwrap_or_default());
    let both_orders = file.data.both_orders.unwrap_or(false);
    let (record, evaluation) = evaluated(
        record(rows, made, missing, both_orders),
        (bootstrap, seed, alpha, family),
        args.cost,
    );
    Ok(Rb2Run::of(
        RunHead {
            name: file.name,
            dir: dir.clone(),
            source: file.data.source,
            seed,
            both_orders,
            bootstrap,
            // run.json keeps the command line as one string, its words joined by spaces.
            command: file.command.split(' ').map(String::from).collect(),
            created_unix: file.created_unix,
        },
        (alpha, by_score),
        record,
        evaluation,
        Vec::new(),
    ))
}
