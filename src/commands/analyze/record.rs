//! `analyze`'s rows as `calibrate`'s record: each rating column is a configuration, each row an
//! item, and what the options name (probabilities, texts, generators, annotators, long form's
//! preferences) the analytics' inputs.

use crate::dataset::frame::Frame;
use crate::dataset::labels::{Annotated, LabelPairs, NoMajority};
use crate::error::input_error;
use crate::evaluation::{
    Annotations, ConfigRecord, Cost, ItemRow, Outcome, ProbabilityRecord, RunRecord, Shape,
};
use crate::metrics::Labels;
use crate::run::analysis::Settings;
use anyhow::Result;

/// An item: its row in the file (one-file form), gold (None: unlabelled), each configuration's
/// rating (None: no readable rating), its probability and group.
pub struct Row {
    pub row: Option<usize>,
    pub gold: Option<i64>,
    pub ratings: Vec<Option<i64>>,
    pub p: Option<f64>,
    pub group: String,
}

/// What the record carries beside its items when the reading gives it: the annotators' votes,
/// the analytics' own inputs, the two responses' shapes (long form's texts).
#[derive(Default)]
pub struct Extras {
    /// The configurations' names, one per rating of a row (default: the rating column's).
    pub names: Vec<String>,
    pub annotators: Option<Annotations>,
    pub inputs: crate::evaluation::analytic::Inputs,
    pub shapes: Vec<[Shape; 2]>,
}

/// Aligned pairs as items: the labelled pairs, then the unlabelled ratings, merged back into
/// file order when the rows are known.
pub fn pair_rows(
    settings: &Settings,
    pairs: &LabelPairs,
    frame: Option<&Frame>,
) -> Result<Vec<Row>> {
    let groups = pairs.groups.as_ref();
    let mut rows: Vec<Row> = (0..pairs.gold.len())
        .map(|k| Row {
            row: pairs.rows.get(k).copied(),
            gold: Some(pairs.gold[k]),
            ratings: vec![Some(pairs.rating[k])],
            p: pairs.probability.as_ref().and_then(|p| p[k]),
            group: groups.map_or_else(String::new, |g| g.names[g.of_pair[k] as usize].clone()),
        })
        .collect();
    let group_of_row = match (frame, &settings.columns.group) {
        (Some(f), Some(col)) => Some(f.text(col, "--group-col", "group")?),
        _ => None,
    };
    let probability_of_row = match (frame, &settings.columns.probability) {
        (Some(f), Some(col)) => Some(f.probabilities(col, "--probability")?),
        _ => None,
    };
    for (k, &rating) in pairs.unlabelled.iter().enumerate() {
        let row = pairs.unlabelled_rows.get(k).copied();
        let p = row.zip(probability_of_row.as_ref()).and_then(|(r, p)| p[r]);
        let group = row.zip(group_of_row.as_ref()).map(|(r, g)| g[r].clone());
        rows.push(Row {
            row,
            gold: None,
            ratings: vec![Some(rating)],
            p,
            group: group.unwrap_or_default(),
        });
    }
    rows.sort_by_key(|r| r.row);
    Ok(rows)
}

/// Several rating columns of one file (`--rating-col A,B`), each read as one column is: an
/// item per row that some column rated, each column's rating or None.
pub fn column_rows(settings: &Settings, columns: &[LabelPairs], frame: &Frame) -> Result<Vec<Row>> {
    let groups = match &settings.columns.group {
        Some(col) => Some(frame.text(col, "--group-col", "group")?),
        None => None,
    };
    let mut by_row: std::collections::BTreeMap<usize, Row> = std::collections::BTreeMap::new();
    for (j, pairs) in columns.iter().enumerate() {
        let labelled = pairs.rows.iter().zip(&pairs.gold).zip(&pairs.rating);
        let labelled = labelled.map(|((&row, &g), &r)| (row, Some(g), r));
        let unlabelled = pairs.unlabelled_rows.iter().zip(&pairs.unlabelled);
        for (row, gold, rating) in labelled.chain(unlabelled.map(|(&row, &r)| (row, None, r))) {
            let item = by_row.entry(row).or_insert_with(|| Row {
                row: Some(row),
                gold: None,
                ratings: vec![None; columns.len()],
                p: None,
                group: groups.as_ref().map_or_else(String::new, |g| g[row].clone()),
            });
            item.gold = item.gold.or(gold);
            item.ratings[j] = Some(rating);
        }
    }
    Ok(by_row.into_values().collect())
}

/// Several annotators' items: each one's gold (their majority, or the policy's tie), the
/// judge's rating, its group (`groups`, one per item), and the annotators' votes.
pub fn annotated_rows(
    annotated: &Annotated,
    groups: Option<Vec<String>>,
    policy: NoMajority,
) -> (Vec<Row>, Annotations) {
    let rows = (0..annotated.votes.len())
        .map(|k| Row {
            row: None,
            gold: annotated.gold[k],
            ratings: vec![annotated.judge[k]],
            p: None,
            group: groups.as_ref().map_or_else(String::new, |g| g[k].clone()),
        })
        .collect();
    let annotations = Annotations {
        names: annotated.names.clone(),
        votes: annotated.votes.clone(),
        no_majority: annotated.no_majority,
        policy: policy.name().to_string(),
    };
    (rows, annotations)
}

