//! The response store against its size: a 10-item `calibrate --offline` over caches holding
//! 10, 10^4, 10^5 and 10^6 completions (2 KB of text each, what a reasoning judge writes),
//! run as a child process (time and peak RSS by /usr/bin/time, the median of 3 warm runs), each
//! size beside the 10-completion cache: time and memory should follow the run (10 lookups),
//! not the cache.
//!
//! With `RATERLAB_BENCH_BEFORE=PATH` (a raterlab built before the store, from commit
//! 0b1d266, which read its `completions.jsonl` log whole), the same runs over the same
//! completions in that log, side by side, and after/before ratios. Also timed: moving a log of
//! each size into the store (the one-time migration of the first open).
//!
//! Then a `calibrate --offline` over 10^6 cached calls of 2 KB (20,000 generated pairs × both orders × 5
//! prompts × sc:5, answered through `batch export`/`batch ingest`): its peak RSS beside the data
//! alone (`data summary`), and with the former binary over the same answers in its log.
//!
//!     cargo bench --bench cache
//!     RATERLAB_BENCH_BEFORE=/tmp/raterlab-before cargo bench --bench cache
//!
//! `RATERLAB_BENCH_KEEP=DIR` copies the 10^6-call store and its data to DIR and prints the
//! offline command, to profile it by hand (the table is skipped).

#![allow(clippy::print_stdout)] // a benchmark reports on stdout

#[path = "support/mod.rs"]
mod support;

use raterlab::dataset::hub::Quiet;
use raterlab::judge::cache::{hex, Cache};
use raterlab::judge::Completion;
use serde_json::json;
use sha2::{Digest, Sha256};
use std::io::{BufWriter, Write};
use std::path::Path;

/// Seconds and peak RSS in MB.
type Figures = (f64, f64);

const SIZES: [u64; 4] = [10, 10_000, 100_000, 1_000_000];
const RUNS: usize = 3;

/// The 10-item plan: the bundled sample, one prompt, one call per item.
const PLAN: [&str; 10] = [
    "--data",
    "sample",
    "--limit",
    "10",
    "--prompt",
    "simple_with_tie",
    "--rater",
    "basic",
    "--model",
    "bench-judge",
];

/// A filler completion's text: about 2 KB, different for each `i`.
fn filler_text(i: u64) -> String {
    let mut text = format!("Completion {i}. ");
    while text.len() < 2_000 {
        text.push_str(
            "Response 1 explains the steps and checks the result; response 2 skips the check. ",
        );
    }
    text.push_str("[[A]]");
    text
}

fn filler_key(i: u64) -> String {
    hex(&Sha256::digest(format!("filler {i}").as_bytes()))
}

fn filler(i: u64) -> Completion {
    Completion {
        tokens_in: 700,
        tokens_out: 450,
        latency_ms: 1_500.0,
        ..Completion::free(filler_text(i))
    }
}

/// Adds `n` filler completions to the store in `dir`, in transactions of 10,000.
fn fill_store(dir: &Path, n: u64) {
    let cache = Cache::open(dir, &Quiet).expect("store");
    let mut i = 0;
    while i < n {
        let chunk: Vec<(String, Completion)> = (i..(i + 10_000).min(n))
            .map(|j| (filler_key(j), filler(j)))
            .collect();
        cache
            .put_many(chunk.iter().map(|(k, c)| (k.as_str(), Some("filler"), c)))
            .expect("filled");
        i += chunk.len() as u64;
    }
}

/// Appends `n` filler completions to a former `completions.jsonl` in `dir`, as that version
/// wrote them (one checksummed record a line).
fn fill_log(dir: &Path, n: u64) {
    let file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(dir.join("completions.jsonl"))
        .expect("log");
    let mut out = BufWriter::with_capacity(1 << 20, file);
    for i in 0..n {
        let (key, c) = (filler_key(i), filler(i));
        let mut h = Sha256::new();
        h.update(key.as_bytes());
        h.update([0]);
        h.update(c.text.as_bytes());
        let line = json!({"key": key, "completion": c, "check": hex(&h.finalize()[..8])});
        writeln!(out, "{line}").expect("written");
    }
    out.flush().expect("flushed");
}

/// The median seconds and the largest peak RSS (MB) of `RUNS` runs of the offline plan.
fn measure(binary: &str, cache: &Path, out: &Path) -> Figures {
    let cache = cache.to_string_lossy();
    let out = out.to_string_lossy();
    let mut args: Vec<&str> = vec![
        "calibrate",
        "--offline",
        "--endpoint",
        "http://127.0.0.1:9/v1",
        "--bootstrap",
        "0",
        "--cache-dir",
        &cache,
        "--out",
        &out,
    ];
    args.extend(PLAN);
    let mut seconds = Vec::new();
    let mut peak: f64 = 0.0;
    for _ in 0..RUNS {
        let (s, mb, _) = support::timed(binary, &args);
        seconds.push(s);
        peak = peak.max(mb);
    }
    seconds.sort_by(f64::total_cmp);
    (seconds[RUNS / 2], peak)
}

