//! AlpacaEval's evaluator measures: an evaluator's annotations against several human
//! annotations per item, as its evaluators leaderboard reports them (human agreement, bias,
//! variance, the preferences for longer outputs, lists and output_1), computed by
//! `alpacaeval.rs`'s mirror of its `analyze.py`, with percentile-bootstrap intervals over items
//! and paired comparisons on human agreement. `analyze` reports them from long-form files,
//! `calibrate` for every configuration when the gold has several annotators.
//!
//! Figures are fractions in [0, 1]; a figure AlpacaEval cannot compute (bias or variance from
//! one sample, a preference over no pair that differs) is `None`.

use super::alpacaeval::{agreement, prefer_first, prefer_lists, prefer_longer, readable, Memo};
pub use super::alpacaeval::{contains_list, preference, random_mode, Annotations, TextShape};
use super::paired::MetricTest;
use super::record::{defined, ConfigRecord, RunRecord};
use super::settings::EvalSettings;
use crate::metrics::random::{stream, Purpose};
use crate::metrics::Resampling;
use crate::metrics::{interval_defined, redraws};
use serde::Serialize;

#[derive(Debug, Clone)]
pub struct Sheets<'a> {
    /// Each item's human annotations: exactly `annotations_per_item` readable ones.
    pub humans: &'a [Annotations],
    pub texts: Option<&'a [TextShape]>,
}

/// One row of AlpacaEval's evaluators table, as fractions in [0, 1].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measures {
    pub human_agreement: Option<f64>,
    pub bias: Option<f64>,
    pub variance: Option<f64>,
    pub prefer_longer: Option<f64>,
    pub prefer_lists: Option<f64>,
    pub prefer_first: Option<f64>,
    /// Readable annotations (AlpacaEval's "# parsed").
    pub parsed: usize,
    pub annotations_per_item: usize,
    /// The most readable annotations (samples) the evaluator has of one item.
    pub samples_per_item: usize,
    /// 95% percentile-bootstrap intervals over items (absent without resamples).
    pub ci: Intervals,
    /// Paired comparisons of its human agreement with the humans' and the longest's.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub versus: Vec<Versus>,
}

/// The humans' own row: one annotator against the others' majority.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HumanMeasures {
    pub human_agreement: Option<f64>,
    pub variance: Option<f64>,
    pub prefer_longer: Option<f64>,
    pub prefer_lists: Option<f64>,
    pub prefer_first: Option<f64>,
    pub parsed: usize,
    pub annotations_per_item: usize,
    pub ci: Intervals,
}

/// Each measure's interval, `[lo, hi]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Intervals {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub human_agreement: Option<[f64; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bias: Option<[f64; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variance: Option<[f64; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefer_longer: Option<[f64; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefer_lists: Option<[f64; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefer_first: Option<[f64; 2]>,
}

/// A paired comparison of an evaluator's human agreement (B, named `evaluator`) with the
/// humans' or the longest output's (A) on the same items: a family of one.
pub type Versus = super::paired::PairedTest;

/// Who is measured against the humans.
#[derive(Debug, Clone, Copy)]
pub enum Who<'a> {
    /// The humans themselves (one annotator against the others).
    Humans,
    /// An evaluator's annotations of each item (empty: the item was not annotated).
    Evaluator(&'a [Annotations]),
}

fn figures(memo: &Memo, sheets: &Sheets, who: Who, weights: &[u64]) -> [f64; 6] {
    let humans = sheets.humans;
    let (items, agreement_, bias, variance) = match who {
        Who::Humans => {
            let a = human_agreement(memo, sheets, who, weights);
            (humans, a, 0.0, 1.0 - a)
        }
        Who::Evaluator(items) => {
            let several = items.iter().any(|i| i.len() > 1);
            (
                items,
                human_agreement(memo, sheets, who, weights),
                if several {
                    1.0 - agreement(memo, (items, humans), false, (None, None), weights)
                } else {
                    f64::NAN
                },
                1.0 - agreement(memo, (items, items), true, (Some(1), None), weights),
            )
        }
    };
    let (longer, lists) = match sheets.texts {
        Some(texts) => (
            prefer_longer(items, texts, weights),
            prefer_lists(items, texts, weights),
        ),
        None => (f64::NAN, f64::NAN),
    };
    [
        agreement_,
        bias,
        variance,
        longer,
        lists,
        prefer_first(items, weights),
    ]
}

