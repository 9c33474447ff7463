//! Position bias with both orders: consistency, first-position wins, and the published rules
//! that combine a pair's two verdicts (FastChat, JudgeBench, LLMBar), each computed as its
//! tool computes it, with its own denominator.

use super::record::{headline, ConfigRecord, Headline, RunRecord};
use crate::dataset::examples::Order;
use std::collections::BTreeMap;

/// JudgeBench's scoring of a pair judged in both orders (`utils/metrics.py`): each order
/// scores +1 when its decision equals the label, −1 when it is the opposite, 0 for a tie or
/// no decision; the pair is correct when the sum is positive. Shares of all pairs.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct JudgeBench {
    pub accuracy: f64,
    /// Both orders right.
    pub all_correct: f64,
    /// Neither order right (ties and missing decisions are not right).
    pub all_incorrect: f64,
    /// Exactly one order right.
    pub some_correct: f64,
    /// The two decisions differ once un-swapped (two missing decisions do not differ).
    pub inconsistent: f64,
    /// At least one order without a decision.
    pub missing: f64,
}

/// LLMBar's figures (a missing verdict is wrong). Shares of all pairs.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct LlmBar {
    /// `correct_average`: accuracy averaged over the two orders.
    pub accuracy: f64,
    /// `equal`: the two verdicts agree once un-swapped; two unreadable verdicts count as
    /// agreeing, exactly as LLMBar counts them.
    pub equal: f64,
    /// `correct_both`: both orders right.
    pub correct_both: f64,
}

/// Position statistics of a scope.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Position {
    /// Pairs shown in both orders within the scope.
    pub pairs: usize,
    /// Pairs with a verdict in both orders: the denominator of `consistency`.
    pub pairs_both_rated: usize,
    /// Among pairs rated in both orders, the share whose verdicts agree once un-swapped.
    pub consistency: f64,
    /// Among decisive verdicts (not ties), the share that chose the response shown first.
    pub first_position_win_rate: f64,
    /// FastChat: the agreed verdict, a tie when the orders disagree or a verdict is missing;
    /// one item per pair, oriented as the pair is shown without `--both-orders` (its seeded
    /// position), so that gold varies as it does in a one-order run.
    pub fastchat: Headline,
    pub judgebench: JudgeBench,
    pub llmbar: LlmBar,
}

/// The two verdicts of one pair, in the as-source frame, with its gold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PairVerdicts {
    /// Gold in the as-source frame.
    pub gold: i64,
    /// The as-source verdict.
    pub first: Option<i64>,
    /// The swapped verdict, un-swapped.
    pub second: Option<i64>,
    /// Whether the seeded position (the one-order run's) is the swapped one.
    pub seeded_swapped: bool,
}

fn share(num: usize, den: usize) -> f64 {
    super::record::share(num as u64, den as u64)
}

/// JudgeBench's score of one order's decision: +1 right, −1 the opposite, 0 otherwise.
fn judgebench_vote(decision: Option<i64>, label: i64) -> i64 {
    match decision {
        Some(d) if d == label => 1,
        Some(d) if d == -label => -1,
        _ => 0,
    }
}

/// The rules on a list of pairs.
pub fn rules(pairs: &[PairVerdicts]) -> (usize, f64, JudgeBench, LlmBar, Headline) {
    let n = pairs.len();
    let mut both_rated = 0usize;
    let mut consistent = 0usize;
    let (mut jb_correct, mut all_correct, mut all_incorrect, mut some_correct) = (0, 0, 0, 0);
    let (mut inconsistent, mut missing) = (0usize, 0usize);
    let (mut right_orders, mut equal) = (0usize, 0usize);
    let (mut fc_gold, mut fc_rating) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for p in pairs {
        let (a, b, g) = (p.first, p.second, p.gold);
        let rated = a.is_some() && b.is_some();
        both_rated += usize::from(rated);
        consistent += usize::from(rated && a == b);
        let (ra, rb) = (a == Some(g), b == Some(g));
        match (ra, rb) {
            (true, true) => all_correct += 1,
            (false, false) => all_incorrect += 1,
            _ => some_correct += 1,
        }
        inconsistent += usize::from(a != b);
        missing += usize::from(!rated);
        jb_correct += usize::from(judgebench_vote(a, g) + judgebench_vote(b, g) > 0);
        right_orders += usize::from(ra) + usize::from(rb);
        equal += usize::from(a == b);
        let agreed = if rated && a == b { a.unwrap_or(0) } else { 0 };
        let sign = if p.seeded_swapped { -1 } else { 1 };
        fc_gold.push(sign * g);
        fc_rating.push(sign * agreed);
    }
    let judgebench = JudgeBench {
        accuracy: share(jb_correct, n),
        all_correct: share(all_correct, n),
        all_incorrect: share(all_incorrect, n),
        some_correct: share(some_correct, n),
        inconsistent: share(inconsistent, n),
        missing: share(missing, n),
    };
    let llmbar = LlmBar {
        accuracy: share(right_orders, 2 * n),
        equal: share(equal, n),
        correct_both: share(all_correct, n),
    };
    (
        both_rated,
        share(consistent, both_rated),
        judgebench,
        llmbar,
        headline(&fc_gold, &fc_rating),
    )
}

