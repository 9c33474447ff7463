//! Records spread over parts on disk by their key, then read back one part at a time: how
//! export and ingest handle millions of requests with memory bounded by a part (about
//! 1/256 of the set), not the whole set.
//!
//! A record is a tag, a length and its bytes. Its part is the first byte of its key (keys
//! are SHA-256 digests, so parts are even). Records of one part come back in the order they
//! were written, so a caller that writes its kinds of record in phases (say, every cached
//! key, then every request) reads them back in those phases, part by part.
//!
//! One file holds every part: each part fills a small buffer in memory that goes to the end
//! of the file as a block when full (256 × 16 KB in memory at most), and the block list
//! (part, offset, length: 1/1000 of the data) says where each part's blocks are. The file is hidden beside the caller's output
//! (not in a RAM-backed temporary folder) and removed when the `Spill` is dropped.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// How many parts: the first byte of a key.
pub const PARTS: usize = 256;
/// A part's buffer goes to disk as a block before it passes this size.
const BLOCK: usize = 16 << 10;

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
    path: PathBuf,
    file: File,
    /// Bytes written to the file.
    end: u64,
    buffers: Vec<Vec<u8>>,
    /// (part, offset, length) of every block written, in order.
    blocks: Vec<(u8, u64, u32)>,
}

impl Spill {
    /// A fresh file `parent/.name-PID.spill`. Spills of the same name that a process no
    /// longer running left (killed before it could clean up) are removed.
    pub fn new(parent: &Path, name: &str) -> std::io::Result<Self> {
        std::fs::create_dir_all(parent)?;
        let prefix = format!(".{name}-");
        let running = |pid: &str| Path::new("/proc").join(pid).exists();
        if Path::new("/proc/self").exists() {
            for entry in std::fs::read_dir(parent)?.flatten() {
                let file = entry.file_name();
                let stale = file
                    .to_str()
                    .and_then(|f| f.strip_prefix(&prefix))
                    .and_then(|f| f.strip_suffix(".spill"))
                    .is_some_and(|pid| pid.parse::<u32>().is_ok() && !running(pid));
                if stale {
                    let _ = std::fs::remove_file(entry.path());
                }
            }
        }
        let path = parent.join(format!(".{name}-{}.spill", std::process::id()));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)?;
        Ok(Self {
            path,
            file,
            end: 0,
            buffers: vec![Vec::new(); PARTS],
            blocks: Vec::new(),
        })
    }

    /// Appends one record to the part of `key_first_byte`.
    pub fn push(&mut self, key_first_byte: u8, tag: u8, bytes: &[u8]) -> std::io::Result<()> {
        let len = u32::try_from(bytes.len())
            .map_err(|_| std::io::Error::other("a spilled record over 4 GB"))?;
        let part = usize::from(key_first_byte);
        // A block is written before it would pass BLOCK, so a buffer never grows past it
        // (unless one record is larger): memory at most PARTS × BLOCK.
        if self.buffers[part].len() + 5 + bytes.len() > BLOCK {
            self.flush(part)?;
        }
        let buffer = &mut self.buffers[part];
        if buffer.capacity() == 0 {
            buffer.reserve_exact(BLOCK);
        }
        buffer.push(tag);
        buffer.extend_from_slice(&len.to_le_bytes());
        buffer.extend_from_slice(bytes);
        Ok(())
    }

    /// Writes a part's buffer as a block.
    fn flush(&mut self, part: usize) -> std::io::Result<()> {
        let buffer = &mut self.buffers[part];
        if buffer.is_empty() {
            return Ok(());
        }
        let len = u32::try_from(buffer.len())
            .map_err(|_| std::io::Error::other("a spilled block over 4 GB"))?;
        self.file.write_all(buffer)?;
        self.blocks.push((key_part(part), self.end, len));
        self.end += u64::from(len);
        buffer.clear();
        Ok(())
    }

    /// Calls `each` with every record, part by part (each part's records in the order
    /// written), and with `PartEnd` after each part that holds any. Writing is over.
    pub fn drain(
        mut self,
        mut each: impl FnMut(Item<'_>) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        for part in 0..PARTS {
            self.flush(part)?;
        }
        self.buffers = Vec::new();
        // Each part's blocks, in the order written (a stable sort).
        let mut blocks = std::mem::take(&mut self.blocks);
        blocks.sort_by_key(|b| b.0);
        let mut block = Vec::new();
        for (i, &(part, offset, len)) in blocks.iter().enumerate() {
            block.resize(len as usize, 0);
            self.file.seek(SeekFrom::Start(offset))?;
            self.file.read_exact(&mut block)?;
            let mut at = 0;
            while at < block.len() {
                let head = block
                    .get(at..at + 5)
                    .ok_or_else(|| std::io::Error::other("a spilled record cut short"))?;
                let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]) as usize;
                let bytes = block
                    .get(at + 5..at + 5 + len)
                    .ok_or_else(|| std::io::Error::other("a spilled record cut short"))?;
                each(Item::Record(head[0], bytes))?;
                at += 5 + len;
            }
            if blocks.get(i + 1).is_none_or(|next| next.0 != part) {
                each(Item::PartEnd)?;
            }
        }
        Ok(())
    }
}

/// A part's index as its key byte.
fn key_part(part: usize) -> u8 {
    u8::try_from(part).unwrap_or(u8::MAX)
}

impl Drop for Spill {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
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
        let stale = dir.path().join(".test-4294967295.spill");
        let alive = dir.path().join(".other-1.spill");
        std::fs::write(&stale, "x").expect("stale");
        std::fs::write(&alive, "x").expect("other");
        let mut spill = Spill::new(dir.path(), "test").expect("spill");
        if Path::new("/proc/self").exists() {
            assert!(!stale.exists(), "a dead process's spill is removed");
        }
        assert!(alive.exists(), "another name is left alone");
        let file = dir
            .path()
            .join(format!(".test-{}.spill", std::process::id()));
        assert!(file.is_file());
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
        assert!(!file.exists(), "the file goes with the spill");
    }

    #[test]
    fn parts_of_many_blocks_keep_their_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut spill = Spill::new(dir.path(), "blocks").expect("spill");
        // Two parts written in turns, each over 10 blocks, none over BLOCK.
        let n = 40_000u32;
        for i in 0..n {
            spill.push(200, 1, &i.to_le_bytes()).expect("push");
            spill.push(7, 2, &(n - i).to_le_bytes()).expect("push");
        }
        assert!(spill.blocks.len() >= 20, "{} blocks", spill.blocks.len());
        assert!(spill.blocks.iter().all(|b| b.2 as usize <= BLOCK));
        assert!(spill.buffers.iter().all(|b| b.capacity() <= BLOCK));
        let mut got: Vec<(u8, u32)> = Vec::new();
        let mut ends = Vec::new();
        spill
            .drain(|item| {
                match item {
                    Item::Record(tag, bytes) => {
                        got.push((tag, u32::from_le_bytes(bytes.try_into().expect("4 bytes"))))
                    }
                    Item::PartEnd => ends.push(got.len()),
                }
                Ok(())
            })
            .expect("drain");
        let want: Vec<(u8, u32)> = (0..n)
            .map(|i| (2, n - i))
            .chain((0..n).map(|i| (1, i)))
            .collect();
        assert!(got == want, "part 7 first, then part 200, each in order");
        assert_eq!(ends, vec![n as usize, 2 * n as usize]);
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
