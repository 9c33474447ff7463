//! RM-Bench from a reward model's scores: `raterlab calibrate --judge scores:FILE --json` over
//! RM-Bench's real chat and safety-refuse prompts (../shared/data/rmbench: 413 prompts × 6
//! responses, nine pairs each), with 1000 bootstrap resamples over prompts, the paired
//! comparisons and the whole run directory (report.html with the heat maps), as a child process
//! (median of 3 warm runs), beside RM-Bench's own scoring of the same scores
//! (`benches/rmbench_reference.py`: its `compute_accuracy`, in process, reading excluded). The
//! figures agree to 1e-9 or the bench fails.
//!
//!     pip install -r requirements-dev.txt
//!     cargo bench --bench rmbench

#![allow(clippy::print_stdout)] // a benchmark reports on stdout

#[path = "support/mod.rs"]
mod support;

use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

const RUNS: usize = 3;

fn main() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/rmbench");
    if !shared.is_dir() {
        println!(
            "rmbench: skipped, RM-Bench's files are not at {}",
            shared.display()
        );
        return;
    }
    let work = tempfile::tempdir().expect("tempdir");
    let mut rows: Vec<Value> = Vec::new();
    for file in ["chat.json", "safety-refuse.json"] {
        let text = std::fs::read_to_string(shared.join(file)).expect("RM-Bench file");
        let v: Value = serde_json::from_str(&text).expect("a JSON array");
        rows.extend(v.as_array().expect("an array").iter().cloned());
    }
    let data = work.path().join("rmbench.json");
    std::fs::write(&data, serde_json::to_string(&rows).expect("JSON")).expect("data");
    // A reward model that likes length and markdown a little: its score of a text alone.
    let mut scores = String::new();
    let mut seen = std::collections::HashSet::new();
    for row in &rows {
        for side in ["chosen", "rejected"] {
            for t in row[side].as_array().expect("list") {
                let t = t.as_str().expect("text");
                if seen.insert((row["prompt"].to_string(), t.to_string())) {
                    let score = t.len() as f64 / 800.0 + t.matches("**").count() as f64 * 0.1
                        - (t.len() % 7) as f64 * 0.05;
                    let line =
                        serde_json::json!({"prompt": row["prompt"], "response": t, "score": score});
                    let _ = writeln!(scores, "{line}");
                }
            }
        }
    }
    let scores_path = work.path().join("scores.jsonl");
    std::fs::write(&scores_path, scores).expect("scores");
    let judge = format!("scores:{}", scores_path.display());
    let data_s = data.to_string_lossy().into_owned();
    let out_s = work.path().join("run").to_string_lossy().into_owned();
    let args = [
        "calibrate",
        "--data",
        &data_s,
        "--judge",
        &judge,
        "--json",
        "--bootstrap",
        "1000",
        "--out",
        &out_s,
    ];
    let binary = env!("CARGO_BIN_EXE_raterlab");
    let mut runs: Vec<(f64, f64, String)> =
        (0..RUNS).map(|_| support::timed(binary, &args)).collect();
    runs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (seconds, peak_mb, out) = runs.swap_remove(RUNS / 2);
    let doc: Value = serde_json::from_str(&out).expect("raterlab's JSON");
    let ours = &doc["configs"][0]["rmbench"];
    let reference = std::process::Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/rmbench_reference.py"))
        .args([&data, &scores_path])
        .output()
        .expect("python3 runs");
    assert!(
        reference.status.success(),
        "RM-Bench's scoring failed: {}",
        String::from_utf8_lossy(&reference.stderr)
    );
    let stdout = String::from_utf8_lossy(&reference.stdout);
    let last = stdout.lines().last().expect("the reference's JSON line");
    let theirs: Value = serde_json::from_str(last).expect("the reference's JSON");
    let close = |a: &Value, b: &Value, what: &str| {
        let (a, b) = (a.as_f64().expect("ours"), b.as_f64().expect("theirs"));
        assert!((a - b).abs() < 1e-9, "{what}: raterlab {a} vs RM-Bench {b}");
    };
    for (ours_key, theirs_key) in [
        ("hard", "hard_acc"),
        ("normal", "normal_acc"),
        ("easy", "easy_acc"),
    ] {
        close(&ours[ours_key], &theirs["overall"][theirs_key], ours_key);
        for domain in ["chat", "safety"] {
            close(
                &ours["domains"][domain][ours_key],
                &theirs["domains"][domain][theirs_key],
                &format!("{domain} {ours_key}"),
            );
        }
    }
    let scoring = theirs["scoring_s"].as_f64().expect("seconds");
    println!(
        "RM-Bench from a scores file: {} prompts, {} pairs",
        rows.len(),
        rows.len() * 9
    );
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
        "the same vs RM-Bench's compute_accuracy alone (no CIs, no page)",
        seconds,
        scoring,
        seconds / scoring
    );
    println!(
        "peak RSS {peak_mb:.0} MB; RM-Bench with reading {:.3} s, with imports {:.3} s; hard {:.4}, normal {:.4}, easy {:.4} (equal to RM-Bench's, per domain too)",
        theirs["with_reading_s"].as_f64().unwrap_or(f64::NAN),
        theirs["with_imports_s"].as_f64().unwrap_or(f64::NAN),
        ours["hard"].as_f64().unwrap_or(f64::NAN),
        ours["normal"].as_f64().unwrap_or(f64::NAN),
        ours["easy"].as_f64().unwrap_or(f64::NAN),
    );
}
