//! `raterlab report DIR`: re-evaluate and re-render a finished run, whatever its form; no
//! judge is called.

use super::calibrate::Calibrated;
use crate::evaluation::EvalSettings;
use crate::raters::Missing;
use crate::report::calibrate::sections::evaluate;
use crate::run::file::RunFile;
use crate::run::record::{Run, RunHead};
use crate::run::rewardbench2::Rb2Run;
use crate::run::settings::ReportSettings;
use crate::run::{read, read_rewardbench2};
use anyhow::Result;

/// `raterlab report DIR`: the run read back and evaluated, its directory written again, the
/// terminal or the JSON document.
pub fn report(args: &ReportSettings) -> Result<()> {
    let run = run(args)?;
    run.write_dir()?;
    crate::report::calibrate::emit(run.shown(), args.json, args.details)
}

/// The run of DIR, evaluated again.
pub fn run(args: &ReportSettings) -> Result<Calibrated> {
    let dir = &args.dir;
    Ok(match read::run_file(dir)? {
        RunFile::Pairs(file) => {
            let (mut meta, record) = read::read(dir, &file)?;
            if let Some(b) = args.bootstrap {
                meta.head.bootstrap = b;
            }
            meta.sort = args.sort.unwrap_or(meta.sort);
            let evaluation = evaluate(
                &record,
                EvalSettings {
                    bootstrap: meta.head.bootstrap,
                    seed: meta.head.seed,
                    cost: crate::run::plan::cost_settings(meta.sort, args.cost),
                },
            );
            Box::new(Run {
                meta,
                record,
                evaluation,
                ratings: None,
                tallies: vec![],
                caches: Vec::new(),
                texts: None,
                histories: None,
            })
        }
        RunFile::RewardBench2(file) => {
            // --sort, else the run's own.
            let own = file.sort.as_deref().and_then(|s| s.parse().ok());
            let by_score = crate::run::rewardbench2::by_score(args.sort.or(own))?;
            let (rows, made) = read_rewardbench2::read(dir, &file)?;
            let missing = Missing::parse(file.configs.first().map_or("drop", |c| &c.missing))?;
            let bootstrap = args.bootstrap.unwrap_or(file.bootstrap);
            let seed = file.data.seed;
            let (configs, comparisons, group) =
                crate::run::rewardbench2::score(&rows, made, missing, bootstrap, seed);
            Box::new(Rb2Run {
                head: RunHead {
                    name: file.name,
                    dir: dir.clone(),
                    source: file.data.source,
                    seed,
                    both_orders: file.data.both_orders.unwrap_or(false),
                    bootstrap,
                    // run.json keeps the command line as one string, its words joined by spaces.
                    command: file.command.split(' ').map(String::from).collect(),
                    created_unix: file.created_unix,
                },
                rows: rows.len(),
                configs,
                shown: rows,
                comparisons,
                group,
                caches: Vec::new(),
                by_score,
            })
        }
    })
}
