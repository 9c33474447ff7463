//! Several annotators: their agreement, the human ceiling and the judge beside it, as
//! terminal tables, JSON and tidy CSV rows.

use crate::evaluation::annotators::AnnotatorReport;
use crate::evaluation::Evaluated;
use crate::metrics::raters::Ceiling;
use crate::report::calibrate::section::{Place, Section, View};
use crate::report::media::csv::TidyRows;
use crate::report::media::format;
use crate::report::media::json::AgreementJson;
use crate::report::media::table::Table;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

const FORMS: [&str; 3] = ["leave_one_out", "per_vote", "per_vote_no_ties"];

fn forms(c: &Ceiling) -> [f64; 3] {
    [c.leave_one_out, c.per_vote, c.per_vote_no_ties]
}

/// The three forms of the human ceiling.
#[derive(Serialize)]
struct CeilingJson {
    leave_one_out: f64,
    per_vote: f64,
    per_vote_no_ties: f64,
}

fn ceiling_json(c: &Ceiling) -> CeilingJson {
    CeilingJson {
        leave_one_out: c.leave_one_out,
        per_vote: c.per_vote,
        per_vote_no_ties: c.per_vote_no_ties,
    }
}

type Interval = Option<(f64, f64)>;

/// `"annotators"`: the humans' agreement among themselves and their ceiling.
#[derive(Serialize)]
struct AnnotatorsJson<'a> {
    names: &'a [String],
    items: usize,
    pairwise_kappa: &'a [Vec<f64>],
    fleiss_kappa: f64,
    krippendorff_alpha_nominal: f64,
    krippendorff_alpha_ordinal: f64,
    gwet_ac1: f64,
    no_majority: usize,
    no_majority_policy: &'a str,
    ceiling: CeilingJson,
    ci: Option<AnnotatorsCi>,
}

#[derive(Serialize)]
struct AnnotatorsCi {
    #[serde(flatten)]
    scalars: BTreeMap<&'static str, Interval>,
    ceiling: BTreeMap<&'static str, Interval>,
    pairwise_kappa: Vec<Vec<Interval>>,
}

/// `"judge_vs_annotators"`: the judge's ceiling beside the humans', its kappa with each.
#[derive(Serialize)]
struct JudgeJson<'a> {
    #[serde(flatten)]
    ceiling: CeilingJson,
    kappa_per_annotator: &'a [f64],
    ratio: Option<CeilingJson>,
    ci: Option<JudgeCi>,
    unanimous: Option<AgreementJson<'a>>,
    split: Option<AgreementJson<'a>>,
}

#[derive(Serialize)]
struct JudgeCi {
    #[serde(flatten)]
    forms: BTreeMap<&'static str, Interval>,
    kappa_per_annotator: Vec<Interval>,
}

/// `"annotators"` and `"judge_vs_annotators"` (docs/guide.md, "Several annotators").
pub fn to_json(r: &AnnotatorReport) -> (Value, Value) {
    let h = &r.panel.humans;
    let n = r.names.len();
    let ci = r.intervals.is_some().then(|| AnnotatorsCi {
        scalars: h
            .scalars()
            .iter()
            .take(4)
            .enumerate()
            .map(|(i, (name, _))| (*name, r.interval(i)))
            .collect(),
        ceiling: FORMS
            .iter()
            .enumerate()
            .map(|(i, f)| (*f, r.interval(4 + i)))
            .collect(),
        pairwise_kappa: (0..n)
            .map(|a| (0..n).map(|b| r.interval(r.pairwise_index(a, b))).collect())
            .collect(),
    });
    let annotators = AnnotatorsJson {
        names: &r.names,
        items: r.items,
        pairwise_kappa: &h.pairwise_kappa,
        fleiss_kappa: h.fleiss_kappa,
        krippendorff_alpha_nominal: h.krippendorff_alpha_nominal,
        krippendorff_alpha_ordinal: h.krippendorff_alpha_ordinal,
        gwet_ac1: h.gwet_ac1,
        no_majority: r.no_majority,
        no_majority_policy: r.policy,
        ceiling: ceiling_json(&h.ceiling),
        ci,
    };
    let judge = r.panel.judge.as_ref().map(|j| {
        let start = r.judge_index();
        JudgeJson {
            ceiling: ceiling_json(&j.ceiling),
            kappa_per_annotator: &j.kappa_per_annotator,
            ratio: r.ratio().map(|c| ceiling_json(&c)),
            ci: r.intervals.is_some().then(|| JudgeCi {
                forms: FORMS
                    .iter()
                    .enumerate()
                    .map(|(i, f)| (*f, r.interval(start + i)))
                    .collect(),
                kappa_per_annotator: (0..n).map(|a| r.interval(start + 3 + a)).collect(),
            }),
            unanimous: r.unanimous.as_ref().map(AgreementJson),
            split: r.split.as_ref().map(AgreementJson),
        }
    });
    (
        serde_json::to_value(annotators).unwrap_or_default(),
        serde_json::to_value(judge).unwrap_or_default(),
    )
}

