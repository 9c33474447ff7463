//! `raterlab calibrate`: judge configurations over a data set, evaluated, compared and
//! written to a run directory. The loader decides the form; `session.rs` does what every form
//! does (plan, run directory, `--batch` rounds, answer log, progress, budget, tallies,
//! finish) on the plan's `run::forms::Layout`; each form's file says only what differs (how a
//! rating folds into its rows, its juries, its scoring):
//!
//! - `pairs.rs`: every configuration rates every pair (and order);
//! - `rewardbench2.rs`: RewardBench 2's best-of-4 rows, by each configuration's protocol.
//!
//! `forms.rs` turns the loader's choice into a `forms::Loaded`; what either form made is a
//! `Calibrated`: what it says of itself (`run::record::Made`) and what it shows
//! (`report::calibrate::Shown`), so nothing after the form's own file names it.

pub mod forms;
pub mod pairs;
pub mod rewardbench2;
pub mod sequential;
pub mod session;

use crate::run::data;
use crate::run::plan::data_settings;
use crate::run::record::Made;
use crate::run::settings::CalibrateSettings;
use anyhow::Result;
pub use forms::{Calibrated, Calibration};

/// The whole of `calibrate`, for the command line and `api::calibrate` alike: the run, its
/// directory written, `show` (the terminal, or the JSON document returned), then the finish
/// (whose failures come after the directory is written, so nothing paid for is lost).
pub fn calibrate<T>(
    args: &CalibrateSettings,
    show: impl FnOnce(&dyn Calibration) -> Result<T>,
) -> Result<T> {
    let calibrated = run(args)?;
    calibrated.write_dir()?;
    let shown = show(calibrated.as_ref())?;
    finish(args, calibrated.made())?;
    Ok(shown)
}

/// `calibrate` on whichever form the loader found.
pub fn run(args: &CalibrateSettings) -> Result<Calibrated> {
    let settings = data_settings(&args.plan)?;
    let rows = data::load_rows(
        &settings,
        &crate::report::media::progress::Download::default(),
    )?;
    forms::loaded(rows).calibrate(args)
}

/// Problems to report once the run directory is written (`session::finish`): notes of the
/// caches, unwritten answers, and the failures that fail the run.
pub fn finish(args: &CalibrateSettings, calibrated: &dyn Made) -> Result<()> {
    session::finish(
        args,
        calibrated.caches(),
        calibrated.tallies().into_iter(),
        calibrated.dir(),
    )
}
