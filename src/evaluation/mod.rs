//! The analyze stage of `calibrate` and `report`: ratings of every configuration on the same
//! items → per-scope agreement, parse-failure policies, position bias, reward-bench section
//! scores and paired comparisons. Pure: the input is a [`RunRecord`], the output plain values.

mod alpacaeval;
pub mod annotators;
pub mod bias;
mod compare;
pub mod consistency;
pub mod cost;
pub mod credit;
pub mod depth;
pub mod evaluator;
pub mod groups;
pub mod jury;
pub mod plan;
mod pointwise;
mod position;
mod probability;
pub(crate) mod record;
mod result;
pub mod rewardbench2;
pub mod rmbench;
mod shape;
pub mod systems;

#[cfg(test)]
pub(crate) use compare::metric_test;
pub use compare::{adjust_holm, compare_all, Comparison, Finding, MetricTest, Power};
pub use pointwise::{pointwise, PointwiseStats};
pub use position::{position, JudgeBench, LlmBar, Position};
pub use probability::{probability, stats as probability_stats, ProbabilityStats};
pub use record::{
    counts, share, tally, wrong_for, Annotations, ConfigRecord, Cost, Counts, EvalSettings,
    Generators, Headline, ItemRow, Outcome, PointwiseRecord, ProbabilityRecord, Reference,
    RunRecord,
};
use record::{headline, table};
pub use result::{ConfigResult, Policies, Scope};
pub use shape::Shape;

use crate::dataset::sections::{leaderboard_score, section_of, section_score, Section};
use crate::metrics::{bootstrap_table, Agreement};
use std::collections::BTreeMap;

/// The whole evaluation.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    pub configs: Vec<ConfigResult>,
    pub comparisons: Vec<Comparison>,
    /// Per scope, the configurations indistinguishable from the best (Holm-adjusted).
    pub groups: groups::Groups,
    /// RM-Bench data: every configuration's style matrix and its comparisons.
    pub rmbench: Option<rmbench::RmBench>,
    /// Several annotators: AlpacaEval's humans and longest rows, and the best configuration by
    /// human agreement against the others (each configuration's row is in its result).
    pub evaluator: Option<evaluator::RunMeasures>,
    /// With generators and a reference: the best configuration by Spearman against the others.
    pub systems_comparisons: Vec<systems::SystemsComparison>,
    /// Each configuration's metric against its cost: the frontier and the cheapest
    /// configuration not worse than the best by more than the margin.
    pub cost: Option<cost::Frontier>,
}

/// The annotators and one configuration's ratings beside them (None if a label falls
/// outside -1, 0, 1).
fn annotator_report(
    a: &Annotations,
    config: &ConfigRecord,
    settings: EvalSettings,
) -> Option<annotators::AnnotatorReport> {
    let votes: Vec<Vec<Option<i64>>> = a
        .votes
        .iter()
        .map(|v| v.iter().copied().map(Some).collect())
        .collect();
    let judge: Vec<Option<i64>> = config
        .outcomes
        .iter()
        .map(|o| match o {
            Outcome::Rated(v) => Some(*v),
            _ => None,
        })
        .collect();
    let policy = if a.policy == "tie" { "tie" } else { "drop" };
    annotators::report(
        &crate::metrics::Labels::pairwise(),
        a.names.clone(),
        &votes,
        Some(&judge),
        (a.no_majority, policy),
        settings.bootstrap,
        settings.seed,
    )
    .ok()
}

/// Evaluates the items at `indices` for one configuration.
pub fn scope(
    run: &RunRecord,
    config: &ConfigRecord,
    indices: &[usize],
    settings: EvalSettings,
) -> Scope {
    let outcomes: Vec<Outcome> = indices.iter().map(|&i| config.outcomes[i]).collect();
    let golds: Vec<i64> = indices.iter().map(|&i| run.items[i].gold).collect();
    let c = counts(&outcomes);
    let (mut g_drop, mut r_drop) = (Vec::new(), Vec::new());
    let (mut r_wrong, mut r_tie) = (
        Vec::with_capacity(golds.len()),
        Vec::with_capacity(golds.len()),
    );
    for (o, &g) in outcomes.iter().zip(&golds) {
        match o.rating() {
            Some(r) => {
                g_drop.push(g);
                r_drop.push(r);
                r_wrong.push(r);
                r_tie.push(r);
            }
            None => {
                r_wrong.push(wrong_for(g));
                r_tie.push(0);
            }
        }
    }
    let drop_table = table(&g_drop, &r_drop);
    let intervals = (settings.bootstrap > 0)
        .then(|| bootstrap_table(&drop_table, settings.bootstrap, settings.seed));
    let agreement = Agreement {
        intervals,
        ..Agreement::of(drop_table)
    };
    let policies = Policies {
        drop: headline(&g_drop, &r_drop),
        as_wrong: headline(&golds, &r_wrong),
        as_tie: headline(&golds, &r_tie),
    };
    Scope {
        parse_rate: if c.examples > 0 {
            c.rated as f64 / c.examples as f64
        } else {
            f64::NAN
        },
        counts: c,
        agreement,
        policies,
        published: credit::mean_credit(golds.iter().copied().zip(outcomes.iter().copied())),
        position: run.both_orders.then(|| position(run, config, indices)),
        bias: bias::bias(
            run,
            &config.outcomes,
            indices,
            settings.bootstrap,
            settings.seed,
        ),
        pointwise: config
            .pointwise
            .as_ref()
            .map(|p| pointwise(run, p, indices, settings)),
        probability: probability(run, config, indices, settings),
    }
}

