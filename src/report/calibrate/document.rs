//! The `--json` document of a run over pairs (docs/guide.md, "JSON output"): each
//! configuration's scopes and analytics, the paired comparisons, the groups, the frontier. Every
//! part is a type that serializes; the document's keys come out in name order.

use crate::evaluation::{Evaluated, Headline, PointwiseStats, Position, Scope};
use crate::report::calibrate::ranking::{order, ranking_note, verdict};
use crate::report::calibrate::sections::json_keys;
use crate::report::media::json::AgreementJson;
use crate::run::record::Run;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// A scope's position figures, the published pair rules under `rules`.
#[derive(Serialize)]
struct PositionJson<'a> {
    pairs: usize,
    pairs_both_rated: usize,
    consistency: f64,
    first_position_win_rate: f64,
    rules: Rules<'a>,
}

#[derive(Serialize)]
struct Rules<'a> {
    fastchat: &'a Headline,
    judgebench: &'a crate::evaluation::JudgeBench,
    llmbar: &'a crate::evaluation::LlmBar,
}

fn position_json(p: &Position) -> PositionJson<'_> {
    PositionJson {
        pairs: p.pairs,
        pairs_both_rated: p.pairs_both_rated,
        consistency: p.consistency,
        first_position_win_rate: p.first_position_win_rate,
        rules: Rules {
            fastchat: &p.fastchat,
            judgebench: &p.judgebench,
            llmbar: &p.llmbar,
        },
    }
}

/// The parse-failure policies' headline figures.
#[derive(Serialize)]
struct Policies<'a> {
    drop: &'a Headline,
    as_wrong: &'a Headline,
    as_tie: &'a Headline,
}

/// A scope: the agreement figures, counts, policies and the analytics it has.
#[derive(Serialize)]
pub(crate) struct ScopeJson<'a> {
    #[serde(flatten)]
    agreement: AgreementJson<'a>,
    counts: &'a crate::evaluation::Counts,
    parse_rate: f64,
    published_credit: f64,
    policies: Policies<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    position: Option<PositionJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pointwise: Option<PointwiseJson<'a>>,
    /// The analytics' sections' keys (`bias`, `probability`, ...).
    #[serde(flatten)]
    analytics: BTreeMap<&'static str, Value>,
}

pub(crate) fn scope_json(s: &Scope) -> ScopeJson<'_> {
    ScopeJson {
        agreement: AgreementJson(&s.agreement),
        counts: &s.counts,
        parse_rate: s.parse_rate,
        published_credit: s.published,
        policies: Policies {
            drop: &s.policies.drop,
            as_wrong: &s.policies.as_wrong,
            as_tie: &s.policies.as_tie,
        },
        position: s.position.as_ref().map(position_json),
        pointwise: s.pointwise.as_ref().map(pointwise_json),
        analytics: json_keys(|section| section.scope_json(s)),
    }
}

/// A pointwise scope: the grades' gap, AUC, correlations, the missing-grade rules and the
/// histograms.
#[derive(Serialize)]
struct PointwiseJson<'a> {
    pairs: usize,
    missing: usize,
    mean_gap: f64,
    mean_gap_ci: (f64, f64),
    equal_grades: f64,
    auc: f64,
    auc_ci: (f64, f64),
    spearman: f64,
    spearman_p: f64,
    kendall_tau_b: f64,
    kendall_p: f64,
    missing_rule: MissingRule<'a>,
    histogram: Histogram,
}

#[derive(Serialize)]
struct MissingRule<'a> {
    drop: &'a Headline,
    lowest: Option<&'a Headline>,
}

#[derive(Serialize)]
struct Histogram {
    chosen: Vec<GradeCount>,
    rejected: Vec<GradeCount>,
}

#[derive(Serialize)]
struct GradeCount {
    grade: f64,
    count: usize,
}

fn pointwise_json(p: &PointwiseStats) -> PointwiseJson<'_> {
    let hist = |h: &[(f64, usize)]| {
        h.iter()
            .map(|&(grade, count)| GradeCount { grade, count })
            .collect()
    };
    PointwiseJson {
        pairs: p.pairs,
        missing: p.missing,
        mean_gap: p.mean_gap,
        mean_gap_ci: p.mean_gap_ci,
        equal_grades: p.equal_grades,
        auc: p.auc,
        auc_ci: p.auc_ci,
        spearman: p.spearman.statistic,
        spearman_p: p.spearman.p_value,
        kendall_tau_b: p.kendall_tau_b.statistic,
        kendall_p: p.kendall_tau_b.p_value,
        missing_rule: MissingRule {
            drop: &p.drop,
            lowest: p.lowest.as_ref(),
        },
        histogram: Histogram {
            chosen: hist(&p.chosen),
            rejected: hist(&p.rejected),
        },
    }
}

