//! A judge that grades one response, measured by its scale (`metrics::scale`): against the
//! humans' mean grade on a graded scale (and against each annotator), against the gold on a
//! binary scale or categories. Each headline figure comes with a percentile-bootstrap
//! interval over the items. The scale is the record's input (`Scale`), declared with
//! `--scale` or read from the labels; a run without one (pairwise verdicts) has no part here.

use crate::metrics::random::{stream, Purpose};
use crate::metrics::scale::{self as fig, Scale};
use crate::metrics::{interval_defined, multinomial};
use serde::Serialize;

/// A figure and its interval (None where it has none: no resamples, or undefined draws).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figure {
    pub value: f64,
    pub ci: Option<[f64; 2]>,
}

/// One class of a categorical (or binary) scale.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassFigures {
    pub name: String,
    /// Items whose reference is this class, and items the judge put in it.
    pub support: usize,
    pub predicted: usize,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
}

/// The judge against one annotator, on the items both graded.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnnotatorFigures {
    pub name: String,
    pub n: usize,
    pub exact_agreement: f64,
    pub kappa_linear: f64,
    pub kappa_quadratic: f64,
    pub mae: f64,
}

/// A configuration's measures on the scale.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScaleMeasures {
    pub scale: Scale,
    /// What the judge is measured against: `human_mean` (several annotators' mean grade),
    /// `majority` (several annotators' majority), or `gold` (one label per item).
    pub reference: &'static str,
    /// Items with a reference and the judge's label.
    pub n: usize,
    /// The scale's figures by name, in the order shown (see `metrics::scale`: BINARY,
    /// GRADED, CATEGORIES); an object in `--json`.
    pub figures: Figures,
    /// Each class's precision and recall (binary and categories).
    pub classes: Vec<ClassFigures>,
    /// Graded: the judge against each annotator.
    pub annotators: Vec<AnnotatorFigures>,
}

/// Figures by name, in the order shown; serialized as an object.
#[derive(Debug, Clone, PartialEq)]
pub struct Figures(pub Vec<(String, Figure)>);

impl Serialize for Figures {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, figure) in &self.0 {
            map.serialize_entry(name, figure)?;
        }
        map.end()
    }
}

impl ScaleMeasures {
    /// A figure by name.
    pub fn get(&self, name: &str) -> Option<&Figure> {
        self.figures
            .0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, f)| f)
    }
}

#[derive(Debug)]
pub struct ScaleAnalytic;

impl super::Analytic for ScaleAnalytic {
    fn run(&self, cx: &super::Context, _configs: &[super::ConfigResult]) -> super::Found {
        let Some(scale) = cx.run.inputs.get::<Scale>() else {
            return super::Found::default();
        };
        let results = (cx.run.configs.iter().enumerate())
            .map(|(i, c)| {
                let judge: Vec<Option<i64>> = c.outcomes.iter().map(|o| o.rating()).collect();
                let found = measures(cx, scale, &judge, i as u64);
                super::analytic::kept(found)
            })
            .collect::<Vec<_>>();
        super::Found::per_config(results)
    }
}

/// Each item's reference: the annotators' mean grade on a graded scale, else the gold.
fn references(cx: &super::Context, scale: &Scale) -> (Vec<Option<f64>>, &'static str) {
    let gold = &cx.run.items.gold;
    match (scale, cx.run.annotators.as_ref()) {
        (Scale::Graded { .. }, Some(a)) => (
            a.votes.iter().map(|v| fig::mean_grade(v)).collect(),
            "human_mean",
        ),
        (_, Some(_)) => (
            gold.iter().map(|g| g.map(|g| g as f64)).collect(),
            "majority",
        ),
        (_, None) => (gold.iter().map(|g| g.map(|g| g as f64)).collect(), "gold"),
    }
}

fn measures(
    cx: &super::Context,
    scale: &Scale,
    judge: &[Option<i64>],
    config: u64,
) -> Option<ScaleMeasures> {
    let (reference, said) = references(cx, scale);
    let (reference, judged): (Vec<f64>, Vec<i64>) = (reference.iter().zip(judge))
        .filter_map(|(r, j)| Some(((*r)?, (*j)?)))
        .unzip();
    if reference.is_empty() {
        return None;
    }
    let patterns = fig::Patterns::of(&reference, &judged);
    let compute = |w: &[u64]| -> Vec<f64> {
        match scale {
            Scale::Binary => fig::binary(&patterns, w),
            Scale::Graded { .. } => fig::graded(&patterns, w),
            Scale::Categories { .. } => fig::categories(&patterns, w),
        }
    };
    let names: &[&str] = match scale {
        Scale::Binary => &fig::BINARY,
        Scale::Graded { .. } => &fig::GRADED,
        Scale::Categories { .. } => &fig::CATEGORIES,
    };
    let point = compute(&patterns.counts);
    let resampling = cx.settings.resampling();
    let mut draws: Vec<Vec<f64>> = vec![Vec::with_capacity(resampling.resamples); names.len()];
    let mut rng = stream(resampling.seed, Purpose::Scale, config);
    for _ in 0..resampling.resamples {
        let counts = multinomial(&patterns.counts, &mut rng);
        for (column, value) in draws.iter_mut().zip(compute(&counts)) {
            column.push(value);
        }
    }
    let figures = (names.iter().zip(point).zip(draws.iter_mut()))
        .map(|((name, value), d)| {
            let ci = (!d.is_empty())
                .then(|| interval_defined(d, resampling.level))
                .flatten();
            (name.to_string(), Figure { value, ci })
        })
        .collect();
    let figures = Figures(figures);
    let class_name = |c: i64| match scale {
        Scale::Categories { names } if c >= 0 && (c as usize) < names.len() => {
            names[c as usize].clone()
        }
        _ => c.to_string(),
    };
    let classes = match scale {
        Scale::Graded { .. } => Vec::new(),
        _ => fig::per_class(&patterns, &patterns.counts)
            .into_iter()
            .map(
                |(c, support, predicted, [precision, recall, f1])| ClassFigures {
                    name: class_name(c),
                    support: support as usize,
                    predicted: predicted as usize,
                    precision,
                    recall,
                    f1,
                },
            )
            .collect(),
    };
    Some(ScaleMeasures {
        scale: scale.clone(),
        reference: said,
        n: reference.len(),
        figures,
        classes,
        annotators: match scale {
            Scale::Graded { .. } => against_each(cx, judge),
            _ => Vec::new(),
        },
    })
}

/// The judge against each annotator, on the items both graded.
fn against_each(cx: &super::Context, judge: &[Option<i64>]) -> Vec<AnnotatorFigures> {
    let Some(a) = cx.run.annotators.as_ref() else {
        return Vec::new();
    };
    (a.names.iter().enumerate())
        .map(|(k, name)| {
            let (mut mine, mut theirs) = (Vec::new(), Vec::new());
            for (votes, j) in a.votes.iter().zip(judge) {
                if let (Some(Some(v)), Some(j)) = (votes.get(k), j) {
                    mine.push(*v);
                    theirs.push(*j);
                }
            }
            let [exact_agreement, kappa_linear, kappa_quadratic, mae] =
                fig::against_one(&mine, &theirs);
            AnnotatorFigures {
                name: name.clone(),
                n: mine.len(),
                exact_agreement,
                kappa_linear,
                kappa_quadratic,
                mae,
            }
        })
        .collect()
}
