//! A confidence sequence's figure: the interval at every item (log scale), the line at ½ that
//! deciding means leaving, and the item where it is first left.

use super::draw::plot_error;
use anyhow::Result;
use plotters::prelude::*;

/// At most this many items drawn, spread evenly on the log scale (a run of 10^5 items draws
/// the same curve).
const POINTS: usize = 600;

/// The band of `(t, lower, upper)` (t from 1 in steps of 1), ½ dashed, and `stopped_at`
/// marked; `title` names what is compared.
pub fn sequence_svg(
    title: &str,
    bounds: &[(usize, f64, f64)],
    stopped_at: Option<usize>,
) -> Result<String> {
    let n = bounds.len();
    let mut drawn: Vec<(usize, f64, f64)> = Vec::new();
    let mut next = 1.0f64;
    let step = (n.max(2) as f64).powf(1.0 / POINTS as f64);
    for &(t, lo, hi) in bounds {
        if t as f64 >= next || t == n || Some(t) == stopped_at {
            drawn.push((t, lo, hi));
            next = (t as f64 * step).max(t as f64 + 1.0);
        }
    }
    // The axis shows the band after its first items, where it leaves [0, 1].
    let settled = &drawn[drawn
        .len()
        .min(drawn.iter().take_while(|b| b.0 < 10).count())..];
    let lowest = settled.iter().map(|b| b.1).fold(0.5f64, f64::min);
    let highest = settled.iter().map(|b| b.2).fold(0.5f64, f64::max);
    let pad = ((highest - lowest) * 0.1).max(0.005);
    let (y0, y1) = ((lowest - pad).max(0.0), (highest + pad).min(1.0));
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (760, 380)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 14))
            .margin(12)
            .x_label_area_size(35)
            .y_label_area_size(55)
            .build_cartesian_2d((1f64..n.max(2) as f64).log_scale(), y0..y1)
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .x_desc("items seen (log scale)")
            .y_desc("(1 + accuracy A − accuracy B)/2")
            .draw()
            .map_err(plot_error)?;
        let blue = RGBColor(74, 127, 181);
        let band: Vec<(f64, f64)> = drawn
            .iter()
            .map(|b| (b.0 as f64, b.1.clamp(y0, y1)))
            .chain(drawn.iter().rev().map(|b| (b.0 as f64, b.2.clamp(y0, y1))))
            .collect();
        chart
            .draw_series(std::iter::once(Polygon::new(band, blue.mix(0.25).filled())))
            .map_err(plot_error)?;
        for side in [1usize, 2] {
            let line = drawn.iter().map(|b| {
                let v = if side == 1 { b.1 } else { b.2 };
                (b.0 as f64, v.clamp(y0, y1))
            });
            chart
                .draw_series(LineSeries::new(line, blue.stroke_width(2)))
                .map_err(plot_error)?;
        }
        chart
            .draw_series(DashedLineSeries::new(
                [(1.0, 0.5), (n.max(2) as f64, 0.5)],
                6,
                4,
                BLACK.mix(0.6).stroke_width(1),
            ))
            .map_err(plot_error)?;
        if let Some(t) = stopped_at {
            let colour = RGBColor(180, 70, 70);
            chart
                .draw_series(LineSeries::new(
                    [(t as f64, y0), (t as f64, y1)],
                    colour.stroke_width(2),
                ))
                .map_err(plot_error)?
                .label(format!("decided at item {t}"))
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 16, y)], colour.stroke_width(2))
                });
            super::draw::legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        }
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}
