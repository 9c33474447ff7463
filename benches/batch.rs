//! Batch export and ingest at scale, side by side with their references:
//!
//! - `raterlab batch export` of 10^5 and 10^6 requests (a generated reward-bench-schema file
//!   × both orders × 5 prompts × sc:5; 10^6 both by 10x the pairs and by sc:50 over the same
//!   pairs, which grows the plan and not the data): time per request should stay flat (linear
//!   time) and peak memory bounded by one shard (a shard is up to 190 MB), not by the whole
//!   set;
//! - `raterlab batch ingest` of the matching OpenAI-format output files, into an empty cache:
//!   requests per second against the cache's own write path (`Cache::put` of the same
//!   answers in process, as an online run writes them);
//! - ingest against a `calibrate --offline` over the same 10^5 keys: what the batch route
//!   adds to the report it feeds.
//!
//! Each command runs as a child process under `/usr/bin/time` for its peak RSS.
//!
//!     cargo bench --bench batch

#![allow(clippy::print_stdout)] // a benchmark reports on stdout

#[path = "support/mod.rs"]
mod support;

use raterlab::judge::cache::Cache;
use raterlab::judge::Completion;
use serde_json::Value;
use std::path::Path;
use std::time::Instant;

/// This build's raterlab under /usr/bin/time; (seconds, peak RSS in MB, stdout).
fn timed(args: &[&str]) -> (f64, f64, String) {
    support::timed(env!("CARGO_BIN_EXE_raterlab"), args)
}

/// The cache's own write path: `n` answers put one by one; seconds.
fn cache_writes(dir: &Path, n: u64) -> f64 {
    support::settle_disk();
    let cache = Cache::open(dir, &raterlab::dataset::hub::Quiet).expect("cache");
    let completion = Completion {
        tokens_in: 300,
        tokens_out: 12,
        latency_ms: 0.0,
        ..Completion::free("Response 1 is better. <winner>1</winner> [[A]] [[A>B]]")
    };
    let start = Instant::now();
    for i in 0..n {
        let key = format!("{i:064x}");
        cache.put(&key, Some("bench"), &completion).expect("put");
    }
    start.elapsed().as_secs_f64()
}

struct Row {
    label: &'static str,
    requests: u64,
    data_mb: f64,
    export: (f64, f64),
    ingest: (f64, f64),
    shard_mb: f64,
    reference_s: f64,
}

fn main() {
    let work = tempfile::tempdir().expect("tempdir");
    let dir = work.path();
    let mut rows = Vec::new();
    let mut offline_ratio = None;
    // 10^5 requests, then 10^6 twice: 10x the data, and 10x the samples of the same data
    // (the plan grows, the data does not: what the requests alone cost).
    for (label, pairs, samples) in [
        ("10^5", 2_000usize, 5usize),
        ("10^6 data", 20_000, 5),
        ("10^6 samples", 2_000, 50),
    ] {
        let data = dir.join(format!("pairs-{pairs}.jsonl"));
        support::write_pairs(&data, pairs);
        let data_s = data.to_string_lossy().into_owned();
        // What the data alone holds: the same file, both orders, loaded by `data summary`.
        let (_, data_mb, _) = timed(&["data", "summary", "--data", &data_s, "--both-orders"]);
        let export = dir.join(format!("export-{pairs}-{samples}"));
        let cache = dir.join(format!("cache-{pairs}-{samples}"));
        let binary = env!("CARGO_BIN_EXE_raterlab");
        let (export_s, export_mb) =
            support::export(binary, &support::plan(&data_s, samples), &export, &cache);
        let results = dir.join(format!("results-{pairs}.jsonl"));
        let requests = support::write_results(&export, &results);
        let manifest: Value = serde_json::from_reader(
            std::fs::File::open(export.join("manifest.json")).expect("manifest"),
        )
        .expect("json");
        let shard_mb = manifest["shards"]
            .as_array()
            .expect("shards")
            .iter()
            .map(|s| s["bytes"].as_f64().unwrap_or(0.0) / 1e6)
            .fold(0.0, f64::max);
        let (ingest_s, ingest_mb) = support::ingest(binary, &results, &export, &cache);
        let reference_s = cache_writes(&dir.join(format!("reference-{pairs}-{samples}")), requests);
        if rows.is_empty() {
            // The report the ingest feeds: calibrate --offline over the same keys.
            let mut args: Vec<String> = vec!["calibrate".into(), "--offline".into()];
            args.extend(support::plan(&data_s, samples));
            args.extend([
                "--cache-dir".into(),
                cache.to_string_lossy().into_owned(),
                "--bootstrap".into(),
                "200".into(),
                "--out".into(),
                dir.join("run").to_string_lossy().into_owned(),
            ]);
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            let (offline_s, _, _) = timed(&refs);
            offline_ratio = Some((ingest_s, offline_s));
        }
        for p in [&results, &data] {
            let _ = std::fs::remove_file(p);
        }
        for d in [&export, &cache] {
            let _ = std::fs::remove_dir_all(d);
        }
        rows.push(Row {
            label,
            requests,
            data_mb,
            export: (export_s, export_mb),
            ingest: (ingest_s, ingest_mb),
            shard_mb,
            reference_s,
        });
    }
    println!("batch export and ingest (child processes, peak RSS by /usr/bin/time)");
    println!(
        "{:>12} {:>8} {:>8} | {:>9} {:>12} {:>8} | {:>9} {:>12} {:>8} | {:>16} {:>8} | {:>9}",
        "",
        "requests",
        "data MB",
        "export s",
        "req/s",
        "peak MB",
        "ingest s",
        "req/s",
        "peak MB",
        "cache put req/s",
        "ratio",
        "shard MB"
    );
    for r in &rows {
        let n = r.requests as f64;
        println!(
            "{:>12} {:>8} {:>8.0} | {:>9.2} {:>12.0} {:>8.0} | {:>9.2} {:>12.0} {:>8.0} | {:>16.0} {:>8.2} | {:>9.0}",
            r.label,
            r.requests,
            r.data_mb,
            r.export.0,
            n / r.export.0,
            r.export.1,
            r.ingest.0,
            n / r.ingest.0,
            r.ingest.1,
            n / r.reference_s,
            r.reference_s / r.ingest.0,
            r.shard_mb,
        );
    }
    if let [small, rest @ ..] = &rows[..] {
        for large in rest {
            let size = large.requests as f64 / small.requests as f64;
            println!(
                "{}: {size:.0}x the requests: export takes {:.1}x the time, ingest {:.1}x (linear = {size:.0}x); peak memory {:.1}x and {:.1}x; export's peak beyond the data alone {:.1}x",
                large.label,
                large.export.0 / small.export.0,
                large.ingest.0 / small.ingest.0,
                large.export.1 / small.export.1,
                large.ingest.1 / small.ingest.1,
                (large.export.1 - large.data_mb) / (small.export.1 - small.data_mb),
            );
        }
        println!(
            "ingest speed vs the cache's own write path (in process, no parsing): {:.2} (1.00 = as fast)",
            small.reference_s / small.ingest.0
        );
    }
    if let Some((ingest, offline)) = offline_ratio {
        println!(
            "ingest of 10^5 answers {ingest:.2} s beside calibrate --offline over the same keys {offline:.2} s: ratio {:.2}",
            ingest / offline
        );
    }
}
