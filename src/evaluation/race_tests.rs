use super::*;
use rand::Rng;

fn names(m: usize) -> Vec<String> {
    (0..m).map(|k| format!("c{k}")).collect()
}

/// Labels right with probability `p[k]` for configuration k, against gold -1/1, item by item.
fn stream(p: &[f64], items: usize, seed: u64) -> (Vec<i64>, Vec<Vec<i64>>) {
    let mut rng =
        crate::metrics::random::stream(seed, crate::metrics::random::Purpose::Simulation, 0);
    let gold: Vec<i64> = (0..items)
        .map(|_| if rng.random_bool(0.5) { 1 } else { -1 })
        .collect();
    let labels = p
        .iter()
        .map(|&pk| {
            gold.iter()
                .map(|&g| if rng.random_bool(pk) { g } else { -g })
                .collect()
        })
        .collect();
    (gold, labels)
}

/// Feeds the race a block of `block` items at a time, configuration after configuration (as
/// the rating loop hands them over), skipping a dropped configuration's later blocks. Returns
/// the race and the items each configuration rated.
fn run(race: &mut Race, gold: &[i64], labels: &[Vec<i64>], block: usize) -> Vec<usize> {
    let m = labels.len();
    let mut rated = vec![0; m];
    let mut dropped = vec![false; m];
    for start in (0..gold.len()).step_by(block) {
        let mut stop = false;
        for k in 0..m {
            if dropped[k] {
                continue;
            }
            for i in start..(start + block).min(gold.len()) {
                rated[k] += 1;
                let step = race.add(k, i, Some(gold[i]), Some(labels[k][i]));
                for d in &step.dropped {
                    dropped[*d] = true;
                }
                stop |= step.stop;
            }
        }
        if stop {
            break;
        }
    }
    rated
}

/// Answers that arrive out of order (each block's items backwards, the configurations'
/// blocks interleaved differently) race exactly as those in order: items are keyed by index.
#[test]
fn answers_out_of_order_race_as_in_order() {
    let (gold, labels) = stream(&[0.9, 0.6, 0.75], 2000, 11);
    let mut in_order = Race::new(&names(3), &[false; 3], None, 2000, 0.05).expect("three");
    run(&mut in_order, &gold, &labels, 16);
    let in_order = in_order.finish();
    let mut shuffled = Race::new(&names(3), &[false; 3], None, 2000, 0.05).expect("three");
    let mut dropped = [false; 3];
    'blocks: for start in (0..gold.len()).step_by(16) {
        for k in (0..3).rev() {
            for i in (start..(start + 16).min(gold.len())).rev() {
                if dropped[k] {
                    continue;
                }
                let step = shuffled.add(k, i, Some(gold[i]), Some(labels[k][i]));
                step.dropped.iter().for_each(|&d| dropped[d] = true);
                if step.stop {
                    break 'blocks;
                }
            }
        }
    }
    let shuffled = shuffled.finish();
    assert!(!in_order.dropped.is_empty(), "the race drops someone");
    assert_eq!(shuffled, in_order);
}

#[test]
fn three_clearly_worse_configurations_are_dropped_and_two_equal_ones_race_on() {
    let (gold, labels) = stream(&[0.9, 0.6, 0.9, 0.55, 0.6], 3000, 7);
    let mut race = Race::new(&names(5), &[false; 5], None, 3000, 0.05).expect("five race");
    let rated = run(&mut race, &gold, &labels, 20);
    let raced = race.finish();
    assert_eq!(raced.comparisons, 10);
    assert!((raced.alpha_each - 0.005).abs() < 1e-15);
    let mut worse: Vec<&str> = raced.dropped.iter().map(|d| d.worse.as_str()).collect();
    worse.sort_unstable();
    assert_eq!(worse, ["c1", "c3", "c4"], "{raced:?}");
    for d in &raced.dropped {
        assert!(["c0", "c2"].contains(&d.better.as_str()));
        assert!(d.lower > 0.5 && d.lower <= d.upper);
        assert!(d.at < 600, "{d:?}");
        // Each was asked at most the block under way after its drop.
        let k: usize = d.worse[1..].parse().expect("index");
        assert!(rated[k] <= d.at + 20, "{} rated {}", d.worse, rated[k]);
    }
    // The two equal ones are never told apart: the run goes through every item.
    assert_eq!((raced.stopped_at, &raced.decided), (None, &None));
    assert_eq!((rated[0], rated[2]), (3000, 3000));
    assert_eq!(raced.stopped_at("c0"), None);
    for d in &raced.dropped {
        assert_eq!(raced.stopped_at(&d.worse), Some(d.at));
    }
}

