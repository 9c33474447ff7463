//! Output of `raterlab analyze`: its record's evaluation through the sections `calibrate`
//! shows, in the terminal's frame (`Screen`) and report.html's (`Page`), with what is its own:
//! one rating column's agreement with every statistic and its groups, what the reading left
//! out, the sequential comparison and the corrected estimate.

use crate::dataset::long::PanelKey;
use crate::metrics::{Agreement, Statistic};
use crate::report::calibrate::screen::{self, Block, Screen};
use crate::report::calibrate::section::{Place, View};
use crate::report::calibrate::sections::{json_keys, tables_at};
use crate::report::media::html::{self, Page};
use crate::report::media::json::AgreementJson;
use crate::report::media::svg as plots;
use crate::report::media::table::{agreement_table, confusion_table, groups_table, Table};
use crate::run::analysis::Analysis;
use crate::run::ratings::{LongForm, Reading};
use crate::run::settings::AnalyzeOutput;
use anyhow::Result;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write;

/// The JSON document: the first rating column's agreement, what the reading left out, run
/// details, `groups`, and each column as `calibrate --json` shows a configuration.
#[derive(Serialize)]
struct AnalyzeJson<'a> {
    schema: &'static str,
    #[serde(flatten)]
    overall: AgreementJson<'a>,
    #[serde(flatten)]
    reading: &'a Reading,
    labels: &'a [i64],
    bootstrap: Bootstrap,
    source: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    annotators: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    judge_vs_annotators: Option<Value>,
    /// `--alt-test`: can the judge (the first rating column) replace an annotator?
    #[serde(skip_serializing_if = "Option::is_none")]
    alt_test: Option<&'a crate::evaluation::alt_test::AltTest>,
    #[serde(skip_serializing_if = "Option::is_none")]
    long_form: Option<&'a LongForm>,
    #[serde(skip_serializing_if = "Option::is_none")]
    groups: Option<BTreeMap<&'a str, AgreementJson<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sequential: Option<crate::report::sequential::SequentialJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    estimate: Option<&'a crate::evaluation::estimate::Estimate>,
    /// `--pac`: PAC labelling's threshold and the rows to label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pac: Option<&'a crate::evaluation::pac::Pac>,
    /// Each rating column as `calibrate --json` shows a configuration: its scopes and every
    /// analytic whose inputs the options gave (bias, probabilities, the system level, ...).
    configs: Vec<Value>,
    /// Several rating columns: their paired comparisons, as in `calibrate --json`.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    compared: Option<crate::report::calibrate::document::Compared<'a>>,
    /// The analytics' keys over the run, as in `calibrate --json`.
    #[serde(flatten)]
    analytics: BTreeMap<&'static str, Value>,
}

#[derive(Serialize)]
struct Bootstrap {
    resamples: usize,
    seed: u64,
    level: f64,
}

/// The JSON document.
pub fn to_json(a: &Analysis) -> Value {
    let view = a.view();
    let order = crate::report::calibrate::ranking::order(&view);
    let annotators = a.evaluation.of_config(0);
    let (annotators, judge_vs_annotators) =
        annotators.map(crate::report::annotators::to_json).unzip();
    let groups = a.groups();
    serde_json::to_value(AnalyzeJson {
        schema: crate::run::schema::ANALYZE,
        overall: AgreementJson(a.overall()),
        reading: &a.reading,
        sequential: a.sequential.as_ref().map(crate::report::sequential::json),
        estimate: a.estimate.as_ref(),
        pac: a.pac.as_ref(),
        labels: a.record.labels.as_slice(),
        bootstrap: Bootstrap {
            resamples: a.bootstrap,
            seed: a.seed,
            level: 1.0 - a.evaluation.tested.alpha,
        },
        source: &a.source,
        annotators,
        judge_vs_annotators,
        alt_test: a.evaluation.of_config(0),
        long_form: a.long.as_ref(),
        configs: (0..a.record.configs.len())
            .map(|i| crate::report::calibrate::document::config_value(&view, &order, i))
            .collect(),
        compared: (a.record.configs.len() > 1)
            .then(|| crate::report::calibrate::document::compared(&view)),
        analytics: json_keys(|s| s.run_json(&view)),
        groups: (!groups.is_empty()).then(|| {
            groups
                .into_iter()
                .map(|(n, g)| (n, AgreementJson(g)))
                .collect()
        }),
    })
    .unwrap_or_default()
}

