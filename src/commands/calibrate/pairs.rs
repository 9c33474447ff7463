//! `calibrate`'s pairs form: every judge configuration rates the same examples; the record is
//! evaluated and compared.

use super::session::{Rated, Session};
use crate::evaluation::{self, ConfigRecord, Cost, Outcome, RunRecord};
use crate::raters::{self, RaterKind, RatingRow};
use crate::run::data::Dataset;
use crate::run::plan::Plan;
use crate::run::record::Form;
use crate::run::record::{ConfigMeta, Run, RunHead, RunMeta};
use crate::run::settings::{CalibrateSettings, ReferenceSpec};
use anyhow::Result;
use sha2::{Digest, Sha256};

/// SHA-256 of the examples as the judge saw them (ids, golds, texts).
pub fn checksum(dataset: &Dataset) -> String {
    let mut h = Sha256::new();
    for e in &dataset.examples {
        for part in [
            e.id.as_str(),
            // An unlabelled item's gold is empty.
            &e.gold.map_or_else(String::new, |g| g.to_string()),
            &e.prompt,
            &e.response1,
            &e.response2,
        ] {
            h.update(part.as_bytes());
            h.update([0]);
        }
        // A conversation's earlier turns (none for a single-turn item, whose checksum stays).
        for t in e.history.iter() {
            h.update(t.role.label().as_bytes());
            h.update([1]);
            h.update(t.content.as_bytes());
            h.update([0]);
        }
    }
    crate::judge::cache::hex(&h.finalize())
}

/// What a configuration's calls cost, in dollars too with a price for its model.
fn cost(u: raters::Usage, wall_seconds: f64, price: Option<crate::judge::Price>) -> Cost {
    Cost::of_usage(&u, wall_seconds, u.usd(price))
}

/// What the run rated, as the evaluation and `report DIR` read it: the plan's configurations,
/// then its juries.
fn record(
    dataset: &Dataset,
    plan: &Plan,
    (ratings, shapes): (&[Vec<RatingRow>], Vec<[evaluation::Shape; 2]>),
    rated: &Rated,
) -> RunRecord {
    let configs = &plan.configs;
    let juries = plan.juries.iter().map(|(j, _)| j);
    let mut records: Vec<ConfigRecord> = plan
        .metas
        .iter()
        .zip(ratings)
        .zip(&rated.tallies)
        .enumerate()
        .map(|(i, ((m, r), tally))| ConfigRecord {
            pointwise: (configs[i].template.mode == crate::prompts::Mode::Pointwise
                && !configs[i].rater.is_baseline())
            .then(|| evaluation::PointwiseRecord {
                grades: r.iter().map(|x| x.grades.unwrap_or((None, None))).collect(),
                tie_margin: configs[i].pointwise.tie_margin,
                lowest: configs[i].template.scale.map(|s| s.0),
                order_blind: configs[i].judge.is_order_blind(),
            }),
            probability: raters::probability::source(&configs[i])
                .map(|source| probability_record(source, r)),
            samples: (configs[i].template.mode == crate::prompts::Mode::Pairwise
                && matches!(configs[i].rater, RaterKind::SelfConsistency { .. }))
            .then(|| r.iter().map(|x| x.verdicts.to_vec()).collect()),
            kind: Some(configs[i].rater),
            ..base_record(m, r, cost(tally.usage, rated.wall_seconds[i], m.price))
        })
        .collect();
    for ((jury, (_, m)), r) in juries.zip(&plan.juries).zip(&ratings[configs.len()..]) {
        // A jury costs what its members cost (its tally sums theirs), in their time.
        let wall = jury.members.iter().map(|&k| rated.wall_seconds[k]).sum();
        // In dollars when each member has a price: their sum (members may be priced apart).
        let usd = jury
            .members
            .iter()
            .map(|&k| records[k].cost.usd)
            .sum::<Option<f64>>();
        let cost = Cost {
            usd,
            ..cost(rated.tallies[records.len()].usage, wall, None)
        };
        let pointwise = r.iter().any(|x| x.grades.is_some()).then(|| {
            let first = records[jury.members[0]].pointwise.as_ref();
            evaluation::PointwiseRecord {
                grades: r.iter().map(|x| x.grades.unwrap_or((None, None))).collect(),
                tie_margin: jury.tie_margin,
                lowest: first.and_then(|p| p.lowest),
                order_blind: first.is_some_and(|p| p.order_blind),
            }
        });
        records.push(ConfigRecord {
            pointwise,
            probability: Some(probability_record(raters::probability::Source::Jury, r)),
            jury: Some(jury.clone()),
            kind: None,
            ..base_record(m, r, cost)
        });
    }
    // Conversations: each item's depth, the depth analytic's input.
    let mut inputs = evaluation::analytic::Inputs::default();
    let depths = dataset.examples.iter();
    let depths = depths.map(|e| crate::dataset::conversation::depth(&e.history));
    if let Some(d) = evaluation::depth::Depths::of(depths.collect()) {
        inputs.put(Box::new(d));
    }
    RunRecord {
        labels: crate::metrics::Labels::pairwise(),
        inputs,
        items: evaluation::items::rows_of(&dataset.examples)
            .into_iter()
            .collect(),
        configs: records,
        both_orders: dataset.both_orders,
        annotators: dataset.annotations(),
        generators: evaluation::Generators::of(
            dataset
                .examples
                .iter()
                .map(|e| (e.generators.as_ref(), e.prompt.as_str())),
        ),
        shapes,
    }
}

