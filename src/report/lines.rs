//! JSONL files of a run directory read back (the page's item browser, `report DIR`): each
//! line that reads, and the texts of items.jsonl.

use serde::de::DeserializeOwned;
use serde::Deserialize;
use std::path::Path;

/// Each line of a JSONL file that reads as `T` (an unreadable line is left out: the page shows
/// what it can).
pub fn read_lines<T: DeserializeOwned>(path: &Path) -> Vec<T> {
    std::fs::read_to_string(path)
        .map(|text| {
            text.lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// A line of items.jsonl.
#[derive(Debug, Deserialize)]
pub struct ItemTexts {
    pub id: String,
    #[serde(default)]
    pub prompt: String,
    #[serde(default)]
    pub response1: String,
    #[serde(default)]
    pub response2: String,
}
