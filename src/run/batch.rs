//! What the batch commands did, for `report/` to show: an export's shards and counts, an
//! ingest's tally, and the `Watch` that `calibrate --batch` tells its news to.

use crate::judge::batch::api::BatchInfo;
use crate::judge::batch::ingest::Tally;
use crate::judge::batch::{Counts, Format, Shard};
use std::path::PathBuf;

/// What `batch export` wrote.
#[derive(Debug, Clone)]
pub struct ExportSummary {
    pub dir: PathBuf,
    pub manifest: PathBuf,
    pub format: Format,
    pub counts: Counts,
    pub shards: Vec<Shard>,
    pub cache: PathBuf,
}

/// What `batch ingest` read.
#[derive(Debug, Clone)]
pub struct IngestSummary {
    pub files: Vec<PathBuf>,
    pub tally: Tally,
    pub cache: PathBuf,
    pub manifest: PathBuf,
    /// Requests the manifest lists, and how many of them the cache still lacks.
    pub planned: u64,
    pub missing: u64,
}

/// What `calibrate --batch` tells its user while it waits.
pub trait Watch {
    /// A line of news (a round started, a batch ended).
    fn note(&self, message: &str);
    /// The latest status of the batches being waited on.
    fn polled(&self, batches: &[BatchInfo]);
    /// Waiting is over.
    fn done(&self);
}
