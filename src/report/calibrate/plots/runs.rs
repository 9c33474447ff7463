//! Figures across a run's configurations: metrics, position bias, self-consistency curves,
//! subsets and the forest of paired comparisons.

use crate::metrics::{Agreement, Statistic};
use crate::report::calibrate::ranking::order;
use crate::report::media::format::shown_name;
use crate::report::media::svg::draw::{bars_svg, blue, plot_error};
use crate::run::record::Run;
use anyhow::Result;
use plotters::prelude::*;

/// Horizontal bars with CI whiskers (1 − α), one row per configuration (best at the top), one
/// panel per statistic.
pub fn metrics_svg(run: &Run, statistics: &[Statistic]) -> Result<String> {
    let idx = order(&run.view());
    let rows: Vec<(String, &Agreement)> = idx
        .iter()
        .map(|&i| {
            (
                shown_name(&run.record.configs[i]),
                &run.evaluation.configs[i].overall.agreement,
            )
        })
        .collect();
    bars_svg(&rows, statistics)
}

/// Accuracy (items without a verdict dropped) per subset × configuration, cells shaded by
/// the value and written in.
pub fn subsets_svg(run: &Run) -> Result<String> {
    let idx = order(&run.view());
    let subsets: Vec<&String> = run
        .evaluation
        .configs
        .first()
        .map(|c| c.by_subset.keys().collect())
        .unwrap_or_default();
    let (rows, cols) = (subsets.len().max(1), idx.len().max(1));
    let mut svg = String::new();
    {
        let root =
            SVGBackend::with_string(&mut svg, (260 + 70 * cols as u32, 120 + 22 * rows as u32))
                .into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                "accuracy per subset (rows) and configuration (columns)",
                ("sans-serif", 14),
            )
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(200)
            .build_cartesian_2d(0..cols as i32, 0..rows as i32)
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_labels(cols + 1)
            .y_labels(rows + 1)
            .x_label_formatter(&|x| format!("{}", x + 1))
            .y_label_formatter(&|y| {
                subsets
                    .get(rows.saturating_sub(1 + *y as usize))
                    .map_or(String::new(), |s| s.to_string())
            })
            .draw()
            .map_err(plot_error)?;
        for (col, &i) in idx.iter().enumerate() {
            for (row, subset) in subsets.iter().enumerate() {
                let v = run.evaluation.configs[i]
                    .by_subset
                    .get(*subset)
                    .map_or(f64::NAN, |s| s.agreement.get(Statistic::Accuracy));
                let y = (rows - 1 - row) as i32;
                let x = col as i32;
                chart
                    .draw_series([Rectangle::new([(x, y), (x + 1, y + 1)], blue(v).filled())])
                    .map_err(plot_error)?;
                let ink = if v > 0.5 { WHITE } else { BLACK };
                let text = if v.is_finite() {
                    format!("{v:.2}")
                } else {
                    "n/a".into()
                };
                chart
                    .draw_series([Text::new(
                        text,
                        (x, y + 1),
                        ("sans-serif", 11).into_font().color(&ink),
                    )])
                    .map_err(plot_error)?;
            }
        }
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}

/// The paired differences (B − A) of accuracy with the intervals beside their verdicts, one
/// row per comparison:
/// a forest plot. Columns of the subset plot are numbered like the configuration table.
pub fn forest_svg(run: &Run) -> Result<String> {
    let cmp = &run.evaluation.comparisons;
    let n = cmp.len().max(1);
    let name = |i: usize| run.record.configs[i].name.clone();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 90 + 24 * n as u32)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("paired differences of accuracy, B − A, each interval at its Holm step's level ({}, unadjusted, outside the family)", crate::report::media::format::level(1.0 - run.evaluation.tested.alpha)),
                ("sans-serif", 14),
            )
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(420)
            .build_cartesian_2d(-1.0f64..1.0f64, 0..n as i32)
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(n + 1)
            .y_label_formatter(&|y| {
                cmp.get(n.saturating_sub(1 + *y as usize))
                    .map_or(String::new(), |c| format!("{} − {}", name(c.b), name(c.a)))
            })
            .draw()
            .map_err(plot_error)?;
        chart
            .draw_series([PathElement::new(
                [(0.0, 0), (0.0, n as i32)],
                BLACK.stroke_width(1),
            )])
            .map_err(plot_error)?;
        for (k, c) in cmp.iter().enumerate() {
            let y = (n - 1 - k) as i32;
            let (lo, hi) = c.accuracy.ci;
            if lo.is_finite() && hi.is_finite() {
                chart
                    .draw_series([PathElement::new(
                        [(lo.max(-1.0), y), (hi.min(1.0), y)],
                        blue(0.8).stroke_width(2),
                    )])
                    .map_err(plot_error)?;
            }
            if c.accuracy.diff.is_finite() {
                chart
                    .draw_series([Circle::new((c.accuracy.diff, y), 4, blue(1.0).filled())])
                    .map_err(plot_error)?;
            }
        }
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}
