//! Per-configuration figures: the confusion heatmap and the pointwise grades.

use crate::metrics::Contingency;
use crate::report::media::format::confusion_names;
use crate::report::media::svg::draw::{blue, plot_error};
use anyhow::Result;
use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Heatmap of a confusion matrix; cells shaded by their share of the gold row, counts written.
pub fn confusion_svg(title: &str, table: &Contingency) -> Result<String> {
    let k = table.k();
    let (rows, cols) = confusion_names(table);
    let gold = table.gold_margins();
    let cells: Vec<Vec<(String, f64)>> = (0..k)
        .map(|i| {
            (0..k)
                .map(|j| {
                    let count = table.count(i, j);
                    let share = if gold[i] > 0 {
                        count as f64 / gold[i] as f64
                    } else {
                        0.0
                    };
                    (count.to_string(), share)
                })
                .collect()
        })
        .collect();
    heatmap_svg(title, (&rows, "gold"), (&cols, "rating"), &cells)
}

/// A square heatmap: `cells[row][column]` written as its text and shaded by its share (0..1);
/// the first row at the top. Rows and columns come with their names and axis description.
pub fn heatmap_svg(
    title: &str,
    (rows, y_desc): (&[String], &str),
    (cols, x_desc): (&[String], &str),
    cells: &[Vec<(String, f64)>],
) -> Result<String> {
    let (n_rows, n_cols) = (rows.len(), cols.len());
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (460, 440)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 16))
            .margin(14)
            .x_label_area_size(40)
            .y_label_area_size(90)
            .build_cartesian_2d(
                (0..n_cols - 1).into_segmented(),
                (0..n_rows - 1).into_segmented(),
            )
            .map_err(plot_error)?;
        // `into_segmented` on 0..n-1 gives n segments. Row 0 is at the top.
        let row_at = |y: usize| n_rows - 1 - y;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_labels(n_cols)
            .y_labels(n_rows)
            .x_label_formatter(&|v| match v {
                SegmentValue::CenterOf(j) => cols.get(*j).cloned().unwrap_or_default(),
                _ => String::new(),
            })
            .y_label_formatter(&|v| match v {
                SegmentValue::CenterOf(y) if *y < n_rows => rows[row_at(*y)].clone(),
                _ => String::new(),
            })
            .x_desc(x_desc)
            .y_desc(y_desc)
            .draw()
            .map_err(plot_error)?;
        let flat: Vec<(usize, usize, &str, f64)> = cells
            .iter()
            .enumerate()
            .flat_map(|(i, row)| {
                row.iter()
                    .enumerate()
                    .map(move |(j, (text, share))| (i, j, text.as_str(), *share))
            })
            .collect();
        chart
            .draw_series(flat.iter().map(|&(i, j, _, share)| {
                let y = row_at(i);
                Rectangle::new(
                    [
                        (SegmentValue::Exact(j), SegmentValue::Exact(y)),
                        (SegmentValue::Exact(j + 1), SegmentValue::Exact(y + 1)),
                    ],
                    blue(if share.is_finite() { share } else { 0.0 }).filled(),
                )
            }))
            .map_err(plot_error)?;
        chart
            .draw_series(flat.iter().map(|&(i, j, text, share)| {
                let ink = if share > 0.5 { WHITE } else { BLACK };
                let style = ("sans-serif", 18)
                    .into_font()
                    .color(&ink)
                    .pos(Pos::new(HPos::Center, VPos::Center));
                Text::new(
                    text.to_string(),
                    (SegmentValue::CenterOf(j), SegmentValue::CenterOf(row_at(i))),
                    style,
                )
            }))
            .map_err(plot_error)?;
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}

/// A pointwise judge's grades of the better and the worse response of each pair: side-by-side
/// bars per grade.
pub fn grades_svg(title: &str, p: &crate::evaluation::PointwiseStats) -> Result<String> {
    let mut grades: Vec<f64> = p.chosen.iter().chain(&p.rejected).map(|g| g.0).collect();
    grades.sort_by(f64::total_cmp);
    grades.dedup();
    let count = |h: &[(f64, usize)], g: f64| h.iter().find(|x| x.0 == g).map_or(0, |x| x.1);
    let top = grades
        .iter()
        .map(|&g| count(&p.chosen, g).max(count(&p.rejected, g)))
        .max()
        .unwrap_or(1)
        .max(1);
    let n = grades.len().max(1);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (640, 380)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("{title}: grades of the better (blue) and worse (orange) response"),
                ("sans-serif", 14),
            )
            .margin(14)
            .x_label_area_size(40)
            .y_label_area_size(50)
            // Three slots per grade: the better's bar, the worse's bar, a gap; the grade is
            // written under the boundary of its two bars.
            .build_cartesian_2d(0..3 * n as i32, 0..top + top / 10 + 1)
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(3 * n + 1)
            .x_label_formatter(&|x| {
                if x.rem_euclid(3) == 1 {
                    grades
                        .get((x / 3) as usize)
                        .map_or(String::new(), |g| format!("{g}"))
                } else {
                    String::new()
                }
            })
            .x_desc("grade")
            .y_desc("pairs")
            .draw()
            .map_err(plot_error)?;
        let orange = RGBColor(230, 120, 30);
        for (k, &g) in grades.iter().enumerate() {
            let x = 3 * k as i32;
            chart
                .draw_series([
                    Rectangle::new([(x, 0), (x + 1, count(&p.chosen, g))], blue(0.8).filled()),
                    Rectangle::new(
                        [(x + 1, 0), (x + 2, count(&p.rejected, g))],
                        orange.filled(),
                    ),
                ])
                .map_err(plot_error)?;
        }
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}
