//! Can the judge replace a human annotator? The alternative annotator test
//! (`metrics::alt_test`, exactly the authors' procedure) for each configuration wherever the
//! record has several annotators, and the judges' advantage probabilities compared in pairs
//! (a paired bootstrap over the items, Holm over the pairs, each interval at the level of the
//! step that decided its pair).

use super::paired::{adjust_holm, MetricTest, PairedTest};
use crate::metrics::alt_test::{self, Duels, Minimums, Score};
use crate::metrics::Labels;
use serde::{Deserialize, Serialize};

/// ε as the authors recommend it, by who the annotators are.
pub const RECOMMENDED: &str = "0.2 for experts, 0.15 for skilled annotators, 0.1 for crowd workers";

/// `--alt-test EPSILON` and its options; the test runs when `epsilon` is given.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct AltTestSettings {
    /// The cost-benefit margin ε (`--alt-test`).
    pub epsilon: Option<f64>,
    /// `--alt-test-score` (None: by the scale, `Scoring::of`).
    pub score: Option<Score>,
    /// `--alt-test-min-annotators` (None: 2).
    pub min_annotators: Option<usize>,
    /// `--alt-test-min-items` (None: 30).
    pub min_items: Option<usize>,
}

impl AltTestSettings {
    /// The minimums asked, else the authors'.
    pub fn minimums(&self) -> Minimums {
        let d = Minimums::default();
        Minimums {
            annotators: self.min_annotators.unwrap_or(d.annotators),
            items: self.min_items.unwrap_or(d.items),
        }
    }

    /// `--alt-test`'s values checked: ε in [0, 1), the minimums at least 2 and 1.
    pub fn checked(self) -> anyhow::Result<Self> {
        let bad = |m: String| Err(crate::error::input_error(m));
        if let Some(e) = self.epsilon {
            if !(0.0..1.0).contains(&e) {
                return bad(format!("--alt-test {e}: ε is a margin from 0 to 1 (the authors recommend {RECOMMENDED})"));
            }
        } else if self.score.is_some() || self.min_annotators.is_some() || self.min_items.is_some()
        {
            return bad("--alt-test-score and --alt-test-min-* set the alt-test; turn it on with --alt-test EPSILON (e.g. --alt-test 0.1)".into());
        }
        if self.min_annotators.is_some_and(|m| m < 2) {
            return bad("--alt-test-min-annotators: an item needs at least 2 annotators (one left out, one to score against)".into());
        }
        if self.min_items == Some(0) {
            return bad("--alt-test-min-items: an annotator needs at least 1 item".into());
        }
        Ok(self)
    }
}

/// The scoring used, and why.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scoring {
    pub score: Score,
    /// "asked", or the scale that chose it ("graded labels", "categories").
    pub why: &'static str,
}

impl Scoring {
    /// `asked`, else accuracy for categories and pairwise verdicts and neg_rmse for graded
    /// labels (three or more whole numbers that are not the pairwise -1, 0, 1).
    pub fn of(asked: Option<Score>, labels: &Labels, named: bool) -> Scoring {
        match asked {
            Some(score) => Scoring {
                score,
                why: "asked",
            },
            None if !named && labels.len() > 2 && !labels.fits_pairwise() => Scoring {
                score: Score::NegRmse,
                why: "the default for graded labels",
            },
            None => Scoring {
                score: Score::Accuracy,
                why: "the default for categories and verdicts",
            },
        }
    }
}

/// One annotator tested.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnnotatorTest {
    pub name: String,
    /// Its items that count.
    pub n: usize,
    /// The one-sided t-test's p-value (null where scipy's is NaN: one item, or 0/0).
    pub p_value: f64,
    /// Rejected by Benjamini–Yekutieli at q: the judge beats this annotator.
    pub beaten: bool,
    /// The share of its items on which the judge scored at least as well as it.
    pub advantage: f64,
}

/// An annotator left out of the test: fewer items than the minimum.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LeftOutAnnotator {
    pub name: String,
    pub n: usize,
}

/// One configuration's alt-test (`alt_test` in `--json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AltTest {
    pub epsilon: f64,
    pub score: Score,
    /// Why that scoring: "asked", or the scale's default.
    pub score_reason: &'static str,
    /// The FDR level of Benjamini–Yekutieli (`--alpha`).
    pub q: f64,
    /// ω: the share of the annotators tested that the judge beats (null: none tested).
    pub winning_rate: f64,
    /// ρ: the mean over annotators of the share of items the judge wins (null: none tested).
    pub advantage_probability: f64,
    /// ω ≥ 0.5.
    pub passed: bool,
    /// Items with at least `min_annotators` annotators and the judge's label.
    pub n_items: usize,
    /// Items some annotator labelled that do not count.
    pub dropped_items: usize,
    pub min_annotators: usize,
    pub min_items: usize,
    pub annotators: Vec<AnnotatorTest>,
    pub left_out: Vec<LeftOutAnnotator>,
    /// Who won each item (for the paired comparisons).
    #[serde(skip)]
    pub duels: Duels,
}

impl AltTest {
    /// Whether any annotator was tested.
    pub fn tested(&self) -> bool {
        !self.annotators.is_empty()
    }

    /// How many annotators the judge beats.
    pub fn beaten(&self) -> usize {
        self.annotators.iter().filter(|a| a.beaten).count()
    }
}

