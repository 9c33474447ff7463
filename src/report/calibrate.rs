//! Output of `raterlab calibrate` and `raterlab report`: the comparison table, policies,
//! position bias, sections, confusion matrices, paired comparisons; and the JSON document.

use super::json::{agreement, num};
use super::table;
use crate::commands::calibrate::Run;
use crate::evaluation::{
    Comparison, Finding, Headline, MetricTest, PointwiseStats, Position, Scope,
};
use crate::metrics::Statistic;
use anyhow::Result;
use serde_json::{json, Map, Value};
use std::io::Write;

/// A configuration's name as shown in tables and plots: simulated ones are marked.
pub fn shown_name(c: &crate::evaluation::ConfigRecord) -> String {
    if c.simulated {
        format!("{} (sim)", c.name)
    } else {
        c.name.clone()
    }
}

/// A warning on stderr.
#[allow(clippy::print_stderr)]
pub fn warn(message: &str) {
    eprintln!("warning: {message}");
}

fn sort_statistic(key: &str) -> Statistic {
    match key {
        "kappa" => Statistic::Kappa,
        "accuracy" => Statistic::Accuracy,
        "spearman" => Statistic::Spearman,
        "kendall_tau_b" => Statistic::KendallTauB,
        _ => Statistic::KappaQuadratic,
    }
}

/// Configuration indices, best first by the sort metric (undefined last).
pub fn order(run: &Run) -> Vec<usize> {
    let s = sort_statistic(&run.meta.sort);
    let mut idx: Vec<usize> = (0..run.evaluation.configs.len()).collect();
    let value = |i: usize| {
        let v = run.evaluation.configs[i].overall.agreement.get(s);
        if v.is_nan() {
            f64::NEG_INFINITY
        } else {
            v
        }
    };
    idx.sort_by(|&a, &b| value(b).total_cmp(&value(a)));
    idx
}

/// When the headline metric and accuracy crown different configurations: one line that says
/// so, and why where the reason is known (quadratic kappa's partial credit for ties against
/// gold without ties).
pub fn ranking_note(run: &Run) -> Option<String> {
    let headline = sort_statistic(&run.meta.sort);
    if headline == Statistic::Accuracy {
        return None;
    }
    let overall = |i: usize| &run.evaluation.configs[i].overall.agreement;
    let best_headline = *order(run).first()?;
    let best_accuracy = (0..run.evaluation.configs.len())
        .filter(|&i| !overall(i).get(Statistic::Accuracy).is_nan())
        .max_by(|&a, &b| {
            overall(a)
                .get(Statistic::Accuracy)
                .total_cmp(&overall(b).get(Statistic::Accuracy))
        })?;
    if best_headline == best_accuracy
        || overall(best_headline).get(Statistic::Accuracy)
            == overall(best_accuracy).get(Statistic::Accuracy)
    {
        return None;
    }
    let name = |i: usize| run.record.configs[i].name.as_str();
    let (h, a) = (overall(best_headline), overall(best_accuracy));
    let ties = |x: &crate::metrics::Agreement| x.get(Statistic::TieRateRating);
    let why = if matches!(headline, Statistic::KappaQuadratic | Statistic::KappaLinear)
        && h.get(Statistic::TieRateGold) == 0.0
        && ties(h) > ties(a)
    {
        format!(
            "{} kappa charges a tie against gold without ties {} of a wrong side's cost, and {} answers tie on {:.0}% of its items against {:.0}% for {}; accuracy counts every tie wrong",
            if headline == Statistic::KappaQuadratic { "quadratic" } else { "linear" },
            if headline == Statistic::KappaQuadratic { "a quarter" } else { "half" },
            name(best_headline),
            100.0 * ties(h),
            100.0 * ties(a),
            name(best_accuracy)
        )
    } else {
        "kappa corrects for chance agreement and the rank correlations for each side's spread, both from each judge's own label distribution; accuracy does neither".to_string()
    };
    Some(format!(
        "The metrics disagree on the best configuration: {} ranks {} first ({:.4}), accuracy ranks {} first ({:.4} against {:.4}): {why}.",
        super::table::statistic_name(headline),
        name(best_headline),
        h.get(headline),
        name(best_accuracy),
        a.get(Statistic::Accuracy),
        h.get(Statistic::Accuracy),
    ))
}

/// One line per comparison that names each metric and keeps its direction, interval and
/// test together; "better" only where that metric's test found it (see
/// [`MetricTest::finding`]), and a disagreement between the metrics is said, not resolved.
pub fn verdict(run: &Run, c: &Comparison) -> String {
    let (a, b) = (&run.record.configs[c.a].name, &run.record.configs[c.b].name);
    verdict_line(a, b, c)
}

