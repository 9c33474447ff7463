//! All agreement statistics of one contingency table.

use super::bootstrap::Intervals;
use super::rank::{spearman_rho, PairCounts};
use super::{kappa, kendall_tau_b, spearman, Contingency, Weights};

/// The statistics that get point estimates and bootstrap intervals, in report order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Statistic {
    Accuracy,
    Kappa,
    KappaLinear,
    KappaQuadratic,
    Spearman,
    KendallTauB,
    TieRateGold,
    TieRateRating,
}

impl Statistic {
    pub const ALL: [Statistic; 8] = [
        Statistic::Accuracy,
        Statistic::Kappa,
        Statistic::KappaLinear,
        Statistic::KappaQuadratic,
        Statistic::Spearman,
        Statistic::KendallTauB,
        Statistic::TieRateGold,
        Statistic::TieRateRating,
    ];

    /// The field name used in JSON and CSV output.
    pub fn key(self) -> &'static str {
        match self {
            Statistic::Accuracy => "accuracy",
            Statistic::Kappa => "kappa",
            Statistic::KappaLinear => "kappa_linear",
            Statistic::KappaQuadratic => "kappa_quadratic",
            Statistic::Spearman => "spearman",
            Statistic::KendallTauB => "kendall_tau_b",
            Statistic::TieRateGold => "tie_rate_gold",
            Statistic::TieRateRating => "tie_rate_rating",
        }
    }
}

/// Point estimates of every [`Statistic`], indexed like [`Statistic::ALL`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimates(pub [f64; 8]);

impl Estimates {
    /// Computes every statistic from a table, without p-values (cheap: O(k²)).
    pub fn of(table: &Contingency) -> Self {
        let n = table.n() as f64;
        let share = |count: u64| if n > 0.0 { count as f64 / n } else { f64::NAN };
        let tie_rate = |margins: Vec<u64>| match table.labels().tie_index() {
            Some(t) => share(margins[t]),
            None => f64::NAN,
        };
        Self([
            share(table.diagonal()),
            kappa(table, Weights::Unweighted),
            kappa(table, Weights::Linear),
            kappa(table, Weights::Quadratic),
            spearman_rho(table),
            PairCounts::from_table(table).tau_b(),
            tie_rate(table.gold_margins()),
            tie_rate(table.rating_margins()),
        ])
    }

    pub fn get(&self, statistic: Statistic) -> f64 {
        self.0[statistic as usize]
    }
}

/// Everything `analyze` reports for one set of aligned pairs.
#[derive(Debug, Clone, PartialEq)]
pub struct Agreement {
    pub n: u64,
    pub estimates: Estimates,
    pub spearman_p: f64,
    pub kendall_p: f64,
    pub confusion: Contingency,
    /// Percentile bootstrap intervals, when requested.
    pub intervals: Option<Intervals>,
}

impl Agreement {
    pub fn of(table: Contingency) -> Self {
        Self {
            n: table.n(),
            estimates: Estimates::of(&table),
            spearman_p: spearman(&table).p_value,
            kendall_p: kendall_tau_b(&table).p_value,
            confusion: table,
            intervals: None,
        }
    }

    /// With percentile-bootstrap intervals at `r.level` when `r.resamples` > 0.
    pub fn with_bootstrap(table: Contingency, r: super::Resampling) -> Self {
        let intervals =
            (r.resamples > 0).then(|| super::bootstrap_table(&table, r.resamples, r.seed, r.level));
        Self {
            intervals,
            ..Self::of(table)
        }
    }

    pub fn get(&self, statistic: Statistic) -> f64 {
        self.estimates.get(statistic)
    }
}
