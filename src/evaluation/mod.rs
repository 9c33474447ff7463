//! The analyze stage of `calibrate` and `report`: ratings of every configuration on the same
//! items → per-scope agreement, parse-failure policies, position bias, reward-bench section
//! scores and paired comparisons. Pure: the input is a [`RunRecord`], the output plain values.

pub mod active;
mod alpacaeval;
pub mod alt_test;
pub mod alt_test_plan;
pub mod analytic;
pub mod annotators;
pub mod bias;
mod compare;
pub mod consistency;
pub mod cost;
pub mod credit;
pub mod depth;
pub mod estimate;
mod estimate_systems;
pub mod evaluator;
mod family;
pub mod groups;
pub mod items;
pub mod jury;
mod kept;
pub mod labelling;
pub mod pac;
pub mod paired;
pub mod plan;
mod pointwise;
mod position;
pub mod probability;
pub mod race;
pub mod ranking;
pub(crate) mod record;
pub mod registry;
mod result;
pub mod rewardbench2;
pub mod rmbench;
pub mod scale;
pub mod sequential;
mod settings;
mod shape;
pub mod standing;
pub mod systems;

pub use analytic::{Analytic, Context, Findings, Found, Grouping};
#[cfg(test)]
pub(crate) use compare::metric_test;
pub use compare::{compare_all, Comparison, Power, Tested};
pub use family::Family;
pub use items::{ItemRef, ItemRow, Items, Texts};
pub use paired::{adjust_holm, Finding, MetricTest};
pub use pointwise::{pointwise, PointwiseStats};
pub use position::{position, JudgeBench, LlmBar, Position};
pub use record::{
    counts, share, tally, wrong_for, Annotations, ConfigRecord, Cost, Counts, Generators, Headline,
    Outcome, PointwiseRecord, ProbabilityRecord, Reference, RunRecord,
};
use record::{headline_of, table_of, wrong_on};
pub use result::{ConfigResult, Grouped, Policies, Scope};
pub use settings::{alpha, EvalSettings, Options, DEFAULT_BOOTSTRAP};
pub use shape::Shape;
pub use standing::{standing, Against, Standing};

use crate::dataset::sections::{leaderboard_score, section_of, section_score, Section};
use crate::metrics::{bootstrap_table, Agreement};
use std::collections::BTreeMap;

/// The whole evaluation (`Default`: of no configuration, what a run holds until it is
/// evaluated).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Evaluation {
    pub configs: Vec<ConfigResult>,
    pub comparisons: Vec<Comparison>,
    /// The comparisons' Holm families.
    pub tested: Tested,
    /// The analytics' results over the run (`Analytic::run`).
    pub findings: Findings,
    /// The best, the runner-up and where the best stands (None without configurations).
    pub standing: Option<Standing>,
}

impl Evaluation {
    /// What an analytic found for configuration `i`, of type `T`.
    pub fn of_config<T: std::any::Any>(&self, i: usize) -> Option<&T> {
        self.configs[i].findings.get()
    }

    /// What an analytic found over the run, of type `T`.
    pub fn of_run<T: std::any::Any>(&self) -> Option<&T> {
        self.findings.get()
    }
}

/// An evaluated record, whichever command made it (`calibrate`, `report DIR`, `analyze`): what
/// `report/`'s sections render.
#[derive(Debug, Clone)]
pub struct Evaluated<'a> {
    pub record: &'a RunRecord,
    pub evaluation: &'a Evaluation,
    /// The metric the best was chosen on (`--sort`).
    pub sort: crate::metrics::Statistic,
    /// Each configuration's completion budget (0: none), for the thinking's share of it.
    pub max_tokens: Vec<u32>,
}

