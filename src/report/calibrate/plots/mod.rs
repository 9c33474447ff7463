//! A calibrate run's SVG plots (`media::svg` draws them): a confusion heatmap per
//! configuration, and across configurations (`runs`) metrics, bias, consistency, subsets and
//! the paired comparisons' forest. This file writes them all into a run directory.

mod runs;

pub use crate::report::media::svg::{bars_svg, confusion_svg, grades_svg, panels_svg, Panel};
pub use runs::{bias_svg, consistency_svg, forest_svg, metrics_svg, subsets_svg};

use crate::metrics::Statistic;
use crate::report::media::format::shown_name;
use crate::run::record::Run;
use anyhow::{Context, Result};
use std::path::Path;

fn file_name(i: usize, name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("confusion-{:02}-{safe}.svg", i + 1)
}

pub fn write_all(run: &Run, dir: &Path) -> Result<()> {
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
    if let Some(svg) = bias_svg(run)? {
        let path = dir.join("bias.svg");
        std::fs::write(&path, svg).with_context(|| format!("writing '{}'", path.display()))?;
    }
    if let Some(svg) = crate::report::calibrate::probability::svg(
        run,
        &crate::report::calibrate::ranking::order(run),
    )? {
        let path = dir.join("probability.svg");
        std::fs::write(&path, svg).with_context(|| format!("writing '{}'", path.display()))?;
    }
    for (i, (name, svg)) in crate::report::calibrate::rmbench::svgs(run)?
        .into_iter()
        .enumerate()
    {
        let path = dir.join(format!(
            "rmbench-{}",
            &file_name(i, &name)["confusion-".len()..]
        ));
        std::fs::write(&path, svg).with_context(|| format!("writing '{}'", path.display()))?;
    }
    let order = crate::report::calibrate::ranking::order(run);
    for (k, (_, svg)) in crate::report::calibrate::systems::svgs(run, &order)?
        .into_iter()
        .enumerate()
    {
        let path = dir.join(["systems.svg", "systems-reference.svg"][k.min(1)]);
        std::fs::write(&path, svg).with_context(|| format!("writing '{}'", path.display()))?;
    }
    if let Some((_, svg)) = crate::report::calibrate::cost::svg(run)? {
        let path = dir.join("cost.svg");
        std::fs::write(&path, svg).with_context(|| format!("writing '{}'", path.display()))?;
    }
    if let Some(svg) = crate::report::calibrate::jury::svg(run)? {
        let path = dir.join("juries.svg");
        std::fs::write(&path, svg).with_context(|| format!("writing '{}'", path.display()))?;
    }
    if let Some(svg) = consistency_svg(run)? {
        let path = dir.join("consistency.svg");
        std::fs::write(&path, svg).with_context(|| format!("writing '{}'", path.display()))?;
    }
    let path = dir.join("metrics.svg");
    std::fs::write(
        &path,
        metrics_svg(run, &[Statistic::KappaQuadratic, Statistic::Accuracy])?,
    )
    .with_context(|| format!("writing '{}'", path.display()))
}