pub fn position(run: &RunRecord, config: &ConfigRecord, indices: &[usize]) -> Position {
    // pair id → (as-source index, swapped index)
    let mut slots: BTreeMap<&str, (Option<usize>, Option<usize>)> = BTreeMap::new();
    for &i in indices {
        let item = run.items.get(i);
        let slot = slots.entry(item.pair_id).or_default();
        match item.order {
            Order::AsSource => slot.0 = Some(i),
            Order::Swapped => slot.1 = Some(i),
        }
    }
    let pairs: Vec<PairVerdicts> = slots
        .values()
        .filter_map(|&(a, b)| {
            let (a, b) = (a?, b?);
            Some(PairVerdicts {
                gold: run.items.gold[a]?,
                first: config.outcomes[a].rating(),
                second: config.outcomes[b].rating().map(|v| -v),
                seeded_swapped: run.items.seeded[b],
            })
        })
        .collect();
    let decisive: Vec<i64> = indices
        .iter()
        .filter_map(|&i| config.outcomes[i].rating())
        .filter(|&v| v != 0)
        .collect();
    let (pairs_both_rated, consistency, judgebench, llmbar, fastchat) = rules(&pairs);
    Position {
        pairs: pairs.len(),
        pairs_both_rated,
        consistency,
        first_position_win_rate: share(
            decisive.iter().filter(|&&v| v == -1).count(),
            decisive.len(),
        ),
        fastchat,
        judgebench,
        llmbar,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(first: Option<i64>, second: Option<i64>) -> PairVerdicts {
        PairVerdicts {
            gold: -1,
            first,
            second,
            seeded_swapped: false,
        }
    }

    /// right+right, right+tie, right+wrong, tie+tie, none+none, right+none (gold −1).
    fn cases() -> Vec<PairVerdicts> {
        vec![
            pair(Some(-1), Some(-1)),
            pair(Some(-1), Some(0)),
            pair(Some(-1), Some(1)),
            pair(Some(0), Some(0)),
            pair(None, None),
            pair(Some(-1), None),
        ]
    }

    fn score(p: PairVerdicts) -> (JudgeBench, LlmBar, usize, f64) {
        let (both, consistency, jb, lb, _) = rules(&[p]);
        (jb, lb, both, consistency)
    }

    #[test]
    fn judgebench_votes_per_order() {
        // JudgeBench: correct when the votes sum above 0; one right order and one tie or
        // missing decision is correct, one right and one wrong is not.
        let correct: Vec<f64> = cases().into_iter().map(|p| score(p).0.accuracy).collect();
        assert_eq!(correct, [1.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
        let jb: Vec<JudgeBench> = cases().into_iter().map(|p| score(p).0).collect();
        let field = |f: fn(&JudgeBench) -> f64| jb.iter().map(f).collect::<Vec<_>>();
        assert_eq!(field(|j| j.all_correct), [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(field(|j| j.all_incorrect), [0.0, 0.0, 0.0, 1.0, 1.0, 0.0]);
        assert_eq!(field(|j| j.some_correct), [0.0, 1.0, 1.0, 0.0, 0.0, 1.0]);
        assert_eq!(field(|j| j.inconsistent), [0.0, 1.0, 1.0, 0.0, 0.0, 1.0]);
        assert_eq!(field(|j| j.missing), [0.0, 0.0, 0.0, 0.0, 1.0, 1.0]);
        let (_, _, jb, _, _) = rules(&cases());
        assert!((jb.accuracy - 3.0 / 6.0).abs() < 1e-12);
    }

    #[test]
    fn llmbar_counts_two_unreadable_answers_as_equal() {
        let lb: Vec<LlmBar> = cases().into_iter().map(|p| score(p).1).collect();
        let field = |f: fn(&LlmBar) -> f64| lb.iter().map(f).collect::<Vec<_>>();
        assert_eq!(field(|l| l.accuracy), [1.0, 0.5, 0.5, 0.0, 0.0, 0.5]);
        assert_eq!(field(|l| l.equal), [1.0, 0.0, 0.0, 1.0, 1.0, 0.0]);
        assert_eq!(field(|l| l.correct_both), [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn consistency_is_over_pairs_rated_in_both_orders() {
        let (both, consistency, _, _, _) = rules(&cases());
        assert_eq!(both, 4);
        // right+right and tie+tie agree; right+tie and right+wrong do not.
        assert_eq!(consistency, 0.5);
        assert!(score(pair(None, None)).3.is_nan());
    }

    #[test]
    fn fastchat_orients_each_pair_by_its_seeded_position() {
        // Agreeing pairs keep their verdict, disagreeing or incomplete ones become ties; a pair
        // seeded swapped is scored in the swapped frame, so gold is not constant.
        let mut pairs = cases();
        pairs[2].seeded_swapped = true;
        pairs[0].seeded_swapped = true;
        let (_, _, _, _, fc) = rules(&pairs);
        // sklearn: golds [1, -1, 1, -1, -1, -1], ratings [1, 0, 0, 0, 0, 0]
        assert_eq!(fc.n, 6);
        assert!((fc.accuracy - 1.0 / 6.0).abs() < 1e-12);
        // cohen_kappa_score(gold, rating, labels=[-1, 0, 1]): 0.11764705882352944 unweighted,
        // 0.34782608695652173 quadratic.
        assert!(
            (fc.kappa - 0.117_647_058_823_529_44).abs() < 1e-12,
            "{}",
            fc.kappa
        );
        assert!((fc.kappa_quadratic - 0.347_826_086_956_521_73).abs() < 1e-12);
    }
}
