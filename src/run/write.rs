//! A calibrate run's directory as it is written, one writer for every form, beside its reader
//! (`read/`, `file.rs`, `lines.rs`): run.json (the record's configurations and data as
//! `file.rs`'s types, what `report DIR` reads back), and items.jsonl and ratings.csv/.parquet
//! (a run over pairs: each item's texts and each configuration's rating; RewardBench 2's rows:
//! each row's completions in their slots and what each configuration made of it).
//! completions.jsonl is written while the run rates (`answers.rs`); the renderings (metrics.csv,
//! comparisons.csv, table.tex, plots, report.html) are `report/`'s.

use crate::dataset::rewardbench2::{slot_letter, Shown};
use crate::evaluation::rewardbench2::record::Rb2Rows;
use crate::evaluation::rewardbench2::score::Rb2Config;
use crate::evaluation::{ConfigRecord, Reference};
use crate::raters::rewardbench2::Protocol;
use crate::run::file::{
    AnnotatorsFile, ConfigFile, CostFile, DataFile, JuryFile, PointwiseFile, ReferenceFile,
    RowsConfigFile, RunFile, SCHEMA,
};
use crate::run::lines::{write_line, write_ordered, ItemLine, ResultLine, RowLine, TurnLine};
use crate::run::record::{ConfigMeta, Form, Run};
use anyhow::{Context, Result};
use polars::prelude::*;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Writes what `report DIR` reads back of a run, of either form: items.jsonl and
/// ratings.csv/.parquet by the form's record (a run over pairs: each item's texts and each
/// configuration's rating, only after a fresh run; RewardBench 2's rows: each row's completions
/// and what each configuration made of it), then run.json.
pub fn persist(run: &Run) -> Result<()> {
    record_files(run)?;
    run_json(run)
}

/// items.jsonl and ratings.csv/.parquet, by the form's record (`persist`'s first part; a run
/// over pairs writes them beside its evaluation, which they do not need).
pub fn record_files(run: &Run) -> Result<()> {
    let dir = &run.meta.head.dir;
    match run.meta.form {
        Form::Pairs => ratings(run, dir),
        Form::RewardBench2 => {
            rows_items(run, dir)?;
            rows_ratings(run, dir)
        }
    }
}

/// run.json (`persist`'s last part).
pub fn run_json(run: &Run) -> Result<()> {
    run_file(&run_file_of(run), &run.meta.head.dir)
}

/// Writes run.json.
fn run_file(file: &RunFile, dir: &Path) -> Result<()> {
    let path = dir.join("run.json");
    std::fs::write(&path, file.text()?).with_context(|| format!("writing '{}'", path.display()))
}

/// items.jsonl: each item's prompt, responses, generators and earlier turns as shown (only
/// after a fresh run, which has the texts).
fn write_items(run: &Run, dir: &Path) -> Result<()> {
    let Some(texts) = &run.texts else {
        return Ok(());
    };
    let path = dir.join("items.jsonl");
    let mut items = BufWriter::with_capacity(
        1 << 16,
        File::create(&path).with_context(|| format!("creating '{}'", path.display()))?,
    );
    let generators = run.record.generators.as_ref();
    for (i, (item, [prompt, r1, r2])) in run.record.items.iter().zip(texts).enumerate() {
        let [generator1, generator2] = generators.map_or([None, None], |g| {
            let [g1, g2] = &g.of_item[i];
            [Some(g1.as_str()), Some(g2.as_str())]
        });
        let line = ItemLine {
            id: item.id,
            prompt,
            response1: r1,
            response2: r2,
            generator1,
            generator2,
            // A conversation's turns before the prompt, each {role, content}.
            turns: run
                .histories
                .as_ref()
                .and_then(|h| h.get(i))
                .map_or_else(Vec::new, |t| t.iter().map(TurnLine::of).collect()),
        };
        write_ordered(&mut items, &line)?;
    }
    items.flush()?;
    Ok(())
}

