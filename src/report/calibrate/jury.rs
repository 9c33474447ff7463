//! A jury beside its members: the JSON object `configs[i].jury`, tidy CSV rows, the terminal's
//! tables (the jury against each member, and every sub-jury) and the sub-jury figure.

use crate::evaluation::jury::{JuryStats, SubJury};
use crate::evaluation::Evaluated;
use crate::evaluation::{Finding, MetricTest};
use crate::metrics::Statistic;
use crate::raters::jury::Jury;
use crate::report::calibrate::section::{key, Figure, Place, Section, View};
use crate::report::media::csv::TidyRows;
use crate::report::media::format::interval_of;
use crate::report::media::format::{fixed as f4, with_interval};
use crate::report::media::svg::draw::{legend, plot_error};
use crate::report::media::table::Table;
use anyhow::Result;
use plotters::prelude::*;
use serde::Serialize;
use serde_json::Value;

/// The run's juries: (configuration index, its rule, its figures).
fn juries<'a>(run: &Evaluated<'a>) -> Vec<(usize, &'a Jury, &'a JuryStats)> {
    run.record
        .configs
        .iter()
        .zip(&run.evaluation.configs)
        .enumerate()
        .filter_map(|(i, (rec, r))| {
            Some((
                i,
                rec.jury.as_ref()?,
                r.findings.get::<crate::evaluation::jury::JuryStats>()?,
            ))
        })
        .collect()
}

/// The member ranked first in `order` (the run's configurations by its sort metric, best
/// first): the best member.
pub fn best_member(order: &[usize], jury: &Jury) -> usize {
    *order
        .iter()
        .find(|i| jury.members.contains(i))
        .unwrap_or(&jury.members[0])
}

/// The run's paired comparison of a member and its jury, read as jury − member: the items
/// both rated, and the accuracy and quadratic-kappa tests (B the jury).
fn versus(run: &Evaluated, member: usize, jury: usize) -> Option<(u64, MetricTest, MetricTest)> {
    run.evaluation.comparisons.iter().find_map(|c| {
        if (c.a, c.b) == (member, jury) {
            Some((c.n, c.accuracy, c.kappa))
        } else if (c.a, c.b) == (jury, member) {
            Some((c.n, c.accuracy.reversed(), c.kappa.reversed()))
        } else {
            None
        }
    })
}

fn share(part: usize, of: usize) -> f64 {
    crate::evaluation::share(part as u64, of as u64)
}

fn names(run: &Evaluated, members: &[usize]) -> Vec<String> {
    members
        .iter()
        .map(|&m| run.record.configs[m].name.clone())
        .collect()
}

/// A sub-jury: its members and how it does (undecided items left out, or counted wrong).
#[derive(Serialize)]
struct SubJson {
    members: Vec<String>,
    decided: usize,
    accuracy: f64,
    kappa_quadratic: f64,
    accuracy_as_wrong: f64,
    kappa_quadratic_as_wrong: f64,
}

fn sub_json(run: &Evaluated, s: &SubJury) -> SubJson {
    SubJson {
        members: names(run, &s.members),
        decided: s.decided,
        accuracy: s.drop.accuracy,
        kappa_quadratic: s.drop.kappa_quadratic,
        accuracy_as_wrong: s.as_wrong.accuracy,
        kappa_quadratic_as_wrong: s.as_wrong.kappa_quadratic,
    }
}

/// The jury (as B) against one member (as A): the run's paired tests on accuracy and on
/// quadratic kappa.
#[derive(Serialize)]
struct VersusJson<'a> {
    member: &'a str,
    n: u64,
    tests: [crate::evaluation::paired::PairedTest; 2],
}

/// The members' agreement with each other.
#[derive(Serialize)]
struct MemberAgreement {
    fleiss_kappa: f64,
    items_all_rated: usize,
    krippendorff_alpha_nominal: f64,
    krippendorff_alpha_ordinal: f64,
}

/// `configs[i].jury`.
#[derive(Serialize)]
struct JuryJson<'a> {
    members: Vec<String>,
    vote: &'static str,
    weights: &'a [f64],
    items: usize,
    no_majority: usize,
    no_votes: usize,
    abstained: std::collections::BTreeMap<&'a str, usize>,
    member_agreement: MemberAgreement,
    majority_items: usize,
    bare_majority: usize,
    bare_majority_share: f64,
    unanimous: usize,
    oracle: f64,
    oracle_items: usize,
    all_right: f64,
    best_member: &'a str,
    versus_members: Vec<VersusJson<'a>>,
    subsets: Vec<SubJson>,
}

