//! Tables as text (`Table`: a title, headers, rows and notes), which the terminal and the HTML
//! page both show, and their terminal rendering (comfy-table).

use crate::metrics::{Agreement, Contingency, Statistic};
use crate::report::media::format::{self, confusion_names};
use comfy_table::{presets, CellAlignment, ContentArrangement};
use serde::Serialize;

/// A table as text: a title, its columns, rows, and notes that explain it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Table {
    pub title: String,
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
    pub notes: Vec<String>,
    /// Whether the columns after the first are numbers (right-aligned).
    pub numeric: bool,
    /// Columns a narrow terminal may leave out (the JSON, CSV and the page keep them).
    #[serde(skip)]
    pub secondary: Vec<usize>,
    /// Where the columns a narrow terminal leaves out can be read instead.
    #[serde(skip)]
    pub elsewhere: &'static str,
}

impl Table {
    pub fn new(title: impl Into<String>, headers: &[&str]) -> Self {
        Self {
            title: title.into(),
            headers: headers.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
            notes: Vec::new(),
            numeric: true,
            secondary: Vec::new(),
            elsewhere: "--json, metrics.csv and report.html have them",
        }
    }
}

/// A confusion matrix: rows gold, columns rating, counts.
pub fn confusion_table(c: &crate::metrics::Contingency) -> Table {
    let (rows, columns) = confusion_names(c);
    let mut header = vec![""];
    header.extend(columns.iter().map(String::as_str));
    let mut out = Table::new("Confusion matrix (rows: gold, columns: rating)", &header);
    for (name, counts) in rows.iter().zip(c.rows()) {
        let mut row = vec![name.clone()];
        row.extend(counts.iter().map(u64::to_string));
        out.rows.push(row);
    }
    out
}

pub fn new_table(header: Vec<&str>) -> comfy_table::Table {
    let mut table = comfy_table::Table::new();
    table
        .load_preset(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(header);
    table
}

/// A summary table rendered for the terminal, fitted to its width (`term::width`).
pub fn render(t: &Table) -> String {
    render_at(t, super::term::width())
}

/// A summary table rendered at `width` (None: full width, as it is). A table too wide first
/// leaves out its secondary columns (saying so), then shows each interval under its value,
/// then wraps its cells.
pub fn render_at(t: &Table, width: Option<usize>) -> String {
    let whole = plain(t, &[], false);
    let Some(w) = width else {
        return whole;
    };
    let fits = |text: &str| text.lines().all(|l| super::term::shown_width(l) <= w);
    if fits(&whole) {
        return whole;
    }
    let mut dropped: Vec<usize> = Vec::new();
    for &c in t.secondary.iter().rev() {
        dropped.push(c);
        let text = plain(t, &dropped, false);
        if fits(&text) {
            return with_dropped(t, &dropped, text, w);
        }
    }
    let stacked = plain(t, &dropped, true);
    if fits(&stacked) {
        return with_dropped(t, &dropped, stacked, w);
    }
    let mut table = table_of(t, &dropped, true);
    table
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(u16::try_from(w).unwrap_or(u16::MAX));
    with_dropped(t, &dropped, table.to_string(), w)
}

/// The comfy table of `t` without the columns `dropped`, each interval under its value when
/// `stacked`.
fn table_of(t: &Table, dropped: &[usize], stacked: bool) -> comfy_table::Table {
    let keep = |i: &usize| !dropped.contains(i);
    let mut table = new_table(
        (0..t.headers.len())
            .filter(keep)
            .map(|i| t.headers[i].as_str())
            .collect(),
    );
    for row in &t.rows {
        table.add_row(
            (0..row.len())
                .filter(keep)
                .map(|i| {
                    if stacked {
                        row[i].replacen(" [", "\n[", 1)
                    } else {
                        row[i].clone()
                    }
                })
                .collect::<Vec<_>>(),
        );
    }
    if t.numeric {
        align_numbers(&mut table);
    }
    table
}

fn plain(t: &Table, dropped: &[usize], stacked: bool) -> String {
    table_of(t, dropped, stacked).to_string()
}

/// The table's text and, when columns were left out, the line that names them.
fn with_dropped(t: &Table, dropped: &[usize], text: String, width: usize) -> String {
    if dropped.is_empty() {
        return text;
    }
    let mut names: Vec<usize> = dropped.to_vec();
    names.sort_unstable();
    let names: Vec<&str> = names.iter().map(|&i| t.headers[i].as_str()).collect();
    let note = format!(
        "({} left out at {width} columns; {})",
        names.join(", "),
        t.elsewhere
    );
    format!("{text}\n{}", super::term::wrap(&note, Some(width), ""))
}

/// Right-aligns every column but the first.
pub fn align_numbers(table: &mut comfy_table::Table) {
    let count = table.column_count();
    for i in 1..count {
        if let Some(column) = table.column_mut(i) {
            column.set_cell_alignment(CellAlignment::Right);
        }
    }
}

pub fn confusion(table: &Contingency) -> String {
    render(&confusion_table(table))
}

/// Every statistic with its CI and p-value.
pub fn agreement_table(a: &Agreement) -> Table {
    let ci = a.intervals.as_ref().map_or("CI".to_string(), |i| {
        format!("{} CI", format::level(i.level))
    });
    let mut out = Table::new(
        format!("Agreement over {} pairs", a.n),
        &["metric", "value", &ci, "p-value"],
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

/// One row per group (`rows`: each named, the last `overall`).
pub fn groups_table(rows: &[(&str, &Agreement)]) -> Table {
    let mut header = vec!["group", "n"];
    header.extend(GROUP_STATISTICS.iter().map(|&s| format::statistic_name(s)));
    let mut out = Table::new("By group", &header);
    for (name, g) in rows {
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