/// A jury's row: each member's rating of item `k`, in member order ("-": no verdict).
fn jury_votes(
    jury: &crate::raters::jury::Jury,
    ratings: &[Vec<crate::raters::RatingRow>],
    k: usize,
) -> String {
    jury.members
        .iter()
        .map(|&m| {
            ratings[m][k]
                .rating
                .map_or("-".to_string(), |v| v.to_string())
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// ratings.csv/.parquet and items.jsonl of a run over pairs (only after a fresh run;
/// completions.jsonl was written by its `AnswerLog` as it rated).
fn ratings(run: &Run, dir: &Path) -> Result<()> {
    let Some(ratings) = &run.ratings else {
        return Ok(());
    };
    let mut line = 0usize;
    let (mut config, mut id, mut pair, mut subset, mut order, mut seeded) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    let (mut gold, mut rating, mut status, mut used, mut reason, mut reference) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    let (mut grade1, mut grade2, mut votes, mut vote_order) = (vec![], vec![], vec![], vec![]);
    let (mut p2, mut p_reason, mut expected1, mut expected2) = (vec![], vec![], vec![], vec![]);
    let mut member_votes = vec![];
    let annotations = run.record.annotators.as_ref();
    for (c, per_item) in run.record.configs.iter().zip(ratings) {
        for (k, (item, r)) in run.record.items.iter().zip(per_item).enumerate() {
            member_votes.push(c.jury.as_ref().map(|j| jury_votes(j, ratings, k)));
            votes.push(annotations.map(|a| {
                a.votes[k]
                    .iter()
                    .map(|v| v.map_or_else(String::new, |v| v.to_string()))
                    .collect::<Vec<_>>()
                    .join(",")
            }));
            vote_order.push(
                annotations
                    .and_then(|a| a.order.get(k))
                    .map(|o| o.iter().map(usize::to_string).collect::<Vec<_>>().join(",")),
            );
            let first_line = line + 1;
            line += r.samples();
            config.push(c.name.clone());
            id.push(item.id);
            pair.push(item.pair_id);
            subset.push(item.subset);
            order.push(item.order.key().to_string());
            seeded.push(item.seeded);
            gold.push(item.gold);
            rating.push(r.rating);
            status.push(r.status.key().to_string());
            used.push(r.used);
            reason.push(r.reason.as_deref().map(str::to_string));
            grade1.push(r.grades.and_then(|g| g.0));
            grade2.push(r.grades.and_then(|g| g.1));
            p2.push(r.p_response2);
            p_reason.push(r.p_problem.as_deref().map(str::to_string));
            expected1.push(r.expected_grades.and_then(|g| g.0));
            expected2.push(r.expected_grades.and_then(|g| g.1));
            reference
                .push((r.samples() > 0).then(|| format!("completions.jsonl:{first_line}-{line}")));
        }
    }
    write_items(run, dir)?;
    let mut columns = vec![
        Column::new("config".into(), config),
        Column::new("id".into(), id),
        Column::new("pair_id".into(), pair),
        Column::new("subset".into(), subset),
        Column::new("order".into(), order),
        Column::new("seeded".into(), seeded),
        Column::new("gold".into(), gold),
        Column::new("rating".into(), rating),
        Column::new("status".into(), status),
        Column::new("samples_used".into(), used),
        Column::new("reason".into(), reason),
        Column::new("completion_ref".into(), reference),
        Column::new("grade1".into(), grade1),
        Column::new("grade2".into(), grade2),
        // P(response 2, in the item's order, is the better one); empty when there is none.
        Column::new("p_response2".into(), p2),
        Column::new("p_reason".into(), p_reason),
        Column::new("expected_grade1".into(), expected1),
        Column::new("expected_grade2".into(), expected2),
    ];
    // Several annotators' labels ("a,b,c" per row), only when gold is their majority.
    if annotations.is_some() {
        columns.push(Column::new("votes".into(), votes));
    }
    // Long form by annotator: each item's annotators in file order ("2,0,5", indices into
    // run.json's annotators), which AlpacaEval's measures read by position.
    if annotations.is_some_and(|a| !a.order.is_empty()) {
        columns.push(Column::new("vote_order".into(), vote_order));
    }
    // The members' ratings ("-1,1,-" in the order run.json lists them), on a jury's rows.
    if run.record.configs.iter().any(|c| c.jury.is_some()) {
        columns.push(Column::new("member_votes".into(), member_votes));
    }
    // The models that wrote response 1 and 2 (as shown), when the data says.
    if let Some(g) = &run.record.generators {
        let configs = run.record.configs.len();
        for (k, name) in ["generator1", "generator2"].into_iter().enumerate() {
            let values: Vec<&str> = (0..configs)
                .flat_map(|_| g.of_item.iter().map(move |pair| pair[k].as_str()))
                .collect();
            columns.push(Column::new(name.into(), values));
        }
    }
    let df = DataFrame::new_infer_height(columns)?;
    crate::dataset::frame::write(df.clone(), &dir.join("ratings.parquet"))?;
    crate::dataset::frame::write(df, &dir.join("ratings.csv"))
}

/// A configuration as run.json keeps it: its settings as called (when the run keeps them), its
/// record's cost, rules and jury, and on RewardBench 2 rows what the rows' scoring reads back
/// (its protocol, floor and rule, and a jury's members by name).
fn config_file(
    meta: Option<&ConfigMeta>,
    (k, all): (usize, &[ConfigRecord]),
    rows: Option<&Rb2Rows>,
) -> ConfigFile {
    let rec = &all[k];
    let name_of = |m: usize| all[m].name.clone();
    let mut file = ConfigFile {
        cost: CostFile::from(rec.cost),
        pointwise: rec.pointwise.as_ref().map(|p| PointwiseFile {
            lowest: p.lowest,
            order_blind: p.order_blind,
            tie_margin: p.tie_margin,
        }),
        probability: rec.probability.as_ref().map(|p| p.source.clone()),
        simulated: rec.simulated,
        jury: rec.jury.as_ref().map(|j| JuryFile {
            members: j.members.iter().map(|&m| name_of(m)).collect(),
            vote: j.vote.key().to_string(),
            weights: j.weights.clone(),
            tie_margin: j.tie_margin,
        }),
        name: rec.name.clone(),
        ..ConfigFile::default()
    };
    if let Some(meta) = meta {
        file.price = meta.price;
        file.judge.clone_from(&meta.judge);
        file.max_tokens = meta.max_tokens;
        file.model.clone_from(&meta.model);
        file.parser.clone_from(&meta.parser);
        file.prompt.clone_from(&meta.prompt);
        file.rater.clone_from(&meta.rater);
        file.simulated = meta.simulated;
        file.system.clone_from(&meta.system);
        file.temperature = meta.temperature;
        file.template.clone_from(&meta.template);
    }
    if let Some((m, rows)) = rows.and_then(|r| Some((r.made.get(k)?, r))) {
        file.rows = Some(RowsConfigFile {
            floor: m.floor,
            missing: rows.missing.key().to_string(),
            protocol: m.protocol.key().to_string(),
        });
        file.jury = m.jury.as_ref().map(|vote| JuryFile {
            members: m.members.iter().map(|&k| name_of(k)).collect(),
            vote: vote.clone(),
            weights: Vec::new(),
            tie_margin: 0.0,
        });
    }
    file
}

/// run.json of a run, of either form: who it is, its data, each configuration and the
/// settings its evaluation took.
fn run_file_of(run: &Run) -> RunFile {
    let m = &run.meta;
    let rows = run.record.inputs.get::<Rb2Rows>();
    RunFile {
        bootstrap: m.head.bootstrap,
        command: m.head.command.clone(),
        configs: (0..run.record.configs.len())
            .map(|k| config_file(m.configs.get(k), (k, &run.record.configs), rows))
            .collect(),
        created_unix: m.head.created_unix,
        estimate: m.estimate,
        alt_test: m.alt_test.epsilon.is_some().then_some(m.alt_test),
        data: DataFile {
            annotators: run.record.annotators.as_ref().map(|a| AnnotatorsFile {
                names: a.names.clone(),
                policy: a.policy.clone(),
            }),
            both_orders: m.head.both_orders,
            checksum_sha256: m.checksum.clone(),
            form: m.form,
            items: run.record.items.len(),
            rows: rows.map(|r| r.rows.len()),
            no_majority: m.no_majority,
            unlabelled: run.record.unlabelled(),
            seed: m.head.seed,
            source: m.head.source.clone(),
            unshared: m.unshared.clone(),
            reference: run
                .record
                .generators
                .as_ref()
                .and_then(|g| g.reference.as_ref())
                .map(|r| match r {
                    Reference::Gold => ReferenceFile {
                        source: r.source(),
                        gold: true,
                        scores: Vec::new(),
                    },
                    Reference::Table { source, scores } => ReferenceFile {
                        source: source.clone(),
                        gold: false,
                        scores: scores.clone(),
                    },
                }),
        },
        name: m.head.name.clone(),
        raterlab_version: env!("CARGO_PKG_VERSION").into(),
        schema: crate::run::file::Version(SCHEMA),
        sequential: m.sequential.clone().map(Box::new),
        sort: m.sort.map(|s| s.key().to_string()),
        family: m.family.key().to_string(),
        alpha: m.alpha,
    }
}

/// Each completion's grade, in slot order.
fn slot_grades(shown: &Shown, c: &Rb2Config, row: usize) -> Option<Vec<Option<f64>>> {
    let scored = c.scored.get(row)?;
    if scored.decided.is_some() {
        return None;
    }
    Some(
        shown
            .order
            .iter()
            .map(|&k| scored.scores.get(k).copied().flatten())
            .collect(),
    )
}

/// Pairs won of pairs judged ("2/3"), for pairwise configurations.
fn won(c: &Rb2Config, row: usize) -> Option<String> {
    let o = c.outcomes.get(row).filter(|o| !o.wins.is_empty())?;
    let n = o.wins.iter().filter(|w| **w == Some(true)).count();
    Some(format!("{n}/{}", o.wins.len()))
}

/// What a configuration made of a row: its result, pick, grades by slot and pairs won (and,
/// pairwise, each pair: won, lost or unread).
pub fn outcome_json(shown: &Shown, c: &Rb2Config, row: usize) -> ResultLine {
    ResultLine {
        config: c.name.clone(),
        result: c.results.get(row).copied().flatten(),
        pick: c.outcomes.get(row).and_then(|o| o.pick),
        grades: slot_grades(shown, c, row),
        wins: won(c, row),
        pairs: (c.protocol == Protocol::Pairwise)
            .then(|| c.outcomes.get(row).map(|o| o.wins.clone()))
            .flatten(),
        verdicts: (c.protocol == Protocol::Pairwise)
            .then(|| c.outcomes.get(row).map(|o| o.verdicts.clone()))
            .flatten()
            .filter(|v| !v.is_empty()),
    }
}

fn letters(slots: &[usize]) -> String {
    slots
        .iter()
        .map(|&s| slot_letter(s))
        .collect::<Vec<_>>()
        .join(",")
}

/// items.jsonl of a run over RewardBench 2 rows: each row's completions in their slots, the
/// correct slots and what each configuration made of the row.
fn rows_items(run: &Run, dir: &Path) -> Result<()> {
    let path = dir.join("items.jsonl");
    let mut out = BufWriter::new(
        File::create(&path).with_context(|| format!("creating '{}'", path.display()))?,
    );
    for (k, shown) in run.shown().iter().enumerate() {
        let line = RowLine {
            id: shown.row.id.clone(),
            subset: shown.row.subset.clone(),
            prompt: shown.row.prompt.clone(),
            completions: (0..shown.order.len())
                .map(|s| shown.at(s).to_string())
                .collect(),
            order: shown.order.clone(),
            correct: shown
                .gold
                .iter()
                .map(|&s| slot_letter(s).to_string())
                .collect(),
            results: run
                .rewardbench2()
                .configs
                .iter()
                .map(|c| outcome_json(shown, c, k))
                .collect(),
        };
        write_line(&mut out, &line)?;
    }
    out.flush()
        .with_context(|| format!("writing '{}'", path.display()))
}

/// ratings.csv/.parquet of a run over RewardBench 2 rows: per configuration and row, the
/// result, the pick or the grades, the correct slots.
fn rows_ratings(run: &Run, dir: &Path) -> Result<()> {
    let (mut config, mut protocol, mut id, mut subset, mut correct) =
        (vec![], vec![], vec![], vec![], vec![]);
    let (mut result, mut pick, mut other, mut grades, mut won) =
        (vec![], vec![], vec![], vec![], vec![]);
    for c in &run.rewardbench2().configs {
        for (k, shown) in run.shown().iter().enumerate() {
            let o = c.outcomes.get(k);
            config.push(c.name.clone());
            protocol.push(c.protocol.key());
            id.push(shown.row.id.clone());
            subset.push(shown.row.subset.clone());
            correct.push(letters(&shown.gold));
            result.push(c.results.get(k).copied().flatten());
            pick.push(o.and_then(|o| o.pick).map(slot_letter));
            other.push(o.and_then(|o| o.other_pick).map(slot_letter));
            grades.push(slot_grades(shown, c, k).map(|g| {
                g.iter()
                    .map(|x| x.map_or_else(String::new, |v| v.to_string()))
                    .collect::<Vec<_>>()
                    .join(";")
            }));
            won.push(self::won(c, k));
        }
    }
    let df = DataFrame::new_infer_height(vec![
        Column::new("config".into(), config),
        Column::new("protocol".into(), protocol),
        Column::new("id".into(), id),
        Column::new("subset".into(), subset),
        Column::new("correct".into(), correct),
        Column::new("result".into(), result),
        Column::new("pick".into(), pick),
        Column::new("pick_other_reader".into(), other),
        Column::new("grades".into(), grades),
        Column::new("pairs_won".into(), won),
    ])?;
    crate::dataset::frame::write(df.clone(), &dir.join("ratings.parquet"))?;
    crate::dataset::frame::write(df, &dir.join("ratings.csv"))
}
