//! Figures across a run's configurations: metrics, position bias, self-consistency curves,
//! subsets and the forest of paired comparisons.

use crate::metrics::{Agreement, Statistic};
use crate::report::calibrate::ranking::order;
use crate::report::media::format::shown_name;
use crate::report::media::svg::draw::{bars_svg, blue, panels_svg, plot_error};
use crate::run::record::Run;
use anyhow::Result;
use plotters::prelude::*;

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