/// The test of one judge's `labels` against the annotators' `votes`.
pub fn alt_test(
    names: &[String],
    votes: &[Vec<Option<i64>>],
    judge: &[Option<i64>],
    scoring: Scoring,
    settings: &AltTestSettings,
    q: f64,
) -> Option<AltTest> {
    let epsilon = settings.epsilon?;
    let min = settings.minimums();
    let duels = alt_test::duels(votes, judge, scoring.score, min);
    let test = alt_test::test(&duels, epsilon, q);
    Some(AltTest {
        epsilon,
        score: scoring.score,
        score_reason: scoring.why,
        q,
        passed: test.passed(),
        winning_rate: test.winning_rate,
        advantage_probability: test.advantage_probability,
        n_items: duels.items,
        dropped_items: duels.dropped,
        min_annotators: min.annotators,
        min_items: min.items,
        annotators: (test.annotators.iter())
            .map(|t| AnnotatorTest {
                name: names[t.annotator].clone(),
                n: t.n,
                p_value: t.p_value,
                beaten: t.beaten,
                advantage: t.advantage,
            })
            .collect(),
        left_out: (duels.too_few.iter())
            .map(|&(a, n)| LeftOutAnnotator {
                name: names[a].clone(),
                n,
            })
            .collect(),
        duels,
    })
}

/// The judges' advantage probabilities compared, every pair (B − A on the items both judged),
/// Holm over the pairs at α.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AltTestComparisons {
    pub metric: &'static str,
    pub tests: Vec<PairedTest>,
    /// The highest advantage probability (configuration index) against the next, their test
    /// read as leader − next (B the leader), the answer's line.
    #[serde(skip)]
    pub leader: Option<(usize, usize, PairedTest)>,
}

/// Every pair of `tests` (configuration index, name, test) compared on ρ.
pub fn compare(
    tests: &[(usize, &str, &AltTest)],
    resamples: usize,
    seed: u64,
    alpha: f64,
) -> AltTestComparisons {
    // A configuration's index and name.
    type Side<'a> = (usize, &'a str);
    // A, B and their test of B − A.
    let mut found: Vec<(Side, Side, MetricTest)> = Vec::new();
    for (x, &(ia, na, a)) in tests.iter().enumerate() {
        for &(ib, nb, b) in &tests[x + 1..] {
            let index = crate::metrics::random::pair(ia, ib);
            let t = match alt_test::advantage_difference(&a.duels, &b.duels, resamples, seed, index)
            {
                Some((diff, draws)) => MetricTest::from_draws(diff, &draws),
                None => MetricTest::untested(f64::NAN),
            };
            found.push(((ia, na), (ib, nb), t));
        }
    }
    adjust_holm(found.iter_mut().map(|(_, _, t)| t), alpha);
    // The leader by ρ (the first of equals) and the next, their pair read leader − next.
    let mut by_rho: Vec<&(usize, &str, &AltTest)> = tests.iter().collect();
    by_rho.sort_by(|x, y| {
        y.2.advantage_probability
            .total_cmp(&x.2.advantage_probability)
    });
    let leader = match by_rho[..] {
        [&(best, nb, _), &(next, nn, _), ..] => found.iter().find_map(|&((ia, _), (ib, _), t)| {
            match (ia, ib) {
                (a, b) if (a, b) == (next, best) => Some(t),
                (a, b) if (a, b) == (best, next) => Some(t.reversed()),
                _ => None,
            }
            .map(|t| (best, next, t.shaped(nn, nb, "advantage_probability")))
        }),
        _ => None,
    };
    AltTestComparisons {
        metric: "advantage_probability",
        leader,
        tests: found
            .iter()
            .map(|((_, a), (_, b), t)| t.shaped(a, b, "advantage_probability"))
            .collect(),
    }
}

/// The alt-test of each configuration, and their comparisons over the run.
#[derive(Debug)]
pub struct AltTestAnalytic;

impl super::Analytic for AltTestAnalytic {
    fn run(&self, cx: &super::Context, _configs: &[super::ConfigResult]) -> super::Found {
        let settings = cx.settings.option::<AltTestSettings>();
        let Some(a) = cx.run.annotators.as_ref() else {
            return super::Found::default();
        };
        if settings.epsilon.is_none() {
            return super::Found::default();
        }
        let scoring = Scoring::of(settings.score, &cx.run.labels, !a.label_names.is_empty());
        let results: Vec<Option<AltTest>> = (cx.run.configs.iter())
            .map(|c| {
                let judge: Vec<Option<i64>> = c.outcomes.iter().map(|o| o.rating()).collect();
                alt_test(
                    &a.names,
                    &a.votes,
                    &judge,
                    scoring,
                    &settings,
                    cx.settings.alpha,
                )
            })
            .collect();
        let tested: Vec<(usize, &str, &AltTest)> = (results.iter().enumerate())
            .filter_map(|(i, r)| Some((i, cx.run.configs[i].name.as_str(), r.as_ref()?)))
            .filter(|(_, _, r)| r.tested())
            .collect();
        let run = (tested.len() > 1).then(|| {
            super::analytic::kept(Some(compare(
                &tested,
                cx.settings.bootstrap,
                cx.settings.seed,
                cx.settings.alpha,
            )))
        });
        super::Found {
            run: run.flatten(),
            configs: results.into_iter().map(super::analytic::kept).collect(),
        }
    }
}
