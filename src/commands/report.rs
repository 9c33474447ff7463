//! `raterlab report DIR`: re-evaluate and re-render a finished run; no judge is called.

use super::calibrate::{Run, SORT_KEYS};
use crate::cli::ReportArgs;
use crate::error::input_error;
use crate::evaluation::{evaluate, EvalSettings};
use anyhow::Result;

pub fn run(args: &ReportArgs) -> Result<Run> {
    if !SORT_KEYS.contains(&args.sort.as_str()) {
        return Err(input_error(format!(
            "--sort '{}' is not a metric; use one of {}",
            args.sort,
            SORT_KEYS.join(", ")
        )));
    }
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
        caches: Vec::new(),
        texts: None,
    })
}