/// `configs[i].jury`: the rule, its undecided items, the members' abstentions and
/// agreement, bare majorities, the oracle bound, the jury against each member (the run's
/// paired tests, Holm-adjusted over every pair of the run) and every sub-jury.
pub fn to_json(run: &Evaluated, order: &[usize], i: usize) -> Option<Value> {
    let (_, jury, s) = juries(run).into_iter().find(|(k, _, _)| *k == i)?;
    let best = best_member(order, jury);
    let name = |m: usize| run.record.configs[m].name.as_str();
    let versus_members = jury
        .members
        .iter()
        .filter_map(|&m| {
            let (n, accuracy, kappa) = versus(run, m, i)?;
            let jury = name(i);
            Some(VersusJson {
                member: name(m),
                n,
                tests: [
                    accuracy.shaped(name(m), jury, "accuracy"),
                    kappa.shaped(name(m), jury, "kappa_quadratic"),
                ],
            })
        })
        .collect();
    serde_json::to_value(JuryJson {
        members: names(run, &jury.members),
        vote: jury.vote.key(),
        weights: &jury.weights,
        items: s.items,
        no_majority: s.no_majority,
        no_votes: s.no_votes,
        abstained: jury
            .members
            .iter()
            .zip(&s.abstained)
            .map(|(&m, n)| (name(m), *n))
            .collect(),
        member_agreement: MemberAgreement {
            fleiss_kappa: s.agreement.fleiss_kappa,
            items_all_rated: s.agreement.items_all_rated,
            krippendorff_alpha_nominal: s.agreement.alpha_nominal,
            krippendorff_alpha_ordinal: s.agreement.alpha_ordinal,
        },
        majority_items: s.majority_items,
        bare_majority: s.bare_majority,
        bare_majority_share: share(s.bare_majority, s.majority_items),
        unanimous: s.unanimous,
        oracle: share(s.oracle, s.items),
        oracle_items: s.oracle,
        all_right: share(s.all_right, s.items),
        best_member: name(best),
        versus_members,
        subsets: s.subsets.iter().map(|x| sub_json(run, x)).collect(),
    })
    .ok()
}

/// Rows `jury_*` of metrics.csv for configuration `i`.
pub fn tidy(rows: &mut TidyRows, run: &Evaluated, i: usize) {
    let Some((_, _, s)) = juries(run).into_iter().find(|(k, _, _)| *k == i) else {
        return;
    };
    let n = s.items as u64;
    rows.push("overall", n, "jury_no_majority", s.no_majority as f64, None);
    rows.push("overall", n, "jury_no_votes", s.no_votes as f64, None);
    rows.push("overall", n, "jury_oracle", share(s.oracle, s.items), None);
    rows.push(
        "overall",
        n,
        "jury_all_right",
        share(s.all_right, s.items),
        None,
    );
    rows.push(
        "overall",
        s.majority_items as u64,
        "jury_bare_majority_share",
        share(s.bare_majority, s.majority_items),
        None,
    );
    let a = &s.agreement;
    rows.push(
        "overall",
        a.items_all_rated as u64,
        "jury_fleiss_kappa",
        a.fleiss_kappa,
        None,
    );
    rows.push(
        "overall",
        n,
        "jury_krippendorff_alpha_nominal",
        a.alpha_nominal,
        None,
    );
    rows.push(
        "overall",
        n,
        "jury_krippendorff_alpha_ordinal",
        a.alpha_ordinal,
        None,
    );
}

/// The answer's jury lines: each jury's accuracy against its best member, with the paired
/// verdict, and how often it could not decide.
pub fn answer(run: &Evaluated, order: &[usize]) -> Vec<String> {
    juries(run)
        .into_iter()
        .map(|(i, jury, s)| {
            let best = best_member(order, jury);
            let accuracy = |k: usize| {
                run.evaluation.configs[k]
                    .overall
                    .agreement
                    .get(Statistic::Accuracy)
            };
            let verdict = versus(run, best, i).map_or_else(
                || "untested".to_string(),
                |(n, t, _)| {
                    // The paired difference is over the items both rated: say so when the
                    // accuracies above are over more.
                    let over = if n < s.items as u64 {
                        let items = if n == 1 { "item" } else { "items" };
                        format!(" on the {n} {items} both rated")
                    } else {
                        String::new()
                    };
                    format!(
                        "jury − member {:+.3} {}{over}, {}",
                        t.diff,
                        interval_of(&t, 3),
                        match t.finding() {
                            Finding::BBetter => "the jury is better",
                            Finding::ABetter => "the member is better",
                            Finding::NoDifference => "no significant difference",
                            Finding::Unjudged => "no verdict (--family best)",
                            Finding::Untested => "untested",
                        }
                    )
                },
            );
            format!(
                "Jury {} ({} vote, {} members): accuracy {:.4} against its best member {} {:.4}: {verdict}; {} of {} items undecided, oracle bound {:.4}.",
                run.record.configs[i].name,
                jury.vote.key(),
                jury.members.len(),
                accuracy(i),
                run.record.configs[best].name,
                accuracy(best),
                s.no_majority + s.no_votes,
                s.items,
                share(s.oracle, s.items),
            )
        })
        .collect()
}

