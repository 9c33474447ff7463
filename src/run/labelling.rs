//! What decides which items a human is asked (`plan --active`, `label --order`, `--queue`,
//! `--stop-at`), checked: the files to read and the settings of the rule.

use crate::dataset::frame::LabelReading;
use crate::evaluation::pac::PacSettings;
use std::path::PathBuf;

/// `plan --active`: the items with the judge's probability, the pilot with gold, the budget.
#[derive(Debug, Clone, PartialEq)]
pub struct ActiveRequest {
    pub input: PathBuf,
    /// The column of the judge's probability of label 1 (in the input and the pilot).
    pub probability: String,
    /// The expected share of items labelled, in (0, 1].
    pub budget: f64,
    pub pilot: PathBuf,
    pub gold_col: String,
    pub gold: LabelReading,
    pub id_col: Option<String>,
    /// The plan as a table `label --queue` reads (id, p, label_prob, drawn).
    pub out: Option<PathBuf>,
}

/// The judge's verdicts on the items, keyed by the data's ids (`label --judge`).
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeFile {
    pub path: PathBuf,
    pub id_col: String,
    /// The judge's label (-1, 0, 1 in the data's order; `--rating-map` reads other values).
    pub rating_col: String,
    pub rating: LabelReading,
    /// `--order pac`: the judge's uncertainty.
    pub uncertainty_col: Option<String>,
}

/// The order `label` asks in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order {
    /// Every item, in a seeded random order (a stop at any point leaves a uniform sample).
    #[default]
    Random,
    /// PAC labelling: a uniform first round, then the items at or above the threshold.
    Pac,
    /// Active labelling: the items `plan --active` drew (`--queue`), in a seeded order.
    Active,
}

impl std::str::FromStr for Order {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "random" => Ok(Order::Random),
            "pac" => Ok(Order::Pac),
            "active" => Ok(Order::Active),
            other => Err(format!("'{other}': use random, pac or active")),
        }
    }
}

impl Order {
    pub fn name(self) -> &'static str {
        match self {
            Order::Random => "random",
            Order::Pac => "pac",
            Order::Active => "active",
        }
    }
}

/// Which items `label` asks, in what order, and when it says enough.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Asks {
    pub order: Order,
    /// Only these items (a table with an `id` column: `analyze --pac-out`'s, or `plan
    /// --active --out`'s, whose `drawn`, `p` and `label_prob` columns active labelling reads).
    pub queue: Option<PathBuf>,
    pub judge: Option<JudgeFile>,
    /// `--order pac`: the first round's size and PAC's ε, α and bound.
    pub first_round: usize,
    pub pac: Option<PacSettings>,
    /// Say enough once the corrected estimate's interval is at most this wide.
    pub stop_at: Option<f64>,
    /// The label whose share the page estimates, and the interval's α.
    pub estimate_label: i64,
    pub alpha: f64,
}

impl Asks {
    /// Every item in the seeded order, nothing read beside the data and nothing shown.
    pub fn every_item(&self) -> bool {
        self.order == Order::Random
            && self.queue.is_none()
            && self.judge.is_none()
            && self.stop_at.is_none()
    }
}

/// `labels export` and `labels stats`.
#[derive(Debug, Clone, PartialEq)]
pub enum LabelsRequest {
    Export {
        store: std::path::PathBuf,
        format: crate::dataset::frame::Format,
        out: std::path::PathBuf,
        history: bool,
    },
    Stats {
        store: std::path::PathBuf,
        bootstrap: usize,
        alpha: f64,
        seed: u64,
    },
}
