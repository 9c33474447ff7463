//! RewardBench 2 results: each configuration's subset scores with CIs beside chance, Ties'
//! parts and the leaderboard, on the terminal or as JSON (`rewardbench2` per configuration).

use crate::report::calibrate::answer::{say_standing, Best, RunnerUp};
use crate::report::calibrate::cost::{self, Costs};
use crate::report::calibrate::screen::{Block, Screen};
use crate::report::media::format::{fixed, with_ci};
use crate::report::media::table::Table;
pub mod analytics;
mod pairs;
pub use pairs::Rb2Section;

use crate::evaluation::rewardbench2::Board;
use crate::raters::rewardbench2::Protocol;
use crate::run::record::Run;
use anyhow::Result;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write;

/// A subset's rows: how many, how many scored, and what chance scores.
#[derive(Serialize)]
struct SubsetRows {
    rows: usize,
    scored: usize,
    chance: Option<f64>,
}

/// A leaderboard under one missing-score rule.
#[derive(Serialize)]
struct BoardJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    missing: Option<&'static str>,
    score: f64,
    ci: (f64, f64),
    subsets: BTreeMap<&'a str, f64>,
    subset_ci: BTreeMap<&'a str, (f64, f64)>,
    rows: BTreeMap<&'a str, SubsetRows>,
    dropped: usize,
    ties: Option<&'a crate::evaluation::rewardbench2::TiesScore>,
}

/// A board, with its rule's name (`missing`) or without (the chosen rule's, which the
/// configuration names).
fn board_json(b: &Board, named: bool) -> BoardJson<'_> {
    BoardJson {
        missing: named.then(|| b.missing.key()),
        score: b.leaderboard,
        ci: b.leaderboard_ci,
        subsets: b
            .subsets
            .iter()
            .map(|s| (s.name.as_str(), s.score))
            .collect(),
        subset_ci: b.subsets.iter().map(|s| (s.name.as_str(), s.ci)).collect(),
        rows: b
            .subsets
            .iter()
            .map(|s| {
                (
                    s.name.as_str(),
                    SubsetRows {
                        rows: s.rows,
                        scored: s.used,
                        chance: s.chance,
                    },
                )
            })
            .collect(),
        dropped: b.dropped,
        ties: b.ties.as_ref(),
    }
}

/// A configuration: its leaderboard under the chosen rule and the other, the analytics and
/// its cost (as a run over pairs has it).
#[derive(Serialize)]
struct ConfigJson<'a> {
    name: &'a str,
    missing: &'static str,
    rewardbench2: BoardJson<'a>,
    rewardbench2_other_missing_rule: BoardJson<'a>,
    #[serde(flatten)]
    analytics: analytics::ConfigJson<'a>,
    cost: Value,
    /// On the rows' pairs: the record's scope of all items, as a run over pairs has it (every
    /// analytic's keys with it).
    pairs: Option<crate::report::calibrate::document::ScopeJson<'a>>,
}

#[derive(Serialize)]
struct DataJson<'a> {
    source: &'a str,
    seed: u64,
    rows: usize,
    form: &'static str,
}

/// The JSON document of a RewardBench 2 run.
#[derive(Serialize)]
struct RunJson<'a> {
    schema: &'static str,
    data: DataJson<'a>,
    bootstrap: usize,
    /// The significance level: the comparisons' and every interval's (1 − α).
    alpha: f64,
    /// `--family`: which comparisons get a verdict (best: the best's, and a jury's with its
    /// members; all: every pair). Holm counts every pair either way.
    family: &'static str,
    configs: Vec<ConfigJson<'a>>,
    comparisons: Vec<crate::evaluation::paired::PairedTest>,
    /// The best by the one rule of "the best" (`evaluation::ranking`).
    best: Option<&'a str>,
    /// Those ranked above the best that cannot be the best, and why.
    not_ranked: Vec<crate::report::calibrate::document::NotRanked<'a>>,
    best_group: Vec<&'a str>,
    /// The frontier of the compared score against cost, and the cheapest configuration not
    /// worse than the best by the margin (`evaluation::cost`, as for pairs).
    cost_frontier: Option<&'a crate::evaluation::cost::Frontier>,
}

