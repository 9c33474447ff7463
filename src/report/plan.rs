//! Output of `raterlab plan`.

use crate::evaluation::plan::PlanResult;
use crate::report::media::table::Table;
use anyhow::Result;
use serde_json::Value;
use std::io::Write;

fn count(v: f64) -> String {
    if v.is_finite() {
        crate::report::media::format::thousands(v as u64)
    } else {
        "-".into()
    }
}

/// The document `plan --json` prints: the result, serialized, with its schema.
#[derive(serde::Serialize)]
struct PlanJson<'a> {
    schema: &'static str,
    #[serde(flatten)]
    result: &'a PlanResult,
}

/// The document `plan --json` prints (`docs/schema/plan.json`).
pub fn to_json(r: &PlanResult) -> Value {
    serde_json::to_value(PlanJson {
        schema: crate::run::schema::PLAN,
        result: r,
    })
    .unwrap_or(Value::Null)
}

pub fn emit(r: &PlanResult, as_json: bool) -> Result<()> {
    let mut out = crate::report::media::term::stdout();
    if as_json {
        serde_json::to_writer_pretty(&mut out, &to_json(r))?;
        writeln!(out)?;
        out.flush()?;
        return Ok(());
    }
    match r {
        PlanResult::Accuracy {
            diff,
            alpha,
            power,
            needs,
            ..
        } => {
            let mut t = Table::new(
                format!(
                    "Items needed to detect an accuracy difference of {diff} at α = {alpha} with power {power} (McNemar)"
                ),
                &["pair", "discordance", "items needed", "items now", "detectable now"],
            );
            for n in needs {
                t.rows.push(vec![
                    n.pair.clone(),
                    format!("{:.3}", n.discordance),
                    count(n.items_needed),
                    n.items_now.map_or(String::new(), |v| v.to_string()),
                    n.min_detectable_now.map_or(String::new(), |v| {
                        if v.is_finite() {
                            format!("±{v:.3}")
                        } else {
                            "-".into()
                        }
                    }),
                ]);
            }
            writeln!(
                out,
                "{}\n{}",
                t.title,
                crate::report::media::table::render(&t)
            )?;
            writeln!(
                out,
                "discordance: the share of items exactly one of the two judges gets right; '-': the difference exceeds it"
            )?;
        }
        PlanResult::Kappa {
            diff,
            accuracy,
            tie_rate,
            alpha,
            power,
            runs,
            items_needed,
            mean_difference,
            power_reached,
            ..
        } => {
            writeln!(
                out,
                "simulated judges sim:accuracy={accuracy} and sim:accuracy={:.3} (tie_rate {}) differ in quadratic kappa by {mean_difference:+.3} on average",
                accuracy + diff,
                tie_rate
            )?;
            writeln!(
                out,
                "items needed to detect it at α = {alpha} with power {power}: ≈ {} (simulation: {runs} datasets of 1,000 items; at that size {:.0}% of {runs} simulated runs detected it)",
                count(*items_needed),
                power_reached * 100.0
            )?;
        }
        PlanResult::Active { active } => {
            wrapped(&mut out, &active_lines(active))?;
        }
        PlanResult::AltTest { alt_test } => {
            wrapped(&mut out, &alt_test_lines(alt_test))?;
            let t = alt_test_table(alt_test);
            writeln!(out)?;
            wrapped(&mut out, std::slice::from_ref(&t.title))?;
            writeln!(out, "{}", crate::report::media::table::render(&t))?;
        }
        PlanResult::Labels(plan) => {
            wrapped(&mut out, &labels_lines(plan))?;
        }
    }
    out.flush()?;
    Ok(())
}

/// Lines of prose, each wrapped at the terminal's width.
fn wrapped(out: &mut impl Write, lines: &[String]) -> Result<()> {
    let width = crate::report::media::term::width();
    for line in lines {
        writeln!(out, "{}", crate::report::media::term::wrap(line, width, ""))?;
    }
    Ok(())
}

/// `--alt-test`: the answer first (the items each ε needs), then what was simulated.
fn alt_test_lines(p: &crate::evaluation::alt_test_plan::AltTestPlan) -> Vec<String> {
    let s = &p.settings;
    let needs: Vec<String> = (p.items_needed.iter())
        .map(|(e, n)| match n {
            Some(n) => format!("ε {e}: {n} items"),
            None => format!(
                "ε {e}: more than {} items",
                s.sizes.last().copied().unwrap_or(0)
            ),
        })
        .collect();
    vec![
        format!(
            "Items for the alt-test to pass this judge on average (mean ω ≥ 0.5 from that size on, at every size tried) with {} annotators: {}.",
            s.annotators,
            needs.join("; ")
        ),
        format!(
            "Simulated: {} categories, annotator noise {}, judge noise {}, {} datasets × {} draws per size, BY q {}, seed {} ({}).",
            s.categories, s.annotator_noise, s.judge_noise, s.datasets, s.boots, s.q, s.seed, p.method
        ),
    ]
}

