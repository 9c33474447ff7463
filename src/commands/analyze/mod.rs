//! `raterlab analyze`: agreement statistics for existing ratings.

mod record;

use crate::dataset::frame;
use crate::dataset::frame::Frame;
use crate::dataset::labels::{self, LabelPairs, NoMajority};
use crate::dataset::long;
use crate::error::input_error;
use crate::evaluation::annotators::AnnotatorReport;
use crate::evaluation::evaluator;
use crate::evaluation::systems::Systems;
use crate::evaluation::Shape;
use crate::metrics::Labels;
use crate::run::analysis::{Analysis, Input, LongForm, Settings, Table};
use anyhow::Result;

/// A table's frame: its file read, or the values handed over.
fn read(table: &Table) -> Result<Frame> {
    match table {
        Table::File(path) => frame::read(path),
        Table::Values(frame) => Ok(frame.clone()),
    }
}

pub fn run(settings: &Settings) -> Result<Analysis> {
    // One table (a file or a program's values), or the two files to join.
    let one = match &settings.input {
        Input::One(table) => Ok(read(table)?),
        Input::Two { gold, ratings } => {
            let gold_frame = read(gold)?;
            let rating_frames: Vec<_> = ratings.iter().map(read).collect::<Result<_>>()?;
            let named = settings.long.annotation.as_deref();
            let long = settings.long.asked()
                || rating_frames.len() > 1
                || settings
                    .columns
                    .id
                    .as_deref()
                    .is_some_and(|c| c.contains(','))
                || std::iter::once(&gold_frame)
                    .chain(&rating_frames)
                    .any(|f| long::annotation_column(f, named).is_some());
            if long {
                return long_form(settings, &gold_frame, &rating_frames);
            }
            Err((gold_frame, rating_frames))
        }
    };
    let columns: Vec<&str> = settings.columns.rating.split(',').map(str::trim).collect();
    if columns.len() > 1 {
        return several_columns(settings, one.as_ref().ok(), &columns);
    }
    if let (Some((columns, policy)), Ok(frame)) = (&settings.annotators, &one) {
        let annotated = labels::load_annotators(
            frame,
            &settings.columns,
            columns,
            &settings.reading,
            settings.labels.as_ref(),
            *policy,
        )?;
        let groups = match &settings.columns.group {
            Some(col) => Some(frame.text(col, "--group-col", "group")?),
            None => None,
        };
        let labels = annotated_labels(settings, &annotated, &[]);
        let extras = record::Extras::default();
        return annotated_analysis(settings, &annotated, labels, *policy, groups, extras);
    }
    // `--estimate` with numeric ratings (a probability): the estimate alone, no label pair.
    if let (Some((label, alpha)), Ok(frame)) = (&settings.estimate, &one) {
        if let Some((e, dropped_ratings)) =
            super::estimate::of_values(settings, frame, (label.as_deref(), *alpha))?
        {
            let none = LabelPairs {
                dropped_ratings,
                ..LabelPairs::default()
            };
            let labels = settings.labels.clone().unwrap_or_else(Labels::pairwise);
            let mut analysis = analyze_pairs(settings, &none, labels, None)?;
            analysis.unlabelled = e.n_unlabelled;
            analysis.estimate = Some(e);
            return Ok(analysis);
        }
    }
    let pairs = match &one {
        Ok(frame) => labels::load_one(
            frame,
            &settings.columns,
            &settings.reading,
            settings.labels.as_ref(),
        )?,
        Err((gold, ratings)) => labels::load_two(
            gold,
            &ratings[0],
            &settings.columns,
            &settings.reading,
            settings.labels.as_ref(),
        )?,
    };
    if pairs.gold.is_empty() && settings.estimate.is_none() {
        return Err(input_error(format!(
            "{}: no row has a gold label; its {} rated rows are unlabelled: add --estimate to estimate from them and the judge, or fill the gold column",
            settings.input.describe(),
            pairs.unlabelled.len()
        )));
    }
    let labels = settings.labels.clone().unwrap_or_else(|| {
        // Without a labelled row, the labels the judge gave.
        let rated = if pairs.gold.is_empty() {
            &pairs.unlabelled
        } else {
            &pairs.rating
        };
        Labels::infer(&pairs.gold, rated)
    });
    let mut analysis = analyze_pairs(settings, &pairs, labels, one.as_ref().ok())?;
    if let Some((label, alpha)) = &settings.estimate {
        let frame = one.as_ref().ok();
        analysis.estimate = Some(super::estimate::of_pairs(
            settings,
            &pairs,
            frame,
            (label.as_deref(), *alpha),
        )?);
    }
    Ok(analysis)
}