/// The cost outputs' view of a RewardBench 2 run: its frontier on the compared score, over
/// its rows.
pub fn costs(run: &Run) -> Costs<'_> {
    Costs {
        frontier: run.rewardbench2().cost_frontier.as_ref(),
        metric: "mean subset score",
        items: run.shown().len(),
        costs: run.rewardbench2().configs.iter().map(|c| &c.cost).collect(),
    }
}

pub fn to_json(run: &Run) -> Value {
    serde_json::to_value(RunJson {
        schema: crate::run::schema::CALIBRATE_REWARDBENCH2,
        data: DataJson {
            source: &run.meta.head.source,
            seed: run.meta.head.seed,
            rows: run.shown().len(),
            form: "rewardbench2",
        },
        bootstrap: run.meta.head.bootstrap,
        alpha: run.meta.alpha,
        family: run.rewardbench2().family.key(),
        configs: run
            .rewardbench2()
            .configs
            .iter()
            .enumerate()
            .map(|(k, c)| ConfigJson {
                name: &c.name,
                missing: c.boards[0].missing.key(),
                rewardbench2: board_json(&c.boards[0], false),
                rewardbench2_other_missing_rule: board_json(&c.boards[1], true),
                analytics: analytics::config_json(c, &run.rewardbench2().configs),
                // The share of a thinking budget needs each call's max_tokens, which a
                // RewardBench 2 run does not keep: null.
                cost: cost::config_json(&c.cost, run.shown().len(), f64::NAN),
                pairs: run
                    .evaluation
                    .configs
                    .get(k)
                    .map(|r| crate::report::calibrate::document::scope_json(&r.overall)),
            })
            .collect(),
        comparisons: run
            .rewardbench2()
            .comparisons
            .iter()
            .map(|p| analytics::comparison_json(run, p))
            .collect(),
        best: run
            .rewardbench2()
            .standing
            .as_ref()
            .map(|s| run.rewardbench2().configs[s.picked.best].name.as_str()),
        not_ranked: run
            .rewardbench2()
            .standing
            .as_ref()
            .iter()
            .flat_map(|s| &s.picked.unranked)
            .map(|(k, why)| crate::report::calibrate::document::NotRanked {
                config: &run.rewardbench2().configs[*k].name,
                why,
            })
            .collect(),
        best_group: run
            .rewardbench2()
            .group()
            .iter()
            .map(|&k| run.rewardbench2().configs[k].name.as_str())
            .collect(),
        cost_frontier: run.rewardbench2().cost_frontier.as_ref(),
    })
    .unwrap_or_default()
}

/// The header line of a RewardBench 2 run.
pub fn header(run: &Run) -> String {
    format!(
        "RewardBench 2: {} · {} rows · seed {} · bootstrap {} (rows resampled; Ties by question){}",
        run.meta.head.source,
        run.shown().len(),
        run.meta.head.seed,
        run.meta.head.bootstrap,
        if run.meta.head.both_orders {
            " · pairwise configurations in both orders"
        } else {
            ""
        }
    ) + if run.rewardbench2().configs.iter().any(|c| c.simulated) {
        "\nSIMULATED judge: these results come from the simulated judge, not from an LLM."
    } else {
        ""
    }
}

/// The run as text tables, built once: the terminal and `report.html` show the same numbers.
pub fn tables(run: &Run) -> Vec<Table> {
    let (glance, each, rest) = parts(run);
    [glance, each, rest].concat()
}

