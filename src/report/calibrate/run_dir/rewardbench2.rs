//! A RewardBench 2 run directory's renderings: `metrics.csv`, `comparisons.csv`, `table.tex`
//! and `report.html` with the row browser; what `report DIR` reads back (`run.json`,
//! `items.jsonl`, `ratings.csv`/`.parquet`) is the one writer's (`run::write::persist`), and
//! `completions.jsonl` was written while the run rated.

use crate::dataset::rewardbench2::slot_letter;
use crate::report::media::csv::{write_csv, TidyRows};
use crate::report::media::html::{script_json, scripts, write_page, Browser, Page};
use crate::run::lines::ResultLine;
use crate::run::record::Run;
use anyhow::{Context, Result};
use polars::prelude::*;
use serde::Serialize;
use std::path::Path;

fn write_metrics(run: &Run, dir: &Path) -> Result<()> {
    let mut rows = TidyRows::default();
    let costs = crate::report::calibrate::rewardbench2::costs(run);
    for (k, c) in run.rewardbench2().configs.iter().enumerate() {
        rows.set_config(&c.name);
        crate::report::calibrate::cost::tidy(&mut rows, &costs, k);
        for (b, suffix) in [
            (&c.boards[0], String::new()),
            (&c.boards[1], format!("_{}", c.boards[1].missing.key())),
        ] {
            for s in &b.subsets {
                rows.push(
                    &s.name,
                    s.used as u64,
                    &format!("score{suffix}"),
                    s.score,
                    Some(s.ci),
                );
                if suffix.is_empty() {
                    rows.push(
                        &s.name,
                        s.rows as u64,
                        "chance",
                        s.chance.unwrap_or(f64::NAN),
                        None,
                    );
                }
            }
            rows.push(
                "leaderboard",
                run.shown().len() as u64,
                &format!("score{suffix}"),
                b.leaderboard,
                Some(b.leaderboard_ci),
            );
            if let (Some(t), true) = (b.ties, suffix.is_empty()) {
                for (metric, v) in [
                    ("ref_accuracy", t.ref_accuracy),
                    ("tied_accuracy", t.tied_accuracy),
                    ("correctness_preferred", t.correctness_preferred),
                    ("correctness_preferred_hard", t.correctness_preferred_hard),
                    ("margin", t.margin),
                ] {
                    let used = b
                        .subsets
                        .iter()
                        .find(|s| s.name == crate::dataset::rewardbench2::TIES)
                        .map_or(0, |s| s.used);
                    rows.push("Ties", used as u64, metric, v, None);
                }
            }
        }
        let n: u64 = c.slots.correct_at.iter().sum::<usize>() as u64;
        for (s, v) in c.slots.accuracy_by_slot.iter().enumerate() {
            rows.push(
                &format!("correct at {}", slot_letter(s)),
                c.slots.correct_at[s] as u64,
                "accuracy",
                *v,
                None,
            );
        }
        if let Some(picked) = c.slots.picked_at {
            for (s, v) in picked.iter().enumerate() {
                rows.push(
                    &format!("picked {}", slot_letter(s)),
                    n,
                    "share",
                    *v as f64 / n.max(1) as f64,
                    None,
                );
            }
            rows.push("position", n, "chi2", c.slots.chi2, None);
            rows.push("position", n, "chi2_p", c.slots.p, None);
        }
        if let Some(d) = c.readers_disagree {
            rows.push("readers", n, "rows_disagreeing", d as f64, None);
        }
        if let Some(g) = c.grades {
            rows.push(
                "grades",
                g.rows as u64,
                "forced_tie_rate",
                g.forced_tie,
                None,
            );
            rows.push("grades", g.auc_rows as u64, "auc", g.auc, None);
        }
        // On the rows' pairs: the record's scope, as a run over pairs writes one.
        if let Some(r) = run.evaluation.configs.get(k) {
            super::scope_rows(&mut rows, "pairs", &r.overall);
        }
    }
    rows.write(&dir.join("metrics.csv"))
}

fn write_comparisons(run: &Run, dir: &Path) -> Result<()> {
    let name = |k: usize| run.rewardbench2().configs[k].name.clone();
    let c = &run.rewardbench2().comparisons;
    let df = DataFrame::new_infer_height(vec![
        Column::new("a".into(), c.iter().map(|p| name(p.a)).collect::<Vec<_>>()),
        Column::new("b".into(), c.iter().map(|p| name(p.b)).collect::<Vec<_>>()),
        Column::new(
            "diff".into(),
            c.iter().map(|p| p.test.diff).collect::<Vec<_>>(),
        ),
        Column::new(
            "ci_lo".into(),
            c.iter().map(|p| p.test.ci.0).collect::<Vec<_>>(),
        ),
        Column::new(
            "ci_hi".into(),
            c.iter().map(|p| p.test.ci.1).collect::<Vec<_>>(),
        ),
        Column::new(
            "ci_level".into(),
            c.iter().map(|p| p.test.level).collect::<Vec<_>>(),
        ),
        Column::new("p".into(), c.iter().map(|p| p.test.p).collect::<Vec<_>>()),
        Column::new(
            "p_holm".into(),
            c.iter().map(|p| p.test.p_holm).collect::<Vec<_>>(),
        ),
        Column::new(
            "finding".into(),
            c.iter().map(|p| p.test.finding().key()).collect::<Vec<_>>(),
        ),
    ])?;
    write_csv(df, &dir.join("comparisons.csv"))
}

