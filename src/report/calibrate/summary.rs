//! The run's summary tables, built once from the evaluation as rows of text, and rendered by
//! the terminal (comfy-table) and by the HTML page alike: both show the same numbers.

use crate::evaluation::Evaluated;
use crate::evaluation::{Headline, Scope};
use crate::metrics::Statistic;
use crate::report::calibrate::ranking::{order, verdict};
use crate::report::media::format::{fixed, p_value, shown_name, with_ci, with_interval};
use crate::report::media::table::Table;
use serde::Serialize;

/// Every summary table of a run, in the terminal's order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub configurations: Table,
    pub parse_failures: Table,
    pub position: Option<Table>,
    pub pointwise: Option<Table>,
    pub sections: Option<Table>,
    pub comparisons: Option<Table>,
}

fn ci(scope: &Scope, s: Statistic) -> String {
    with_interval(&scope.agreement, s)
}

/// A paired difference with its interval, labelled with its level when it is not 95% or
/// "unadjusted" without a verdict.
fn signed_with_ci(t: &crate::evaluation::MetricTest) -> String {
    if t.diff.is_nan() {
        "n/a".to_string()
    } else {
        let ci = crate::report::media::format::interval_of(t, 3);
        format!("{:+.3} {ci}", t.diff).trim_end().to_string()
    }
}

/// "±0.088 / 626": the accuracy difference these items detect, and the items the observed
/// difference needs ("–" where there is none).
fn power_cell(p: &crate::evaluation::Power) -> String {
    let detectable = if p.min_detectable.is_finite() {
        format!("±{:.3}", p.min_detectable)
    } else {
        "–".to_string()
    };
    let needed = if p.items_needed.is_finite() {
        format!("{}", p.items_needed)
    } else {
        "–".to_string()
    };
    format!("{detectable} / {needed}")
}

/// The main table: every configuration, best first.
fn configurations(run: &Evaluated, order: &[usize]) -> Table {
    let rec = &run.record;
    let scope = |i: usize| &run.evaluation.configs[i].overall;
    let mut t = Table::new(
        format!(
            "Configurations, best first by {} ({} CIs; items without a verdict dropped)",
            run.sort.key(),
            crate::report::media::format::level(1.0 - run.evaluation.tested.alpha)
        ),
        &[
            "configuration",
            "rated/n",
            "accuracy",
            "kappa (quadratic)",
            "kappa",
            "Spearman",
            "Kendall tau-b",
            "calls",
            "cached",
            "tokens in/out",
            "wall s",
        ],
    );
    for &i in order {
        let (s, c) = (scope(i), &rec.configs[i]);
        t.rows.push(vec![
            shown_name(c),
            format!("{}/{}", s.counts.rated, s.counts.examples),
            ci(s, Statistic::Accuracy),
            ci(s, Statistic::KappaQuadratic),
            fixed(s.agreement.get(Statistic::Kappa)),
            fixed(s.agreement.get(Statistic::Spearman)),
            fixed(s.agreement.get(Statistic::KendallTauB)),
            c.cost.calls.to_string(),
            c.cost.cache_hits.to_string(),
            if c.cost.tokens_reasoning > 0 {
                format!(
                    "{}/{} ({} thinking)",
                    c.cost.tokens_in, c.cost.tokens_out, c.cost.tokens_reasoning
                )
            } else {
                format!("{}/{}", c.cost.tokens_in, c.cost.tokens_out)
            },
            format!("{:.1}", c.cost.wall_seconds),
        ]);
    }

    // Spearman, Kendall and the cost are secondary on a narrow terminal. The metrics'
    // disagreement on the best is the answer's line (it was said twice, here too).
    t.secondary = vec![5, 6, 7, 8, 9, 10];

    t
}

