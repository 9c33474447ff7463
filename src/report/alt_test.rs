//! The alt-test's section: can the judge replace an annotator? The answer's question, a table
//! of the configurations (ω, ρ, passed), each annotator's test, the judges' advantage
//! probabilities compared, `alt_test` in `--json` (the type, serialized) and metrics.csv rows.

use crate::evaluation::alt_test::{AltTest, AltTestComparisons, RECOMMENDED};
use crate::evaluation::paired::Finding;
use crate::evaluation::Evaluated;
use crate::report::calibrate::section::{config_key, key, of_configs, Place, Section, View};
use crate::report::media::csv::TidyRows;
use crate::report::media::format;
use crate::report::media::table::Table;
use serde_json::Value;

fn tests<'a>(run: &'a Evaluated, order: &[usize]) -> Vec<(usize, &'a AltTest)> {
    of_configs(run, order)
}

fn name(run: &Evaluated, i: usize) -> String {
    format::shown_name(&run.record.configs[i])
}

fn two(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.2}")
    } else {
        "n/a".into()
    }
}

/// "it beats 9 of 10 (ω 0.90 ≥ 0.5)".
fn beats(t: &AltTest) -> String {
    format!(
        "it beats {} of {} (ω {} {} 0.5)",
        t.beaten(),
        t.annotators.len(),
        two(t.winning_rate),
        if t.passed { "≥" } else { "<" }
    )
}

/// The settings as one clause: "at ε 0.1, BY q 0.05, scored by accuracy".
fn settings(t: &AltTest) -> String {
    format!(
        "at ε {}, BY q {}, scored by {}",
        t.epsilon,
        t.q,
        t.score.name()
    )
}

/// Why no annotator was tested.
fn untested(t: &AltTest) -> String {
    format!(
        "not tested: no annotator has {} items that {} annotators and the judge labelled ({} items count); lower --alt-test-min-items or --alt-test-min-annotators",
        t.min_items, t.min_annotators, t.n_items
    )
}