/// `table.tex`: the configurations against the six subsets and the leaderboard.
pub fn latex(run: &Run) -> String {
    let subsets = crate::evaluation::rewardbench2::SUBSETS;
    let mut out = String::from(
        "% Generated by raterlab; needs \\usepackage{booktabs}.\n\\begin{table}[t]\n\\centering\n\\small\n\\begin{tabular}{l",
    );
    out.push_str(&"r".repeat(subsets.len() + 1));
    out.push_str("}\n\\toprule\nConfiguration");
    for s in subsets {
        out.push_str(&format!(" & {s}"));
    }
    out.push_str(" & Score \\\\\n\\midrule\n");
    for c in &run.rewardbench2().configs {
        let b = &c.boards[0];
        out.push_str(&crate::report::calibrate::latex::escape(&c.name));
        for s in subsets {
            let v = b
                .subsets
                .iter()
                .find(|x| x.name == s)
                .map_or(f64::NAN, |x| x.score);
            out.push_str(&format!(
                " & {}",
                crate::report::calibrate::latex::cell(v, None)
            ));
        }
        out.push_str(&format!(
            " & {} \\\\\n",
            crate::report::calibrate::latex::cell(b.leaderboard, Some(b.leaderboard_ci))
        ));
    }
    out.push_str(&format!(
        "\\bottomrule\n\\end{{tabular}}\n\\caption{{RewardBench 2 scores as reward-bench computes them ({} rows); the score is the mean of the six subsets, with a {}-resample bootstrap 95\\% CI (rows resampled, Ties by question).}}\n\\end{{table}}\n",
        run.shown().len(), run.meta.head.bootstrap
    ));
    out
}

/// A configuration's result on a row as the browser shows it: the result, what was not read
/// and every answer.
#[derive(Serialize)]
struct BrowsedResult {
    #[serde(flatten)]
    outcome: ResultLine,
    missing: usize,
    answers: Vec<BrowsedAnswer>,
}

/// An answer: what was asked, the text, what was read and where (in characters).
#[derive(Serialize)]
struct BrowsedAnswer {
    asked: String,
    sample: u32,
    text: Option<String>,
    read: String,
    span: Option<[usize; 2]>,
}

/// A row in the browser: its slots, the correct ones and every configuration's result.
#[derive(Serialize)]
struct BrowsedRow<'a> {
    id: &'a str,
    subset: &'a str,
    prompt: &'a str,
    slots: Vec<&'a str>,
    correct: &'a [usize],
    results: Vec<BrowsedResult>,
}

#[derive(Serialize)]
struct Browsed<'a> {
    configs: Vec<&'a str>,
    rows: Vec<BrowsedRow<'a>>,
}

/// The browser's data: each row with its slots and every configuration's result and answers.
fn browser(run: &Run) -> Result<String> {
    let answer = |a: &crate::raters::rewardbench2::Answer| BrowsedAnswer {
        asked: a.asked.clone(),
        sample: a.sample,
        text: a.text.clone(),
        read: a.read.clone(),
        span: a.text.as_deref().zip(a.span).and_then(|(t, (x, y))| {
            Some([t.get(..x)?.chars().count(), t.get(..y)?.chars().count()])
        }),
    };
    let rows = run
        .shown()
        .iter()
        .enumerate()
        .map(|(k, shown)| BrowsedRow {
            id: &shown.row.id,
            subset: &shown.row.subset,
            prompt: &shown.row.prompt,
            slots: (0..shown.order.len()).map(|s| shown.at(s)).collect(),
            correct: &shown.gold,
            results: run
                .rewardbench2()
                .configs
                .iter()
                .map(|c| BrowsedResult {
                    // The page shows pairs won from `wins`; each pair's outcome is for report DIR.
                    outcome: ResultLine {
                        pairs: None,
                        verdicts: None,
                        ..crate::run::write::outcome_json(shown, c, k)
                    },
                    missing: crate::report::calibrate::rewardbench2::analytics::read_row(c, k)
                        .missing(),
                    answers: c
                        .outcomes
                        .get(k)
                        .map(|o| o.answers.iter().map(answer).collect())
                        .unwrap_or_default(),
                })
                .collect(),
        })
        .collect();
    // Keys in name order, as in every JSON raterlab writes.
    script_json(&serde_json::to_value(Browsed {
        configs: run
            .rewardbench2()
            .configs
            .iter()
            .map(|c| c.name.as_str())
            .collect(),
        rows,
    })?)
}

/// Writes everything but `completions.jsonl`.
pub fn write(run: &Run) -> Result<()> {
    let dir = &run.meta.head.dir;
    crate::run::write::persist(run)?;
    write_metrics(run, dir)?;
    write_comparisons(run, dir)?;
    let tex = dir.join("table.tex");
    std::fs::write(&tex, latex(run)).with_context(|| format!("writing '{}'", tex.display()))?;
    write_page(
        Page {
            answer: crate::report::calibrate::rewardbench2::answer(run),
            title: run.meta.head.name.clone(),
            header: vec![crate::report::calibrate::rewardbench2::header(run)],
            command: run.meta.head.command.join(" "),
            simulated: run.rewardbench2().configs.iter().any(|c| c.simulated),
            tables: crate::report::calibrate::rewardbench2::tables(run),
            plots: crate::report::calibrate::cost::figure_of(
                &crate::report::calibrate::rewardbench2::costs(run),
            )?
            .into_iter()
            .map(|f| crate::report::media::html::plot(f.title, f.svg))
            .collect(),
            browser: Some(Browser {
                data: browser(run)?,
                title: "Rows",
                filters: vec![
                    ["all", "all rows"],
                    ["wrong", "wrong (any configuration)"],
                    ["none", "nothing read (any configuration)"],
                    ["disagree", "configurations disagree"],
                ],
                columns: vec!["id", "subset", "correct"],
                hint: "Select a row to see the prompt, every completion in its slot and every answer, with the pick and the grades.",
                script: scripts::REWARDBENCH2,
            }),
        },
        &dir.join("report.html"),
    )
}
