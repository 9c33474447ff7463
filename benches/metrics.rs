//! Metrics speed: the contingency-table path against the sort-based path (the algorithm
//! scipy uses) on the same pairs, measured side by side.
//!
//!     cargo bench --bench metrics
//!
//! Criterion measures each case; a summary at the end prints the ratios and the budgets
//! (all statistics on 10^7 pairs < 100 ms; 1000 bootstrap resamples on 10^6 pairs < 1 s).

use criterion::{black_box, BenchmarkId, Criterion};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use raterlab::metrics::{bootstrap_table, general, Agreement, Contingency, Labels};
use std::time::{Duration, Instant};

/// n pairwise items: gold ±1, a rater that is right 75% of the time and ties 10% of the time.
fn pairs(n: usize) -> (Vec<i64>, Vec<i64>) {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let gold: Vec<i64> = (0..n)
        .map(|_| if rng.random_bool(0.5) { 1 } else { -1 })
        .collect();
    let rating = gold
        .iter()
        .map(|&g| {
            let u: f64 = rng.random();
            if u < 0.1 {
                0
            } else if u < 0.775 {
                g
            } else {
                -g
            }
        })
        .collect();
    (gold, rating)
}

fn all_statistics(labels: &Labels, gold: &[i64], rating: &[i64]) -> Agreement {
    Agreement::of(Contingency::from_pairs(labels, gold, rating).expect("labels fit"))
}

fn sort_path(gold: &[i64], rating: &[i64]) -> (f64, f64) {
    let x: Vec<f64> = gold.iter().map(|&v| v as f64).collect();
    let y: Vec<f64> = rating.iter().map(|&v| v as f64).collect();
    (
        general::spearman(&x, &y).statistic,
        general::kendall_tau_b(&x, &y).statistic,
    )
}

fn median_time(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn bench(c: &mut Criterion) {
    let labels = Labels::pairwise();
    let mut group = c.benchmark_group("all_statistics");
    group.sample_size(10);
    for n in [10_000usize, 1_000_000, 10_000_000] {
        let (gold, rating) = pairs(n);
        group.bench_with_input(BenchmarkId::new("table", n), &n, |b, _| {
            b.iter(|| all_statistics(&labels, black_box(&gold), black_box(&rating)))
        });
        if n <= 1_000_000 {
            group.bench_with_input(BenchmarkId::new("sort_reference", n), &n, |b, _| {
                b.iter(|| sort_path(black_box(&gold), black_box(&rating)))
            });
        }
    }
    group.finish();

    let mut group = c.benchmark_group("bootstrap_1000");
    group.sample_size(10);
    let (gold, rating) = pairs(1_000_000);
    let table = Contingency::from_pairs(&labels, &gold, &rating).expect("labels fit");
    group.bench_function("table_1e6", |b| {
        b.iter(|| bootstrap_table(black_box(&table), 1000, 0, 0.95))
    });
    group.finish();
}

#[allow(clippy::print_stdout)]
fn summary() {
    let labels = Labels::pairwise();
    println!("\nsummary (median of 5 runs, same process)");
    println!(
        "{:<44} {:>12} {:>12} {:>9}",
        "case", "time", "reference", "ratio"
    );
    for n in [10_000usize, 1_000_000] {
        let (gold, rating) = pairs(n);
        let table = median_time(5, || {
            black_box(all_statistics(&labels, &gold, &rating));
        });
        let sorted = median_time(5, || {
            black_box(sort_path(&gold, &rating));
        });
        println!(
            "{:<44} {:>12.3?} {:>12.3?} {:>8.1}x",
            format!("all statistics, n={n} (ref: sort path)"),
            table,
            sorted,
            sorted.as_secs_f64() / table.as_secs_f64()
        );
    }
    let (gold, rating) = pairs(10_000_000);
    let t = median_time(5, || {
        black_box(all_statistics(&labels, &gold, &rating));
    });
    let budget = Duration::from_millis(100);
    println!(
        "{:<44} {:>12.3?} {:>12.3?} {:>8.2}x",
        "all statistics, n=10^7 (ref: 100 ms budget)",
        t,
        budget,
        t.as_secs_f64() / budget.as_secs_f64()
    );
    let (gold, rating) = pairs(1_000_000);
    let table = Contingency::from_pairs(&labels, &gold, &rating).expect("labels fit");
    let t = median_time(5, || {
        black_box(bootstrap_table(&table, 1000, 0, 0.95));
    });
    let budget = Duration::from_secs(1);
    println!(
        "{:<44} {:>12.3?} {:>12.3?} {:>8.3}x",
        "1000 bootstrap resamples, n=10^6 (ref: 1 s)",
        t,
        budget,
        t.as_secs_f64() / budget.as_secs_f64()
    );
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
    summary();
}
