//! `raterlab calibrate`: judge configurations over a data set, evaluated, compared and
//! written to a run directory. The one place that chooses the data's form: `session.rs` does
//! what every form does (plan, run directory, `--batch` rounds, answer log, progress, budget,
//! tallies, finish); each form's file says only what differs (its items, how a rating folds
//! into its rows, its evaluation):
//!
//! - `pairs.rs`: every configuration rates every pair (and order);
//! - `rewardbench2.rs`: RewardBench 2's best-of-4 rows, by each configuration's protocol.

pub mod pairs;
pub mod rewardbench2;
pub mod session;

use crate::run::data::{self, Rows};
use crate::run::plan::data_settings;
use crate::run::record::Calibrated;
use crate::run::settings::CalibrateSettings;
use anyhow::Result;

/// The whole of `calibrate`, for the command line and `api::calibrate` alike: the run, its
/// directory written, `show` (the terminal, or the JSON document returned), then the finish
/// (whose failures come after the directory is written, so nothing paid for is lost).
pub fn calibrate<T>(
    args: &CalibrateSettings,
    show: impl FnOnce(&Calibrated) -> Result<T>,
) -> Result<T> {
    let calibrated = run(args)?;
    crate::report::calibrate::write_dir(&calibrated)?;
    let shown = show(&calibrated)?;
    finish(args, &calibrated)?;
    Ok(shown)
}

/// `calibrate` on whichever form the data comes in.
pub fn run(args: &CalibrateSettings) -> Result<Calibrated> {
    let settings = data_settings(&args.plan)?;
    Ok(
        match data::load_rows(
            &settings,
            &crate::report::media::progress::Download::default(),
        )? {
            Rows::Pairs(dataset) => {
                Calibrated::Pairs(Box::new(pairs::run(args, dataset, settings.seed)?))
            }
            Rows::RewardBench2(set) => {
                if args.reference.is_some() {
                    return Err(crate::error::input_error(
                        "--reference ranks the models that wrote each response; RewardBench 2's rows do not say which models wrote their completions, so there is no ranking to compare",
                    ));
                }
                Calibrated::RewardBench2(Box::new(rewardbench2::run(args, set)?))
            }
        },
    )
}

/// Problems to report once the run directory is written (`session::finish`): notes of the
/// caches, unwritten answers, and the failures that fail the run.
pub fn finish(args: &CalibrateSettings, calibrated: &Calibrated) -> Result<()> {
    session::finish(
        args,
        calibrated.caches(),
        calibrated.tallies().into_iter(),
        calibrated.dir(),
    )
}
