//! The answer, first on the terminal and on report.html: the best configuration and by how
//! much, the runner-up's paired verdict, each section's lines, the baselines and the warnings.

use crate::evaluation::standing::{Against, Standing};
use crate::evaluation::Evaluated;
use crate::metrics::Statistic;
use crate::report::calibrate::ranking::{ranking_note, reasoning_share, verdict};
use crate::report::calibrate::sections::SECTIONS;
use crate::report::media::format::statistic_name;

/// The answer, first on the terminal: which configuration is best on the sort metric and by
/// how much, whether the paired test separates it from the runner-up, what the baselines
/// score, and what changes the reading (the simulated judge, items without a verdict, the
/// metrics disagreeing). Lines of prose, to be wrapped at the terminal's width.
pub fn answer(run: &crate::run::record::Run) -> Vec<String> {
    let view = run.view();
    // Under --sequential what the race decided comes first.
    let mut out = super::race::answer(run);
    out.extend(answer_of(&view));
    out
}

/// The answer of an evaluated record, whichever command made it.
pub fn answer_of(run: &Evaluated) -> Vec<String> {
    let s = run.sort;
    let configs = &run.record.configs;
    let agreement = |i: usize| &run.evaluation.configs[i].overall.agreement;
    // A section's question first (the system level, asked for with --reference).
    let mut out: Vec<String> = SECTIONS.iter().flat_map(|s| s.question(run)).collect();
    // The evaluation's standing: the best, the runner-up and where the best stands.
    let Some(standing) = &run.evaluation.standing else {
        return out;
    };
    let (order, best) = (&standing.order, standing.best);
    let value = |i: usize| crate::report::media::format::with_interval(agreement(i), s);
    if standing.against == Against::Nothing {
        let n = run.record.items.len();
        out.push(format!(
            "No item has a gold label (and was asked): there is no agreement to measure. The {n} items were rated and kept in ratings.csv."
        ));
        return out;
    }
    // Before naming a best: is any judge distinguishable from chance, and from the baselines?
    out.extend(caveat(run, standing));
    // The judges above it that cannot be the best, and why.
    out.extend(
        standing
            .unranked
            .iter()
            .map(|(i, why)| not_ranked(&configs[*i].name, why, PAIRS_UNREAD)),
    );
    // Accuracy beside the sort metric, unless it is the sort metric.
    let accuracy = if s == Statistic::Accuracy {
        String::new()
    } else {
        format!(
            ", accuracy {}",
            crate::report::media::format::fixed(agreement(best).get(Statistic::Accuracy))
        )
    };
    let runner_up = standing.runner_up.map(|second| RunnerUp {
        name: configs[second].name.clone(),
        value: value(second),
        tied: agreement(second).get(s) == agreement(best).get(s),
        verdict: run
            .evaluation
            .comparisons
            .iter()
            .find(|c| (c.a, c.b) == (best, second) || (c.a, c.b) == (second, best))
            .map(|c| verdict(run, c)),
    });
    out.extend(say_standing(
        Best {
            name: crate::report::media::format::shown_name(&configs[best]),
            on: statistic_name(s).to_string(),
            value: value(best),
            // The items its measures count (without the unlabelled or never asked ones).
            after: format!(
                "{accuracy}, over {} items",
                run.evaluation.configs[best].overall.counts.examples
            ),
            unranked: standing.unranked.iter().any(|u| u.0 == best),
        },
        runner_up,
    ));
    out.extend(SECTIONS.iter().flat_map(|s| s.answer(run, order)));
    let baselines: Vec<String> = order
        .iter()
        .filter(|&&i| configs[i].is_baseline())
        .map(|&i| format!("{} {}", configs[i].name, value(i)))
        .collect();
    if !baselines.is_empty() {
        out.push(format!(
            "Baselines ({}): {}.",
            statistic_name(s),
            baselines.join(" · ")
        ));
    }
    out.extend(warnings(run, order));
    out.extend(ranking_note(run).map(|n| format!("Warning: {n}")));
    out
}

/// The answer's warnings: items without a verdict, and what a reasoning judge's thinking cost
/// (and the answers it cut off).
fn warnings(run: &Evaluated, order: &[usize]) -> Vec<String> {
    let configs = &run.record.configs;
    let mut out = Vec::new();
    let unread: Vec<String> = order
        .iter()
        .filter_map(|&i| {
            let n = run.evaluation.configs[i].overall.counts;
            let missing = n.no_verdict + n.cut_off + n.call_failures;
            (missing > 0).then(|| format!("{} {missing}/{}", configs[i].name, n.examples))
        })
        .collect();
    if !unread.is_empty() {
        out.push(format!(
            "Warning: items without a verdict, dropped from these figures (the parse-failure table counts them wrong or as ties): {}.",
            unread.join(", ")
        ));
    }
    // A reasoning judge's thinking: what it cost, and the answers it cut off.
    let thinking: Vec<String> = order
        .iter()
        .filter_map(|&i| {
            let c = &configs[i];
            let max_tokens = run.max_tokens[i];
            let cut = run.evaluation.configs[i].overall.counts.cut_off;
            (c.cost.tokens_reasoning > 0 || cut > 0).then(|| {
                let share = reasoning_share(c.cost.tokens_reasoning, c.cost.calls, max_tokens);
                let cut = if cut > 0 {
                    format!(", {cut} items cut off while thinking")
                } else {
                    String::new()
                };
                format!(
                    "{} {} thinking tokens ({:.0}% of its budget of calls × {} tokens){cut}",
                    c.name,
                    c.cost.tokens_reasoning,
                    100.0 * share,
                    max_tokens
                )
            })
        })
        .collect();
    if !thinking.is_empty() {
        out.push(format!(
            "Thinking: {}. Raise --max-tokens (or lower --reasoning-effort) where answers are cut off.",
            thinking.join("; ")
        ));
    }
    out
}

