//! Downloading reward-bench splits from the Hugging Face Hub (or a mirror at `$HF_ENDPOINT`)
//! into raterlab's cache, atomically: a transfer that stops half-way leaves nothing behind.
//!
//! HTTP here is a plain blocking file download; the judge's concurrent client lives in
//! `judge/` (see ARCHITECTURE.md for why this one exception sits in `dataset/`).

use crate::error::input_error;
use anyhow::{anyhow, Context, Result};
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Progress of a transfer; implemented by `report::media::progress` (the dataset stage never prints).
pub trait Progress {
    fn start(&self, what: &str, total: Option<u64>);
    fn advance(&self, bytes: u64);
    fn finish(&self);
}

/// No progress display.
#[derive(Debug, Default)]
pub struct Quiet;

impl Progress for Quiet {
    fn start(&self, _: &str, _: Option<u64>) {}
    fn advance(&self, _: u64) {}
    fn finish(&self) {}
}

/// The public Hub, unless `$HF_ENDPOINT` names a mirror.
pub fn endpoint() -> String {
    std::env::var("HF_ENDPOINT")
        .ok()
        .filter(|e| !e.trim().is_empty())
        .unwrap_or_else(|| "https://huggingface.co".to_string())
        .trim_end_matches('/')
        .to_string()
}

/// True when `HF_HUB_OFFLINE` forbids downloads.
pub fn offline() -> bool {
    std::env::var("HF_HUB_OFFLINE")
        .is_ok_and(|v| matches!(v.trim(), "1" | "true" | "TRUE" | "yes" | "on"))
}

/// A split's parquet file in a dataset repository of the Hub.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HubFile {
    /// `allenai/reward-bench`.
    pub repo: &'static str,
    /// The split, as users name it (`filtered`, `raw`, `test`).
    pub split: &'static str,
    /// Its file under `data/`.
    pub file: &'static str,
    /// raterlab's cache folder for the repository.
    pub folder: &'static str,
}

impl HubFile {
    /// reward-bench's `filtered` or `raw` split, or RewardBench 2's `test` split.
    pub fn named(name: &str) -> Option<Self> {
        let v1 = |split, file| Self {
            repo: "allenai/reward-bench",
            split,
            file,
            folder: "reward-bench",
        };
        match name {
            "filtered" => Some(v1("filtered", "filtered-00000-of-00001.parquet")),
            "raw" => Some(v1("raw", "raw-00000-of-00001.parquet")),
            "reward-bench-2" => Some(Self {
                repo: "allenai/reward-bench-2",
                split: "test",
                file: "test-00000-of-00001.parquet",
                folder: "reward-bench-2",
            }),
            _ => None,
        }
    }

    /// Its URL at `$HF_ENDPOINT`.
    pub fn url(&self) -> String {
        format!(
            "{}/datasets/{}/resolve/main/data/{}",
            endpoint(),
            self.repo,
            self.file
        )
    }

    /// The Hugging Face cache's folder name for the repository.
    pub fn hf_cache_name(&self) -> String {
        format!("datasets--{}", self.repo.replace('/', "--"))
    }
}

fn is_parquet(path: &Path) -> bool {
    let Ok(mut f) = File::open(path) else {
        return false;
    };
    let mut head = [0u8; 4];
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    if len < 8 || f.read_exact(&mut head).is_err() || &head != b"PAR1" {
        return false;
    }
    let mut bytes = Vec::new();
    if f.read_to_end(&mut bytes).is_err() {
        return false;
    }
    bytes.ends_with(b"PAR1")
}

/// Downloads `url` to `dest` through a temporary file in the same folder, renamed into place
/// only when the whole body arrived and is Parquet.
pub fn download(url: &str, dest: &Path, progress: &dyn Progress) -> Result<()> {
    let folder = dest.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(folder).with_context(|| format!("creating '{}'", folder.display()))?;
    let partial: PathBuf = folder.join(format!(
        ".{}.partial-{}",
        dest.file_name()
            .map_or("download".into(), |f| f.to_string_lossy()),
        std::process::id()
    ));
    let result = fetch_into(url, &partial, progress);
    progress.finish();
    if let Err(err) = result {
        let _ = std::fs::remove_file(&partial);
        return Err(err);
    }
    if !is_parquet(&partial) {
        let _ = std::fs::remove_file(&partial);
        return Err(anyhow!(
            "the file downloaded from {url} is not Parquet; check that HF_ENDPOINT points at a Hugging Face Hub or mirror"
        ));
    }
    std::fs::rename(&partial, dest)
        .with_context(|| format!("moving the download to '{}'", dest.display()))
}

fn fetch_into(url: &str, partial: &Path, progress: &dyn Progress) -> Result<()> {
    let client = reqwest::blocking::Client::builder()
        .connect_timeout(Duration::from_secs(30))
        .timeout(None)
        .user_agent(concat!("raterlab/", env!("CARGO_PKG_VERSION")))
        .build()?;
    let mut request = client.get(url);
    if let Ok(token) = std::env::var("HF_TOKEN") {
        if !token.trim().is_empty() {
            request = request.bearer_auth(token.trim());
        }
    }
    let mut response = request.send().map_err(|e| {
        anyhow!(
            "cannot download {url}: {}; check the network or HF_ENDPOINT",
            without_url(e)
        )
    })?;
    let status = response.status();
    if !status.is_success() {
        let fix = match status.as_u16() {
            401 | 403 => {
                "the Hub refused access; set HF_TOKEN to a token that can read the dataset"
            }
            404 => "no such file; check HF_ENDPOINT and the split name (filtered, raw or reward-bench-2)",
            429 => "rate limited by the Hub; wait a minute and run the command again",
            _ => "the server failed; run the command again later",
        };
        return Err(anyhow!("cannot download {url}: HTTP {status}; {fix}"));
    }
    let total = response.content_length();
    progress.start(url.rsplit('/').next().unwrap_or(url), total);
    let mut file =
        File::create(partial).with_context(|| format!("creating '{}'", partial.display()))?;
    let mut buffer = vec![0u8; 1 << 16];
    let mut received = 0u64;
    loop {
        let n = match response.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) => {
                return Err(anyhow!(
                    "the download of {url} was interrupted after {received} bytes ({e}); nothing was kept, run the command again"
                ))
            }
        };
        file.write_all(&buffer[..n])?;
        received += n as u64;
        progress.advance(n as u64);
    }
    if let Some(total) = total {
        if received != total {
            return Err(anyhow!(
                "the download of {url} was interrupted after {received} of {total} bytes; nothing was kept, run the command again"
            ));
        }
    }
    file.sync_all()?;
    Ok(())
}

/// reqwest's message without the URL it repeats.
fn without_url(e: reqwest::Error) -> String {
    let e = e.without_url();
    match std::error::Error::source(&e) {
        Some(source) => format!("{e} ({source})"),
        None => e.to_string(),
    }
}

/// Downloads a split into `dest` unless downloads are forbidden.
pub fn fetch_split(hub: &HubFile, dest: &Path, progress: &dyn Progress) -> Result<()> {
    if offline() {
        return Err(input_error(format!(
            "{}'s '{}' split is not on this machine and HF_HUB_OFFLINE forbids downloading it; unset HF_HUB_OFFLINE, or put data/{} into {}",
            hub.repo,
            hub.split,
            hub.file,
            dest.parent().map_or_else(String::new, |p| p.display().to_string())
        )));
    }
    download(&hub.url(), dest, progress)
}