/// One annotation against the humans' majority (the humans: one against the others').
fn human_agreement(memo: &Memo, sheets: &Sheets, who: Who, weights: &[u64]) -> f64 {
    let humans = sheets.humans;
    match who {
        Who::Humans => agreement(memo, (humans, humans), true, (Some(1), None), weights),
        Who::Evaluator(items) => agreement(memo, (items, humans), false, (Some(1), None), weights),
    }
}

/// The interval (at `r.level`) of each figure over `r.resamples` redraws of the items.
fn intervals(
    r: Resampling,
    n: usize,
    figures: impl Fn(&[u64]) -> Vec<f64>,
) -> Vec<Option<[f64; 2]>> {
    if r.resamples == 0 || n == 0 {
        return Vec::new();
    }
    let mut rng = stream(r.seed, Purpose::Evaluator, 0);
    let width = figures(&vec![1; n]).len();
    redraws(&vec![1; n], r.resamples, width, &mut rng, figures)
        .iter_mut()
        .map(|draws| interval_defined(draws, r.level))
        .collect()
}

fn to_intervals(ci: &[Option<[f64; 2]>], point: &[f64; 6]) -> Intervals {
    let at = |k: usize| {
        ci.get(k)
            .copied()
            .flatten()
            .filter(|_| point[k].is_finite())
    };
    Intervals {
        human_agreement: at(0),
        bias: at(1),
        variance: at(2),
        prefer_longer: at(3),
        prefer_lists: at(4),
        prefer_first: at(5),
    }
}

/// An evaluator's row.
pub fn evaluator(sheets: &Sheets, items: &[Annotations], r: Resampling) -> Measures {
    let memo = Memo::default();
    let all = vec![1; items.len()];
    let point = figures(&memo, sheets, Who::Evaluator(items), &all);
    let ci = intervals(r, items.len(), |w| {
        figures(&memo, sheets, Who::Evaluator(items), w).to_vec()
    });
    Measures {
        human_agreement: defined(point[0]),
        bias: defined(point[1]),
        variance: defined(point[2]),
        prefer_longer: defined(point[3]),
        prefer_lists: defined(point[4]),
        prefer_first: defined(point[5]),
        parsed: items.iter().map(readable).sum(),
        annotations_per_item: sheets.humans.iter().map(readable).max().unwrap_or(0),
        samples_per_item: items.iter().map(readable).max().unwrap_or(0),
        ci: to_intervals(&ci, &point),
        versus: Vec::new(),
    }
}

/// The humans' own row.
pub fn humans(sheets: &Sheets, r: Resampling) -> HumanMeasures {
    let memo = Memo::default();
    let n = sheets.humans.len();
    let point = figures(&memo, sheets, Who::Humans, &vec![1; n]);
    let ci = intervals(r, n, |w| figures(&memo, sheets, Who::Humans, w).to_vec());
    HumanMeasures {
        human_agreement: defined(point[0]),
        variance: defined(point[2]),
        prefer_longer: defined(point[3]),
        prefer_lists: defined(point[4]),
        prefer_first: defined(point[5]),
        parsed: sheets.humans.iter().map(readable).sum(),
        annotations_per_item: sheets.humans.iter().map(readable).max().unwrap_or(0),
        ci: Intervals {
            bias: None,
            ..to_intervals(&ci, &point)
        },
    }
}

/// AlpacaEval's `longest` evaluator: output_1 when it is strictly longer, else output_2, as
/// many times per item as the humans annotated it (`_get_longest_predictor`).
pub fn longest(humans: &[Annotations], texts: &[TextShape]) -> Vec<Annotations> {
    humans
        .iter()
        .zip(texts)
        .map(|(item, t)| {
            let p = if t.length[0] > t.length[1] { 1.0 } else { 2.0 };
            vec![Some(p); item.len()]
        })
        .collect()
}