/// "+0.217 [+0.100, +0.333], McNemar Holm p = 0.001", as seen from `sign` (1: B − A, −1: A − B).
fn metric_phrase(t: &MetricTest, sign: f64, digits: usize, test: &str) -> String {
    let (lo, hi) = if sign > 0.0 { t.ci } else { (-t.ci.1, -t.ci.0) };
    let ci = if lo.is_finite() && hi.is_finite() {
        format!(" [{lo:+.digits$}, {hi:+.digits$}]")
    } else {
        String::new()
    };
    let p = if t.p_holm.is_finite() {
        format!(", {test} Holm p = {:.3}", t.p_holm)
    } else {
        format!(", no {test} test")
    };
    if t.diff.is_nan() {
        format!("n/a{p}")
    } else {
        format!("{:+.digits$}{ci}{p}", sign * t.diff)
    }
}

pub fn verdict_line(a: &str, b: &str, c: &Comparison) -> String {
    if c.n == 0 {
        return format!("{b} vs {a}: no item rated by both, nothing to compare");
    }
    let (fa, fk) = (c.accuracy.finding(), c.kappa.finding());
    let winner = |f: Finding| match f {
        Finding::BBetter => Some(1.0),
        Finding::ABetter => Some(-1.0),
        _ => None,
    };
    // Which side the line is written from: the one a test found better, else B.
    let sign = winner(fa).or(winner(fk)).unwrap_or(1.0);
    let (x, y) = if sign > 0.0 { (b, a) } else { (a, b) };
    let head = match (winner(fa), winner(fk)) {
        (Some(s), Some(t)) if s != t => {
            format!("{x} vs {y}: the metrics disagree, accuracy favours {x} and kappa favours {y}")
        }
        (Some(_), Some(_)) => format!("{x} > {y} on accuracy and kappa"),
        (Some(_), None) => format!("{x} > {y} on accuracy (kappa: no significant difference)"),
        (None, Some(_)) => format!("{x} > {y} on kappa (accuracy: no significant difference)"),
        (None, None) => format!("{x} ≈ {y}: no significant difference"),
    };
    let opposite = c.accuracy.diff * c.kappa.diff < 0.0;
    let tail = if opposite && winner(fa).zip(winner(fk)).is_none() {
        "; the accuracy and kappa estimates point in opposite directions"
    } else {
        ""
    };
    format!(
        "{head}: accuracy {}; κq {}{tail}{}",
        metric_phrase(&c.accuracy, sign, 3, "McNemar"),
        metric_phrase(&c.kappa, sign, 2, "bootstrap"),
        power_phrase(c),
    )
}

/// What a non-significant accuracy comparison could have detected: "; 80% power needs ≈ 1,900
/// items for this accuracy difference (these 200 detect ±0.085)".
fn power_phrase(c: &Comparison) -> String {
    if c.accuracy.finding() != Finding::NoDifference
        || c.accuracy.diff.is_nan()
        || c.power.discordance.is_nan()
    {
        return String::new();
    }
    let p = c.power;
    let detectable = if p.min_detectable.is_finite() {
        format!("these {} detect ±{:.3}", c.n, p.min_detectable)
    } else {
        format!("these {} detect no difference", c.n)
    };
    if p.items_needed.is_finite() {
        format!(
            "; at 80% power and α = 0.05, ≈ {} items would separate them on accuracy ({detectable})",
            thousands(p.items_needed as u64)
        )
    } else {
        format!("; no accuracy difference observed ({detectable} at 80% power)")
    }
}

/// 1900 → "1,900".
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

fn finding_key(f: Finding) -> &'static str {
    match f {
        Finding::BBetter => "b_better",
        Finding::ABetter => "a_better",
        Finding::NoDifference => "no_difference",
        Finding::Untested => "untested",
    }
}

fn headline_json(h: &Headline) -> Value {
    json!({"n": h.n, "accuracy": num(h.accuracy), "kappa": num(h.kappa), "kappa_quadratic": num(h.kappa_quadratic)})
}

