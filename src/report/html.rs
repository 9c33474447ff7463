//! `report.html`: one self-contained page per run (HTML, CSS, inline SVG as data URIs and a
//! little vanilla JavaScript; no network). The summary tables are `summary::summary`'s, the
//! plots `plots`'s, and the item browser reads the run directory's items.jsonl and
//! completions.jsonl, so `calibrate` and `report DIR` write the same page. All data is
//! escaped by the template engine (HTML) or embedded as JSON and shown with `textContent`.

use super::plots;
use super::summary::{summary, Table};
use crate::commands::calibrate::Run;
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

/// JSON that is safe inside a `<script>` element: `</` and `<!--` cannot close or comment it.
pub fn script_json(value: &Value) -> String {
    value
        .to_string()
        .replace("</", "<\\/")
        .replace("<!--", "<\\!--")
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

/// The page as text.
pub fn render(run: &Run, dir: &Path) -> Result<String> {
    let s = summary(run);
    let tables: Vec<&Table> = [
        Some(&s.configurations),
        Some(&s.parse_failures),
        s.position.as_ref(),
        s.pointwise.as_ref(),
        s.sections.as_ref(),
        s.comparisons.as_ref(),
    ]
    .into_iter()
    .flatten()
    .collect();
    let rec = &run.record;
    let mut figures = vec![plot(
        "kappa (quadratic) and accuracy with 95% CIs",
        plots::metrics_svg(
            run,
            &[
                crate::metrics::Statistic::KappaQuadratic,
                crate::metrics::Statistic::Accuracy,
            ],
        )?,
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
    let data = browser_data(run, dir);
    let m = &run.meta;
    let mut env = Environment::new();
    env.add_template("report.html", TEMPLATE)?;
    let page = env.get_template("report.html")?.render(context! {
        title => m.name,
        source => m.source,
        items => rec.items.len(),
        seed => m.seed,
        orders => if m.both_orders { "both orders" } else { "one order per pair (seeded)" },
        configs => rec.configs.iter().map(|c| c.name.clone()).collect::<Vec<_>>(),
        bootstrap => m.bootstrap,
        models => unique(m.configs.iter().map(|c| c.model.clone())),
        judges => unique(m.configs.iter().map(|c| c.judge.clone())),
        command => m.command.join(" "),
        version => env!("CARGO_PKG_VERSION"),
        simulated => rec.configs.iter().any(|c| c.simulated),
        tables => tables,
        plots => figures,
        browser => data.is_some(),
        data => data.as_ref().map(script_json).unwrap_or_default(),
        script => BROWSER,
    })?;
    Ok(page)
}

/// Writes `report.html` into the run directory.
pub fn write(run: &Run, dir: &Path) -> Result<()> {
    let path = dir.join("report.html");
    std::fs::write(&path, render(run, dir)?)
        .with_context(|| format!("writing '{}'", path.display()))
}