/// The terminal's (and the page's) tables: per jury, the jury and its members side by side
/// with the paired verdict against each; with `details`, every sub-jury.
pub fn tables(run: &Evaluated, order: &[usize], details: bool) -> Vec<Table> {
    let mut out = Vec::new();
    for (i, jury, s) in juries(run) {
        let best = best_member(order, jury);
        let mut t = Table::new(
            format!(
                "Jury {} ({} vote) against its members (paired tests Holm-adjusted in the run's family; each interval at the level of the Holm step that decided its pair)",
                run.record.configs[i].name,
                jury.vote.key()
            ),
            &["configuration", "accuracy", "kappa (quadratic)", "jury − member: accuracy", "jury − member: κq", "abstained"],
        );
        t.secondary = vec![2, 4, 5];
        let cell = |k: usize, st: Statistic| {
            with_interval(&run.evaluation.configs[k].overall.agreement, st)
        };
        t.rows.push(vec![
            format!("{} (jury)", run.record.configs[i].name),
            cell(i, Statistic::Accuracy),
            cell(i, Statistic::KappaQuadratic),
            String::new(),
            String::new(),
            String::new(), // a jury abstains from nothing; its undecided items are in the notes
        ]);
        let short = short_names(run, jury);
        for (k, &m) in jury.members.iter().enumerate() {
            let tests = versus(run, m, i);
            let diff = |t: Option<MetricTest>| {
                t.map_or_else(String::new, |t| {
                    format!(
                        "{:+.3} {} {}",
                        t.diff,
                        interval_of(&t, 3),
                        match t.finding() {
                            Finding::BBetter => "jury better",
                            Finding::ABetter => "member better",
                            Finding::NoDifference => "no difference",
                            Finding::Unjudged => "no verdict",
                            Finding::Untested => "untested",
                        }
                    )
                })
            };
            t.rows.push(vec![
                format!(
                    "{}{}",
                    short[k],
                    if m == best { " (best member)" } else { "" }
                ),
                cell(m, Statistic::Accuracy),
                cell(m, Statistic::KappaQuadratic),
                diff(tests.map(|t| t.1)),
                diff(tests.map(|t| t.2)),
                s.abstained[k].to_string(),
            ]);
        }
        t.notes.push(format!(
            "{} of {} items undecided: {} without a {} among the voters, {} with no member's verdict (members that failed or gave no verdict do not vote); bare majorities (one vote from undone): {} of {} ({})",
            s.no_majority + s.no_votes,
            s.items,
            s.no_majority,
            if jury.vote == crate::raters::jury::Vote::Unanimous { "unanimous verdict" } else { "decision" },
            s.no_votes,
            s.bare_majority,
            s.majority_items,
            f4(share(s.bare_majority, s.majority_items)),
        ));
        if short[0] != run.record.configs[jury.members[0]].name {
            t.notes
                .push(format!("members: {}", names(run, &jury.members).join(", ")));
        }
        t.notes.push(format!(
            "oracle bound: at least one member right on {} of {} items ({}), every member on {}; members' agreement: Fleiss' κ {} over {} items all rated, Krippendorff's α {} (nominal), {} (ordinal); the jury's cost is its members' ({} calls)",
            s.oracle,
            s.items,
            f4(share(s.oracle, s.items)),
            f4(share(s.all_right, s.items)),
            f4(s.agreement.fleiss_kappa),
            s.agreement.items_all_rated,
            f4(s.agreement.alpha_nominal),
            f4(s.agreement.alpha_ordinal),
            run.record.configs[i].cost.calls,
        ));
        out.push(t);
        if details && !s.subsets.is_empty() {
            out.push(subsets_table(run, i, jury, s));
        }
    }
    out
}

/// The members' names without the `/prompt/rater` they share (whole when they share none).
fn short_names(run: &Evaluated, jury: &Jury) -> Vec<String> {
    let full = names(run, &jury.members);
    let first = &full[0];
    let suffix = first
        .match_indices('/')
        .map(|(at, _)| &first[at..])
        .find(|tail| {
            full.iter()
                .all(|n| n.ends_with(tail) && n.len() > tail.len())
        });
    match suffix {
        Some(tail) => full
            .iter()
            .map(|n| n[..n.len() - tail.len()].to_string())
            .collect(),
        None => full,
    }
}

