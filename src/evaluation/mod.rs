//! The analyze stage of `calibrate` and `report`: ratings of every configuration on the same
//! items → per-scope agreement, parse-failure policies, position bias, reward-bench section
//! scores and paired comparisons. Pure: the input is a [`RunRecord`], the output plain values.

pub mod annotators;
pub mod bias;
mod compare;
pub mod consistency;
pub mod credit;
pub mod groups;
pub mod plan;
mod pointwise;
mod position;
pub mod rewardbench2;

pub use compare::{compare_all, Comparison, Finding, MetricTest, Power};
pub use pointwise::{pointwise, PointwiseStats};
pub use position::{position, JudgeBench, LlmBar, Position};

use crate::dataset::examples::Order;
use crate::dataset::sections::{leaderboard_score, section_of, section_score, Section};
use crate::metrics::{bootstrap_table, Agreement, Contingency, Labels, Statistic};
use std::collections::BTreeMap;

/// `part / of`, NaN when `of` is 0: every rate in the evaluation.
pub(crate) fn share(part: u64, of: u64) -> f64 {
    if of == 0 {
        f64::NAN
    } else {
        part as f64 / of as f64
    }
}

/// One item as the judge saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemRow {
    pub id: String,
    pub pair_id: String,
    pub subset: String,
    pub order: Order,
    pub gold: i64,
    /// Whether this is the pair's seeded position (the order a one-order run shows).
    pub seeded: bool,
}

/// How an item ended for a configuration (mirrors `raters::Status`, kept here so that
/// `report DIR` can rebuild it from files).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Rated(i64),
    NoVerdict,
    CallFailed,
}

impl Outcome {
    /// An item's outcome from its rating and status.
    pub fn of(rating: Option<i64>, status: crate::raters::Status) -> Self {
        use crate::raters::Status;
        match (status, rating) {
            (Status::Rated, Some(v)) => Outcome::Rated(v),
            (Status::NoVerdict, _) => Outcome::NoVerdict,
            _ => Outcome::CallFailed,
        }
    }
}

impl From<&crate::raters::Rating> for Outcome {
    fn from(r: &crate::raters::Rating) -> Self {
        Self::of(r.rating, r.status)
    }
}

impl From<&crate::raters::RatingRow> for Outcome {
    fn from(r: &crate::raters::RatingRow) -> Self {
        Self::of(r.rating, r.status)
    }
}

impl Outcome {
    pub fn rating(self) -> Option<i64> {
        match self {
            Outcome::Rated(v) => Some(v),
            _ => None,
        }
    }
}

/// Cost and time of one configuration.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Cost {
    pub calls: u64,
    pub cache_hits: u64,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub wall_seconds: f64,
}

/// One configuration's outcomes, aligned with the run's items.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigRecord {
    pub name: String,
    pub prompt: String,
    pub rater: String,
    pub judge: String,
    pub simulated: bool,
    pub outcomes: Vec<Outcome>,
    pub cost: Cost,
    /// Why items have no rating (the parser's reason or the call's error), with how many
    /// items each; most common first.
    pub reasons: Vec<(String, usize)>,
    /// Pointwise configurations: each item's grades of response 1 and 2, and how they were
    /// compared.
    pub pointwise: Option<PointwiseRecord>,
    /// Self-consistency (sc:N, pairwise): every item's N sample verdicts (None: no verdict).
    pub samples: Option<Vec<Vec<Option<i64>>>>,
}

/// A pointwise configuration's grades, aligned with the run's items.
#[derive(Debug, Clone, PartialEq)]
pub struct PointwiseRecord {
    pub grades: Vec<(Option<f64>, Option<f64>)>,
    pub tie_margin: f64,
    /// The lowest grade of the scale (the `lowest` rule's stand-in), when there is a scale.
    pub lowest: Option<f64>,
    /// Whether the judge ignores the order (a scores file): its position rules are no-ops.
    pub order_blind: bool,
}

