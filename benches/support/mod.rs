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
    timed_process(binary, args)
}

/// Runs `program` under /usr/bin/time, the whole process: (seconds, peak RSS in MB, stdout).
pub fn timed_process(program: &str, args: &[&str]) -> (f64, f64, String) {
    settle_disk();
    let start = Instant::now();
    let out = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("PEAK_KB=%M")
        .arg(program)
        .args(args)
        .output()
        .expect("/usr/bin/time runs the program");
    let seconds = start.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{program} {args:?} failed: {stderr}");
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

/// `calibrate --judge scores:SCORES --json --bootstrap 1000` over `data` into `out`, as a child
/// process, `runs` times: the median run's (seconds, peak MB, JSON document).
pub fn scores_run(data: &Path, scores: &Path, out: &Path, runs: usize) -> (f64, f64, Value) {
    let owned = scores_args(data, scores, out);
    let args: Vec<&str> = owned.iter().map(String::as_str).collect();
    let binary = env!("CARGO_BIN_EXE_raterlab");
    let mut all: Vec<(f64, f64, String)> = (0..runs).map(|_| timed(binary, &args)).collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (seconds, peak_mb, stdout) = all.swap_remove(runs / 2);
    (
        seconds,
        peak_mb,
        serde_json::from_str(&stdout).expect("raterlab's JSON"),
    )
}

/// `calibrate --data DATA --judge scores:SCORES --json --bootstrap 1000 --out OUT`: the command
/// line every scores benchmark times.
pub fn scores_args(data: &Path, scores: &Path, out: &Path) -> Vec<String> {
    [
        "calibrate".into(),
        "--data".into(),
        data.to_string_lossy().into_owned(),
        "--judge".into(),
        format!("scores:{}", scores.display()),
        "--json".into(),
        "--bootstrap".into(),
        "1000".into(),
        "--out".into(),
        out.to_string_lossy().into_owned(),
    ]
    .into()
}

/// The result table of a benchmark beside a reference script: the whole process against a
/// 1 s budget, and against the reference's own scoring (`reference_s`, described by `against`).
pub fn print_against(seconds: f64, reference_s: f64, against: &str) {
    println!(
        "{:<64} {:>10} {:>12} {:>8}",
        "case", "measured", "reference", "ratio"
    );
    println!(
        "{:<64} {:>9.3}s {:>11.3}s {:>7.2}x",
        "raterlab calibrate --json, whole process, bootstrap 1000 (ref: 1 s)",
        seconds,
        1.0,
        seconds
    );
    println!(
        "{:<64} {:>9.3}s {:>11.3}s {:>7.2}x",
        against,
        seconds,
        reference_s,
        seconds / reference_s
    );
}

/// The interpreter `python3` names, as a path: a launcher in front of it (pyenv's shims are
/// shell scripts that start pyenv) costs tens of milliseconds per start, which a whole-process
/// timing would charge to the reference.
pub fn python() -> String {
    let out = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 runs");
    let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(
        out.status.success() && !path.is_empty(),
        "python3 does not say where its interpreter is: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    path
}

/// A Python reference script of benches/ run on `args`: its last stdout line, as JSON.
pub fn reference(script: &str, args: &[&Path], what: &str) -> Value {
    let out = Command::new(python())
        .arg(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("benches")
                .join(script),
        )
        .args(args)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(stdout.lines().last().expect("the reference's JSON line"))
        .expect("the reference's JSON")
}

/// `batch export` of `plan` into `out` (only what `cache` lacks): (seconds, peak MB).
pub fn export(binary: &str, plan: &[String], out: &Path, cache: &Path) -> (f64, f64) {
    let mut args: Vec<String> = vec!["batch".into(), "export".into()];
    args.extend(plan.iter().cloned());
    args.extend([
        "--out".into(),
        out.to_string_lossy().into_owned(),
        "--cache-dir".into(),
        cache.to_string_lossy().into_owned(),
    ]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let (seconds, mb, _) = timed(binary, &refs);
    (seconds, mb)
}

/// `batch ingest` of `results` against `export`'s manifest into `cache`, which must leave
/// every request answered: (seconds, peak MB).
pub fn ingest(binary: &str, results: &Path, export: &Path, cache: &Path) -> (f64, f64) {
    let (seconds, mb, out) = timed(
        binary,
        &[
            "batch",
            "ingest",
            &results.to_string_lossy(),
            "--manifest",
            &export.join("manifest.json").to_string_lossy(),
            "--cache-dir",
            &cache.to_string_lossy(),
        ],
    );
    assert!(out.contains("every request is answered"), "{out}");
    (seconds, mb)
}

/// The answer `write_results` gives every request: a verdict in each built-in prompt's form.
pub const ANSWER: &str = "Response 1 is better. <winner>1</winner> [[A]] [[A>B]]";

/// OpenAI-format output lines answering every request of an export (out of order: each
/// shard reversed); returns the number of lines.
pub fn write_results(export: &Path, to: &Path) -> u64 {
    write_results_with(export, to, ANSWER)
}

/// `write_results` with `answer` as every request's answer.
pub fn write_results_with(export: &Path, to: &Path, answer: &str) -> u64 {
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
                "body": {"choices": [{"index": 0, "message": {"role": "assistant", "content": answer}}],
                         "usage": {"prompt_tokens": 300, "completion_tokens": 12}}}, "error": null});
            writeln!(out, "{row}").expect("write");
            n += 1;
        }
    }
    out.flush().expect("flush");
    n
}

pub const PROMPTS: [&str; 5] = [
    "simple_no_tie",
    "simple_with_tie",
    "reward-bench_gemini_no_tie",
    "mt-bench_pairwise",
    "arena-hard",
];

/// A reward-bench-schema JSONL file of `pairs` pairs (about 600 characters each).
pub fn write_pairs(path: &Path, pairs: usize) {
    let mut out = BufWriter::new(std::fs::File::create(path).expect("data file"));
    let subsets = [
        "alpacaeval-easy",
        "mt-bench-hard",
        "llmbar-natural",
        "refusals-dangerous",
    ];
    for i in 0..pairs {
        let subset = subsets[i % 4];
        let row = json!({
            "prompt": format!("Question {i}: explain why the sky looks blue at noon and red at dusk, briefly."),
            "chosen": format!("Answer {i}: sunlight scatters off air molecules; short blue wavelengths scatter most (Rayleigh scattering), so the sky looks blue. At dusk light crosses more air and the blue is scattered away, leaving red."),
            "chosen_model": "model-a",
            "rejected": format!("Answer {i}: the sky reflects the ocean, which is blue; at dusk the sun is tired and turns red."),
            "rejected_model": "model-b",
            "subset": subset,
            "id": i,
        });
        writeln!(out, "{row}").expect("write");
    }
    out.flush().expect("flush");
}

/// The plan options for `pairs` pairs: × 2 orders × 5 prompts × `samples` = 10 × samples ×
/// pairs calls.
pub fn plan(data: &str, samples: usize) -> Vec<String> {
    let rater = format!("sc:{samples}");
    let mut args: Vec<String> = [
        "--data",
        data,
        "--both-orders",
        "--model",
        "bench-judge",
        "--rater",
        &rater,
        "--max-tokens",
        "64",
    ]
    .map(String::from)
    .to_vec();
    for p in PROMPTS {
        args.push("--prompt".into());
        args.push(p.into());
    }
    args
}
