//! Corrected estimates: a judge run over many unlabelled items, corrected by the few items
//! humans labelled (`--estimate`). The outcome is the share of items whose label is L; each
//! estimate has a two-sided 1 − α interval:
//! - the judge alone, over every item it rated;
//! - the humans alone (ppi_py's `classical_mean_ci`);
//! - PPI (λ = 1) and PPI++ (λ tuned as ppi_py tunes it), which use both (`metrics::ppi`);
//! - Rogan–Gladen: the judge's rate on the unlabelled items corrected by its sensitivity and
//!   specificity on the labelled ones, with Lee et al.'s interval;
//!
//! and the judge's worth in human labels, the effective sample size n·var(humans)/var(PPI++).
//! With the models that wrote each pair's responses, prediction-powered ranking
//! (`metrics::ppr`): each model's win rate and rank-set from the humans alone, the judge alone
//! and both. Where an estimate cannot be made (no labelled item, no unlabelled one, a judge no
//! better than chance for Rogan–Gladen), it is absent and a note says why.

use crate::metrics::ppi::{
    classical_mean_ci, ppi_lambda, ppi_mean_ci, rogan_gladen, rogan_gladen_ci, MeanCi,
};
use serde::Serialize;

pub use super::estimate_systems::{systems, Match, ModelEstimate, Ranked, SystemsEstimate};

/// `--estimate-label` and `--alpha`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EstimateSettings {
    pub label: i64,
    pub alpha: f64,
}

impl Default for EstimateSettings {
    fn default() -> Self {
        Self {
            label: -1,
            alpha: crate::evaluation::paired::ALPHA,
        }
    }
}

/// A point estimate and its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    pub estimate: f64,
    pub ci: [f64; 2],
}

impl From<MeanCi> for Interval {
    fn from(m: MeanCi) -> Self {
        Self {
            estimate: m.estimate,
            ci: [m.ci.0, m.ci.1],
        }
    }
}

/// PPI++: its interval and the λ it was tuned to.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Tuned {
    #[serde(flatten)]
    pub interval: Interval,
    pub lambda: f64,
}

/// Rogan–Gladen: the estimate (clipped to [0, 1]; `clipped` says when it was), Lee et al.'s
/// interval, and the judge's sensitivity and specificity on the labelled items.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RoganGladen {
    #[serde(flatten)]
    pub interval: Interval,
    pub sensitivity: f64,
    pub specificity: f64,
    pub clipped: bool,
}

/// The mean of the outcome by each method (None: it could not be made; `notes` say why).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Means {
    pub judge: Option<Interval>,
    pub humans: Option<Interval>,
    pub ppi: Option<Interval>,
    pub ppi_plus: Option<Tuned>,
    pub rogan_gladen: Option<RoganGladen>,
    /// `--label-prob`: active labelling's estimate, mean(p + (y − p)·ξ/π).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active: Option<Active>,
}

/// The active estimate (Zrnic and Candès, 2024), and whether it leads: it does unless every
/// item had the same π (a uniform draw, where PPI++ is at least as narrow).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Active {
    #[serde(flatten)]
    pub interval: Interval,
    pub constant_pi: bool,
    pub leads: bool,
}

/// What `--estimate` found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    pub label: i64,
    /// The gold value the label is read from (`--gold-map model_a=-1`: `model_a`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label_name: Option<String>,
    pub n_labelled: usize,
    pub n_unlabelled: usize,
    pub alpha: f64,
    pub mean: Means,
    /// The human labels the corrected (PPI++) estimate is worth: n·var(humans)/var(PPI++).
    pub worth: Option<f64>,
    /// Why an estimate is absent, or was clipped.
    pub notes: Vec<String>,
    /// The judge's ratings were numbers (a probability), used as they are.
    pub numeric: bool,
    /// Rogan–Gladen's interval and PPI++'s do not overlap: the two corrections disagree.
    pub disagree: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub systems: Option<SystemsEstimate>,
}

/// An item for the estimate: its gold label (None: unlabelled) and the judge's label, or a
/// numeric rating (`value`, e.g. a probability that the label is L) used as it is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Item {
    pub gold: Option<i64>,
    pub judge: i64,
    pub value: Option<f64>,
    /// The chance the item had of being labelled (active labelling's π), when it was drawn so.
    pub label_prob: Option<f64>,
}

impl Item {
    /// A judge's label.
    pub fn label(gold: Option<i64>, judge: i64) -> Self {
        Self {
            gold,
            judge,
            value: None,
            label_prob: None,
        }
    }

    /// The judge's outcome: its value, else whether its label is `l`.
    fn outcome(&self, l: i64) -> f64 {
        self.value.unwrap_or(f64::from(u8::from(self.judge == l)))
    }
}

