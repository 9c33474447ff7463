//! Report computation and export for 10 configurations × 5,000 items × 5 samples: evaluation
//! (bootstrap 1000 over every scope, 45 paired comparisons, bias diagnostics, 3 annotators'
//! agreement and ceiling, self-consistency curves) plus every file of the run directory,
//! against the budgets (2 s, 300 MB peak memory).
//!
//!     cargo bench --bench report

#![allow(clippy::print_stdout)] // a benchmark reports on stdout

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use raterlab::dataset::examples::Order;
use raterlab::evaluation::bias::Shape;
use raterlab::evaluation::registry::evaluate;
use raterlab::evaluation::{
    Annotations, ConfigRecord, Cost, EvalSettings, ItemRow, Outcome, RunRecord,
};
use raterlab::judge::Completion;
use raterlab::raters::{CallTally, Rating, RatingRow, SampleTrace, Status};
use raterlab::run::record::{ConfigMeta, Run, RunHead, RunMeta};
use std::time::Instant;

const SUBSETS: [&str; 23] = [
    "alpacaeval-easy",
    "alpacaeval-length",
    "alpacaeval-hard",
    "mt-bench-easy",
    "mt-bench-med",
    "mt-bench-hard",
    "llmbar-natural",
    "llmbar-adver-neighbor",
    "llmbar-adver-GPTInst",
    "llmbar-adver-GPTOut",
    "llmbar-adver-manual",
    "refusals-dangerous",
    "refusals-offensive",
    "xstest-should-refuse",
    "xstest-should-respond",
    "donotanswer",
    "math-prm",
    "hep-cpp",
    "hep-go",
    "hep-java",
    "hep-js",
    "hep-python",
    "hep-rust",
];

const REASONING: &str = "Response 1 follows the instruction closely and answers every part of \
the question, with a short example that is correct. Response 2 is longer and friendly, but it \
drifts from the question in its second paragraph, repeats the same point twice and misses the \
constraint on length that the user gave. Both are fluent and neither is harmful. Weighing \
helpfulness, accuracy and adherence to the instruction above style, the first answer is better \
for this user, although the second has a useful remark at the end that the first lacks. \
Overall the difference is clear but not large, so I decide as follows.";

/// Prompt and two responses of the lengths of a typical reward-bench pair (~300 + 2 × 500 to
/// 1,000 characters); every fifth second response is a list, every seventh has bold text.
fn pair_texts(i: usize) -> [String; 3] {
    let body = REASONING.repeat(2);
    let second = 500 + (i * 37) % 500;
    let list = if i % 5 == 0 {
        "\n- one point\n- another"
    } else {
        ""
    };
    let bold = if i % 7 == 0 { " **Verdict.**" } else { "" };
    [
        format!("Question {i}: {}", &REASONING[..300]),
        format!("Answer one to {i}. {}", &body[..900]),
        format!(
            "Answer two to {i}. {}{list}{bold}",
            &body[100..100 + second]
        ),
    ]
}

