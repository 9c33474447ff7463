//! Seeded simulations of looking after every item (docs/methods.md, "Stopping when a
//! comparison is decided"): two judges of equal accuracy, 2,000 items a run. The sequence
//! decides falsely in at most α of the runs (within the simulation's one-sided 99% margin);
//! McNemar's fixed-n test, looked at after every 10 items and stopped at its first p < α, does
//! not.

use super::sequential;
use crate::metrics::paired::mcnemar_exact;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

const RUNS: usize = 400;
const ITEMS: usize = 2000;
const ALPHA: f64 = 0.05;

/// One run: the gold labels and two judges each right with probability 0.7, independently.
fn run(rng: &mut ChaCha8Rng) -> [Vec<i64>; 3] {
    let gold: Vec<i64> = (0..ITEMS)
        .map(|_| if rng.random_bool(0.5) { -1 } else { 1 })
        .collect();
    let judge = |rng: &mut ChaCha8Rng| -> Vec<i64> {
        gold.iter()
            .map(|&g| if rng.random_bool(0.7) { g } else { -g })
            .collect()
    };
    let (a, b) = (judge(rng), judge(rng));
    [gold, a, b]
}

/// Whether McNemar's test, looked at after every 10 items, ever says p < α.
fn peeking_mcnemar_decides(gold: &[i64], a: &[i64], b: &[i64]) -> bool {
    let (mut only_a, mut only_b) = (0u64, 0u64);
    for (t, ((g, x), y)) in gold.iter().zip(a).zip(b).enumerate() {
        match (x == g, y == g) {
            (true, false) => only_a += 1,
            (false, true) => only_b += 1,
            _ => {}
        }
        if (t + 1) % 10 == 0 && mcnemar_exact(only_a, only_b) < ALPHA {
            return true;
        }
    }
    false
}

#[test]
fn looking_after_every_item_decides_falsely_at_most_alpha_of_the_time() {
    let mut rng =
        crate::metrics::random::stream(56, crate::metrics::random::Purpose::Simulation, 0);
    let (mut sequence, mut peeking, mut once) = (0usize, 0usize, 0usize);
    for _ in 0..RUNS {
        let [gold, a, b] = run(&mut rng);
        sequence += usize::from(sequential(&gold, &a, &b, ALPHA).stopped_at.is_some());
        peeking += usize::from(peeking_mcnemar_decides(&gold, &a, &b));
        let (mut only_a, mut only_b) = (0u64, 0u64);
        for ((g, x), y) in gold.iter().zip(&a).zip(&b) {
            only_a += u64::from(x == g && y != g);
            only_b += u64::from(y == g && x != g);
        }
        once += usize::from(mcnemar_exact(only_a, only_b) < ALPHA);
    }
    let margin = ALPHA + 2.326 * (ALPHA * (1.0 - ALPHA) / RUNS as f64).sqrt();
    let rate = |n: usize| n as f64 / RUNS as f64;
    // The sequence holds at every item at once.
    assert!(rate(sequence) <= margin, "sequence: {sequence} of {RUNS}");
    // The fixed-n test holds when it is looked at once...
    assert!(rate(once) <= margin, "McNemar once: {once} of {RUNS}");
    // ...and not when it is looked at as the items come: its false decisions pile up.
    assert!(
        rate(peeking) > 2.0 * ALPHA,
        "McNemar peeking: {peeking} of {RUNS}"
    );
}