fn subsets_table(run: &Evaluated, i: usize, jury: &Jury, s: &JuryStats) -> Table {
    let short = short_names(run, jury);
    let mut t = Table::new(
        format!(
            "Every sub-jury of {} ({} vote), from the same answers (no new call)",
            run.record.configs[i].name,
            jury.vote.key()
        ),
        &[
            "members",
            "decided",
            "accuracy",
            "kappa (quadratic)",
            "accuracy, undecided wrong",
        ],
    );
    for x in &s.subsets {
        let who: Vec<&str> = x
            .members
            .iter()
            .filter_map(|m| jury.members.iter().position(|k| k == m))
            .map(|k| short[k].as_str())
            .collect();
        t.rows.push(vec![
            who.join(" + "),
            format!("{}/{}", x.decided, s.items),
            f4(x.drop.accuracy),
            f4(x.drop.kappa_quadratic),
            f4(x.as_wrong.accuracy),
        ]);
    }
    t.notes.push(
        "accuracy and kappa over the items the sub-jury decided; the last column counts its undecided items wrong".into(),
    );
    t
}

/// Every sub-jury's accuracy (undecided items wrong) against its size, one panel per jury, the
/// oracle bound as a dashed line (None without juries of up to 5 members).
pub fn svg(run: &Evaluated) -> Result<Option<String>> {
    let shown: Vec<(usize, &Jury, &JuryStats)> = juries(run)
        .into_iter()
        .filter(|(_, _, s)| !s.subsets.is_empty())
        .collect();
    if shown.is_empty() {
        return Ok(None);
    }
    let mut svg = String::new();
    {
        let root =
            SVGBackend::with_string(&mut svg, (820, 320 * shown.len() as u32)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        for (panel, (i, jury, s)) in root.split_evenly((shown.len(), 1)).iter().zip(&shown) {
            let n = jury.members.len() as f64;
            let mut chart = ChartBuilder::on(panel)
                .caption(
                    format!(
                        "{}: every sub-jury's accuracy (undecided counted wrong) by size",
                        run.record.configs[*i].name
                    ),
                    ("sans-serif", 16),
                )
                .margin(10)
                .x_label_area_size(30)
                .y_label_area_size(50)
                .build_cartesian_2d(0.5..n + 0.5, 0.0..1.0f64)
                .map_err(plot_error)?;
            chart
                .configure_mesh()
                .x_labels(jury.members.len())
                .x_label_formatter(&|k| format!("{k:.0} member(s)"))
                .draw()
                .map_err(plot_error)?;
            let oracle = share(s.oracle, s.items);
            chart
                .draw_series(DashedLineSeries::new(
                    vec![(0.5, oracle), (n + 0.5, oracle)],
                    6,
                    4,
                    RGBColor(120, 120, 120).stroke_width(1),
                ))
                .map_err(plot_error)?
                .label("oracle: some member right")
                .legend(|(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], RGBColor(120, 120, 120))
                });
            let blue = RGBColor(74, 127, 181);
            chart
                .draw_series(
                    s.subsets
                        .iter()
                        .filter(|x| x.as_wrong.accuracy.is_finite())
                        .map(|x| {
                            let whole = x.members.len() == jury.members.len();
                            Circle::new(
                                (x.members.len() as f64, x.as_wrong.accuracy),
                                if whole { 6 } else { 4 },
                                if whole {
                                    RGBColor(214, 120, 40).filled()
                                } else {
                                    blue.filled()
                                },
                            )
                        }),
                )
                .map_err(plot_error)?
                .label("a sub-jury (orange: the whole jury)")
                .legend(move |(x, y)| Circle::new((x + 8, y), 4, blue.filled()));
            legend(&mut chart, SeriesLabelPosition::LowerRight)?;
        }
        root.present().map_err(plot_error)?;
    }
    Ok(Some(svg))
}

/// Juries' section: after the comparisons (a short form without `--details`).
#[derive(Debug)]
pub struct JurySection;

impl Section for JurySection {
    fn place(&self) -> Place {
        Place::After
    }
    fn tables(&self, run: &Evaluated, order: &[usize], view: View) -> Vec<Table> {
        tables(run, order, view == View::Full)
    }
    fn answer(&self, run: &Evaluated, order: &[usize]) -> Vec<String> {
        answer(run, order)
    }
    fn figures(&self, run: &Evaluated, _order: &[usize]) -> Result<Vec<Figure>> {
        Ok(Figure::one(
            svg(run)?,
            "juries.svg",
            "juries: every sub-jury's accuracy by size, from the same answers (no new call); the dashed line is the oracle bound",
        ))
    }
    fn config_json(
        &self,
        run: &Evaluated,
        order: &[usize],
        i: usize,
    ) -> Vec<(&'static str, Value)> {
        key("jury", to_json(run, order, i))
    }
    fn config_rows(&self, rows: &mut TidyRows, run: &Evaluated, i: usize) {
        tidy(rows, run, i);
    }
}
