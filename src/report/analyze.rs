//! Output of `raterlab analyze`.

use crate::metrics::{Agreement, Statistic};
use crate::report::calibrate::section::{Place, View};
use crate::report::calibrate::sections::{json_keys, tables_at, SECTIONS};
use crate::report::media::csv::TidyRows;
use crate::report::media::html::{self, Page};
use crate::report::media::json::AgreementJson;
use crate::report::media::table::Table;
use crate::report::media::{format, svg as plots, table};
use crate::run::analysis::{Analysis, Output};
use anyhow::Result;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// The JSON document: the overall result's fields, run details, and `groups`.
#[derive(Serialize)]
struct AnalyzeJson<'a> {
    #[serde(flatten)]
    overall: AgreementJson<'a>,
    only_in_gold: usize,
    only_in_ratings: usize,
    unlabelled: usize,
    dropped_gold: usize,
    dropped_ratings: usize,
    labels: &'a [i64],
    bootstrap: Bootstrap,
    source: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    annotators: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    judge_vs_annotators: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    long_form: Option<&'a crate::run::analysis::LongForm>,
    #[serde(skip_serializing_if = "Option::is_none")]
    groups: Option<BTreeMap<&'a str, AgreementJson<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sequential: Option<SequentialJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    estimate: Option<&'a crate::evaluation::estimate::Estimate>,
    /// The rating column as `calibrate --json` shows a configuration: its scopes and every
    /// analytic whose inputs the options gave (bias, probabilities, the system level, ...).
    configs: Vec<Value>,
    /// Several rating columns: their paired comparisons, as in `calibrate --json`.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    compared: Option<crate::report::calibrate::document::Compared<'a>>,
    /// The analytics' keys over the run, as in `calibrate --json`.
    #[serde(flatten)]
    analytics: BTreeMap<&'static str, Value>,
}

/// `sequential`: the two columns compared, then the sequence's figures.
#[derive(Serialize)]
struct SequentialJson<'a> {
    a: &'a str,
    b: &'a str,
    #[serde(flatten)]
    sequence: &'a crate::evaluation::sequential::Sequential,
}

#[derive(Serialize)]
struct Bootstrap {
    resamples: usize,
    seed: u64,
    level: f64,
}

/// The JSON document: the overall result's fields, run details, and `groups`.
pub fn to_json(a: &Analysis) -> Value {
    let (annotators, judge_vs_annotators) = a
        .annotators
        .as_ref()
        .map(crate::report::annotators::to_json)
        .unzip();
    let (view, order) = (a.view(), order(a));
    serde_json::to_value(AnalyzeJson {
        overall: AgreementJson(&a.overall),
        only_in_gold: a.only_in_gold,
        only_in_ratings: a.only_in_ratings,
        sequential: a.sequential.as_ref().map(|(s, [x, y])| SequentialJson {
            a: x,
            b: y,
            sequence: s,
        }),
        estimate: a.estimate.as_ref(),
        unlabelled: a.unlabelled,
        dropped_gold: a.dropped_gold,
        dropped_ratings: a.dropped_ratings,
        labels: a.labels.as_slice(),
        bootstrap: Bootstrap {
            resamples: a.bootstrap,
            seed: a.seed,
            level: 0.95,
        },
        source: &a.source,
        annotators,
        judge_vs_annotators,
        long_form: a.long.as_ref(),
        configs: (0..a.record.configs.len())
            .map(|i| crate::report::calibrate::document::config_value(&view, &order, i))
            .collect(),
        compared: (a.record.configs.len() > 1)
            .then(|| crate::report::calibrate::document::compared(&view)),
        analytics: json_keys(|s| s.run_json(&view)),
        groups: (!a.groups.is_empty()).then(|| {
            a.groups
                .iter()
                .map(|(name, g)| (name.as_str(), AgreementJson(g)))
                .collect()
        }),
    })
    .unwrap_or_default()
}

/// Tidy rows: every group, then `overall`.
pub fn to_tidy(a: &Analysis) -> TidyRows {
    let mut rows = TidyRows::default();
    let view = a.view();
    let several = a.record.configs.len() > 1;
    for (i, config) in a.evaluation.configs.iter().enumerate() {
        // Several rating columns: a `config` column names each one's rows.
        if several {
            rows.set_config(&a.record.configs[i].name);
        }
        let groups = a
            .groups
            .iter()
            .filter_map(|(name, _)| Some((name.as_str(), &config.by_subset.get(name)?.agreement)));
        for (name, g) in groups {
            rows.add(name, g);
        }
        rows.add("overall", &config.overall.agreement);
        for section in SECTIONS {
            section.scope_rows(&mut rows, "overall", &config.overall);
            section.config_rows(&mut rows, &view, i);
        }
    }
    if several {
        rows.set_config("");
    }
    for section in SECTIONS {
        section.run_rows(&mut rows, &view);
    }
    if let Some(e) = &a.estimate {
        crate::report::estimate::tidy(e, &mut rows);
    }
    rows
}

