//! `raterlab analyze`: agreement statistics for existing ratings.

use crate::dataset::frame;
use crate::dataset::labels::{self, LabelPairs, NoMajority};
use crate::error::input_error;
use crate::evaluation::annotators;
use crate::metrics::{Agreement, Contingency, Labels};
use crate::run::analysis::{Analysis, Input, Settings};
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

pub fn run(settings: &Settings) -> Result<Analysis> {
    // One table (a file or a program's values), or the two files to join.
    let one = match &settings.input {
        Input::One(path) => Ok(frame::read(path)?),
        Input::Values(frame) => Ok(frame.clone()),
        Input::Two { gold, ratings } => Err((gold, ratings)),
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
        let labels = settings.labels.clone().unwrap_or_else(|| {
            let votes: Vec<i64> = annotated
                .votes
                .iter()
                .flatten()
                .flatten()
                .copied()
                .collect();
            let judged: Vec<i64> = annotated.judge.iter().flatten().copied().collect();
            Labels::infer(&votes, &judged)
        });
        if *policy == NoMajority::Tie && !labels.contains(0) {
            return Err(input_error(format!(
                "--no-majority tie scores items without a majority as 0, which is not in the label set {labels}; use --no-majority drop or add 0 to --labels"
            )));
        }
        let report = annotators::report(
            &labels,
            annotated.names.clone(),
            &annotated.votes,
            Some(&annotated.judge),
            (annotated.no_majority, policy.name()),
            settings.bootstrap,
            settings.seed,
        )?;
        let mut analysis = analyze_pairs(settings, &annotated.pairs, labels)?;
        analysis.annotators = Some(report);
        return Ok(analysis);
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
            ratings,
            &settings.columns,
            &settings.reading,
            settings.labels.as_ref(),
        )?,
    };
    let labels = settings
        .labels
        .clone()
        .unwrap_or_else(|| Labels::infer(&pairs.gold, &pairs.rating));
    analyze_pairs(settings, &pairs, labels)
}

/// The agreement of aligned pairs, overall and per group.
fn analyze_pairs(settings: &Settings, pairs: &LabelPairs, labels: Labels) -> Result<Analysis> {
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
        dropped_gold: pairs.dropped_gold,
        dropped_ratings: pairs.dropped_ratings,
        annotators: None,
        probability,
    })
}

/// `--probability COL`: P(the positive label, the largest of the set) against gold. With a
/// three-label set (pairwise -1, 0, 1) gold ties are left out; more labels have no positive
/// side.
fn probability(
    settings: &Settings,
    pairs: &LabelPairs,
    labels: &Labels,
    p: &[Option<f64>],
) -> Result<crate::evaluation::ProbabilityStats> {
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
    Ok(crate::evaluation::probability_stats(
        settings.columns.probability.as_deref().unwrap_or_default(),
        pairs.gold.len(),
        rows,
        labels,
        crate::evaluation::EvalSettings {
            bootstrap: settings.bootstrap,
            seed: settings.seed,
        },
    ))
}