/// `configs[i]`: who the configuration is, its scopes and every analytic it has.
#[derive(Serialize)]
struct ConfigJson<'a> {
    name: &'a str,
    prompt: &'a str,
    rater: &'a str,
    judge: &'a str,
    model: &'a str,
    simulated: bool,
    counts: &'a crate::evaluation::Counts,
    overall: ScopeJson<'a>,
    by_subset: BTreeMap<&'a str, ScopeJson<'a>>,
    /// The analytics' groupings (`by_depth`), each group's scope by name.
    #[serde(flatten)]
    grouped: BTreeMap<&'static str, BTreeMap<&'a str, ScopeJson<'a>>>,
    sections: BTreeMap<String, f64>,
    leaderboard: Option<f64>,
    sections_published: BTreeMap<String, f64>,
    leaderboard_published: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    position: Option<PositionJson<'a>>,
    reasons: Vec<crate::report::media::json::ReasonCount<'a>>,
    /// `--sequential`: the item after which it got no more calls (null: it rated them all).
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped_at: Option<Option<usize>>,
    /// The analytics' sections' keys (`cost`, `jury`, `probability`, `systems`, ...).
    #[serde(flatten)]
    analytics: BTreeMap<&'static str, Value>,
}

fn config_json<'a>(run: &'a Run, ranked: &[usize], i: usize) -> ConfigJson<'a> {
    let stopped_at = run
        .meta
        .sequential
        .as_ref()
        .map(|s| s.raced.stopped_at(&run.record.configs[i].name));
    config_document(
        &run.view(),
        ranked,
        i,
        &run.meta.configs[i].model,
        stopped_at,
    )
}

/// `configs[i]` of an evaluated record, whichever command made it: `analyze`'s (no model, no
/// race) is the same document as `calibrate`'s.
pub fn config_value(view: &Evaluated, ranked: &[usize], i: usize) -> Value {
    serde_json::to_value(config_document(view, ranked, i, "", None)).unwrap_or_default()
}

fn config_document<'a>(
    view: &Evaluated<'a>,
    ranked: &[usize],
    i: usize,
    model: &'a str,
    stopped_at: Option<Option<usize>>,
) -> ConfigJson<'a> {
    let (r, rec) = (&view.evaluation.configs[i], &view.record.configs[i]);
    fn scopes<'a>(
        m: impl Iterator<Item = (&'a String, &'a Scope)>,
    ) -> BTreeMap<&'a str, ScopeJson<'a>> {
        m.map(|(k, s)| (k.as_str(), scope_json(s))).collect()
    }
    ConfigJson {
        name: &rec.name,
        prompt: &rec.prompt,
        rater: &rec.rater,
        judge: &rec.judge,
        model,
        simulated: rec.simulated,
        counts: &r.overall.counts,
        overall: scope_json(&r.overall),
        by_subset: scopes(r.by_subset.iter()),
        grouped: (r.grouped.iter())
            .map(|g| (g.key, scopes(g.scopes.iter().map(|(k, s)| (k, s)))))
            .collect(),
        sections: r
            .sections
            .iter()
            .map(|(k, v)| (k.to_string(), *v))
            .collect(),
        leaderboard: r.leaderboard,
        sections_published: r
            .sections_published
            .iter()
            .map(|(k, v)| (k.to_string(), *v))
            .collect(),
        leaderboard_published: r.leaderboard_published,
        position: r.overall.position.as_ref().map(position_json),
        reasons: crate::report::media::json::reasons(&rec.reasons),
        stopped_at,
        analytics: json_keys(|s| s.config_json(view, ranked, i)),
    }
}

/// A paired comparison of two configurations (B − A), on accuracy and quadratic kappa.
#[derive(Debug, Serialize)]
struct ComparisonJson<'a> {
    a: &'a str,
    b: &'a str,
    n: u64,
    /// Whether the pair has a verdict (`comparison_family`); without one the p-values are
    /// raw, the intervals 95% and unadjusted, the findings `no_verdict`.
    judged: bool,
    /// The paired tests on accuracy and on quadratic kappa (B − A), each interval at the
    /// level of the Holm step that decided the pair, so it excludes 0 exactly when the
    /// finding is a better side.
    tests: [crate::evaluation::paired::PairedTest; 2],
    only_a_right: u64,
    only_b_right: u64,
    discordance: f64,
    min_detectable_difference: f64,
    items_needed: f64,
    verdict: String,
}

/// Holm's families (every pair tested, per metric) and which pairs get a verdict
/// (`--family`).
#[derive(Debug, Serialize)]
struct FamilyJson<'a> {
    /// `best` (the best judged configuration against each other one, and each jury against
    /// its members) or `all` (every pair).
    family: &'static str,
    /// The best judged configuration on the sort metric.
    best: Option<&'a str>,
    accuracy_tests: usize,
    kappa_quadratic_tests: usize,
    alpha: f64,
}

