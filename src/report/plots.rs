//! SVG plots with plotters: a confusion heatmap per configuration and metric-with-CI bar
//! charts across configurations. Text is laid out by plotters' built-in metrics (no system
//! fonts needed) and rendered by whatever displays the SVG.

use super::format::{confusion_names, shown_name, statistic_name, value};
use super::ranking::order;
use crate::metrics::{Agreement, Contingency, Statistic};
use crate::run::record::Run;
use anyhow::{anyhow, Context, Result};
use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

fn plot_error(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow!("drawing a plot: {e}")
}

/// A blue whose depth grows with `share` in [0, 1].
fn blue(share: f64) -> RGBColor {
    let s = if share.is_finite() {
        share.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mix = |light: f64, dark: f64| (light + (dark - light) * s).round() as u8;
    RGBColor(mix(247.0, 8.0), mix(251.0, 48.0), mix(255.0, 107.0))
}

/// Heatmap of a confusion matrix; cells shaded by their share of the gold row, counts written.
pub fn confusion_svg(title: &str, table: &Contingency) -> Result<String> {
    let k = table.k();
    let (rows, cols) = confusion_names(table);
    let gold = table.gold_margins();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (460, 440)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 16))
            .margin(14)
            .x_label_area_size(40)
            .y_label_area_size(90)
            .build_cartesian_2d((0..k - 1).into_segmented(), (0..k - 1).into_segmented())
            .map_err(plot_error)?;
        // `into_segmented` on 0..k-1 gives k segments. Row 0 (the first gold label) is at the top.
        let row_at = |y: usize| k - 1 - y;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_labels(k)
            .y_labels(k)
            .x_label_formatter(&|v| match v {
                SegmentValue::CenterOf(j) => cols.get(*j).cloned().unwrap_or_default(),
                _ => String::new(),
            })
            .y_label_formatter(&|v| match v {
                SegmentValue::CenterOf(y) if *y < k => rows[row_at(*y)].clone(),
                _ => String::new(),
            })
            .x_desc("rating")
            .y_desc("gold")
            .draw()
            .map_err(plot_error)?;
        let cells: Vec<(usize, usize, u64, f64)> = (0..k)
            .flat_map(|i| (0..k).map(move |j| (i, j)))
            .map(|(i, j)| {
                let count = table.count(i, j);
                let share = if gold[i] > 0 {
                    count as f64 / gold[i] as f64
                } else {
                    0.0
                };
                (i, j, count, share)
            })
            .collect();
        chart
            .draw_series(cells.iter().map(|&(i, j, _, share)| {
                let y = row_at(i);
                Rectangle::new(
                    [
                        (SegmentValue::Exact(j), SegmentValue::Exact(y)),
                        (SegmentValue::Exact(j + 1), SegmentValue::Exact(y + 1)),
                    ],
                    blue(share).filled(),
                )
            }))
            .map_err(plot_error)?;
        chart
            .draw_series(cells.iter().map(|&(i, j, count, share)| {
                let ink = if share > 0.5 { WHITE } else { BLACK };
                let style = ("sans-serif", 18)
                    .into_font()
                    .color(&ink)
                    .pos(Pos::new(HPos::Center, VPos::Center));
                Text::new(
                    count.to_string(),
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

/// Horizontal bars with 95% CI whiskers, one row per configuration (best at the top), one
/// panel per statistic.
pub fn metrics_svg(run: &Run, statistics: &[Statistic]) -> Result<String> {
    let idx = order(run);
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

/// Horizontal bars with 95% CI whiskers, one row per named result (the first at the top), one
/// panel per statistic.
pub fn bars_svg(rows: &[(String, &Agreement)], statistics: &[Statistic]) -> Result<String> {
    let names: Vec<String> = rows.iter().map(|(name, _)| name.clone()).collect();
    let panels: Vec<Panel> = statistics
        .iter()
        .map(|&statistic| {
            (
                format!("{} (95% CI)", statistic_name(statistic)),
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

/// Bias diagnostics: per feature, gold's preference and each configuration's, with 95% CIs
/// (None when the run has no bias figures).
pub fn bias_svg(run: &Run) -> Result<Option<String>> {
    let idx = order(run);
    let biased: Vec<(usize, &crate::evaluation::bias::Bias)> = idx
        .iter()
        .filter_map(|&i| Some((i, run.evaluation.configs[i].overall.bias.as_ref()?)))
        .collect();
    let Some((_, first)) = biased.first() else {
        return Ok(None);
    };
    let mut names = vec!["gold labels".to_string()];
    names.extend(
        biased
            .iter()
            .map(|(i, _)| shown_name(&run.record.configs[*i])),
    );
    let captions = [
        "prefers the longer response (lengths differ by > 30 characters)",
        "prefers the response with a list (only one has one)",
        "prefers the response with headers (only one has them)",
        "prefers the response with bold text (only one has it)",
        "prefers the response shown first",
    ];
    let panels = captions
        .iter()
        .enumerate()
        .map(|(k, caption)| {
            let pick = |b: &crate::evaluation::bias::Bias| *b.features()[k].1;
            let gold = pick(first);
            let mut values = vec![(gold.gold, gold.ci.map(|c| c[1]))];
            values.extend(biased.iter().map(|(_, b)| {
                let p = pick(b);
                (p.judge, p.ci.map(|c| c[0]))
            }));
            (format!("{caption}, with 95% CIs"), values)
        })
        .collect::<Vec<_>>();
    panels_svg(&names, &panels).map(Some)
}

/// Self-consistency curves: per sc:N configuration, accuracy against k for each vote rule,
/// with 95% bands as error bars (None without sc:N configurations).
pub fn consistency_svg(run: &Run) -> Result<Option<String>> {
    let curves: Vec<(String, &crate::evaluation::consistency::Consistency)> = order(run)
        .into_iter()
        .filter_map(|i| {
            let c = run.evaluation.configs[i].consistency.as_ref()?;
            Some((shown_name(&run.record.configs[i]), c))
        })
        .collect();
    if curves.is_empty() {
        return Ok(None);
    }
    let colours = [
        RGBColor(74, 127, 181),
        RGBColor(214, 120, 40),
        RGBColor(90, 160, 90),
    ];
    let mut svg = String::new();
    {
        let root =
            SVGBackend::with_string(&mut svg, (820, 320 * curves.len() as u32)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        for (panel, (name, c)) in root.split_evenly((curves.len(), 1)).iter().zip(&curves) {
            let n = c.samples as f64;
            let mut chart = ChartBuilder::on(panel)
                .caption(
                    format!("{name}: accuracy of sc:k from its own samples (95% CI)"),
                    ("sans-serif", 16),
                )
                .margin(10)
                .x_label_area_size(30)
                .y_label_area_size(50)
                .build_cartesian_2d(0.5..n + 0.5, 0.0..1.0f64)
                .map_err(plot_error)?;
            chart
                .configure_mesh()
                .x_labels(c.samples)
                .x_label_formatter(&|k| format!("k = {k:.0}"))
                .draw()
                .map_err(plot_error)?;
            for ((rule, points), colour) in c.curves.iter().zip(colours) {
                // Rules are drawn side by side within each k so their bars do not overlap.
                let shift = match rule.name() {
                    "mean" => -0.12,
                    "majority" => 0.0,
                    _ => 0.12,
                };
                let xy: Vec<(f64, f64)> = points
                    .iter()
                    .filter(|p| p.accuracy.is_finite())
                    .map(|p| (p.k as f64 + shift, p.accuracy))
                    .collect();
                chart
                    .draw_series(LineSeries::new(xy, colour.stroke_width(2)))
                    .map_err(plot_error)?
                    .label(rule.name())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 16, y)], colour.stroke_width(2))
                    });
                chart
                    .draw_series(points.iter().filter_map(|p| {
                        let (lo, hi) = p.accuracy_ci?;
                        (lo.is_finite() && p.accuracy.is_finite()).then(|| {
                            ErrorBar::new_vertical(
                                p.k as f64 + shift,
                                lo,
                                p.accuracy,
                                hi,
                                colour.filled(),
                                6,
                            )
                        })
                    }))
                    .map_err(plot_error)?;
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::LowerLeft)
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .draw()
                .map_err(plot_error)?;
        }
        root.present().map_err(plot_error)?;
    }
    Ok(Some(svg))
}

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

/// Accuracy (items without a verdict dropped) per subset × configuration, cells shaded by
/// the value and written in.
pub fn subsets_svg(run: &Run) -> Result<String> {
    let idx = order(run);
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

/// The paired differences (B − A) of accuracy with their 95% CIs, one row per comparison:
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
                "paired differences of accuracy, B − A, with 95% CIs",
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
