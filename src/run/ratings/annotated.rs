//! Several annotators per item, gold their majority: one file's annotator columns
//! (`--annotators`), or long form's annotations joined with a judge's samples.

use super::read::{self, Extras, LongForm, Read, Reading};
use crate::dataset::frame::Frame;
use crate::dataset::labels::{self, Annotated, NoMajority};
use crate::dataset::long;
use crate::error::input_error;
use crate::evaluation::{evaluator, Annotations, Shape};
use crate::metrics::scale::{mean_grade, round_half_even, Scale};
use crate::metrics::Labels;
use crate::run::settings::AnalyzeSettings;
use anyhow::Result;

/// `--annotators`: every annotator's column and the judge's, from one file.
pub fn annotators(
    settings: &AnalyzeSettings,
    frame: &Frame,
    columns: &[String],
    policy: NoMajority,
) -> Result<Read> {
    let mut annotated = labels::load_annotators(
        frame,
        &settings.columns,
        columns,
        &settings.reading,
        settings.labels.as_ref(),
        policy,
    )?;
    let groups = match &settings.columns.group {
        Some(col) => Some(frame.text(col, "--group-col", "group")?),
        None => None,
    };
    let judged = (std::iter::once(&annotated.judge).chain(&annotated.other_judges)).flatten();
    let values = (annotated.votes.iter().flatten().chain(judged)).flatten();
    let scale = read::scale_of(settings, values.copied(), &annotated.label_names);
    // On a graded scale the gold is the mean, and no item is without one: the policy for
    // items without a majority has nothing to apply to.
    let mean = matches!(scale, Some(Scale::Graded { .. }));
    if mean {
        mean_gold(&mut annotated, groups.as_deref());
    }
    let labels = annotated_labels(settings, &annotated, &[]);
    // Several rating columns: a configuration each, named by its column.
    let columns: Vec<&str> = settings.columns.rating.split(',').map(str::trim).collect();
    let extras = Extras {
        names: if columns.len() > 1 {
            columns.iter().map(|c| c.to_string()).collect()
        } else {
            Vec::new()
        },
        scale,
        ..Extras::default()
    };
    loaded(
        settings,
        annotated,
        (labels, (!mean).then_some(policy)),
        groups,
        extras,
        Some(frame),
    )
}

/// On a graded scale several annotators' gold is their mean grade, not a majority: each item's
/// mean of the grades given, rounded half to even (numpy's `rint`) where a label is needed
/// (the agreement figures, the confusion matrix), and no item is without one. The judge's
/// pairs are made again from it (`groups`: each row's group).
fn mean_gold(annotated: &mut Annotated, groups: Option<&[String]>) {
    annotated.gold = (annotated.votes.iter())
        .map(|v| mean_grade(v).map(|m| round_half_even(m) as i64))
        .collect();
    annotated.no_majority = 0;
    let (mut gold, mut rating, mut kept) = (Vec::new(), Vec::new(), Vec::new());
    for (row, (g, r)) in annotated.gold.iter().zip(&annotated.judge).enumerate() {
        if let (Some(g), Some(r)) = (g, r) {
            gold.push(*g);
            rating.push(*r);
            kept.extend(groups.map(|names| names[row].clone()));
        }
    }
    let pairs = &mut annotated.pairs;
    (pairs.gold, pairs.rating) = (gold, rating);
    if groups.is_some() {
        pairs.groups = Some(labels::Groups::from_names(&kept));
    }
}

/// The label set of several annotators' votes and a judge's ratings (`judged`: every label the
/// judge gave, beside its first ratings): `--labels`, else the labels seen.
fn annotated_labels(settings: &AnalyzeSettings, annotated: &Annotated, judged: &[i64]) -> Labels {
    settings.labels.clone().unwrap_or_else(|| {
        let votes: Vec<i64> = annotated
            .votes
            .iter()
            .flatten()
            .flatten()
            .copied()
            .collect();
        let mut seen: Vec<i64> = (std::iter::once(&annotated.judge).chain(&annotated.other_judges))
            .flatten()
            .flatten()
            .copied()
            .collect();
        seen.extend_from_slice(judged);
        Labels::infer(&votes, &seen)
    })
}

/// Several annotators' items as the record's: each one's gold (their majority, or the
/// policy's tie), the judge's rating and its group (`groups`, one per item), the annotators'
/// votes beside them.
fn loaded(
    settings: &AnalyzeSettings,
    annotated: Annotated,
    (labels, policy): (Labels, Option<NoMajority>),
    groups: Option<Vec<String>>,
    mut extras: Extras,
    frame: Option<&Frame>,
) -> Result<Read> {
    if policy == Some(NoMajority::Tie) && !labels.contains(0) {
        return Err(input_error(format!(
            "--no-majority tie scores items without a majority as 0, which is not in the label set {labels}; use --no-majority drop or add 0 to --labels"
        )));
    }
    let n = annotated.votes.len();
    let items = read::Items {
        rows: read::Rows::Every(n),
        gold: annotated.gold[..n].to_vec(),
        // One configuration per rating column.
        outcomes: (std::iter::once(&annotated.judge).chain(&annotated.other_judges))
            .map(|judge| {
                (judge[..n].iter())
                    .map(|r| {
                        r.map_or(
                            crate::evaluation::Outcome::NoVerdict,
                            crate::evaluation::Outcome::Rated,
                        )
                    })
                    .collect()
            })
            .collect(),
        p: None,
        groups: groups.map(|g| labels::Groups::from_names(&g[..n])),
    };
    extras.annotators = Some(Annotations {
        names: annotated.names,
        votes: annotated.votes,
        order: Vec::new(),
        no_majority: annotated.no_majority,
        // `mean`: the gold is the annotators' mean grade (no majority needed).
        policy: policy.map_or("mean", NoMajority::name).to_string(),
        label_names: annotated.label_names,
    });
    Ok(Read {
        unbuilt: read::record(settings, items, extras, &labels, frame)?,
        reading: Reading::of(&annotated.pairs),
        pairs: annotated.pairs,
        long: None,
    })
}

