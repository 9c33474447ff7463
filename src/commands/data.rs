//! `raterlab data summary` and `data export`: the data loaded as `calibrate` loads it, told or
//! written; no judge.

use crate::run::data::{self, DataSettings};
use crate::run::settings::DataOptions;
use anyhow::Result;
use std::path::Path;

/// `data summary`: the data's counts by its form (pairs, with the annotators' agreement when
/// several annotators give the gold, `bootstrap` resamples for its intervals; RewardBench 2's
/// rows).
pub fn summary(options: DataOptions, bootstrap: usize) -> Result<()> {
    let rows = data::load_rows(
        &DataSettings::from_options(options)?,
        &crate::report::media::progress::Download::default(),
    )?;
    super::calibrate::forms::loaded(rows).summary(bootstrap)
}

/// `data export`: the examples as the judge sees them, to `out`.
pub fn export(options: DataOptions, out: &Path) -> Result<()> {
    let dataset = data::load(
        &DataSettings::from_options(options)?,
        &crate::report::media::progress::Download::default(),
    )?;
    crate::dataset::export::write_examples(&dataset.examples, out)?;
    crate::report::data::emit_exported(&dataset, out)
}
