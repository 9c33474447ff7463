//! The system level (`evaluation::systems`) as the answer's lines, a terminal table of models ×
//! configurations (with the reference column), tidy CSV rows, and report.html's figures: each
//! model's score with its interval per configuration, and each configuration against the
//! reference. `configs[i].systems` and `systems_comparisons` serialize the result types.

use crate::evaluation::systems::Systems;
use crate::evaluation::Evaluated;
use crate::evaluation::Reference;
use crate::report::calibrate::section::{key, Figure, Place, Section, View};
use crate::report::media::csv::TidyRows;
use crate::report::media::table::Table;
use serde_json::Value;

/// The best configuration by Spearman against the others (none without a reference).
fn comparisons<'a>(run: &Evaluated<'a>) -> &'a [crate::evaluation::systems::SystemsComparison] {
    run.evaluation
        .of_run::<Vec<crate::evaluation::systems::SystemsComparison>>()
        .map_or(&[], Vec::as_slice)
}

fn cell(value: f64, ci: Option<[f64; 2]>, elo: bool) -> String {
    if !elo {
        let ci = ci.map_or((f64::NAN, f64::NAN), |[lo, hi]| (lo, hi));
        return crate::report::media::format::with_ci(value, ci);
    }
    match ci {
        _ if !value.is_finite() => "n/a".into(),
        Some([lo, hi]) => format!("{value:.0} [{lo:.0}, {hi:.0}]"),
        None => format!("{value:.0}"),
    }
}

fn opt(v: Option<f64>) -> String {
    v.map_or("n/a".into(), |v| format!("{v:.3}"))
}

/// Models × configurations (in the ranking's order), then each configuration's agreement with
/// the reference.
pub fn tables(run: &Evaluated, order: &[usize]) -> Vec<Table> {
    let rows: Vec<(String, &Systems)> = order
        .iter()
        .filter_map(|&i| {
            let s = run.evaluation.of_config::<Systems>(i)?;
            Some((
                crate::report::media::format::shown_name(&run.record.configs[i]),
                s,
            ))
        })
        .collect();
    let scores = match run
        .record
        .generators
        .as_ref()
        .and_then(|g| g.reference.as_ref())
    {
        Some(Reference::Table { scores, .. }) => Some(&scores[..]),
        _ => None,
    };
    tables_of(&rows, scores, &crate::report::media::format::ci_level(run))
}

/// The tables of named results (`analyze --generators` has one, named by its column).
pub fn tables_of(
    rows: &[(String, &Systems)],
    reference: Option<&[(String, f64)]>,
    level: &str,
) -> Vec<Table> {
    let Some((_, first)) = rows.first() else {
        return Vec::new();
    };
    let elo = first.score == "elo";
    let what = match &first.baseline {
        Some(b) => format!("win rate against {b}"),
        None => "Bradley–Terry Elo".to_string(),
    };
    // Models down the side, configurations across; with fewer models than configurations the
    // other way round, so the table fits.
    let score = |s: &Systems, name: &str| {
        s.generators
            .iter()
            .find(|x| x.name == name)
            .map_or("n/a".into(), |x| {
                cell(x.elo.unwrap_or(x.win_rate), x.ci, elo)
            })
    };
    let models: Vec<&str> = first.generators.iter().map(|m| m.name.as_str()).collect();
    let reference_of = |name: &str| {
        reference.map(|scores| {
            scores
                .iter()
                .find(|(n, _)| *n == name)
                .map_or("–".into(), |(_, s)| format!("{s}"))
        })
    };
    let title = format!("The models by configuration ({what}; {level} CIs over prompts)");
    let t = if models.len() < rows.len() {
        let mut headers: Vec<&str> = vec!["configuration"];
        headers.extend(models.iter().copied());
        let mut t = Table::new(title, &headers);
        for (name, s) in rows {
            let mut row = vec![name.clone()];
            row.extend(models.iter().map(|m| score(s, m)));
            t.rows.push(row);
        }
        if reference.is_some() {
            let mut row = vec!["reference".to_string()];
            row.extend(models.iter().map(|m| reference_of(m).unwrap_or_default()));
            t.rows.push(row);
        }
        t
    } else {
        let mut headers: Vec<&str> = vec!["model"];
        headers.extend(rows.iter().map(|(n, _)| n.as_str()));
        if reference.is_some() {
            headers.push("reference");
        }
        let mut t = Table::new(title, &headers);
        for m in &models {
            let mut row = vec![m.to_string()];
            row.extend(rows.iter().map(|(_, s)| score(s, m)));
            row.extend(reference_of(m));
            t.rows.push(row);
        }
        t.secondary = (2..headers.len()).collect();
        t
    };
    let mut t = t;
    if elo {
        t.notes.extend(reordered_notes(rows));
    }
    let mut out = vec![t];
    if rows.iter().any(|(_, s)| s.reference.is_some()) {
        out.push(against_reference(rows, level));
    }
    out
}

