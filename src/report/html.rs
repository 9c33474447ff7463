//! `report.html`: one self-contained page per run (HTML, CSS, inline SVG as data URIs and a
//! little vanilla JavaScript; no network). The summary tables are `summary::summary`'s, the
//! plots `plots`'s, and the item browser reads the run directory's items.jsonl and
//! completions.jsonl, so `calibrate` and `report DIR` write the same page. All data is
//! escaped by the template engine (HTML) or embedded as JSON and shown with `textContent`.

use super::summary::{summary, Table};
use super::{analyze, plots};
use crate::commands::analyze::Analysis;
use crate::commands::calibrate::Run;
use crate::metrics::Statistic;
use anyhow::{Context, Result};
use base64::Engine;
use minijinja::{context, Environment};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::Path;

const TEMPLATE: &str = include_str!("templates/report.html");
const BROWSER: &str = include_str!("templates/browser.js");

#[derive(Serialize)]
struct Plot {
    title: String,
    data: String,
}

fn plot(title: impl Into<String>, svg: String) -> Plot {
    Plot {
        title: title.into(),
        data: base64::engine::general_purpose::STANDARD.encode(svg),
    }
}

/// JSON that is safe inside a `<script>` element: no `<`, `>` or `&` is left raw (each is a
/// `\u` escape, which JSON reads back as the same character), so no text can close, comment
/// or open an element there.
pub fn script_json(value: &Value) -> String {
    value
        .to_string()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

fn read_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .map(|text| {
            text.lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// The item browser's data: items with texts and ratings, and each configuration's answers.
fn browser_data(run: &Run, dir: &Path) -> Option<Value> {
    let texts: HashMap<String, Value> = read_lines(&dir.join("items.jsonl"))
        .into_iter()
        .filter_map(|v| Some((v["id"].as_str()?.to_string(), v)))
        .collect();
    if texts.is_empty() {
        return None;
    }
    let rec = &run.record;
    let index: HashMap<&str, usize> = rec
        .items
        .iter()
        .enumerate()
        .map(|(i, it)| (it.id.as_str(), i))
        .collect();
    let config_index: HashMap<&str, usize> = rec
        .configs
        .iter()
        .enumerate()
        .map(|(k, c)| (c.name.as_str(), k))
        .collect();
    let mut completions = vec![vec![Vec::<Value>::new(); rec.items.len()]; rec.configs.len()];
    for line in read_lines(&dir.join("completions.jsonl")) {
        let (Some(&k), Some(&i)) = (
            line["config"].as_str().and_then(|c| config_index.get(c)),
            line["id"].as_str().and_then(|id| index.get(id)),
        ) else {
            continue;
        };
        completions[k][i].push(json!({
            "sample": line["sample"], "text": line["text"], "verdict": line["verdict"],
            "grade": line["grade"], "side": line["side"], "span": line["span"],
            "problem": line["problem"],
        }));
    }
    let status = |o: crate::evaluation::Outcome| match o {
        crate::evaluation::Outcome::Rated(_) => "rated",
        crate::evaluation::Outcome::NoVerdict => "no verdict",
        crate::evaluation::Outcome::CallFailed => "call failed",
    };
    let items: Vec<Value> = rec
        .items
        .iter()
        .enumerate()
        .map(|(i, it)| {
            let t = texts.get(&it.id);
            let text = |k: &str| t.and_then(|t| t[k].as_str()).unwrap_or("").to_string();
            json!({
                "id": it.id, "pair": it.pair_id, "subset": it.subset, "order": it.order.key(),
                "gold": it.gold, "prompt": text("prompt"), "r1": text("response1"), "r2": text("response2"),
                "ratings": rec.configs.iter().map(|c| json!([c.outcomes[i].rating(), status(c.outcomes[i])])).collect::<Vec<_>>(),
            })
        })
        .collect();
    Some(json!({
        "configs": rec.configs.iter().map(|c| c.name.clone()).collect::<Vec<_>>(),
        "items": items,
        "completions": completions,
    }))
}

fn unique(values: impl Iterator<Item = String>) -> String {
    let mut seen: Vec<String> = Vec::new();
    for v in values {
        if !seen.contains(&v) {
            seen.push(v);
        }
    }
    seen.join(", ")
}

/// What a page shows: a title and header lines, the command, summary tables, plots, and the
/// item browser's data when there are items to browse.
struct Page {
    title: String,
    header: Vec<String>,
    command: String,
    simulated: bool,
    tables: Vec<Table>,
    plots: Vec<Plot>,
    data: Option<Value>,
}

fn page(p: Page) -> Result<String> {
    let mut env = Environment::new();
    env.add_template("report.html", TEMPLATE)?;
    let text = env.get_template("report.html")?.render(context! {
        title => p.title,
        header => p.header,
        command => p.command,
        version => env!("CARGO_PKG_VERSION"),
        simulated => p.simulated,
        tables => p.tables,
        plots => p.plots,
        browser => p.data.is_some(),
        data => p.data.as_ref().map(script_json).unwrap_or_default(),
        script => BROWSER,
    })?;
    Ok(text)
}

/// The run's page as text.
pub fn render(run: &Run, dir: &Path) -> Result<String> {
    let s = summary(run);
    let tables: Vec<Table> = [
        Some(s.configurations),
        Some(s.parse_failures),
        s.position,
        s.pointwise,
        s.sections,
        s.comparisons,
    ]
    .into_iter()
    .flatten()
    .collect();
    let rec = &run.record;
    let mut figures = vec![plot(
        "kappa (quadratic) and accuracy with 95% CIs",
        plots::metrics_svg(run, &[Statistic::KappaQuadratic, Statistic::Accuracy])?,
    )];
    figures.push(plot(
        "accuracy per subset × configuration (columns in the order of the first table)",
        plots::subsets_svg(run)?,
    ));
    if !run.evaluation.comparisons.is_empty() {
        figures.push(plot(
            "paired differences of accuracy",
            plots::forest_svg(run)?,
        ));
    }
    for (c, r) in rec.configs.iter().zip(&run.evaluation.configs) {
        figures.push(plot(
            format!("{}: confusion matrix", c.name),
            plots::confusion_svg(&c.name, &r.overall.agreement.confusion)?,
        ));
        if let Some(p) = &r.overall.pointwise {
            figures.push(plot(
                format!("{}: grades", c.name),
                plots::grades_svg(&c.name, p)?,
            ));
        }
    }
    let m = &run.meta;
    let n = rec.configs.len();
    let mut header = vec![
        format!(
            "data {} · {} items · seed {} · {} · {n} configuration{} · bootstrap {}",
            m.source,
            rec.items.len(),
            m.seed,
            if m.both_orders {
                "both orders"
            } else {
                "one order per pair (seeded)"
            },
            if n == 1 { "" } else { "s" },
            m.bootstrap
        ),
        format!(
            "models: {} · judges: {}",
            unique(m.configs.iter().map(|c| c.model.clone())),
            unique(m.configs.iter().map(|c| c.judge.clone()))
        ),
    ];
    if m.no_majority > 0 {
        header.push(format!(
            "{} pairs left out: their annotators had no majority",
            m.no_majority
        ));
    }
    page(Page {
        title: m.name.clone(),
        header,
        command: m.command.join(" "),
        simulated: rec.configs.iter().any(|c| c.simulated),
        tables,
        plots: figures,
        data: browser_data(run, dir),
    })
}

/// Writes `report.html` into the run directory.
pub fn write(run: &Run, dir: &Path) -> Result<()> {
    let path = dir.join("report.html");
    std::fs::write(&path, render(run, dir)?)
        .with_context(|| format!("writing '{}'", path.display()))
}

/// The page of an `analyze` result: its tables and plots (there are no items to browse).
pub fn render_analysis(a: &Analysis) -> Result<String> {
    let mut tables = vec![analyze::metrics_table(&a.overall)];
    if !a.groups.is_empty() {
        tables.push(analyze::groups_table(a));
    }
    tables.push(super::summary::confusion(&a.overall.confusion));
    let mut header = vec![format!("data {}", a.source)];
    header.extend(analyze::header(a));
    page(Page {
        title: format!("analyze {}", a.source),
        header,
        command: crate::commands::command_line().join(" "),
        simulated: false,
        tables,
        plots: analyze::plots(a)?
            .into_iter()
            .map(|(title, svg)| plot(title, svg))
            .collect(),
        data: None,
    })
}

/// Writes the page of an `analyze` result to `path`.
pub fn write_analysis(a: &Analysis, path: &Path) -> Result<()> {
    std::fs::write(path, render_analysis(a)?)
        .with_context(|| format!("writing '{}'", path.display()))
}
