//! Keyed random streams: the one way an analytic gets randomness.
//!
//! [`stream`]`(seed, purpose, index)` is a ChaCha8 generator whose key is the run's seed and
//! the purpose, and whose stream number is the index: a resample, a configuration, a pair of
//! configurations, an item's id (through [`key`]). A result drawn from it depends on the seed,
//! what it is for and which one it is, never on the order the work is done in or on how many
//! threads do it, so a bootstrap can be split across workers ([`split`]) and give the same
//! draws. `tests/integration/architecture.rs` checks that no file in `evaluation/` or
//! `metrics/` seeds a generator another way.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// What a stream is drawn for. Each purpose keys its own streams, so two analytics never draw
/// the same numbers from one seed; the names are part of the results' contract (renaming one
/// moves its draws).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Purpose {
    /// A configuration's percentile bootstrap of its contingency table.
    Agreement,
    /// A paired comparison of two configurations' items.
    Compare,
    /// The cost frontier's paired comparison.
    Cost,
    /// Position and length bias intervals.
    Bias,
    /// Self-consistency's subsets of samples.
    Consistency,
    /// The evaluator's intervals of the judge against the humans.
    Evaluator,
    /// The evaluator's paired test of two annotators.
    EvaluatorTest,
    /// RM-Bench's redraws of prompts.
    RmBench,
    /// RewardBench 2's board (subsets and Ties).
    Rb2Board,
    /// RewardBench 2's configurations redrawn together.
    Rb2Redrawn,
    /// The planning simulation.
    Plan,
    /// The pointwise gaps' bootstrap.
    Pointwise,
    /// The system level's prompt weights.
    Systems,
    /// The annotator panel's ceiling.
    Ceiling,
    /// The calibration figures' bootstrap.
    Calibration,
    /// Active labelling's draw of an item.
    ActiveDraw,
    /// Simulations that check a procedure's error rates (tests).
    Simulation,
    /// The alt-test's paired redraws of two judges' advantage probabilities.
    AltTest,
    /// `plan --alt-test`: the authors' simulation of annotators and a judge.
    AltTestPlan,
    /// A single response's measures on its scale (`evaluation::scale`).
    Scale,
}

impl Purpose {
    /// Every purpose, in declaration order.
    pub const ALL: [Purpose; 20] = [
        Purpose::Agreement,
        Purpose::Compare,
        Purpose::Cost,
        Purpose::Bias,
        Purpose::Consistency,
        Purpose::Evaluator,
        Purpose::EvaluatorTest,
        Purpose::RmBench,
        Purpose::Rb2Board,
        Purpose::Rb2Redrawn,
        Purpose::Plan,
        Purpose::Pointwise,
        Purpose::Systems,
        Purpose::Ceiling,
        Purpose::Calibration,
        Purpose::ActiveDraw,
        Purpose::Simulation,
        Purpose::AltTest,
        Purpose::AltTestPlan,
        Purpose::Scale,
    ];

    /// The name that keys its streams.
    pub fn name(self) -> &'static str {
        match self {
            Purpose::Agreement => "agreement",
            Purpose::Compare => "compare",
            Purpose::Cost => "cost",
            Purpose::Bias => "bias",
            Purpose::Consistency => "consistency",
            Purpose::Evaluator => "evaluator",
            Purpose::EvaluatorTest => "evaluator-test",
            Purpose::RmBench => "rmbench",
            Purpose::Rb2Board => "rewardbench2-board",
            Purpose::Rb2Redrawn => "rewardbench2-redrawn",
            Purpose::Plan => "plan",
            Purpose::Pointwise => "pointwise",
            Purpose::Systems => "systems",
            Purpose::Ceiling => "ceiling",
            Purpose::Calibration => "calibration",
            Purpose::ActiveDraw => "active-draw",
            Purpose::Simulation => "simulation",
            Purpose::AltTest => "alt-test",
            Purpose::AltTestPlan => "alt-test-plan",
            Purpose::Scale => "scale",
        }
    }
}