fn position_json(p: &Position) -> Value {
    json!({
        "pairs": p.pairs,
        "pairs_both_rated": p.pairs_both_rated,
        "consistency": num(p.consistency),
        "first_position_win_rate": num(p.first_position_win_rate),
        "rules": {
            "fastchat": headline_json(&p.fastchat),
            "judgebench": {
                "accuracy": num(p.judgebench.accuracy),
                "all_correct": num(p.judgebench.all_correct),
                "all_incorrect": num(p.judgebench.all_incorrect),
                "some_correct": num(p.judgebench.some_correct),
                "inconsistent": num(p.judgebench.inconsistent),
                "missing": num(p.judgebench.missing),
            },
            "llmbar": {
                "accuracy": num(p.llmbar.accuracy),
                "equal": num(p.llmbar.equal),
                "correct_both": num(p.llmbar.correct_both),
            },
        }
    })
}

fn counts_json(s: &Scope) -> Value {
    let c = s.counts;
    json!({"examples": c.examples, "rated": c.rated, "ties": c.ties, "no_verdict": c.no_verdict, "call_failures": c.call_failures})
}

fn scope_json(s: &Scope) -> Value {
    let mut m = agreement(&s.agreement);
    m.insert("counts".into(), counts_json(s));
    m.insert("parse_rate".into(), num(s.parse_rate));
    m.insert(
        "policies".into(),
        json!({"drop": headline_json(&s.policies.drop), "as_wrong": headline_json(&s.policies.as_wrong), "as_tie": headline_json(&s.policies.as_tie)}),
    );
    if let Some(p) = &s.position {
        m.insert("position".into(), position_json(p));
    }
    if let Some(p) = &s.pointwise {
        m.insert("pointwise".into(), pointwise_json(p));
    }
    if let Some(b) = &s.bias {
        m.insert("bias".into(), super::bias::to_json(b));
    }
    Value::Object(m)
}

fn interval(ci: (f64, f64)) -> Value {
    json!([num(ci.0), num(ci.1)])
}

fn pointwise_json(p: &PointwiseStats) -> Value {
    let hist = |h: &[(f64, usize)]| {
        h.iter()
            .map(|(g, n)| json!({"grade": g, "count": n}))
            .collect::<Vec<_>>()
    };
    json!({
        "pairs": p.pairs, "missing": p.missing,
        "mean_gap": num(p.mean_gap), "mean_gap_ci": interval(p.mean_gap_ci),
        "equal_grades": num(p.equal_grades),
        "auc": num(p.auc), "auc_ci": interval(p.auc_ci),
        "spearman": num(p.spearman.statistic), "spearman_p": num(p.spearman.p_value),
        "kendall_tau_b": num(p.kendall_tau_b.statistic), "kendall_p": num(p.kendall_tau_b.p_value),
        "missing_rule": {"drop": headline_json(&p.drop), "lowest": p.lowest.as_ref().map_or(Value::Null, headline_json)},
        "histogram": {"chosen": hist(&p.chosen), "rejected": hist(&p.rejected)},
    })
}