/// The answers first: the sequential comparison's, the corrected estimate's, and with several
/// rating columns `calibrate`'s (the best, the runner-up's paired verdict).
fn answer(a: &Analysis) -> Vec<String> {
    let mut out: Vec<String> = a
        .sequential
        .iter()
        .flat_map(|(s, names)| crate::report::sequential::answer(s, names))
        .collect();
    if let Some(p) = &a.pac {
        out.extend(pac_answer(p));
        out.push(String::new());
    }
    if let Some(e) = &a.estimate {
        out.extend(crate::report::estimate::answer(e));
        out.push(String::new());
    }
    if a.record.configs.len() > 1 {
        out.extend(crate::report::calibrate::answer::answer_of(&a.view()));
    } else {
        // One column: no best to name, but the sections' questions (the alt-test's) first.
        let view = a.view();
        out.extend(
            crate::report::calibrate::sections::SECTIONS
                .iter()
                .flat_map(|s| s.question(&view)),
        );
    }
    // The first table's own blank line follows.
    while out.last().is_some_and(String::is_empty) {
        out.pop();
    }
    out
}

/// PAC labelling's answer: how many rows a human must still label, from which uncertainty,
/// and what the guarantee is.
fn pac_answer(p: &crate::evaluation::pac::Pac) -> Vec<String> {
    let bound = match p.bound {
        crate::metrics::pac::Bound::Clt => "the CLT bound",
        crate::metrics::pac::Bound::Betting => "the betting bound",
    };
    let mut out = vec![match p.threshold {
        Some(t) => format!(
            "PAC labelling ({bound}, ε = {}, α = {}): label the {} rows with uncertainty ≥ {} that have no gold yet; the judge keeps the rest, {:.1}% of the items. Then every label has error at most ε with probability at least 1 − α.",
            p.epsilon,
            p.alpha,
            p.n_to_label,
            crate::report::media::format::fixed(t),
            100.0 * p.saved
        ),
        None => format!(
            "PAC labelling ({bound}, ε = {}, α = {}): no uncertainty threshold holds the bound on these {} first-round labels; every item goes to a human ({} still to label).",
            p.epsilon, p.alpha, p.n_labelled, p.n_to_label
        ),
    }];
    if let Some(e) = p.error {
        out.push(format!(
            "Retrospective check (every item has gold): the final labels' error is {:.4}.",
            e
        ));
    }
    out
}

/// Writes PAC labelling's rows to label, one `id` a line under its header (a queue for
/// `label`).
pub fn write_pac_queue(p: &crate::evaluation::pac::Pac, path: &std::path::Path) -> Result<()> {
    let ids = polars::prelude::Column::new("id".into(), p.to_label.clone());
    crate::dataset::frame::write_as(
        polars::prelude::DataFrame::new_infer_height(vec![ids])?,
        path,
        crate::dataset::frame::Format::Csv,
    )
}

/// The tables, in the order the terminal and the page show them: the estimate's; the
/// evidence first where there is an answer to back (several rating columns: the
/// configurations and their paired comparisons; long form: AlpacaEval's evaluator measures
/// and the annotators), else one column's agreement first; and every analytic's tables, as
/// `calibrate --details` shows them.
fn tables(a: &Analysis) -> Vec<Table> {
    let view = a.view();
    let order = crate::report::calibrate::ranking::order(&view);
    let several = a.record.configs.len() > 1;
    let mut evidence = Vec::new();
    if several {
        let summary = crate::report::calibrate::summary::summary(&view);
        evidence.push(summary.configurations);
        evidence.extend(summary.comparisons);
    }
    evidence.extend(
        [Place::Lead, Place::Scopes, Place::After]
            .into_iter()
            .flat_map(|place| tables_at(&view, &order, place, View::Full)),
    );
    let mut agreement = Vec::new();
    // Without a labelled pair (an estimate from the judge alone, or from numbers), there is no
    // agreement to show.
    if !several && (a.overall().n > 0 || a.estimate.is_none()) {
        let mut table = agreement_table(a.overall());
        if let Some(s) = a.record.inputs.get::<crate::metrics::scale::Scale>() {
            table.title = format!(
                "Agreement over {} items ({}; gold: {})",
                a.overall().n,
                s.describe(),
                match (s, a.record.annotators.is_some()) {
                    (crate::metrics::scale::Scale::Graded { .. }, true) =>
                        "the annotators' mean grade, rounded",
                    (_, true) => "the annotators' majority",
                    _ => "the gold column",
                }
            );
        }
        let scale = a.record.inputs.get::<crate::metrics::scale::Scale>();
        match scale {
            // Only equality means something in categories and 0/1.
            Some(crate::metrics::scale::Scale::Graded { .. }) => {
                // No tie on a scale of single responses: a 0 is a grade.
                table.rows.retain(|r| !r[0].starts_with("tie rate"));
            }
            Some(_) => table
                .rows
                .retain(|r| r[0] == "accuracy" || r[0] == "Cohen's kappa"),
            None => {}
        }
        agreement.push(table);
        if !a.groups().is_empty() {
            agreement.push(groups_table(&rows(a)));
        }
        let mut confusion = confusion_table(&a.overall().confusion);
        if let Some(s) = scale {
            let named = |v: &i64| match s {
                crate::metrics::scale::Scale::Categories { names } => names
                    .get(*v as usize)
                    .cloned()
                    .unwrap_or_else(|| v.to_string()),
                _ => v.to_string(),
            };
            let values = a.overall().confusion.labels().as_slice().to_vec();
            confusion.headers = std::iter::once(String::new())
                .chain(values.iter().map(|v| format!("judge {}", named(v))))
                .collect();
            for (row, v) in confusion.rows.iter_mut().zip(&values) {
                row[0] = format!("gold {}", named(v));
            }
        }
        agreement.push(confusion);
    }
    let mut out = a
        .estimate
        .as_ref()
        .map(crate::report::estimate::tables)
        .unwrap_or_default();
    if a.long.is_some() || several {
        out.extend(evidence.into_iter().chain(agreement));
    } else {
        out.extend(agreement.into_iter().chain(evidence));
    }
    out
}

