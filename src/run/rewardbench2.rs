//! What `calibrate` produced on RewardBench 2 rows: each configuration's leaderboard under
//! both missing-score rules (the chosen one first), its calls and its rows' outcomes.

use crate::evaluation::rewardbench2::Board;
use crate::raters::best_of::RowOutcome;
use crate::raters::CallTally;

/// One configuration scored on RewardBench 2.
#[derive(Debug, Clone)]
pub struct Rb2Config {
    pub name: String,
    /// `scores`, `ranking`, `ratings` or `pairwise`.
    pub protocol: String,
    /// Under `--pointwise-missing`'s rule, then under the other.
    pub boards: [Board; 2],
    /// Its calls (Ties' ratings included): cost and failures.
    pub tally: CallTally,
    /// Ranking: the rows outside Ties whose pick the other reader reads differently.
    pub readers_disagree: Option<usize>,
    /// Per row (the set's order): what the judge made of it; empty for scores.
    pub outcomes: Vec<RowOutcome>,
}

/// A RewardBench 2 run.
#[derive(Debug, Clone)]
pub struct Rb2Run {
    pub source: String,
    pub seed: u64,
    pub bootstrap: usize,
    pub rows: usize,
    pub configs: Vec<Rb2Config>,
}