/// The label set of several annotators' votes and a judge's ratings (`judged`: every label the
/// judge gave, beside its first ratings): `--labels`, else the labels seen.
fn annotated_labels(settings: &Settings, annotated: &labels::Annotated, judged: &[i64]) -> Labels {
    settings.labels.clone().unwrap_or_else(|| {
        let votes: Vec<i64> = annotated
            .votes
            .iter()
            .flatten()
            .flatten()
            .copied()
            .collect();
        let mut seen: Vec<i64> = annotated.judge.iter().flatten().copied().collect();
        seen.extend_from_slice(judged);
        Labels::infer(&votes, &seen)
    })
}

/// Several annotators per item (gold their majority) and a judge on `labels`: the agreement
/// figures and the annotator panel (and with `extras`, AlpacaEval's evaluator measures),
/// through the record: every item, the annotators' votes beside it; `groups`: each item's group.
fn annotated_analysis(
    settings: &Settings,
    annotated: &labels::Annotated,
    labels: Labels,
    policy: NoMajority,
    groups: Option<Vec<String>>,
    mut extras: record::Extras,
) -> Result<Analysis> {
    if policy == NoMajority::Tie && !labels.contains(0) {
        return Err(input_error(format!(
            "--no-majority tie scores items without a majority as 0, which is not in the label set {labels}; use --no-majority drop or add 0 to --labels"
        )));
    }
    let (rows, annotations) = record::annotated_rows(annotated, groups, policy);
    extras.annotators = Some(annotations);
    let mut analysis = evaluated(settings, rows, extras, &annotated.pairs, labels, None)?;
    analysis.annotators = analysis.evaluation.of_config::<AnnotatorReport>(0).cloned();
    Ok(analysis)
}

/// The aligned pairs through the evaluation `calibrate` runs (`evaluated`).
pub fn analyze_pairs(
    settings: &Settings,
    pairs: &LabelPairs,
    labels: Labels,
    frame: Option<&Frame>,
) -> Result<Analysis> {
    let rows = record::pair_rows(settings, pairs, frame)?;
    evaluated(
        settings,
        rows,
        record::Extras::default(),
        pairs,
        labels,
        frame,
    )
}

