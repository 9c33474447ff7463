//! Rank-sets: one row a model (the first at the top), one bar a source from its lower to its
//! upper rank (1 the best), so a narrower bar is a more certain rank.

use super::draw::{legend, plot_error};
use anyhow::Result;
use plotters::prelude::*;

/// `rows`: each model's name and its rank-set by each of `sources` (as many as colours).
pub fn rank_sets_svg(
    title: &str,
    sources: &[&str],
    rows: &[(String, Vec<[usize; 2]>)],
) -> Result<String> {
    let k = rows.len().max(1);
    let colours = [
        RGBColor(150, 150, 150),
        RGBColor(230, 140, 40),
        RGBColor(74, 127, 181),
    ];
    let mut svg = String::new();
    {
        let height = 90 + 34 * k as u32;
        let root = SVGBackend::with_string(&mut svg, (760, height)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let longest = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(5);
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 14))
            .margin(12)
            .x_label_area_size(35)
            .y_label_area_size((longest as u32 * 7 + 10).min(260))
            .build_cartesian_2d(0.5f64..k as f64 + 0.5, -0.5f64..k as f64 - 0.5)
            .map_err(plot_error)?;
        let names: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
        chart
            .configure_mesh()
            .disable_y_mesh()
            .x_desc("rank (1 the best)")
            .x_labels(k.min(20))
            .x_label_formatter(&|x| format!("{}", x.round() as i64))
            .y_labels(k)
            .y_label_formatter(&|y| {
                let i = y.round();
                if (y - i).abs() > 1e-6 || i < 0.0 {
                    return String::new();
                }
                // Row 0 (the first model) at the top.
                names.get(k - 1 - i as usize).cloned().unwrap_or_default()
            })
            .draw()
            .map_err(plot_error)?;
        let offset = |s: usize| (s as f64 - (sources.len() as f64 - 1.0) / 2.0) * 0.22;
        for (s, (source, colour)) in sources.iter().zip(colours).enumerate() {
            let bars = rows.iter().enumerate().map(move |(i, (_, sets))| {
                let y = (k - 1 - i) as f64 + offset(s);
                let [lo, hi] = sets[s];
                Rectangle::new(
                    [(lo as f64 - 0.35, y - 0.08), (hi as f64 + 0.35, y + 0.08)],
                    colour.filled(),
                )
            });
            chart
                .draw_series(bars)
                .map_err(plot_error)?
                .label(*source)
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 4), (x + 14, y + 4)], colour.filled())
                });
        }
        legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}
