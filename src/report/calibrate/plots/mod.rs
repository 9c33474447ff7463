//! A calibrate run's SVG plots (`media::svg` draws them): a confusion heatmap per
//! configuration, and across configurations (`runs`) metrics, subsets and the paired
//! comparisons' forest. This file draws the run's own once (`draw`) and writes them, and the
//! sections' figures, into a run directory.

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

/// The run's own figures, drawn once for its directory and report.html: each configuration's
/// confusion heat map (and its grades, pointwise), and the metrics with their intervals.
#[derive(Debug)]
pub struct Own {
    /// Per configuration, in the record's order: its confusion matrix, then its grades.
    pub configs: Vec<(Figure, Option<Figure>)>,
    pub metrics: Figure,
}

impl Own {
    /// Every figure, to be written as a file.
    pub fn all(&self) -> impl Iterator<Item = &Figure> {
        self.configs
            .iter()
            .flat_map(|(confusion, grades)| std::iter::once(confusion).chain(grades))
            .chain(std::iter::once(&self.metrics))
    }
}

/// Draws the run's own figures.
pub fn draw(run: &Run) -> Result<Own> {
    let mut configs = Vec::new();
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
        let file = file_name(i, &rec.name);
        let grades = match &r.overall.pointwise {
            Some(p) => Some(Figure {
                file: format!("grades-{}", &file["confusion-".len()..]),
                title: format!("{}: grades", rec.name),
                svg: grades_svg(&shown_name(rec), p)?,
            }),
            None => None,
        };
        let confusion = Figure {
            file,
            title: format!("{}: confusion matrix", rec.name),
            svg: confusion_svg(&title, &r.overall.agreement.confusion)?,
        };
        configs.push((confusion, grades));
    }
    let metrics = Figure {
        file: "metrics.svg".into(),
        title: format!(
            "kappa (quadratic) and accuracy with {} CIs",
            crate::report::media::format::level(1.0 - run.evaluation.tested.alpha)
        ),
        svg: metrics_svg(run, &[Statistic::KappaQuadratic, Statistic::Accuracy])?,
    };
    Ok(Own { configs, metrics })
}

/// Writes figures into the run directory, each as its file.
pub fn write_all<'a>(dir: &Path, figures: impl Iterator<Item = &'a Figure>) -> Result<()> {
    for f in figures {
        let path = dir.join(&f.file);
        std::fs::write(&path, &f.svg).with_context(|| format!("writing '{}'", path.display()))?;
    }
    Ok(())
}