/// The configurations in the order the sections show them: the record's (one, or one per
/// rating column).
fn order(a: &Analysis) -> Vec<usize> {
    (0..a.record.configs.len()).collect()
}

/// Several rating columns: calibrate's answer and its evidence (the configurations and their
/// paired comparisons); nothing for one column.
fn compared(a: &Analysis) -> (Vec<String>, Vec<Table>) {
    if a.record.configs.len() < 2 {
        return (Vec::new(), Vec::new());
    }
    let view = a.view();
    let summary = crate::report::calibrate::summary::summary(&view);
    let mut tables = vec![summary.configurations];
    tables.extend(summary.comparisons);
    (crate::report::calibrate::answer::answer_of(&view), tables)
}

/// Every analytic's tables whose inputs the options gave, as `calibrate --details` shows them.
fn section_tables(a: &Analysis) -> Vec<Table> {
    let (view, order) = (a.view(), order(a));
    [Place::Lead, Place::Scopes, Place::After]
        .into_iter()
        .flat_map(|place| tables_at(&view, &order, place, View::Full))
        .collect()
}

/// Every statistic with its CI and p-value.
pub fn metrics_table(a: &Agreement) -> Table {
    let mut out = Table::new(
        format!("Agreement over {} pairs", a.n),
        &["metric", "value", "95% CI", "p-value"],
    );
    for s in Statistic::ALL {
        let ci = a.intervals.as_ref().map(|i| i.get(s));
        let p = match s {
            Statistic::Spearman => format::p_value(a.spearman_p),
            Statistic::KendallTauB => format::p_value(a.kendall_p),
            _ => String::new(),
        };
        out.rows.push(vec![
            format::statistic_name(s).to_string(),
            format::fixed(a.get(s)),
            format::interval(ci),
            p,
        ]);
    }
    out
}

const GROUP_STATISTICS: [Statistic; 4] = [
    Statistic::Accuracy,
    Statistic::KappaQuadratic,
    Statistic::Spearman,
    Statistic::KendallTauB,
];

/// One row per group, then `overall`.
pub fn groups_table(a: &Analysis) -> Table {
    let mut header = vec!["group", "n"];
    header.extend(GROUP_STATISTICS.iter().map(|&s| format::statistic_name(s)));
    let mut out = Table::new("By group", &header);
    for (name, g) in rows(a) {
        let mut row = vec![name.to_string(), g.n.to_string()];
        row.extend(
            GROUP_STATISTICS
                .iter()
                .map(|&s| format::with_interval(g, s)),
        );
        out.rows.push(row);
    }
    out
}

/// The groups, then `overall`.
fn rows(a: &Analysis) -> impl Iterator<Item = (&str, &Agreement)> {
    a.groups
        .iter()
        .map(|(n, g)| (n.as_str(), g))
        .chain(std::iter::once(("overall", &a.overall)))
}

/// The lines under the title: size, labels, CIs, and what was left out.
pub fn header(a: &Analysis) -> Vec<String> {
    let ci = if a.bootstrap > 0 {
        format!(
            "95% CIs from {} bootstrap resamples (seed {})",
            a.bootstrap, a.seed
        )
    } else {
        "no confidence intervals (--bootstrap 0)".to_string()
    };
    // Several rating columns: the items, not the first column's rated pairs.
    let size = match a.record.configs.len() {
        1 => format!("{} pairs", a.overall.n),
        k => format!("{} items, {k} rating columns", a.record.items.len()),
    };
    let mut out = vec![format!("{size} · labels {} · {ci}", a.labels)];
    if a.only_in_gold > 0 || a.only_in_ratings > 0 {
        let first =
            |key: Option<&String>| key.map(|k| format!(" (first: '{k}')")).unwrap_or_default();
        let long = a.long.as_ref();
        out.push(format!(
            "ids in one file only, left out: {} only in gold{}, {} only in ratings{}",
            a.only_in_gold,
            first(long.and_then(|l| l.only_in_gold.as_ref())),
            a.only_in_ratings,
            first(long.and_then(|l| l.only_in_ratings.as_ref()))
        ));
    }
    if a.unlabelled > 0 {
        out.push(format!(
            "{} rated items have no gold label (an empty gold cell, or no gold row): unlabelled, in no agreement measure",
            a.unlabelled
        ));
    }
    if let Some(l) = &a.long {
        out.extend(long_form_lines(l));
    }
    if a.dropped_gold > 0 || a.dropped_ratings > 0 {
        out.push(format!(
            "rows left out (unreadable label, --unreadable drop): {} gold, {} ratings",
            a.dropped_gold, a.dropped_ratings
        ));
    }
    out
}