/// The run's tables in three parts: the leaderboard at a glance (the registry's RewardBench 2
/// section, with two configurations or more), each configuration's, and the rest (cost,
/// comparisons, the pairs, how rows are scored).
fn parts(run: &Run) -> (Vec<Table>, Vec<Table>, Vec<Table>) {
    let mut out = Vec::new();
    let shown = if run.meta.sort.is_some() {
        leaderboard_order(run)
    } else {
        (0..run.rewardbench2().configs.len()).collect()
    };
    let glance = if run.rewardbench2().configs.len() > 1 {
        crate::report::calibrate::section::Section::tables(
            &Rb2Section,
            &run.view(),
            &shown,
            crate::report::calibrate::section::View::Full,
        )
    } else {
        Vec::new()
    };
    for c in shown.iter().map(|&k| &run.rewardbench2().configs[k]) {
        let (b, other) = (&c.boards[0], &c.boards[1]);
        let mut t = Table::new(
            format!("{} (a missing score: {})", c.name, b.missing.key()),
            &[
                "subset",
                "rows",
                "scored",
                &format!(
                    "score [{} CI]",
                    crate::report::media::format::level(1.0 - run.meta.alpha)
                ),
                "chance",
            ],
        );
        for s in &b.subsets {
            t.rows.push(vec![
                s.name.clone(),
                s.rows.to_string(),
                s.used.to_string(),
                with_ci(s.score, s.ci),
                s.chance.map_or_else(|| "–".into(), |c| format!("{c:.3}")),
            ]);
        }
        t.rows.push(vec![
            "leaderboard (mean of the six)".into(),
            run.shown().len().to_string(),
            String::new(),
            with_ci(b.leaderboard, b.leaderboard_ci),
            String::new(),
        ]);
        if let Some(ties) = b.ties {
            t.notes.push(format!(
                "Ties {}: ref accuracy {}, tied accuracy {}, correctness preferred {}, hard {}, margin {} (weights 0.3/0.3/0.2/0.2/0.01)",
                fixed(ties.score),
                fixed(ties.ref_accuracy),
                fixed(ties.tied_accuracy),
                fixed(ties.correctness_preferred),
                fixed(ties.correctness_preferred_hard),
                fixed(ties.margin)
            ));
        }
        let present = b.subsets.len();
        let scored = b.subsets.iter().filter(|s| !s.score.is_nan()).count();
        if present < crate::evaluation::rewardbench2::SUBSETS.len() {
            t.notes.push(format!(
                "the leaderboard is the mean of all six subsets, and this run has {present}; the paired comparisons use the mean of the {scored} scored"
            ));
        } else if scored < present {
            t.notes.push(format!(
                "the leaderboard needs all six subsets scored, and {scored} are; the paired comparisons use the mean of the {scored} scored"
            ));
        }
        t.notes.push(format!(
            "{} rows left out for a missing score; with the other rule ({}), the leaderboard is {}",
            b.dropped,
            other.missing.key(),
            with_ci(other.leaderboard, other.leaderboard_ci)
        ));
        t.notes.extend(analytics::config_lines(c));
        out.push(t);
    }
    let mut rest = Vec::new();
    rest.extend(cost::table(&costs(run)));
    rest.extend(analytics::comparison_table(run));
    rest.push(pairs::pairs_table(run, &shown));
    // In the order of their names, as before.
    let protocols: std::collections::BTreeMap<&str, Protocol> = run
        .rewardbench2()
        .configs
        .iter()
        .map(|c| (c.protocol.key(), c.protocol))
        .collect();
    let mut how = Table::new(
        "How rows are scored (as reward-bench scores RewardBench 2)",
        &[],
    );
    for p in protocols.into_values() {
        how.notes.push(match p {
            Protocol::Ranking => "ranking: a row is right when the judge picks the correct completion; no pick read scores 1/4 (reward-bench's \"effectively a tie\").",
            Protocol::Pairwise => "pairwise: a row is right when the correct completion wins its pair against every incorrect one (a tie or no verdict: not won).",
            Protocol::Ratings | Protocol::Scores => "ratings and scores: a row is worth 1/k when its correct completion shares the top grade with k-1 others, 0 when another is higher; a missing grade: left out (drop), or below every grade (lowest: reward-bench's own rule, a failed rating is -1).",
        }.to_string());
    }
    how.notes.push("Ties: reward-bench's weighted score from per-completion ratings (rb2_rating_ties) or scores. chance: what a judge at random gets (1/4 for one correct completion among four; pairwise 1/8, three coin flips won); Ties' weighted score has none.".into());
    rest.push(how);
    (glance, out, rest)
}

