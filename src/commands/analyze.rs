//! `raterlab analyze`: agreement statistics for existing ratings.

use crate::dataset::frame;
use crate::dataset::frame::Frame;
use crate::dataset::labels::{self, LabelPairs, NoMajority};
use crate::dataset::long;
use crate::error::input_error;
use crate::evaluation::annotators;
use crate::evaluation::evaluator;
use crate::evaluation::systems::Systems;
use crate::evaluation::RunRecord;
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
    if let (Some((columns, policy)), Ok(frame)) = (&settings.annotators, &one) {
        let annotated = labels::load_annotators(
            frame,
            &settings.columns,
            columns,
            &settings.reading,
            settings.labels.as_ref(),
            *policy,
        )?;
        return annotated_analysis(settings, &annotated, &[], *policy);
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

/// A rated row: its row in the file (one-file form), gold, rating, probability and group.
struct Row {
    row: Option<usize>,
    gold: Option<i64>,
    rating: i64,
    p: Option<f64>,
    group: String,
}

/// The rows as `calibrate`'s record: one configuration (the rating column), each rated row an
/// item (those without gold kept, unlabelled), in file order, with what the analytics read when
/// the options name it: the probability column, the two responses (`--texts`: the bias
/// diagnostics), the generators (`--generators`: the system level).
fn record(
    settings: &Settings,
    pairs: &LabelPairs,
    labels: &Labels,
    frame: Option<&Frame>,
) -> Result<RunRecord> {
    use crate::evaluation::{ConfigRecord, Cost, ItemRow, Outcome, ProbabilityRecord, Shape};
    // The labelled pairs, then the unlabelled ratings, merged back into file order when the
    // rows are known.
    let groups = pairs.groups.as_ref();
    let mut rows: Vec<Row> = (0..pairs.gold.len())
        .map(|k| Row {
            row: pairs.rows.get(k).copied(),
            gold: Some(pairs.gold[k]),
            rating: pairs.rating[k],
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
        let group = group.unwrap_or_default();
        rows.push(Row {
            row,
            gold: None,
            rating,
            p,
            group,
        });
    }
    rows.sort_by_key(|r| r.row);
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
    let pairwise =
        *labels == Labels::pairwise() || labels.as_slice().iter().all(|l| (-1..=1).contains(l));
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
    let shapes = texts.map_or_else(Vec::new, |(a, b)| {
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
    let config = ConfigRecord {
        name: settings.columns.rating.clone(),
        prompt: String::new(),
        rater: "basic".into(),
        kind: Some(crate::raters::RaterKind::Basic),
        judge: String::new(),
        simulated: false,
        outcomes: rows.iter().map(|r| Outcome::Rated(r.rating)).collect(),
        cost: Cost::default(),
        reasons: Vec::new(),
        pointwise: None,
        samples: None,
        probability: settings
            .columns
            .probability
            .as_ref()
            .map(|column| ProbabilityRecord {
                source: column.clone(),
                p: rows.iter().map(|r| r.p).collect(),
                missing: Vec::new(),
            }),
        jury: None,
    };
    Ok(RunRecord {
        labels: labels.clone(),
        items,
        configs: vec![config],
        both_orders: false,
        annotators: None,
        shapes,
        depths: Vec::new(),
        generators,
    })
}

/// `--generators`: each item's two models and its prompt (the unit the bootstrap resamples),
/// from the file's `rows`, and the reference to rank them against.
fn generators(
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

/// Several annotators per item (gold their majority) and a judge: the agreement figures and
/// the annotator panel. `judged`: every label the judge gave, beside its first ratings, for
/// inferring the label set.
fn annotated_analysis(
    settings: &Settings,
    annotated: &labels::Annotated,
    judged: &[i64],
    policy: NoMajority,
) -> Result<Analysis> {
    let labels = settings.labels.clone().unwrap_or_else(|| {
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
    });
    if policy == NoMajority::Tie && !labels.contains(0) {
        return Err(input_error(format!(
            "--no-majority tie scores items without a majority as 0, which is not in the label set {labels}; use --no-majority drop or add 0 to --labels"
        )));
    }
    let panel = annotators::report(
        &labels,
        annotated.names.clone(),
        &annotated.votes,
        Some(&annotated.judge),
        (annotated.no_majority, policy.name()),
        settings.bootstrap,
        settings.seed,
    )?;
    let mut analysis = analyze_pairs(settings, &annotated.pairs, labels, None)?;
    analysis.annotators = Some(panel);
    Ok(analysis)
}

/// The aligned pairs as a record (`record`), through the evaluation `calibrate` runs: the
/// agreement overall and per group, and every analytic whose inputs the options give.
pub fn analyze_pairs(
    settings: &Settings,
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
    let record = record(settings, pairs, &labels, frame)?;
    let evaluation = crate::evaluation::registry::evaluate(
        &record,
        crate::evaluation::EvalSettings::new(settings.bootstrap, settings.seed),
    );
    if settings.systems.is_some() && frame.is_some() && evaluation.of_config::<Systems>(0).is_none()
    {
        return Err(input_error("--generators: no row to rank models by"));
    }
    let result = &evaluation.configs[0];
    let groups = match &pairs.groups {
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

/// AlpacaEval's evaluator measures on long form's annotations: the humans' and the judge's on
/// AlpacaEval's scale (the file's own number where it gives one, a weighted judge's 1.27, else
/// the label's: 1, 1.5, 2), with the texts' shapes when the files hold them.
fn measures(
    settings: &Settings,
    annotated: &crate::dataset::labels::Annotated,
    joined: &long::Joined,
    texts: Option<&(Vec<String>, Vec<String>)>,
) -> evaluator::EvaluatorReport {
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
    let shapes: Option<Vec<evaluator::TextShape>> = texts.map(|(a, b)| {
        joined
            .item_rows
            .iter()
            .map(|&r| evaluator::TextShape::of(&a[r], &b[r]))
            .collect()
    });
    evaluator::report(
        &sheet(&annotated.votes, &joined.gold_prefs),
        &sheet(&joined.judge, &joined.judge_prefs),
        shapes.as_deref(),
        settings.bootstrap,
        settings.seed,
    )
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
    if let Some(col) = &settings.columns.group {
        annotated.pairs.groups = Some(long::groups(gold, col, &joined)?);
    }
    if annotated.pairs.gold.is_empty() {
        return Err(input_error(format!(
            "no item has both a majority of its {} gold annotations and a readable first rating; check the files' keys (--id-col) and labels",
            joined.annotations_per_item
        )));
    }
    let judged: Vec<i64> = joined.judge.iter().flatten().flatten().copied().collect();
    let mut analysis = annotated_analysis(settings, &annotated, &judged, policy)?;
    let labels = analysis.labels.clone();
    let pairwise = labels.as_slice().iter().all(|l| (-1..=1).contains(l));
    if !pairwise {
        crate::report::media::format::warn(&format!(
            "AlpacaEval's evaluator measures need pairwise labels (-1, 0, 1); the labels are {labels}: map the files' values with --gold-map and --rating-map (e.g. 1=-1,2=1)"
        ));
    }
    let measures = pairwise.then(|| measures(settings, &annotated, &joined, texts.as_ref()));
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
        measures,
    });
    Ok(analysis)
}