/// A configuration's record without its form's parts (pointwise, probability, samples, jury).
fn base_record(m: &ConfigMeta, r: &[RatingRow], cost: Cost) -> ConfigRecord {
    ConfigRecord {
        name: m.name.clone(),
        prompt: m.prompt.clone(),
        rater: m.rater.clone(),
        kind: None,
        judge: m.judge.clone(),
        simulated: m.simulated,
        outcomes: r.iter().map(Outcome::from).collect(),
        cost,
        reasons: evaluation::tally(
            r.iter()
                .filter(|x| x.status != raters::Status::Rated)
                .filter_map(|x| x.reason.as_deref()),
        ),
        pointwise: None,
        probability: None,
        samples: None,
        jury: None,
    }
}

fn probability_record(
    source: raters::probability::Source,
    r: &[RatingRow],
) -> evaluation::ProbabilityRecord {
    evaluation::ProbabilityRecord {
        source: source.key().to_string(),
        p: r.iter().map(|x| x.p_response2).collect(),
        missing: evaluation::tally(
            r.iter()
                .filter(|x| x.p_response2.is_none())
                .filter_map(|x| x.p_problem.as_deref()),
        ),
    }
}

/// `--reference`: the table read (or the gold labels' ranking), refused when the data does not
/// say which model wrote each response.
pub fn reference(
    args: &CalibrateSettings,
    dataset: &Dataset,
) -> Result<Option<evaluation::Reference>> {
    let Some(spec) = &args.reference else {
        return Ok(None);
    };
    if let Some(e) = dataset.examples.iter().find(|e| e.generators.is_none()) {
        return Err(crate::error::input_error(format!(
            "--reference compares rankings of models, but item '{}' does not say which models wrote its responses; map them with --map generator1=COL,generator2=COL (reward-bench files carry chosen_model and rejected_model, AlpacaEval's generator_1 and generator_2)",
            e.id
        )));
    }
    Ok(Some(match spec {
        ReferenceSpec::Gold => evaluation::Reference::Gold,
        ReferenceSpec::Table { path, model, score } => evaluation::Reference::Table {
            source: format!("{} ({score})", path.display()),
            scores: crate::dataset::reference::read(path, (model, score))?,
        },
    }))
}

