//! `analyze --pac`: the one file's rows (ids, the judge's labels, its uncertainty, the first
//! round's gold) handed to `evaluation::pac` (`analyze` writes the ids to label when asked).

use crate::dataset::frame::Frame;
use crate::error::input_error;
use crate::evaluation::pac::{pac, Pac, PacSettings};
use crate::run::settings::AnalyzeSettings;
use anyhow::Result;
use std::path::PathBuf;

/// PAC labelling of the file's rows.
pub fn of_frame(
    settings: &AnalyzeSettings,
    frame: &Frame,
    (uncertainty_col, s, _): &(String, PacSettings, Option<PathBuf>),
) -> Result<Pac> {
    let columns = &settings.columns;
    let ids = super::active::ids(frame, columns.id.as_deref(), "--id-col")?;
    let judge = frame.every(
        &columns.rating,
        frame.mapped_labels(&columns.rating, "--rating-col", &settings.reading.1)?,
        "--pac needs the judge's label on every row",
    )?;
    let gold = frame.mapped_labels_or_missing(&columns.gold, "--gold-col", &settings.reading.0)?;
    let uncertainty = frame.every(
        uncertainty_col,
        frame.numbers(uncertainty_col, "--uncertainty-col")?,
        "--pac needs the judge's uncertainty on every row",
    )?;
    let first: Vec<bool> = gold.iter().map(Option::is_some).collect();
    if !first.iter().any(|&f| f) {
        return Err(input_error(format!(
            "--pac: no row of '{}' has gold in column '{}'; label a uniform first round (e.g. 500 rows drawn at random) and give it there",
            frame.path.display(),
            columns.gold
        )));
    }
    Ok(pac(&ids, &judge, (&gold, &first), &uncertainty, s))
}
