//! Drawing shared by the figures: colours, errors, metric bars with CIs, forest panels.

use crate::metrics::{Agreement, Statistic};
use crate::report::media::format::{statistic_name, value};
use anyhow::{anyhow, Result};
use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;

pub fn plot_error(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow!("drawing a plot: {e}")
}

/// A chart's legend at `at`: a white, black-bordered box over the plot.
pub fn legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    at: SeriesLabelPosition,
) -> Result<()> {
    chart
        .configure_series_labels()
        .position(at)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(plot_error)
}

/// A blue whose depth grows with `share` in [0, 1].
pub fn blue(share: f64) -> RGBColor {
    let s = if share.is_finite() {
        share.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mix = |light: f64, dark: f64| (light + (dark - light) * s).round() as u8;
    RGBColor(mix(247.0, 8.0), mix(251.0, 48.0), mix(255.0, 107.0))
}

/// Horizontal bars with CI whiskers (at the intervals' own level), one row per named result
/// (the first at the top), one panel per statistic.
pub fn bars_svg(rows: &[(String, &Agreement)], statistics: &[Statistic]) -> Result<String> {
    let names: Vec<String> = rows.iter().map(|(name, _)| name.clone()).collect();
    let level = rows
        .iter()
        .find_map(|(_, a)| a.intervals.as_ref().map(|i| i.level));
    let panels: Vec<Panel> = statistics
        .iter()
        .map(|&statistic| {
            (
                match level {
                    Some(l) => format!(
                        "{} ({} CI)",
                        statistic_name(statistic),
                        crate::report::media::format::level(l)
                    ),
                    None => statistic_name(statistic).to_string(),
                },
                rows.iter().map(|(_, a)| value(a, statistic)).collect(),
            )
        })
        .collect();
    panels_svg(&names, &panels)
}

/// A panel's caption and, per row, a value and its 95% CI.
pub type Panel = (String, Vec<(f64, Option<(f64, f64)>)>);

/// Panels of horizontal bars, one row per name, each bar with its 95% CI; the axis runs from
/// the lowest lower bound (at most 0, at least -1) to 1.
pub fn panels_svg(names: &[String], panels: &[Panel]) -> Result<String> {
    let n = names.len().max(1);
    let panel_height = 90 + 28 * n as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (820, panel_height * panels.len() as u32))
            .into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        for (panel, (caption, values)) in root.split_evenly((panels.len(), 1)).iter().zip(panels) {
            let lowest = values
                .iter()
                .filter_map(|(v, ci)| {
                    let lo = ci.map_or(*v, |c| c.0);
                    lo.is_finite().then_some(lo)
                })
                .fold(0.0f64, f64::min)
                .max(-1.0);
            let row_at = |rank: usize| n - 1 - rank;
            let mut chart = ChartBuilder::on(panel)
                .caption(caption, ("sans-serif", 16))
                .margin(10)
                .x_label_area_size(30)
                .y_label_area_size(280)
                .build_cartesian_2d(lowest..1.0f64, (0..n - 1).into_segmented())
                .map_err(plot_error)?;
            chart
                .configure_mesh()
                .disable_y_mesh()
                .light_line_style(WHITE)
                .y_labels(n)
                .y_label_formatter(&|v| match v {
                    SegmentValue::CenterOf(y) if *y < n => {
                        names.get(row_at(*y)).cloned().unwrap_or_default()
                    }
                    _ => String::new(),
                })
                .draw()
                .map_err(plot_error)?;
            chart
                .draw_series(
                    values
                        .iter()
                        .enumerate()
                        .filter(|(_, (v, _))| v.is_finite())
                        .map(|(rank, (v, _))| {
                            let y = row_at(rank);
                            let mut bar = Rectangle::new(
                                [
                                    (0.0, SegmentValue::Exact(y)),
                                    (*v, SegmentValue::Exact(y + 1)),
                                ],
                                RGBColor(74, 127, 181).filled(),
                            );
                            bar.set_margin(5, 5, 0, 0);
                            bar
                        }),
                )
                .map_err(plot_error)?;
            chart
                .draw_series(
                    values
                        .iter()
                        .enumerate()
                        .filter_map(|(rank, (v, ci))| {
                            ci.filter(|c| v.is_finite() && c.0.is_finite())
                                .map(|c| (rank, *v, c))
                        })
                        .map(|(rank, v, (lo, hi))| {
                            ErrorBar::new_horizontal(
                                SegmentValue::CenterOf(row_at(rank)),
                                lo,
                                v,
                                hi,
                                BLACK.filled(),
                                10,
                            )
                        }),
                )
                .map_err(plot_error)?;
        }
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}
