//! JSONL files of a run directory read back (the page's item browser, `report DIR`): each
//! line that reads, and the texts of items.jsonl.

use serde::de::DeserializeOwned;
use serde::Deserialize;
use std::io::BufRead;
use std::path::Path;

/// Each line of a JSONL file that reads as `T` (an unreadable line is left out: the page shows
/// what it can).
pub fn read_lines<T: DeserializeOwned>(path: &Path) -> Vec<T> {
    let mut out = Vec::new();
    each_line(path, |t| out.push(t));
    out
}

/// `read_lines` one line at a time: a run's completions.jsonl can hold millions of answers.
pub fn each_line<T: DeserializeOwned>(path: &Path, mut f: impl FnMut(T)) {
    let Ok(file) = std::fs::File::open(path) else {
        return;
    };
    for line in std::io::BufReader::with_capacity(1 << 16, file)
        .lines()
        .map_while(Result::ok)
    {
        if let Ok(t) = serde_json::from_str(&line) {
            f(t);
        }
    }
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
    /// The models that wrote response 1 and 2, when the data says.
    #[serde(default)]
    pub generator1: Option<String>,
    #[serde(default)]
    pub generator2: Option<String>,
    /// A conversation's turns before the prompt (each {role, content}).
    #[serde(default)]
    pub turns: Vec<crate::dataset::conversation::Turn>,
}
