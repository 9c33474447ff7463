//! What `calibrate` produced on RewardBench 2 rows: each configuration's leaderboard under
//! both missing-score rules (the chosen one first).

use crate::evaluation::rewardbench2::Board;

/// One configuration scored on RewardBench 2.
#[derive(Debug, Clone)]
pub struct Rb2Config {
    pub name: String,
    /// Under `--pointwise-missing`'s rule, then under the other.
    pub boards: [Board; 2],
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