/// `calibrate` on pairs: every configuration rates every example (under `--sequential`, until
/// the race is decided, in a seeded order).
pub fn run(args: &CalibrateSettings, mut dataset: Dataset) -> Result<Run> {
    let seed = dataset.seed;
    if args.sequential.as_ref().is_some_and(|s| s.shuffle) {
        super::sequential::shuffle(&mut dataset);
    }
    // The reference is read and checked before any call, and so is what the alt-test needs.
    let reference = reference(args, &dataset)?;
    if args.alt_test.epsilon.is_some() && dataset.annotators.len() < 2 {
        return Err(crate::error::input_error(
            "--alt-test compares the judge with several annotators of each item, and this data has one gold label per item; give every annotator's column (--map label=A+B+C), long form, or a label store with several annotators",
        ));
    }
    let session = Session::plan(args, Form::Pairs, seed)?;
    let Plan {
        configs,
        metas,
        caches,
        ..
    } = &session.plan;
    let layout = dataset.layout(configs)?;
    let jury_names: Vec<String> = session
        .plan
        .juries
        .iter()
        .map(|(_, m)| m.name.clone())
        .collect();
    let mut racing = args
        .sequential
        .as_ref()
        .map(|s| super::sequential::race(s, configs, &jury_names, (&dataset, args.alpha)))
        .transpose()?;
    // The run keeps a row per rating; the answers went to the run directory.
    let mut ratings: Vec<Vec<RatingRow>> = configs
        .iter()
        .map(|_| Vec::with_capacity(dataset.examples.len()))
        .collect();
    // What the data alone gives (its checksum, SHA-256 over every text, and the responses'
    // shapes) is taken on a thread beside the rating loop, which leaves a core idle.
    let (mut rated, (checksum, shapes)) = std::thread::scope(|s| {
        let beside = s.spawn(|| {
            let shapes = evaluation::Shape::of_examples(&dataset.examples);
            (checksum(&dataset), shapes)
        });
        let rated = session.rate(args, &layout, &mut |k, _, index, rating| {
            ratings[k].push(RatingRow::from(rating));
            racing
                .as_mut()
                .map_or(raters::Flow::Go, |race| race.add(k, index, rating))
        });
        let beside = beside
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        rated.map(|rated| (rated, beside))
    })?;
    let sequential = racing.map(|r| r.finish(&rated.planned));
    // The juries vote from their members' ratings: no call of their own.
    let mut metas = metas.clone();
    for (jury, meta) in &session.plan.juries {
        ratings.push(raters::jury::rows(jury, &ratings));
        metas.push(meta.clone());
        let tally = raters::CallTally::of_members(jury.members.iter().map(|&k| &rated.tallies[k]));
        rated.tallies.push(tally);
    }
    let mut record = record(&dataset, &session.plan, (&ratings, shapes), &rated);
    if let Some(g) = record.generators.as_mut() {
        g.reference = reference;
    }
    // The race's end: a configuration it dropped is never the best (`ranking::best`).
    if let Some(run) = &sequential {
        record.inputs.put(Box::new(run.raced.clone()));
    }
    let meta = RunMeta {
        head: RunHead {
            name: session.name.clone(),
            dir: rated.dir,
            source: dataset.source.clone(),
            seed,
            both_orders: dataset.both_orders,
            bootstrap: args.bootstrap,
            command: crate::run::command_line(),
            created_unix: rated.created_unix,
        },
        checksum,
        configs: metas,
        form: Form::Pairs,
        sort: args.sort,
        family: args.family,
        no_majority: dataset.no_majority,
        unshared: dataset.unshared.clone(),
        sequential,
        estimate: args.estimate,
        alt_test: args.alt_test,
        alpha: args.alpha,
    };
    let histories = dataset
        .examples
        .iter()
        .any(|e| !e.history.is_empty())
        .then(|| dataset.examples.iter().map(|e| e.history.clone()).collect());
    // The texts move to the run (the page shows them); the examples are done with.
    let texts = dataset
        .examples
        .iter_mut()
        .map(|e| [&mut e.prompt, &mut e.response1, &mut e.response2].map(std::mem::take))
        .collect();
    let run = Run {
        meta,
        record,
        evaluation: crate::evaluation::Evaluation::default(),
        ratings: Some(ratings),
        tallies: rated.tallies,
        caches: caches.clone(),
        texts: Some(texts),
        histories,
        early: None,
    };
    crate::run::evaluated::evaluate_beside(run, args.cost)
}
