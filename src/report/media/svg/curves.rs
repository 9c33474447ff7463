//! Probability figures: a reliability diagram (observed share of response 2 better against the
//! mean probability per bin, the diagonal a calibrated judge's) and the selective-accuracy
//! curve (accuracy of the most confident items against their coverage), one line per
//! configuration.

use super::draw::plot_error;
use anyhow::Result;
use plotters::prelude::*;

/// One configuration's points: its reliability bins (mean p, observed, items) and its
/// selective curve (coverage, accuracy).
#[derive(Debug)]
pub struct Curves {
    pub name: String,
    pub reliability: Vec<(f64, f64, usize)>,
    pub selective: Vec<(f64, f64)>,
}

const COLOURS: [RGBColor; 6] = [
    RGBColor(74, 127, 181),
    RGBColor(214, 120, 40),
    RGBColor(90, 160, 90),
    RGBColor(180, 70, 70),
    RGBColor(130, 100, 170),
    RGBColor(120, 120, 120),
];

/// Both panels side by side.
pub fn probability_svg(curves: &[Curves]) -> Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 420)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let (left, right) = root.split_horizontally(450);
        let mut reliability = ChartBuilder::on(&left)
            .caption(
                "Reliability: observed vs predicted P(response 2 better)",
                ("sans-serif", 14),
            )
            .margin(12)
            .x_label_area_size(35)
            .y_label_area_size(45)
            .build_cartesian_2d(0.0..1.0f64, 0.0..1.0f64)
            .map_err(plot_error)?;
        reliability
            .configure_mesh()
            .x_desc("mean predicted probability (bin)")
            .y_desc("share where response 2 is better")
            .draw()
            .map_err(plot_error)?;
        reliability
            .draw_series(LineSeries::new([(0.0, 0.0), (1.0, 1.0)], BLACK.mix(0.4)))
            .map_err(plot_error)?;
        let mut selective = ChartBuilder::on(&right)
            .caption(
                "Selective accuracy: abstaining on the least confident",
                ("sans-serif", 14),
            )
            .margin(12)
            .x_label_area_size(35)
            .y_label_area_size(45)
            .build_cartesian_2d(0.0..1.0f64, 0.0..1.0f64)
            .map_err(plot_error)?;
        selective
            .configure_mesh()
            .x_desc("coverage (share of items kept)")
            .y_desc("accuracy")
            .draw()
            .map_err(plot_error)?;
        for (k, c) in curves.iter().enumerate() {
            let colour = COLOURS[k % COLOURS.len()];
            let points: Vec<(f64, f64)> = c
                .reliability
                .iter()
                .filter(|(p, o, n)| *n > 0 && p.is_finite() && o.is_finite())
                .map(|(p, o, _)| (*p, *o))
                .collect();
            reliability
                .draw_series(LineSeries::new(points.clone(), colour.stroke_width(2)))
                .map_err(plot_error)?
                .label(c.name.clone())
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 16, y)], colour.stroke_width(2))
                });
            reliability
                .draw_series(points.iter().map(|&xy| Circle::new(xy, 3, colour.filled())))
                .map_err(plot_error)?;
            selective
                .draw_series(LineSeries::new(
                    c.selective.iter().copied().filter(|(_, a)| a.is_finite()),
                    colour.stroke_width(2),
                ))
                .map_err(plot_error)?;
        }
        reliability
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .draw()
            .map_err(plot_error)?;
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}