/// Evaluates the items at `indices` for one configuration: those it was asked that have a gold
/// label (`RunRecord::counted`; the others are only counted, `Counts::not_asked` and
/// `Counts::unlabelled`).
fn scope(cx: &Context, config: &ConfigRecord, indices: &[usize]) -> Scope {
    let (run, settings) = (cx.run, &cx.settings);
    let (counted, left_out) = run.counted(config, indices);
    let indices = &counted[..];
    // Every counted item has gold; each policy's table is tabulated as the items come, with
    // no list of them kept (a scope of 10^6 items would hold several).
    let at = |i: usize| (run.items.gold[i].unwrap_or_default(), config.outcomes[i]);
    let c = Counts {
        not_asked: left_out.not_asked,
        unlabelled: left_out.unlabelled,
        ..counts(indices.iter().map(|&i| &config.outcomes[i]))
    };
    let labels = &run.labels;
    let rated = indices.iter().filter_map(|&i| {
        let (g, o) = at(i);
        o.rating().map(|r| (g, r))
    });
    let drop_table = table_of(labels, rated);
    let policy = |unrated: &dyn Fn(i64) -> i64| {
        headline_of(table_of(
            labels,
            indices.iter().map(|&i| {
                let (g, o) = at(i);
                (g, o.rating().unwrap_or_else(|| unrated(g)))
            }),
        ))
    };
    let policies = Policies {
        drop: headline_of(drop_table.clone()),
        as_wrong: policy(&|g| wrong_on(labels, g)),
        as_tie: policy(&|_| 0),
    };
    let intervals = (settings.bootstrap > 0).then(|| {
        bootstrap_table(
            &drop_table,
            settings.bootstrap,
            settings.seed,
            settings.level(),
        )
    });
    let agreement = Agreement {
        intervals,
        ..Agreement::of(drop_table)
    };
    let mut findings = Findings::default();
    for a in cx.analytics {
        if let Some(f) = a.scope(cx, config, indices) {
            findings.put(f);
        }
    }
    Scope {
        parse_rate: if c.examples > 0 {
            c.rated as f64 / c.examples as f64
        } else {
            f64::NAN
        },
        counts: c,
        agreement,
        policies,
        published: credit::mean_credit(indices.iter().map(|&i| at(i))),
        position: run.both_orders.then(|| position(run, config, indices)),
        pointwise: config
            .pointwise
            .as_ref()
            .map(|p| pointwise(run, p, indices, settings.clone())),
        findings,
    }
}

/// One configuration's scopes (all items, each subset, each analytic's groups) and
/// reward-bench's section scores over its subsets.
fn config_result(
    cx: &Context,
    config: &ConfigRecord,
    subsets: &BTreeMap<&str, Vec<usize>>,
    groupings: &[Grouping],
) -> ConfigResult {
    // Every scope (all items, each subset, each group) on the machine's threads: each draws
    // from its own keyed streams, so they are the same whatever the threads.
    let all: Vec<usize> = (0..cx.run.items.len()).collect();
    let wanted: Vec<&[usize]> = std::iter::once(all.as_slice())
        .chain(subsets.values().map(Vec::as_slice))
        .chain(
            groupings
                .iter()
                .flat_map(|g| g.groups.iter().map(|(_, idx)| idx.as_slice())),
        )
        .collect();
    let mut scopes =
        crate::metrics::random::split(wanted.len(), crate::metrics::random::threads(), |k| {
            cx.scope(config, wanted[k])
        })
        .into_iter();
    let overall = scopes.next().unwrap_or_else(|| cx.scope(config, &all));
    let by_subset: BTreeMap<String, Scope> = subsets
        .keys()
        .map(|name| name.to_string())
        .zip(scopes.by_ref())
        .collect();
    let all_reward_bench = subsets.keys().all(|s| section_of(s).is_some());
    let accuracy = |subset: &str| by_subset.get(subset).map(|s| s.policies.as_wrong.accuracy);
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
    ConfigResult {
        grouped: groupings
            .iter()
            .map(|g| Grouped {
                key: g.key,
                prefix: g.prefix,
                scopes: (g.groups.iter().map(|(name, _)| name.clone()))
                    .zip(scopes.by_ref())
                    .collect(),
            })
            .collect(),
        overall,
        leaderboard,
        sections,
        leaderboard_published,
        sections_published,
        by_subset,
        findings: Findings::default(),
    }
}

