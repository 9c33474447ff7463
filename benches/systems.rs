//! The system level at leaderboard size: 60 models × 805 prompts against one baseline
//! (48,300 items) replayed from recorded verdicts, `raterlab calibrate --json` with 1000
//! bootstrap resamples over prompts for every model's interval and the reference correlations,
//! the whole run directory written, as a child process (median of 3 runs), beside the same
//! analysis in pandas, numpy and scipy (`benches/systems_reference.py`, reading excluded). The
//! win rates agree to 1e-12 or the bench fails.
//!
//!     pip install -r requirements-dev.txt
//!     cargo bench --bench systems

#![allow(clippy::print_stdout)] // a benchmark reports on stdout

#[path = "support/mod.rs"]
mod support;

use std::fmt::Write as _;

const MODELS: usize = 60;
const PROMPTS: usize = 805;
const RUNS: usize = 3;

fn main() {
    let work = tempfile::tempdir().expect("tempdir");
    let (mut rows, mut verdicts, mut reference) = (String::new(), String::new(), String::new());
    let _ = writeln!(reference, "model,score");
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    for m in 0..MODELS {
        let skill = m as f64 / MODELS as f64;
        let _ = writeln!(
            reference,
            "model-{m:02},{}",
            900.0 + 300.0 * skill + 40.0 * next()
        );
        for p in 0..PROMPTS {
            let u = next();
            let verdict = if u < 0.05 {
                "[[C]]"
            } else if u < 0.05 + 0.9 * skill {
                "[[B]]"
            } else {
                "[[A]]"
            };
            let (prompt, r1, r2) = (
                format!("prompt {p}"),
                format!("baseline answer {p}"),
                format!("model {m} answer {p}"),
            );
            let _ = writeln!(
                rows,
                "{}",
                serde_json::json!({"id": format!("{m}-{p}"), "prompt": prompt, "r1": r1, "r2": r2, "label": 1, "model_1": "baseline", "model_2": format!("model-{m:02}")})
            );
            let _ = writeln!(
                verdicts,
                "{}",
                serde_json::json!({"prompt": prompt, "response1": r1, "response2": r2, "completion": verdict})
            );
        }
    }
    let path = |name: &str| work.path().join(name);
    std::fs::write(path("rows.jsonl"), rows).expect("rows");
    std::fs::write(path("verdicts.jsonl"), verdicts).expect("verdicts");
    std::fs::write(path("reference.csv"), reference).expect("reference");
    let judge = format!("replay:{}", path("verdicts.jsonl").display());
    let (data, reference_path, out) = (
        path("rows.jsonl").display().to_string(),
        path("reference.csv").display().to_string(),
        path("run").display().to_string(),
    );
    let args = [
        "calibrate", "--data", &data, "--map",
        "prompt=prompt,response1=r1,response2=r2,label=label,id=id,generator1=model_1,generator2=model_2",
        "--judge", &judge, "--prompt", "mt-bench_pairwise", "--reference", &reference_path,
        "--reference-map", "model=model,score=score", "--bootstrap", "1000", "--json", "--out", &out,
    ];
    let binary = env!("CARGO_BIN_EXE_raterlab");
    let mut all: Vec<(f64, f64, String)> = (0..RUNS)
        .map(|_| {
            let _ = std::fs::remove_dir_all(path("run"));
            support::timed(binary, &args)
        })
        .collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (seconds, peak_mb, stdout) = all.swap_remove(RUNS / 2);
    let doc: serde_json::Value = serde_json::from_str(&stdout).expect("raterlab's JSON");
    let theirs = support::reference(
        "systems_reference.py",
        &[
            &path("rows.jsonl"),
            &path("verdicts.jsonl"),
            &path("reference.csv"),
        ],
        "the pandas reference",
    );
    let systems = &doc["configs"][0]["systems"];
    let generators = systems["generators"].as_array().expect("generators");
    assert_eq!(generators.len(), MODELS);
    for g in generators {
        let name = g["name"].as_str().expect("name");
        let (ours, want) = (
            g["win_rate"].as_f64().expect("ours"),
            theirs["win_rate"][name].as_f64().expect("theirs"),
        );
        assert!(
            (ours - want).abs() < 1e-12,
            "{name}: raterlab {ours} vs pandas {want}"
        );
    }
    println!("The system level: {MODELS} models × {PROMPTS} prompts against one baseline ({} items), 1000 resamples over prompts", MODELS * PROMPTS);
    support::print_against(
        seconds,
        theirs["analysis_s"].as_f64().expect("seconds"),
        "the same vs pandas/numpy/scipy's analysis alone (no rating, no files)",
    );
    println!(
        "peak RSS {peak_mb:.0} MB; Spearman with the reference {:.4}, separability {:.3} (win rates equal to pandas')",
        systems["reference"]["spearman"].as_f64().unwrap_or(f64::NAN),
        systems["separability"].as_f64().unwrap_or(f64::NAN)
    );
}
