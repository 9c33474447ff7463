//! RM-Bench's style matrix as JSON (`configs[i].rmbench`, `rmbench_comparisons`), tidy CSV
//! rows, the terminal's compact table and one heat map per configuration.

use crate::dataset::rmbench::STYLES;
use crate::evaluation::rmbench::{Figures, Intervals, RmStats};
use crate::evaluation::Evaluated;
use crate::report::calibrate::section::{key, numbered_file, Figure, Place, Section, View};
use crate::report::media::csv::TidyRows;
use crate::report::media::format::interval_of;
use crate::report::media::format::shown_name;
use crate::report::media::table::Table;
use anyhow::Result;
use serde::Serialize;
use serde_json::Value;

/// The five figures by name, each with its interval.
fn named(f: &Figures, ci: &Intervals) -> [(&'static str, f64, (f64, f64)); 5] {
    [
        ("hard", f.hard, ci.hard),
        ("normal", f.normal, ci.normal),
        ("easy", f.easy, ci.easy),
        ("average", f.average, ci.average),
        ("style_bias", f.style_bias, ci.style_bias),
    ]
}

/// The five figures with their intervals and the 3 × 3 matrix.
#[derive(Serialize)]
struct FiguresJson {
    hard: f64,
    hard_ci: (f64, f64),
    normal: f64,
    normal_ci: (f64, f64),
    easy: f64,
    easy_ci: (f64, f64),
    average: f64,
    average_ci: (f64, f64),
    style_bias: f64,
    style_bias_ci: (f64, f64),
    matrix: [[f64; 3]; 3],
}

fn figures_json(f: &Figures, ci: &Intervals, m: &[f64; 9]) -> FiguresJson {
    FiguresJson {
        hard: f.hard,
        hard_ci: ci.hard,
        normal: f.normal,
        normal_ci: ci.normal,
        easy: f.easy,
        easy_ci: ci.easy,
        average: f.average,
        average_ci: ci.average,
        style_bias: f.style_bias,
        style_bias_ci: ci.style_bias,
        matrix: [[m[0], m[1], m[2]], [m[3], m[4], m[5]], [m[6], m[7], m[8]]],
    }
}

/// A domain's figures and its prompts.
#[derive(Serialize)]
struct DomainJson {
    #[serde(flatten)]
    figures: FiguresJson,
    prompts: usize,
}

/// `configs[i].rmbench`.
#[derive(Serialize)]
struct RmBenchJson {
    #[serde(flatten)]
    figures: FiguresJson,
    domains: std::collections::BTreeMap<String, DomainJson>,
    complete: bool,
    styles: [&'static str; 3],
}

/// `configs[i].rmbench`: `{hard, normal, easy, average, style_bias (easy − hard), each with
/// its _ci, matrix (rows chosen, columns rejected: concise, detailed plain, detailed
/// markdown), domains: {chat|math|code|safety: {prompts, the same}}, complete}`.
pub fn to_json(run: &Evaluated, i: usize) -> Option<Value> {
    let s = run
        .evaluation
        .of_run::<crate::evaluation::rmbench::RmBench>()?
        .configs
        .get(i)?;
    serde_json::to_value(RmBenchJson {
        figures: figures_json(&s.figures, &s.ci, &s.matrix),
        domains: s
            .domains
            .iter()
            .map(|d| {
                (
                    d.domain.to_string(),
                    DomainJson {
                        figures: figures_json(&d.figures, &d.ci, &d.matrix),
                        prompts: d.prompts,
                    },
                )
            })
            .collect(),
        complete: s.complete,
        styles: STYLES,
    })
    .ok()
}

/// The paired comparisons on `average` and `hard` (B − A), Holm per metric.
pub fn comparisons_json(run: &Evaluated) -> Option<Value> {
    let r = run
        .evaluation
        .of_run::<crate::evaluation::rmbench::RmBench>()?;
    let name = |k: usize| run.record.configs[k].name.as_str();
    serde_json::to_value(
        r.comparisons
            .iter()
            .map(|c| c.test.shaped(name(c.a), name(c.b), c.metric))
            .collect::<Vec<_>>(),
    )
    .ok()
}

/// Rows `rmbench_<figure>` (overall, with CIs) and per domain (`scope` the domain).
pub fn tidy(rows: &mut TidyRows, run: &Evaluated, i: usize) {
    let Some(s) = run
        .evaluation
        .of_run::<crate::evaluation::rmbench::RmBench>()
        .and_then(|r| r.configs.get(i))
    else {
        return;
    };
    let mut push = |scope: &str, n: usize, f: &Figures, ci: &Intervals| {
        for (key, v, c) in named(f, ci) {
            rows.push(
                scope,
                n as u64,
                &format!("rmbench_{key}"),
                v,
                c.0.is_finite().then_some(c),
            );
        }
    };
    let prompts: usize = s.domains.iter().map(|d| d.prompts).sum();
    push("overall", prompts, &s.figures, &s.ci);
    for d in &s.domains {
        push(
            &format!("domain:{}", d.domain),
            d.prompts,
            &d.figures,
            &d.ci,
        );
    }
}

fn with_ci(v: f64, c: (f64, f64)) -> String {
    crate::report::media::format::with_ci(v, c)
}

/// The compact table, best average first: per configuration, hard, normal, easy, average and
/// the style bias (overall), then each domain's average; the notes say how to read it.
pub fn table(run: &Evaluated) -> Option<Table> {
    let r = run
        .evaluation
        .of_run::<crate::evaluation::rmbench::RmBench>()?;
    let order = &r.order;
    let domains: Vec<&str> = r
        .configs
        .first()
        .map(|c| c.domains.iter().map(|d| d.domain).collect())
        .unwrap_or_default();
    let mut headers = vec![
        "configuration",
        "hard",
        "normal",
        "easy",
        "average",
        "style bias",
    ];
    headers.extend(domains.iter().copied());
    let mut t = Table::new(
        format!("RM-Bench: chosen vs rejected across styles (concise, detailed plain, detailed markdown), as its compute_accuracy scores it ({} CIs over prompts)", crate::report::media::format::ci_level(run)),
        &headers,
    );
    // A narrow terminal leaves out the domains, then normal (both in --json and the page).
    t.secondary = std::iter::once(2).chain(6..6 + domains.len()).collect();
    for &i in order {
        let s: &RmStats = &r.configs[i];
        let f = &s.figures;
        let mut row = vec![
            shown_name(&run.record.configs[i]),
            with_ci(f.hard, s.ci.hard),
            with_ci(f.normal, s.ci.normal),
            with_ci(f.easy, s.ci.easy),
            with_ci(f.average, s.ci.average),
            with_ci(f.style_bias, s.ci.style_bias),
        ];
        row.extend(
            s.domains
                .iter()
                .map(|d| format!("{:.3}", d.figures.average)),
        );
        t.rows.push(row);
    }
    let first = &r.configs[0];
    t.notes.push(
        "hard: a plainer chosen response against a fancier rejected one (the matrix's upper-right triangle); normal: the same style (diagonal); easy: the chosen one fancier (lower-left); a tie or no verdict is not a win, as RM-Bench counts score_chosen > score_rejected".into(),
    );
    t.notes.push(format!(
        "overall: the mean over the domains present ({}; {} prompts){}; the style bias (easy − hard) is how much the judge's verdict follows style rather than substance",
        first
            .domains
            .iter()
            .map(|d| format!("{} {}", d.domain, d.prompts))
            .collect::<Vec<_>>()
            .join(", "),
        first.domains.iter().map(|d| d.prompts).sum::<usize>(),
        if first.complete {
            ""
        } else {
            "; RM-Bench's own total averages all four domains (chat, math, code, safety) and its code fails when one is missing, so this overall is over fewer"
        }
    ));
    let tested: Vec<String> = r
        .comparisons
        .iter()
        .filter(|c| {
            matches!(
                c.test.finding(),
                crate::evaluation::Finding::BBetter | crate::evaluation::Finding::ABetter
            )
        })
        .map(|c| {
            // Read as better − worse.
            let (better, worse, t) = if c.test.diff > 0.0 {
                (c.b, c.a, c.test)
            } else {
                (c.a, c.b, c.test.reversed())
            };
            format!(
                "{} > {} on {} ({:+.3} {}, Holm p {:.3})",
                run.record.configs[better].name,
                run.record.configs[worse].name,
                c.metric,
                t.diff,
                interval_of(&t, 3),
                t.p_holm
            )
        })
        .collect();
    if r.configs.len() > 1 {
        t.notes.push(if tested.is_empty() {
            "paired comparisons on average and on hard (bootstrap over prompts, Holm): no difference found".into()
        } else {
            format!(
                "paired comparisons (bootstrap over prompts, Holm per metric): {}",
                tested.join("; ")
            )
        });
    }
    Some(t)
}

/// The answer's RM-Bench line: the configuration with the best average, its hard, normal and
/// easy accuracy and its style bias, and against the runner-up.
pub fn answer(run: &Evaluated) -> Option<String> {
    let r = run
        .evaluation
        .of_run::<crate::evaluation::rmbench::RmBench>()?;
    let picked = r.picked.as_ref()?;
    let best = picked.best;
    let s = &r.configs[best];
    if !s.figures.average.is_finite() {
        return None;
    }
    let mut line = format!(
        "RM-Bench: {} averages {} (hard {}, normal {:.3}, easy {:.3}; style bias easy − hard {}).",
        shown_name(&run.record.configs[best]),
        with_ci(s.figures.average, s.ci.average),
        with_ci(s.figures.hard, s.ci.hard),
        s.figures.normal,
        s.figures.easy,
        with_ci(s.figures.style_bias, s.ci.style_bias)
    );
    let second = picked
        .runner_up
        .filter(|&k| r.configs[k].figures.average.is_finite());
    if let Some(second) = second {
        if let Some(c) = r.comparisons.iter().find(|c| {
            c.metric == "average" && ((c.a, c.b) == (best, second) || (c.a, c.b) == (second, best))
        }) {
            // Read as best − second.
            let t = if c.b == best {
                c.test
            } else {
                c.test.reversed()
            };
            line.push_str(&format!(
                " Against {} on the average: {:+.3} {}, Holm p {:.3}{}.",
                run.record.configs[second].name,
                t.diff,
                interval_of(&t, 3),
                t.p_holm,
                match t.finding() {
                    crate::evaluation::Finding::NoDifference => ", no difference",
                    crate::evaluation::Finding::Untested => ", untested",
                    _ => "",
                }
            ));
        }
    }
    Some(line)
}

/// One heat map of the overall matrix per configuration (rows chosen, columns rejected).
fn figures(run: &Evaluated) -> Result<Vec<Figure>> {
    let Some(r) = run
        .evaluation
        .of_run::<crate::evaluation::rmbench::RmBench>()
    else {
        return Ok(Vec::new());
    };
    let names: Vec<String> = STYLES.iter().map(|s| s.to_string()).collect();
    r.configs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let cells: Vec<Vec<(String, f64)>> = (0..3)
                .map(|a| {
                    (0..3)
                        .map(|b| {
                            let v = s.matrix[a * 3 + b];
                            (format!("{:.0}%", 100.0 * v), v)
                        })
                        .collect()
                })
                .collect();
            let name = shown_name(&run.record.configs[i]);
            let title = format!(
                "{name}: hard {:.2}, normal {:.2}, easy {:.2}",
                s.figures.hard, s.figures.normal, s.figures.easy
            );
            crate::report::media::svg::heatmap_svg(
                &title,
                (&names, "chosen"),
                (&names, "rejected"),
                &cells,
            )
            .map(|svg| Figure {
                file: numbered_file("rmbench", i, &name),
                title: format!("{name}: RM-Bench's style matrix, the share of prompts whose chosen response (row style) beats the rejected one (column style); hard above the diagonal, easy below"),
                svg,
            })
        })
        .collect()
}

/// RM-Bench's section: its table after the configurations'.
#[derive(Debug)]
pub struct RmBenchSection;

impl Section for RmBenchSection {
    fn place(&self) -> Place {
        Place::Lead
    }
    fn tables(&self, run: &Evaluated, _order: &[usize], _view: View) -> Vec<Table> {
        table(run).into_iter().collect()
    }
    fn answer(&self, run: &Evaluated, _order: &[usize]) -> Vec<String> {
        answer(run).into_iter().collect()
    }
    fn figures(&self, run: &Evaluated, _order: &[usize]) -> Result<Vec<Figure>> {
        figures(run)
    }
    fn run_json(&self, run: &Evaluated) -> Vec<(&'static str, Value)> {
        key("rmbench_comparisons", comparisons_json(run))
    }
    fn config_json(
        &self,
        run: &Evaluated,
        _order: &[usize],
        i: usize,
    ) -> Vec<(&'static str, Value)> {
        key("rmbench", to_json(run, i))
    }
    fn config_rows(&self, rows: &mut TidyRows, run: &Evaluated, i: usize) {
        tidy(rows, run, i);
    }
}
