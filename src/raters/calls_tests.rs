//! The calls' scheduling, tested: the order calls are sent in, chunks across the
//! configurations, answers that stream past a slow call, and a run stopped part of the way
//! and resumed from the cache.

use super::super::schedule::{schedule, Cut};
use super::super::tests::both_orders;
use super::super::{PointwiseRule, RaterKind};
use super::*;
use crate::judge::execute::Budget;
use crate::judge::Params;

fn config(name: &str, prompt: &str, rater: &str) -> Config {
    Config {
        name: name.into(),
        template: crate::prompts::resolve(prompt).expect("built-in"),
        rater: RaterKind::parse(rater, 0).expect("rater"),
        judge: Arc::new(crate::judge::sim::Sim::default()),
        params: Arc::new(Params {
            model: "m".into(),
            temperature: 1.0,
            max_tokens: 8,
            seed: None,
            top_logprobs: None,
            reasoning_effort: None,
            request: None,
        }),
        pointwise: PointwiseRule::default(),
    }
}

#[test]
fn a_pairs_samples_and_orders_are_sent_back_to_back() {
    let examples = both_orders(3, "s-");
    let mut sent: Vec<(usize, String, u32)> = Vec::new();
    let configs = [
        config("a", "simple_with_tie", "sc:3"),
        config("b", "simple_with_tie", "basic"),
    ];
    for_each_call(&configs, &examples, |group, _, call| {
        sent.push((group, call.messages[0].content.clone(), call.sample));
    });
    assert_eq!(sent.len(), 6 * 3 + 6);
    // Configuration, then pair (both orders), then sample: each prompt's samples are
    // consecutive, and a pair's two orders follow each other.
    let firsts: Vec<&(usize, String, u32)> = sent.iter().filter(|s| s.2 == 0).collect();
    for (k, chunk) in sent[..18].chunks(3).enumerate() {
        assert!(chunk.iter().all(|c| c.1 == chunk[0].1 && c.0 == 0), "{k}");
        assert_eq!(chunk.iter().map(|c| c.2).collect::<Vec<_>>(), [0, 1, 2]);
    }
    let questions: Vec<usize> = firsts[..6]
        .iter()
        .map(|f| {
            (0..3)
                .position(|i| f.1.contains(&format!("question {i}")))
                .expect("question")
        })
        .collect();
    assert_eq!(questions, [0, 0, 1, 1, 2, 2]);
    assert!(sent[18..].iter().all(|s| s.0 == 1));
}

