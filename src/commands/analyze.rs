//! `raterlab analyze`: agreement statistics for existing ratings.

use crate::dataset::frame;
use crate::dataset::frame::Frame;
use crate::dataset::labels::{self, LabelPairs, NoMajority};
use crate::dataset::long;
use crate::error::input_error;
use crate::evaluation::annotators;
use crate::evaluation::evaluator;
use crate::metrics::{Agreement, Contingency, Labels};
use crate::run::analysis::{Analysis, Input, LongForm, Settings, Table};
use anyhow::Result;

/// Agreement for one set of pairs, with bootstrap intervals when asked.
pub fn agreement(table: Contingency, bootstrap: usize, seed: u64) -> Agreement {
    Agreement::with_bootstrap(table, bootstrap, seed)
}

/// Agreement per group, sorted by group name.
pub fn by_group(
    pairs: &LabelPairs,
    labels: &Labels,
    bootstrap: usize,
    seed: u64,
) -> Result<Vec<(String, Agreement)>> {
    let mut groups = Vec::new();
    if let Some(g) = &pairs.groups {
        let mut gold: Vec<Vec<i64>> = vec![Vec::new(); g.names.len()];
        let mut rating: Vec<Vec<i64>> = vec![Vec::new(); g.names.len()];
        for ((&code, &gv), &rv) in g.of_pair.iter().zip(&pairs.gold).zip(&pairs.rating) {
            gold[code as usize].push(gv);
            rating[code as usize].push(rv);
        }
        for (i, name) in g.names.iter().enumerate() {
            let table = Contingency::from_pairs(labels, &gold[i], &rating[i])?;
            groups.push((name.clone(), agreement(table, bootstrap, seed)));
        }
        groups.sort_by(|a, b| a.0.cmp(&b.0));
    }
    Ok(groups)
}

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
            let mut analysis = analyze_pairs(settings, &none, labels)?;
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
    let mut analysis = analyze_pairs(settings, &pairs, labels)?;
    if let Some((label, alpha)) = &settings.estimate {
        let frame = one.as_ref().ok();
        analysis.estimate = Some(super::estimate::of_pairs(
            settings,
            &pairs,
            frame,
            (label.as_deref(), *alpha),
        )?);
    }
    if pairs.gold.is_empty() {
        return Ok(analysis);
    }
    if let (Some(s), Ok(frame)) = (&settings.systems, &one) {
        if !analysis
            .labels
            .as_slice()
            .iter()
            .all(|l| (-1..=1).contains(l))
        {
            return Err(input_error(format!(
                "--generators reads pairwise ratings (-1 response 1 better, 0 tie, 1 response 2 better); the labels are {}: map them with --rating-map and --gold-map",
                analysis.labels
            )));
        }
        analysis.systems = Some(systems(settings, s, frame, &pairs)?);
    }
    Ok(analysis)
}

