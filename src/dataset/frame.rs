//! Reading CSV, Parquet and JSONL files into a DataFrame, and typed column access with errors
//! that name the file, the column and the row.

use crate::error::input_error;
use anyhow::Result;
use polars::prelude::*;
use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};

/// File formats recognised by extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Csv,
    Parquet,
    JsonLines,
    /// A JSON array of objects (RM-Bench, AlpacaEval and many benchmark dumps).
    Json,
}

impl Format {
    pub fn from_path(path: &Path) -> Result<Self> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("csv") => Ok(Format::Csv),
            Some("parquet" | "pq") => Ok(Format::Parquet),
            Some("jsonl" | "ndjson") => Ok(Format::JsonLines),
            Some("json") => Ok(Format::Json),
            other => Err(input_error(format!(
                "cannot read '{}': unknown format {}; use a .csv, .parquet, .jsonl or .json file",
                path.display(),
                other.map_or("(no extension)".to_string(), |e| format!("'.{e}'")),
            ))),
        }
    }
}

/// How label values are read beyond plain integers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelReading {
    /// Source value (as text) → label, e.g. "Tie" → 0.
    pub map: HashMap<String, i64>,
    /// Leave out rows whose label is missing or unreadable (counted) instead of failing.
    pub drop_unreadable: bool,
}

impl LabelReading {
    pub fn is_plain(&self) -> bool {
        self.map.is_empty() && !self.drop_unreadable
    }

    /// The label a value maps to: by its text, else by its number (a column that JSON or CSV
    /// reading made floating point because it has missing values reads 1 as "1.0", which
    /// `--gold-map 1=-1` means too).
    ///
    /// A map that reads AlpacaEval's preferences (1 as -1 and 2 as 1) reads any other number
    /// between 1 and 2 (its tie 1.5, a weighted judge's 1.27) by its side: 0 at 1.5, else -1 or
    /// 1, unless it maps that value itself ([`Self::alpacaeval`] keeps the number).
    pub fn mapped(&self, value: &str) -> Option<i64> {
        if let Some(&label) = self.map.get(value) {
            return Some(label);
        }
        let number: f64 = value.parse().ok()?;
        let of = |x: f64| {
            self.map
                .iter()
                .find(|(k, _)| k.parse::<f64>().is_ok_and(|k| k == x))
                .map(|(_, &label)| label)
        };
        of(number).or_else(|| {
            self.alpacaeval(value).map(|p| {
                if p < 1.5 {
                    -1
                } else if p > 1.5 {
                    1
                } else {
                    0
                }
            })
        })
    }

    /// A value on AlpacaEval's preference scale (a number in [1, 2]), when the map reads that
    /// scale (1 as -1 and 2 as 1).
    pub fn alpacaeval(&self, value: &str) -> Option<f64> {
        let number: f64 = value.trim().parse().ok()?;
        let of = |x: f64| {
            self.map
                .iter()
                .find(|(k, _)| k.parse::<f64>().is_ok_and(|k| k == x))
                .map(|(_, &label)| label)
        };
        (of(1.0) == Some(-1) && of(2.0) == Some(1) && (1.0..=2.0).contains(&number))
            .then_some(number)
    }
}

/// A loaded table and the file it came from (for error messages).
#[derive(Debug, Clone)]
pub struct Frame {
    pub path: PathBuf,
    pub df: DataFrame,
}

