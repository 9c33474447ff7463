//! Shard files: request lines per model, split at 50,000 lines or 190 MB.

use super::requests::{request_line, Format, Key};
use super::samples::Samples;
use crate::judge::Call;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// OpenAI's limit is 50,000 requests per file.
pub const MAX_LINES: u64 = 50_000;

/// OpenAI's limit is 200 MB per file; a shard stays under it with room to spare.
pub const MAX_BYTES: u64 = 190 * 1024 * 1024;

/// A written shard: one file of request lines for one model.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Shard {
    /// File name, relative to the export folder.
    pub file: String,
    pub model: String,
    pub lines: u64,
    pub bytes: u64,
    /// Its requests of several samples (`n`): each one's later samples' keys.
    #[serde(default, skip_serializing_if = "Samples::is_empty")]
    pub samples: Samples,
}

struct OpenShard {
    shard: Shard,
    partial: PathBuf,
    out: BufWriter<File>,
}

/// Writes request lines into shard files, one series per model, each file at most
/// `max_lines` lines and `max_bytes` bytes; files appear (renamed from `.partial`) only whole.
pub struct Shards {
    dir: PathBuf,
    format: Format,
    max_lines: u64,
    max_bytes: u64,
    open: HashMap<String, OpenShard>,
    next_index: HashMap<String, usize>,
    done: Vec<Shard>,
}

impl std::fmt::Debug for Shards {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shards")
            .field("dir", &self.dir)
            .field("done", &self.done.len())
            .finish()
    }
}

/// A model name as a file-name stem.
fn file_stem(model: &str) -> String {
    let stem: String = model
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    stem.trim_start_matches('.').to_string()
}

impl Shards {
    pub fn new(dir: &Path, format: Format, max_lines: u64, max_bytes: u64) -> Self {
        Self {
            dir: dir.to_path_buf(),
            format,
            max_lines: max_lines.max(1),
            max_bytes,
            open: HashMap::new(),
            next_index: HashMap::new(),
            done: Vec::new(),
        }
    }

    /// Appends one request: the samples of `call` whose keys are `keys` (its sample index the
    /// first's), `n` of them in one request.
    pub fn push(&mut self, keys: &[Key], call: &Call) -> std::io::Result<()> {
        let [key, later @ ..] = keys else {
            return Ok(());
        };
        let model = call.params.model.clone();
        let mut line = serde_json::to_vec(&request_line(
            self.format,
            &key.hex(),
            call,
            keys.len() as u32,
        ))
        .map_err(std::io::Error::other)?;
        line.push(b'\n');
        let len = line.len() as u64;
        let full = self.open.get(&model).is_some_and(|o| {
            o.shard.lines >= self.max_lines || o.shard.bytes + len > self.max_bytes
        });
        if full {
            if let Some(o) = self.open.remove(&model) {
                self.close(o)?;
            }
        }
        if !self.open.contains_key(&model) {
            let index = self.next_index.entry(model.clone()).or_insert(0);
            *index += 1;
            let file = format!("{}-{:03}.jsonl", file_stem(&model), index);
            let partial = self.dir.join(format!("{file}.partial"));
            let out = BufWriter::with_capacity(1 << 20, File::create(&partial)?);
            self.open.insert(
                model.clone(),
                OpenShard {
                    shard: Shard {
                        file,
                        model: model.clone(),
                        lines: 0,
                        bytes: 0,
                        samples: Samples::default(),
                    },
                    partial,
                    out,
                },
            );
        }
        let Some(o) = self.open.get_mut(&model) else {
            return Err(std::io::Error::other("shard not open"));
        };
        o.out.write_all(&line)?;
        o.shard.lines += 1;
        o.shard.bytes += len;
        if !later.is_empty() {
            o.shard.samples.0.insert(*key, later.to_vec());
        }
        Ok(())
    }

    fn close(&mut self, mut o: OpenShard) -> std::io::Result<()> {
        o.out.flush()?;
        o.out.get_ref().sync_all()?;
        std::fs::rename(&o.partial, self.dir.join(&o.shard.file))?;
        self.done.push(o.shard);
        Ok(())
    }

    /// Closes every file; the shards in the order they were started, per model.
    pub fn finish(mut self) -> std::io::Result<Vec<Shard>> {
        let mut open: Vec<OpenShard> = self.open.drain().map(|(_, o)| o).collect();
        open.sort_by(|a, b| a.shard.file.cmp(&b.shard.file));
        for o in open {
            self.close(o)?;
        }
        self.done.sort_by(|a, b| a.file.cmp(&b.file));
        Ok(self.done)
    }
}
