//! The raters' rules, table-tested: aggregation, baselines, pointwise grades.

use super::aggregate::baseline;
use super::pointwise::Graded;
use super::*;

#[test]
fn aggregation_rules() {
    assert_eq!(Aggregation::Mean.apply(&[1, 1, 0]), 1);
    assert_eq!(Aggregation::Mean.apply(&[1, -1, 1]), 0);
    assert_eq!(Aggregation::Mean.apply(&[-1, -1, -1, 1]), 0);
    assert_eq!(Aggregation::Mean.apply(&[-1, -1, -1, -1, 1]), -1);
    assert_eq!(Aggregation::Plurality.apply(&[1, 1, -1]), 1);
    assert_eq!(Aggregation::Plurality.apply(&[1, -1]), 0);
    assert_eq!(Aggregation::Unanimous.apply(&[1, 1, 1]), 1);
    assert_eq!(Aggregation::Unanimous.apply(&[1, 1, -1]), 0);
}

/// `n` pairs "{prefix}{i}" asking "question {i}", shown in both orders.
pub(super) fn both_orders(n: usize, prefix: &str) -> Vec<crate::dataset::examples::Example> {
    let pairs = (0..n)
        .map(|i| crate::dataset::pairs::Pair {
            id: format!("{prefix}{i}"),
            subset: "s".into(),
            prompt: format!("question {i}"),
            first: "good".into(),
            second: "bad".into(),
            gold: Some(-1),
            reference: None,
            randomize: true,
            votes: Vec::new(),
            vote_order: Vec::new(),
            generators: None,
            history: Vec::new(),
        })
        .collect();
    crate::dataset::examples::build(pairs, 42, true)
}

/// Found in a real session: the random baseline agreed with itself across the two orders
/// of no pair at all (consistency 0.0 on 20 pairs), because it read the low bit of an
/// FNV-1a hash, which is the parity of the id's bytes.
#[test]
fn the_random_baseline_is_random_in_each_order() {
    let items = both_orders(1000, "llmbar-natural-");
    let kind = RaterKind::parse("random", 42).expect("random");
    let verdicts: Vec<i64> = items.iter().map(|e| baseline(kind, e)).collect();
    // Un-swapped, the two orders agree when the raw verdicts differ.
    let consistent = verdicts.chunks(2).filter(|v| v[0] == -v[1]).count();
    assert!(
        (430..=570).contains(&consistent),
        "{consistent} of 1000 pairs"
    );
    let firsts = verdicts.iter().filter(|&&v| v == -1).count();
    assert!(
        (930..=1070).contains(&firsts),
        "{firsts} of 2000 for response 1"
    );
}

fn graded(texts: &[&str]) -> Vec<Graded> {
    texts
        .iter()
        .map(|t| {
            (
                Ok(Completion {
                    tokens_in: 1,
                    tokens_out: 1,
                    latency_ms: 0.0,
                    ..Completion::free(t.to_string())
                }),
                false,
            )
        })
        .collect()
}

/// `sc:N` (mean) averages each response's grades, `sc:N:majority` votes on per-sample
/// comparisons; the missing-grade rule and the tie margin apply to both.
#[test]
fn pointwise_aggregation_rules() {
    let t = crate::prompts::resolve("reference_1-5").expect("built-in");
    let rule = PointwiseRule::default();
    let sc = |name: &str| RaterKind::parse(name, 0).expect("rater");
    // Response 1: 5, 1, 1 (mean 2.33); response 2: 2, 2, 2 (mean 2).
    let (a, b) = (graded(&["5", "1", "1"]), graded(&["2", "2", "2"]));
    let mean = aggregate_pointwise("x", sc("sc:3"), &t, rule, a.clone(), b.clone());
    assert_eq!((mean.rating, mean.used), (Some(-1), 6));
    let grades = mean.grades.expect("grades");
    assert!((grades.0.expect("g1") - 7.0 / 3.0).abs() < 1e-12 && grades.1 == Some(2.0));
    // Per sample: 1 wins once, 2 wins twice → majority says response 2.
    let vote = aggregate_pointwise("x", sc("sc:3:majority"), &t, rule, a, b);
    assert_eq!((vote.rating, vote.used), (Some(1), 3));
    // A margin of 0.5 makes 2.33 vs 2 a tie.
    let wide = PointwiseRule {
        tie_margin: 0.5,
        ..rule
    };
    let tie = aggregate_pointwise(
        "x",
        sc("sc:3"),
        &t,
        wide,
        graded(&["5", "1", "1"]),
        graded(&["2", "2", "2"]),
    );
    assert_eq!(tie.rating, Some(0));
    // A grade outside the scale is no grade; drop leaves no verdict, lowest grades it 1.
    let (a, b) = (graded(&["9"]), graded(&["2"]));
    let dropped = aggregate_pointwise("x", sc("basic"), &t, rule, a.clone(), b.clone());
    assert_eq!((dropped.rating, dropped.status), (None, Status::NoVerdict));
    assert_eq!(
        dropped.reason(),
        Some("unparseable: grade 9 is outside 1 to 5")
    );
    let lowest = PointwiseRule {
        missing: Missing::Lowest,
        ..rule
    };
    let low = aggregate_pointwise("x", sc("basic"), &t, lowest, a, b);
    assert_eq!((low.rating, low.status), (Some(1), Status::Rated));
    assert_eq!(
        low.grades,
        Some((None, Some(2.0))),
        "raw grades keep the gap"
    );
}

#[test]
fn rater_names_round_trip() {
    for name in [
        "basic",
        "sc:5",
        "sc:3:majority",
        "sc:7:unanimous",
        "random",
        "longer",
        "first",
    ] {
        assert_eq!(RaterKind::parse(name, 0).expect(name).to_string(), name);
    }
    for bad in ["sc", "sc:0", "sc:x", "sc:3:vote", "best", "sc:3:mean:x"] {
        assert!(RaterKind::parse(bad, 0).is_err(), "{bad}");
    }
}