/// The documented JSON document (README, "calibrate JSON").
pub fn to_json(run: &Run) -> Value {
    let configs: Vec<Value> = run
        .evaluation
        .configs
        .iter()
        .zip(&run.record.configs)
        .zip(&run.meta.configs)
        .map(|((r, rec), meta)| {
            let mut m = Map::new();
            m.insert("name".into(), json!(rec.name));
            m.insert("prompt".into(), json!(rec.prompt));
            m.insert("rater".into(), json!(rec.rater));
            m.insert("judge".into(), json!(rec.judge));
            m.insert("model".into(), json!(meta.model));
            m.insert("simulated".into(), json!(rec.simulated));
            m.insert("counts".into(), counts_json(&r.overall));
            m.insert("overall".into(), scope_json(&r.overall));
            m.insert("by_subset".into(), Value::Object(r.by_subset.iter().map(|(k, s)| (k.clone(), scope_json(s))).collect()));
            m.insert("sections".into(), Value::Object(r.sections.iter().map(|(k, v)| (k.to_string(), num(*v))).collect()));
            m.insert("leaderboard".into(), r.leaderboard.map_or(Value::Null, num));
            if let Some(p) = &r.overall.position {
                m.insert("position".into(), position_json(p));
            }
            if let Some(c) = &r.consistency {
                m.insert("consistency".into(), super::consistency::to_json(c));
            }
            if let Some(model) = &r.length_model {
                m.insert("length_model".into(), super::bias::model_json(model));
            }
            if let Some(a) = &r.annotators {
                let (annotators, judge) = super::annotators::to_json(a);
                m.insert("annotators".into(), annotators);
                m.insert("judge_vs_annotators".into(), judge);
            }
            m.insert(
                "reasons".into(),
                rec.reasons
                    .iter()
                    .map(|(reason, count)| json!({"reason": reason, "count": count}))
                    .collect(),
            );
            let c = rec.cost;
            m.insert(
                "cost".into(),
                json!({"calls": c.calls, "cache_hits": c.cache_hits, "tokens_in": c.tokens_in, "tokens_out": c.tokens_out, "wall_seconds": num(c.wall_seconds)}),
            );
            Value::Object(m)
        })
        .collect();
    let comparisons: Vec<Value> = run
        .evaluation
        .comparisons
        .iter()
        .map(|c| {
            json!({
                "a": run.record.configs[c.a].name, "b": run.record.configs[c.b].name, "n": c.n,
                "accuracy_diff": num(c.accuracy.diff), "accuracy_ci": [num(c.accuracy.ci.0), num(c.accuracy.ci.1)],
                "kappa_quadratic_diff": num(c.kappa.diff), "kappa_quadratic_ci": [num(c.kappa.ci.0), num(c.kappa.ci.1)],
                "only_a_right": c.only_a_right, "only_b_right": c.only_b_right,
                "p_value": num(c.accuracy.p), "p_holm": num(c.accuracy.p_holm),
                "kappa_quadratic_p": num(c.kappa.p), "kappa_quadratic_p_holm": num(c.kappa.p_holm),
                "accuracy_finding": finding_key(c.accuracy.finding()), "kappa_quadratic_finding": finding_key(c.kappa.finding()),
                "discordance": num(c.power.discordance),
                "min_detectable_difference": num(c.power.min_detectable),
                "items_needed": num(c.power.items_needed),
                "verdict": verdict(run, c),
            })
        })
        .collect();
    json!({
        "run_dir": run.meta.dir.display().to_string(),
        "data": {"source": run.meta.source, "items": run.record.items.len(), "seed": run.meta.seed, "both_orders": run.meta.both_orders, "checksum": run.meta.checksum},
        "bootstrap": run.meta.bootstrap,
        "simulated": run.record.configs.iter().any(|c| c.simulated),
        "configs": configs,
        "comparisons": comparisons,
        "ranking_note": ranking_note(run),
        "significance_groups": super::groups::to_json(run),
    })
}

/// The human-readable report.
pub fn write_terminal(run: &Run, w: &mut dyn Write) -> Result<()> {
    let rec = &run.record;
    let simulated = rec.configs.iter().any(|c| c.simulated);
    writeln!(
        w,
        "raterlab calibrate: {} configuration{} × {} items · data {} · seed {}{}",
        rec.configs.len(),
        if rec.configs.len() == 1 { "" } else { "s" },
        rec.items.len(),
        run.meta.source,
        run.meta.seed,
        if run.meta.both_orders {
            " · both orders"
        } else {
            ""
        }
    )?;
    if simulated {
        writeln!(
            w,
            "NOTE: results marked (sim) come from the SIMULATED judge, not from an LLM."
        )?;
    }
    if run.meta.no_majority > 0 {
        let kept = rec.annotators.as_ref().is_some_and(|a| a.policy == "tie");
        writeln!(
            w,
            "{} pairs {}: their annotators had no majority",
            run.meta.no_majority,
            if kept { "kept as ties" } else { "left out" }
        )?;
    }
    let order = order(run);
    let summary = super::summary::summary(run);
    let print = |w: &mut dyn Write, t: &super::summary::Table| -> Result<()> {
        writeln!(w, "\n{}\n{}", t.title, table::render(t))?;
        for note in &t.notes {
            writeln!(w, "  {note}")?;
        }
        Ok(())
    };
    print(w, &summary.configurations)?;
    print(w, &summary.parse_failures)?;
    write_reasons(run, &order, w)?;
    for t in [&summary.position, &summary.pointwise, &summary.sections]
        .into_iter()
        .flatten()
    {
        print(w, t)?;
    }
    writeln!(w, "\nConfusion matrices (rows: gold, columns: rating)")?;
    for &i in &order {
        writeln!(
            w,
            "{}\n{}",
            rec.configs[i].name,
            table::confusion(&run.evaluation.configs[i].overall.agreement.confusion)
        )?;
    }
    if let Some(t) = &summary.comparisons {
        print(w, t)?;
    }
    for t in super::groups::tables(run)
        .into_iter()
        .chain(super::bias::tables(run, &order))
        .chain(super::consistency::tables(run, &order))
        .chain(super::annotators::calibrate_tables(run, &order))
    {
        print(w, &t)?;
    }
    writeln!(w, "\nrun directory: {}", run.meta.dir.display())?;
    Ok(())
}

