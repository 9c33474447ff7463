//! The response cache's former format, `completions.jsonl`: one checksummed JSON record a
//! line. Read once, streamed, when a store is opened beside one (see `store::migrate`).

use super::hex;
use crate::judge::Completion;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::io::BufRead;

/// The log's file name in a cache folder.
pub const FILE: &str = "completions.jsonl";

#[derive(Debug, Deserialize)]
struct Record {
    key: String,
    completion: Completion,
    /// SHA-256 of the key and the text: a torn or edited line fails it.
    check: String,
}

/// The checksum a record carries (first 8 bytes of SHA-256 of key, NUL, text, in hex).
pub fn check_of(key: &str, text: &str) -> String {
    let mut h = Sha256::new();
    h.update(key.as_bytes());
    h.update([0]);
    h.update(text.as_bytes());
    hex(&h.finalize()[..8])
}

/// Reads a log: each valid record to `each` with the bytes read so far. Returns the number of
/// lines skipped (torn by a crash, edited, or not records).
pub fn read(
    reader: impl BufRead,
    mut each: impl FnMut(String, Completion, u64) -> std::io::Result<()>,
) -> std::io::Result<usize> {
    let (mut skipped, mut bytes) = (0, 0u64);
    for line in reader.split(b'\n') {
        let line = line?;
        bytes += line.len() as u64 + 1;
        if line.is_empty() {
            continue;
        }
        match serde_json::from_slice::<Record>(&line) {
            Ok(r) if r.check == check_of(&r.key, &r.completion.text) => {
                each(r.key, r.completion, bytes)?
            }
            _ => skipped += 1,
        }
    }
    Ok(skipped)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(key: &str, text: &str) -> String {
        serde_json::json!({
            "key": key,
            "completion": {"text": text, "tokens_in": 3, "tokens_out": 1, "latency_ms": 5.0},
            "check": check_of(key, text),
        })
        .to_string()
    }

    #[test]
    fn torn_and_edited_lines_are_skipped_and_counted() {
        let good = line("k1", "[[A]]");
        let edited = line("k2", "[[B]]").replace("[[B]]", "[[A]]");
        let torn = &line("k3", "[[B]]")[..20];
        let log = format!("{good}\n\n{edited}\n{torn}\n{}", line("k4", "tie"));
        let mut seen = Vec::new();
        let skipped = read(log.as_bytes(), |k, c, bytes| {
            seen.push((k, c.text, bytes));
            Ok(())
        })
        .expect("read");
        assert_eq!(skipped, 2);
        assert_eq!(
            seen.iter()
                .map(|(k, t, _)| (k.as_str(), t.as_str()))
                .collect::<Vec<_>>(),
            [("k1", "[[A]]"), ("k4", "tie")]
        );
        assert_eq!(seen[0].2, good.len() as u64 + 1);
        assert_eq!(seen[1].2, log.len() as u64 + 1);
    }
}