fn with_ci(value: f64, ci: Option<(f64, f64)>) -> String {
    match ci {
        Some((lo, hi)) => format!(
            "{} [{}, {}]",
            format::fixed(value),
            format::fixed(lo),
            format::fixed(hi)
        ),
        None => format::fixed(value),
    }
}

/// The human ceiling in its three forms, and the judge's beside it.
fn ceiling_table(r: &AnnotatorReport) -> Table {
    let h = &r.panel.humans;
    let judge = r.panel.judge.as_ref();
    let mut ceiling = if judge.is_some() {
        Table::new(
            "Human ceiling and the judge (agreement share)",
            &["form", "humans", "judge", "judge ÷ human"],
        )
    } else {
        Table::new("Human ceiling (agreement share)", &["form", "humans"])
    };
    let ratio = r.ratio();
    let labels = [
        "leave-one-out (AlpacaEval: each vote vs the others' mode)",
        "per vote (MT-Bench: every pair of votes)",
        "per vote, without ties",
    ];
    for (i, label) in labels.iter().enumerate() {
        let mut row = vec![
            (*label).into(),
            with_ci(forms(&h.ceiling)[i], r.interval(4 + i)),
        ];
        if let (Some(j), Some(ratio)) = (judge, ratio) {
            row.push(with_ci(
                forms(&j.ceiling)[i],
                r.interval(r.judge_index() + i),
            ));
            row.push(format::fixed(forms(&ratio)[i]));
        }
        ceiling.rows.push(row);
    }
    ceiling
}

/// The judge against each annotator, and on unanimous vs split items.
fn judge_table(r: &AnnotatorReport, j: &crate::metrics::raters::JudgeStats) -> Table {
    let level = crate::report::media::format::level(r.level);
    let mut per = Table::new(
        "The judge against each annotator, and on unanimous vs split items",
        &[
            "against",
            "n",
            &format!("Cohen's kappa [{level} CI]"),
            &format!("accuracy [{level} CI]"),
        ],
    );
    for (a, name) in r.names.iter().enumerate() {
        per.rows.push(vec![
            name.clone(),
            String::new(),
            with_ci(
                j.kappa_per_annotator[a],
                r.interval(r.judge_index() + 3 + a),
            ),
            String::new(),
        ]);
    }
    for (name, g) in [
        ("unanimous items (their label)", &r.unanimous),
        ("split items (the majority)", &r.split),
    ] {
        let Some(g) = g else { continue };
        per.rows.push(vec![
            name.into(),
            g.n.to_string(),
            format::with_interval(g, crate::metrics::Statistic::Kappa),
            format::with_interval(g, crate::metrics::Statistic::Accuracy),
        ]);
    }
    per
}