/// The one ranking of the models is Elo; the win rate (a tie half) is its view. Where the two
/// order a pair of models differently, the note says which, for each configuration.
fn reordered_notes(rows: &[(String, &Systems)]) -> Vec<String> {
    let mut notes = vec![
        "Ranked by Bradley–Terry Elo (a tie half a win, each result weighed by whom it was against); each model's win rate (--json's win_rate, a tie half) is a view of the same verdicts that ignores the opponents' strength."
            .to_string(),
    ];
    for (name, s) in rows {
        let pairs = s.reordered_by_win_rate();
        let k = s.generators.len();
        let all = k * k.saturating_sub(1) / 2;
        let who = if rows.len() > 1 {
            format!("{name}: the")
        } else {
            "The".to_string()
        };
        notes.push(if pairs.is_empty() {
            format!("{who} win rates order every pair of the {k} models as Elo does.")
        } else {
            let mut shown: Vec<String> = (pairs.iter().take(3))
                .map(|[a, b]| format!("{a} above {b}"))
                .collect();
            let last = shown.pop().unwrap_or_default();
            let listed = if shown.is_empty() {
                last
            } else {
                format!("{} and {last}", shown.join(", "))
            };
            format!(
                "{who} win rates order {} of the {all} pairs of models the other way: Elo puts {listed}{}.",
                pairs.len(),
                if pairs.len() > 3 { ", among others" } else { "" }
            )
        });
    }
    notes
}

/// Each configuration's ranking against the reference.
fn against_reference(rows: &[(String, &Systems)], level: &str) -> Table {
    let mut a = Table::new(
        format!("Each configuration's ranking against the reference ({level} CIs over prompts)"),
        &[
            "configuration",
            "models",
            "Spearman",
            "Kendall",
            "Pearson",
            "pairs in order",
            "separability",
        ],
    );
    for (name, s) in rows {
        let Some(r) = &s.reference else { continue };
        let with = |v: Option<f64>, ci: Option<[f64; 2]>| match v {
            Some(v) => cell(v, ci, false),
            None => "n/a".into(),
        };
        a.rows.push(vec![
            name.clone(),
            r.n.to_string(),
            with(r.spearman, r.ci.spearman),
            with(r.kendall, r.ci.kendall),
            with(r.pearson, r.ci.pearson),
            with(r.pairwise_agreement, r.ci.pairwise_agreement),
            opt(s.separability),
        ]);
        if !r.missing.is_empty() && a.notes.is_empty() {
            a.notes.push(format!(
                "reference: {}; models without a reference score, left out: {}",
                r.source,
                r.missing.join(", ")
            ));
        }
    }
    a.secondary = vec![3, 4, 6];
    a
}

/// The answer's lines: which configuration ranks the models most like the reference, and
/// whether that is real.
pub fn answer(run: &Evaluated) -> Vec<String> {
    let comparisons = comparisons(run);
    let rho = |name: &str| {
        run.record
            .configs
            .iter()
            .position(|c| c.name == name)
            .and_then(|i| run.evaluation.of_config::<Systems>(i))
            .and_then(|s| s.reference.as_ref())
            .map(|r| {
                (
                    cell(r.spearman.unwrap_or(f64::NAN), r.ci.spearman, false),
                    r.n,
                    r.source.clone(),
                )
            })
    };
    if let Some(c) = comparisons.first() {
        let Some((best, n, source)) = rho(&c.b) else {
            return Vec::new();
        };
        let real: Vec<&str> = comparisons
            .iter()
            .filter(|c| c.finding == crate::evaluation::Finding::BBetter)
            .map(|c| c.a.as_str())
            .collect();
        let verdict = if real.len() == comparisons.len() {
            "better than every other configuration (paired bootstrap over prompts, Holm)"
                .to_string()
        } else if real.is_empty() {
            "not distinguishable from the others at this many models and prompts (paired bootstrap, Holm)".to_string()
        } else {
            format!(
                "better than {} (paired bootstrap, Holm); the rest are within noise",
                real.join(", ")
            )
        };
        return vec![format!(
            "Ranks the models most like {source}: {} (Spearman {best} over {n} models), {verdict}.",
            c.b
        )];
    }
    // One configuration: its agreement alone.
    run.record
        .configs
        .iter()
        .zip(&run.evaluation.configs)
        .filter_map(|(c, r)| {
            let a = r.findings.get::<Systems>()?.reference.as_ref()?;
            Some(format!(
                "{} against {}: Spearman {} over {} models.",
                c.name,
                a.source,
                cell(a.spearman.unwrap_or(f64::NAN), a.ci.spearman, false),
                a.n
            ))
        })
        .take(1)
        .collect()
}

/// metrics.csv: each model's scores (scope `model:<name>`) and the ranking's figures (scope
/// `systems`) for configuration `i`.
pub fn tidy(rows: &mut TidyRows, run: &Evaluated, i: usize) {
    if let Some(s) = run.evaluation.of_config::<Systems>(i) {
        tidy_of(rows, s);
    }
}

