//! `--estimate`'s output (`evaluation::estimate` decides): the answer first, the table of
//! estimates, the models' rank-sets (a table and a figure), and metrics.csv's scope
//! `estimate`. `analyze` and `calibrate` both show it through these.

use crate::evaluation::estimate::{Estimate, Interval};
use crate::report::media::csv::TidyRows;
use crate::report::media::format::thousands;
use crate::report::media::table::Table;

/// What the outcome is, in words: the gold value's name when --gold-map gave one; a pairwise
/// label's meaning; else the label.
fn outcome(e: &Estimate) -> String {
    if e.numeric && e.label_name.is_none() {
        return format!("the share labelled {}", e.label);
    }
    match (&e.label_name, e.label) {
        (Some(name), _) => format!("{name} wins"),
        (None, -1) => "response 1 wins".into(),
        (None, 1) => "response 2 wins".into(),
        (None, 0) => "a tie".into(),
        (None, l) => format!("label {l}"),
    }
}

/// The outcome before its figure in a sentence: "model_a wins 0.38", "the share labelled 1 is
/// 0.25".
fn stated(e: &Estimate) -> String {
    let what = outcome(e);
    if e.numeric && e.label_name.is_none() {
        format!("{what} is")
    } else {
        what
    }
}

/// "1 human label", "12 human labels".
fn human_labels(n: u64) -> String {
    format!(
        "{} human label{}",
        thousands(n),
        if n == 1 { "" } else { "s" }
    )
}

fn fixed(v: f64) -> String {
    crate::report::media::format::fixed(v)
}

fn interval(i: &Interval) -> String {
    format!(
        "{} [{}, {}]",
        fixed(i.estimate),
        fixed(i.ci[0]),
        fixed(i.ci[1])
    )
}

/// The answer: "Corrected with N human labels: OUTCOME P [lo, hi]; the judge alone says Q
/// (its bias, Q − P); its M verdicts are worth K human labels.", then why any estimate is
/// missing or clipped.
pub fn answer(e: &Estimate) -> Vec<String> {
    let level = format!("{:.0}%", 100.0 * (1.0 - e.alpha));
    let what = stated(e);
    let lead_active = e.mean.active.filter(|a| a.leads);
    let mut out = vec![match (&e.mean.ppi_plus, &e.mean.judge) {
        _ if lead_active.is_some() => {
            let a = lead_active.map(|a| a.interval).unwrap_or(Interval {
                estimate: f64::NAN,
                ci: [f64::NAN; 2],
            });
            let judge = e.mean.judge.map_or(String::new(), |j| {
                format!(
                    "; the judge alone says {} (its bias, {:+.4})",
                    fixed(j.estimate),
                    j.estimate - a.estimate
                )
            });
            format!(
                "Corrected by active labelling with {} (each weighed by 1/π): {what} {}{judge}.",
                human_labels(e.n_labelled as u64),
                interval(&a)
            )
        }
        (Some(plus), Some(judge)) => {
            let p = plus.interval.estimate;
            let worth = e.worth.map_or(String::new(), |w| {
                let (verdicts, add, are) = match e.n_unlabelled {
                    1 => ("1 verdict".to_string(), "adds", "is"),
                    n => (format!("{} verdicts", thousands(n as u64)), "add", "are"),
                };
                match (w - e.n_labelled as f64).max(0.0).round() as u64 {
                    0 => format!("; its {verdicts} {add} nothing the human labels do not give"),
                    k => format!("; its {verdicts} {are} worth {}", human_labels(k)),
                }
            });
            format!(
                "Corrected with {}: {what} {}; the judge alone says {} (its bias, {:+.4}){worth}.",
                human_labels(e.n_labelled as u64),
                interval(&plus.interval),
                fixed(judge.estimate),
                judge.estimate - p
            )
        }
        (None, Some(judge)) => format!(
            "Not corrected: {what} {} by the judge alone over {} items ({level}); {}.",
            interval(judge),
            thousands((e.n_labelled + e.n_unlabelled) as u64),
            e.notes
                .first()
                .map_or("nothing to correct it with", String::as_str)
        ),
        _ => format!("No estimate of the share of items where {what}: no item was rated."),
    }];
    if let (true, Some(rg), Some(plus)) = (e.disagree, e.mean.rogan_gladen, &e.mean.ppi_plus) {
        out.push(format!(
            "Rogan–Gladen disagrees: {} (sensitivity {}, specificity {}), {:.4} from PPI++ with intervals that do not overlap; it assumes the judge errs alike on every item of a class, which PPI does not.",
            interval(&rg.interval),
            fixed(rg.sensitivity),
            fixed(rg.specificity),
            (rg.interval.estimate - plus.interval.estimate).abs()
        ));
    }
    if let Some(s) = &e.systems {
        // The models that can be first: by each model's own battles (the lead), then as
        // Chatzi et al.'s published rank-sets have it.
        let first = |published: bool| -> Vec<&str> {
            let set = |r: &crate::evaluation::estimate::Ranked| {
                if published {
                    r.rank_set_published
                } else {
                    r.rank_set
                }
            };
            s.models
                .iter()
                .filter(|m| set(&m.ppr)[0] == 1)
                .map(|m| m.name.as_str())
                .collect()
        };
        let (own, published) = (first(false), first(true));
        let tail = if own == published {
            "the same by Chatzi et al.'s published rank-sets".to_string()
        } else {
            format!(
                "by Chatzi et al.'s published rank-sets (over all battles, narrower) {}",
                published.join(", ")
            )
        };
        out.push(format!(
            "Models ranked with {} ({level} rank-sets over each model's own battles): {} of {} can be first ({}); {tail}.",
            human_labels(e.n_labelled as u64),
            own.len(),
            s.models.len(),
            own.join(", ")
        ));
    }
    out.extend(
        e.notes
            .iter()
            .skip(usize::from(
                e.mean.ppi_plus.is_none() && lead_active.is_none(),
            ))
            .map(|n| format!("Note: {n}.")),
    );
    out
}