/// The headline metrics under the three parse-failure policies.
fn parse_failures(run: &Evaluated, order: &[usize]) -> Table {
    let rec = &run.record;
    let scope = |i: usize| &run.evaluation.configs[i].overall;
    let mut p = Table::new(
        "Parse failures: headline metrics when items without a verdict are dropped, counted wrong, or counted as ties",
        &[
            "configuration",
            "parse rate",
            "no verdict",
            "call failures",
            "acc drop",
            "acc as-wrong",
            "acc as-tie",
            "κq drop",
            "κq as-wrong",
            "κq as-tie",
        ],
    );
    // Answers cut off while thinking are their own column, when there are any.
    let cut = order.iter().any(|&i| scope(i).counts.cut_off > 0);
    if cut {
        p.headers.insert(3, "cut off (thinking)".into());
    }
    for &i in order {
        let s = scope(i);
        let pol = &s.policies;
        let mut row = vec![
            rec.configs[i].name.clone(),
            fixed(s.parse_rate),
            s.counts.no_verdict.to_string(),
            s.counts.call_failures.to_string(),
            fixed(pol.drop.accuracy),
            fixed(pol.as_wrong.accuracy),
            fixed(pol.as_tie.accuracy),
            fixed(pol.drop.kappa_quadratic),
            fixed(pol.as_wrong.kappa_quadratic),
            fixed(pol.as_tie.kappa_quadratic),
        ];
        if cut {
            row.insert(3, s.counts.cut_off.to_string());
        }
        p.rows.push(row);
    }
    if cut {
        p.notes.push("cut off (thinking): the judge was stopped by --max-tokens before it answered; raise --max-tokens or lower --reasoning-effort (the policies count them with the items without a verdict)".into());
    }
    // On a narrow terminal the as-tie columns, then the counts, then the drop policy's
    // figures (the configurations' table shows them) give way before the configurations'
    // names break over lines (the main table's rule).
    let shift = usize::from(cut);
    p.secondary = vec![4 + shift, 7 + shift, 2, 3 + shift, 6 + shift, 9 + shift];
    if cut {
        p.secondary.insert(1, 3);
    }
    p
}

/// With both orders: position bias by each published rule.
fn position(run: &Evaluated, order: &[usize]) -> Option<Table> {
    let rec = &run.record;
    let scope = |i: usize| &run.evaluation.configs[i].overall;
    run.record.both_orders.then(|| {
        let mut b = Table::new(
            "Position bias (both orders)",
            &[
                "configuration",
                "pairs",
                "both rated",
                "consistency",
                "first-position wins",
                "FastChat acc",
                "FastChat κq",
                "JudgeBench acc",
                "JB missing",
                "LLMBar acc",
                "LLMBar equal",
                "LLMBar both",
            ],
        );
        for &i in order {
            if let Some(pos) = &scope(i).position {
                b.rows.push(vec![
                    rec.configs[i].name.clone(),
                    pos.pairs.to_string(),
                    pos.pairs_both_rated.to_string(),
                    fixed(pos.consistency),
                    fixed(pos.first_position_win_rate),
                    fixed(pos.fastchat.accuracy),
                    fixed(pos.fastchat.kappa_quadratic),
                    fixed(pos.judgebench.accuracy),
                    fixed(pos.judgebench.missing),
                    fixed(pos.llmbar.accuracy),
                    fixed(pos.llmbar.equal),
                    fixed(pos.llmbar.correct_both),
                ]);
            }
        }
        let blind: Vec<&str> = order
            .iter()
            .filter(|&&i| {
                rec.configs[i]
                    .pointwise
                    .as_ref()
                    .is_some_and(|p| p.order_blind)
            })
            .map(|&i| rec.configs[i].name.as_str())
            .collect();
        if !blind.is_empty() {
            b.notes.push(format!(
                "{}: the judge scores each response on its own and never sees the order, so these figures are no-ops (consistency 1 by construction)",
                blind.join(", ")
            ));
        }
        b.notes.extend(
            [
                "consistency: the two verdicts agree, among pairs rated in both orders (both rated)",
                "FastChat: disagreement or a missing verdict is a tie; each pair scored in its seeded order",
                "JudgeBench: +1 right, -1 opposite, 0 tie or none per order; correct when the sum is positive",
                "JB missing: pairs with an order unread; LLMBar equal: two unreadable answers count as agreeing",
            ]
            .map(String::from),
        );
        // A narrow terminal leaves out the published rules' details (pairs, FastChat's κq,
        // JudgeBench's, LLMBar's unread and both-right counts) before it would wrap numbers.
        b.secondary = vec![1, 6, 7, 8, 10, 11];
        b
    })
}