/// Reads a file by its extension. CSV columns are all read as text, so that label parsing
/// (and its errors) is ours rather than the CSV type inference's.
pub fn read(path: &Path) -> Result<Frame> {
    let format = Format::from_path(path)?;
    let shown = path.display();
    let file = File::open(path).map_err(|e| {
        let fix = match e.kind() {
            std::io::ErrorKind::NotFound => "file not found; check the path",
            std::io::ErrorKind::PermissionDenied => {
                "permission denied; check the file's permissions"
            }
            _ => "check the path",
        };
        input_error(format!("cannot read '{shown}': {fix}"))
    })?;
    let metadata = file.metadata().ok();
    if metadata.as_ref().is_some_and(|m| m.is_dir()) {
        return Err(input_error(format!(
            "cannot read '{shown}': it is a directory; pass a file"
        )));
    }
    if metadata.as_ref().is_some_and(|m| m.len() == 0) {
        return Err(input_error(format!(
            "'{shown}' is empty (0 bytes); check that it was written completely"
        )));
    }
    let df = match format {
        Format::Csv => CsvReadOptions::default()
            .with_has_header(true)
            .with_infer_schema_length(Some(0))
            .into_reader_with_file_handle(file)
            .finish(),
        Format::Parquet => ParquetReader::new(file).finish(),
        Format::JsonLines => JsonReader::new(file)
            .with_json_format(JsonFormat::JsonLines)
            .infer_schema_len(None)
            .finish(),
        Format::Json => JsonReader::new(file)
            .with_json_format(JsonFormat::Json)
            .infer_schema_len(None)
            .finish(),
    }
    .map_err(|e| {
        let what = match format {
            Format::Csv => "CSV",
            Format::Parquet => "Parquet",
            Format::JsonLines => "JSON Lines",
            Format::Json => "a JSON array of objects",
        };
        input_error(format!(
            "cannot read '{shown}' as {what}: {}; check that the file is complete and in that format",
            first_line(&e.to_string())
        ))
    })?;
    Ok(Frame {
        path: path.to_path_buf(),
        df,
    })
}

/// One column of values handed over by a program (the Python module) rather than read from a
/// file; `None` is a missing value.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    Int(Vec<Option<i64>>),
    Float(Vec<Option<f64>>),
    Text(Vec<Option<String>>),
}

impl Values {
    fn len(&self) -> usize {
        match self {
            Values::Int(v) => v.len(),
            Values::Float(v) => v.len(),
            Values::Text(v) => v.len(),
        }
    }
}

/// A table from named columns of values, read by the same typed accessors (and errors) as a
/// file; `name` stands where a file's path would in messages (e.g. "Python values").
pub fn from_values(name: &str, columns: Vec<(String, Values)>) -> Result<Frame> {
    let rows = columns.first().map_or(0, |(_, v)| v.len());
    if let Some((column, values)) = columns.iter().find(|(_, v)| v.len() != rows) {
        return Err(input_error(format!(
            "{name}: '{column}' has {} values but '{}' has {rows}; give one value per item in every column",
            values.len(),
            columns[0].0
        )));
    }
    let series: Vec<Column> = columns
        .into_iter()
        .map(|(column, values)| {
            let name = PlSmallStr::from(column.as_str());
            match values {
                Values::Int(v) => Series::new(name, v),
                Values::Float(v) => Series::new(name, v),
                Values::Text(v) => Series::new(name, v),
            }
            .into()
        })
        .collect();
    let df = DataFrame::new(rows, series).map_err(|e| input_error(format!("{name}: {e}")))?;
    Ok(Frame {
        path: PathBuf::from(name),
        df,
    })
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or(s).trim()
}

impl Frame {
    pub fn height(&self) -> usize {
        self.df.height()
    }

    pub fn column_names(&self) -> Vec<String> {
        self.df
            .get_column_names()
            .iter()
            .map(|c| c.to_string())
            .collect()
    }

    /// A column by name; `flag` names the option that chooses it, for the fix.
    pub fn column(&self, name: &str, flag: &str) -> Result<&Column> {
        self.df.column(name).map_err(|_| {
            input_error(format!(
                "'{}' has no column '{name}' (columns found: {}); name the right column with {flag}",
                self.path.display(),
                self.column_names().join(", ")
            ))
        })
    }

    pub fn at(&self, column: &str, row: usize) -> String {
        format!(
            "'{}', column '{column}', row {}",
            self.path.display(),
            row + 1
        )
    }

    /// A column of whole-number labels. Integers, whole floats and text holding an integer
    /// are accepted; nulls, fractions and other text are errors naming the row.
    pub fn int_labels(&self, name: &str, flag: &str) -> Result<Vec<i64>> {
        Ok(self
            .int_labels_or_missing(name, flag, false)?
            .into_iter()
            .flatten()
            .collect())
    }