/// The groups, then `overall`.
fn rows(a: &Analysis) -> Vec<(&str, &Agreement)> {
    let mut out = a.groups();
    out.push(("overall", a.overall()));
    out
}

/// The title, then size, labels, CIs, and what was left out.
fn header(a: &Analysis, title: String) -> Vec<String> {
    let ci = if a.bootstrap > 0 {
        format!(
            "{} CIs from {} bootstrap resamples (seed {})",
            crate::report::media::format::level(1.0 - a.evaluation.tested.alpha),
            a.bootstrap,
            a.seed
        )
    } else {
        "no confidence intervals (--bootstrap 0)".to_string()
    };
    // Several rating columns: the items, not the first column's rated pairs.
    let scale = a.record.inputs.get::<crate::metrics::scale::Scale>();
    let size = match (a.record.configs.len(), scale) {
        (1, None) => format!("{} pairs", a.overall().n),
        (1, Some(_)) => format!("{} items", a.overall().n),
        (k, _) => format!("{} items, {k} rating columns", a.record.items.len()),
    };
    let labels = match scale {
        Some(s) => format!("scale {}", s.short()),
        None => format!("labels {}", a.record.labels),
    };
    let mut out = vec![title, format!("{size} · {labels} · {ci}")];
    if let Some(names) = (a.record.annotators.as_ref()).filter(|n| !n.label_names.is_empty()) {
        let coded: Vec<String> = (names.label_names.iter().enumerate())
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        out.push(format!(
            "labels read by name: {} (categories: accuracy, kappa and the alt-test read only whether two are equal; an ordinal figure reads this order)",
            coded.join(", ")
        ));
    }
    let r = &a.reading;
    if r.only_in_gold > 0 || r.only_in_ratings > 0 {
        let first =
            |key: Option<&String>| key.map(|k| format!(" (first: '{k}')")).unwrap_or_default();
        let long = a.long.as_ref();
        out.push(format!(
            "ids in one file only, left out: {} only in gold{}, {} only in ratings{}",
            r.only_in_gold,
            first(long.and_then(|l| l.only_in_gold.as_ref())),
            r.only_in_ratings,
            first(long.and_then(|l| l.only_in_ratings.as_ref()))
        ));
    }
    if r.unlabelled > 0 {
        let (n, have) = match r.unlabelled {
            1 => ("1 rated item".to_string(), "has"),
            n => (format!("{n} rated items"), "have"),
        };
        out.push(format!(
            "{n} {have} no gold label (an empty gold cell, or no gold row): unlabelled, in no agreement measure"
        ));
    }
    if let Some(l) = &a.long {
        out.extend(long_form_lines(l, a));
    }
    if r.dropped_gold > 0 || r.dropped_ratings > 0 {
        out.push(format!(
            "rows left out (unreadable label, --unreadable drop): {} gold, {} ratings",
            r.dropped_gold, r.dropped_ratings
        ));
    }
    out
}

