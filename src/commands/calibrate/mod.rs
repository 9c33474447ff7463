//! `raterlab calibrate`: judge configurations over a data set, evaluated, compared and
//! written to a run directory. The loader decides the form; `session.rs` does what every form
//! does (plan, run directory, `--batch` rounds, answer log, progress, budget, tallies,
//! finish) on the plan's `run::forms::Layout`, and evaluates every form's record alike
//! (`run::evaluated::evaluate`); what differs is how a rating folds into the record:
//!
//! - `pairs.rs`: every configuration rates every pair (and order), with pairs' race,
//!   reference and estimate;
//! - `forms.rs`: RewardBench 2's best-of-4 rows, by each configuration's protocol, folded into
//!   their rows and made the rows' pairs.
//!
//! `forms.rs` turns the loader's choice into a `forms::Loaded`; what either form made is the
//! one `run::record::Run`, which shows itself (`report::calibrate::forms`), so nothing after
//! the form's own file names it.

pub mod forms;
pub mod out;
pub mod pairs;
pub mod sequential;
pub mod session;

use crate::run::data;
use crate::run::plan::data_settings;
use crate::run::record::Run;
use crate::run::settings::CalibrateSettings;
use anyhow::Result;

/// The whole of `calibrate`, for the command line and `api::calibrate` alike: the run, its
/// directory written, `show` (the terminal, or the JSON document returned), then the finish
/// (whose failures come after the directory is written, so nothing paid for is lost).
pub fn calibrate<T>(args: &CalibrateSettings, show: impl FnOnce(&Run) -> Result<T>) -> Result<T> {
    let calibrated = run(args)?;
    calibrated.write_dir()?;
    let shown = show(&calibrated)?;
    finish(args, &calibrated)?;
    Ok(shown)
}

/// `calibrate` on whichever form the loader found.
pub fn run(args: &CalibrateSettings) -> Result<Run> {
    let settings = data_settings(&args.plan)?;
    let rows = data::load_rows(
        &settings,
        &crate::report::media::progress::Download::default(),
    )?;
    forms::loaded(rows).calibrate(args)
}

/// Problems to report once the run directory is written (`session::finish`): notes of the
/// caches, unwritten answers, and the failures that fail the run.
pub fn finish(args: &CalibrateSettings, run: &Run) -> Result<()> {
    session::finish(args, &run.caches, run.named_tallies(), &run.meta.head.dir)
}