/// What a run over pairs says of a configuration that read few answers: of its items (one
/// verdict each, however many samples or failed calls behind it).
const PAIRS_UNREAD: (&str, &str, &str) = (
    "a verdict",
    "items",
    "its figures count only those it read, so it cannot be ranked on them; the parse-failure table counts the rest wrong or as ties",
);

/// Why a configuration is not named the best: `unread` says what an answer gives (a verdict;
/// a pick, verdict or grade), what the count is of (items; answers) and what the form makes of
/// those not read.
pub fn not_ranked(
    name: &str,
    why: &crate::evaluation::ranking::Unranked,
    (gives, of, unread): (&str, &str, &str),
) -> String {
    use crate::evaluation::ranking::{Unranked, READABLE_FLOOR};
    match why {
        Unranked::Dropped { better, at } => format!(
            "Not ranked: {name}, dropped by the race at item {at} (shown worse than {better})."
        ),
        Unranked::FewReadable { read, asked } => format!(
            "Not ranked: {name} read {gives} in {read} of its {asked} {of} ({:.0}%, under {:.0}%): {unread}.",
            100.0 * *read as f64 / *asked as f64,
            100.0 * READABLE_FLOOR
        ),
    }
}

/// The line that comes before "Best", from the standing: no configuration distinguishable
/// from chance, the best judge not told apart from the best baseline, or the best baseline
/// found better on a metric. None when the best is above both.
fn caveat(run: &Evaluated, standing: &Standing) -> Option<String> {
    let configs = &run.record.configs;
    let best = standing.best;
    match &standing.against {
        Against::Clear | Against::Nothing => None,
        Against::Chance => {
            let a = &run.evaluation.configs[best].overall.agreement;
            let kq = crate::report::media::format::with_interval(a, Statistic::KappaQuadratic);
            Some(format!(
                "No configuration is distinguishable from chance: no judge's κq interval lies above 0 (chance agreement); the best, {}, has κq {kq}.",
                configs[best].name
            ))
        }
        Against::NotToldApart {
            baseline,
            comparison,
        } => Some(format!(
            "The best judge is not told apart from the best baseline, {}: no adjusted paired test separates them ({}).",
            configs[*baseline].name,
            verdict(run, &run.evaluation.comparisons[*comparison])
        )),
        Against::BaselineBetter {
            baseline,
            comparison,
            on,
        } => {
            let on: Vec<&str> = on
                .iter()
                .map(|&s| {
                    if s == Statistic::Accuracy {
                        "accuracy"
                    } else {
                        "κq"
                    }
                })
                .collect();
            Some(format!(
                "The best baseline, {}, is better than the best judge on {} ({}).",
                configs[*baseline].name,
                on.join(" and "),
                verdict(run, &run.evaluation.comparisons[*comparison])
            ))
        }
    }
}

/// The best configuration, as the answer names it.
#[derive(Debug)]
pub struct Best {
    pub name: String,
    /// What it is best on (the sort metric, RewardBench 2's leaderboard).
    pub on: String,
    pub value: String,
    /// What follows the value in its sentence.
    pub after: String,
    /// No judge can be ranked (`ranking::Unranked`): it is the highest, named as such, not
    /// the best.
    pub unranked: bool,
}

/// The runner-up beside the best: tied when its score is the best's, with the paired verdict
/// when the two were compared.
#[derive(Debug)]
pub struct RunnerUp {
    pub name: String,
    pub value: String,
    pub tied: bool,
    pub verdict: Option<String>,
}

/// The answer's standing, on every form: "Best (tied with R): B on WHAT: VALUE...", then
/// "Against the runner-up (R, VALUE): VERDICT." or, not compared, "Runner-up: R (VALUE).".
pub fn say_standing(best: Best, runner_up: Option<RunnerUp>) -> Vec<String> {
    let tied = match &runner_up {
        Some(r) if r.tied => format!(" (tied with {})", r.name),
        _ => String::new(),
    };
    let lead = if best.unranked {
        "No judge can be ranked (above); the highest".to_string()
    } else {
        format!("Best{tied}")
    };
    let mut out = vec![format!(
        "{lead}: {} on {}: {}{}.",
        best.name, best.on, best.value, best.after
    )];
    out.extend(runner_up.map(|r| match r.verdict {
        Some(verdict) => format!(
            "Against the runner-up ({}, {}): {verdict}.",
            r.name, r.value
        ),
        None => format!("Runner-up: {} ({}).", r.name, r.value),
    }));
    out
}
