//! Dots with intervals and a scatter: the system level's figures (each model's score with its
//! interval, one panel per configuration; each configuration's scores against a reference).

use super::draw::plot_error;
use anyhow::Result;
use plotters::coord::ranged1d::SegmentValue;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

/// Colours for series, in order (cycled).
const SERIES: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(23, 190, 207),
];

/// A panel: its caption and, per row (in `names`' order), a value and its interval.
pub type Dots = (String, Vec<(f64, Option<[f64; 2]>)>);

fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let pad = ((hi - lo) * 0.08).max(1e-6);
    (lo - pad, hi + pad)
}

/// One panel per series: a dot per row with its interval as whiskers, the axis fitted to the
/// values and intervals of every panel (so panels compare).
pub fn dots_svg(names: &[String], panels: &[Dots]) -> Result<String> {
    let n = names.len().max(1);
    let (lo, hi) = range(panels.iter().flat_map(|(_, v)| {
        v.iter()
            .flat_map(|(x, ci)| [Some(*x), ci.map(|c| c[0]), ci.map(|c| c[1])])
            .flatten()
    }));
    let panel_height = 90 + 26 * n as u32;
    let mut svg = String::new();
    {
        let root =
            SVGBackend::with_string(&mut svg, (820, panel_height * panels.len().max(1) as u32))
                .into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        for (k, (panel, (caption, values))) in root
            .split_evenly((panels.len().max(1), 1))
            .iter()
            .zip(panels)
            .enumerate()
        {
            let row_at = |rank: usize| n - 1 - rank;
            let mut chart = ChartBuilder::on(panel)
                .caption(caption, ("sans-serif", 16))
                .margin(10)
                .x_label_area_size(30)
                .y_label_area_size(220)
                .build_cartesian_2d(lo..hi, (0..n - 1).into_segmented())
                .map_err(plot_error)?;
            chart
                .configure_mesh()
                .disable_y_mesh()
                .y_labels(n)
                .y_label_formatter(&|v| match v {
                    SegmentValue::CenterOf(y) if *y < n => {
                        names.get(row_at(*y)).cloned().unwrap_or_default()
                    }
                    _ => String::new(),
                })
                .draw()
                .map_err(plot_error)?;
            let colour = SERIES[k % SERIES.len()];
            chart
                .draw_series(values.iter().enumerate().filter_map(|(rank, (v, ci))| {
                    let [a, b] = (*ci)?;
                    v.is_finite().then(|| {
                        ErrorBar::new_horizontal(
                            SegmentValue::CenterOf(row_at(rank)),
                            a,
                            *v,
                            b,
                            colour.filled(),
                            8,
                        )
                    })
                }))
                .map_err(plot_error)?;
            chart
                .draw_series(
                    values
                        .iter()
                        .enumerate()
                        .filter(|(_, (v, _))| v.is_finite())
                        .map(|(rank, (v, _))| {
                            Circle::new(
                                (*v, SegmentValue::CenterOf(row_at(rank))),
                                4,
                                colour.filled(),
                            )
                        }),
                )
                .map_err(plot_error)?;
        }
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}

/// The chart both x–y figures draw on.
type Xy<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// An 820 × 480 chart of `x_label` against `y_label` over the values' ranges (`right`: the
/// right margin, room for point labels), its mesh drawn, then `draw`'s series, and with
/// `legend` their legend.
fn xy_svg(
    (x_label, y_label): (&str, &str),
    (xs, ys): (Vec<f64>, Vec<f64>),
    (right, legend): (u32, bool),
    draw: impl FnOnce(&mut Xy<'_, '_>) -> Result<()>,
) -> Result<String> {
    let (x0, x1) = range(xs.into_iter());
    let (y0, y1) = range(ys.into_iter());
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (820, 480)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let mut chart = ChartBuilder::on(&root)
            .margin(15)
            .margin_right(right)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .x_desc(x_label)
            .y_desc(y_label)
            .draw()
            .map_err(plot_error)?;
        draw(&mut chart)?;
        if legend {
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .draw()
                .map_err(plot_error)?;
        }
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}

/// A scatter of (x, y) points, one series (colour, legend entry) per name.
pub fn scatter_svg(
    x_label: &str,
    y_label: &str,
    series: &[(String, Vec<(f64, f64)>)],
) -> Result<String> {
    let xs = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|p| p.0))
        .collect();
    let ys = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|p| p.1))
        .collect();
    xy_svg((x_label, y_label), (xs, ys), (15, true), |chart| {
        for (k, (name, points)) in series.iter().enumerate() {
            let colour = SERIES[k % SERIES.len()];
            chart
                .draw_series(
                    points
                        .iter()
                        .filter(|p| p.0.is_finite() && p.1.is_finite())
                        .map(|&p| Circle::new(p, 5, colour.filled())),
                )
                .map_err(plot_error)?
                .label(name.clone())
                .legend(move |(x, y)| Circle::new((x + 8, y), 5, colour.filled()));
        }
        Ok(())
    })
}

/// Named points (x, y), those marked joined by a line in x order (a cost frontier), each
/// labelled with its name.
pub fn frontier_svg(
    x_label: &str,
    y_label: &str,
    points: &[(String, f64, f64, bool)],
) -> Result<String> {
    let shown: Vec<&(String, f64, f64, bool)> = points
        .iter()
        .filter(|p| p.1.is_finite() && p.2.is_finite())
        .collect();
    let xs = points.iter().map(|p| p.1).collect();
    let ys = points.iter().map(|p| p.2).collect();
    xy_svg((x_label, y_label), (xs, ys), (120, false), |chart| {
        let mut line: Vec<(f64, f64)> = shown.iter().filter(|p| p.3).map(|p| (p.1, p.2)).collect();
        line.sort_by(|a, b| a.0.total_cmp(&b.0));
        chart
            .draw_series(LineSeries::new(line, SERIES[0].stroke_width(2)))
            .map_err(plot_error)?;
        for (name, x, y, on) in shown.iter().copied() {
            let colour = if *on {
                SERIES[0]
            } else {
                RGBColor(150, 150, 150)
            };
            chart
                .draw_series([Circle::new((*x, *y), 5, colour.filled())])
                .map_err(plot_error)?;
            chart
                .draw_series([Text::new(
                    name.clone(),
                    (*x, *y),
                    ("sans-serif", 12).into_font().color(&BLACK),
                )])
                .map_err(plot_error)?;
        }
        Ok(())
    })
}
