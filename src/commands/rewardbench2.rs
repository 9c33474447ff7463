//! `raterlab calibrate` on RewardBench 2 rows: a reward model's per-completion scores
//! (`--judge scores:FILE`) scored as reward-bench scores them, under both missing-score rules,
//! with bootstrap CIs. The protocols that call a judge (ranking, ratings, pairwise) are not
//! built yet.

use crate::cli::CalibrateArgs;
use crate::dataset::best_of::{ties_number, TIES};
use crate::error::input_error;
use crate::evaluation::rewardbench2::{board, Scored};
use crate::raters::Missing;
use crate::run::data::BestOfSet;
use crate::run::rewardbench2::{Rb2Config, Rb2Run};
use anyhow::Result;

pub fn run(args: &CalibrateArgs, set: BestOfSet) -> Result<Rb2Run> {
    let judge = args.plan.judge.judge.as_deref().unwrap_or("");
    let Some(path) = judge.strip_prefix("scores:") else {
        return Err(input_error(format!(
            "{} is RewardBench 2 data: only --judge scores:FILE (a reward model's per-completion scores: prompt, response, score) rates it so far; the ranking, ratings and pairwise protocols that call a judge are not built yet",
            set.source
        )));
    };
    let table = crate::dataset::scores::load(std::path::Path::new(path))?;
    let missing = Missing::parse(&args.plan.judge.pointwise_missing)?;
    let other = match missing {
        Missing::Drop => Missing::Lowest,
        Missing::Lowest => Missing::Drop,
    };
    let rows: Vec<Scored> = set
        .rows
        .iter()
        .map(|shown| {
            let row = &shown.row;
            let score = |text: &String| {
                table
                    .by_text
                    .get(&(row.prompt.clone(), text.clone()))
                    .or_else(|| table.by_text.get(&(String::new(), text.clone())))
                    .copied()
                    .flatten()
            };
            Scored {
                subset: row.subset.clone(),
                question: (row.subset == TIES)
                    .then(|| row.id.strip_prefix("Ties-").and_then(ties_number))
                    .flatten(),
                scores: row.completions.iter().map(score).collect(),
                correct: row.correct,
            }
        })
        .collect();
    let scored = rows
        .iter()
        .flat_map(|r| &r.scores)
        .filter(|s| s.is_some())
        .count();
    if scored == 0 {
        return Err(input_error(format!(
            "'{path}' scores none of the {} completions of {}: its prompt and response columns must hold the rows' prompts and completions as they are",
            rows.iter().map(|r| r.scores.len()).sum::<usize>(),
            set.source
        )));
    }
    let seed = set.seed;
    Ok(Rb2Run {
        rows: rows.len(),
        configs: vec![Rb2Config {
            name: judge.to_string(),
            boards: [
                board(&rows, missing, args.bootstrap, seed),
                board(&rows, other, args.bootstrap, seed),
            ],
        }],
        source: set.source,
        seed,
        bootstrap: args.bootstrap,
    })
}