/// How long form read the files.
fn long_form_lines(l: &crate::run::analysis::LongForm) -> Vec<String> {
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
    if l.texts.is_none() {
        out.push("no --texts: the length and list preferences and the longest evaluator need the two responses' columns".into());
    }
    out
}

/// The page's plots: metric bars per group with CIs, and the confusion heatmap.
pub fn plots(a: &Analysis) -> Result<Vec<(String, String)>> {
    let named: Vec<(String, &Agreement)> = rows(a).map(|(n, g)| (n.to_string(), g)).collect();
    let mut out = vec![
        (
            "accuracy and kappa (quadratic) with 95% CIs".to_string(),
            plots::bars_svg(&named, &[Statistic::Accuracy, Statistic::KappaQuadratic])?,
        ),
        (
            "confusion matrix".to_string(),
            plots::confusion_svg("overall", &a.overall.confusion)?,
        ),
    ];
    let (view, order) = (a.view(), order(a));
    out.extend(
        crate::report::calibrate::sections::figures(&view, &order)?
            .into_iter()
            .map(|f| (f.title, f.svg)),
    );
    out.extend(
        a.estimate
            .as_ref()
            .map(crate::report::estimate::plot)
            .transpose()?
            .flatten(),
    );
    if let Some((s, [x, y])) = a.sequential.as_ref().filter(|(s, _)| s.n > 0) {
        let title = format!(
            "{x} (A) against {y} (B): anytime-valid {:.0}% interval",
            100.0 * (1.0 - s.alpha)
        );
        let bounds: Vec<(usize, f64, f64)> =
            s.curve.iter().map(|b| (b.t, b.lower, b.upper)).collect();
        out.push((
            "sequential comparison".to_string(),
            crate::report::media::svg::sequence_svg(&title, &bounds, s.stopped_at)?,
        ));
    }
    Ok(out)
}

/// Human-readable report.
pub fn write_terminal(a: &Analysis, out: &mut dyn Write) -> Result<()> {
    let width = crate::report::media::term::width();
    writeln!(out, "raterlab analyze: {}", a.source)?;
    for line in header(a) {
        writeln!(
            out,
            "{}",
            crate::report::media::term::wrap(&line, width, "")
        )?;
    }
    writeln!(out)?;
    // The sequential comparison and the corrected estimate answer their own questions: first.
    for line in sequential_lines(a).into_iter().chain(estimate_lines(a)) {
        writeln!(
            out,
            "{}",
            crate::report::media::term::wrap(&line, width, "")
        )?;
    }
    // Several rating columns: calibrate's answer (the best, the runner-up's paired verdict),
    // its configurations and their comparisons.
    let several = a.record.configs.len() > 1;
    let (answer, mut sections) = compared(a);
    for line in answer {
        writeln!(
            out,
            "{}",
            crate::report::media::term::wrap(&line, width, "")
        )?;
    }
    // Long form's answer first: the analytics' tables (AlpacaEval's evaluator measures, the
    // annotators), then the agreement figures.
    sections.extend(section_tables(a));
    let (first, last) = if a.long.is_some() || several {
        (&sections[..], &[][..])
    } else {
        (&[][..], &sections[..])
    };
    for t in first {
        crate::report::calibrate::screen::print_table(out, t, width)?;
    }
    if !first.is_empty() {
        writeln!(out)?;
    }
    // Without a labelled pair (an estimate from the judge alone, or from numbers), there is no
    // agreement to show.
    let agreement = !several && (a.overall.n > 0 || a.estimate.is_none());
    if agreement {
        writeln!(out, "{}", table::render(&metrics_table(&a.overall)))?;
    }
    let confusion = crate::report::media::table::confusion_table(&a.overall.confusion);
    let confusion: Vec<&crate::report::media::table::Table> = if agreement {
        vec![&confusion]
    } else {
        Vec::new()
    };
    let titled = (!several && !a.groups.is_empty()).then(|| groups_table(a));
    let estimate = a
        .estimate
        .as_ref()
        .map(crate::report::estimate::tables)
        .unwrap_or_default();
    for t in estimate.iter().chain(&titled).chain(confusion).chain(last) {
        crate::report::calibrate::screen::print_table(out, t, width)?;
    }
    Ok(())
}