/// Counts equal reasons, most common first (ties by text, so the order is stable).
pub fn tally<'a>(reasons: impl Iterator<Item = &'a str>) -> Vec<(String, usize)> {
    let mut counts: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for r in reasons {
        *counts.entry(r).or_default() += 1;
    }
    let mut out: Vec<(String, usize)> = counts
        .into_iter()
        .map(|(r, n)| (r.to_string(), n))
        .collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}

/// Everything `calibrate` rated, in the form `report DIR` reads back.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRecord {
    pub items: Vec<ItemRow>,
    pub configs: Vec<ConfigRecord>,
    pub both_orders: bool,
    /// Several annotators' labels per item, when gold is their majority.
    pub annotators: Option<Annotations>,
    /// Each item's two responses as shown (length, lists, headers, bold), for the bias
    /// diagnostics; empty when the texts are not at hand (a run directory without items.jsonl).
    pub shapes: Vec<[bias::Shape; 2]>,
}

/// Every annotator's label per item (in the item's order, like gold).
#[derive(Debug, Clone, PartialEq)]
pub struct Annotations {
    pub names: Vec<String>,
    /// `votes[item][annotator]`.
    pub votes: Vec<Vec<i64>>,
    /// Pairs without a majority, and what was done with them (`drop` or `tie`).
    pub no_majority: usize,
    pub policy: String,
}

/// Evaluation settings.
#[derive(Debug, Clone, Copy)]
pub struct EvalSettings {
    pub bootstrap: usize,
    pub seed: u64,
}

/// `{examples, rated, ties, no_verdict, call_failures}`; rated + no_verdict + call_failures
/// = examples.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub examples: usize,
    pub rated: usize,
    pub ties: usize,
    pub no_verdict: usize,
    pub call_failures: usize,
}

/// The headline metrics under one parse-failure policy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Headline {
    pub n: u64,
    pub accuracy: f64,
    pub kappa: f64,
    pub kappa_quadratic: f64,
}

/// Headline metrics when items without a verdict are dropped (the notebook's silent rule),
/// counted as wrong, or counted as ties.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Policies {
    pub drop: Headline,
    pub as_wrong: Headline,
    pub as_tie: Headline,
}

/// Results for a set of items (overall, or one subset).
#[derive(Debug, Clone, PartialEq)]
pub struct Scope {
    pub counts: Counts,
    /// Share of items with a verdict.
    pub parse_rate: f64,
    /// Full statistics under the `drop` policy.
    pub agreement: Agreement,
    pub policies: Policies,
    /// With both orders.
    pub position: Option<Position>,
    /// Length, list, header, bold and position preferences, judge beside gold (None without
    /// the responses' shapes).
    pub bias: Option<bias::Bias>,
    /// Pointwise configurations: the grades' statistics.
    pub pointwise: Option<PointwiseStats>,
    /// reward-bench's published credit: the mean of 1 (right), 0 (wrong) and 0.5 (a tie, no
    /// verdict or a failed call), NaN for no items (`credit`).
    pub published: f64,
}

/// One configuration's evaluation.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigResult {
    pub overall: Scope,
    pub by_subset: BTreeMap<String, Scope>,
    /// reward-bench section scores (accuracy, items without a verdict counted wrong), for the
    /// sections whose subsets are all present, and the leaderboard score when all four are.
    pub sections: BTreeMap<&'static str, f64>,
    pub leaderboard: Option<f64>,
    /// The same under reward-bench's published credit (a tie, no verdict or a failed call is
    /// worth 0.5), as `scripts/run_generative.py` scores LLM judges.
    pub sections_published: BTreeMap<&'static str, f64>,
    pub leaderboard_published: Option<f64>,
    /// With several annotators: theirs and this judge's agreement, the ceiling beside it.
    pub annotators: Option<annotators::AnnotatorReport>,
    /// The length-adjusted preference model over every item (None without shapes, or when it
    /// cannot be fitted).
    pub length_model: Option<bias::LengthModel>,
    /// sc:N: what every k = 1..N would have scored under each vote rule, and the bias and
    /// variance of its votes.
    pub consistency: Option<consistency::Consistency>,
}