/// The tidy rows of one result.
pub fn tidy_of(rows: &mut TidyRows, s: &Systems) {
    for m in &s.generators {
        let scope = format!("model:{}", m.name);
        let n = m.n as u64;
        let ci = m.ci.map(|[lo, hi]| (lo, hi));
        match m.elo {
            Some(e) => {
                rows.push(&scope, n, "elo", e, ci);
                rows.push(&scope, n, "win_rate", m.win_rate, None);
            }
            None => rows.push(&scope, n, "win_rate", m.win_rate, ci),
        }
        rows.push(&scope, n, "discrete_win_rate", m.discrete_win_rate, None);
    }
    let models = s.generators.len() as u64;
    if let Some(v) = s.separability {
        rows.push("systems", models, "separability", v, None);
    }
    if let Some(r) = &s.reference {
        let n = r.n as u64;
        for (key, v, ci) in [
            ("spearman", r.spearman, r.ci.spearman),
            ("kendall", r.kendall, r.ci.kendall),
            ("pearson", r.pearson, r.ci.pearson),
            (
                "pairwise_agreement",
                r.pairwise_agreement,
                r.ci.pairwise_agreement,
            ),
        ] {
            if let Some(v) = v {
                rows.push("systems", n, key, v, ci.map(|[lo, hi]| (lo, hi)));
            }
        }
    }
}

/// report.html's figures: each model's score with its interval, a panel per configuration;
/// and, with a reference table, each configuration's scores against it.
fn svgs(run: &Evaluated, order: &[usize]) -> anyhow::Result<Vec<(String, String)>> {
    use crate::report::media::svg::{dots_svg, scatter_svg, Dots};
    let rows: Vec<(usize, &Systems)> = order
        .iter()
        .filter_map(|&i| Some((i, run.evaluation.of_config::<Systems>(i)?)))
        .collect();
    let Some((_, first)) = rows.first() else {
        return Ok(Vec::new());
    };
    let names: Vec<String> = first.generators.iter().map(|m| m.name.clone()).collect();
    let score_of = |s: &Systems, name: &str| {
        s.generators
            .iter()
            .find(|m| m.name == name)
            .map_or((f64::NAN, None), |m| (m.elo.unwrap_or(m.win_rate), m.ci))
    };
    let panels: Vec<Dots> = rows
        .iter()
        .map(|(i, s)| {
            (
                run.record.configs[*i].name.clone(),
                names.iter().map(|n| score_of(s, n)).collect(),
            )
        })
        .collect();
    let level = crate::report::media::format::ci_level(run);
    let what = match &first.baseline {
        Some(b) => {
            format!("each model's win rate against {b} with its {level} interval over prompts")
        }
        None => format!("each model's Bradley–Terry Elo with its {level} interval over prompts"),
    };
    let mut out = vec![(
        format!("systems: {what}, per configuration"),
        dots_svg(&names, &panels)?,
    )];
    if let Some(Reference::Table { scores, source }) = run
        .record
        .generators
        .as_ref()
        .and_then(|g| g.reference.as_ref())
    {
        let series: Vec<(String, Vec<(f64, f64)>)> = rows
            .iter()
            .map(|(i, s)| {
                (
                    run.record.configs[*i].name.clone(),
                    scores
                        .iter()
                        .map(|(m, r)| (*r, score_of(s, m).0))
                        .filter(|p| p.1.is_finite())
                        .collect(),
                )
            })
            .collect();
        out.push((
            format!("systems: each configuration's scores against the reference ({source})"),
            scatter_svg(source, &first.score.replace('_', " "), &series)?,
        ));
    }
    Ok(out)
}

/// The system level's section: the answer's question when a reference was asked for, its
/// tables after the configurations' (without `--details`, only then).
#[derive(Debug)]
pub struct SystemsSection;

impl Section for SystemsSection {
    fn place(&self) -> Place {
        Place::Lead
    }
    fn tables(&self, run: &Evaluated, order: &[usize], view: View) -> Vec<Table> {
        let asked = run
            .record
            .generators
            .as_ref()
            .is_some_and(|g| g.reference.is_some());
        if asked || view == View::Full {
            tables(run, order)
        } else {
            Vec::new()
        }
    }
    fn question(&self, run: &Evaluated) -> Vec<String> {
        answer(run)
    }
    fn figures(&self, run: &Evaluated, order: &[usize]) -> anyhow::Result<Vec<Figure>> {
        Ok(svgs(run, order)?
            .into_iter()
            .zip(["systems.svg", "systems-reference.svg"])
            .map(|((title, svg), file)| Figure {
                file: file.into(),
                title,
                svg,
            })
            .collect())
    }
    fn run_json(&self, run: &Evaluated) -> Vec<(&'static str, Value)> {
        let c = comparisons(run);
        if c.is_empty() {
            return Vec::new();
        }
        key("systems_comparisons", serde_json::to_value(c).ok())
    }
    fn config_json(
        &self,
        run: &Evaluated,
        _order: &[usize],
        i: usize,
    ) -> Vec<(&'static str, Value)> {
        let systems = run.evaluation.of_config::<Systems>(i);
        key(
            "systems",
            systems.and_then(|s| serde_json::to_value(s).ok()),
        )
    }
    fn config_rows(&self, rows: &mut TidyRows, run: &Evaluated, i: usize) {
        tidy(rows, run, i);
    }
}