/// Ratings made a few items at a time are the ratings made all at once: the same calls,
/// each pointwise grade shared by the items that show the response (across chunks too)
/// and counted once, and each part's answers handed over in its items' order.
#[test]
fn blocks_change_nothing() {
    let examples = both_orders(7, "b-");
    let configs = [
        config("pair", "simple_with_tie", "sc:3"),
        config("point", "reference_1-5", "sc:2"),
        config("base", "simple_with_tie", "longer"),
    ];
    let budget = Budget {
        concurrency: 2,
        requests_per_minute: None,
    };
    let run = |block: usize| {
        let mut seen: Vec<(usize, String)> = Vec::new();
        let mut ratings: Vec<Vec<Rating>> = vec![Vec::new(); 3];
        let parts: Vec<Part<'_>> = configs.iter().map(|c| (c, &examples[..])).collect();
        schedule(
            &parts,
            super::super::Counted::of(&parts),
            budget,
            Arc::new(crate::judge::execute::Silent),
            &mut |group, index, r| {
                assert_eq!(index, ratings[group].len(), "in order");
                seen.push((group, r.id.clone()));
                ratings[group].push(r);
                Flow::Go
            },
            Cut::Fixed(block),
        );
        (ratings, seen)
    };
    let (whole, order) = run(usize::MAX);
    let ids: Vec<&String> = examples.iter().map(|e| &e.id).collect();
    for g in 0..3 {
        let of_part: Vec<&String> = order.iter().filter(|o| o.0 == g).map(|o| &o.1).collect();
        assert_eq!(of_part, ids, "part {g} in its items' order");
    }
    let calls = calls_per_config(&configs, &examples);
    // The pointwise configuration grades each of the 7 pairs' 2 responses twice, once
    // whatever the order they are shown in.
    assert_eq!(calls, [14 * 3, 7 * 2 * 2, 0]);
    for block in [1, 7, 30] {
        let (blocked, order) = run(block);
        assert_eq!(blocked, whole, "blocks of {block} calls");
        let used: Vec<u64> = blocked
            .iter()
            .map(|r| super::super::usage(r).calls)
            .collect();
        assert_eq!(used, calls, "blocks of {block} calls");
        // Every part is asked in every chunk: the last part's first rating comes before
        // the first part's last.
        let first_of_last = order.iter().position(|(k, _)| *k == 2);
        let last_of_first = order.iter().rposition(|(k, _)| *k == 0);
        assert!(first_of_last < last_of_first, "blocks of {block} calls");
    }
    // The chunks themselves: every part's items in equal runs, all parts in each.
    let parts: Vec<Part<'_>> = configs.iter().map(|c| (c, &examples[..])).collect();
    let cut = Cut::Fixed(30);
    let n = cut.chunks(&parts);
    assert_eq!(n, 4, "42 + 56 calls in chunks of 30");
    let mut cursor = vec![0; 3];
    let mut runs = Vec::new();
    while let Some(r) = cut.next(&parts, (runs.len(), n), &cursor, &[true; 3]) {
        cursor = r.iter().map(|r| r.end).collect();
        runs.push(r[0].clone());
    }
    assert_eq!(runs, [0..3, 3..7, 7..10, 10..14]);
    assert!(whole[1].iter().all(|r| r.status == Status::Rated));
    assert!(whole[1].iter().flat_map(|r| &r.samples).any(|s| s.shared));
}

/// A judge that counts the calls it answers (for the simulator's answers).
#[derive(Debug, Default)]
struct Counting {
    sim: crate::judge::sim::Sim,
    calls: std::sync::atomic::AtomicUsize,
}

impl crate::judge::Judge for Counting {
    fn describe(&self) -> String {
        "counting".into()
    }
    fn cacheable(&self) -> bool {
        true
    }
    fn complete<'a>(&'a self, call: &'a Call) -> crate::judge::CallFuture<'a> {
        self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.sim.complete(call)
    }
}

/// A judge that counts its calls, behind a response cache in a temporary folder (kept while
/// the folder is).
fn counted_and_cached() -> (
    tempfile::TempDir,
    Arc<Counting>,
    Arc<dyn crate::judge::Judge>,
) {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = Arc::new(
        crate::judge::cache::Cache::open(dir.path(), &crate::dataset::hub::Quiet).expect("cache"),
    );
    let counting = Arc::new(Counting::default());
    let cached = Arc::new(crate::judge::cache::Cached::new(
        counting.clone(),
        cache,
        false,
    ));
    (dir, counting, cached)
}