/// The answer's question: one line for one configuration, else how many pass and the
/// comparison of the two highest advantage probabilities; then what ε means.
fn question(run: &Evaluated) -> Vec<String> {
    let order: Vec<usize> = (0..run.record.configs.len()).collect();
    let all = tests(run, &order);
    let Some((_, first)) = all.first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if all.len() == 1 {
        let (i, t) = all[0];
        out.push(if !t.tested() {
            format!(
                "Can {} replace an annotator? Alt-test {}.",
                name(run, i),
                untested(t)
            )
        } else {
            format!(
                "Can {} replace an annotator? {}: {} {}; advantage probability {}.",
                name(run, i),
                if t.passed { "Yes" } else { "No" },
                beats(t),
                settings(t),
                two(t.advantage_probability)
            )
        });
    } else {
        let tested: Vec<&(usize, &AltTest)> = all.iter().filter(|(_, t)| t.tested()).collect();
        let passing: Vec<String> = (tested.iter())
            .filter(|(_, t)| t.passed)
            .map(|(i, t)| format!("{} (ω {})", name(run, *i), two(t.winning_rate)))
            .collect();
        let shown: Vec<String> = passing.iter().take(3).cloned().collect();
        let more = passing.len().saturating_sub(3);
        out.push(format!(
            "Can a judge replace an annotator? {} of {} configurations pass the alt-test {}{}{}.",
            passing.len(),
            tested.len(),
            settings(first),
            if shown.is_empty() {
                String::new()
            } else {
                format!(": {}", shown.join(", "))
            },
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
        out.extend(highest(run));
        let not: Vec<String> = (all.iter())
            .filter(|(_, t)| !t.tested())
            .map(|(i, _)| name(run, *i))
            .collect();
        if !not.is_empty() {
            out.push(format!(
                "Alt-test {} for {}.",
                untested(first),
                not.join(", ")
            ));
        }
    }
    if !first.left_out.is_empty() {
        let names: Vec<String> = (first.left_out.iter())
            .map(|a| format!("{} ({})", a.name, a.n))
            .collect();
        out.push(format!(
            "Left out of the alt-test, under {} items: {}.",
            first.min_items,
            names.join(", ")
        ));
    }
    out.push(format!(
        "ε is the margin a human may be ahead of the judge on an annotator's items and the judge still win (the authors recommend {RECOMMENDED})."
    ));
    out
}

/// The highest advantage probability against the next (the evaluation's leader), with the
/// paired test's verdict.
fn highest(run: &Evaluated) -> Option<String> {
    let (best, next, t) = run
        .evaluation
        .of_run::<AltTestComparisons>()?
        .leader
        .as_ref()?;
    let rho = |i: usize| {
        run.evaluation
            .of_config::<AltTest>(i)
            .map(|a| a.advantage_probability)
    };
    let interval = match (t.ci, t.ci_level) {
        (Some((lo, hi)), Some(level)) => {
            format!(" [{lo:+.3}, {hi:+.3}] at {}", format::level(level))
        }
        _ => String::new(),
    };
    let verdict = match t.finding {
        Finding::BBetter => "higher (paired bootstrap, Holm)",
        Finding::ABetter => "lower on the items both judged (paired bootstrap, Holm)",
        Finding::NoDifference => "no significant difference (paired bootstrap, Holm)",
        Finding::Unjudged | Finding::Untested => "untested",
    };
    Some(format!(
        "Highest advantage probability: {} {} against {} {}; on the items both judged {:+.3}{interval}, {verdict}.",
        name(run, *best),
        two(rho(*best)?),
        name(run, *next),
        two(rho(*next)?),
        t.diff
    ))
}

/// The configurations' tests, one row each.
fn configs_table(run: &Evaluated, all: &[(usize, &AltTest)]) -> Table {
    let first = all[0].1;
    let mut t = Table::new(
        format!(
            "Alt-test: can the judge replace an annotator? ({}; passes at ω ≥ 0.5)",
            settings(first)
        ),
        &[
            "configuration",
            "ω (beaten)",
            "advantage ρ",
            "passed",
            "items",
        ],
    );
    for (i, a) in all {
        t.rows.push(vec![
            name(run, *i),
            if a.tested() {
                format!(
                    "{} ({} of {})",
                    two(a.winning_rate),
                    a.beaten(),
                    a.annotators.len()
                )
            } else {
                "n/a".into()
            },
            two(a.advantage_probability),
            if !a.tested() {
                "not tested".into()
            } else if a.passed {
                "yes".into()
            } else {
                "no".into()
            },
            a.n_items.to_string(),
        ]);
    }
    t.notes.push(format!(
        "score: {} ({}); advantage ρ: the mean over annotators of the share of their items the judge scores at least as well as they do (the authors' advantage probability, not Spearman's rho)",
        first.score.name(),
        first.score_reason
    ));
    t
}

/// One configuration's annotators, each tested or left out.
fn annotators_table(run: &Evaluated, i: usize, a: &AltTest) -> Table {
    let mut t = Table::new(
        format!(
            "Alt-test of {}: each annotator left out in turn",
            name(run, i)
        ),
        &[
            "annotator",
            "items",
            "p (t-test)",
            "beaten",
            "judge ≥ human",
        ],
    );
    for x in &a.annotators {
        t.rows.push(vec![
            x.name.clone(),
            x.n.to_string(),
            format::p_value(x.p_value),
            if x.beaten { "yes" } else { "no" }.into(),
            two(x.advantage),
        ]);
    }
    for x in &a.left_out {
        t.rows.push(vec![
            x.name.clone(),
            x.n.to_string(),
            format!("left out (< {})", a.min_items),
            String::new(),
            String::new(),
        ]);
    }
    t
}

/// The pairs of judges compared on ρ.
fn comparisons_table(c: &AltTestComparisons) -> Table {
    let mut t = Table::new(
        "Alt-test: advantage probabilities compared (B − A, paired bootstrap over the items, Holm)",
        &["A", "B", "B − A [interval]", "Holm p", "finding"],
    );
    for x in &c.tests {
        t.rows.push(vec![
            x.a.clone(),
            x.b.clone(),
            match (x.ci, x.ci_level) {
                (Some((lo, hi)), Some(level)) => format!(
                    "{:+.3} [{lo:+.3}, {hi:+.3}] at {}",
                    x.diff,
                    format::level(level)
                ),
                _ => format!("{:+.3}", x.diff),
            },
            format::p_value(x.p_holm),
            x.finding.key().replace('_', " "),
        ]);
    }
    t
}

/// The alt-test's section: its question first, its tables after the configurations'.
#[derive(Debug)]
pub struct AltTestSection;

impl Section for AltTestSection {
    fn place(&self) -> Place {
        Place::Lead
    }
    fn tables(&self, run: &Evaluated, order: &[usize], view: View) -> Vec<Table> {
        let all = tests(run, order);
        if all.is_empty() {
            return Vec::new();
        }
        let mut out = vec![configs_table(run, &all)];
        let shown = if view == View::Full { all.len() } else { 1 };
        for (i, a) in all.iter().take(shown) {
            if a.tested() || !a.left_out.is_empty() {
                out.push(annotators_table(run, *i, a));
            }
        }
        if let Some(c) = run.evaluation.of_run::<AltTestComparisons>() {
            out.push(comparisons_table(c));
        }
        out
    }
    fn question(&self, run: &Evaluated) -> Vec<String> {
        question(run)
    }
    fn run_json(&self, run: &Evaluated) -> Vec<(&'static str, Value)> {
        let c = run.evaluation.of_run::<AltTestComparisons>();
        key(
            "alt_test_comparisons",
            c.and_then(|c| serde_json::to_value(c).ok()),
        )
    }
    fn config_json(&self, run: &Evaluated, _: &[usize], i: usize) -> Vec<(&'static str, Value)> {
        config_key::<AltTest>(run, i, "alt_test")
    }
    fn run_rows(&self, rows: &mut TidyRows, run: &Evaluated) {
        let Some(c) = run.evaluation.of_run::<AltTestComparisons>() else {
            return;
        };
        for t in &c.tests {
            rows.set_config(&t.b);
            let vs = format!("advantage_probability_diff_vs:{}", t.a);
            rows.push("alt_test_comparison", 0, &vs, t.diff, t.ci);
            let p = format!("p_holm_vs:{}", t.a);
            rows.push("alt_test_comparison", 0, &p, t.p_holm, None);
        }
    }
    fn config_rows(&self, rows: &mut TidyRows, run: &Evaluated, i: usize) {
        let Some(a) = run.evaluation.of_config::<AltTest>(i) else {
            return;
        };
        let n = a.n_items as u64;
        rows.push("alt_test", n, "winning_rate", a.winning_rate, None);
        rows.push(
            "alt_test",
            n,
            "advantage_probability",
            a.advantage_probability,
            None,
        );
        rows.push("alt_test", n, "passed", f64::from(u8::from(a.passed)), None);
        rows.push("alt_test", n, "epsilon", a.epsilon, None);
        for x in &a.annotators {
            let n = x.n as u64;
            rows.push(
                "alt_test",
                n,
                &format!("p_value:{}", x.name),
                x.p_value,
                None,
            );
            rows.push(
                "alt_test",
                n,
                &format!("beaten:{}", x.name),
                f64::from(u8::from(x.beaten)),
                None,
            );
            rows.push(
                "alt_test",
                n,
                &format!("advantage:{}", x.name),
                x.advantage,
                None,
            );
        }
    }
}