/// The generator for `index` of `purpose` under `seed`: ChaCha8 keyed by the seed and the
/// purpose's name, on stream `index`. Distinct (seed, purpose, index) triples give
/// independent streams.
pub fn stream(seed: u64, purpose: Purpose, index: u64) -> ChaCha8Rng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..16].copy_from_slice(&key_of(&[purpose.name().as_bytes()]).to_le_bytes());
    key[16..24].copy_from_slice(b"raterlab");
    let mut rng = ChaCha8Rng::from_seed(key);
    rng.set_stream(index);
    rng
}

/// The index of a pair of positions (two configurations).
pub fn pair(a: usize, b: usize) -> u64 {
    (a as u64) << 32 | b as u64
}

/// The index of a text (an item's id): FNV-1a of its bytes, stable across platforms and
/// releases.
pub fn key(text: &str) -> u64 {
    key_of(&[text.as_bytes()])
}

/// FNV-1a over the parts, each closed by a 0xff byte so that ("ab", "c") and ("a", "bc")
/// differ. Stable across platforms and releases (`dataset::select::stable_hash` is this).
pub fn key_of(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in *part {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// How many threads a split uses: `RATERLAB_THREADS` when it is a positive number, else the
/// machine's cores. Results never depend on it.
pub fn threads() -> usize {
    std::env::var("RATERLAB_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        })
}

/// `f(0..n)` computed on `threads` threads (each takes every `threads`-th index) and returned in
/// index order: the same values whatever the number of threads, as long as `f(i)` draws only
/// from streams keyed by `i`.
pub fn split<T: Send>(n: usize, threads: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads = threads.clamp(1, n.max(1));
    if threads == 1 {
        return (0..n).map(f).collect();
    }
    let mut out: Vec<Option<T>> = (0..n).map(|_| None).collect();
    std::thread::scope(|scope| {
        let f = &f;
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    (t..n)
                        .step_by(threads)
                        .map(|i| (i, f(i)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            match h.join() {
                Ok(done) => {
                    for (i, v) in done {
                        out[i] = Some(v);
                    }
                }
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    out.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;
    use std::collections::HashSet;

    #[test]
    fn a_stream_is_its_key_and_nothing_else() {
        let draw = |seed, p, i| -> Vec<u64> {
            let mut r = stream(seed, p, i);
            (0..4).map(|_| r.random()).collect()
        };
        assert_eq!(draw(7, Purpose::Compare, 3), draw(7, Purpose::Compare, 3));
        assert_ne!(draw(7, Purpose::Compare, 3), draw(8, Purpose::Compare, 3));
        assert_ne!(draw(7, Purpose::Compare, 3), draw(7, Purpose::Cost, 3));
        assert_ne!(draw(7, Purpose::Compare, 3), draw(7, Purpose::Compare, 4));
        let names: HashSet<_> = Purpose::ALL.iter().map(|p| p.name()).collect();
        assert_eq!(names.len(), Purpose::ALL.len(), "two purposes share a name");
    }

    #[test]
    fn a_split_gives_the_same_values_on_one_thread_and_on_several() {
        let f = |i: usize| -> f64 {
            let mut r = stream(11, Purpose::Simulation, i as u64);
            (0..100).map(|_| r.random::<f64>()).sum()
        };
        let one = split(37, 1, f);
        assert_eq!(one.len(), 37);
        assert_eq!(one, split(37, 2, f));
        assert_eq!(one, split(37, 5, f));
        assert!(split(0, 3, f).is_empty());
    }

    #[test]
    fn the_key_is_fnv_1a_with_part_ends() {
        // FNV-1a of "a" then the 0xff separator, computed by hand.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in [b'a', 0xff] {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        assert_eq!(key("a"), h);
        assert_ne!(key_of(&[b"ab", b"c"]), key_of(&[b"a", b"bc"]));
    }
}
