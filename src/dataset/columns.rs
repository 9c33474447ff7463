//! A table's columns beyond reading labels: real numbers, group names interned (`Groups`),
//! columns added beside a file's own (the values a command computes for a file, e.g. a label
//! store's gold), and a column let go once read.

use super::frame::{from_values, Frame, Values};
use crate::error::input_error;
use anyhow::Result;
use polars::prelude::DataType;
use std::collections::HashMap;
use std::sync::Arc;

impl Frame {
    /// Fails on the first id seen twice, naming both rows.
    pub fn check_unique(&self, ids: &[String], column: &str) -> Result<()> {
        let mut first: HashMap<&str, usize> = HashMap::with_capacity(ids.len());
        for (row, id) in ids.iter().enumerate() {
            if let Some(seen) = first.insert(id.as_str(), row) {
                return Err(input_error(format!(
                    "{}: duplicate id '{id}' (first seen at row {}); ids must be unique, remove or rename one",
                    self.at(column, row),
                    seen + 1
                )));
            }
        }
        Ok(())
    }

    /// A group column, every row's name interned (no text per row); a missing value is an
    /// error naming the row.
    pub fn groups(&self, name: &str, flag: &str) -> Result<Groups> {
        let cast = self.as_text(
            name,
            flag,
            "which cannot serve as group; use text or integers",
        )?;
        let text = cast.str().map_err(anyhow::Error::from)?;
        let mut index: HashMap<&str, u32> = HashMap::new();
        let mut names = Vec::new();
        let mut of_pair = Vec::with_capacity(text.len());
        for (row, v) in text.iter().enumerate() {
            let v = v.ok_or_else(|| {
                input_error(format!(
                    "{}: the group is missing; every row needs one",
                    self.at(name, row)
                ))
            })?;
            of_pair.push(*index.entry(v).or_insert_with(|| {
                names.push(Arc::from(v));
                (names.len() - 1) as u32
            }));
        }
        Ok(Groups { names, of_pair })
    }

    /// Column `name`'s values let go, its name kept (messages list a file's columns): a
    /// column of nulls held as one value. For a column read once (an id checked unique) that
    /// would otherwise hold memory to the end.
    pub fn forget(&mut self, name: &str) -> Result<()> {
        if self.df.column(name).is_err() {
            return Ok(());
        }
        let height = self.df.height();
        let blank = polars::prelude::Column::full_null(name.into(), height, &DataType::String);
        self.df.with_column(blank).map_err(anyhow::Error::from)?;
        Ok(())
    }

    /// A column of real numbers (numbers, or numbers as text); a missing value stays missing,
    /// anything else that is not a finite number is an error naming the row.
    pub fn numbers(&self, name: &str, flag: &str) -> Result<Vec<Option<f64>>> {
        self.numbers_where(name, flag, f64::is_finite, |v| {
            format!("'{v}' is not a number; {flag} takes finite numbers, empty where there is none")
        })
    }

    /// Column `name`'s `values` with none missing: a missing one is an error naming its row,
    /// `why` saying what needs every row.
    pub fn every<T>(&self, name: &str, values: Vec<Option<T>>, why: &str) -> Result<Vec<T>> {
        values
            .into_iter()
            .enumerate()
            .map(|(row, v)| v.ok_or_else(|| input_error(format!("{}: {why}", self.at(name, row)))))
            .collect()
    }

    /// Which cells of a column are empty (null, or blank text), read in place: no text is
    /// copied per row.
    pub fn blank(&self, name: &str, flag: &str) -> Result<Vec<bool>> {
        let series = self.column(name, flag)?.as_materialized_series();
        if let Ok(text) = series.str() {
            return Ok(text
                .iter()
                .map(|v| v.is_none_or(|t| t.trim().is_empty()))
                .collect());
        }
        if series.dtype().is_primitive_numeric() || series.dtype().is_bool() {
            return Ok(series.is_null().iter().map(|v| v.unwrap_or(true)).collect());
        }
        Ok(self
            .optional_text(name, flag, "value")?
            .iter()
            .map(|v| v.as_deref().is_none_or(|t| t.trim().is_empty()))
            .collect())
    }

    /// This table with `columns` added beside its own (one of the same name replaced), as
    /// `from_values` makes them.
    pub fn with_columns(&self, columns: Vec<(String, Values)>) -> Result<Frame> {
        let added = from_values(&self.path.display().to_string(), columns)?;
        let mut df = self.df.clone();
        for column in added.df.columns() {
            if column.len() != df.height() {
                return Err(input_error(format!(
                    "{}: '{}' has {} values for {} rows",
                    self.path.display(),
                    column.name(),
                    column.len(),
                    df.height()
                )));
            }
            df.with_column(column.clone())
                .map_err(|e| input_error(format!("{}: {e}", self.path.display())))?;
        }
        Ok(Frame {
            path: self.path.clone(),
            df,
        })
    }
}

/// Group names and each pair's group as an index into them (first-seen order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Groups {
    pub names: Vec<Arc<str>>,
    pub of_pair: Vec<u32>,
}

impl Groups {
    pub(crate) fn from_names<S: AsRef<str>>(values: &[S]) -> Self {
        let mut index: HashMap<&str, u32> = HashMap::new();
        let mut names = Vec::new();
        let of_pair = values
            .iter()
            .map(|v| {
                *index.entry(v.as_ref()).or_insert_with(|| {
                    names.push(Arc::from(v.as_ref()));
                    (names.len() - 1) as u32
                })
            })
            .collect();
        Self { names, of_pair }
    }

    /// The groups of the pairs at `rows`, in that order; the names those pairs use, in
    /// first-seen order (as `from_names` on their names).
    pub(crate) fn pick(&self, rows: impl IntoIterator<Item = usize>) -> Self {
        let mut renamed = vec![u32::MAX; self.names.len()];
        let mut names = Vec::new();
        let of_pair = rows
            .into_iter()
            .map(|row| {
                let old = self.of_pair[row] as usize;
                if renamed[old] == u32::MAX {
                    renamed[old] = names.len() as u32;
                    names.push(self.names[old].clone());
                }
                renamed[old]
            })
            .collect();
        Self { names, of_pair }
    }

    /// Pair `k`'s group name.
    pub fn of(&self, k: usize) -> &Arc<str> {
        &self.names[self.of_pair[k] as usize]
    }
}