/// Human agreement of `a` minus that of `b` on the same resamples of the items.
pub fn versus(
    sheets: &Sheets,
    a: Who,
    b: (&str, Who),
    (resamples, seed): (usize, u64),
    alpha: f64,
) -> Versus {
    // A family of one: Holm leaves p as it is, and the interval is at 1 − α.
    let mut test = agreement_test(sheets, (a, b.1), resamples, seed);
    super::paired::adjust_holm(std::iter::once(&mut test), alpha);
    test.shaped(b.0, "evaluator", "human_agreement")
}

/// The paired test of `a`'s human agreement minus `b`'s on the same resamples of the items.
fn agreement_test(sheets: &Sheets, (a, b): (Who, Who), resamples: usize, seed: u64) -> MetricTest {
    let n = sheets.humans.len();
    let memo = Memo::default();
    let diff =
        |w: &[u64]| human_agreement(&memo, sheets, a, w) - human_agreement(&memo, sheets, b, w);
    let point = diff(&vec![1; n]);
    if resamples == 0 || n == 0 {
        return MetricTest::untested(point);
    }
    let mut rng = stream(seed, Purpose::EvaluatorTest, 0);
    let draws = redraws(&vec![1; n], resamples, 1, &mut rng, |w| vec![diff(w)])
        .pop()
        .unwrap_or_default();
    MetricTest::from_draws(point, &draws)
}

/// An evaluator's row over the items it annotated, compared with the humans and (with texts)
/// the longest output on them.
fn judged_row(
    all: &Sheets,
    judged: &[Annotations],
    longest_items: Option<&[Annotations]>,
    (resamples, seed): (usize, u64),
    alpha: f64,
) -> Measures {
    let (humans, texts) = (all.humans, all.texts);
    let keep: Vec<usize> = (0..humans.len())
        .filter(|&i| !judged[i].is_empty())
        .collect();
    let pick =
        |v: &[Annotations]| -> Vec<Annotations> { keep.iter().map(|&i| v[i].clone()).collect() };
    let (sub_humans, sub_judged) = (pick(humans), pick(judged));
    let sub_texts: Option<Vec<TextShape>> = texts.map(|t| keep.iter().map(|&i| t[i]).collect());
    let sub = Sheets {
        humans: &sub_humans,
        texts: sub_texts.as_deref(),
    };
    let level = 1.0 - alpha;
    let r = Resampling {
        resamples,
        seed,
        level,
    };
    let mut evaluator_row = evaluator(&sub, &sub_judged, r);
    evaluator_row.versus.push(versus(
        &sub,
        Who::Evaluator(&sub_judged),
        ("humans", Who::Humans),
        (resamples, seed),
        alpha,
    ));
    if let Some(l) = longest_items {
        let sub_longest = pick(l);
        evaluator_row.versus.push(versus(
            &sub,
            Who::Evaluator(&sub_judged),
            ("longest", Who::Evaluator(&sub_longest)),
            (resamples, seed),
            alpha,
        ));
    }
    evaluator_row
}

/// A configuration's annotations of each item: its sc:N samples, its jury members' ratings,
/// or its one rating (`None`: no verdict, AlpacaEval's unparsed).
pub fn config_sheet(run: &RunRecord, config: &ConfigRecord) -> Vec<Annotations> {
    let of = |v: Option<i64>| v.and_then(preference);
    (0..run.items.len())
        .map(|i| {
            if let Some(samples) = &config.samples {
                samples[i].iter().map(|&v| of(v)).collect()
            } else if let Some(jury) = &config.jury {
                jury.members
                    .iter()
                    .map(|&m| of(run.configs[m].outcomes[i].rating()))
                    .collect()
            } else {
                vec![of(config.outcomes[i].rating())]
            }
        })
        .collect()
}

/// The sheets as a file gives them (AlpacaEval's annotations: the weighted judge's preference,
/// a human's where given, every sample of the judge), read in place of the labels' 1, 1.5, 2:
/// `analyze`'s long form puts them into the record's inputs.
#[derive(Debug, Clone, PartialEq)]
pub struct Preferences {
    /// Each item's annotators' preferences.
    pub humans: Vec<Annotations>,
    /// Per configuration, each item's preferences by the judge's samples (empty: not judged).
    pub judges: Vec<Vec<Annotations>>,
}