/// The labelled items' outcomes (y, from the gold) and the judge's (ŷ), and the judge's on the
/// unlabelled items, for the label `l`.
fn split(items: &[Item], l: i64) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let labelled = || items.iter().filter(|i| i.gold.is_some());
    let y = share(labelled().map(|i| i.gold == Some(l)));
    let yhat = labelled().map(|i| i.outcome(l)).collect();
    let unlabelled = items
        .iter()
        .filter(|i| i.gold.is_none())
        .map(|i| i.outcome(l))
        .collect();
    (y, yhat, unlabelled)
}

/// The judge on the labelled items: its sensitivity (ŷ's mean where y = 1) over the positives
/// and its specificity (1 − ŷ's mean where y = 0) over the negatives; NaN for a class without
/// an item.
fn classes(y: &[f64], yhat: &[f64]) -> ((f64, usize), (f64, usize)) {
    let rate = |want: f64| {
        let said: Vec<f64> = y
            .iter()
            .zip(yhat)
            .filter(|p| *p.0 == want)
            .map(|p| *p.1)
            .collect();
        (said.iter().sum::<f64>() / said.len() as f64, said.len())
    };
    let ((q1, m1), (said_by_negatives, m0)) = (rate(1.0), rate(0.0));
    ((q1, m1), (1.0 - said_by_negatives, m0))
}

fn share(values: impl Iterator<Item = bool>) -> Vec<f64> {
    values.map(|v| f64::from(u8::from(v))).collect()
}

/// The estimates of the share of items labelled `settings.label`.
pub fn estimate(items: &[Item], settings: EstimateSettings) -> Estimate {
    let (l, alpha) = (settings.label, settings.alpha);
    let (y, yhat, unlabelled) = split(items, l);
    let numeric = items.iter().any(|i| i.value.is_some());
    let (n, big_n) = (y.len(), unlabelled.len());
    let mut notes = Vec::new();
    let all: Vec<f64> = yhat.iter().chain(&unlabelled).copied().collect();
    let judge = (!all.is_empty()).then(|| classical_mean_ci(&all, alpha).into());
    let humans = (n > 0).then(|| classical_mean_ci(&y, alpha));
    if n == 0 {
        notes.push("no item has a gold label: only the judge's own estimate can be made".into());
    }
    if n > 0 && big_n == 0 {
        notes.push("no item is unlabelled: there is nothing for the judge to add to the human labels (PPI, PPI++ and Rogan–Gladen need unlabelled items)".into());
    }
    let both = n > 0 && big_n > 0;
    let ppi = both.then(|| ppi_mean_ci(&y, &yhat, &unlabelled, 1.0, alpha).into());
    let plus = both.then(|| {
        let lambda = ppi_lambda(&y, &yhat, &unlabelled);
        (ppi_mean_ci(&y, &yhat, &unlabelled, lambda, alpha), lambda)
    });
    let worth = match (humans, plus) {
        (Some(h), Some((p, _))) if p.se > 0.0 => Some(n as f64 * h.se.powi(2) / p.se.powi(2)),
        _ => None,
    };
    let rogan_gladen = if both && numeric {
        notes.push("Rogan–Gladen corrects a rate of the judge's labels; these ratings are numbers (used as they are by the other estimates)".into());
        None
    } else if both {
        corrected(&y, &yhat, &unlabelled, alpha, &mut notes)
    } else {
        None
    };
    let disagree = match (&rogan_gladen, &plus) {
        (Some(rg), Some((p, _))) => rg.interval.ci[1] < p.ci.0 || p.ci.1 < rg.interval.ci[0],
        _ => false,
    };
    let mut e = Estimate {
        label: l,
        label_name: None,
        n_labelled: n,
        n_unlabelled: big_n,
        alpha,
        mean: Means {
            judge,
            humans: humans.map(Interval::from),
            ppi,
            ppi_plus: plus.map(|(p, lambda)| Tuned {
                interval: p.into(),
                lambda,
            }),
            rogan_gladen,
            active: None,
        },
        worth,
        notes,
        numeric,
        disagree,
        systems: None,
    };
    active(items, l, alpha, &mut e);
    e
}