/// The table of estimates, one row a method.
pub fn tables(e: &Estimate) -> Vec<Table> {
    titled(e, "")
}

/// `tables`, their titles led by `who` (a configuration's name, or nothing).
fn titled(e: &Estimate, who: &str) -> Vec<Table> {
    let level = format!("{:.0}%", 100.0 * (1.0 - e.alpha));
    let mut t = Table::new(
        format!(
            "{who}Corrected estimates: {} ({} labelled, {} unlabelled; {level} intervals)",
            outcome(e),
            thousands(e.n_labelled as u64),
            thousands(e.n_unlabelled as u64)
        ),
        &["method", "estimate", "interval", "from"],
    );
    let m = &e.mean;
    let row = |name: &str, i: Option<&Interval>, from: String| -> Vec<String> {
        match i {
            Some(i) => vec![
                name.into(),
                fixed(i.estimate),
                format!("[{}, {}]", fixed(i.ci[0]), fixed(i.ci[1])),
                from,
            ],
            None => vec![name.into(), "n/a".into(), String::new(), from],
        }
    };
    t.rows = vec![
        row(
            "judge alone",
            m.judge.as_ref(),
            "every item's verdict".into(),
        ),
        row("humans alone", m.humans.as_ref(), "the gold labels".into()),
        row("PPI", m.ppi.as_ref(), "both, λ = 1".into()),
        row(
            "PPI++",
            m.ppi_plus.as_ref().map(|p| &p.interval),
            m.ppi_plus
                .map_or(String::new(), |p| format!("both, λ = {}", fixed(p.lambda))),
        ),
        row(
            "Rogan–Gladen",
            m.rogan_gladen.as_ref().map(|r| &r.interval),
            m.rogan_gladen.map_or(String::new(), |r| {
                format!(
                    "sensitivity {}, specificity {}{}",
                    fixed(r.sensitivity),
                    fixed(r.specificity),
                    if r.clipped { ", clipped" } else { "" }
                )
            }),
        ),
    ];
    if let Some(a) = &m.active {
        t.rows.push(row(
            "active",
            Some(&a.interval),
            format!(
                "both, each label weighed by 1/π{}",
                if a.leads { " (leads)" } else { "" }
            ),
        ));
    }
    if let Some(w) = e.worth {
        t.notes.push(format!(
            "The corrected (PPI++) estimate is as precise as {} alone (n·var(humans)/var(PPI++)).",
            human_labels(w.round() as u64)
        ));
    }
    let mut out = vec![t];
    if let Some(s) = &e.systems {
        let mut r = Table::new(
            format!(
                "{who}Models ranked with few human labels (PPR, λ = {}; {level} rank-sets, 1 the best)",
                fixed(s.lambda)
            ),
            &[
                "model",
                "win rate",
                "rank-set",
                "published",
                "humans",
                "rank-set",
                "judge",
                "rank-set",
            ],
        );
        let set = |r: [usize; 2]| format!("{}–{}", r[0], r[1]);
        r.rows = s
            .models
            .iter()
            .map(|m| {
                vec![
                    m.name.clone(),
                    fixed(m.ppr.win_rate),
                    set(m.ppr.rank_set),
                    set(m.ppr.rank_set_published),
                    fixed(m.humans.win_rate),
                    set(m.humans.rank_set),
                    fixed(m.judge.win_rate),
                    set(m.judge.rank_set),
                ]
            })
            .collect();
        // The judge alone is what a narrow terminal leaves out first.
        r.secondary = vec![6, 7];
        r.elsewhere = "--json and --html have them";
        r.notes.push(
            "A win rate counts a tie for neither side (Chatzi et al.); the combined one corrects the judge's with the human labels.".into(),
        );
        r.notes.push(
            "The rank-sets are each model's own: the covariance of its mean over its own battles. 'published' is Chatzi et al.'s code's, whose covariance divides by the square of all the battles, so its standard error is smaller by the inverse of the model's share of the battles and its rank-sets narrower than its own battles support. The two disagree where they differ; the figure and metrics.csv's ppr_rank_* are the models' own (ppr_rank_published_* Chatzi et al.'s).".into(),
        );
        out.push(r);
    }
    out
}

