//! Records spread over files on disk by their key, then read back one part at a time: how
//! export and ingest handle millions of requests with memory bounded by a part (about
//! 1/256 of the set), not the whole set.
//!
//! A record is a tag, a length and its bytes. Its part is the first byte of its key (keys
//! are SHA-256 digests, so parts are even). Records of one part come back in the order they
//! were written, so a caller that writes its kinds of record in phases (say, every cached
//! key, then every request) reads them back in those phases, part by part.
//!
//! The files live in a hidden folder the caller names (beside its output, not in a RAM-backed
//! temporary folder) and are removed when the `Spill` is dropped.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// How many parts: the first byte of a key.
pub const PARTS: usize = 256;

/// What `Spill::drain` hands back.
#[derive(Debug)]
pub enum Item<'a> {
    /// A record: its tag and bytes.
    Record(u8, &'a [u8]),
    /// The end of a part: every record of the keys it holds has been seen.
    PartEnd,
}

/// Spilled records.
#[derive(Debug)]
pub struct Spill {
    dir: PathBuf,
    files: Vec<Option<BufWriter<File>>>,
}

impl Spill {
    /// A fresh folder `parent/.name-PID` for the parts. Folders of the same name that a
    /// process no longer running left (killed before it could clean up) are removed.
    pub fn new(parent: &Path, name: &str) -> std::io::Result<Self> {
        let dir = parent.join(format!(".{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        let prefix = format!(".{name}-");
        let running = |pid: &str| Path::new("/proc").join(pid).exists();
        if Path::new("/proc/self").exists() {
            for entry in std::fs::read_dir(parent)?.flatten() {
                let file = entry.file_name();
                let stale = file
                    .to_str()
                    .and_then(|f| f.strip_prefix(&prefix))
                    .is_some_and(|pid| pid.parse::<u32>().is_ok() && !running(pid));
                if stale {
                    let _ = std::fs::remove_dir_all(entry.path());
                }
            }
        }
        Ok(Self {
            dir,
            files: (0..PARTS).map(|_| None).collect(),
        })
    }

    fn path(&self, part: usize) -> PathBuf {
        self.dir.join(format!("{part:02x}"))
    }

    /// Appends one record to the part of `key_first_byte`.
    pub fn push(&mut self, key_first_byte: u8, tag: u8, bytes: &[u8]) -> std::io::Result<()> {
        let part = usize::from(key_first_byte);
        if self.files[part].is_none() {
            let file = File::create(self.path(part))?;
            self.files[part] = Some(BufWriter::with_capacity(16 << 10, file));
        }
        let Some(out) = self.files[part].as_mut() else {
            return Err(std::io::Error::other("spill part not open"));
        };
        let len = u32::try_from(bytes.len())
            .map_err(|_| std::io::Error::other("a spilled record over 4 GB"))?;
        out.write_all(&[tag])?;
        out.write_all(&len.to_le_bytes())?;
        out.write_all(bytes)
    }

    /// Calls `each` with every record, part by part (each part's records in the order
    /// written), and with `PartEnd` after each part. Writing is over.
    pub fn drain(
        mut self,
        mut each: impl FnMut(Item<'_>) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        for file in self.files.iter_mut().flatten() {
            file.flush()?;
        }
        self.files.iter_mut().for_each(|f| *f = None);
        let mut bytes = Vec::new();
        for part in 0..PARTS {
            let Ok(file) = File::open(self.path(part)) else {
                continue;
            };
            let mut input = BufReader::with_capacity(1 << 16, file);
            let mut head = [0u8; 5];
            loop {
                match input.read_exact(&mut head) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
                    Err(e) => return Err(e),
                }
                let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]) as usize;
                bytes.resize(len, 0);
                input.read_exact(&mut bytes)?;
                each(Item::Record(head[0], &bytes))?;
            }
            // A part read is a part done with: its file goes at once.
            drop(input);
            let _ = std::fs::remove_file(self.path(part));
            each(Item::PartEnd)?;
        }
        Ok(())
    }
}

impl Drop for Spill {
    fn drop(&mut self) {
        self.files.iter_mut().for_each(|f| *f = None);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A growable set of bits, one per request of a plan (1 bit a request: 125 KB for 10^6).
#[derive(Debug, Default, Clone)]
pub struct Bits(Vec<u64>);

impl Bits {
    pub fn set(&mut self, i: u64) {
        let word = (i / 64) as usize;
        if word >= self.0.len() {
            self.0.resize(word + 1, 0);
        }
        self.0[word] |= 1 << (i % 64);
    }

    pub fn get(&self, i: u64) -> bool {
        self.0
            .get((i / 64) as usize)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_come_back_part_by_part_in_the_order_written() {
        let dir = tempfile::tempdir().expect("tempdir");
        // What a killed run left goes; what a running one (this one) holds stays.
        let stale = dir.path().join(".test-4294967295");
        let alive = dir.path().join(".other-1");
        std::fs::create_dir_all(&stale).expect("stale");
        std::fs::create_dir_all(&alive).expect("other");
        let mut spill = Spill::new(dir.path(), "test").expect("spill");
        if Path::new("/proc/self").exists() {
            assert!(!stale.exists(), "a dead process's spill is removed");
        }
        assert!(alive.exists(), "another name is left alone");
        let folder = dir.path().join(format!(".test-{}", std::process::id()));
        assert!(folder.is_dir());
        for (first, tag, text) in [
            (9u8, 1u8, "a"),
            (3, 1, "b"),
            (9, 2, ""),
            (3, 2, "dd"),
            (255, 1, "e"),
        ] {
            spill.push(first, tag, text.as_bytes()).expect("push");
        }
        let mut seen = Vec::new();
        let mut parts = 0;
        spill
            .drain(|item| {
                match item {
                    Item::Record(tag, bytes) => {
                        seen.push((tag, String::from_utf8_lossy(bytes).into_owned()))
                    }
                    Item::PartEnd => parts += 1,
                }
                Ok(())
            })
            .expect("drain");
        let want: Vec<(u8, String)> = [(1, "b"), (2, "dd"), (1, "a"), (2, ""), (1, "e")]
            .iter()
            .map(|(t, s)| (*t, s.to_string()))
            .collect();
        assert_eq!(seen, want);
        assert_eq!(parts, 3, "one call of done per part holding records");
        assert!(!folder.exists(), "the folder goes with the spill");
    }

    #[test]
    fn bits_grow_and_answer() {
        let mut bits = Bits::default();
        assert!(!bits.get(1_000_000));
        bits.set(0);
        bits.set(64);
        bits.set(999_999);
        assert!(bits.get(0) && bits.get(64) && bits.get(999_999));
        assert!(!bits.get(1) && !bits.get(63) && !bits.get(65) && !bits.get(2_000_000));
    }
}
