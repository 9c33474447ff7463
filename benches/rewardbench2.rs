//! RewardBench 2 from a reward model's scores: `raterlab calibrate --judge scores:FILE --json`
//! over 1,865 generated rows shaped as the benchmark's test split (Factuality 475, Precise IF
//! 160, Math 183, Safety 450, Focus 495, Ties 102 as 51 `ref:N`/`tied:N` pairs, up to 26
//! completions), with 1000 bootstrap resamples, as a child process (median of 3 warm runs), beside
//! reward-bench's own scoring of the same scores (`benches/rewardbench2_reference.py`: its
//! functions, in process, reading excluded; Ties from a checkout of reward-bench's main branch
//! named by `REWARDBENCH_SOURCE`). The scores agree to 1e-9 or the bench fails.
//!
//!     pip install -r requirements-dev.txt && pip install --no-deps rewardbench==0.1.4
//!     REWARDBENCH_SOURCE=DIR cargo bench --bench rewardbench2

#![allow(clippy::print_stdout)] // a benchmark reports on stdout

#[path = "support/mod.rs"]
mod support;

use polars::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt::Write as _;
use std::path::Path;

const SUBSETS: [(&str, usize); 5] = [
    ("Factuality", 475),
    ("Precise IF", 160),
    ("Math", 183),
    ("Safety", 450),
    ("Focus", 495),
];
const TIES_QUESTIONS: usize = 51;
const RUNS: usize = 3;

/// Writes the rows (parquet) and their scores (CSV): correct completions score higher on
/// average, rounded to 2 decimals so that some rows tie at the top.
fn write_data(data: &Path, scores: &Path) -> usize {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let (mut ids, mut prompts, mut subsets) = (vec![], vec![], vec![]);
    let (mut chosen, mut rejected) = (Vec::<Series>::new(), Vec::<Series>::new());
    let mut csv = String::from("prompt,response,score\n");
    let mut seen = std::collections::HashSet::new();
    let mut add = |id: String,
                   subset: &str,
                   correct: usize,
                   incorrect: usize,
                   prompt: String,
                   rng: &mut ChaCha8Rng| {
        let texts = |kind: &str, n: usize| -> Vec<String> {
            (0..n)
                .map(|k| format!("{prompt}: {kind} completion {k}"))
                .collect()
        };
        let (good, bad) = (texts("correct", correct), texts("incorrect", incorrect));
        for (t, bonus) in good
            .iter()
            .map(|t| (t, 0.35))
            .chain(bad.iter().map(|t| (t, 0.0)))
        {
            // A Ties question's ref and tied rows share texts: each is scored once.
            if seen.insert(t.clone()) {
                let score = ((rng.random::<f64>() + bonus) * 100.0).round() / 100.0;
                let _ = writeln!(csv, "\"{prompt}\",\"{t}\",{score}");
            }
        }
        ids.push(id);
        prompts.push(prompt);
        subsets.push(subset.to_string());
        chosen.push(Series::new("".into(), good));
        rejected.push(Series::new("".into(), bad));
    };
    for (subset, n) in SUBSETS {
        for i in 0..n {
            add(
                i.to_string(),
                subset,
                1,
                3,
                format!("{subset} question {i}"),
                &mut rng,
            );
        }
    }
    for q in 0..TIES_QUESTIONS {
        let prompt = format!("Ties question {q}");
        add(format!("ref:{q}"), "Ties", 1, 3, prompt.clone(), &mut rng);
        let correct = rng.random_range(2..=20);
        let incorrect = rng.random_range(3..=26 - correct.min(23));
        add(
            format!("tied:{q}"),
            "Ties",
            correct,
            incorrect,
            prompt,
            &mut rng,
        );
    }
    let count = |s: &[Series]| s.iter().map(|x| x.len() as i64).collect::<Vec<_>>();
    let (nc, ni) = (count(&chosen), count(&rejected));
    let total: Vec<i64> = nc.iter().zip(&ni).map(|(a, b)| a + b).collect();
    let rows = ids.len();
    let mut df = DataFrame::new_infer_height(vec![
        Column::new("id".into(), ids),
        Column::new("prompt".into(), prompts),
        Series::new("chosen".into(), chosen).into(),
        Series::new("rejected".into(), rejected).into(),
        Column::new("num_correct".into(), nc),
        Column::new("num_incorrect".into(), ni),
        Column::new("total_completions".into(), total),
        Column::new("subset".into(), subsets),
    ])
    .expect("frame");
    ParquetWriter::new(std::fs::File::create(data).expect("data"))
        .finish(&mut df)
        .expect("parquet");
    std::fs::write(scores, csv).expect("scores");
    rows
}

fn main() {
    let Some(source) = std::env::var_os("REWARDBENCH_SOURCE") else {
        println!(
            "rewardbench2: skipped, REWARDBENCH_SOURCE names no checkout of allenai/reward-bench (its main branch's Ties scoring is the reference, run from its own code)"
        );
        return;
    };
    let source = std::path::PathBuf::from(source);
    let work = tempfile::tempdir().expect("tempdir");
    let (data, scores) = (
        work.path().join("rb2.parquet"),
        work.path().join("scores.csv"),
    );
    let rows = write_data(&data, &scores);
    // The whole process: the run directory (ratings, metrics, LaTeX, report.html) included.
    let (seconds, peak_mb, doc) =
        support::scores_run(&data, &scores, &work.path().join("run"), RUNS);
    let ours = &doc["configs"][0]["rewardbench2"];
    let theirs = support::reference(
        "rewardbench2_reference.py",
        &[&data, &scores, &source],
        "reward-bench's scoring (pip install --no-deps rewardbench==0.1.4)",
    );
    let close = |a: &serde_json::Value, b: &serde_json::Value, what: &str| {
        let (a, b) = (a.as_f64().expect("ours"), b.as_f64().expect("theirs"));
        assert!(
            (a - b).abs() < 1e-9,
            "{what}: raterlab {a} vs reward-bench {b}"
        );
    };
    close(&ours["score"], &theirs["leaderboard"], "leaderboard");
    for subset in raterlab::evaluation::rewardbench2::SUBSETS {
        close(&ours["subsets"][subset], &theirs["subsets"][subset], subset);
    }
    let scoring = theirs["scoring_s"].as_f64().expect("seconds");
    println!(
        "RewardBench 2 from a scores file: {rows} rows, {} completions",
        count_completions(&data)
    );
    support::print_against(
        seconds,
        scoring,
        "the same vs reward-bench's scoring alone (no CIs, no reading)",
    );
    println!(
        "peak RSS {peak_mb:.0} MB; reward-bench with reading {:.3} s, with imports {:.3} s; leaderboard {:.6} (equal to reward-bench's, as every subset)",
        theirs["with_reading_s"].as_f64().unwrap_or(f64::NAN),
        theirs["with_imports_s"].as_f64().unwrap_or(f64::NAN),
        ours["score"].as_f64().unwrap_or(f64::NAN)
    );
}

/// Completions in the data file.
fn count_completions(data: &Path) -> usize {
    let df = ParquetReader::new(std::fs::File::open(data).expect("data"))
        .finish()
        .expect("parquet");
    df.column("total_completions")
        .expect("total")
        .i64()
        .expect("ints")
        .into_no_null_iter()
        .sum::<i64>() as usize
}
