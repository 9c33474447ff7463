//! `analyze`'s result: the record it read, its evaluation, what the reading left out, and the
//! answers of its own (the sequential comparison, the corrected estimate).

use crate::evaluation::{Evaluated, Evaluation, RunRecord};
use crate::metrics::Agreement;
use crate::run::ratings::{LongForm, Reading};

/// The result of one analysis.
#[derive(Debug, Clone)]
pub struct Analysis {
    pub source: String,
    pub bootstrap: usize,
    pub seed: u64,
    pub reading: Reading,
    /// Long form: how the annotations were read.
    pub long: Option<LongForm>,
    /// `--compare-col --sequential`: the rating column (A) against the compare column (B) as
    /// the items come, and the columns' names.
    pub sequential: Option<(crate::evaluation::sequential::Sequential, [String; 2])>,
    /// `--estimate`: the corrected estimates (and with --generators, the models ranked).
    pub estimate: Option<crate::evaluation::estimate::Estimate>,
    /// `--pac`: the rows to send to a human.
    pub pac: Option<crate::evaluation::pac::Pac>,
    /// The rows as `calibrate`'s record (a configuration per rating column) and its
    /// evaluation, which every figure comes from (the top-level ones: the first column's).
    pub record: RunRecord,
    pub evaluation: Evaluation,
}

impl Analysis {
    /// The evaluated record, as the sections render it (the best chosen on quadratic kappa).
    pub fn view(&self) -> Evaluated<'_> {
        Evaluated {
            record: &self.record,
            evaluation: &self.evaluation,
            sort: crate::metrics::Statistic::KappaQuadratic,
            max_tokens: vec![0; self.record.configs.len()],
        }
    }

    /// The first rating column's agreement over its labelled items.
    pub fn overall(&self) -> &Agreement {
        &self.evaluation.configs[0].overall.agreement
    }

    /// The first rating column's agreement per group (`--group-col`), by name.
    pub fn groups(&self) -> Vec<(&str, &Agreement)> {
        let groups = self.evaluation.configs[0].by_subset.iter();
        let rated = groups.filter(|(_, s)| s.agreement.n > 0);
        rated
            .map(|(name, s)| (name.as_str(), &s.agreement))
            .collect()
    }
}
