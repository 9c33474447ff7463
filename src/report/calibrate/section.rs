//! An analytic's report is a section: one type in the analytic's report file implements
//! `Section`, and one line in `sections::SECTIONS` registers it. The terminal, `--json`,
//! metrics.csv, the plots directory and report.html ask every registered section for its
//! part; a section answers only where the run has its data, and renders what the evaluation
//! found (it evaluates nothing).

use crate::evaluation::Evaluated;
use crate::evaluation::Scope;
use crate::report::media::csv::TidyRows;
use crate::report::media::table::Table;
use anyhow::Result;
use serde_json::Value;

/// Where the terminal and report.html put a section's tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// After the configurations table, before any detail.
    Lead,
    /// Among the scopes' tables, before the confusion matrices.
    Scopes,
    /// After the paired comparisons.
    After,
}

/// How much a section shows: the terminal without `--details` (`Brief`), or everything (the
/// terminal with `--details`, and report.html).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    Brief,
    Full,
}

impl View {
    /// `tables` with `--details` (and on report.html), nothing without.
    pub fn details(self, tables: impl FnOnce() -> Vec<Table>) -> Vec<Table> {
        match self {
            View::Brief => Vec::new(),
            View::Full => tables(),
        }
    }
}

/// A JSON key with its value, when there is one.
pub fn key(name: &'static str, value: Option<Value>) -> Vec<(&'static str, Value)> {
    value.map(|v| (name, v)).into_iter().collect()
}

/// Each configuration's result of type `T` (an analytic's typed finding), in `order`.
pub fn of_configs<'a, T: std::any::Any>(
    run: &'a crate::evaluation::Evaluated,
    order: &[usize],
) -> Vec<(usize, &'a T)> {
    (order.iter())
        .filter_map(|&i| Some((i, run.evaluation.of_config::<T>(i)?)))
        .collect()
}

/// Configuration `i`'s result of type `T`, serialized under `name` (none without one).
pub fn config_key<T: std::any::Any + serde::Serialize>(
    run: &crate::evaluation::Evaluated,
    i: usize,
    name: &'static str,
) -> Vec<(&'static str, Value)> {
    let found = run.evaluation.of_config::<T>(i);
    key(name, found.and_then(|t| serde_json::to_value(t).ok()))
}

/// A figure: its file in the run directory, its title on report.html, its SVG.
#[derive(Debug)]
pub struct Figure {
    pub file: String,
    pub title: String,
    pub svg: String,
}

impl Figure {
    /// The figure `file` titled `title`, when there is an SVG.
    pub fn one(svg: Option<String>, file: &str, title: impl Into<String>) -> Vec<Figure> {
        svg.map(|svg| Figure {
            file: file.into(),
            title: title.into(),
            svg,
        })
        .into_iter()
        .collect()
    }
}

/// An analytic's outputs. Every method but `place` and `tables` has a default for an analytic
/// that has no part of that output.
pub trait Section: Sync {
    /// Where its tables go.
    fn place(&self) -> Place;
    /// Its tables in `view`, configurations in the report's `order`.
    fn tables(&self, run: &Evaluated, order: &[usize], view: View) -> Vec<Table>;
    /// Lines of the answer before the best configuration's: the question it answers first.
    fn question(&self, _run: &Evaluated) -> Vec<String> {
        Vec::new()
    }
    /// Lines of the answer after the best and the runner-up.
    fn answer(&self, _run: &Evaluated, _order: &[usize]) -> Vec<String> {
        Vec::new()
    }
    /// Its figures (plots/ and report.html).
    fn figures(&self, _run: &Evaluated, _order: &[usize]) -> Result<Vec<Figure>> {
        Ok(Vec::new())
    }
    /// Its keys at the top of the `--json` document.
    fn run_json(&self, _run: &Evaluated) -> Vec<(&'static str, Value)> {
        Vec::new()
    }
    /// Its keys in `configs[i]` of the `--json` document.
    fn config_json(
        &self,
        _run: &Evaluated,
        _order: &[usize],
        _i: usize,
    ) -> Vec<(&'static str, Value)> {
        Vec::new()
    }
    /// Its keys in a scope's object of the `--json` document.
    fn scope_json(&self, _scope: &Scope) -> Vec<(&'static str, Value)> {
        Vec::new()
    }
    /// Its metrics.csv rows that belong to no one configuration (each row may name its own).
    fn run_rows(&self, _rows: &mut TidyRows, _run: &Evaluated) {}
    /// Its metrics.csv rows of configuration `i`, after the configuration's scopes.
    fn config_rows(&self, _rows: &mut TidyRows, _run: &Evaluated, _i: usize) {}
    /// Its metrics.csv rows of the scope `name`, after the scope's own.
    fn scope_rows(&self, _rows: &mut TidyRows, _name: &str, _scope: &Scope) {}
}

/// A figure's file name numbered by configuration: `{prefix}-01-{name}.svg`, the name made
/// safe for a file system.
pub fn numbered_file(prefix: &str, i: usize, name: &str) -> String {
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
    format!("{prefix}-{:02}-{safe}.svg", i + 1)
}