/// How long form read the files.
fn long_form_lines(l: &LongForm, a: &Analysis) -> Vec<String> {
    let column = |c: &Option<String>, what: &str| match c {
        Some(c) => format!("{what} from column '{c}'"),
        None => format!("{what}: one per key and file"),
    };
    let mut out = vec![format!(
        "long form: the first {} annotations of each gold item ({}; {}); {} items kept",
        l.annotations_per_item,
        column(&l.columns.0, "annotators"),
        column(&l.columns.1, "the judge's samples"),
        l.items
    )];
    out.push(match &l.panel {
        PanelKey::Column { column: c } => format!(
            "the panel's {} annotators are the values of column '{c}' (the majority takes each item's first {} annotations, whoever made them)",
            l.annotators, l.annotations_per_item
        ),
        PanelKey::Position { why } => format!(
            "the panel's annotators are positions (#1: each item's first annotation, whoever made it): {why}"
        ),
    });
    if l.too_few > 0 {
        out.push(format!(
            "{} gold items with fewer than {} readable annotations among their first {} left out (--annotations-per-item sets N)",
            l.too_few, l.annotations_per_item, l.annotations_per_item
        ));
    }
    if l.first_unparsed > 0 {
        out.push(format!(
            "{} items whose judge's first sample is unparsed are left out of the agreement figures (AlpacaEval's measures count them as unparsed)",
            l.first_unparsed
        ));
    }
    out.push("agreement figures: the annotators' majority against the judge's first sample; AlpacaEval's measures use every sample".into());
    if l.joined_input {
        out.push("instruction and input joined as AlpacaEval joins them (instruction + blank line + input)".into());
    }
    if !l.pairwise {
        out.push(format!(
            "AlpacaEval's evaluator measures need pairwise labels (-1, 0, 1); the labels are {}: map the files' values with --gold-map and --rating-map (e.g. 1=-1,2=1)",
            a.record.labels
        ));
    }
    if l.texts.is_none() {
        out.push("no --texts: the length and list preferences and the longest evaluator need the two responses' columns".into());
    }
    out
}

/// The page's plots: metric bars per group with CIs, the confusion heatmap, and the sections',
/// the estimate's and the sequential comparison's figures.
fn plots(a: &Analysis) -> Result<Vec<(String, String)>> {
    let named: Vec<(String, &Agreement)> = rows(a)
        .into_iter()
        .map(|(n, g)| (n.to_string(), g))
        .collect();
    let mut out = vec![
        (
            format!(
                "accuracy and kappa (quadratic) with {} CIs",
                crate::report::media::format::level(1.0 - a.evaluation.tested.alpha)
            ),
            plots::bars_svg(&named, &[Statistic::Accuracy, Statistic::KappaQuadratic])?,
        ),
        (
            "confusion matrix".to_string(),
            plots::confusion_svg("overall", &a.overall().confusion)?,
        ),
    ];
    let view = a.view();
    let order = crate::report::calibrate::ranking::order(&view);
    let figures = crate::report::calibrate::sections::figures(&view, &order)?;
    out.extend(figures.into_iter().map(|f| (f.title, f.svg)));
    let estimate = a.estimate.as_ref().map(crate::report::estimate::plot);
    out.extend(estimate.transpose()?.flatten());
    let sequential = a.sequential.as_ref();
    let sequential = sequential.map(|(s, names)| crate::report::sequential::plot(s, names));
    out.extend(sequential.transpose()?.flatten());
    Ok(out)
}

/// Writes the CSV and the HTML page when asked.
pub fn write_files(a: &Analysis, output: &AnalyzeOutput) -> Result<()> {
    // metrics.csv: `calibrate`'s, a configuration per rating column, then the estimate's rows.
    if let Some(path) = &output.csv {
        let mut rows = crate::report::calibrate::run_dir::metrics_rows(&a.view());
        if let Some(e) = &a.estimate {
            crate::report::estimate::tidy(e, &mut rows);
        }
        rows.write(path)?;
    }
    if let Some(path) = &output.html {
        let page = Page {
            answer: answer(a),
            title: format!("analyze {}", a.source),
            header: header(a, format!("data {}", a.source)),
            command: crate::run::command_line().join(" "),
            simulated: false,
            tables: tables(a),
            plots: plots(a)?
                .into_iter()
                .map(|(title, svg)| html::plot(title, svg))
                .collect(),
            browser: None,
        };
        html::write_page(page, path)?;
    }
    Ok(())
}

/// Prints to stdout (the screen, or JSON) and writes the CSV and HTML when asked.
pub fn emit(a: &Analysis, output: &AnalyzeOutput) -> Result<()> {
    write_files(a, output)?;
    let mut out = crate::report::media::term::stdout();
    if output.json {
        serde_json::to_writer_pretty(&mut out, &to_json(a))?;
        writeln!(out)?;
    } else {
        let screen = Screen {
            header: header(a, format!("raterlab analyze: {}", a.source)),
            answer: answer(a),
            after: Vec::new(),
            blocks: tables(a).into_iter().map(Block::Table).collect(),
            dir: None,
        };
        screen::write(&screen, &mut out)?;
        for path in output.csv.iter().chain(&output.html) {
            writeln!(out, "\nwrote {}", path.display())?;
        }
    }
    out.flush()?;
    Ok(())
}