/// With every item's π (`--label-prob`): the active estimate. Where π varies, the labelled
/// items are no uniform sample, so the methods that take them as one (humans alone, PPI,
/// PPI++, Rogan–Gladen) are withdrawn with a note; where it is constant they stay, PPI++
/// leading.
fn active(items: &[Item], l: i64, alpha: f64, e: &mut Estimate) {
    let Some(pi) = items
        .iter()
        .map(|i| i.label_prob)
        .collect::<Option<Vec<f64>>>()
    else {
        return;
    };
    if items.is_empty() {
        return;
    }
    let p: Vec<f64> = items.iter().map(|i| i.outcome(l)).collect();
    let y: Vec<Option<f64>> = items
        .iter()
        .map(|i| i.gold.map(|g| f64::from(u8::from(g == l))))
        .collect();
    let m = crate::metrics::active::estimate(&p, &y, &pi, alpha);
    let constant = crate::evaluation::active::constant(&pi);
    if constant {
        e.notes.push(format!(
            "every item had the same chance of being labelled (π = {}): the labels are a uniform draw, so PPI++ (at least as narrow) leads and the active estimate is beside it",
            pi[0]
        ));
    } else {
        e.notes.push("the labelled items were drawn with unequal chances (active labelling): they are no uniform sample, so the humans-alone, PPI, PPI++ and Rogan–Gladen estimates, which take them as one, are not made; the active estimate weighs each by 1/π".into());
        e.mean.humans = None;
        e.mean.ppi = None;
        e.mean.ppi_plus = None;
        e.mean.rogan_gladen = None;
        e.worth = None;
        e.disagree = false;
    }
    e.mean.active = Some(Active {
        interval: m.into(),
        constant_pi: constant,
        leads: !constant,
    });
}

/// Rogan–Gladen on the judge's rate over the unlabelled items, with the sensitivity and
/// specificity it shows on the labelled; None (with a note) when either cannot be measured or
/// the judge is no better than chance.
fn corrected(
    y: &[f64],
    yhat: &[f64],
    unlabelled: &[f64],
    alpha: f64,
    notes: &mut Vec<String>,
) -> Option<RoganGladen> {
    let ((q1, m1), (q0, m0)) = classes(y, yhat);
    if m1 == 0 || m0 == 0 {
        let which = if m1 == 0 { "has" } else { "lacks" };
        notes.push(format!(
            "Rogan–Gladen needs labelled items with and without the label, and no labelled item {which} it: the judge's {} cannot be measured",
            if m1 == 0 { "sensitivity" } else { "specificity" }
        ));
        return None;
    }
    if q0 + q1 <= 1.0 {
        notes.push(format!(
            "Rogan–Gladen: the judge is no better than chance on the labelled items (sensitivity {q1:.3} + specificity {q0:.3} ≤ 1), so its rate cannot be corrected"
        ));
        return None;
    }
    let p = unlabelled.iter().sum::<f64>() / unlabelled.len() as f64;
    let raw = rogan_gladen(p, q0, q1);
    let clipped = !(0.0..=1.0).contains(&raw);
    if clipped {
        notes.push(format!(
            "Rogan–Gladen's estimate {raw:.4} falls outside [0, 1] and is clipped to {}",
            raw.clamp(0.0, 1.0)
        ));
    }
    let (lo, hi) = rogan_gladen_ci(p, q0, q1, (unlabelled.len(), m0, m1), alpha);
    Some(RoganGladen {
        interval: Interval {
            estimate: raw.clamp(0.0, 1.0),
            ci: [lo, hi],
        },
        sensitivity: q1,
        specificity: q0,
        clipped,
    })
}