/// Pointwise judges: the grades' statistics.
fn pointwise(run: &Evaluated, order: &[usize]) -> Option<Table> {
    let rec = &run.record;
    let scope = |i: usize| &run.evaluation.configs[i].overall;
    let graded: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&i| scope(i).pointwise.is_some())
        .collect();
    (!graded.is_empty()).then(|| {
        let mut t = Table::new(
            "Pointwise judges: each response graded alone, the grades compared (pairs once each, in their seeded order)",
            &[
                "configuration",
                "pairs",
                "missing",
                "mean gap (better − worse)",
                "equal grades",
                "AUC",
                "Spearman",
                "Kendall",
                "acc drop",
                "acc lowest",
                "κq drop",
                "κq lowest",
            ],
        );
        for &i in &graded {
            let Some(p) = &scope(i).pointwise else {
                continue;
            };
            let low = |f: fn(&Headline) -> f64| p.lowest.as_ref().map_or("n/a".into(), |h| fixed(f(h)));
            t.rows.push(vec![
                rec.configs[i].name.clone(),
                p.pairs.to_string(),
                p.missing.to_string(),
                with_ci(p.mean_gap, p.mean_gap_ci),
                fixed(p.equal_grades),
                with_ci(p.auc, p.auc_ci),
                fixed(p.spearman.statistic),
                fixed(p.kendall_tau_b.statistic),
                fixed(p.drop.accuracy),
                low(|h| h.accuracy),
                fixed(p.drop.kappa_quadratic),
                low(|h| h.kappa_quadratic),
            ]);
        }
        t.notes = [
            format!("equal grades: pairs forced into a tie; AUC: P(better graded higher) + ½ P(equal), {} bootstrap CI; Spearman/Kendall: grade difference vs gold", crate::report::media::format::ci_level(run)),
            "drop: a missing grade leaves the pair without a verdict; lowest: it gets the scale's lowest grade (context-bench's rule, --pointwise-missing lowest)".to_string(),
        ]
        .to_vec();
        t
    })
}

/// reward-bench's sections and scores under both rules.
fn sections(run: &Evaluated, order: &[usize]) -> Option<Table> {
    let rec = &run.record;
    run.evaluation
            .configs
            .iter()
            .any(|c| !c.sections.is_empty())
            .then(|| {
                let mut s = Table::new(
                "reward-bench sections (strict: accuracy, a tie or no verdict counted wrong; leaderboard weighting) and the score under both rules",
                &["configuration", "chat", "chat-hard", "safety", "reasoning", "score (strict)", "score (published)"],
            );
                s.notes.push("score (published) is reward-bench's own rule for LLM judges (scripts/run_generative.py): a tie, an unreadable answer or a failed call is worth 0.5, not 0; the sections follow the strict rule, and --json and metrics.csv give both per section and subset".into());
                for &i in order {
                    let r = &run.evaluation.configs[i];
                    let get = |k: &str| r.sections.get(k).map_or("-".to_string(), |v| fixed(*v));
                    s.rows.push(vec![
                        rec.configs[i].name.clone(),
                        get("chat"),
                        get("chat-hard"),
                        get("safety"),
                        get("reasoning"),
                        r.leaderboard.map_or("-".to_string(), fixed),
                        r.leaderboard_published.map_or("-".to_string(), fixed),
                    ]);
                }
                s
            })
}