    /// `int_labels`, a missing label (null or empty) `None` when `missing_ok`, else an error.
    pub fn int_labels_or_missing(
        &self,
        name: &str,
        flag: &str,
        missing_ok: bool,
    ) -> Result<Vec<Option<i64>>> {
        let column = self.column(name, flag)?;
        let series = column.as_materialized_series();
        let not_integer = |row: usize, value: &str| {
            // Text such as `Tie` or `A>B` is a label to map; a fraction is a score.
            let map = if flag.contains("rating") {
                "--rating-map"
            } else {
                "--gold-map"
            };
            let fix = if value.trim().parse::<f64>().is_ok() {
                "labels must be whole numbers such as -1, 0, 1".to_string()
            } else {
                format!(
                    "map text labels to -1, 0, 1 with {map} (e.g. {map} '{}=0'), or write whole numbers such as -1, 0, 1",
                    value.trim()
                )
            };
            input_error(format!(
                "{}: '{value}' is not an integer label; {fix}",
                self.at(name, row)
            ))
        };
        let missing = |row: usize| -> Result<Option<i64>> {
            if missing_ok {
                return Ok(None);
            }
            Err(input_error(format!(
                "{}: the label is missing; every row needs a label (fill it in or drop the row)",
                self.at(name, row)
            )))
        };
        let dtype = series.dtype().clone();
        if dtype.is_integer() {
            let ints = series
                .cast(&DataType::Int64)
                .map_err(|e| input_error(format!("{}: {e}", self.at(name, 0))))?;
            let ints = ints.i64().map_err(anyhow::Error::from)?;
            if ints.null_count() == 0 {
                return Ok(ints.into_no_null_iter().map(Some).collect());
            }
            return ints
                .iter()
                .enumerate()
                .map(|(row, v)| v.map_or_else(|| missing(row), |v| Ok(Some(v))))
                .collect();
        }
        if dtype.is_float() {
            let floats = series
                .cast(&DataType::Float64)
                .map_err(anyhow::Error::from)?;
            let floats = floats.f64().map_err(anyhow::Error::from)?;
            return floats
                .iter()
                .enumerate()
                .map(|(row, v)| match v {
                    None => missing(row),
                    Some(v) => whole(v)
                        .map(Some)
                        .ok_or_else(|| not_integer(row, &v.to_string())),
                })
                .collect();
        }
        if dtype == DataType::String {
            let text = series.str().map_err(anyhow::Error::from)?;
            return text
                .iter()
                .enumerate()
                .map(
                    |(row, v)| match v.map(str::trim).filter(|v| !v.is_empty()) {
                        None => missing(row),
                        Some(v) => parse_label(v).map(Some).ok_or_else(|| not_integer(row, v)),
                    },
                )
                .collect();
        }
        Err(input_error(format!(
            "'{}', column '{name}': has type {dtype}, not integer labels; store labels as whole numbers such as -1, 0, 1",
            self.path.display()
        )))
    }

    /// Labels read through a value map (`--gold-map`/`--rating-map`), optionally leaving out (None) the
    /// rows whose label is missing or unreadable instead of failing on them.
    pub fn mapped_labels(
        &self,
        name: &str,
        flag: &str,
        reading: &LabelReading,
    ) -> Result<Vec<Option<i64>>> {
        self.labels_read(name, flag, reading, false)
    }

    /// `mapped_labels`, a missing label (null or empty) `None` rather than an error: a row
    /// without gold.
    pub fn mapped_labels_or_missing(
        &self,
        name: &str,
        flag: &str,
        reading: &LabelReading,
    ) -> Result<Vec<Option<i64>>> {
        self.labels_read(name, flag, reading, true)
    }

    /// An annotator's votes: a missing value is a missing vote (None), an unreadable one an
    /// error (or None with `--unreadable drop`).
    pub fn votes(
        &self,
        name: &str,
        flag: &str,
        reading: &LabelReading,
    ) -> Result<Vec<Option<i64>>> {
        self.labels_read(name, flag, reading, true)
    }

