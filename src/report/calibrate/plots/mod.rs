//! A calibrate run's SVG plots (`media::svg` draws them): a confusion heatmap per
//! configuration, and across configurations (`runs`) metrics, subsets and the paired
//! comparisons' forest. This file writes them, and the sections' figures, into a run directory.

mod runs;

pub use crate::report::media::svg::{bars_svg, confusion_svg, grades_svg, panels_svg, Panel};
pub use runs::{forest_svg, metrics_svg, subsets_svg};

use crate::metrics::Statistic;
use crate::report::calibrate::section::Figure;
use crate::report::media::format::shown_name;
use crate::run::record::Run;
use anyhow::{Context, Result};
use std::path::Path;

fn file_name(i: usize, name: &str) -> String {
    crate::report::calibrate::section::numbered_file("confusion", i, name)
}

/// Writes the run's figures: each configuration's confusion heat map (and grades), the
/// sections' `figures` (drawn once, for report.html too), and the metrics.
pub fn write_all(run: &Run, dir: &Path, figures: &[Figure]) -> Result<()> {
    for (i, (rec, r)) in run
        .record
        .configs
        .iter()
        .zip(&run.evaluation.configs)
        .enumerate()
    {
        let title = if rec.simulated {
            format!("{} (simulated judge)", rec.name)
        } else {
            rec.name.clone()
        };
        let path = dir.join(file_name(i, &rec.name));
        std::fs::write(
            &path,
            confusion_svg(&title, &r.overall.agreement.confusion)?,
        )
        .with_context(|| format!("writing '{}'", path.display()))?;
        if let Some(p) = &r.overall.pointwise {
            let path = dir.join(format!(
                "grades-{}",
                &file_name(i, &rec.name)["confusion-".len()..]
            ));
            std::fs::write(&path, grades_svg(&shown_name(rec), p)?)
                .with_context(|| format!("writing '{}'", path.display()))?;
        }
    }
    for f in figures {
        let path = dir.join(&f.file);
        std::fs::write(&path, &f.svg).with_context(|| format!("writing '{}'", path.display()))?;
    }
    let path = dir.join("metrics.svg");
    std::fs::write(
        &path,
        metrics_svg(run, &[Statistic::KappaQuadratic, Statistic::Accuracy])?,
    )
    .with_context(|| format!("writing '{}'", path.display()))
}