/// The caller stops the run after 3 chunks' ratings: no call is sent after the stop (the
/// calls out then are at most two chunks' more), every item asked is answered and the
/// later ones come back not asked, and the same run again (its answers in the cache) sends
/// only the calls not sent before and makes the ratings an uninterrupted run makes.
#[test]
fn a_stop_sends_no_new_call_and_a_resume_completes_the_run() {
    use std::sync::atomic::Ordering;
    let examples = both_orders(20, "stop-");
    let (_dir, counting, cached) = counted_and_cached();
    let mut configs = [
        config("a", "simple_with_tie", "basic"),
        config("b", "simple_with_tie", "sc:3"),
        config("base", "simple_with_tie", "first"),
    ];
    for c in &mut configs[..2] {
        c.judge = cached.clone();
    }
    // Another model for b, so that its first sample is not a's call.
    configs[1].params = Arc::new(Params {
        model: "m2".into(),
        ..(*configs[1].params).clone()
    });
    let budget = Budget {
        concurrency: 3,
        requests_per_minute: None,
    };
    let parts: Vec<Part<'_>> = configs.iter().map(|c| (c, &examples[..])).collect();
    // 40 items × (1 + 3) calls in chunks of 16 calls: 10 chunks of 4 items per part.
    let (block, per_block) = (16, 4);
    assert_eq!(super::super::schedule::chunk_count(&parts, block), 10);
    let rate = |stop_after: Option<usize>| {
        let mut ratings: Vec<Vec<Rating>> = vec![Vec::new(); 3];
        schedule(
            &parts,
            super::super::Counted::of(&parts),
            budget,
            Arc::new(crate::judge::execute::Silent),
            &mut |group, _, r| {
                ratings[group].push(r);
                // The judged parts' ratings (the baseline's come at once).
                match stop_after {
                    Some(n) if group < 2 && ratings[0].len() + ratings[1].len() == n => Flow::Stop,
                    _ => Flow::Go,
                }
            },
            Cut::Fixed(block),
        );
        ratings
    };
    let stopped = rate(Some(3 * per_block * 2));
    let asked = |part: &[Rating]| part.iter().filter(|r| r.status != Status::NotAsked).count();
    let (a, b) = (asked(&stopped[0]), asked(&stopped[1]));
    // Every call sent was for an item asked, and every item asked got its calls.
    let sent = counting.calls.load(Ordering::SeqCst);
    assert_eq!(sent, a + 3 * b);
    for (k, part) in stopped[..2].iter().enumerate() {
        assert_eq!(part.len(), 40);
        let n = asked(part);
        assert!(
            (3 * per_block..=5 * per_block).contains(&n),
            "part {k}: {n} asked, 3 chunks handed and at most 2 more out"
        );
        assert!(part[..n].iter().all(|r| !r.samples.is_empty()));
        assert!(part[n..]
            .iter()
            .all(|r| r.status == Status::NotAsked && r.rating.is_none() && r.samples.is_empty()));
    }
    let resumed = rate(None);
    assert_eq!(counting.calls.load(Ordering::SeqCst), 40 * 4);
    let fresh = Arc::new(Counting::default());
    for c in &mut configs[..2] {
        c.judge = fresh.clone();
    }
    let parts: Vec<Part<'_>> = configs.iter().map(|c| (c, &examples[..])).collect();
    let mut whole: Vec<Vec<Rating>> = vec![Vec::new(); 3];
    schedule(
        &parts,
        super::super::Counted::of(&parts),
        budget,
        Arc::new(crate::judge::execute::Silent),
        &mut |group, _, r| {
            whole[group].push(r);
            Flow::Go
        },
        Cut::Fixed(usize::MAX),
    );
    let verdicts = |all: &[Vec<Rating>]| -> Vec<Vec<(Option<i64>, Status)>> {
        all.iter()
            .map(|p| p.iter().map(|r| (r.rating, r.status)).collect())
            .collect()
    };
    assert_eq!(verdicts(&resumed), verdicts(&whole));
    let hits: usize = resumed[..2]
        .iter()
        .flatten()
        .flat_map(|r| &r.samples)
        .filter(|s| s.completion.as_ref().is_some_and(|c| c.cached))
        .count();
    assert_eq!(hits, sent);
}