/// metrics.csv: scope `estimate`, one metric a method (`estimate_<method>`), and with the
/// models `estimate:model:<name>` rows.
pub fn tidy(e: &Estimate, rows: &mut TidyRows) {
    let n = (e.n_labelled + e.n_unlabelled) as u64;
    let m = &e.mean;
    for (name, i) in [
        ("judge", m.judge),
        ("humans", m.humans),
        ("ppi", m.ppi),
        ("ppi_plus", m.ppi_plus.map(|p| p.interval)),
        ("rogan_gladen", m.rogan_gladen.map(|r| r.interval)),
        ("active", m.active.map(|a| a.interval)),
    ] {
        if let Some(i) = i {
            rows.push(
                "estimate",
                n,
                &format!("estimate_{name}"),
                i.estimate,
                Some((i.ci[0], i.ci[1])),
            );
        }
    }
    if let Some(w) = e.worth {
        rows.push("estimate", n, "estimate_worth", w, None);
    }
    if let Some(s) = &e.systems {
        for model in &s.models {
            let scope = format!("estimate:model:{}", model.name);
            rows.push(&scope, n, "ppr_win_rate", model.ppr.win_rate, None);
            rows.push(&scope, n, "ppr_rank_lo", model.ppr.rank_set[0] as f64, None);
            rows.push(&scope, n, "ppr_rank_hi", model.ppr.rank_set[1] as f64, None);
            let published = model.ppr.rank_set_published;
            rows.push(
                &scope,
                n,
                "ppr_rank_published_lo",
                published[0] as f64,
                None,
            );
            rows.push(
                &scope,
                n,
                "ppr_rank_published_hi",
                published[1] as f64,
                None,
            );
        }
    }
}

