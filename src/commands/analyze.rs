//! `raterlab analyze`: agreement statistics for existing ratings. Its loader
//! (`run::ratings`) reads the tables into `calibrate`'s record, which goes through
//! `calibrate`'s evaluation; the sequential comparison and the corrected estimate are its own.

use crate::dataset::labels::LabelPairs;
use crate::error::input_error;
use crate::evaluation::estimate::Estimate;
use crate::evaluation::sequential::{self, Sequential};
use crate::evaluation::systems::Systems;
use crate::run::analysis::Analysis;
use crate::run::ratings::{self, Loaded, Tables};
use crate::run::settings::AnalyzeSettings;
use anyhow::Result;

pub fn run(settings: &AnalyzeSettings) -> Result<Analysis> {
    if settings.store.is_some() {
        let (settings, gold) = crate::run::gold::analyze_gold(settings)?;
        let mut analysis = run(&settings)?;
        analysis.source = format!("{} · {gold}", analysis.source);
        return Ok(analysis);
    }
    let mut tables = Tables::read(&settings.input)?;
    // --pac names the items to label by id; nothing else reads them after this.
    tables.check_ids(settings.columns.id.as_deref(), settings.pac.is_some())?;
    let estimate = settings.estimate.as_ref();
    let estimate = estimate.map(|(label, alpha)| (label.as_deref(), *alpha));
    // `--estimate` with numeric ratings (a probability): the estimate alone, no label pair;
    // two files are joined on their ids first.
    let two_as_one = match (&tables, estimate) {
        // --label-prob reads π beside each row: one file (`label_probs` says so).
        (Tables::Two { gold, ratings }, Some(_))
            if ratings.len() == 1
                && settings.label_prob.is_none()
                && crate::run::estimate::numbers(&ratings[0], &settings.columns.rating)
                    .is_some() =>
        {
            Some(crate::run::estimate::joined(settings, gold, &ratings[0])?)
        }
        _ => None,
    };
    if let (Some(asked), Some(frame)) = (estimate, tables.one().or(two_as_one.as_ref())) {
        if let Some((e, dropped_ratings)) = crate::run::estimate::of_values(settings, frame, asked)?
        {
            let none = LabelPairs {
                dropped_ratings,
                ..LabelPairs::default()
            };
            let mut loaded = ratings::of_pairs(settings, none)?.loaded(settings);
            loaded.reading.unlabelled = e.n_unlabelled;
            return analysis(settings, loaded, Some(e));
        }
    }
    let pac = match (&settings.pac, tables.one()) {
        (Some(asked), Some(frame)) => {
            let result = crate::run::pac::of_frame(settings, frame, asked)?;
            if let Some(path) = &asked.2 {
                crate::report::analyze::write_pac_queue(&result, path)?;
            }
            Some(result)
        }
        (Some(_), None) => {
            return Err(input_error(
                "--pac reads the judge, its uncertainty and the first round's gold from one --input file",
            ))
        }
        _ => None,
    };
    let read = ratings::load(settings, &tables)?;
    // The tables are read: the record is built, and evaluated, without them in memory.
    drop(tables);
    let loaded = read.loaded(settings);
    let estimate = match estimate {
        Some(asked) => Some(crate::run::estimate::of_record(
            settings,
            &loaded.record,
            asked,
        )?),
        None => None,
    };
    let mut analysis = analysis(settings, loaded, estimate)?;
    analysis.pac = pac;
    Ok(analysis)
}

/// The record through `calibrate`'s evaluation: the agreement overall and per group, and every
/// analytic whose inputs the options gave.
fn analysis(settings: &AnalyzeSettings, loaded: Loaded, e: Option<Estimate>) -> Result<Analysis> {
    let named = (loaded.record.annotators.as_ref()).is_some_and(|a| !a.label_names.is_empty());
    if named && settings.alt_test.score == Some(crate::metrics::alt_test::Score::NegRmse) {
        return Err(input_error(
            "--alt-test-score neg_rmse reads graded labels as numbers, and these labels are names; score them by accuracy, or map the names to numbers with --gold-map and --rating-map (e.g. low=1,mid=2,high=3)",
        ));
    }
    let several = loaded.record.annotators.is_some();
    if settings.alt_test.epsilon.is_some() && !several {
        return Err(input_error(
            "--alt-test compares the judge with several annotators; name their columns with --annotators a1,a2,a3 (or give their labels in long form: --gold with an annotator column)",
        ));
    }
    let evaluation = crate::evaluation::registry::evaluate(
        &loaded.record,
        crate::evaluation::EvalSettings {
            alpha: settings.alpha,
            options: crate::evaluation::Options::default().with(settings.alt_test),
            ..crate::evaluation::EvalSettings::new(settings.bootstrap, settings.seed)
        },
    );
    if loaded.record.generators.is_some() && evaluation.of_config::<Systems>(0).is_none() {
        return Err(input_error("--generators: no row to rank models by"));
    }
    Ok(Analysis {
        source: settings.input.describe(),
        bootstrap: settings.bootstrap,
        seed: settings.seed,
        reading: loaded.reading,
        long: loaded.long,
        sequential: compared_as_they_come(settings, &loaded.pairs),
        estimate: e,
        pac: None,
        record: loaded.record,
        evaluation,
    })
}

/// `--compare-col --sequential`: the rating column (A) against the compare column (B), in file
/// order, on the items with a gold label that both read.
fn compared_as_they_come(
    settings: &AnalyzeSettings,
    pairs: &LabelPairs,
) -> Option<(Sequential, [String; 2])> {
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
        sequential::sequential(gold, a, b, settings.alpha),
        [
            names.rating.clone(),
            names.compare.clone().unwrap_or_default(),
        ],
    ))
}