/// Up to 5 annotators, the matrix of pairwise Cohen's kappa; more, a long table of the pairs
/// (pair, items, kappa and interval), which fits any terminal.
fn pairwise_table(r: &AnnotatorReport) -> Table {
    let h = &r.panel.humans;
    let n = r.names.len();
    if n > 5 {
        let level = crate::report::media::format::level(r.level);
        let mut pairs = Table::new(
            format!(
                "Pairwise Cohen's kappa between annotators ({} pairs)",
                n * (n - 1) / 2
            ),
            &["pair", "items", &format!("Cohen's kappa [{level} CI]")],
        );
        for a in 0..n {
            for b in a + 1..n {
                pairs.rows.push(vec![
                    format!("{} – {}", r.names[a], r.names[b]),
                    r.shared(a, b).to_string(),
                    with_ci(h.pairwise_kappa[a][b], r.interval(r.pairwise_index(a, b))),
                ]);
            }
        }
        return pairs;
    }
    let mut header = vec!["Cohen's kappa"];
    header.extend(r.names.iter().map(String::as_str));
    let mut matrix = Table::new("Pairwise Cohen's kappa between annotators", &header);
    for (a, name) in r.names.iter().enumerate() {
        let mut row = vec![name.clone()];
        for b in 0..n {
            row.push(if a == b {
                "-".into()
            } else {
                with_ci(h.pairwise_kappa[a][b], r.interval(r.pairwise_index(a, b)))
            });
        }
        matrix.rows.push(row);
    }
    matrix
}

/// The judge's place among the annotators: each one's mean kappa with the annotators, the
/// judge's beside theirs, highest first.
fn places_table(r: &AnnotatorReport) -> Table {
    let mut t = Table::new(
        "The judge among the annotators: mean Cohen's kappa with the annotators (each human with the others)",
        &["rank", "who", "mean kappa"],
    );
    for (k, (name, mean, judge)) in r.places().into_iter().enumerate() {
        let who = if judge { format!("{name} ◀") } else { name };
        t.rows
            .push(vec![(k + 1).to_string(), who, format::fixed(mean)]);
    }
    t
}

/// The terminal's section: agreement among annotators, the pairwise kappa matrix, and the
/// ceiling beside the judge.
pub fn tables(r: &AnnotatorReport) -> Vec<Table> {
    let level = crate::report::media::format::level(r.level);
    let h = &r.panel.humans;
    let gold = match r.policy {
        "mean" => "gold: their mean grade, rounded".to_string(),
        "tie" => format!("{} without a majority: scored as a tie", r.no_majority),
        _ => format!(
            "{} without a majority: left out of the judge's scores",
            r.no_majority
        ),
    };
    let mut agreement_table = Table::new(
        format!(
            "Annotators: {} over {} items ({gold})",
            r.names.join(", "),
            r.items,
        ),
        &["statistic", &format!("value [{level} CI]")],
    );
    let shown = [
        "Fleiss' kappa (items with the most votes)",
        "Krippendorff's alpha, nominal",
        "Krippendorff's alpha, ordinal",
        "Gwet's AC1",
    ];
    for (i, label) in shown.iter().enumerate() {
        agreement_table.rows.push(vec![
            (*label).into(),
            with_ci(h.scalars()[i].1, r.interval(i)),
        ]);
    }
    let judge = r.panel.judge.as_ref();
    let ceiling = ceiling_table(r);
    let mut out = vec![agreement_table, pairwise_table(r), ceiling];
    if judge.is_some() {
        out.push(places_table(r));
    }
    out.extend(judge.map(|j| judge_table(r, j)));
    out
}

/// Tidy rows: scope `annotators` (the statistics, the ceiling and `kappa:A:B`), scope
/// `judge_vs_annotators` (its ceiling forms, `ratio_*` and `kappa:A`), and the scopes
/// `unanimous` and `split` (every statistic of the judge there).
pub fn tidy(r: &AnnotatorReport, rows: &mut TidyRows) {
    let h = &r.panel.humans;
    let n = r.items as u64;
    for (i, (name, value)) in h.scalars().iter().enumerate() {
        let metric = if i >= 4 {
            format!("ceiling_{name}")
        } else {
            (*name).to_string()
        };
        rows.push("annotators", n, &metric, *value, r.interval(i));
    }
    for (a, x) in r.names.iter().enumerate() {
        for (b, y) in r.names.iter().enumerate() {
            if a < b {
                rows.push(
                    "annotators",
                    n,
                    &format!("kappa:{x}:{y}"),
                    h.pairwise_kappa[a][b],
                    r.interval(r.pairwise_index(a, b)),
                );
            }
        }
    }
    if let Some(j) = &r.panel.judge {
        let start = r.judge_index();
        let ratio = r.ratio().map(|c| forms(&c));
        for (i, form) in FORMS.iter().enumerate() {
            rows.push(
                "judge_vs_annotators",
                n,
                form,
                forms(&j.ceiling)[i],
                r.interval(start + i),
            );
            if let Some(ratio) = ratio {
                rows.push(
                    "judge_vs_annotators",
                    n,
                    &format!("ratio_{form}"),
                    ratio[i],
                    None,
                );
            }
        }
        for (a, name) in r.names.iter().enumerate() {
            rows.push(
                "judge_vs_annotators",
                n,
                &format!("kappa:{name}"),
                j.kappa_per_annotator[a],
                r.interval(start + 3 + a),
            );
        }
        for (scope, g) in [("unanimous", &r.unanimous), ("split", &r.split)] {
            if let Some(g) = g {
                rows.add(scope, g);
            }
        }
    }
}