/// The data a run rated.
#[derive(Serialize)]
struct DataJson<'a> {
    source: &'a str,
    items: usize,
    /// Items without a gold label: rated and kept, in no agreement measure.
    unlabelled: usize,
    seed: u64,
    both_orders: bool,
    checksum: &'a str,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    unshared: &'a [String],
}

/// The documented JSON document of a run over pairs (`docs/schema/calibrate.json`).
#[derive(Serialize)]
struct RunJson<'a> {
    schema: &'static str,
    run_dir: String,
    data: DataJson<'a>,
    bootstrap: usize,
    simulated: bool,
    configs: Vec<ConfigJson<'a>>,
    #[serde(flatten)]
    compared: Compared<'a>,
    ranking_note: Option<String>,
    /// `--sequential`: the items' order, the race's decisions and the calls saved.
    #[serde(skip_serializing_if = "Option::is_none")]
    sequential: Option<&'a crate::run::record::SequentialRun>,
    /// The analytics' sections' keys (`significance_groups`, `cost_frontier`, ...).
    #[serde(flatten)]
    analytics: BTreeMap<&'static str, Value>,
}

/// The paired comparisons and their family: what `calibrate --json` and `analyze --json` (with
/// several rating columns) write at the top of the document.
#[derive(Debug, Serialize)]
pub struct Compared<'a> {
    comparison_family: FamilyJson<'a>,
    /// The judges ranked above the best that cannot be the best, and why.
    not_ranked: Vec<NotRanked<'a>>,
    comparisons: Vec<ComparisonJson<'a>>,
}

/// A configuration that cannot be the best, and why (`evaluation::ranking::Unranked`): what
/// `--json` writes of the one rule of "the best" beside the best, for every form.
#[derive(Debug, Serialize)]
pub struct NotRanked<'a> {
    pub config: &'a str,
    #[serde(flatten)]
    pub why: &'a crate::evaluation::ranking::Unranked,
}

/// The paired comparisons of an evaluated record, whichever command made it.
pub fn compared<'a>(view: &Evaluated<'a>) -> Compared<'a> {
    let configs = &view.record.configs;
    let name = |k: usize| configs[k].name.as_str();
    let comparisons = view
        .evaluation
        .comparisons
        .iter()
        .map(|c| ComparisonJson {
            a: name(c.a),
            b: name(c.b),
            n: c.n,
            judged: c.judged(),
            tests: [
                c.accuracy.shaped(name(c.a), name(c.b), "accuracy"),
                c.kappa.shaped(name(c.a), name(c.b), "kappa_quadratic"),
            ],
            only_a_right: c.only_a_right,
            only_b_right: c.only_b_right,
            discordance: c.power.discordance,
            min_detectable_difference: c.power.min_detectable,
            items_needed: c.power.items_needed,
            verdict: verdict(view, c),
        })
        .collect();
    let t = &view.evaluation.tested;
    Compared {
        comparison_family: FamilyJson {
            family: t.family.key(),
            best: t.best.map(name),
            accuracy_tests: t.accuracy_tests,
            kappa_quadratic_tests: t.kappa_quadratic_tests,
            alpha: t.alpha,
        },
        not_ranked: view
            .evaluation
            .standing
            .iter()
            .flat_map(|s| &s.unranked)
            .map(|(k, why)| NotRanked {
                config: name(*k),
                why,
            })
            .collect(),
        comparisons,
    }
}

/// The documented JSON document (docs/guide.md, "JSON output").
pub fn to_json(run: &Run) -> Value {
    let view = run.view();
    let ranked = order(&view);
    serde_json::to_value(RunJson {
        schema: crate::run::schema::CALIBRATE,
        run_dir: run.meta.head.dir.display().to_string(),
        data: DataJson {
            source: &run.meta.head.source,
            items: run.record.items.len(),
            unlabelled: run.record.unlabelled(),
            seed: run.meta.head.seed,
            both_orders: run.meta.head.both_orders,
            checksum: &run.meta.checksum,
            unshared: &run.meta.unshared,
        },
        bootstrap: run.meta.head.bootstrap,
        simulated: run.record.configs.iter().any(|c| c.simulated),
        configs: (0..run.evaluation.configs.len())
            .map(|i| config_json(run, &ranked, i))
            .collect(),
        compared: compared(&view),
        ranking_note: ranking_note(&view),
        sequential: run.meta.sequential.as_ref(),
        analytics: json_keys(|s| s.run_json(&view)),
    })
    .unwrap_or_default()
}
