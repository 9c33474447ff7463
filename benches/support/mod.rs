//! What the benchmarks that run raterlab as a child process share.

#![allow(dead_code)] // each benchmark uses its part

use serde_json::{json, Value};
use std::io::{BufRead, BufWriter, Write};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// Writes what earlier steps left dirty to disk first, so a step is not charged with the
/// write-back of the gigabyte of files the step before it wrote.
pub fn settle_disk() {
    let _ = Command::new("sync").status();
}

/// Runs the raterlab `binary` under /usr/bin/time; (seconds, peak RSS in MB, stdout).
pub fn timed(binary: &str, args: &[&str]) -> (f64, f64, String) {
    settle_disk();
    let start = Instant::now();
    let out = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("PEAK_KB=%M")
        .arg(binary)
        .args(args)
        .output()
        .expect("/usr/bin/time runs raterlab");
    let seconds = start.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "raterlab {args:?} failed: {stderr}");
    let peak_kb: f64 = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("PEAK_KB="))
        .next_back()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(f64::NAN);
    (
        seconds,
        peak_kb / 1024.0,
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// OpenAI-format output lines answering every request of an export (out of order: each
/// shard reversed); returns the number of lines.
pub fn write_results(export: &Path, to: &Path) -> u64 {
    let manifest: Value = serde_json::from_reader(
        std::fs::File::open(export.join("manifest.json")).expect("manifest"),
    )
    .expect("manifest json");
    let mut out = BufWriter::new(std::fs::File::create(to).expect("results"));
    let mut n = 0;
    for shard in manifest["shards"].as_array().expect("shards") {
        let file =
            std::fs::File::open(export.join(shard["file"].as_str().expect("file"))).expect("shard");
        let mut ids: Vec<String> = Vec::new();
        for line in std::io::BufReader::new(file).lines() {
            let line = line.expect("line");
            let v: Value = serde_json::from_str(&line).expect("json");
            ids.push(v["custom_id"].as_str().expect("id").to_string());
        }
        for id in ids.iter().rev() {
            let row = json!({"id": "batch_req", "custom_id": id, "response": {"status_code": 200, "request_id": "r",
                "body": {"choices": [{"index": 0, "message": {"role": "assistant", "content": "Response 1 is better. <winner>1</winner> [[A]] [[A>B]]"}}],
                         "usage": {"prompt_tokens": 300, "completion_tokens": 12}}}, "error": null});
            writeln!(out, "{row}").expect("write");
            n += 1;
        }
    }
    out.flush().expect("flush");
    n
}