/// Holm's family and the pairs with a verdict, in words: "every pair (36 tests, as the best is
/// chosen from these data); verdicts for the best, B, against each other configuration" or
/// "every pair (36 tests)".
pub fn family_phrase(run: &Evaluated) -> String {
    let t = &run.evaluation.tested;
    let tests = |m: usize| format!("{m} test{}", if m == 1 { "" } else { "s" });
    match (t.family, t.best) {
        (crate::evaluation::Family::Best, Some(b)) => format!(
            "every pair ({}, as the best is chosen from these data); verdicts for the best, {}, against each other configuration{} (--family all gives every pair one)",
            tests(t.accuracy_tests),
            run.record.configs[b].name,
            if run.record.configs.iter().any(|c| c.jury.is_some()) {
                " and each jury against its members"
            } else {
                ""
            },
        ),
        _ => format!("every pair ({})", tests(t.accuracy_tests)),
    }
}

/// The paired comparisons of every two configurations.
fn comparisons(run: &Evaluated) -> Option<Table> {
    let rec = &run.record;
    (!run.evaluation.comparisons.is_empty()).then(|| {
        let mut c = Table::new(
            format!(
                "Paired comparisons on the items both rated: accuracy by McNemar's exact test, quadratic kappa by a paired-bootstrap test (normal approximation from its standard error), each Holm-adjusted within its metric over {}; each interval is at the level of the Holm step that decided its pair (\"at 99.4%\"), so it excludes 0 exactly when the pair is called different",
                family_phrase(run)
            ),
            &[
                "A",
                "B",
                "n",
                "Δ accuracy (B−A)",
                "McNemar p (Holm)",
                "Δ κq (B−A)",
                "bootstrap p (Holm)",
                "80% power: ±Δ acc / n needed",
                "verdict",
            ],
        );
        c.numeric = false;
        // On a narrow terminal the power and the verdict line give way (the answer above
        // states the verdict against the runner-up).
        c.secondary = vec![7, 8];
        let alpha = run.evaluation.tested.alpha;
        c.notes.push(format!("80% power: the accuracy difference these items detect with 80% power at α = {alpha} (McNemar, normal approximation from the observed discordance; not Holm-adjusted), and the items the observed difference would need; items as this run counts them (with --both-orders each pair is two items, taken as independent as McNemar's test takes them)"));
        let outside = |c: &crate::evaluation::Comparison| {
            c.accuracy.finding() == crate::evaluation::Finding::Unjudged
        };
        let left_out = run.evaluation.comparisons.iter().filter(|c| outside(c)).count();
        if left_out > 0 {
            c.notes.push(format!(
                "{left_out} pairs without a verdict (not the best's) are left out here: comparisons.csv and --json keep them, with their raw p-values and unadjusted {} intervals (--family all gives every pair a verdict)",
                crate::report::media::format::level(1.0 - alpha)
            ));
        }
        for cmp in run.evaluation.comparisons.iter().filter(|c| !outside(c)) {
            c.rows.push(vec![
                rec.configs[cmp.a].name.clone(),
                rec.configs[cmp.b].name.clone(),
                cmp.n.to_string(),
                signed_with_ci(&cmp.accuracy),
                format!(
                    "{} ({})",
                    p_value(cmp.accuracy.p),
                    p_value(cmp.accuracy.p_holm)
                ),
                signed_with_ci(&cmp.kappa),
                format!("{} ({})", p_value(cmp.kappa.p), p_value(cmp.kappa.p_holm)),
                power_cell(&cmp.power),
                verdict(run, cmp),
            ]);
        }
        c
    })
}

pub fn summary(run: &Evaluated) -> Summary {
    let order = order(run);
    Summary {
        configurations: configurations(run, &order),
        parse_failures: parse_failures(run, &order),
        position: position(run, &order),
        pointwise: pointwise(run, &order),
        sections: sections(run, &order),
        comparisons: comparisons(run),
    }
}