/// Evaluates every configuration with each of `analytics`, and compares each pair.
pub fn evaluate(
    run: &RunRecord,
    settings: EvalSettings,
    analytics: &[&dyn Analytic],
) -> Evaluation {
    let cx = Context {
        run,
        settings,
        analytics,
    };
    let subsets = run.subsets();
    let groupings: Vec<Grouping> = analytics.iter().filter_map(|a| a.grouping(&cx)).collect();
    // Each part on the machine's threads: the configurations' scopes, then the analytics beside
    // the paired comparisons. Each draws only from streams keyed by what it computes, so the
    // results are the same whatever the threads.
    let threads = crate::metrics::random::threads();
    let mut configs: Vec<ConfigResult> =
        crate::metrics::random::split(run.configs.len(), threads, |c| {
            config_result(&cx, &run.configs[c], &subsets, &groupings)
        });
    let (found, (comparisons, tested)) = std::thread::scope(|scope| {
        let compared = scope.spawn(|| compare_all(run, cx.settings.clone(), &configs));
        let found: Vec<Found> = crate::metrics::random::split(analytics.len(), threads, |a| {
            analytics[a].run(&cx, &configs)
        });
        let compared = compared
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (found, compared)
    });
    let mut findings = Findings::default();
    for f in found {
        if let Some(r) = f.run {
            findings.put(r);
        }
        for (c, r) in configs.iter_mut().zip(f.configs) {
            if let Some(r) = r {
                c.findings.put(r);
            }
        }
    }
    let standing = standing(run, &configs, &comparisons, cx.settings.sort());
    Evaluation {
        configs,
        comparisons,
        tested,
        findings,
        standing,
    }
}

#[cfg(test)]
mod tests {
    use super::credit::{credit, mean_credit};
    use super::record::fixtures::{config, item};
    use super::*;

    #[test]
    fn policies_and_counts_add_up() {
        let items = vec![item(0, -1), item(1, 1), item(2, 1), item(3, -1), item(4, 1)];
        // The last item was never asked: counted apart, in no measure.
        let outcomes = vec![
            Outcome::Rated(-1),
            Outcome::Rated(0),
            Outcome::NoVerdict,
            Outcome::CallFailed,
            Outcome::NotAsked,
        ];
        let config = config("c", outcomes);
        let run = RunRecord {
            labels: crate::metrics::Labels::pairwise(),
            inputs: Default::default(),
            items: items.into_iter().collect(),
            configs: vec![config.clone()],
            both_orders: false,
            annotators: None,
            shapes: Vec::new(),
            generators: None,
        };
        let cx = Context {
            run: &run,
            settings: EvalSettings::new(0, 0),
            analytics: &[],
        };
        let s = cx.scope(&config, &[0, 1, 2, 3, 4]);
        assert_eq!(
            s.counts,
            Counts {
                examples: 4,
                rated: 2,
                ties: 1,
                no_verdict: 1,
                call_failures: 1,
                cut_off: 0,
                not_asked: 1,
                unlabelled: 0,
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
            it.subset = row["subset"].as_str().expect("subset").into();
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
            labels: crate::metrics::Labels::pairwise(),
            inputs: Default::default(),
            items: items.into_iter().collect(),
            configs: vec![config("judge", outcomes)],
            both_orders: false,
            annotators: None,
            shapes: Vec::new(),
            generators: None,
        };
        let e = evaluate(&run, EvalSettings::new(0, 0), &[]);
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
            (1, Outcome::NotAsked),   // never asked: none, and not counted
        ];
        let got: Vec<Option<f64>> = items.iter().map(|&(g, o)| credit(g, o)).collect();
        let half = Some(0.5);
        assert_eq!(
            got,
            [
                Some(1.0),
                Some(0.0),
                half,
                half,
                half,
                Some(0.0),
                Some(1.0),
                None
            ]
        );
        assert_eq!(mean_credit(items.into_iter()), 3.5 / 7.0);
        assert!(mean_credit(std::iter::empty()).is_nan());
    }
}