/// Long form's sheets for AlpacaEval's evaluator measures: the humans' and the judge's
/// preferences on AlpacaEval's scale (the file's own number where it gives one, a weighted
/// judge's 1.27, else the label's: 1, 1.5, 2).
fn preferences(joined: &long::Joined) -> evaluator::Preferences {
    let sheet = |items: &[Vec<Option<i64>>], prefs: &[Vec<Option<f64>>]| {
        items
            .iter()
            .zip(prefs)
            .map(|(v, p)| {
                v.iter()
                    .zip(p)
                    .map(|(l, p)| p.or_else(|| l.and_then(evaluator::preference)))
                    .collect()
            })
            .collect::<Vec<evaluator::Annotations>>()
    };
    evaluator::Preferences {
        humans: sheet(&joined.gold_votes, &joined.gold_prefs),
        judges: vec![sheet(&joined.judge, &joined.judge_prefs)],
    }
}

/// The columns of the keys a file is joined on (`--id-col`, default `id`).
fn key(columns: Option<&str>) -> Vec<String> {
    columns
        .unwrap_or("id")
        .split(',')
        .map(|c| c.trim().to_string())
        .collect()
}

/// Long form: the gold's annotations (the annotators) and the judge's samples joined on their
/// keys; the agreement figures compare the humans' majority with the judge's first sample, and
/// AlpacaEval's evaluator measures use every annotation.
pub fn long_form(settings: &AnalyzeSettings, gold: &Frame, ratings: &[Frame]) -> Result<Read> {
    let columns = &settings.columns;
    let gold_key = key(columns.id.as_deref());
    let ratings_key = key(columns.ratings_id.as_deref().or(columns.id.as_deref()));
    let (named, labels) = (
        settings.long.annotation.as_deref(),
        settings.labels.as_ref(),
    );
    let gold_items = long::read(
        gold,
        &gold_key,
        (&columns.gold, "--gold-col"),
        &settings.reading.0,
        labels,
        named,
    )?;
    let judge_files = ratings
        .iter()
        .map(|f| {
            let rating = (columns.rating.as_str(), "--rating-col");
            long::read(f, &ratings_key, rating, &settings.reading.1, labels, named)
        })
        .collect::<Result<Vec<_>>>()?;
    let annotation_columns = (
        gold_items.annotation.clone(),
        judge_files.iter().find_map(|f| f.annotation.clone()),
    );
    let joined_input = gold_items.joined_input || judge_files.iter().any(|f| f.joined_input);
    let texts_named = settings.long.texts.clone().or_else(|| {
        let names = gold.column_names();
        let has = |c: &str| names.iter().any(|n| n == c);
        (has("output_1") && has("output_2"))
            .then(|| ("output_1".to_string(), "output_2".to_string()))
    });
    let texts = match &texts_named {
        Some((a, b)) => Some((
            gold.text(a, "--texts", "response")?,
            gold.text(b, "--texts", "response")?,
        )),
        None => None,
    };
    let policy = settings.long.no_majority;
    let judge = long::concat(judge_files);
    let joined = long::join(gold_items, judge, settings.long.per_item, policy)?;
    let mut annotated = joined.annotated.clone();
    let mut groups = None;
    if let Some(col) = &columns.group {
        annotated.pairs.groups = Some(long::groups(gold, col, &joined)?);
        let values = gold.text(col, "--group-col", "group")?;
        groups = Some(
            joined
                .item_rows
                .iter()
                .map(|&r| values[r].clone())
                .collect(),
        );
    }
    if annotated.pairs.gold.is_empty() {
        return Err(input_error(format!(
            "no item has both a majority of its {} gold annotations and a readable first rating; check the files' keys (--id-col) and labels",
            joined.annotations_per_item
        )));
    }
    let judged: Vec<i64> = joined.judge.iter().flatten().flatten().copied().collect();
    let labels = annotated_labels(settings, &annotated, &judged);
    let pairwise = labels.fits_pairwise();
    // AlpacaEval's measures read the files' own preferences (a weighted judge's 1.27) and every
    // sample of the judge; the texts give the length and list preferences. The judge's files
    // are one configuration, however their column is named.
    let mut extras = Extras {
        names: vec!["judge".into()],
        ..Extras::default()
    };
    if pairwise {
        extras.inputs.put(Box::new(preferences(&joined)));
    }
    if let Some((a, b)) = &texts {
        extras.shapes = joined
            .item_rows
            .iter()
            .map(|&r| [Shape::of(&a[r]), Shape::of(&b[r])])
            .collect();
    }
    let mut loaded = loaded(
        settings,
        annotated,
        (labels, Some(policy)),
        groups,
        extras,
        None,
    )?;
    loaded.long = Some(LongForm {
        columns: annotation_columns,
        annotations_per_item: joined.annotations_per_item,
        panel: joined.panel.clone(),
        annotators: joined.annotated.names.len(),
        items: joined.keys.len(),
        too_few: joined.too_few,
        first_unparsed: joined.first_unparsed,
        only_in_gold: joined.only_in_gold.1.clone(),
        only_in_ratings: joined.only_in_ratings.1.clone(),
        joined_input,
        texts: texts_named,
        pairwise,
    });
    Ok(loaded)
}