/// The rank-sets figure: models on the y axis, one bar per source (humans, judge, both).
pub fn plot(e: &Estimate) -> anyhow::Result<Option<(String, String)>> {
    let Some(s) = e.systems.as_ref() else {
        return Ok(None);
    };
    let rows: Vec<(String, Vec<[usize; 2]>)> = s
        .models
        .iter()
        .map(|m| {
            (
                m.name.clone(),
                vec![m.humans.rank_set, m.judge.rank_set, m.ppr.rank_set],
            )
        })
        .collect();
    let svg = crate::report::media::svg::rank_sets_svg(
        &format!("rank-sets at {:.0}%", 100.0 * (1.0 - e.alpha)),
        &["humans alone", "judge alone", "both (PPR)"],
        &rows,
    )?;
    Ok(Some((
        "models ranked with few human labels".to_string(),
        svg,
    )))
}

/// `calibrate --estimate`'s section: each judged configuration's estimate (the terminal shows
/// the first in the ranking's order, `--details` and report.html every one), its answer
/// after the best configuration's, `configs[i].estimate`, metrics.csv rows and the rank-set
/// figure of the first.
#[derive(Debug)]
pub struct EstimateSection;

/// The configurations with an estimate, in `order`.
fn estimated<'a>(
    run: &crate::evaluation::Evaluated<'a>,
    order: &'a [usize],
) -> impl Iterator<Item = (usize, &'a Estimate)> + 'a {
    let evaluation = run.evaluation;
    order
        .iter()
        .filter_map(move |&i| evaluation.of_config::<Estimate>(i).map(|e| (i, e)))
}

impl crate::report::calibrate::section::Section for EstimateSection {
    fn place(&self) -> crate::report::calibrate::section::Place {
        crate::report::calibrate::section::Place::Lead
    }
    fn tables(
        &self,
        run: &crate::evaluation::Evaluated,
        order: &[usize],
        view: crate::report::calibrate::section::View,
    ) -> Vec<Table> {
        let shown = match view {
            crate::report::calibrate::section::View::Brief => 1,
            crate::report::calibrate::section::View::Full => usize::MAX,
        };
        estimated(run, order)
            .take(shown)
            .flat_map(|(i, e)| titled(e, &format!("{}: ", run.record.configs[i].name)))
            .collect()
    }
    fn answer(&self, run: &crate::evaluation::Evaluated, order: &[usize]) -> Vec<String> {
        estimated(run, order)
            .take(1)
            .flat_map(|(i, e)| {
                answer(e)
                    .into_iter()
                    .map(move |line| format!("{}: {line}", run.record.configs[i].name))
            })
            .collect()
    }
    fn figures(
        &self,
        run: &crate::evaluation::Evaluated,
        order: &[usize],
    ) -> anyhow::Result<Vec<crate::report::calibrate::section::Figure>> {
        let Some((i, e)) = estimated(run, order).next() else {
            return Ok(Vec::new());
        };
        Ok(plot(e)?
            .map(|(title, svg)| crate::report::calibrate::section::Figure {
                file: "rank-sets.svg".into(),
                title: format!("{}: {title}", run.record.configs[i].name),
                svg,
            })
            .into_iter()
            .collect())
    }
    fn config_json(
        &self,
        run: &crate::evaluation::Evaluated,
        _order: &[usize],
        i: usize,
    ) -> Vec<(&'static str, serde_json::Value)> {
        crate::report::calibrate::section::key(
            "estimate",
            run.evaluation
                .of_config::<Estimate>(i)
                .and_then(|e| serde_json::to_value(e).ok()),
        )
    }
    fn config_rows(&self, rows: &mut TidyRows, run: &crate::evaluation::Evaluated, i: usize) {
        if let Some(e) = run.evaluation.of_config::<Estimate>(i) {
            tidy(e, rows);
        }
    }
}