/// A calibrate run's evaluator measures beside its configurations': the humans' own row,
/// the longest output's, and the best configuration against each other one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunMeasures {
    pub humans: HumanMeasures,
    pub longest: Option<Measures>,
    pub against_best: Vec<super::paired::PairedTest>,
}

/// Every configuration's row (None for a configuration without a readable rating) and the
/// run's, when the gold is the majority of several annotators with pairwise labels.
pub fn of_run(
    run: &RunRecord,
    settings: EvalSettings,
) -> Option<(RunMeasures, Vec<Option<Measures>>)> {
    let a = run.annotators.as_ref()?;
    let given = run.inputs.get::<Preferences>();
    let humans: Vec<Annotations> = match given {
        Some(p) => p.humans.clone(),
        None => (0..a.votes.len())
            .map(|k| {
                let votes = a.in_file_order(k);
                votes.iter().map(|&l| l.and_then(preference)).collect()
            })
            .collect(),
    };
    if humans.iter().flatten().any(Option::is_none) || humans.is_empty() {
        return None;
    }
    let texts: Option<Vec<TextShape>> = (run.shapes.len() == run.items.len()).then(|| {
        run.shapes
            .iter()
            .map(|[a, b]| TextShape {
                length: [a.chars as usize, b.chars as usize],
                list: [a.alpaca_list, b.alpaca_list],
            })
            .collect()
    });
    let (resamples, seed) = (settings.bootstrap, settings.seed);
    let all = Sheets {
        humans: &humans,
        texts: texts.as_deref(),
    };
    let longest_items = texts.as_deref().map(|t| longest(&humans, t));
    // The humans' and the longest's rows once for the run, each configuration's own.
    let sheets: Vec<Vec<Annotations>> = run
        .configs
        .iter()
        .enumerate()
        .map(|(i, c)| match given.and_then(|p| p.judges.get(i)) {
            Some(sheet) => sheet.clone(),
            None => config_sheet(run, c),
        })
        .collect();
    let rows: Vec<Option<Measures>> = sheets
        .iter()
        .map(|judged| {
            let any = judged.iter().flatten().any(Option::is_some);
            any.then(|| {
                let longest = longest_items.as_deref();
                judged_row(&all, judged, longest, (resamples, seed), settings.alpha)
            })
        })
        .collect();
    let best = super::ranking::best_of(
        rows.iter()
            .enumerate()
            .filter_map(|(i, r)| Some((i, r.as_ref()?.human_agreement?))),
    );
    let against_best = match best {
        None => Vec::new(),
        Some(b) => super::paired::against_best(
            &run.configs[b].name,
            "human_agreement",
            (0..run.configs.len())
                .filter(|&i| i != b && rows[i].is_some())
                .map(|i| {
                    let pair = (Who::Evaluator(&sheets[b]), Who::Evaluator(&sheets[i]));
                    let test = agreement_test(&all, pair, resamples, seed);
                    (run.configs[i].name.clone(), test)
                })
                .collect(),
            settings.alpha,
        ),
    };
    Some((
        RunMeasures {
            humans: self::humans(&all, settings.resampling()),
            longest: longest_items.map(|l| evaluator(&all, &l, settings.resampling())),
            against_best,
        },
        rows,
    ))
}

/// AlpacaEval's evaluator measures: the run's humans and longest rows, each configuration's.
#[derive(Debug)]
pub struct EvaluatorAnalytic;

impl super::Analytic for EvaluatorAnalytic {
    fn run(&self, cx: &super::Context, _configs: &[super::ConfigResult]) -> super::Found {
        of_run(cx.run, cx.settings.clone()).map_or_else(Default::default, |(run, rows)| {
            super::Found {
                run: super::analytic::kept(Some(run)),
                configs: rows.into_iter().map(super::analytic::kept).collect(),
            }
        })
    }
}