fn main() {
    let after = env!("CARGO_BIN_EXE_raterlab");
    let before = std::env::var("RATERLAB_BENCH_BEFORE").ok();
    let work = tempfile::tempdir().expect("tempdir");
    let dir = work.path();
    // The plan's 10 calls and an answer to each.
    let export = dir.join("export");
    support::export(after, &PLAN.map(String::from), &export, &dir.join("empty"));
    let results = dir.join("results.jsonl");
    assert_eq!(support::write_results(&export, &results), 10);
    println!(
        "a 10-item calibrate --offline over caches of N completions (2 KB each): median of {RUNS} warm runs, peak RSS"
    );
    println!(
        "{:>9} | {:>9} {:>8} {:>8} {:>8} | {:>9} {:>8} {:>8} {:>8} | {:>10} {:>10} | {:>11}",
        "N",
        "store s",
        "x N=10",
        "MB",
        "+MB",
        "log s",
        "x N=10",
        "MB",
        "+MB",
        "after/bef.",
        "MB af/bef",
        "migrate s"
    );
    let mut base: Option<(Figures, Option<Figures>)> = None;
    // RATERLAB_BENCH_KEEP skips the table: only the large run, to keep it.
    let sizes: &[u64] = if std::env::var_os("RATERLAB_BENCH_KEEP").is_some() {
        &[]
    } else {
        &SIZES
    };
    for &n in sizes {
        let store = dir.join(format!("store-{n}"));
        support::ingest(after, &results, &export, &store);
        fill_store(&store, n - 10);
        let now = measure(after, &store, &dir.join("run"));
        let (was, migrate_s) = match &before {
            Some(binary) => {
                let log = dir.join(format!("log-{n}"));
                support::ingest(binary, &results, &export, &log);
                fill_log(&log, n - 10);
                let was = measure(binary, &log, &dir.join("run-before"));
                // The first open of the new version moves the log into a store.
                support::settle_disk();
                let start = std::time::Instant::now();
                Cache::open(&log, &Quiet).expect("migrated");
                let migrate_s = start.elapsed().as_secs_f64();
                let _ = std::fs::remove_dir_all(&log);
                (Some(was), Some(migrate_s))
            }
            None => (None, None),
        };
        let _ = std::fs::remove_dir_all(&store);
        let (b_now, b_was) = *base.get_or_insert((now, was));
        let cell = |v: Option<f64>, digits: usize| {
            v.map_or_else(|| "-".to_string(), |v| format!("{v:.digits$}"))
        };
        println!(
            "{:>9} | {:>9.3} {:>8.2} {:>8.0} {:>8.1} | {:>9} {:>8} {:>8} {:>8} | {:>10} {:>10} | {:>11}",
            n,
            now.0,
            now.0 / b_now.0,
            now.1,
            now.1 - b_now.1,
            cell(was.map(|w| w.0), 3),
            cell(was.zip(b_was).map(|(w, b)| w.0 / b.0), 2),
            cell(was.map(|w| w.1), 0),
            cell(was.zip(b_was).map(|(w, b)| w.1 - b.1), 1),
            cell(was.map(|w| now.0 / w.0), 3),
            cell(was.map(|w| now.1 / w.1), 3),
            cell(migrate_s, 1),
        );
    }
    println!("x N=10: time over the 10-completion cache's; +MB: peak RSS beyond it. Goal: x N=10 at most 2 and +MB at most 40 at N = 10^6.");
    large_offline(dir, after, before.as_deref());
}

/// `calibrate --offline` over 10^6 cached calls, after (the store) and before (the log).
fn large_offline(dir: &Path, after: &str, before: Option<&str>) {
    let data = dir.join("pairs.jsonl");
    support::write_pairs(&data, 20_000);
    let data_s = data.to_string_lossy().into_owned();
    let (_, data_mb, _) = support::timed(
        after,
        &["data", "summary", "--data", &data_s, "--both-orders"],
    );
    let export = dir.join("large-export");
    support::export(
        after,
        &support::plan(&data_s, 5),
        &export,
        &dir.join("empty"),
    );
    let results = dir.join("large-results.jsonl");
    // Answers of 2 KB, as a reasoning judge writes them: 2 GB of text in all.
    let answer = format!("{} {}", filler_text(0), support::ANSWER);
    let calls = support::write_results_with(&export, &results, &answer);
    let offline = |binary: &str, cache: &Path| {
        support::ingest(binary, &results, &export, cache);
        let mut args: Vec<String> = vec!["calibrate".into(), "--offline".into()];
        args.extend(support::plan(&data_s, 5));
        args.extend([
            "--cache-dir".into(),
            cache.to_string_lossy().into_owned(),
            "--bootstrap".into(),
            "0".into(),
            "--out".into(),
            dir.join("large-run").to_string_lossy().into_owned(),
        ]);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let figures = support::timed(binary, &refs);
        if let Ok(keep) = std::env::var("RATERLAB_BENCH_KEEP") {
            // The store, data and command kept to profile the run by hand.
            let _ = std::fs::create_dir_all(&keep);
            let _ = std::process::Command::new("cp")
                .args(["-r", &cache.to_string_lossy(), &data_s, &keep])
                .status();
            println!("  kept in {keep}: raterlab {}", refs.join(" "));
        }
        let _ = std::fs::remove_dir_all(cache);
        let _ = std::fs::remove_dir_all(dir.join("large-run"));
        (figures.0, figures.1)
    };
    let now = offline(after, &dir.join("large-store"));
    println!(
        "calibrate --offline over {calls} cached calls of 2 KB (5 configurations x 40,000 items x 5 samples): {:.1} s, peak {:.0} MB (the data alone: {data_mb:.0} MB)",
        now.0, now.1
    );
    if let Some(binary) = before {
        let was = offline(binary, &dir.join("large-log"));
        println!(
            "  before (the log read whole): {:.1} s, peak {:.0} MB; after/before: time {:.2}, memory {:.2}",
            was.0,
            was.1,
            now.0 / was.0,
            now.1 / was.1
        );
    }
}
