//! Writing examples (after selection and positions) to CSV, JSONL or Parquet.

use super::examples::Example;
use super::frame::Format;
use anyhow::Result;
use polars::prelude::*;
use std::path::Path;

pub fn examples_frame(examples: &[Example]) -> Result<DataFrame> {
    let col = |name: &str, f: &dyn Fn(&Example) -> String| {
        Column::new(name.into(), examples.iter().map(f).collect::<Vec<String>>())
    };
    let mut columns = vec![
        col("id", &|e| e.id.clone()),
        col("pair_id", &|e| e.pair_id.clone()),
        col("subset", &|e| e.subset.clone()),
        col("order", &|e| e.order.key().to_string()),
        Column::new(
            "gold".into(),
            examples
                .iter()
                .map(|e| e.gold)
                .collect::<Vec<Option<i64>>>(),
        ),
        col("prompt", &|e| e.prompt.clone()),
        col("response1", &|e| e.response1.clone()),
        col("response2", &|e| e.response2.clone()),
    ];
    // Conversations: each item's turns before its prompt, as a JSON list of {role, content}.
    if examples.iter().any(|e| !e.history.is_empty()) {
        columns.push(col("turns", &|e| {
            serde_json::to_string(&e.history[..]).unwrap_or_default()
        }));
    }
    Ok(DataFrame::new_infer_height(columns)?)
}

/// Writes the examples (CSV, JSONL or Parquet by extension), atomically.
pub fn write_examples(examples: &[Example], path: &Path) -> Result<()> {
    Format::from_path(path)?;
    super::frame::write(examples_frame(examples)?, path)
}