/// calibrate's section: the annotators once (they are the same for every configuration), then
/// every configuration beside the ceiling, in the report's order.
fn calibrate_tables(run: &Evaluated, order: &[usize]) -> Vec<Table> {
    let reports: Vec<(&str, &AnnotatorReport)> = order
        .iter()
        .filter_map(|&i| {
            let r = run
                .evaluation
                .of_config::<crate::evaluation::annotators::AnnotatorReport>(i)?;
            Some((run.record.configs[i].name.as_str(), r))
        })
        .collect();
    let Some((_, first)) = reports.first() else {
        return Vec::new();
    };
    // One configuration (`analyze`, or a run of one): the panel with its judge in full.
    if reports.len() == 1 {
        return tables(first);
    }
    let mut out: Vec<Table> = tables(first).into_iter().take(2).collect();
    let h = first.panel.humans.ceiling;
    let mut judges = Table::new(
        format!(
            "Judges beside the human ceiling (humans: leave-one-out {}, per vote {}, per vote without ties {})",
            format::fixed(h.leave_one_out),
            format::fixed(h.per_vote),
            format::fixed(h.per_vote_no_ties)
        ),
        &[
            "configuration",
            "leave-one-out",
            "÷ human",
            "per vote",
            "÷ human",
            "per vote, no ties",
            "÷ human",
            "accuracy, unanimous items",
            "accuracy, split items",
        ],
    );
    for (name, r) in &reports {
        let Some(j) = &r.panel.judge else { continue };
        let ratio = r.ratio().map(|c| forms(&c)).unwrap_or([f64::NAN; 3]);
        let start = r.judge_index();
        let mut row = vec![(*name).to_string()];
        for (i, v) in forms(&j.ceiling).iter().enumerate() {
            row.push(with_ci(*v, r.interval(start + i)));
            row.push(format::fixed(ratio[i]));
        }
        for g in [&r.unanimous, &r.split].into_iter().flatten() {
            row.push(format!(
                "{} (n {})",
                format::with_interval(g, crate::metrics::Statistic::Accuracy),
                g.n
            ));
        }
        judges.rows.push(row);
    }
    out.push(judges);
    out
}

/// The annotator panel's section in `calibrate`: after the comparisons (with `--details`), a
/// configuration's `annotators` and `judge_vs_annotators`.
#[derive(Debug)]
pub struct AnnotatorsSection;

impl Section for AnnotatorsSection {
    fn place(&self) -> Place {
        Place::After
    }
    fn tables(&self, run: &Evaluated, order: &[usize], view: View) -> Vec<Table> {
        view.details(|| calibrate_tables(run, order))
    }
    fn config_json(
        &self,
        run: &Evaluated,
        _order: &[usize],
        i: usize,
    ) -> Vec<(&'static str, Value)> {
        let Some(a) = run
            .evaluation
            .of_config::<crate::evaluation::annotators::AnnotatorReport>(i)
        else {
            return Vec::new();
        };
        let (annotators, judge) = to_json(a);
        vec![("annotators", annotators), ("judge_vs_annotators", judge)]
    }
    fn config_rows(&self, rows: &mut TidyRows, run: &Evaluated, i: usize) {
        if let Some(a) = run
            .evaluation
            .of_config::<crate::evaluation::annotators::AnnotatorReport>(i)
        {
            tidy(a, rows);
        }
    }
}
