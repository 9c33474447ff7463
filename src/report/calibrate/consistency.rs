//! Self-consistency curves and the bias/variance decomposition as JSON, tidy CSV rows, the
//! terminal's table and an SVG.

use crate::evaluation::consistency::{Consistency, Point};
use crate::evaluation::Evaluated;
use crate::report::calibrate::section::{key, Figure, Place, Section, View};
use crate::report::media::csv::TidyRows;
use crate::report::media::format::shown_name;
use crate::report::media::svg::draw::{legend, plot_error};
use crate::report::media::table::Table;
use anyhow::Result;
use plotters::prelude::*;
use serde::Serialize;
use serde_json::Value;

/// A configuration's `consistency` object: the curves by rule, the decomposition.
#[derive(Serialize)]
struct ConsistencyJson<'a> {
    samples: usize,
    curves: std::collections::BTreeMap<&'static str, &'a [Point]>,
    bias: f64,
    bias_ci: Option<(f64, f64)>,
    variance: f64,
    variance_ci: Option<(f64, f64)>,
}

/// A configuration's `consistency` object.
fn to_json(c: &Consistency) -> Value {
    serde_json::to_value(ConsistencyJson {
        samples: c.samples,
        curves: c
            .curves
            .iter()
            .map(|(rule, points)| (rule.name(), points.as_slice()))
            .collect(),
        bias: c.bias,
        bias_ci: c.bias_ci,
        variance: c.variance,
        variance_ci: c.variance_ci,
    })
    .unwrap_or_default()
}

/// Rows `sc_<rule>_k<K>_accuracy|kappa_quadratic` (with CIs), `sc_bias`, `sc_variance`.
fn tidy(rows: &mut TidyRows, c: &Consistency) {
    for (rule, points) in &c.curves {
        for p in points {
            let name = |m: &str| format!("sc_{}_k{}_{m}", rule.name(), p.k);
            rows.push(
                "overall",
                p.k as u64,
                &name("accuracy"),
                p.accuracy,
                p.accuracy_ci,
            );
            rows.push(
                "overall",
                p.k as u64,
                &name("kappa_quadratic"),
                p.kappa_quadratic,
                p.kappa_quadratic_ci,
            );
        }
    }
    rows.push("overall", c.samples as u64, "sc_bias", c.bias, c.bias_ci);
    rows.push(
        "overall",
        c.samples as u64,
        "sc_variance",
        c.variance,
        c.variance_ci,
    );
}

/// As every summary table writes a figure with its interval ("n/a" when undefined).
fn with_ci(v: f64, ci: Option<(f64, f64)>) -> String {
    crate::report::media::format::with_ci(v, ci.unwrap_or((f64::NAN, f64::NAN)))
}

/// The terminal's table: accuracy for every k and rule, from the samples already drawn.
fn tables(run: &Evaluated, order: &[usize]) -> Vec<Table> {
    let rows: Vec<(usize, &Consistency)> = order
        .iter()
        .filter_map(|&i| {
            Some((
                i,
                run.evaluation
                    .of_config::<crate::evaluation::consistency::Consistency>(i)?,
            ))
        })
        .collect();
    let Some(n) = rows.iter().map(|(_, c)| c.samples).max() else {
        return Vec::new();
    };
    let mut header: Vec<String> = vec!["configuration".into(), "rule".into()];
    header.extend((1..=n).map(|k| format!("k = {k}")));
    let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = Table::new(
        format!("Self-consistency from the samples already drawn: accuracy of sc:k for every k and vote rule [{} CI]", crate::report::media::format::ci_level(run)),
        &header_refs,
    );
    for (i, c) in &rows {
        for (rule, points) in &c.curves {
            let mut row = vec![
                crate::report::media::format::shown_name(&run.record.configs[*i]),
                rule.name().to_string(),
            ];
            row.extend(points.iter().map(|p| with_ci(p.accuracy, p.accuracy_ci)));
            row.resize(n + 2, String::new());
            t.rows.push(row);
        }
        t.notes.push(format!(
            "{}: bias (the modal vote's error) {}, variance (a sample against the mode of the others) {}",
            crate::report::media::format::shown_name(&run.record.configs[*i]),
            with_ci(c.bias, c.bias_ci),
            with_ci(c.variance, c.variance_ci)
        ));
    }
    t.notes.push(format!(
        "each k averages the rule over up to {} k-subsets of the N samples (all of them when there are fewer; seeded), pooled over items; no new call was made",
        crate::evaluation::consistency::SUBSETS
    ));
    vec![t]
}

/// Self-consistency curves: per sc:N configuration, accuracy against k for each vote rule,
/// with bands (1 − α) as error bars (None without sc:N configurations).
fn svg(run: &Evaluated, order: &[usize]) -> Result<Option<String>> {
    let curves: Vec<(String, &crate::evaluation::consistency::Consistency)> = order
        .iter()
        .filter_map(|&i| {
            let c = run
                .evaluation
                .of_config::<crate::evaluation::consistency::Consistency>(i)?;
            Some((shown_name(&run.record.configs[i]), c))
        })
        .collect();
    if curves.is_empty() {
        return Ok(None);
    }
    let level = crate::report::media::format::ci_level(run);
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
                    format!("{name}: accuracy of sc:k from its own samples ({level} CI)"),
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
            legend(&mut chart, SeriesLabelPosition::LowerLeft)?;
        }
        root.present().map_err(plot_error)?;
    }
    Ok(Some(svg))
}

/// Self-consistency's section: after the comparisons (with `--details`), `configs[i].consistency`.
#[derive(Debug)]
pub struct ConsistencySection;

impl Section for ConsistencySection {
    fn place(&self) -> Place {
        Place::After
    }
    fn tables(&self, run: &Evaluated, order: &[usize], view: View) -> Vec<Table> {
        view.details(|| tables(run, order))
    }
    fn figures(&self, run: &Evaluated, order: &[usize]) -> Result<Vec<Figure>> {
        Ok(Figure::one(
            svg(run, order)?,
            "consistency.svg",
            "self-consistency: accuracy of sc:k for every k and vote rule, from the samples drawn",
        ))
    }
    fn config_json(
        &self,
        run: &Evaluated,
        _order: &[usize],
        i: usize,
    ) -> Vec<(&'static str, Value)> {
        let consistency = run
            .evaluation
            .of_config::<crate::evaluation::consistency::Consistency>(i);
        key("consistency", consistency.map(to_json))
    }
    fn config_rows(&self, rows: &mut TidyRows, run: &Evaluated, i: usize) {
        if let Some(c) = run
            .evaluation
            .of_config::<crate::evaluation::consistency::Consistency>(i)
        {
            tidy(rows, c);
        }
    }
}