/// How many reasons are shown per configuration; the rest are summed up in one line.
const REASONS_SHOWN: usize = 3;

/// The most common reasons why items have no rating, per configuration.
fn write_reasons(run: &Run, order: &[usize], w: &mut dyn Write) -> Result<()> {
    let configs = &run.record.configs;
    if configs.iter().all(|c| c.reasons.is_empty()) {
        return Ok(());
    }
    writeln!(
        w,
        "\nWhy items have no rating (most common reasons; every item's in ratings.csv, the raw answers in completions.jsonl)"
    )?;
    for c in order.iter().map(|&i| &configs[i]) {
        if c.reasons.is_empty() {
            continue;
        }
        writeln!(w, "{}", c.name)?;
        for (reason, n) in c.reasons.iter().take(REASONS_SHOWN) {
            writeln!(w, "  {n:>5} × {}", table::shorten(reason, 110))?;
        }
        if c.reasons.len() > REASONS_SHOWN {
            let rest = &c.reasons[REASONS_SHOWN..];
            let n: usize = rest.iter().map(|r| r.1).sum();
            writeln!(w, "  {n:>5} × {} other reasons", rest.len())?;
        }
    }
    Ok(())
}

/// Prints the report (tables, or JSON).
pub fn emit(run: &Run, json: bool) -> Result<()> {
    let stdout = std::io::stdout();
    let mut w = stdout.lock();
    if json {
        serde_json::to_writer_pretty(&mut w, &to_json(run))?;
        writeln!(w)?;
    } else {
        write_terminal(run, &mut w)?;
    }
    w.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comparison(accuracy: MetricTest, kappa: MetricTest) -> Comparison {
        Comparison {
            a: 0,
            b: 1,
            n: 60,
            accuracy,
            kappa,
            only_a_right: 13,
            only_b_right: 0,
            // No power figures: the verdict lines below are about the tests.
            power: crate::evaluation::Power {
                discordance: f64::NAN,
                min_detectable: f64::NAN,
                items_needed: f64::NAN,
            },
        }
    }

    use crate::evaluation::fixtures::metric_test as t;

    /// The real session's case: with_tie 22 points less accurate (McNemar Holm p = 0.001) while
    /// its kappa is +0.09 [−0.08, +0.27]. The line used to read "with_tie > no_tie: +0.09
    /// kappa, p = 0.010" (kappa's direction, accuracy's p-value).
    #[test]
    fn a_verdict_never_borrows_one_metrics_test_for_another() {
        let c = comparison(
            t(-0.217, (-0.333, -0.100), 0.001),
            t(0.09, (-0.08, 0.27), 0.31),
        );
        assert_eq!(
            verdict_line("no_tie", "with_tie", &c),
            "no_tie > with_tie on accuracy (kappa: no significant difference): accuracy +0.217 [+0.100, +0.333], McNemar Holm p = 0.001; κq -0.09 [-0.27, +0.08], bootstrap Holm p = 0.310; the accuracy and kappa estimates point in opposite directions"
        );
    }

    #[test]
    fn opposite_findings_are_reported_as_a_disagreement() {
        let c = comparison(
            t(-0.217, (-0.333, -0.100), 0.001),
            t(0.196, (0.02, 0.37), 0.03),
        );
        assert_eq!(
            verdict_line("a", "b", &c),
            "a vs b: the metrics disagree, accuracy favours a and kappa favours b: accuracy +0.217 [+0.100, +0.333], McNemar Holm p = 0.001; κq -0.20 [-0.37, -0.02], bootstrap Holm p = 0.030"
        );
    }

    #[test]
    fn no_claim_without_a_rejecting_test_and_an_interval_excluding_zero() {
        let c = comparison(t(0.05, (-0.02, 0.12), 0.2), t(0.04, (-0.1, 0.2), 0.4));
        assert_eq!(
            verdict_line("a", "b", &c),
            "b ≈ a: no significant difference: accuracy +0.050 [-0.020, +0.120], McNemar Holm p = 0.200; κq +0.04 [-0.10, +0.20], bootstrap Holm p = 0.400"
        );
        let both = comparison(t(0.2, (0.1, 0.3), 0.001), t(0.3, (0.1, 0.5), 0.002));
        assert!(verdict_line("a", "b", &both).starts_with("b > a on accuracy and kappa: "));
        let mut none = both.clone();
        none.n = 0;
        assert_eq!(
            verdict_line("a", "b", &none),
            "b vs a: no item rated by both, nothing to compare"
        );
    }
}