/// The configurations by the score the comparisons test (the leaderboard with all six
/// subsets), the best first; a configuration without a score last.
fn leaderboard_order(run: &Run) -> Vec<usize> {
    run.rewardbench2()
        .standing
        .as_ref()
        .map_or_else(Vec::new, |s| s.order.clone())
}

/// What a RewardBench 2 run says of a configuration that read few answers.
const RB2_UNREAD: (&str, &str, &str) = (
    "a pick, verdict or grade",
    "answers",
    "its score rests on rows whose answers it could not read (scored as reward-bench scores an unread answer, or left out), so it is not ranked on it",
);

/// The answer, first on the terminal: the best configuration on the score the comparisons
/// test (the leaderboard with all six subsets), by how much, whether the paired test
/// separates it from the runner-up, what chance scores, and what changes the reading.
pub fn answer(run: &Run) -> Vec<String> {
    let score = |k: usize| {
        crate::evaluation::rewardbench2::analytics::overall_of(
            &run.rewardbench2().configs[k].boards[0],
        )
    };
    let mut out = Vec::new();
    let Some(standing) = run.rewardbench2().standing.as_ref() else {
        return out;
    };
    let (order, best) = (&standing.order, standing.picked.best);
    // The configurations ranked above the best that cannot be ranked, and why.
    out.extend(standing.picked.unranked.iter().map(|(k, why)| {
        crate::report::calibrate::answer::not_ranked(
            &run.rewardbench2().configs[*k].name,
            why,
            RB2_UNREAD,
        )
    }));
    let b = &run.rewardbench2().configs[best].boards[0];
    // The compared score is the mean of the subsets with a score (`overall_of`): the
    // leaderboard only when all six have one.
    let scored: Vec<&str> = b
        .subsets
        .iter()
        .filter(|s| !s.score.is_nan())
        .map(|s| s.name.as_str())
        .collect();
    if scored.is_empty() {
        // Nothing to name a best on: every configuration's subsets are without a score.
        out.push(format!(
            "No configuration has a score on these {} rows: no subset has one (a row with a grade or verdict missing is left out under --pointwise-missing drop, and Ties scores a question only with its ref and tied rows both scored; see each table).",
            run.shown().len()
        ));
        out.extend(warnings(run, order));
        return out;
    }
    let all = scored.len() == crate::evaluation::rewardbench2::SUBSETS.len();
    let metric = match (scored.as_slice(), b.subsets.len()) {
        _ if all => "the leaderboard (mean of the six subsets)".to_string(),
        ([only], 1) => format!("{only} (the only subset present)"),
        ([only], _) => format!("{only} (the only subset scored)"),
        (some, present) if some.len() == present => {
            format!("the mean of the {} subsets present", some.len())
        }
        (some, present) => format!(
            "the mean of the {} subsets scored (of {present} present; the leaderboard has no score)",
            some.len()
        ),
    };
    let name = |k: usize| {
        let c = &run.rewardbench2().configs[k];
        crate::report::media::format::marked_name(&c.name, c.simulated)
    };
    // Three decimals, the leaderboard's CI when there is one.
    let shown = |k: usize| {
        let b = &run.rewardbench2().configs[k].boards[0];
        with_ci(
            score(k),
            if all {
                b.leaderboard_ci
            } else {
                (f64::NAN, f64::NAN)
            },
        )
    };
    let runner_up = standing.picked.runner_up.map(|second| RunnerUp {
        name: name(second),
        value: with_ci(score(second), (f64::NAN, f64::NAN)),
        tied: score(second) == score(best),
        verdict: run
            .rewardbench2()
            .comparisons
            .iter()
            .find(|p| (p.a, p.b) == (best, second) || (p.a, p.b) == (second, best))
            .map(|p| {
                let found = match p.test.finding() {
                    crate::evaluation::Finding::ABetter | crate::evaluation::Finding::BBetter => {
                        "the test separates them"
                    }
                    _ => "no significant difference",
                };
                // From the best's side: best − runner-up.
                let sign = if p.b == best { 1.0 } else { -1.0 };
                let phrase = crate::report::calibrate::ranking::metric_phrase(
                    &p.test,
                    sign,
                    3,
                    "paired bootstrap",
                );
                format!("{found}: {phrase}")
            }),
    });
    out.extend(say_standing(
        Best {
            name: name(best),
            on: metric,
            value: shown(best),
            after: format!(
                " ({} protocol, {} rows)",
                run.rewardbench2().configs[best].protocol.key(),
                run.shown().len()
            ),
            unranked: standing.picked.unranked.iter().any(|u| u.0 == best),
        },
        runner_up,
    ));
    let chance: Vec<f64> = b.subsets.iter().filter_map(|s| s.chance).collect();
    if !chance.is_empty() {
        out.push(format!(
            "Chance: {} per subset outside Ties (a judge at random under {}'s protocol).",
            with_ci(
                chance.iter().sum::<f64>() / chance.len() as f64,
                (f64::NAN, f64::NAN)
            ),
            &run.rewardbench2().configs[best].name
        ));
    }
    out.extend(cost::answer(&costs(run)));
    out.extend(warnings(run, order));
    out
}

