//! The run directory's renderings: metrics.csv, confusion and comparisons.csv, table.tex,
//! plots/ and report.html, in files a paper can use without calling any judge again. What
//! `report DIR` reads back (run.json, items.jsonl, ratings.csv/.parquet) is written beside its
//! reader, by `run::write`; `write` here writes both.

pub mod rewardbench2;

use crate::evaluation::{Comparison, Evaluated, Scope};
use crate::report::calibrate::latex;
use crate::report::calibrate::plots;
use crate::report::calibrate::sections::SECTIONS;
use crate::report::media::csv::{write_csv, TidyRows};
use crate::run::record::Run;
use anyhow::{Context, Result};
use polars::prelude::*;
use std::path::Path;

/// A scope's rows of metrics.csv: its agreement, parse rate, policies, grades, position and
/// every section's (a RewardBench 2 run's pairs too).
pub(crate) fn scope_rows(rows: &mut TidyRows, name: &str, s: &Scope) {
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
    metrics_rows(&run.view()).write(&dir.join("metrics.csv"))?;
    write_confusion(run, dir)?;
    write_comparisons(run, dir)
}

/// metrics.csv: every configuration's scopes and analytics, then the rows of no configuration
/// (`calibrate`'s, and `analyze --csv`'s for its rating columns).
pub fn metrics_rows(evaluated: &Evaluated) -> TidyRows {
    let mut rows = TidyRows::default();
    let (record, evaluation) = (evaluated.record, evaluated.evaluation);
    for (i, (rec, r)) in record.configs.iter().zip(&evaluation.configs).enumerate() {
        rows.set_config(&rec.name);
        scope_rows(&mut rows, "overall", &r.overall);
        for (name, s) in &r.by_subset {
            scope_rows(&mut rows, name, s);
        }
        for g in &r.grouped {
            for (name, s) in &g.scopes {
                scope_rows(&mut rows, &format!("{}{name}", g.prefix), s);
            }
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
            section.config_rows(&mut rows, evaluated, i);
        }
    }
    for section in SECTIONS {
        rows.set_config("");
        section.run_rows(&mut rows, evaluated);
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
    let evaluated = run.view();
    columns.push(Column::new(
        "verdict".into(),
        cmp.iter()
            .map(|c| crate::report::calibrate::ranking::verdict(&evaluated, c))
            .collect::<Vec<_>>(),
    ));
    write_csv(
        DataFrame::new_infer_height(columns)?,
        &dir.join("comparisons.csv"),
    )
}

/// A comparisons.csv column of numbers: its name and how to read it.
type NumberColumn = (&'static str, fn(&Comparison) -> f64);

fn stopped(what: &str) -> anyhow::Error {
    anyhow::anyhow!("writing the run directory's {what} stopped")
}

/// What of the directory needs no evaluation, written while the run is evaluated
/// (`session::evaluate_beside`): the record's files (items.jsonl, ratings.csv/.parquet) on one
/// thread and the item browser's data (the larger part of report.html) on this one.
pub fn write_early(run: &Run) -> Result<crate::run::record::Early> {
    let dir = &run.meta.head.dir;
    std::fs::create_dir_all(dir).with_context(|| format!("creating '{}'", dir.display()))?;
    std::thread::scope(|scope| {
        let files = scope.spawn(|| crate::run::write::record_files(run));
        let browser = crate::report::calibrate::page::browser_data(run, dir);
        let files = files.join().unwrap_or_else(|_| Err(stopped("files")));
        files.and(browser.map(|browser| crate::run::record::Early { browser }))
    })
}

/// Writes (or, for `report DIR`, rewrites) everything but the raw answers: the data files
/// (ratings, the CSV tables, run.json, table.tex) on one thread, the item browser's data (the
/// larger part of report.html) on another, while the figures are drawn once, for plots/ and
/// report.html, and the page is written. What was written beside the evaluation
/// (`write_early`) is not written again.
pub fn write(run: &Run) -> Result<()> {
    let dir = &run.meta.head.dir;
    std::fs::create_dir_all(dir).with_context(|| format!("creating '{}'", dir.display()))?;
    std::thread::scope(|scope| {
        let files = scope.spawn(|| -> Result<()> {
            if run.early.is_none() {
                crate::run::write::record_files(run)?;
            }
            crate::run::write::run_json(run)?;
            write_tables(run, dir)?;
            latex::write(run, &dir.join("table.tex"))
        });
        let browser = scope.spawn(|| match &run.early {
            Some(early) => Ok(early.browser.clone()),
            None => crate::report::calibrate::page::browser_data(run, dir),
        });
        let pages = (|| -> Result<()> {
            let evaluated = run.view();
            let order = crate::report::calibrate::ranking::order(&evaluated);
            let sections = crate::report::calibrate::sections::figures(&evaluated, &order)?;
            let own = plots::draw(run)?;
            plots::write_all(dir, own.all().chain(&sections))?;
            let browser = browser
                .join()
                .unwrap_or_else(|_| Err(stopped("item browser")))?;
            crate::report::calibrate::page::write(run, dir, (&own, &sections), browser)
        })();
        let files = files.join().unwrap_or_else(|_| Err(stopped("files")));
        files.and(pages)
    })
}