/// The items as a record (`record::record`), through the evaluation `calibrate` runs: the
/// agreement overall and per group, and every analytic whose inputs the options give. `pairs`
/// says what the reading left out.
fn evaluated(
    settings: &Settings,
    rows: Vec<record::Row>,
    extras: record::Extras,
    pairs: &LabelPairs,
    labels: Labels,
    frame: Option<&Frame>,
) -> Result<Analysis> {
    if settings.columns.probability.is_some()
        && crate::evaluation::probability::sides(&labels).is_none()
    {
        return Err(input_error(format!(
            "--probability needs two labels (negative, positive) or three (-1, tie, 1); the labels are {labels}"
        )));
    }
    let record = record::record(settings, rows, extras, &labels, frame)?;
    let evaluation = crate::evaluation::registry::evaluate(
        &record,
        crate::evaluation::EvalSettings::new(settings.bootstrap, settings.seed),
    );
    if settings.systems.is_some() && frame.is_some() && evaluation.of_config::<Systems>(0).is_none()
    {
        return Err(input_error("--generators: no row to rank models by"));
    }
    let result = &evaluation.configs[0];
    let groups = match &settings.columns.group {
        Some(_) => result
            .by_subset
            .iter()
            .filter(|(_, s)| s.agreement.n > 0)
            .map(|(name, s)| (name.clone(), s.agreement.clone()))
            .collect(),
        None => Vec::new(),
    };
    Ok(Analysis {
        source: settings.input.describe(),
        labels,
        bootstrap: settings.bootstrap,
        seed: settings.seed,
        overall: result.overall.agreement.clone(),
        groups,
        only_in_gold: pairs.only_in_gold,
        only_in_ratings: pairs.only_in_ratings,
        unlabelled: pairs.unlabelled.len(),
        dropped_gold: pairs.dropped_gold,
        dropped_ratings: pairs.dropped_ratings,
        annotators: None,
        long: None,
        sequential: sequential(settings, pairs),
        estimate: None,
        record,
        evaluation,
    })
}

/// `--rating-col A,B,...`: each column one configuration of one record, so the paired
/// comparisons, the best and the Holm family are `calibrate`'s.
fn several_columns(
    settings: &Settings,
    frame: Option<&Frame>,
    columns: &[&str],
) -> Result<Analysis> {
    let Some(frame) = frame else {
        return Err(input_error(format!(
            "--rating-col {}: several rating columns are read from one file; give it with --input (the two-file form joins one ratings column)",
            settings.columns.rating
        )));
    };
    let one_column = [
        ("--probability", settings.columns.probability.is_some()),
        ("--compare-col", settings.columns.compare.is_some()),
        ("--estimate", settings.estimate.is_some()),
        ("--annotators", settings.annotators.is_some()),
    ];
    if let Some((flag, _)) = one_column.iter().find(|(_, given)| *given) {
        return Err(input_error(format!(
            "{flag} reads one rating column, and --rating-col names {}: give one column with {flag}",
            columns.len()
        )));
    }
    let per_column = columns
        .iter()
        .map(|&c| {
            let mut names = settings.columns.clone();
            names.rating = c.to_string();
            labels::load_one(frame, &names, &settings.reading, settings.labels.as_ref())
        })
        .collect::<Result<Vec<_>>>()?;
    let rows = record::column_rows(settings, &per_column, frame)?;
    let labels = settings.labels.clone().unwrap_or_else(|| {
        let gold: Vec<i64> = rows.iter().filter_map(|r| r.gold).collect();
        let rated: Vec<i64> = rows
            .iter()
            .flat_map(|r| r.ratings.iter().flatten())
            .copied()
            .collect();
        Labels::infer(&gold, &rated)
    });
    // What the reading left out, over every column; the first column stands at the top.
    let pairs = LabelPairs {
        unlabelled: rows
            .iter()
            .filter(|r| r.gold.is_none())
            .filter_map(|r| r.ratings[0])
            .collect(),
        dropped_gold: per_column[0].dropped_gold,
        dropped_ratings: per_column.iter().map(|p| p.dropped_ratings).sum(),
        ..LabelPairs::default()
    };
    let extras = record::Extras {
        names: columns.iter().map(|c| c.to_string()).collect(),
        ..record::Extras::default()
    };
    evaluated(settings, rows, extras, &pairs, labels, Some(frame))
}

/// `--compare-col --sequential`: the rating column (A) against the compare column (B), in file
/// order, on the items with a gold label that both read.
fn sequential(
    settings: &Settings,
    pairs: &LabelPairs,
) -> Option<(crate::evaluation::sequential::Sequential, [String; 2])> {
    let compare = pairs.compare.as_ref()?;
    let mut columns: [Vec<i64>; 3] = Default::default();
    for ((&g, &a), b) in pairs.gold.iter().zip(&pairs.rating).zip(compare) {
        if let Some(b) = *b {
            columns[0].push(g);
            columns[1].push(a);
            columns[2].push(b);
        }
    }
    let [gold, a, b] = &columns;
    let names = &settings.columns;
    Some((
        crate::evaluation::sequential::sequential(gold, a, b, crate::evaluation::paired::ALPHA),
        [
            names.rating.clone(),
            names.compare.clone().unwrap_or_default(),
        ],
    ))
}