/// Paced chunks (`--sequential`): each chunk holds the next items of every part asked, as
/// many as fill the concurrency; a dropped part gets no later call (its items come back not
/// asked) and the others take its share of each chunk.
#[test]
fn a_dropped_part_gets_no_later_call_and_the_others_fill_its_chunks() {
    let examples = both_orders(30, "drop-");
    let configs = [
        config("a", "simple_with_tie", "basic"),
        config("b", "simple_with_tie", "basic"),
        config("c", "simple_with_tie", "basic"),
        config("base", "simple_with_tie", "first"),
    ];
    let parts: Vec<Part<'_>> = configs.iter().map(|c| (c, &examples[..])).collect();
    let budget = Budget {
        concurrency: 6,
        requests_per_minute: None,
    };
    // The cut: 2 items of each while three parts are asked (6 calls), 3 once b is dropped.
    let cut = Cut::Paced(6);
    let all = [true, true, true, true];
    let no_b = [true, false, true, true];
    let ranges = |cursor: &[usize], asked: &[bool]| cut.next(&parts, (0, 0), cursor, asked);
    assert_eq!(ranges(&[0; 4], &all), Some(vec![0..2, 0..2, 0..2, 0..2]));
    assert_eq!(ranges(&[6; 4], &no_b), Some(vec![6..9, 6..9, 6..9, 6..9]));
    assert_eq!(ranges(&[60; 4], &no_b), None);
    let mut ratings: Vec<Vec<Rating>> = vec![Vec::new(); 4];
    schedule(
        &parts,
        super::super::Counted::of(&parts),
        budget,
        Arc::new(crate::judge::execute::Silent),
        &mut |group, index, r| {
            assert_eq!(index, ratings[group].len(), "in order");
            ratings[group].push(r);
            if group == 1 && ratings[1].len() == 5 {
                Flow::Drop(vec![1])
            } else {
                Flow::Go
            }
        },
        cut,
    );
    let asked = |k: usize| {
        ratings[k]
            .iter()
            .filter(|r| r.status != Status::NotAsked)
            .count()
    };
    // b's 5th rating is in its third chunk, so 6 items were asked, and at most the two chunks
    // out after it (fewer than 6 calls out start a chunk of 6): 10.
    let b = asked(1);
    assert!((6..=10).contains(&b), "{b} of b's items asked");
    assert!(ratings[1][b..].iter().all(|r| r.status == Status::NotAsked));
    for k in [0, 2, 3] {
        assert_eq!((ratings[k].len(), asked(k)), (60, 60), "part {k}");
    }
}

/// A judge whose first call answers only once every other call is answered (or after 20 s,
/// saying so), and that counts the calls in flight.
#[derive(Debug, Default)]
struct SlowFirst {
    sim: crate::judge::sim::Sim,
    started: std::sync::atomic::AtomicUsize,
    done: std::sync::atomic::AtomicUsize,
    in_flight: std::sync::atomic::AtomicUsize,
    most: std::sync::atomic::AtomicUsize,
    total: usize,
    released: std::sync::atomic::AtomicBool,
}

impl crate::judge::Judge for SlowFirst {
    fn describe(&self) -> String {
        "slow first".into()
    }
    fn complete<'a>(&'a self, call: &'a Call) -> crate::judge::CallFuture<'a> {
        use std::sync::atomic::Ordering::SeqCst;
        Box::pin(async move {
            let now = self.in_flight.fetch_add(1, SeqCst) + 1;
            self.most.fetch_max(now, SeqCst);
            if self.started.fetch_add(1, SeqCst) == 0 {
                let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
                while self.done.load(SeqCst) < self.total - 1 && std::time::Instant::now() < until {
                    crate::judge::pause(std::time::Duration::from_millis(2)).await;
                }
                self.released
                    .store(self.done.load(SeqCst) == self.total - 1, SeqCst);
            } else {
                crate::judge::pause(std::time::Duration::from_millis(1)).await;
            }
            let out = self.sim.complete(call).await;
            self.in_flight.fetch_sub(1, SeqCst);
            self.done.fetch_add(1, SeqCst);
            out
        })
    }
}

