//! RM-Bench from a reward model's scores: `raterlab calibrate --judge scores:FILE --json` over
//! RM-Bench's real chat and safety-refuse prompts (../shared/data/rmbench: 413 prompts × 6
//! responses, nine pairs each), with 1000 bootstrap resamples over prompts, the paired
//! comparisons and the whole run directory (report.html with the heat maps), as a child process
//! (median of 3 warm runs), beside RM-Bench's own scoring of the same scores
//! (`benches/rmbench_reference.py`: its `compute_accuracy`, in process, reading excluded, run
//! from a checkout of THU-KEG/RM-Bench named by `RMBENCH_SOURCE`). The figures agree to 1e-9
//! or the bench fails.
//!
//!     pip install -r requirements-dev.txt
//!     RMBENCH_SOURCE=DIR cargo bench --bench rmbench

#![allow(clippy::print_stdout)] // a benchmark reports on stdout

#[path = "support/mod.rs"]
mod support;

use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

const RUNS: usize = 3;
/// Rounds of whole-process runs, raterlab (with and without intervals) and RM-Bench's script
/// taking turns.
const PAIRED: usize = 7;
/// One round of runs: raterlab's seconds, the script's seconds, raterlab's MB, the script's MB,
/// and raterlab's seconds for the script's figures alone (`--bootstrap 0`: no intervals).
type Pair = (f64, f64, f64, f64, f64);

fn main() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/rmbench");
    if !shared.is_dir() {
        println!(
            "rmbench: skipped, RM-Bench's files are not at {}",
            shared.display()
        );
        return;
    }
    let Some(source) = std::env::var_os("RMBENCH_SOURCE") else {
        println!(
            "rmbench: skipped, RMBENCH_SOURCE names no checkout of THU-KEG/RM-Bench (its compute_accuracy is the reference, run from its own code)"
        );
        return;
    };
    let source = std::path::PathBuf::from(source);
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
    let (seconds, peak_mb, doc) =
        support::scores_run(&data, &scores_path, &work.path().join("run"), RUNS);
    let ours = &doc["configs"][0]["rmbench"];
    let theirs = support::reference(
        "rmbench_reference.py",
        &[&data, &scores_path, &source],
        "RM-Bench's scoring",
    );
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
    // Paired whole processes: raterlab and RM-Bench's script (python3 started, numpy imported,
    // both files read, scored) take turns, so the machine's load falls on both alike.
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/rmbench_reference.py");
    let (script, data_s, scores_s, source_s) = (
        script.to_string_lossy().into_owned(),
        data.to_string_lossy().into_owned(),
        scores_path.to_string_lossy().into_owned(),
        source.to_string_lossy().into_owned(),
    );
    let owned = support::scores_args(&data, &scores_path, &work.path().join("paired"));
    let ours_args: Vec<&str> = owned.iter().map(String::as_str).collect();
    let theirs_args = [script.as_str(), &data_s, &scores_s, &source_s];
    // The same run computing what the script computes: the accuracies, without intervals.
    let points_args: Vec<&str> = ours_args
        .iter()
        .map(|&a| if a == "1000" { "0" } else { a })
        .collect();
    // The interpreter itself, not a launcher in front of it (pyenv's shim would add its own
    // start-up to every run of the script).
    let python = support::python();
    let mut pairs: Vec<Pair> = Vec::new();
    for _ in 0..PAIRED {
        let (a, a_mb, _) = support::timed_process(env!("CARGO_BIN_EXE_raterlab"), &ours_args);
        let (b, b_mb, _) = support::timed_process(&python, &theirs_args);
        let (c, _, _) = support::timed_process(env!("CARGO_BIN_EXE_raterlab"), &points_args);
        pairs.push((a, b, a_mb, b_mb, c));
    }
    let median = |f: &dyn Fn(&Pair) -> f64| {
        let mut v: Vec<f64> = pairs.iter().map(f).collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let ratio = median(&|p| p.0 / p.1);
    let points = median(&|p| p.4 / p.1);
    println!(
        "paired whole processes ({PAIRED} pairs, medians): raterlab {:.3} s / {:.0} MB, RM-Bench's script {:.3} s / {:.0} MB; ratio {ratio:.2}x (each pair: {})",
        median(&|p| p.0),
        median(&|p| p.2),
        median(&|p| p.1),
        median(&|p| p.3),
        pairs
            .iter()
            .map(|p| format!("{:.3}/{:.3}", p.0, p.1))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!(
        "the same without intervals (--bootstrap 0: the script's figures alone), in the same rounds: raterlab {:.3} s; ratio {points:.2}x",
        median(&|p| p.4),
    );
    println!(
        "RM-Bench from a scores file: {} prompts, {} pairs",
        rows.len(),
        rows.len() * 9
    );
    support::print_against(
        seconds,
        scoring,
        "the same vs RM-Bench's compute_accuracy alone (no CIs, no page)",
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