/// `--generators`: the rows as one configuration's ratings of items whose responses these
/// models wrote, through the system level `calibrate` uses.
fn systems(
    settings: &Settings,
    s: &crate::run::analysis::SystemsSettings,
    frame: &Frame,
    pairs: &LabelPairs,
) -> Result<crate::evaluation::systems::Systems> {
    use crate::evaluation::{
        ConfigRecord, Cost, EvalSettings, Generators, ItemRow, Outcome, ProbabilityRecord,
        Reference, RunRecord,
    };
    let g1 = frame.text(&s.generators.0, "--generators", "model")?;
    let g2 = frame.text(&s.generators.1, "--generators", "model")?;
    let prompts = match &s.prompt {
        Some(c) => frame.text(c, "--prompt-col", "prompt")?,
        None => (0..frame.height()).map(|r| r.to_string()).collect(),
    };
    let models: Vec<[String; 2]> = pairs
        .rows
        .iter()
        .map(|&r| [g1[r].clone(), g2[r].clone()])
        .collect();
    let mut generators = Generators::of(
        models
            .iter()
            .zip(&pairs.rows)
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
    let items: Vec<ItemRow> = pairs
        .rows
        .iter()
        .zip(&pairs.gold)
        .map(|(r, &gold)| ItemRow {
            id: r.to_string(),
            pair_id: r.to_string(),
            subset: String::new(),
            order: crate::dataset::examples::Order::AsSource,
            gold: Some(gold),
            seeded: true,
        })
        .collect();
    let config = ConfigRecord {
        name: settings.columns.rating.clone(),
        prompt: String::new(),
        rater: "basic".into(),
        kind: Some(crate::raters::RaterKind::Basic),
        judge: String::new(),
        simulated: false,
        outcomes: pairs.rating.iter().map(|&r| Outcome::Rated(r)).collect(),
        cost: Cost::default(),
        reasons: Vec::new(),
        pointwise: None,
        samples: None,
        probability: pairs.probability.as_ref().map(|p| ProbabilityRecord {
            source: "column".into(),
            p: p.clone(),
            missing: Vec::new(),
        }),
        jury: None,
    };
    let run = RunRecord {
        items,
        configs: vec![config],
        both_orders: false,
        annotators: None,
        shapes: Vec::new(),
        depths: Vec::new(),
        generators: Some(generators),
    };
    let eval = EvalSettings::new(settings.bootstrap, settings.seed);
    crate::evaluation::systems::systems(&run, eval)
        .and_then(|(mut rows, _)| rows.pop())
        .ok_or_else(|| input_error("--generators: no row to rank models by"))
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
    let mut analysis = analyze_pairs(settings, &annotated.pairs, labels)?;
    analysis.annotators = Some(panel);
    Ok(analysis)
}

/// The agreement of aligned pairs, overall and per group.
pub fn analyze_pairs(settings: &Settings, pairs: &LabelPairs, labels: Labels) -> Result<Analysis> {
    let table = Contingency::from_pairs(&labels, &pairs.gold, &pairs.rating)?;
    let overall = agreement(table, settings.bootstrap, settings.seed);
    let groups = by_group(pairs, &labels, settings.bootstrap, settings.seed)?;
    let probability = pairs
        .probability
        .as_ref()
        .map(|p| probability(settings, pairs, &labels, p))
        .transpose()?;
    Ok(Analysis {
        source: settings.input.describe(),
        labels,
        bootstrap: settings.bootstrap,
        seed: settings.seed,
        overall,
        groups,
        only_in_gold: pairs.only_in_gold,
        only_in_ratings: pairs.only_in_ratings,
        unlabelled: pairs.unlabelled.len(),
        dropped_gold: pairs.dropped_gold,
        dropped_ratings: pairs.dropped_ratings,
        annotators: None,
        probability,
        long: None,
        systems: None,
        sequential: sequential(settings, pairs),
        estimate: None,
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
/// `--probability COL`: P(the positive label, the largest of the set) against gold. With a
/// three-label set (pairwise -1, 0, 1) gold ties are left out; more labels have no positive
/// side.
fn probability(
    settings: &Settings,
    pairs: &LabelPairs,
    labels: &Labels,
    p: &[Option<f64>],
) -> Result<crate::evaluation::probability::ProbabilityStats> {
    let set = labels.as_slice();
    if !(2..=3).contains(&set.len()) {
        return Err(input_error(format!(
            "--probability needs two labels (negative, positive) or three (-1, tie, 1); the labels are {labels}"
        )));
    }
    let labels = (set[set.len() - 1], (set.len() == 3).then(|| set[1]));
    let rows = pairs
        .gold
        .iter()
        .zip(&pairs.rating)
        .zip(p)
        .filter_map(|((&g, &r), p)| Some((g, Some(r), (*p)?)));
    Ok(crate::evaluation::probability::stats(
        settings.columns.probability.as_deref().unwrap_or_default(),
        pairs.gold.len(),
        rows,
        labels,
        crate::evaluation::EvalSettings::new(settings.bootstrap, settings.seed),
    ))
}