/// `--alt-test`: per size, each ε's mean winning rate and its 5th–95th percentiles.
fn alt_test_table(p: &crate::evaluation::alt_test_plan::AltTestPlan) -> Table {
    let mut headers = vec!["items".to_string()];
    headers.extend(p.settings.epsilons.iter().map(|e| format!("ω at ε {e}")));
    headers.push("advantage ρ".into());
    let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
    let mut t = Table::new(
        "The alt-test's winning rate ω by the number of items: mean [5th, 95th percentile] of the draws; advantage ρ: the mean advantage probability (--json has its spread)",
        &headers,
    );
    let two = |v: f64| format!("{v:.2}");
    for z in &p.sizes {
        let mut row = vec![z.items.to_string()];
        for e in &z.epsilons {
            let [lo, hi] = e.winning_rate_spread;
            row.push(format!(
                "{} [{}, {}]",
                two(e.winning_rate),
                two(lo),
                two(hi)
            ));
        }
        row.push(two(z.advantage_probability));
        t.rows.push(row);
    }
    t
}

/// `--labels`/`--width`: the split of the labels, and the labels an interval's width needs.
fn labels_lines(p: &crate::evaluation::estimate::LabelsPlan) -> Vec<String> {
    let fixed = crate::report::media::format::fixed;
    let mut out = vec![format!(
        "From a pilot of {} labelled and {} unlabelled items (label {}):",
        p.pilot_labelled, p.pilot_unlabelled, p.label
    )];
    if let Some(a) = &p.allocation {
        out.push(format!(
            "Of {} calibration labels, collect {} items with the label and {} without it (Lee et al.'s allocation; the judge's positive rate {}, sensitivity {}, specificity {}).",
            a.labels,
            a.positives,
            a.negatives,
            fixed(a.positive_rate),
            fixed(a.sensitivity),
            fixed(a.specificity)
        ));
    }
    if let Some(w) = &p.width {
        let level = format!("{:.0}%", 100.0 * (1.0 - w.alpha));
        out.push(match w.labelled_ppi_plus {
            Some(n) => format!(
                "For a {level} interval {} wide: {} labelled items with the judge's verdicts on {} unlabelled ones (PPI++, λ = {}), against {} labelled items alone.",
                w.width,
                count(n),
                count(w.unlabelled as f64),
                fixed(w.lambda),
                count(w.labelled_humans)
            ),
            None => format!(
                "For a {level} interval {} wide: the judge's verdicts on {} unlabelled items alone are wider than that, however many labels; label {} items alone, or rate more unlabelled ones (--unlabelled).",
                w.width,
                count(w.unlabelled as f64),
                count(w.labelled_humans)
            ),
        });
    }
    out
}

/// `--active`: the draw first, then the rule and what the pilot says of it.
fn active_lines(a: &crate::evaluation::active::ActivePlan) -> Vec<String> {
    let fixed = crate::report::media::format::fixed;
    let ratio = a.pilot_variance.active / a.pilot_variance.uniform;
    let mut out = vec![
        format!(
            "Label {} of {} items: the seeded draw (seed {}) of active labelling, {:.1} expected at a budget of {:.1}%.",
            count(a.n_drawn as f64),
            count(a.n_items as f64),
            a.seed,
            a.expected_labels,
            100.0 * a.budget
        ),
        "Rule: π = clip((1 − τ)·η·u + τ·B, 0, 1), u = min(p, 1 − p).".into(),
        format!(
            "τ = {}, tuned on {} pilot items; η = {}.",
            fixed(a.tau),
            a.n_pilot,
            fixed(a.eta)
        ),
    ];
    out.push(if a.constant {
        "Every item has the same π: the draw is uniform, and PPI++ on its labels is at least as narrow as the active estimate.".into()
    } else if ratio < 1.0 {
        format!(
            "On the pilot, the active estimate's variance is {:.0}% of uniform sampling's at the same budget (interval width × {:.2}).",
            100.0 * ratio,
            ratio.sqrt()
        )
    } else {
        format!(
            "On the pilot, the judge's uncertainty does not predict its errors: the active estimate's variance is {:.0}% of uniform sampling's (no gain; sample uniformly).",
            100.0 * ratio
        )
    });
    out
}

/// `plan --active --out`: one row per item (id, p, label_prob, drawn), the table
/// `label --order active --queue` reads.
pub fn write_active_queue(
    a: &crate::evaluation::active::ActivePlan,
    path: &std::path::Path,
) -> Result<()> {
    use polars::prelude::Column;
    let rows = &a.label_prob;
    let columns = vec![
        Column::new(
            "id".into(),
            rows.iter().map(|r| r.id.clone()).collect::<Vec<_>>(),
        ),
        Column::new("p".into(), rows.iter().map(|r| r.p).collect::<Vec<_>>()),
        Column::new(
            "label_prob".into(),
            rows.iter().map(|r| r.label_prob).collect::<Vec<_>>(),
        ),
        Column::new(
            "drawn".into(),
            rows.iter().map(|r| r.drawn).collect::<Vec<_>>(),
        ),
    ];
    crate::dataset::frame::write_as(
        polars::prelude::DataFrame::new_infer_height(columns)?,
        path,
        crate::dataset::frame::Format::Csv,
    )
}
