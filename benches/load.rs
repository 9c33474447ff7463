//! Dataset loading: synthetic reward-bench-schema parquet files of 2,985 (the filtered
//! split's size), 10^5 and 10^6 rows, loaded and turned into examples in a fresh child process
//! each, so peak memory is measured per size. Prints time per row (linearity: the ratio of
//! per-row times) and peak memory against the file's uncompressed text (budget: 3×).
//!
//!     cargo bench --bench load

#![allow(clippy::print_stdout)] // a benchmark reports on stdout

use polars::prelude::*;
use raterlab::dataset::hub::Quiet;
use raterlab::dataset::select::Selection;
use raterlab::dataset::source::DataSpec;
use raterlab::run::data::{load, DataSettings};
use std::process::Command;
use std::time::Instant;

const SUBSETS: [&str; 5] = [
    "alpacaeval-easy",
    "mt-bench-hard",
    "llmbar-natural",
    "refusals-dangerous",
    "math-prm",
];

fn words(seed: usize, len: usize) -> String {
    let vocab = [
        "the", "model", "answer", "is", "correct", "because", "we", "compute", "value", "response",
        "step", "first",
    ];
    let mut out = String::with_capacity(len + 12);
    let mut i = seed;
    while out.len() < len {
        out.push_str(vocab[i % vocab.len()]);
        out.push(' ');
        i = i
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407)
            >> 7;
    }
    out
}

/// Writes `rows` pairs; returns the bytes of text (prompt + chosen + rejected).
fn write_file(path: &std::path::Path, rows: usize) -> usize {
    let prompt: Vec<String> = (0..rows).map(|i| words(i, 60 + i % 80)).collect();
    let chosen: Vec<String> = (0..rows).map(|i| words(i + 1, 120 + i % 160)).collect();
    let rejected: Vec<String> = (0..rows).map(|i| words(i + 2, 100 + i % 140)).collect();
    let text = prompt
        .iter()
        .chain(&chosen)
        .chain(&rejected)
        .map(String::len)
        .sum();
    let mut df = df!(
        "prompt" => prompt,
        "chosen" => chosen,
        "chosen_model" => vec!["m1"; rows],
        "rejected" => rejected,
        "rejected_model" => vec!["m2"; rows],
        "subset" => (0..rows).map(|i| SUBSETS[i % 5]).collect::<Vec<_>>(),
        "id" => (0..rows as i64).collect::<Vec<_>>(),
    )
    .expect("frame");
    ParquetWriter::new(std::fs::File::create(path).expect("file"))
        .finish(&mut df)
        .expect("parquet");
    text
}

fn rss_mb(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// Child: load one file, print "seconds peak_mb baseline_mb items".
fn measure(path: &str) {
    let baseline = rss_mb("VmRSS:");
    let settings = DataSettings {
        spec: DataSpec::File(path.into()),
        mapping: None,
        selection: Selection::default(),
        seed: 42,
        both_orders: false,
        unshared: Default::default(),
        labels: None,
    };
    let start = Instant::now();
    let dataset = load(&settings, &Quiet).expect("loads");
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{seconds} {} {baseline} {}",
        rss_mb("VmHWM:"),
        dataset.examples.len()
    );
}

fn main() {
    if let Ok(path) = std::env::var("RATERLAB_BENCH_LOAD") {
        measure(&path);
        return;
    }
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("raterlab-bench-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    println!(
        "{:>9} {:>10} {:>10} {:>9} {:>12} {:>11} {:>13}",
        "rows", "text MB", "file MB", "load s", "µs per row", "peak MB", "peak / text"
    );
    let mut first_per_row = None;
    for rows in [2985usize, 100_000, 1_000_000] {
        let path = dir.join(format!("rb-{rows}.parquet"));
        let text = write_file(&path, rows) as f64 / 1e6;
        let file_mb = std::fs::metadata(&path)
            .map(|m| m.len() as f64 / 1e6)
            .unwrap_or(0.0);
        let out = Command::new(std::env::current_exe().expect("bench binary"))
            .env("RATERLAB_BENCH_LOAD", &path)
            .output()
            .expect("child runs");
        let line = String::from_utf8_lossy(&out.stdout);
        let v: Vec<f64> = line
            .split_whitespace()
            .filter_map(|x| x.parse().ok())
            .collect();
        let (seconds, peak, baseline) = (v[0], v[1], v[2]);
        let per_row = seconds / rows as f64 * 1e6;
        let base = *first_per_row.get_or_insert(per_row);
        println!(
            "{rows:>9} {text:>10.1} {file_mb:>10.1} {seconds:>9.3} {per_row:>12.3} {:>11.0} {:>12.2}x   (per-row time vs 2,985 rows: {:.2}x)",
            peak - baseline,
            (peak - baseline) / text,
            per_row / base
        );
        let _ = std::fs::remove_file(&path);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
