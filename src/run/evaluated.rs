//! A run's record evaluated by the registry with the run's settings, for `calibrate` (beside
//! writing its directory) and `report DIR` (a run directory read back by the one reader), on
//! either form.

use crate::run::record::Run;
use anyhow::Result;

/// The registry's evaluation of a run's record, on either form and for `calibrate` and
/// `report DIR` alike, with the run's settings: its bootstrap and seed, its sort (the cost
/// analysis's metric, which it carries; RewardBench 2's: accuracy, reward-bench's score),
/// `--family`, `--estimate` and α, and the cost options.
pub fn evaluate(
    record: &crate::evaluation::RunRecord,
    meta: &crate::run::record::RunMeta,
    cost: crate::run::settings::CostOptions,
) -> crate::evaluation::Evaluation {
    let cost = crate::run::plan::cost_settings(meta.sort_key(), cost);
    let settings = crate::evaluation::EvalSettings {
        bootstrap: meta.head.bootstrap,
        seed: meta.head.seed,
        sort: cost.metric,
        family: meta.family,
        alpha: meta.alpha,
        options: crate::evaluation::Options::default()
            .with(cost)
            .with(meta.estimate)
            .with(meta.alt_test),
    };
    crate::evaluation::registry::evaluate(record, settings)
}

/// `run` evaluated, with what of its directory needs no evaluation (a run over pairs: its
/// record's files and the item browser's data, the larger part of the directory) written
/// beside it, so that the two share the machine's cores (`Run::write_early`; the rest is
/// written by `Run::write_dir`, which leaves what was written here).
pub fn evaluate_beside(mut run: Run, cost: crate::run::settings::CostOptions) -> Result<Run> {
    let (evaluation, early) = std::thread::scope(|scope| {
        let early = scope.spawn(|| run.write_early());
        let evaluation = evaluate(&run.record, &run.meta, cost);
        let early = early
            .join()
            .unwrap_or_else(|_| Err(anyhow::anyhow!("writing the run directory stopped")));
        (evaluation, early)
    });
    run.evaluation = evaluation;
    run.early = early?;
    Ok(run)
}

/// `report DIR`: a run directory of either form read back by the one reader (`run::read`) and
/// evaluated again, with `--bootstrap`, `--sort`, `--alpha` and `--family` given, else the
/// run's own.
pub fn reread(args: &crate::run::settings::ReportSettings) -> Result<Run> {
    let file = crate::run::read::run_file(&args.dir)?;
    // A sort the form has no value for is refused before the directory is read.
    file.form().sort(args.sort)?;
    let (mut meta, record) = crate::run::read::read(&args.dir, &file)?;
    meta.head.bootstrap = args.bootstrap.unwrap_or(meta.head.bootstrap);
    meta.sort = meta.form.sort(args.sort.or(meta.sort))?;
    meta.family = args.family.unwrap_or(meta.family);
    meta.alpha = args.alpha.unwrap_or(meta.alpha);
    let evaluation = evaluate(&record, &meta, args.cost);
    Ok(Run::evaluated(meta, record, evaluation))
}