#[test]
fn a_named_pair_stops_where_its_sequence_first_excludes_a_half() {
    let (gold, labels) = stream(&[0.8, 0.65, 0.5], 4000, 11);
    let want = crate::evaluation::sequential::sequential(&gold, &labels[0], &labels[1], 0.05);
    // The third configuration rides along: not compared, never dropped.
    let mut race = Race::new(&names(3), &[false; 3], Some([0, 1]), 4000, 0.05).expect("named");
    let rated = run(&mut race, &gold, &labels, 1);
    let raced = race.finish();
    let at = want.stopped_at.expect("decided");
    assert_eq!(raced.stopped_at, Some(at));
    let d = raced.decided.expect("decision");
    assert_eq!(
        (d.better.as_str(), d.worse.as_str(), d.at, d.n),
        ("c0", "c1", at, at)
    );
    assert_eq!(
        (d.lower, d.upper),
        (want.lower.expect("lower"), want.upper.expect("upper"))
    );
    let right = |k: usize, i: usize| f64::from(u8::from(labels[k][i] == gold[i]));
    let mean = (0..at)
        .map(|i| (right(0, i) - right(1, i) + 1.0) / 2.0)
        .sum::<f64>()
        / at as f64;
    assert!((d.mean - mean).abs() < 1e-12, "{} {mean}", d.mean);
    assert!((d.difference().0 - (2.0 * mean - 1.0)).abs() < 1e-12);
    assert_eq!((raced.comparisons, raced.alpha_each), (1, 0.05));
    assert!(raced.dropped.is_empty());
    assert_eq!(rated, [at, at, at]);
    // B better than A: the interval is turned to B's side.
    let mut flipped = Race::new(&names(2), &[false; 2], Some([0, 1]), 4000, 0.05).expect("two");
    run(
        &mut flipped,
        &gold,
        &[labels[1].clone(), labels[0].clone()],
        1,
    );
    let d2 = flipped.finish().decided.expect("decided");
    assert_eq!((d2.better.as_str(), d2.at), ("c1", at));
    assert!((d2.lower - d.lower).abs() < 1e-12 && (d2.upper - d.upper).abs() < 1e-12);
}

#[test]
fn baselines_do_not_race_and_unlabelled_items_compare_nothing() {
    // One judged configuration and a baseline: nothing to race.
    assert!(Race::new(&names(2), &[false, true], None, 10, 0.05).is_none());
    // Named, a baseline may be one of the two.
    assert!(Race::new(&names(2), &[false, true], Some([0, 1]), 10, 0.05).is_some());
    let race = Race::new(&names(3), &[false, false, true], None, 10, 0.05).expect("two");
    assert_eq!(race.finish().comparisons, 1);
    // An item without gold moves the item count on and no sequence.
    let mut race = Race::new(&names(2), &[false; 2], Some([0, 1]), 10, 0.5).expect("two");
    let mut decided_at = None;
    for i in 0..400 {
        let gold = (i % 2 == 0).then_some(1);
        race.add(0, i, gold, Some(1));
        if race.add(1, i, gold, Some(-1)).stop {
            decided_at = Some(i + 1);
            break;
        }
    }
    let raced = race.finish();
    let d = raced.decided.expect("decided");
    assert_eq!(Some(d.at), decided_at);
    assert_eq!(d.n, d.at.div_ceil(2));
    // A configuration with no verdict is wrong.
    let mut race = Race::new(&names(2), &[false; 2], Some([0, 1]), 10, 0.05).expect("two");
    let mut stopped = false;
    for i in 0..200 {
        race.add(0, i, Some(1), Some(1));
        stopped |= race.add(1, i, Some(1), None).stop;
    }
    assert!(stopped);
    assert_eq!(race.finish().decided.expect("decided").better, "c0");
}

/// Five configurations equally good, raced at α = 0.05 over 1,500 items in 400 seeded runs:
/// a run that drops any of them is a false decision, and those are at most α of the runs
/// within the simulation's binomial margin (three standard errors).
#[test]
fn equal_configurations_are_falsely_dropped_at_most_alpha_of_the_time() {
    let runs = 400;
    let mut false_drops = 0;
    for seed in 0..runs {
        let (gold, labels) = stream(&[0.7; 5], 1500, 1000 + seed);
        let mut race = Race::new(&names(5), &[false; 5], None, 1500, 0.05).expect("five");
        run(&mut race, &gold, &labels, 50);
        false_drops += usize::from(!race.finish().dropped.is_empty());
    }
    let alpha = 0.05;
    let margin = 3.0 * (alpha * (1.0 - alpha) / runs as f64).sqrt();
    let rate = false_drops as f64 / runs as f64;
    assert!(
        rate <= alpha + margin,
        "{false_drops}/{runs} runs dropped one"
    );
}
