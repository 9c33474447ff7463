//! reward-bench's published credit for LLM judges (`scripts/run_generative.py`): a pair is
//! worth 1 when the judge picks the better response, 0 when it picks the worse one, and 0.5
//! for a tie, an unreadable answer or a failed call ("effectively a tie"). raterlab's strict
//! rule (`Policies::as_wrong`) counts those three as wrong; both are reported, named.

use super::Outcome;

/// One item's credit under reward-bench's rule. A decisive verdict that is not gold scores 0
/// (with tie gold, as in some non-reward-bench data, any decisive verdict is wrong).
pub fn credit(gold: i64, outcome: Outcome) -> f64 {
    match outcome {
        Outcome::Rated(r) if r == gold => 1.0,
        Outcome::Rated(0) | Outcome::NoVerdict | Outcome::CallFailed => 0.5,
        Outcome::Rated(_) => 0.0,
    }
}

/// The mean credit over items (NaN for none).
pub fn mean_credit(items: impl Iterator<Item = (i64, Outcome)>) -> f64 {
    let (mut sum, mut n) = (0.0, 0usize);
    for (gold, outcome) in items {
        sum += credit(gold, outcome);
        n += 1;
    }
    if n == 0 {
        f64::NAN
    } else {
        sum / n as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluation::fixtures::{config, item};
    use crate::evaluation::{evaluate, EvalSettings, RunRecord};

    /// reward-bench's own section weighting (`calculate_scores_per_section` with its
    /// `EXAMPLE_COUNTS` and `SUBSET_MAPPING`) over run_generative.py's credit, on 147 items
    /// over the 23 subsets (tests/fixtures/generate_rewardbench_fixtures.py).
    #[test]
    fn sections_and_score_match_reward_benchs_own_functions() {
        let fixture: serde_json::Value =
            serde_json::from_str(include_str!("../../tests/fixtures/rewardbench_credit.json"))
                .expect("the fixture is JSON");
        let rows = fixture["items"].as_array().expect("items");
        let (mut items, mut outcomes) = (Vec::new(), Vec::new());
        for (i, row) in rows.iter().enumerate() {
            let gold = row["gold"].as_i64().expect("gold");
            let mut it = item(i, gold);
            it.subset = row["subset"].as_str().expect("subset").to_string();
            items.push(it);
            outcomes.push(match row["outcome"].as_str().expect("outcome") {
                "right" => Outcome::Rated(gold),
                "wrong" => Outcome::Rated(-gold),
                "tie" => Outcome::Rated(0),
                "no_verdict" => Outcome::NoVerdict,
                _ => Outcome::CallFailed,
            });
        }
        let run = RunRecord {
            items,
            configs: vec![config("judge", outcomes)],
            both_orders: false,
            annotators: None,
            shapes: Vec::new(),
        };
        let e = evaluate(
            &run,
            EvalSettings {
                bootstrap: 0,
                seed: 0,
            },
        );
        let c = &e.configs[0];
        for (subset, want) in fixture["subsets"].as_object().expect("subsets") {
            let got = c.by_subset[subset].published;
            assert!(
                (got - want.as_f64().expect("a number")).abs() < 1e-12,
                "{subset}: {got} vs {want}"
            );
        }
        assert_eq!(c.sections_published.len(), 4);
        for (section, want) in fixture["sections"].as_object().expect("sections") {
            let got = c.sections_published[section.as_str()];
            assert!(
                (got - want.as_f64().expect("a number")).abs() < 1e-12,
                "{section}: {got} vs {want}"
            );
        }
        let want = fixture["leaderboard"].as_f64().expect("leaderboard");
        let got = c.leaderboard_published.expect("every subset is present");
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        // The strict rule differs on the same items: ties and misses are wrong there.
        assert!(c.leaderboard.expect("strict score") < got);
    }

    #[test]
    fn a_tie_an_unreadable_answer_and_a_failed_call_are_worth_half() {
        let items = [
            (-1, Outcome::Rated(-1)), // right: 1
            (1, Outcome::Rated(-1)),  // wrong: 0
            (1, Outcome::Rated(0)),   // tie: 0.5
            (-1, Outcome::NoVerdict), // unreadable: 0.5
            (1, Outcome::CallFailed), // failed call: 0.5
            (0, Outcome::Rated(1)),   // decisive against tie gold: 0
            (0, Outcome::Rated(0)),   // tie gold, tie: 1
        ];
        let got: Vec<f64> = items.iter().map(|&(g, o)| credit(g, o)).collect();
        assert_eq!(got, [1.0, 0.0, 0.5, 0.5, 0.5, 0.0, 1.0]);
        assert_eq!(mean_credit(items.into_iter()), 3.5 / 7.0);
        assert!(mean_credit(std::iter::empty()).is_nan());
    }
}