/// The whole evaluation.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    pub configs: Vec<ConfigResult>,
    pub comparisons: Vec<Comparison>,
    /// Per scope, the configurations indistinguishable from the best (Holm-adjusted).
    pub groups: groups::Groups,
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

/// The wrong answer for an item without a verdict under `as-wrong`.
pub fn wrong_for(gold: i64) -> i64 {
    if gold == 0 {
        1
    } else {
        -gold
    }
}

/// Counts of outcomes.
pub fn counts(outcomes: &[Outcome]) -> Counts {
    let mut c = Counts {
        examples: outcomes.len(),
        ..Counts::default()
    };
    for o in outcomes {
        match o {
            Outcome::Rated(v) => {
                c.rated += 1;
                c.ties += usize::from(*v == 0);
            }
            Outcome::NoVerdict => c.no_verdict += 1,
            Outcome::CallFailed => c.call_failures += 1,
        }
    }
    c
}

fn table(gold: &[i64], rating: &[i64]) -> Contingency {
    Contingency::from_pairs(&Labels::pairwise(), gold, rating).unwrap_or_else(|_| {
        // Gold and ratings are always in -1..=1 here; an empty table keeps going regardless.
        Contingency::from_counts(Labels::pairwise(), vec![0; 9])
    })
}

fn headline(gold: &[i64], rating: &[i64]) -> Headline {
    let a = Agreement::of(table(gold, rating));
    Headline {
        n: a.n,
        accuracy: a.get(Statistic::Accuracy),
        kappa: a.get(Statistic::Kappa),
        kappa_quadratic: a.get(Statistic::KappaQuadratic),
    }
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
    }
}

/// Evaluates every configuration and compares each pair.
pub fn evaluate(run: &RunRecord, settings: EvalSettings) -> Evaluation {
    let all: Vec<usize> = (0..run.items.len()).collect();
    let mut subsets: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, item) in run.items.iter().enumerate() {
        subsets.entry(item.subset.as_str()).or_default().push(i);
    }
    let configs: Vec<ConfigResult> = run
        .configs
        .iter()
        .map(|config| {
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
            ConfigResult {
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
        groups: groups::groups(run, &configs),
        configs,
        comparisons: compare_all(run, settings),
    }
}

/// Records for the unit tests of this module and its children.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;

    /// Item `i` of subset "s", shown as in the source.
    pub fn item(i: usize, gold: i64) -> ItemRow {
        ItemRow {
            id: format!("s-{i}"),
            pair_id: format!("s-{i}"),
            subset: "s".into(),
            order: Order::AsSource,
            gold,
            seeded: true,
        }
    }

    /// A metric test whose p-value is already adjusted.
    pub fn metric_test(diff: f64, ci: (f64, f64), p_holm: f64) -> super::MetricTest {
        super::MetricTest {
            diff,
            ci,
            p: p_holm,
            p_holm,
        }
    }

    /// A basic-rater configuration with these outcomes.
    pub fn config(name: &str, outcomes: Vec<Outcome>) -> ConfigRecord {
        ConfigRecord {
            name: name.into(),
            prompt: "p".into(),
            rater: "basic".into(),
            judge: "j".into(),
            simulated: false,
            outcomes,
            cost: Cost::default(),
            reasons: Vec::new(),
            pointwise: None,
            samples: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::{config, item};
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
        };
        let s = scope(
            &run,
            &config,
            &[0, 1, 2, 3],
            EvalSettings {
                bootstrap: 0,
                seed: 0,
            },
        );
        assert_eq!(
            s.counts,
            Counts {
                examples: 4,
                rated: 2,
                ties: 1,
                no_verdict: 1,
                call_failures: 1
            }
        );
        assert_eq!(s.parse_rate, 0.5);
        assert_eq!(s.policies.drop.accuracy, 0.5);
        assert_eq!(s.policies.as_wrong.accuracy, 0.25);
        assert_eq!(s.policies.as_tie.accuracy, 0.25);
        assert_eq!(s.policies.as_wrong.n, 4);
        assert_eq!(s.agreement.n, 2);
    }
}