/// Evaluates every configuration and compares each pair.
pub fn evaluate(run: &RunRecord, settings: EvalSettings) -> Evaluation {
    let all: Vec<usize> = (0..run.items.len()).collect();
    let mut subsets: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, item) in run.items.iter().enumerate() {
        subsets.entry(item.subset.as_str()).or_default().push(i);
    }
    let depth_buckets = depth::buckets(&run.depths);
    let (evaluator_run, mut evaluator_rows) = match evaluator::of_run(run, settings) {
        Some((r, rows)) => (Some(r), rows),
        None => (None, vec![None; run.configs.len()]),
    };
    let (mut systems_rows, systems_comparisons) = match systems::systems(run, settings) {
        Some((rows, comparisons)) => (rows.into_iter().map(Some).collect(), comparisons),
        None => (vec![None; run.configs.len()], Vec::new()),
    };
    let configs: Vec<ConfigResult> = run
        .configs
        .iter()
        .enumerate()
        .map(|(i, config)| {
            let by_subset: BTreeMap<String, Scope> = subsets
                .iter()
                .map(|(name, idx)| (name.to_string(), scope(run, config, idx, settings)))
                .collect();
            let all_reward_bench = subsets.keys().all(|s| section_of(s).is_some());
            let accuracy =
                |subset: &str| by_subset.get(subset).map(|s| s.policies.as_wrong.accuracy);
            let published = |subset: &str| by_subset.get(subset).map(|s| s.published);
            // Section scores and the leaderboard score under one rule's per-subset score.
            let scores = |score: &dyn Fn(&str) -> Option<f64>| {
                if !all_reward_bench {
                    return (BTreeMap::new(), None);
                }
                let sections: BTreeMap<&'static str, f64> = Section::ALL
                    .iter()
                    .filter_map(|&s| section_score(s, score).map(|v| (s.key(), v)))
                    .collect();
                (sections, leaderboard_score(score))
            };
            let (sections, leaderboard) = scores(&accuracy);
            let (sections_published, leaderboard_published) = scores(&published);
            let by_depth: Vec<(String, Scope)> = depth_buckets
                .iter()
                .map(|(name, idx)| (name.clone(), scope(run, config, idx, settings)))
                .collect();
            ConfigResult {
                by_depth,
                jury: config.jury.as_ref().map(|j| jury::jury(run, j)),
                evaluator: evaluator_rows[i].take(),
                systems: systems_rows[i].take(),
                consistency: config.samples.as_ref().and_then(|s| {
                    consistency::consistency(run, s, settings.bootstrap, settings.seed)
                }),
                length_model: bias::length_model(&bias::model_rows(run, &config.outcomes)),
                annotators: run
                    .annotators
                    .as_ref()
                    .and_then(|a| annotator_report(a, config, settings)),
                overall: scope(run, config, &all, settings),
                leaderboard,
                sections,
                leaderboard_published,
                sections_published,
                by_subset,
            }
        })
        .collect();
    Evaluation {
        evaluator: evaluator_run,
        systems_comparisons,
        rmbench: rmbench::layout(run).map(|l| rmbench::rmbench(run, &l, settings)),
        groups: groups::groups(run, &configs),
        cost: cost::frontier(
            run,
            &configs
                .iter()
                .map(|c| c.overall.agreement.get(settings.cost.metric))
                .collect::<Vec<f64>>(),
            settings.cost,
            (settings.bootstrap, settings.seed),
        ),
        configs,
        comparisons: compare_all(run, settings),
    }
}

#[cfg(test)]
mod tests {
    use super::credit::{credit, mean_credit};
    use super::record::fixtures::{config, item};
    use super::*;

    #[test]
    fn policies_and_counts_add_up() {
        let items = vec![item(0, -1), item(1, 1), item(2, 1), item(3, -1)];
        let outcomes = vec![
            Outcome::Rated(-1),
            Outcome::Rated(0),
            Outcome::NoVerdict,
            Outcome::CallFailed,
        ];
        let config = config("c", outcomes);
        let run = RunRecord {
            items,
            configs: vec![config.clone()],
            both_orders: false,
            annotators: None,
            shapes: Vec::new(),
            depths: Vec::new(),
            generators: None,
        };
        let s = scope(
            &run,
            &config,
            &[0, 1, 2, 3],
            EvalSettings {
                bootstrap: 0,
                seed: 0,
                cost: Default::default(),
            },
        );
        assert_eq!(
            s.counts,
            Counts {
                examples: 4,
                rated: 2,
                ties: 1,
                no_verdict: 1,
                call_failures: 1,
                cut_off: 0,
            }
        );
        assert_eq!(s.parse_rate, 0.5);
        assert_eq!(s.policies.drop.accuracy, 0.5);
        assert_eq!(s.policies.as_wrong.accuracy, 0.25);
        assert_eq!(s.policies.as_tie.accuracy, 0.25);
        assert_eq!(s.policies.as_wrong.n, 4);
        assert_eq!(s.agreement.n, 2);
    }

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
            depths: Vec::new(),
            generators: None,
        };
        let e = evaluate(
            &run,
            EvalSettings {
                bootstrap: 0,
                seed: 0,
                cost: Default::default(),
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
