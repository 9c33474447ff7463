//! The calls' scheduling, tested: the order calls are sent in, blocks across the
//! configurations, and a run stopped after a block and resumed from the cache.

use super::super::tests::both_orders;
use super::super::{PointwiseRule, RaterKind};
use super::*;
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
/// each pointwise grade shared by the items that show the response (across blocks too)
/// and counted once, and each part's answers handed over in its items' order, a block at
/// a time across the parts.
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
        rate_parts_in_blocks(
            &parts,
            budget,
            Arc::new(crate::judge::execute::Silent),
            &mut |group, r| {
                seen.push((group, r.id.clone()));
                ratings[group].push(r);
                Flow::Go
            },
            Cut::Fixed(block),
        );
        (ratings, seen)
    };
    let (whole, order) = run(usize::MAX);
    let expected: Vec<(usize, String)> = (0..3)
        .flat_map(|g| examples.iter().map(move |e| (g, e.id.clone())))
        .collect();
    assert_eq!(order, expected);
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
        // Every part is asked in every block: the last part's first rating comes before
        // the first part's last.
        let first_of_last = order.iter().position(|(k, _)| *k == 2);
        let last_of_first = order.iter().rposition(|(k, _)| *k == 0);
        assert!(first_of_last < last_of_first, "blocks of {block} calls");
    }
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

/// The caller stops the run after block 3: the calls of blocks 1 to 3 were sent and no
/// later one, the later items come back not asked, and the same run again (its answers
/// in the cache) sends only the calls not sent before and makes the ratings an
/// uninterrupted run makes.
#[test]
fn a_stop_sends_no_later_block_and_a_resume_completes_the_run() {
    use crate::judge::Judge;
    use std::sync::atomic::Ordering;
    let examples = both_orders(20, "stop-");
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = Arc::new(
        crate::judge::cache::Cache::open(dir.path(), &crate::dataset::hub::Quiet).expect("cache"),
    );
    let counting = Arc::new(Counting::default());
    let cached: Arc<dyn Judge> = Arc::new(crate::judge::cache::Cached::new(
        counting.clone(),
        cache,
        false,
    ));
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
    // 40 items × (1 + 3) calls in blocks of 16 calls: 10 blocks of 4 items per part.
    let (block, per_block) = (16, 4);
    assert_eq!(block_count(&parts, block), 10);
    let rate = |stop_after: Option<usize>| {
        let mut ratings: Vec<Vec<Rating>> = vec![Vec::new(); 3];
        let mut seen = 0;
        rate_parts_in_blocks(
            &parts,
            budget,
            Arc::new(crate::judge::execute::Silent),
            &mut |group, r| {
                ratings[group].push(r);
                seen += 1;
                match stop_after {
                    Some(blocks) if seen == blocks * per_block * 3 => Flow::Stop,
                    _ => Flow::Go,
                }
            },
            Cut::Fixed(block),
        );
        ratings
    };
    let stopped = rate(Some(3));
    assert_eq!(counting.calls.load(Ordering::SeqCst), 3 * per_block * 4);
    for part in &stopped {
        assert_eq!(part.len(), 40);
        let asked = part.iter().filter(|r| r.status != Status::NotAsked).count();
        assert_eq!(asked, 3 * per_block);
        assert!(part[12..]
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
    rate_parts_in_blocks(
        &parts,
        budget,
        Arc::new(crate::judge::execute::Silent),
        &mut |group, r| {
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
    assert_eq!(hits, 3 * per_block * 4);
}

/// Paced blocks (`--sequential`): each block holds the next items of every part asked, as
/// many as fill the concurrency; a dropped part gets no later call (its items come back not
/// asked) and the others take its share of each block.
#[test]
fn a_dropped_part_gets_no_later_call_and_the_others_fill_its_blocks() {
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
    let mut ratings: Vec<Vec<Rating>> = vec![Vec::new(); 4];
    // (part, item index) of each rating, in the order handed over.
    let mut handed: Vec<(usize, usize)> = Vec::new();
    rate_parts_in_blocks(
        &parts,
        budget,
        Arc::new(crate::judge::execute::Silent),
        &mut |group, r| {
            handed.push((group, ratings[group].len()));
            ratings[group].push(r);
            if group == 1 && ratings[1].len() == 5 {
                Flow::Drop(vec![1])
            } else {
                Flow::Go
            }
        },
        Cut::Paced(6),
    );
    let asked = |k: usize| {
        ratings[k]
            .iter()
            .filter(|r| r.status != Status::NotAsked)
            .count()
    };
    // Blocks of 2 items while three parts are asked (6 calls), so b's drop after its 5th
    // rating comes in its third block, which ends: 6 asked. Then blocks of 3 items for a and c.
    assert_eq!(asked(1), 6);
    assert!(ratings[1][6..].iter().all(|r| r.status == Status::NotAsked));
    for k in [0, 2, 3] {
        assert_eq!((ratings[k].len(), asked(k)), (60, 60), "part {k}");
    }
    let first_blocks: Vec<usize> = handed.iter().take(8).map(|h| h.0).collect();
    assert_eq!(first_blocks, [0, 0, 1, 1, 2, 2, 3, 3]);
    // After the drop a block holds 3 items of a (6 calls over a and c).
    let after: Vec<(usize, usize)> = handed
        .iter()
        .copied()
        .filter(|h| h.0 == 0)
        .skip(6)
        .take(3)
        .collect();
    assert_eq!(after, [(0, 6), (0, 7), (0, 8)]);
    let next_of_c = handed
        .iter()
        .position(|&h| h == (2, 9))
        .expect("c's item 9");
    assert!(
        handed
            .iter()
            .position(|&h| h == (0, 8))
            .expect("a's item 8")
            < next_of_c
    );
}