    fn labels_read(
        &self,
        name: &str,
        flag: &str,
        reading: &LabelReading,
        missing_ok: bool,
    ) -> Result<Vec<Option<i64>>> {
        let text = self.as_text(name, flag, "not labels")?;
        let text = text.str().map_err(anyhow::Error::from)?;
        text.iter()
            .enumerate()
            .map(|(row, v)| {
                let v = v.map(str::trim).filter(|v| !v.is_empty());
                let label = v.and_then(|v| reading.mapped(v).or_else(|| parse_label(v)));
                match (label, v) {
                    (Some(l), _) => Ok(Some(l)),
                    (None, None) if missing_ok => Ok(None),
                    _ if reading.drop_unreadable => Ok(None),
                    (None, Some(v)) => Err(input_error(format!(
                        "{}: '{v}' is not an integer label; map it with --gold-map/--rating-map (e.g. '{v}=0') or leave such rows out with --unreadable drop",
                        self.at(name, row)
                    ))),
                    (None, None) => Err(input_error(format!(
                        "{}: the label is missing; fill it in, or leave such rows out with --unreadable drop",
                        self.at(name, row)
                    ))),
                }
            })
            .collect()
    }

    /// A column as text (ids, group names); numbers are formatted, nulls are errors.
    pub fn text(&self, name: &str, flag: &str, what: &str) -> Result<Vec<String>> {
        self.optional_text(name, flag, what)?
            .into_iter()
            .enumerate()
            .map(|(row, v)| {
                v.ok_or_else(|| {
                    input_error(format!(
                        "{}: the {what} is missing; every row needs one",
                        self.at(name, row)
                    ))
                })
            })
            .collect()
    }

    /// Column `name` cast to text; a type that cannot be is an error ending in `why`.
    pub(super) fn as_text(&self, name: &str, flag: &str, why: &str) -> Result<Series> {
        let series = self.column(name, flag)?.as_materialized_series();
        series.cast(&DataType::String).map_err(|_| {
            input_error(format!(
                "'{}', column '{name}': has type {}, {why}",
                self.path.display(),
                series.dtype()
            ))
        })
    }

    /// A column as text, a missing value (null) as `None`.
    pub fn optional_text(&self, name: &str, flag: &str, what: &str) -> Result<Vec<Option<String>>> {
        let cast = self.as_text(
            name,
            flag,
            &format!("which cannot serve as {what}; use text or integers"),
        )?;
        let text = cast.str().map_err(anyhow::Error::from)?;
        Ok(text.iter().map(|v| v.map(str::to_owned)).collect())
    }

    /// A column of probabilities in [0, 1] (numbers, or numbers as text); a missing value stays
    /// missing, anything else outside [0, 1] is an error naming the row.
    pub fn probabilities(&self, name: &str, flag: &str) -> Result<Vec<Option<f64>>> {
        self.numbers_where(name, flag, |p| (0.0..=1.0).contains(&p), |v| {
            format!("'{v}' is not a probability; {flag} takes numbers from 0 to 1 (P(label +1), e.g. P(response 2 better)), empty where there is none")
        })
    }

    /// A column of numbers (or numbers as text) that `accept` takes; a missing value stays
    /// missing, anything else is an error naming the row, `reason` saying why.
    pub(super) fn numbers_where(
        &self,
        name: &str,
        flag: &str,
        accept: impl Fn(f64) -> bool,
        reason: impl Fn(&str) -> String,
    ) -> Result<Vec<Option<f64>>> {
        let column = self.column(name, flag)?;
        let text = column
            .as_materialized_series()
            .cast(&DataType::String)
            .map_err(anyhow::Error::from)?;
        let text = text.str().map_err(anyhow::Error::from)?;
        text.iter()
            .enumerate()
            .map(|(row, v)| match v.map(str::trim) {
                None | Some("") => Ok(None),
                Some(v) => match v.parse::<f64>() {
                    Ok(x) if accept(x) => Ok(Some(x)),
                    _ => Err(input_error(format!(
                        "{}: {}",
                        self.at(name, row),
                        reason(v)
                    ))),
                },
            })
            .collect()
    }