/// `--estimate`: the answer's lines, then a blank line.
fn estimate_lines(a: &Analysis) -> Vec<String> {
    let Some(e) = &a.estimate else {
        return Vec::new();
    };
    let mut lines = crate::report::estimate::answer(e);
    lines.push(String::new());
    lines
}

/// `--sequential`: what was decided, at which item, and the interval at the items shown.
fn sequential_lines(a: &Analysis) -> Vec<String> {
    use crate::report::media::format::thousands;
    let Some((s, [x, y])) = &a.sequential else {
        return Vec::new();
    };
    let level = format!("{:.0}%", 100.0 * (1.0 - s.alpha));
    let interval = |lo: f64, hi: f64| format!("[{lo:.4}, {hi:.4}]");
    let first = match (s.stopped_at, s.better, s.lower, s.upper) {
        (Some(t), Some(better), Some(lo), Some(hi)) => {
            let (winner, loser) = if better == "a" { (x, y) } else { (y, x) };
            format!(
                "Sequential: {winner} agrees with the gold more often than {loser}, decided at item {} of {}: (1 + accuracy {x} − accuracy {y})/2 lies in {} there, an anytime-valid {level} interval that excludes ½.",
                thousands(t as u64),
                thousands(s.n as u64),
                interval(lo, hi)
            )
        }
        _ => format!(
            "Sequential: {x} and {y} are not told apart over {} items: the anytime-valid {level} interval for (1 + accuracy {x} − accuracy {y})/2 never excludes ½.",
            thousands(s.n as u64)
        ),
    };
    let at: Vec<String> =
        s.at.iter()
            .map(|b| {
                format!(
                    "item {}: {}",
                    thousands(b.t as u64),
                    interval(b.lower, b.upper)
                )
            })
            .collect();
    vec![
        first,
        format!("The interval at {}.", at.join(", ")),
        String::new(),
    ]
}

/// Writes the CSV and the HTML page when asked.
pub fn write_files(a: &Analysis, output: &Output) -> Result<()> {
    if let Some(path) = &output.csv {
        to_tidy(a).write(path)?;
    }
    if let Some(path) = &output.html {
        write_analysis(a, path)?;
    }
    Ok(())
}

/// Prints to stdout (tables or JSON) and writes the CSV and HTML when asked.
pub fn emit(a: &Analysis, output: &Output) -> Result<()> {
    write_files(a, output)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if output.json {
        serde_json::to_writer_pretty(&mut out, &to_json(a))?;
        writeln!(out)?;
    } else {
        write_terminal(a, &mut out)?;
        for path in output.csv.iter().chain(&output.html) {
            writeln!(out, "\nwrote {}", path.display())?;
        }
    }
    out.flush()?;
    Ok(())
}

/// The page of an `analyze` result: its tables and plots (there are no items to browse).
fn analysis_page(a: &Analysis) -> Result<Page> {
    let mut tables = a
        .estimate
        .as_ref()
        .map(crate::report::estimate::tables)
        .unwrap_or_default();
    let (answer, several) = compared(a);
    if several.is_empty() {
        tables.push(metrics_table(&a.overall));
        if !a.groups.is_empty() {
            tables.push(groups_table(a));
        }
        tables.push(crate::report::media::table::confusion_table(
            &a.overall.confusion,
        ));
    }
    tables.extend(several);
    tables.extend(section_tables(a));
    let mut lines = vec![format!("data {}", a.source)];
    lines.extend(header(a));
    Ok(Page {
        answer: a
            .estimate
            .as_ref()
            .map(crate::report::estimate::answer)
            .unwrap_or(answer),
        title: format!("analyze {}", a.source),
        header: lines,
        command: crate::run::command_line().join(" "),
        simulated: false,
        tables,
        plots: plots(a)?
            .into_iter()
            .map(|(title, svg)| html::plot(title, svg))
            .collect(),
        browser: None,
    })
}

/// Writes the page of an `analyze` result to `path`.
pub fn write_analysis(a: &Analysis, path: &Path) -> Result<()> {
    html::write_page(analysis_page(a)?, path)
}