/// The answer's warnings: answers not read, and juries' rows without a vote.
fn warnings(run: &Run, order: &[usize]) -> Vec<String> {
    let mut out = Vec::new();
    let unread: Vec<String> = order
        .iter()
        .filter_map(|&k| {
            let c = &run.rewardbench2().configs[k];
            let (read, asked) = c.read.own(c.jury.is_some());
            let missing = asked - read;
            (missing > 0).then(|| format!("{} {missing}", c.name))
        })
        .collect();
    if !unread.is_empty() {
        out.push(format!(
            "Warning: answers not read (picks, verdicts or grades; see each table's notes): {}.",
            unread.join(", ")
        ));
    }
    // A jury's rows without a vote: its members disagree (or did not pick).
    let undecided: Vec<String> = order
        .iter()
        .map(|&k| &run.rewardbench2().configs[k])
        .filter(|c| c.jury.is_some())
        .filter_map(|c| {
            let (m, of) = c.read.picks.filter(|p| p.0 > 0)?;
            Some(format!("{} {m} of {of} rows", c.name))
        })
        .collect();
    if !undecided.is_empty() {
        out.push(format!(
            "Juries without a vote (their members disagree; each such row scored 1/4): {}.",
            undecided.join(", ")
        ));
    }
    out
}

/// The human-readable report: the answer, the leaderboard at a glance, every configuration's
/// table (with `--details`, or when there is one), the cost, the comparisons, the rows' pairs
/// and how rows are scored.
pub fn write_terminal(run: &Run, w: &mut dyn Write, details: bool) -> Result<()> {
    let (glance, each, rest) = parts(run);
    // Without --details (and more than one configuration): the leaderboard at a glance, the
    // cost, the comparisons (the question's answer), the pairs and how rows are scored.
    let each = if details || run.rewardbench2().configs.len() <= 1 {
        each
    } else {
        Vec::new()
    };
    let screen = Screen {
        header: header(run).lines().map(String::from).collect(),
        answer: answer(run),
        after: vec![format!(
            "{}; browse every row in {}",
            if details {
                "Details follow"
            } else {
                "Every configuration's table: --details"
            },
            run.meta.head.dir.join("report.html").display()
        )],
        blocks: [glance, each, rest]
            .concat()
            .into_iter()
            .map(Block::Table)
            .collect(),
        dir: Some(run.meta.head.dir.clone()),
    };
    crate::report::calibrate::screen::write(&screen, w)
}
