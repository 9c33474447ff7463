//! Which paired comparisons get a verdict (`--family`).

/// Which pairs get a verdict (`--family`). Holm's adjustment counts every pair either way:
/// the best is chosen from the data the tests use, so its pairs are a data-chosen subset of
/// all k(k − 1)/2, and only the whole family keeps the family-wise error at α.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// The best judged configuration on the sort metric against each other one, baselines
    /// included, and each jury against its members; the other pairs keep their unadjusted
    /// test and interval, with no verdict.
    #[default]
    Best,
    /// Every pair gets a verdict.
    All,
}

impl Family {
    pub const NAMES: [&'static str; 2] = ["best", "all"];

    pub fn key(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// Whether the pair (a, b) gets a verdict: under `Best`, when it holds the best or is a
    /// jury and one of its members (`jury_pair`); under `All`, always. Every form's
    /// comparisons ask here (pairs' `compare::compare_all`, RewardBench 2's `score`).
    pub fn judges(
        self,
        best: Option<usize>,
        jury_pair: impl Fn(usize, usize) -> bool,
        (a, b): (usize, usize),
    ) -> bool {
        match self {
            Family::All => true,
            Family::Best => best.is_some_and(|k| a == k || b == k) || jury_pair(a, b),
        }
    }
}

impl std::str::FromStr for Family {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "best" => Ok(Family::Best),
            "all" => Ok(Family::All),
            _ => Err(format!(
                "unknown family '{s}'; families are {} (best: the best configuration against each other one; all: every pair)",
                Self::NAMES.join(", ")
            )),
        }
    }
}
