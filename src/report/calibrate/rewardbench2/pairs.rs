//! A RewardBench 2 run through the registry: its section (`Rb2Section`, the leaderboard at a
//! glance, from the RewardBench 2 analytic's result) and each configuration on its rows' pairs
//! (the one record's scopes: what the pairs' agreement, parse rate and position analytics find).

use crate::evaluation::rewardbench2::score::Rb2Scores;
use crate::evaluation::rewardbench2::SUBSETS;
use crate::evaluation::{Evaluated, Scope};
use crate::metrics::Statistic;
use crate::report::calibrate::section::{Place, Section, View};
use crate::report::media::format::{fixed, level, with_ci};
use crate::report::media::table::Table;
use crate::run::record::Run;

/// The RewardBench 2 analytic's section: every configuration's leaderboard and subset scores
/// in one table (a run over pairs has no RewardBench 2 rows, and no table).
#[derive(Debug)]
pub struct Rb2Section;

/// A subset's short name, for a column.
fn short(subset: &str) -> &str {
    match subset {
        "Factuality" => "Fact.",
        "Precise IF" => "IF",
        other => other,
    }
}

impl Section for Rb2Section {
    fn place(&self) -> Place {
        Place::Lead
    }

    fn tables(&self, run: &Evaluated, order: &[usize], _view: View) -> Vec<Table> {
        let Some(scores) = run.evaluation.of_run::<Rb2Scores>() else {
            return Vec::new();
        };
        let alpha = run.evaluation.tested.alpha;
        let lead = format!("leaderboard [{} CI]", level(1.0 - alpha));
        let mut headers = vec!["configuration", lead.as_str()];
        headers.extend(SUBSETS.iter().map(|s| short(s)));
        let mut t = Table::new(
            "RewardBench 2 at a glance (each configuration's chosen missing-score rule)",
            &headers,
        );
        t.numeric = true;
        for c in order.iter().filter_map(|&k| scores.configs.get(k)) {
            let b = &c.boards[0];
            let mut row = vec![c.name.clone(), with_ci(b.leaderboard, b.leaderboard_ci)];
            row.extend(SUBSETS.iter().map(|name| {
                b.subsets.iter().find(|s| s.name == *name).map_or_else(
                    || "–".into(),
                    // A subset present without a score (no row scored): as the
                    // configuration's own table writes it.
                    |s| {
                        if s.score.is_nan() {
                            "n/a".into()
                        } else {
                            format!("{:.3}", s.score)
                        }
                    },
                )
            }));
            t.rows.push(row);
        }
        t.notes.push(
            "the leaderboard is the mean of the six subsets (n/a when one is missing); each configuration's table (--details) gives the subsets' intervals and chance".into(),
        );
        vec![t]
    }
}

/// The configurations (in the report's `order`) on their rows' pairs: the record's scopes,
/// which every analytic of the registry reads.
pub fn pairs_table(run: &Run, order: &[usize]) -> Table {
    let cl = level(1.0 - run.meta.alpha);
    let both = run.record.both_orders;
    let acc = format!("accuracy [{cl} CI]");
    let kappa = format!("κq [{cl} CI]");
    let mut headers = vec![
        "configuration",
        "pairs",
        "read",
        acc.as_str(),
        kappa.as_str(),
    ];
    if both {
        headers.push("both orders agree");
    }
    let mut t = Table::new(
        "On the rows' pairs: each row's correct completion against each other one",
        &headers,
    );
    t.numeric = true;
    let configs = order
        .iter()
        .filter_map(|&k| Some((run.record.configs.get(k)?, run.evaluation.configs.get(k)?)));
    for (c, result) in configs {
        let s: &Scope = &result.overall;
        let ci = |stat: Statistic| {
            let value = s.agreement.get(stat);
            match &s.agreement.intervals {
                Some(i) => with_ci(value, (i.get(stat).lo, i.get(stat).hi)),
                None => fixed(value),
            }
        };
        let mut row = if s.counts.examples == 0 {
            vec![
                c.name.clone(),
                "0".into(),
                "–".into(),
                "–".into(),
                "–".into(),
            ]
        } else {
            vec![
                c.name.clone(),
                s.counts.examples.to_string(),
                s.counts.rated.to_string(),
                ci(Statistic::Accuracy),
                ci(Statistic::KappaQuadratic),
            ]
        };
        if both {
            row.push(
                s.position
                    .as_ref()
                    .filter(|p| p.pairs_both_rated > 0)
                    .map_or_else(
                        || "–".into(),
                        |p| format!("{} of {}", fixed(p.consistency), p.pairs_both_rated),
                    ),
            );
        }
        t.rows.push(row);
    }
    t.notes.push("not reward-bench's score: a row outside Ties is right only when its correct completion wins against all of them (above); here each pair counts alone, its verdict (pairwise) or its two grades compared (ratings, scores, and every protocol's Ties rows; equal grades a tie)".into());
    // A run directory written before each pair's verdict was kept: its wins say which pairs
    // were won, not which way a lost one went.
    let unkept: Vec<&str> = run
        .rewardbench2()
        .configs
        .iter()
        .filter(|c| {
            c.outcomes
                .iter()
                .any(|o| !o.wins.is_empty() && o.verdicts.len() != o.wins.len())
        })
        .map(|c| c.name.as_str())
        .collect();
    if !unkept.is_empty() {
        t.notes.push(format!(
            "{}: this run directory was written before each pair's verdict was kept, so the pairs outside Ties are not counted; `raterlab calibrate` again with the same flags and --offline counts them from the cache",
            unkept.join(", ")
        ));
    }
    if run
        .rewardbench2()
        .configs
        .iter()
        .any(|c| c.protocol == crate::raters::rewardbench2::Protocol::Ranking)
    {
        t.notes.push("a four-way pick is one answer about four completions, not one about each pair (a right pick would count three times, a wrong one once): a ranking configuration's rows outside Ties are scored by their slot, not here (its pairs are its Ties rows')".into());
    }
    t
}