    /// A text column whose missing values stay missing.
    /// Each row's list in column `name` (a list column), with where it is (`'FILE', column
    /// 'NAME', row N`) for the caller's messages; a missing list is an error naming the row.
    pub fn list_rows(&self, name: &str) -> Result<Vec<(String, Series)>> {
        let series = self.df.column(name)?.as_materialized_series().clone();
        let list = series.list().map_err(anyhow::Error::from)?;
        list.series_iter()
            .enumerate()
            .map(|(row, value)| {
                let at = format!(
                    "'{}', column '{name}', row {}",
                    self.path.display(),
                    row + 1
                );
                match value {
                    Some(v) => Ok((at, v)),
                    None => Err(input_error(format!(
                        "{at}: the list is missing (null); give a list, [] when there is none"
                    ))),
                }
            })
            .collect()
    }
}

/// Writes a frame in the format named by the file's extension, atomically (a temporary file
/// renamed into place), so a failed write leaves no half file behind.
pub fn write(df: DataFrame, path: &Path) -> Result<()> {
    write_as(df, path, Format::from_path(path)?)
}

/// Writes a frame in `format`, atomically, whatever the file's extension.
pub fn write_as(mut df: DataFrame, path: &Path, format: Format) -> Result<()> {
    use anyhow::Context;
    let tmp = path.with_extension("partial");
    let file = File::create(&tmp).with_context(|| format!("creating '{}'", tmp.display()))?;
    // Buffered: polars' writers hand over a few hundred bytes at a time.
    let mut file = std::io::BufWriter::with_capacity(1 << 16, file);
    let written = match format {
        Format::Csv => CsvWriter::new(&mut file).finish(&mut df),
        Format::JsonLines => JsonWriter::new(&mut file)
            .with_json_format(JsonFormat::JsonLines)
            .finish(&mut df),
        Format::Json => JsonWriter::new(&mut file)
            .with_json_format(JsonFormat::Json)
            .finish(&mut df),
        Format::Parquet => ParquetWriter::new(&mut file).finish(&mut df).map(|_| ()),
    };
    // Written, and the buffer's last bytes with it.
    let flushed = written.map_err(anyhow::Error::from).and_then(|()| {
        file.into_inner()
            .map(drop)
            .map_err(|e| anyhow::Error::from(e.into_error()))
    });
    if let Err(e) = flushed {
        let _ = std::fs::remove_file(&tmp);
        return Err(e.context(format!("writing '{}'", path.display())));
    }
    std::fs::rename(&tmp, path).with_context(|| format!("moving '{}' into place", path.display()))
}

fn whole(v: f64) -> Option<i64> {
    (v.is_finite() && v.fract() == 0.0 && v.abs() < 9.0e15).then_some(v as i64)
}

fn parse_label(text: &str) -> Option<i64> {
    text.parse::<i64>()
        .ok()
        .or_else(|| text.parse::<f64>().ok().and_then(whole))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_text() {
        assert_eq!(parse_label("-1"), Some(-1));
        assert_eq!(parse_label("+1"), Some(1));
        assert_eq!(parse_label("2.0"), Some(2));
        assert_eq!(parse_label("0.5"), None);
        assert_eq!(parse_label("NaN"), None);
        assert_eq!(parse_label("inf"), None);
        assert_eq!(parse_label("A"), None);
    }

    #[test]
    fn formats_by_extension() {
        assert_eq!(
            Format::from_path(Path::new("a.CSV")).ok(),
            Some(Format::Csv)
        );
        assert_eq!(
            Format::from_path(Path::new("a.ndjson")).ok(),
            Some(Format::JsonLines)
        );
        let err = Format::from_path(Path::new("a.xlsx")).expect_err("unknown");
        assert_eq!(
            err.to_string(),
            "cannot read 'a.xlsx': unknown format '.xlsx'; use a .csv, .parquet, .jsonl or .json file"
        );
    }
}
