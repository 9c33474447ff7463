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

/// At most this many bars a side: more distinct grades (a reward model's scores) are counted in
/// this many equal-width bins.
const GRADE_BARS: usize = 20;

/// The grades' bars: each bar's label and how many better and worse responses it counts. One
/// bar per grade up to `GRADE_BARS` grades, else `GRADE_BARS` equal-width bins over the grades'
/// range (the last closed), each labelled with its lower edge.
fn grade_bars(
    chosen: &[(f64, usize)],
    rejected: &[(f64, usize)],
) -> (Vec<(String, [usize; 2])>, bool) {
    let mut grades: Vec<f64> = chosen.iter().chain(rejected).map(|g| g.0).collect();
    grades.sort_by(f64::total_cmp);
    grades.dedup();
    let sides = [chosen, rejected];
    if grades.len() <= GRADE_BARS {
        let bars = grades
            .iter()
            .map(|&g| {
                let count = |h: &[(f64, usize)]| h.iter().find(|x| x.0 == g).map_or(0, |x| x.1);
                (format!("{g}"), sides.map(count))
            })
            .collect();
        return (bars, false);
    }
    // Each term divided first, so that a range as wide as f64's (±1e308) does not overflow.
    let bins = GRADE_BARS as f64;
    let (lo, hi) = (grades[0] / bins, grades[grades.len() - 1] / bins);
    let width = hi - lo;
    let mut bars: Vec<(String, [usize; 2])> = (0..GRADE_BARS)
        .map(|b| (edge_label((lo + width * (b as f64 / bins)) * bins), [0, 0]))
        .collect();
    for (side, h) in sides.iter().enumerate() {
        for &(g, n) in h.iter() {
            let b = ((g / bins - lo) / width * bins) as usize;
            bars[b.min(GRADE_BARS - 1)].1[side] += n;
        }
    }
    (bars, true)
}

/// A bin's lower edge as the axis writes it: three decimals, or three significant digits in
/// scientific notation for a value too large or too small for them.
fn edge_label(x: f64) -> String {
    if x != 0.0 && !(1e-3..1e5).contains(&x.abs()) {
        format!("{x:.2e}")
    } else {
        format!("{x:.3}")
    }
}

/// A pointwise judge's grades of the better and the worse response of each pair: side-by-side
/// bars per grade (binned when there are many grades, `grade_bars`).
pub fn grades_svg(title: &str, p: &crate::evaluation::PointwiseStats) -> Result<String> {
    let (bars, binned) = grade_bars(&p.chosen, &p.rejected);
    let top = bars
        .iter()
        .map(|(_, [a, b])| *a.max(b))
        .max()
        .unwrap_or(1)
        .max(1);
    let n = bars.len().max(1);
    // Binned, every other bin's edge is written (ten labels fit the axis).
    let every = if binned { 2 } else { 1 };
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
            // Three slots per bar: the better's bar, the worse's bar, a gap; the grade (a
            // bin's lower edge) is written under the boundary of its two bars.
            .build_cartesian_2d(0..3 * n as i32, 0..top + top / 10 + 1)
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(3 * n + 1)
            .x_label_formatter(&|x| {
                let k = (x / 3) as usize;
                if x.rem_euclid(3) == 1 && k % every == 0 {
                    bars.get(k).map_or(String::new(), |b| b.0.clone())
                } else {
                    String::new()
                }
            })
            .x_desc(if binned {
                format!("grade ({GRADE_BARS} equal bins, each from the value shown)")
            } else {
                "grade".to_string()
            })
            .y_desc("pairs")
            .draw()
            .map_err(plot_error)?;
        let orange = RGBColor(230, 120, 30);
        for (k, (_, [better, worse])) in bars.iter().enumerate() {
            let x = 3 * k as i32;
            chart
                .draw_series([
                    Rectangle::new([(x, 0), (x + 1, *better)], blue(0.8).filled()),
                    Rectangle::new([(x + 1, 0), (x + 2, *worse)], orange.filled()),
                ])
                .map_err(plot_error)?;
        }
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A grade scale keeps a bar per grade; a reward model's scores (every value distinct) are
    /// counted in 20 equal bins, every response in one, the highest in the last.
    #[test]
    fn many_grades_are_binned() {
        let scale: Vec<(f64, usize)> = (1..=10).map(|g| (f64::from(g), 2)).collect();
        let (bars, binned) = grade_bars(&scale, &[(3.0, 5)]);
        assert!(!binned);
        assert_eq!(bars.len(), 10);
        assert_eq!(bars[2], ("3".to_string(), [2, 5]));
        let scores: Vec<(f64, usize)> =
            (0..1000).map(|i| (f64::from(i) / 100.0 - 2.5, 1)).collect();
        let worse: Vec<(f64, usize)> = (0..500).map(|i| (f64::from(i) / 1000.0, 3)).collect();
        let (bars, binned) = grade_bars(&scores, &worse);
        assert!(binned);
        assert_eq!(bars.len(), GRADE_BARS);
        assert_eq!(bars.iter().map(|b| b.1[0]).sum::<usize>(), 1000);
        assert_eq!(bars.iter().map(|b| b.1[1]).sum::<usize>(), 1500);
        // Bins 0.4995 wide from -2.5 (the first's label) to 7.49 (the highest, in the last):
        // 50 scores in each; the worse responses' 0 to 0.499 fall in bins 5 and 6 (from 0.497).
        assert_eq!(bars[0].0, "-2.500");
        assert_eq!((bars[0].1[0], bars[GRADE_BARS - 1].1[0]), (50, 50));
        assert_eq!((bars[5].1[1], bars[6].1[1]), (497 * 3, 3 * 3));
        // A range as wide as f64's: every edge a number, every response in a bin.
        let mut wide: Vec<(f64, usize)> = (0..30).map(|i| (f64::from(i), 1)).collect();
        wide.extend([(1e308, 1), (-1e308, 1)]);
        let (bars, _) = grade_bars(&wide, &[]);
        assert_eq!(bars.iter().map(|b| b.1[0]).sum::<usize>(), 32);
        assert_eq!(
            (bars[0].0.as_str(), bars[10].0.as_str()),
            ("-1.00e308", "0.000")
        );
        assert!(
            bars.iter()
                .all(|b| b.0.parse::<f64>().is_ok_and(f64::is_finite)),
            "{bars:?}"
        );
        assert_eq!((bars[0].1[0], bars[10].1[0], bars[19].1[0]), (1, 30, 1));
    }
}