/// How many human labels to collect, from a pilot (`raterlab plan --labels/--width`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LabelsPlan {
    pub label: i64,
    /// The pilot's labelled and unlabelled items.
    pub pilot_labelled: usize,
    pub pilot_unlabelled: usize,
    /// `--labels M`: Lee et al.'s split of M calibration labels between items without the
    /// label (m0) and with it (m1), from the judge's positive rate p and the pilot's
    /// specificity and sensitivity.
    pub allocation: Option<Allocation>,
    /// `--width W`: the labelled items PPI++ needs for an interval W wide, and the humans
    /// alone.
    pub width: Option<WidthPlan>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Allocation {
    pub labels: usize,
    pub negatives: usize,
    pub positives: usize,
    pub positive_rate: f64,
    pub specificity: f64,
    pub sensitivity: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct WidthPlan {
    pub width: f64,
    pub alpha: f64,
    /// The unlabelled items the judge rates (the pilot's unless given).
    pub unlabelled: usize,
    pub lambda: f64,
    /// None when no number of labels reaches the width with this many unlabelled items.
    pub labelled_ppi_plus: Option<f64>,
    pub labelled_humans: f64,
}

/// The plan from a pilot's items: the allocation of `labels` calibration labels, and the
/// labels for an interval `width` wide at `alpha` with `unlabelled` items (the pilot's when
/// None). The pilot's variances stand for the full run's: se² = var(y − λŷ)/n + var(λŷ)/N.
pub fn plan_labels(
    items: &[Item],
    label: i64,
    labels: Option<usize>,
    width: Option<(f64, f64, Option<usize>)>,
) -> LabelsPlan {
    let (y, yhat, unlabelled) = split(items, label);
    let all: Vec<f64> = yhat.iter().chain(&unlabelled).copied().collect();
    let mean = |v: &[f64]| crate::metrics::ppi::mean(v.iter().copied());
    let var0 = crate::metrics::ppi::var0;
    // The judge's rate and spread over the unlabelled items (those it alone rates), as the
    // estimates take them; a pilot without any, over every item.
    let judged = if unlabelled.is_empty() {
        &all
    } else {
        &unlabelled
    };
    let allocation = labels.filter(|_| !y.is_empty()).map(|m| {
        let p = mean(judged);
        let ((q1, _), (q0, _)) = classes(&y, &yhat);
        // The pilot's rates taken as given (Lee et al.'s m_pilot = 0: their smoothing is for a
        // pilot counted within the budget); a side the pilot has no item of is taken as their
        // default belief, 0.9.
        let (q0v, q1v) = (
            if q0.is_nan() { 0.9 } else { q0 },
            if q1.is_nan() { 0.9 } else { q1 },
        );
        let (negatives, positives) = crate::metrics::ppi::allocate(m, p, q0v, q1v, 0);
        Allocation {
            labels: m,
            negatives,
            positives,
            positive_rate: p,
            specificity: q0,
            sensitivity: q1,
        }
    });
    let width = width.filter(|_| !y.is_empty()).map(|(w, alpha, big_n)| {
        let big_n = big_n.unwrap_or(unlabelled.len()).max(1) as f64;
        let lambda = if unlabelled.is_empty() {
            0.0
        } else {
            ppi_lambda(&y, &yhat, &unlabelled)
        };
        let rectifier: Vec<f64> = y.iter().zip(&yhat).map(|(a, b)| a - lambda * b).collect();
        let imputed: Vec<f64> = judged.iter().map(|v| lambda * v).collect();
        let z = crate::metrics::paired::normal_quantile(1.0 - alpha / 2.0);
        let target = (w / 2.0 / z).powi(2);
        let room = target - var0(&imputed) / big_n;
        WidthPlan {
            width: w,
            alpha,
            unlabelled: big_n as usize,
            lambda,
            labelled_ppi_plus: (room > 0.0).then(|| (var0(&rectifier) / room).ceil()),
            labelled_humans: (var0(&y) / target).ceil(),
        }
    });
    LabelsPlan {
        label,
        pilot_labelled: y.len(),
        pilot_unlabelled: unlabelled.len(),
        allocation,
        width,
    }
}

/// `calibrate --estimate`: each judged configuration's estimate over the run's items, the
/// items without gold the unlabelled set (a configuration's items without a verdict are in
/// neither), with the models ranked when the data names them. Put `Some(settings)` in the
/// evaluation's options to ask for it.
#[derive(Debug)]
pub struct EstimateAnalytic;

impl crate::evaluation::Analytic for EstimateAnalytic {
    fn run(
        &self,
        cx: &crate::evaluation::analytic::Context,
        _configs: &[crate::evaluation::ConfigResult],
    ) -> crate::evaluation::analytic::Found {
        use crate::evaluation::analytic::{kept, Found};
        let Some(settings) = cx.settings.option::<Option<EstimateSettings>>() else {
            return Found::default();
        };
        let run = cx.run;
        Found::per_config(
            run.configs
                .iter()
                .map(|c| kept((!c.is_baseline()).then(|| of_config(run, c, settings)))),
        )
    }
}

/// Each item's chance of having been labelled (active labelling's π, `analyze --label-prob`),
/// in the record's item order: an input of the record (`RunRecord::inputs`), which the
/// estimate reads beside each item.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelProbs(pub Vec<Option<f64>>);

/// One configuration's estimate over the record: its rated items (those without gold the
/// unlabelled set), each with its π when the record has [`LabelProbs`], and the models ranked
/// when the record names them. `calibrate --estimate` (through [`EstimateAnalytic`]) and
/// `analyze --estimate` both estimate here.
pub fn of_config(
    run: &crate::evaluation::RunRecord,
    config: &crate::evaluation::ConfigRecord,
    settings: EstimateSettings,
) -> Estimate {
    let rated: Vec<(usize, i64)> = config
        .outcomes
        .iter()
        .enumerate()
        .filter_map(|(i, o)| match o {
            crate::evaluation::Outcome::Rated(l) => Some((i, *l)),
            _ => None,
        })
        .collect();
    let pi = run.inputs.get::<LabelProbs>();
    let items: Vec<Item> = rated
        .iter()
        .map(|&(i, judge)| Item {
            label_prob: pi.and_then(|p| p.0[i]),
            ..Item::label(run.items.gold[i], judge)
        })
        .collect();
    let mut e = estimate(&items, settings);
    if let Some(g) = &run.generators {
        let matches: Vec<Match> = rated
            .iter()
            .map(|&(i, judge)| Match {
                models: g.of_item[i].clone(),
                gold: run.items.gold[i],
                judge,
            })
            .collect();
        e.systems = systems(&matches, settings.alpha);
    }
    e
}

#[cfg(test)]
#[path = "estimate_tests.rs"]
mod tests;