/// No barrier: while the first call is out, every other call of the run is sent and answered
/// (with a barrier between chunks, the first chunk's slow call would hold every later one
/// back), and the calls in flight reach the concurrency and never pass it; the ratings are
/// still handed over in each part's order, the slow item first.
#[test]
fn answers_stream_past_a_slow_call_at_the_concurrency() {
    use std::sync::atomic::Ordering::SeqCst;
    let examples = both_orders(40, "slow-");
    for cut in [Cut::Paced(4), Cut::Fixed(8)] {
        let judge = Arc::new(SlowFirst {
            total: 2 * 80,
            ..SlowFirst::default()
        });
        let mut configs = [
            config("a", "simple_with_tie", "basic"),
            config("b", "simple_with_tie", "basic"),
        ];
        configs[1].params = Arc::new(Params {
            model: "m2".into(),
            ..(*configs[1].params).clone()
        });
        for c in &mut configs {
            c.judge = judge.clone();
        }
        let parts: Vec<Part<'_>> = configs.iter().map(|c| (c, &examples[..])).collect();
        let budget = Budget {
            concurrency: 4,
            requests_per_minute: None,
        };
        let mut handed: Vec<(usize, usize)> = Vec::new();
        schedule(
            &parts,
            super::super::Counted::of(&parts),
            budget,
            Arc::new(crate::judge::execute::Silent),
            &mut |group, index, r| {
                assert!(!r.samples.is_empty() && r.status != Status::NotAsked);
                handed.push((group, index));
                Flow::Go
            },
            cut,
        );
        assert!(
            judge.released.load(SeqCst),
            "{cut:?}: the first call waited for the rest"
        );
        assert_eq!(
            judge.most.load(SeqCst),
            4,
            "{cut:?}: calls in flight at most"
        );
        assert_eq!(handed.len(), 160);
        for g in 0..2 {
            let of: Vec<usize> = handed.iter().filter(|h| h.0 == g).map(|h| h.1).collect();
            assert_eq!(
                of,
                (0..80).collect::<Vec<_>>(),
                "{cut:?}: part {g} in order"
            );
        }
    }
}

/// Two configurations that send the same pointwise calls to a judge whose answers are kept:
/// each call goes out once (the second configuration's uses are cache hits of the first's, the
/// later items' uses shared), and both rate every item as either rates alone. Found in a
/// review: a first use that was also a copy left its shared ticket pointing at no call.
#[test]
fn identical_pointwise_calls_of_two_configurations_go_out_once() {
    use std::sync::atomic::Ordering;
    let examples = both_orders(7, "same-");
    let (_dir, counting, cached) = counted_and_cached();
    let mut configs = [
        config("one", "reference_1-5", "sc:2"),
        config("two", "reference_1-5", "sc:2"),
    ];
    for c in &mut configs {
        c.judge = cached.clone();
    }
    let budget = Budget {
        concurrency: 3,
        requests_per_minute: None,
    };
    let run = |parts: &[Part<'_>], chunk: usize| {
        let mut ratings: Vec<Vec<Rating>> = vec![Vec::new(); parts.len()];
        schedule(
            parts,
            super::super::Counted::of(parts),
            budget,
            Arc::new(crate::judge::execute::Silent),
            &mut |group, _, r| {
                ratings[group].push(r);
                Flow::Go
            },
            Cut::Fixed(chunk),
        );
        ratings
    };
    let grades = |rs: &[Rating]| -> Vec<_> { rs.iter().map(|r| (r.rating, r.grades)).collect() };
    let both: Vec<Part<'_>> = configs.iter().map(|c| (c, &examples[..])).collect();
    for chunk in [usize::MAX, 12] {
        let rated = run(&both, chunk);
        // 7 pairs × 2 responses × 2 samples, once.
        assert_eq!(
            counting.calls.load(Ordering::SeqCst),
            28,
            "chunks of {chunk}"
        );
        assert_eq!(grades(&rated[0]), grades(&rated[1]), "chunks of {chunk}");
        let alone = run(&both[..1], chunk);
        assert_eq!(grades(&alone[0]), grades(&rated[0]), "chunks of {chunk}");
        assert!(rated.iter().flatten().all(|r| r.status != Status::NotAsked));
    }
}
