//! Tables as text (`Table`: a title, headers, rows and notes), which the terminal and the HTML
//! page both show, and their terminal rendering (comfy-table).

use crate::metrics::Contingency;
use crate::report::media::format::confusion_names;
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
}

impl Table {
    pub fn new(title: impl Into<String>, headers: &[&str]) -> Self {
        Self {
            title: title.into(),
            headers: headers.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
            notes: Vec::new(),
            numeric: true,
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

/// A summary table rendered for the terminal.
pub fn render(t: &Table) -> String {
    let mut table = new_table(t.headers.iter().map(String::as_str).collect());
    for row in &t.rows {
        table.add_row(row.clone());
    }
    if t.numeric {
        align_numbers(&mut table);
    }
    table.to_string()
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
