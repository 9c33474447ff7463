//! What `calibrate` produced on RewardBench 2 rows: each configuration's leaderboard under
//! both missing-score rules (the chosen one first), its calls and its rows' outcomes.

use crate::dataset::rewardbench2::Shown;
use crate::evaluation::rewardbench2::analytics::{Grades, Paired, Slots};
use crate::evaluation::rewardbench2::{Board, Scored};
use crate::raters::rewardbench2::{Protocol, RowOutcome};
use crate::raters::CallTally;

/// What one configuration made of the rows, before they are scored: `calibrate` rates them,
/// `report DIR` reads them back.
#[derive(Debug, Clone)]
pub struct Rb2Made {
    pub name: String,
    pub protocol: Protocol,
    /// The judge is the simulated one.
    pub simulated: bool,
    /// The score a missing one counts as under `lowest`.
    pub floor: f64,
    /// Its calls (Ties' ratings included): cost and failures.
    pub tally: CallTally,
    /// Per row (the set's order): its pick, grades, pairs won and answers.
    pub outcomes: Vec<RowOutcome>,
}

/// One configuration scored on RewardBench 2.
#[derive(Debug, Clone)]
pub struct Rb2Config {
    pub name: String,
    /// The judge is the simulated one.
    pub simulated: bool,
    pub protocol: Protocol,
    /// Under `--pointwise-missing`'s rule, then under the other.
    pub boards: [Board; 2],
    /// Its calls (Ties' ratings included): cost and failures.
    pub tally: CallTally,
    /// Ranking: the rows outside Ties whose pick the other reader reads differently.
    pub readers_disagree: Option<usize>,
    /// Per row (the set's order): what the judge made of it; empty for scores.
    pub outcomes: Vec<RowOutcome>,
    /// Per row: its scores (or decided result) as scored.
    pub scored: Vec<Scored>,
    /// Each row's result under the chosen rule (None: Ties, or left out).
    pub results: Vec<Option<f64>>,
    /// Picks and accuracy by the correct completion's slot.
    pub slots: Slots,
    /// Ratings and scores: forced ties and AUC.
    pub grades: Option<Grades>,
}

/// A RewardBench 2 run.
#[derive(Debug, Clone)]
pub struct Rb2Run {
    pub source: String,
    pub seed: u64,
    pub bootstrap: usize,
    pub rows: usize,
    pub configs: Vec<Rb2Config>,
    /// The rows as shown (completions in their slots).
    pub shown: Vec<Shown>,
    /// Every pair of configurations, paired bootstrap, Holm-adjusted.
    pub comparisons: Vec<Paired>,
    /// The configurations no comparison finds worse than the best, the best first.
    pub group: Vec<usize>,
    /// Pairwise configurations saw each pair in both orders.
    pub both_orders: bool,
    /// The run directory, once written; its name and the command line.
    pub dir: Option<std::path::PathBuf>,
    pub name: String,
    pub command: String,
    pub created_unix: u64,
    /// The judges' response caches.
    pub caches: Vec<std::sync::Arc<crate::judge::cache::Cache>>,
}