/// The items as `calibrate`'s record: a configuration per rating column (`extras.names`, else
/// the rating column), each row an item (those without gold kept, unlabelled), in file order,
/// with what the analytics read when the options name it: the probability column, the two
/// responses (`--texts`: the bias diagnostics), the generators (`--generators`: the system
/// level), and `extras`.
pub fn record(
    settings: &Settings,
    rows: Vec<Row>,
    extras: Extras,
    labels: &Labels,
    frame: Option<&Frame>,
) -> Result<RunRecord> {
    let file_row = |k: usize| rows[k].row.unwrap_or(k);
    let items: Vec<ItemRow> = (0..rows.len())
        .map(|k| ItemRow {
            id: (file_row(k) + 1).to_string(),
            pair_id: (file_row(k) + 1).to_string(),
            subset: rows[k].group.clone(),
            order: crate::dataset::examples::Order::AsSource,
            gold: rows[k].gold,
            seeded: true,
        })
        .collect();
    let pairwise = labels.fits_pairwise();
    let needs_pairs = |flag: &str| {
        input_error(format!(
            "{}: {flag} reads pairwise ratings (-1 response 1 better, 0 tie, 1 response 2 better); the labels are {labels}: map them with --rating-map and --gold-map",
            settings.input.describe()
        ))
    };
    let texts = match (frame, &settings.long.texts) {
        (Some(f), Some((a, b))) => {
            if !pairwise {
                return Err(needs_pairs("--texts"));
            }
            Some((
                f.text(a, "--texts", "response")?,
                f.text(b, "--texts", "response")?,
            ))
        }
        _ => None,
    };
    let shapes = texts.map_or(extras.shapes, |(a, b)| {
        (0..rows.len())
            .map(|k| [Shape::of(&a[file_row(k)]), Shape::of(&b[file_row(k)])])
            .collect()
    });
    let generators = match (frame, &settings.systems) {
        (Some(f), Some(s)) => {
            if !pairwise {
                return Err(needs_pairs("--generators"));
            }
            Some(generators(
                s,
                f,
                &(0..rows.len()).map(file_row).collect::<Vec<_>>(),
            )?)
        }
        _ => None,
    };
    let names = if extras.names.is_empty() {
        vec![settings.columns.rating.clone()]
    } else {
        extras.names.clone()
    };
    let configs = names
        .into_iter()
        .enumerate()
        .map(|(j, name)| ConfigRecord {
            name,
            prompt: String::new(),
            rater: "basic".into(),
            kind: Some(crate::raters::RaterKind::Basic),
            judge: String::new(),
            simulated: false,
            outcomes: rows
                .iter()
                .map(|r| r.ratings[j].map_or(Outcome::NoVerdict, Outcome::Rated))
                .collect(),
            cost: Cost::default(),
            reasons: Vec::new(),
            pointwise: None,
            samples: None,
            // The probability column belongs to the one rating column.
            probability: settings
                .columns
                .probability
                .as_ref()
                .filter(|_| j == 0)
                .map(|column| ProbabilityRecord {
                    source: column.clone(),
                    p: rows.iter().map(|r| r.p).collect(),
                    missing: Vec::new(),
                }),
            jury: None,
        })
        .collect();
    Ok(RunRecord {
        labels: labels.clone(),
        inputs: extras.inputs,
        items,
        configs,
        both_orders: false,
        annotators: extras.annotators,
        shapes,
        depths: Vec::new(),
        generators,
    })
}

/// `--generators`: each item's two models and its prompt (the unit the bootstrap resamples),
/// from the file's `rows`, and the reference to rank them against.
pub fn generators(
    s: &crate::run::analysis::SystemsSettings,
    frame: &Frame,
    rows: &[usize],
) -> Result<crate::evaluation::Generators> {
    use crate::evaluation::Reference;
    let g1 = frame.text(&s.generators.0, "--generators", "model")?;
    let g2 = frame.text(&s.generators.1, "--generators", "model")?;
    let prompts = match &s.prompt {
        Some(c) => frame.text(c, "--prompt-col", "prompt")?,
        None => (0..frame.height()).map(|r| r.to_string()).collect(),
    };
    let models: Vec<[String; 2]> = rows
        .iter()
        .map(|&r| [g1[r].clone(), g2[r].clone()])
        .collect();
    let mut generators = crate::evaluation::Generators::of(
        models
            .iter()
            .zip(rows)
            .map(|(m, &r)| (Some(m), prompts[r].as_str())),
    )
    .ok_or_else(|| input_error("--generators: no row to rank models by"))?;
    generators.reference = match &s.reference {
        None => None,
        Some(crate::run::settings::ReferenceSpec::Gold) => Some(Reference::Gold),
        Some(crate::run::settings::ReferenceSpec::Table { path, model, score }) => {
            Some(Reference::Table {
                source: format!("{} ({score})", path.display()),
                scores: crate::dataset::reference::read(path, (model, score))?,
            })
        }
    };
    Ok(generators)
}
