//! What the evaluation finds for a set of items (`Scope`) and for a configuration
//! (`ConfigResult`), gathering every analytic's result.

use super::analytic::Findings;
use super::pointwise::PointwiseStats;
use super::position::Position;
use super::record::{Counts, Headline};
use crate::metrics::Agreement;
use std::collections::BTreeMap;

/// Headline metrics when items without a verdict are dropped (the notebook's silent rule),
/// counted as wrong, or counted as ties.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Policies {
    pub drop: Headline,
    pub as_wrong: Headline,
    pub as_tie: Headline,
}

/// Results for a set of items (overall, or one subset).
#[derive(Debug, Clone, PartialEq)]
pub struct Scope {
    pub counts: Counts,
    /// Share of items with a verdict.
    pub parse_rate: f64,
    /// Full statistics under the `drop` policy.
    pub agreement: Agreement,
    pub policies: Policies,
    /// With both orders.
    pub position: Option<Position>,
    /// Pointwise configurations: the grades' statistics.
    pub pointwise: Option<PointwiseStats>,
    /// reward-bench's published credit: the mean of 1 (right), 0 (wrong) and 0.5 (a tie, no
    /// verdict or a failed call), NaN for no items (`credit`).
    pub published: f64,
    /// The analytics' results for these items (`Analytic::scope`).
    pub findings: Findings,
}

/// One configuration's evaluation.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigResult {
    pub overall: Scope,
    pub by_subset: BTreeMap<String, Scope>,
    /// The analytics' groupings of the items (`Analytic::grouping`), each group a scope.
    pub grouped: Vec<Grouped>,
    /// reward-bench section scores (accuracy, items without a verdict counted wrong), for the
    /// sections whose subsets are all present, and the leaderboard score when all four are.
    pub sections: BTreeMap<&'static str, f64>,
    pub leaderboard: Option<f64>,
    /// The same under reward-bench's published credit (a tie, no verdict or a failed call is
    /// worth 0.5), as `scripts/run_generative.py` scores LLM judges.
    pub sections_published: BTreeMap<&'static str, f64>,
    pub leaderboard_published: Option<f64>,
    /// The analytics' results for this configuration (`Analytic::run`).
    pub findings: Findings,
}

/// One analytic's grouping, scored: its `Grouping`'s key and prefix, each group's scope.
#[derive(Debug, Clone, PartialEq)]
pub struct Grouped {
    pub key: &'static str,
    pub prefix: &'static str,
    pub scopes: Vec<(String, Scope)>,
}
