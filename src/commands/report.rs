//! `raterlab report DIR`: re-evaluate and re-render a finished run; no judge is called.

use crate::cli::ReportArgs;
use crate::evaluation::{evaluate, EvalSettings};
use crate::run::plan::check_sort;
use crate::run::record::Run;
use anyhow::Result;

pub fn run(args: &ReportArgs) -> Result<Run> {
    check_sort(&args.sort)?;
    let (mut meta, record) = crate::report::run_dir::read(&args.dir)?;
    if let Some(b) = args.bootstrap {
        meta.bootstrap = b;
    }
    meta.sort = args.sort.clone();
    let evaluation = evaluate(
        &record,
        EvalSettings {
            bootstrap: meta.bootstrap,
            seed: meta.seed,
        },
    );
    Ok(Run {
        meta,
        record,
        evaluation,
        ratings: None,
        tallies: vec![],
        caches: Vec::new(),
        texts: None,
    })
}
