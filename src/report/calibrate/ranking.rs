//! The order configurations are shown in (best first by the sort metric), the note when the
//! metrics crown different ones, and the one-line verdict of a paired comparison.

use crate::evaluation::Evaluated;
use crate::evaluation::{Comparison, Finding, MetricTest};
use crate::metrics::Statistic;
use crate::report::media::format::{statistic_name, thousands};

/// Configuration indices, best first by the sort metric (undefined last): the evaluation's
/// one ranking.
pub fn order(run: &Evaluated) -> Vec<usize> {
    crate::evaluation::ranking::order(&run.evaluation.configs, run.sort)
}

/// When the headline metric and accuracy crown different configurations: one line that says
/// so, and why where the reason is known (quadratic kappa's partial credit for ties against
/// gold without ties).
pub fn ranking_note(run: &Evaluated) -> Option<String> {
    let headline = run.sort;
    if headline == Statistic::Accuracy {
        return None;
    }
    let overall = |i: usize| &run.evaluation.configs[i].overall.agreement;
    let best_headline = *order(run).first()?;
    let best_accuracy = crate::evaluation::ranking::best_of(
        (0..run.evaluation.configs.len()).map(|i| (i, overall(i).get(Statistic::Accuracy))),
    )?;
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
        statistic_name(headline),
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
pub fn verdict(run: &Evaluated, c: &Comparison) -> String {
    let (a, b) = (&run.record.configs[c.a].name, &run.record.configs[c.b].name);
    verdict_line(a, b, c, run.sort != Statistic::Accuracy)
}

/// "+0.217 [+0.100, +0.333] at 99.4%, McNemar Holm p = 0.001", as seen from `sign` (1: B − A,
/// −1: A − B): the interval at the level of the Holm step that decided the pair (so it
/// excludes 0 exactly when the pair is called different), "unadjusted" with the raw p for a
/// pair outside the family. A difference of exactly 0 reads +0.000 from either side.
pub fn metric_phrase(t: &MetricTest, sign: f64, digits: usize, test: &str) -> String {
    let seen = if sign > 0.0 {
        *t
    } else {
        let r = t.reversed();
        MetricTest {
            ci: (r.ci.0 + 0.0, r.ci.1 + 0.0),
            ..r
        }
    };
    let ci = match crate::report::media::format::interval_of(&seen, digits) {
        s if s.is_empty() => s,
        s => format!(" {s}"),
    };
    let p = if t.p_holm.is_finite() {
        format!(", {test} Holm p {}", p_phrase(t.p_holm))
    } else if t.p.is_finite() {
        format!(", {test} raw p {}", p_phrase(t.p))
    } else {
        format!(", no {test} test")
    };
    if t.diff.is_nan() {
        format!("n/a{p}")
    } else {
        format!("{:+.digits$}{ci}{p}", sign * t.diff + 0.0)
    }
}

/// The verdict of B against A, the sort metric's test first (`kappa_first`: quadratic kappa,
/// else accuracy).
/// "= 0.031", or "< 0.001" below it (a normal approximation's far tail is no figure to print).
fn p_phrase(p: f64) -> String {
    if p < 0.001 {
        "< 0.001".to_string()
    } else {
        format!("= {p:.3}")
    }
}

pub fn verdict_line(a: &str, b: &str, c: &Comparison, kappa_first: bool) -> String {
    if c.n == 0 {
        return format!("{b} vs {a}: no item rated by both, nothing to compare");
    }
    let (fa, fk) = (c.accuracy.finding(), c.kappa.finding());
    let phrases = |sign: f64| {
        let acc = format!(
            "accuracy {}",
            metric_phrase(&c.accuracy, sign, 3, "McNemar")
        );
        let kq = format!("κq {}", metric_phrase(&c.kappa, sign, 2, "bootstrap"));
        if kappa_first {
            format!("{kq}; {acc}")
        } else {
            format!("{acc}; {kq}")
        }
    };
    if fa == Finding::Unjudged && matches!(fk, Finding::Unjudged | Finding::Untested) {
        return format!(
            "{b} vs {a}: no verdict under --family best (--family all gives every pair one): {}",
            phrases(1.0)
        );
    }
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
    format!("{head}: {}{tail}{}", phrases(sign), power_phrase(c))
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
            "; at 80% power and α = {}, ≈ {} items would separate them on accuracy ({detectable})",
            p.alpha,
            thousands(p.items_needed as u64)
        )
    } else {
        format!("; no accuracy difference observed ({detectable} at 80% power)")
    }
}

/// The share of the token budget (calls × max_tokens) the thinking used; NaN without calls.
pub fn reasoning_share(tokens_reasoning: u64, calls: u64, max_tokens: u32) -> f64 {
    let budget = calls as f64 * f64::from(max_tokens);
    if budget > 0.0 {
        tokens_reasoning as f64 / budget
    } else {
        f64::NAN
    }
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
                alpha: 0.05,
                discordance: f64::NAN,
                min_detectable: f64::NAN,
                items_needed: f64::NAN,
            },
        }
    }

    use crate::evaluation::metric_test as t;

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
            verdict_line("no_tie", "with_tie", &c, false),
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
            verdict_line("a", "b", &c, false),
            "a vs b: the metrics disagree, accuracy favours a and kappa favours b: accuracy +0.217 [+0.100, +0.333], McNemar Holm p = 0.001; κq -0.20 [-0.37, -0.02], bootstrap Holm p = 0.030"
        );
    }

    #[test]
    fn no_claim_without_a_rejecting_test_and_an_interval_excluding_zero() {
        let c = comparison(t(0.05, (-0.02, 0.12), 0.2), t(0.04, (-0.1, 0.2), 0.4));
        assert_eq!(
            verdict_line("a", "b", &c, false),
            "b ≈ a: no significant difference: accuracy +0.050 [-0.020, +0.120], McNemar Holm p = 0.200; κq +0.04 [-0.10, +0.20], bootstrap Holm p = 0.400"
        );
        let both = comparison(t(0.2, (0.1, 0.3), 0.001), t(0.3, (0.1, 0.5), 0.002));
        assert!(verdict_line("a", "b", &both, false).starts_with("b > a on accuracy and kappa: "));
        let mut none = both.clone();
        none.n = 0;
        assert_eq!(
            verdict_line("a", "b", &none, false),
            "b vs a: no item rated by both, nothing to compare"
        );
    }

    /// The sort metric's test comes first; a pair outside the family has no verdict and says
    /// its intervals are unadjusted.
    #[test]
    fn the_sort_metric_leads_and_a_pair_outside_the_family_has_no_verdict() {
        let c = comparison(t(0.05, (-0.02, 0.12), 0.2), t(0.04, (-0.1, 0.2), 0.4));
        assert_eq!(
            verdict_line("a", "b", &c, true),
            "b ≈ a: no significant difference: κq +0.04 [-0.10, +0.20], bootstrap Holm p = 0.400; accuracy +0.050 [-0.020, +0.120], McNemar Holm p = 0.200"
        );
        let outside = |t: MetricTest| MetricTest {
            p_holm: f64::NAN,
            ..t
        };
        let c = comparison(
            outside(t(0.2, (0.1, 0.3), 0.001)),
            outside(t(0.3, (0.1, 0.5), 0.002)),
        );
        assert_eq!(
            verdict_line("a", "b", &c, true),
            "b vs a: no verdict under --family best (--family all gives every pair one): κq +0.30 [+0.10, +0.50] unadjusted, bootstrap raw p = 0.002; accuracy +0.200 [+0.100, +0.300] unadjusted, McNemar raw p = 0.001"
        );
    }
}
