//! `analyze --estimate`: the label resolved as the gold reads it and checked, then the
//! estimate of the record's first rating column by `evaluation::estimate::of_config` (the one
//! `calibrate --estimate` makes), or from a rating column of numbers (a probability used as it
//! is).

use crate::dataset::frame::Frame;
use crate::error::input_error;
use crate::evaluation::estimate::{self, EstimateSettings, Item};
use crate::run::settings::AnalyzeSettings as Settings;
use anyhow::Result;

/// `--estimate-label` as a label and its name: a number, or a value `--gold-map` maps (the
/// name is the value it maps, the first in order when several). Unsaid, -1 (response 1
/// better); with `--label-prob`, 1 (active labelling's p is the probability of label 1).
fn resolve(settings: &Settings, label: Option<&str>) -> Result<(i64, Option<String>)> {
    let map = &settings.reading.0.map;
    let named = |l: i64| {
        map.iter()
            .filter(|(_, &v)| v == l)
            .map(|(k, _)| k.clone())
            .min()
    };
    Ok(match label {
        // Active labelling's p is the probability of label 1 (`plan --active`).
        None if settings.label_prob.is_some() => (1, named(1)),
        None => (-1, named(-1)),
        Some(text) => match (text.trim().parse::<i64>(), map.get(text.trim())) {
            (_, Some(&l)) => (l, Some(text.trim().to_string())),
            (Ok(l), None) => (l, named(l)),
            (Err(_), None) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                let known = if keys.is_empty() {
                    String::new()
                } else {
                    format!(
                        " ({})",
                        keys.iter()
                            .map(|k| k.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                return Err(input_error(format!(
                    "--estimate-label '{text}' is neither a label (a number, e.g. -1) nor a value --gold-map maps{known}"
                )));
            }
        },
    })
}

/// `--estimate` on label pairs: the first rating column's estimate over the record
/// (`evaluation::estimate::of_config`, as `calibrate --estimate`'s: the items without gold
/// the unlabelled set, each with its π under `--label-prob`, the models ranked under
/// `--generators`), the label resolved and checked first.
pub fn of_record(
    settings: &Settings,
    record: &crate::evaluation::RunRecord,
    (label, alpha): (Option<&str>, f64),
) -> Result<crate::evaluation::estimate::Estimate> {
    let (label, name) = resolve(settings, label)?;
    if settings.label_prob.is_some()
        && record
            .inputs
            .get::<crate::evaluation::estimate::LabelProbs>()
            .is_none()
    {
        return Err(input_error(
            "--label-prob reads each row's π beside its gold and rating in one --input file (one rating column, no --annotators)",
        ));
    }
    let Some(config) = record.configs.first() else {
        return Err(input_error("--estimate: no rating column to estimate from"));
    };
    let seen = record
        .items
        .gold
        .iter()
        .flatten()
        .copied()
        .chain(config.outcomes.iter().filter_map(|o| o.rating()));
    present(label, seen)?;
    let mut e = estimate::of_config(record, config, EstimateSettings { label, alpha });
    e.label_name = name;
    Ok(e)
}

/// A rating column of numbers that are not all labels (a probability that the item's label is
/// L): the estimate from them used as they are, beside the gold labels, and the rows without a
/// rating; None when the column holds labels (or anything else, which the label reading then
/// reports).
pub fn of_values(
    settings: &Settings,
    frame: &Frame,
    (given, alpha): (Option<&str>, f64),
) -> Result<Option<(estimate::Estimate, usize)>> {
    let Some(values) = numbers(frame, &settings.columns.rating) else {
        return Ok(None);
    };
    let (label, name) = resolve(settings, given)?;
    let (gold, _) = crate::dataset::labels::read_gold(
        frame,
        &settings.columns.gold,
        &settings.reading.0,
        settings.labels.as_ref(),
    )?;
    let rows: Vec<usize> = (0..values.len()).filter(|&r| values[r].is_some()).collect();
    let pi = crate::run::ratings::label_probs(settings, Some(frame), rows.iter().copied())?;
    let items: Vec<Item> = rows
        .iter()
        .enumerate()
        .map(|(k, &row)| Item {
            gold: gold[row],
            judge: 0,
            value: values[row],
            label_prob: pi.as_ref().and_then(|pi| pi.0[k]),
        })
        .collect();
    present(label, items.iter().filter_map(|i| i.gold))?;
    let mut e = estimate::estimate(&items, EstimateSettings { label, alpha });
    e.label_name = name;
    Ok(Some((e, values.iter().filter(|v| v.is_none()).count())))
}

/// Column `column` as numbers when they are not all labels (a probability), else None.
pub fn numbers(frame: &Frame, column: &str) -> Option<Vec<Option<f64>>> {
    let text = frame.optional_text(column, "--rating-col", "rating").ok()?;
    let values: Vec<Option<f64>> = text
        .iter()
        .map(|v| match v.as_deref().map(str::trim) {
            None | Some("") => Some(None),
            Some(t) => t.parse::<f64>().ok().filter(|x| x.is_finite()).map(Some),
        })
        .collect::<Option<_>>()?;
    (!values.iter().flatten().all(|v| v.fract() == 0.0)).then_some(values)
}

/// The two-file form as one table for `of_values`: each ratings row, its rating as written and
/// the gold of its id (empty where the gold file has none: unlabelled), ids checked unique in
/// each file. Gold rows without a rating are left out, as the label pairs' join leaves them.
pub fn joined(settings: &Settings, gold: &Frame, ratings: &Frame) -> Result<Frame> {
    use crate::dataset::frame::Values;
    let columns = &settings.columns;
    let gold_id = columns.id.as_deref().unwrap_or("id");
    let ratings_id = columns.ratings_id.as_deref().unwrap_or(gold_id);
    crate::dataset::labels::check_ids(gold, Some(gold_id))?;
    crate::dataset::labels::check_ids(ratings, Some(ratings_id))?;
    let gold_ids = gold.text(gold_id, "--id-col", "id")?;
    let gold_values = gold.optional_text(&columns.gold, "--gold-col", "gold label")?;
    let by_id: std::collections::HashMap<&str, &Option<String>> = gold_ids
        .iter()
        .map(String::as_str)
        .zip(&gold_values)
        .collect();
    let rating_ids = ratings.text(ratings_id, "--ratings-id-col", "id")?;
    let gold_of_rating: Vec<Option<String>> = rating_ids
        .iter()
        .map(|id| by_id.get(id.as_str()).and_then(|g| (*g).clone()))
        .collect();
    let rating = ratings.optional_text(&columns.rating, "--rating-col", "rating")?;
    let name = format!(
        "{} joined with {}",
        ratings.path.display(),
        gold.path.display()
    );
    crate::dataset::frame::from_values(
        &name,
        vec![
            (columns.gold.clone(), Values::Text(gold_of_rating)),
            (columns.rating.clone(), Values::Text(rating)),
        ],
    )
}

/// `--estimate-label` must be a label the gold or the judge's labels hold: a typo would
/// otherwise be estimated as a share of exactly 0.
fn present(label: i64, labels: impl Iterator<Item = i64>) -> Result<()> {
    let mut seen: Vec<i64> = labels.collect();
    seen.sort_unstable();
    seen.dedup();
    if seen.is_empty() || seen.contains(&label) {
        return Ok(());
    }
    let list: Vec<String> = seen.iter().map(i64::to_string).collect();
    Err(input_error(format!(
        "--estimate-label {label}: no gold label or rating is {label}; the labels present are {} (after --gold-map and --rating-map)",
        list.join(", ")
    )))
}