/// Long form's sheets for AlpacaEval's evaluator measures: the humans' and the judge's
/// preferences on AlpacaEval's scale (the file's own number where it gives one, a weighted
/// judge's 1.27, else the label's: 1, 1.5, 2).
fn preferences(annotated: &labels::Annotated, joined: &long::Joined) -> evaluator::Preferences {
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
        humans: sheet(&annotated.votes, &joined.gold_prefs),
        judges: vec![sheet(&joined.judge, &joined.judge_prefs)],
    }
}

/// Long form: the gold's annotations (the annotators) and the judge's samples joined on their
/// keys; the agreement figures compare the humans' majority with the judge's first sample, and
/// AlpacaEval's evaluator measures use every annotation.
fn long_form(settings: &Settings, gold: &Frame, ratings: &[Frame]) -> Result<Analysis> {
    let key: Vec<String> = settings
        .columns
        .id
        .as_deref()
        .unwrap_or("id")
        .split(',')
        .map(|c| c.trim().to_string())
        .collect();
    let named = settings.long.annotation.as_deref();
    let labels = settings.labels.as_ref();
    let gold_items = long::read(
        gold,
        &key,
        (&settings.columns.gold, "--gold-col"),
        &settings.reading.0,
        labels,
        named,
    )?;
    let ratings_key: Vec<String> = match &settings.columns.ratings_id {
        Some(c) => c.split(',').map(|c| c.trim().to_string()).collect(),
        None => key.clone(),
    };
    let judge_files = ratings
        .iter()
        .map(|f| {
            long::read(
                f,
                &ratings_key,
                (&settings.columns.rating, "--rating-col"),
                &settings.reading.1,
                labels,
                named,
            )
        })
        .collect::<Result<Vec<_>>>()?;
    let columns = (
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
    let joined = long::join(
        gold_items,
        long::concat(judge_files),
        settings.long.per_item,
        policy,
    )?;
    let mut annotated = joined.annotated.clone();
    let mut groups = None;
    if let Some(col) = &settings.columns.group {
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
    if !pairwise {
        crate::report::media::format::warn(&format!(
            "AlpacaEval's evaluator measures need pairwise labels (-1, 0, 1); the labels are {labels}: map the files' values with --gold-map and --rating-map (e.g. 1=-1,2=1)"
        ));
    }
    // AlpacaEval's measures read the files' own preferences (a weighted judge's 1.27) and every
    // sample of the judge; the texts give the length and list preferences.
    // The judge's files, however their column is named.
    let mut extras = record::Extras {
        names: vec!["judge".into()],
        ..record::Extras::default()
    };
    if pairwise {
        extras
            .inputs
            .put(Box::new(preferences(&annotated, &joined)));
    }
    if let Some((a, b)) = &texts {
        extras.shapes = joined
            .item_rows
            .iter()
            .map(|&r| [Shape::of(&a[r]), Shape::of(&b[r])])
            .collect();
    }
    let mut analysis = annotated_analysis(settings, &annotated, labels, policy, groups, extras)?;
    analysis.long = Some(LongForm {
        columns,
        annotations_per_item: joined.annotations_per_item,
        items: joined.keys.len(),
        too_few: joined.too_few,
        first_unparsed: joined.first_unparsed,
        only_in_gold: joined.only_in_gold.1.clone(),
        only_in_ratings: joined.only_in_ratings.1.clone(),
        joined_input,
        texts: texts_named,
    });
    Ok(analysis)
}
