//! A table's columns beyond reading labels: real numbers, and columns added beside a file's
//! own (the values a command computes for a file, e.g. a label store's gold).

use super::frame::{from_values, Frame, Values};
use crate::error::input_error;
use anyhow::Result;

impl Frame {
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
