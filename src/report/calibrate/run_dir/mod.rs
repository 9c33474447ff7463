//! The run directory: everything a calibrate run produced, in files a paper (or
//! `raterlab report DIR`) can use without calling any judge again.

pub mod rewardbench2;
mod run_file;

pub use run_file::run_file;

use crate::evaluation::{Comparison, Scope};
use crate::report::calibrate::latex;
use crate::report::calibrate::plots;
use crate::report::calibrate::sections::SECTIONS;
use crate::report::media::csv::{write_csv, TidyRows};
use crate::run::file::RunFile;
use crate::run::lines::{write_line, ItemTexts};
use crate::run::record::Run;
use anyhow::{Context, Result};
use polars::prelude::*;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// items.jsonl: each item's prompt, responses, generators and earlier turns as shown (only
/// after a fresh run, which has the texts).
fn write_items(run: &Run, dir: &Path) -> Result<()> {
    let Some(texts) = &run.texts else {
        return Ok(());
    };
    let path = dir.join("items.jsonl");
    let mut items = BufWriter::new(
        File::create(&path).with_context(|| format!("creating '{}'", path.display()))?,
    );
    let generators = run.record.generators.as_ref();
    for (i, (item, [prompt, r1, r2])) in run.record.items.iter().zip(texts).enumerate() {
        let [generator1, generator2] = generators.map_or([None, None], |g| {
            let [g1, g2] = &g.of_item[i];
            [Some(g1.clone()), Some(g2.clone())]
        });
        let line = ItemTexts {
            id: item.id.clone(),
            prompt: prompt.clone(),
            response1: r1.clone(),
            response2: r2.clone(),
            generator1,
            generator2,
            // A conversation's turns before the prompt, each {role, content}.
            turns: run
                .histories
                .as_ref()
                .and_then(|h| h.get(i))
                .map_or_else(Vec::new, |t| t.to_vec()),
        };
        write_line(&mut items, &line)?;
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

/// ratings.csv/.parquet (only after a fresh run; completions.jsonl was written by its
/// `AnswerLog` as it rated).
fn write_ratings(run: &Run, dir: &Path) -> Result<()> {
    let Some(ratings) = &run.ratings else {
        return Ok(());
    };
    let mut line = 0usize;
    let (mut config, mut id, mut pair, mut subset, mut order, mut seeded) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    let (mut gold, mut rating, mut status, mut used, mut reason, mut reference) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    let (mut grade1, mut grade2, mut votes) = (vec![], vec![], vec![]);
    let (mut p2, mut p_reason, mut expected1, mut expected2) = (vec![], vec![], vec![], vec![]);
    let mut member_votes = vec![];
    let annotations = run.record.annotators.as_ref();
    for (c, per_item) in run.record.configs.iter().zip(ratings) {
        for (k, (item, r)) in run.record.items.iter().zip(per_item).enumerate() {
            member_votes.push(c.jury.as_ref().map(|j| jury_votes(j, ratings, k)));
            votes.push(annotations.map(|a| {
                a.votes[k]
                    .iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join(",")
            }));
            let first_line = line + 1;
            line += r.samples();
            config.push(c.name.clone());
            id.push(item.id.clone());
            pair.push(item.pair_id.clone());
            subset.push(item.subset.clone());
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
    write_csv(df, &dir.join("ratings.csv"))
}

fn scope_rows(rows: &mut TidyRows, name: &str, s: &Scope) {
    rows.add(name, &s.agreement);
    let n = s.counts.examples as u64;
    rows.push(name, n, "parse_rate", s.parse_rate, None);
    rows.push(name, n, "published_credit", s.published, None);
    for (key, h) in [
        ("drop", &s.policies.drop),
        ("as_wrong", &s.policies.as_wrong),
        ("as_tie", &s.policies.as_tie),
    ] {
        let metric = |m: &str| -> &'static str {
            match (key, m) {
                ("drop", "a") => "accuracy_drop",
                ("drop", _) => "kappa_quadratic_drop",
                ("as_wrong", "a") => "accuracy_as_wrong",
                ("as_wrong", _) => "kappa_quadratic_as_wrong",
                (_, "a") => "accuracy_as_tie",
                _ => "kappa_quadratic_as_tie",
            }
        };
        rows.push(name, h.n, metric("a"), h.accuracy, None);
        rows.push(name, h.n, metric("k"), h.kappa_quadratic, None);
    }
    if let Some(p) = &s.pointwise {
        pointwise_rows(rows, name, p);
    }
    if let Some(p) = &s.position {
        position_rows(rows, name, p);
    }
    for section in SECTIONS {
        section.scope_rows(rows, name, s);
    }
}

/// A pointwise scope's rows: the grades' gap, AUC, correlations and the missing-grade rules.
fn pointwise_rows(rows: &mut TidyRows, name: &str, p: &crate::evaluation::PointwiseStats) {
    let pairs = p.pairs as u64;
    let ci = |c: (f64, f64)| c.0.is_finite().then_some(c);
    rows.push(
        name,
        pairs,
        "pointwise_mean_gap",
        p.mean_gap,
        ci(p.mean_gap_ci),
    );
    rows.push(name, pairs, "pointwise_equal_grades", p.equal_grades, None);
    rows.push(name, pairs, "pointwise_auc", p.auc, ci(p.auc_ci));
    rows.push(
        name,
        p.drop.n,
        "pointwise_spearman",
        p.spearman.statistic,
        None,
    );
    rows.push(
        name,
        p.drop.n,
        "pointwise_kendall_tau_b",
        p.kendall_tau_b.statistic,
        None,
    );
    rows.push(
        name,
        p.drop.n,
        "accuracy_missing_drop",
        p.drop.accuracy,
        None,
    );
    rows.push(
        name,
        p.drop.n,
        "kappa_quadratic_missing_drop",
        p.drop.kappa_quadratic,
        None,
    );
    if let Some(h) = &p.lowest {
        rows.push(name, h.n, "accuracy_missing_lowest", h.accuracy, None);
        rows.push(
            name,
            h.n,
            "kappa_quadratic_missing_lowest",
            h.kappa_quadratic,
            None,
        );
    }
}

/// A scope's position rows: consistency, the first position's wins and the published rules.
fn position_rows(rows: &mut TidyRows, name: &str, p: &crate::evaluation::Position) {
    let pairs = p.pairs as u64;
    rows.push(
        name,
        p.pairs_both_rated as u64,
        "position_consistency",
        p.consistency,
        None,
    );
    rows.push(
        name,
        pairs,
        "first_position_win_rate",
        p.first_position_win_rate,
        None,
    );
    rows.push(name, pairs, "fastchat_accuracy", p.fastchat.accuracy, None);
    rows.push(
        name,
        pairs,
        "judgebench_accuracy",
        p.judgebench.accuracy,
        None,
    );
    rows.push(name, pairs, "llmbar_accuracy", p.llmbar.accuracy, None);
    rows.push(name, pairs, "llmbar_equal", p.llmbar.equal, None);
    rows.push(
        name,
        pairs,
        "llmbar_correct_both",
        p.llmbar.correct_both,
        None,
    );
    for (metric, value) in [
        ("judgebench_all_correct", p.judgebench.all_correct),
        ("judgebench_all_incorrect", p.judgebench.all_incorrect),
        ("judgebench_some_correct", p.judgebench.some_correct),
        ("judgebench_inconsistent", p.judgebench.inconsistent),
        ("judgebench_missing", p.judgebench.missing),
    ] {
        rows.push(name, pairs, metric, value, None);
    }
}

fn write_tables(run: &Run, dir: &Path) -> Result<()> {
    metrics_rows(run).write(&dir.join("metrics.csv"))?;
    write_confusion(run, dir)?;
    write_comparisons(run, dir)
}

/// metrics.csv: every configuration's scopes and analytics, then the rows of no configuration.
fn metrics_rows(run: &Run) -> TidyRows {
    let mut rows = TidyRows::default();
    for (i, (rec, r)) in run
        .record
        .configs
        .iter()
        .zip(&run.evaluation.configs)
        .enumerate()
    {
        rows.set_config(&rec.name);
        scope_rows(&mut rows, "overall", &r.overall);
        for (name, s) in &r.by_subset {
            scope_rows(&mut rows, name, s);
        }
        for (bucket, s) in &r.by_depth {
            scope_rows(&mut rows, &format!("depth:{bucket}"), s);
        }
        for (k, v) in &r.sections {
            rows.push(&format!("section:{k}"), 0, "accuracy", *v, None);
        }
        if let Some(v) = r.leaderboard {
            rows.push("leaderboard", 0, "accuracy", v, None);
        }
        for (k, v) in &r.sections_published {
            rows.push(&format!("section:{k}"), 0, "published_credit", *v, None);
        }
        if let Some(v) = r.leaderboard_published {
            rows.push("leaderboard", 0, "published_credit", v, None);
        }
        for section in SECTIONS {
            section.config_rows(&mut rows, run, i);
        }
    }
    for section in SECTIONS {
        rows.set_config("");
        section.run_rows(&mut rows, run);
    }
    rows
}

/// confusion.csv: each configuration's confusion matrix, overall and per subset.
fn write_confusion(run: &Run, dir: &Path) -> Result<()> {
    let (mut c_config, mut c_scope, mut c_gold, mut c_rating, mut c_count) =
        (vec![], vec![], vec![], vec![], vec![]);
    for (rec, r) in run.record.configs.iter().zip(&run.evaluation.configs) {
        let scopes = std::iter::once(("overall", &r.overall))
            .chain(r.by_subset.iter().map(|(k, s)| (k.as_str(), s)));
        for (scope, s) in scopes {
            let t = &s.agreement.confusion;
            let labels = t.labels().as_slice();
            for (gi, g) in labels.iter().enumerate() {
                for (ri, rv) in labels.iter().enumerate() {
                    c_config.push(rec.name.clone());
                    c_scope.push(scope.to_string());
                    c_gold.push(*g);
                    c_rating.push(*rv);
                    c_count.push(t.count(gi, ri));
                }
            }
        }
    }
    write_csv(
        DataFrame::new_infer_height(vec![
            Column::new("config".into(), c_config),
            Column::new("scope".into(), c_scope),
            Column::new("gold".into(), c_gold),
            Column::new("rating".into(), c_rating),
            Column::new("count".into(), c_count),
        ])?,
        &dir.join("confusion.csv"),
    )
}

/// comparisons.csv: every paired comparison.
fn write_comparisons(run: &Run, dir: &Path) -> Result<()> {
    let cmp = &run.evaluation.comparisons;
    let name = |i: usize| run.record.configs[i].name.clone();
    let opt = |v: f64| v.is_finite().then_some(v);
    let mut columns = vec![
        Column::new(
            "a".into(),
            cmp.iter().map(|c| name(c.a)).collect::<Vec<_>>(),
        ),
        Column::new(
            "b".into(),
            cmp.iter().map(|c| name(c.b)).collect::<Vec<_>>(),
        ),
        Column::new("n".into(), cmp.iter().map(|c| c.n).collect::<Vec<_>>()),
        Column::new(
            "judged".into(),
            cmp.iter().map(Comparison::judged).collect::<Vec<_>>(),
        ),
    ];
    // The intervals are at their level: the Holm step's that decided the pair (95% and
    // unadjusted outside the family).
    let numbers: [NumberColumn; 8] = [
        ("accuracy_diff", |c| c.accuracy.diff),
        ("accuracy_ci_lo", |c| c.accuracy.ci.0),
        ("accuracy_ci_hi", |c| c.accuracy.ci.1),
        ("accuracy_ci_level", |c| c.accuracy.level),
        ("kappa_quadratic_diff", |c| c.kappa.diff),
        ("kappa_quadratic_ci_lo", |c| c.kappa.ci.0),
        ("kappa_quadratic_ci_hi", |c| c.kappa.ci.1),
        ("kappa_quadratic_ci_level", |c| c.kappa.level),
    ];
    for (key, value) in numbers {
        columns.push(Column::new(
            key.into(),
            cmp.iter().map(|c| opt(value(c))).collect::<Vec<_>>(),
        ));
    }
    columns.push(Column::new(
        "only_a_right".into(),
        cmp.iter().map(|c| c.only_a_right).collect::<Vec<_>>(),
    ));
    columns.push(Column::new(
        "only_b_right".into(),
        cmp.iter().map(|c| c.only_b_right).collect::<Vec<_>>(),
    ));
    let tests: [NumberColumn; 7] = [
        ("p_value", |c| c.accuracy.p),
        ("p_holm", |c| c.accuracy.p_holm),
        ("kappa_quadratic_p", |c| c.kappa.p),
        ("kappa_quadratic_p_holm", |c| c.kappa.p_holm),
        ("discordance", |c| c.power.discordance),
        ("min_detectable_difference", |c| c.power.min_detectable),
        ("items_needed", |c| c.power.items_needed),
    ];
    for (key, value) in tests {
        columns.push(Column::new(
            key.into(),
            cmp.iter().map(|c| opt(value(c))).collect::<Vec<_>>(),
        ));
    }
    columns.push(Column::new(
        "verdict".into(),
        cmp.iter()
            .map(|c| crate::report::calibrate::ranking::verdict(run, c))
            .collect::<Vec<_>>(),
    ));
    write_csv(
        DataFrame::new_infer_height(columns)?,
        &dir.join("comparisons.csv"),
    )
}

/// A comparisons.csv column of numbers: its name and how to read it.
type NumberColumn = (&'static str, fn(&Comparison) -> f64);

/// Writes run.json.
pub fn write_run_file(file: &RunFile, dir: &Path) -> Result<()> {
    let path = dir.join("run.json");
    std::fs::write(&path, file.text()?).with_context(|| format!("writing '{}'", path.display()))
}

/// Writes (or, for `report DIR`, rewrites) everything but the raw answers.
pub fn write(run: &Run) -> Result<()> {
    let dir = &run.meta.head.dir;
    std::fs::create_dir_all(dir).with_context(|| format!("creating '{}'", dir.display()))?;
    write_ratings(run, dir)?;
    write_tables(run, dir)?;
    write_run_file(&run_file(run), dir)?;
    latex::write(run, &dir.join("table.tex"))?;
    // The sections' figures are drawn once, for plots/ and for report.html.
    let order = crate::report::calibrate::ranking::order(run);
    let figures = crate::report::calibrate::sections::figures(run, &order)?;
    plots::write_all(run, dir, &figures)?;
    crate::report::calibrate::page::write(run, dir, &figures)
}
