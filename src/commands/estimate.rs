//! `analyze --estimate`: the items `evaluation::estimate` takes, from the rows read as label
//! pairs (the labelled and the unlabelled ones, and with `--generators` the models), or from a
//! rating column of numbers (a probability used as it is), with the label named as the gold
//! reads it.

use crate::dataset::frame::Frame;
use crate::dataset::labels::LabelPairs;
use crate::error::input_error;
use crate::evaluation::estimate::{self, EstimateSettings, Item, Match};
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

/// `--estimate`: the labelled rows and the unlabelled ones (the ratings of rows without gold),
/// and with `--generators` (one-file form) the models each row's responses came from.
pub fn of_pairs(
    settings: &Settings,
    pairs: &LabelPairs,
    frame: Option<&Frame>,
    (label, alpha): (Option<&str>, f64),
) -> Result<crate::evaluation::estimate::Estimate> {
    let (label, name) = resolve(settings, label)?;
    let pi = label_probs(settings, frame)?;
    // Each pair's π by its row in the file (the one-file form, the only one --label-prob
    // reads; the two-file form has no rows).
    if pi.is_some()
        && (pairs.rows.len() != pairs.gold.len()
            || pairs.unlabelled_rows.len() != pairs.unlabelled.len())
    {
        return Err(input_error(
            "--label-prob reads each row's π beside its gold and rating in one --input file (one rating column, no --annotators)",
        ));
    }
    let pi_of = |rows: &[usize], k: usize| pi.as_ref().map(|pi| pi[rows[k]]);
    let items: Vec<Item> = pairs
        .gold
        .iter()
        .zip(&pairs.rating)
        .enumerate()
        .map(|(k, (&g, &r))| Item {
            label_prob: pi_of(&pairs.rows, k),
            ..Item::label(Some(g), r)
        })
        .chain(pairs.unlabelled.iter().enumerate().map(|(k, &r)| Item {
            label_prob: pi_of(&pairs.unlabelled_rows, k),
            ..Item::label(None, r)
        }))
        .collect();
    present(label, &items)?;
    let mut e = estimate::estimate(&items, EstimateSettings { label, alpha });
    e.label_name = name;
    if let (Some(s), Some(frame)) = (&settings.systems, frame) {
        let g1 = frame.text(&s.generators.0, "--generators", "model")?;
        let g2 = frame.text(&s.generators.1, "--generators", "model")?;
        let models = |r: usize| [g1[r].clone(), g2[r].clone()];
        let matches: Vec<Match> = pairs
            .rows
            .iter()
            .zip(&pairs.gold)
            .zip(&pairs.rating)
            .map(|((&r, &g), &j)| Match {
                models: models(r),
                gold: Some(g),
                judge: j,
            })
            .chain(
                pairs
                    .unlabelled_rows
                    .iter()
                    .zip(&pairs.unlabelled)
                    .map(|(&r, &j)| Match {
                        models: models(r),
                        gold: None,
                        judge: j,
                    }),
            )
            .collect();
        e.systems = estimate::systems(&matches, alpha);
    }
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
    let pi = label_probs(settings, Some(frame))?;
    let items: Vec<Item> = gold
        .iter()
        .zip(&values)
        .enumerate()
        .filter_map(|(row, (&g, v))| {
            v.map(|value| Item {
                gold: g,
                judge: 0,
                value: Some(value),
                label_prob: pi.as_ref().map(|pi| pi[row]),
            })
        })
        .collect();
    present(label, &items)?;
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

/// `--label-prob COL`: every row's π, each in (0, 1] (one-file form).
fn label_probs(settings: &Settings, frame: Option<&Frame>) -> Result<Option<Vec<f64>>> {
    let Some(col) = &settings.label_prob else {
        return Ok(None);
    };
    let Some(frame) = frame else {
        return Err(input_error(
            "--label-prob reads each row's chance of being labelled beside its rating and gold: give one --input file",
        ));
    };
    frame
        .probabilities(col, "--label-prob")?
        .into_iter()
        .enumerate()
        .map(|(row, p)| match p {
            Some(p) if p > 0.0 => Ok(p),
            _ => Err(input_error(format!(
                "{}: --label-prob needs every row's chance of being labelled, above 0 (plan --active --out's label_prob)",
                frame.at(col, row)
            ))),
        })
        .collect::<Result<Vec<f64>>>()
        .map(Some)
}

/// `--estimate-label` must be a label the gold or the judge's labels hold: a typo would
/// otherwise be estimated as a share of exactly 0.
fn present(label: i64, items: &[Item]) -> Result<()> {
    let mut seen: Vec<i64> = items
        .iter()
        .flat_map(|i| [i.gold, i.value.is_none().then_some(i.judge)])
        .flatten()
        .collect();
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