fn peak_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let (configs, n) = (10usize, 5000usize);
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let items: Vec<ItemRow> = (0..n)
        .map(|i| ItemRow {
            id: format!("{}-{i}", SUBSETS[i % 23]).into(),
            pair_id: format!("{}-{i}", SUBSETS[i % 23]).into(),
            subset: SUBSETS[i % 23].into(),
            order: Order::AsSource,
            gold: Some(if rng.random_bool(0.5) { -1 } else { 1 }),
            seeded: true,
        })
        .collect();
    let mut ratings = Vec::new();
    let mut records = Vec::new();
    let mut metas = Vec::new();
    for c in 0..configs {
        let accuracy = 0.6 + 0.03 * c as f64;
        let per_item: Vec<Rating> = items
            .iter()
            .map(|item| {
                let u: f64 = rng.random();
                let (rating, status) = if u < 0.03 {
                    (None, Status::NoVerdict)
                } else if u < 0.1 {
                    (Some(0), Status::Rated)
                } else if rng.random_bool(accuracy) {
                    (item.gold, Status::Rated)
                } else {
                    (item.gold.map(|g| -g), Status::Rated)
                };
                // A chain-of-thought answer of a realistic length (~700 characters).
                let text = format!(
                    "Comparing the two responses for {}. {} <winner>{}</winner>",
                    item.id,
                    REASONING,
                    rating.map_or(0, |r| r + 2)
                );
                Rating {
                    id: item.id.to_string(),
                    rating,
                    status,
                    used: u32::from(rating.is_some()),
                    grades: None,
                    samples: vec![SampleTrace {
                        sample: 0,
                        side: None,
                        grade: None,
                        shared: false,
                        span: None,
                        completion: Some(Completion {
                            tokens_in: 800,
                            tokens_out: 20,
                            latency_ms: 900.0,
                            ..Completion::free(text)
                        }),
                        verdict: rating,
                        problem: rating
                            .is_none()
                            .then(|| "unparseable: no <winner> tag".to_string()),
                        error: None,
                        cut_off: false,
                        probability: None,
                        probability_problem: None,
                    }],
                    p_response2: None,
                    p_problem: None,
                    expected_grades: None,
                }
            })
            .collect();
        records.push(ConfigRecord {
            probability: None,
            jury: None,
            name: format!("prompt-{}/basic", c),
            prompt: format!("prompt-{c}"),
            rater: "basic".into(),
            kind: Some(raterlab::raters::RaterKind::Basic),
            judge: "bench".into(),
            simulated: false,
            outcomes: per_item
                .iter()
                .map(|r| match r.rating {
                    Some(v) => Outcome::Rated(v),
                    None => Outcome::NoVerdict,
                })
                .collect(),
            cost: Cost::default(),
            reasons: Vec::new(),
            pointwise: None,
            // Five sample verdicts per item, as sc:5 draws them.
            samples: Some(
                items
                    .iter()
                    .map(|item| {
                        (0..5)
                            .map(|_| {
                                let u: f64 = rng.random();
                                if u < 0.03 {
                                    None
                                } else if u < 0.1 {
                                    Some(0)
                                } else if rng.random_bool(accuracy) {
                                    item.gold
                                } else {
                                    item.gold.map(|g| -g)
                                }
                            })
                            .collect()
                    })
                    .collect(),
            ),
        });
        metas.push(ConfigMeta {
            name: format!("prompt-{}/basic", c),
            prompt: format!("prompt-{c}"),
            parser: "winner_tag".into(),
            rater: "basic".into(),
            judge: "bench".into(),
            model: "bench".into(),
            temperature: 0.0,
            max_tokens: 1024,
            simulated: false,
            system: None,
            template: "{prompt} {response1} {response2}".into(),
            price: None,
        });
        ratings.push(per_item);
    }
    let before = peak_mb();
    let dir = std::env::temp_dir().join(format!("raterlab-bench-report-{}", std::process::id()));
    let start = Instant::now();
    // Three annotators per item (each agreeing with gold 85% of the time) and the responses'
    // shapes, as calibrate builds them from the texts.
    let mut votes_rng = ChaCha8Rng::seed_from_u64(9);
    let votes: Vec<Vec<Option<i64>>> = items
        .iter()
        .map(|item| {
            (0..3)
                .map(|_| {
                    Some(if votes_rng.random_bool(0.85) {
                        item.gold.unwrap_or(0)
                    } else {
                        -item.gold.unwrap_or(0)
                    })
                })
                .collect()
        })
        .collect();
    let shapes = (0..n)
        .map(|i| {
            let [_, a, b] = pair_texts(i);
            [Shape::of(&a), Shape::of(&b)]
        })
        .collect();
    let record = RunRecord {
        labels: raterlab::metrics::Labels::pairwise(),
        inputs: Default::default(),
        items: items.into_iter().collect(),
        configs: records,
        both_orders: false,
        annotators: Some(Annotations {
            names: vec!["a1".into(), "a2".into(), "a3".into()],
            votes,
            order: Vec::new(),
            no_majority: 0,
            policy: "drop".into(),
            label_names: Vec::new(),
        }),
        shapes,
        generators: None,
    };
    let evaluation = evaluate(&record, EvalSettings::new(1000, 0));
    let evaluated = start.elapsed().as_secs_f64();
    // The answers as calibrate writes them while it rates, then the rows it keeps.
    std::fs::create_dir_all(&dir).expect("run directory");
    let mut log = raterlab::run::answers::AnswerLog::create(
        &dir,
        metas.iter().map(|m| m.name.clone()).collect(),
    )
    .expect("completions.jsonl");
    for (k, per_item) in ratings.iter().enumerate() {
        for r in per_item {
            log.add(k, r);
        }
    }
    log.finish().expect("completions.jsonl written");
    let tallies: Vec<CallTally> = ratings.iter().map(CallTally::of).collect();
    let ratings: Vec<Vec<RatingRow>> = ratings
        .iter()
        .map(|per_item| per_item.iter().map(RatingRow::from).collect())
        .collect();
    let run = Run {
        meta: RunMeta {
            head: RunHead {
                name: "bench".into(),
                dir: dir.clone(),
                source: "synthetic".into(),
                seed: 0,
                both_orders: false,
                bootstrap: 1000,
                command: vec![],
                created_unix: 0,
            },
            form: raterlab::run::record::Form::Pairs,
            checksum: String::new(),
            configs: metas,
            sort: None,
            family: Default::default(),
            no_majority: 0,
            unshared: Vec::new(),
            sequential: None,
            estimate: None,
            alt_test: Default::default(),
            alpha: raterlab::evaluation::paired::ALPHA,
        },
        record,
        evaluation,
        ratings: Some(ratings),
        tallies,
        caches: vec![],
        texts: Some((0..n).map(pair_texts).collect()),
        histories: None,
        early: None,
    };
    raterlab::report::calibrate::run_dir::write(&run).expect("run directory written");
    let written = start.elapsed().as_secs_f64();
    let mut table = Vec::new();
    raterlab::report::calibrate::write_terminal(&run, &mut table, true).expect("terminal report");
    let total = start.elapsed().as_secs_f64();
    let peak = peak_mb();
    // The page again on its own, as `report DIR` renders it from the files just written.
    let html_start = Instant::now();
    let page = raterlab::report::calibrate::page::render(&run, &dir).expect("report.html rendered");
    let html = html_start.elapsed().as_secs_f64();
    // RATERLAB_BENCH_KEEP=1 keeps the run directory, to open its report.html in a browser.
    let kept = std::env::var("RATERLAB_BENCH_KEEP").is_ok_and(|v| v == "1");
    if !kept {
        let _ = std::fs::remove_dir_all(&dir);
    }
    println!("report for {configs} configurations × {n} items, bootstrap 1000 (45 paired comparisons, 23 subsets, bias diagnostics, 3 annotators, sc:5 curves)");
    println!(
        "{:<52} {:>10} {:>10} {:>8}",
        "case", "measured", "budget", "ratio"
    );
    println!(
        "{:<52} {:>9.3}s {:>9.1}s {:>7.2}x",
        "evaluation (all scopes, comparisons)",
        evaluated,
        2.0,
        evaluated / 2.0
    );
    println!(
        "{:<52} {:>9.3}s {:>9.1}s {:>7.2}x",
        "evaluation + run directory (report.html too) + terminal",
        total,
        2.0,
        total / 2.0
    );
    println!(
        "{:<52} {:>8.0}MB {:>8.0}MB {:>7.2}x",
        "peak memory (VmHWM) up to then, whole process",
        peak,
        300.0,
        peak / 300.0
    );
    println!(
        "{:<52} {:>9.3}s {:>9.1}s {:>7.2}x",
        "report.html alone (read back + render)",
        html,
        2.0,
        html / 2.0
    );
    println!(
        "(run directory incl. report.html written at {written:.3} s; report.html is {:.1} MB)",
        page.len() as f64 / 1e6
    );
    println!("(peak before the report, i.e. the synthetic input itself: {before:.0} MB)");
    if kept {
        println!("(run directory kept: {})", dir.display());
    }
}
