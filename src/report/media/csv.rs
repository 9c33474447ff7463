//! Tidy CSV export: one row per (scope, metric).

use crate::metrics::{Agreement, Statistic};
use anyhow::Result;
use polars::prelude::*;
use std::path::Path;

/// Tidy rows of agreement results, built scope by scope.
#[derive(Debug, Default)]
pub struct TidyRows {
    config: Vec<String>,
    scope: Vec<String>,
    n: Vec<u64>,
    metric: Vec<String>,
    value: Vec<Option<f64>>,
    ci_lo: Vec<Option<f64>>,
    ci_hi: Vec<Option<f64>>,
    current: Option<String>,
}

fn defined(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

impl TidyRows {
    /// Rows that follow are labelled with this configuration (calibrate's metrics.csv).
    pub fn set_config(&mut self, config: &str) {
        self.current = Some(config.to_string());
    }

    /// One row.
    pub fn push(&mut self, scope: &str, n: u64, metric: &str, value: f64, ci: Option<(f64, f64)>) {
        self.config.push(self.current.clone().unwrap_or_default());
        self.scope.push(scope.to_string());
        self.n.push(n);
        self.metric.push(metric.to_string());
        self.value.push(defined(value));
        self.ci_lo.push(ci.and_then(|c| defined(c.0)));
        self.ci_hi.push(ci.and_then(|c| defined(c.1)));
    }

    /// Adds every statistic and p-value of one scope.
    pub fn add(&mut self, scope: &str, a: &Agreement) {
        for statistic in Statistic::ALL {
            let ci = a.intervals.as_ref().map(|i| {
                let b = i.get(statistic);
                (b.lo, b.hi)
            });
            self.push(scope, a.n, statistic.key(), a.get(statistic), ci);
            match statistic {
                Statistic::Spearman => self.push(scope, a.n, "spearman_p", a.spearman_p, None),
                Statistic::KendallTauB => self.push(scope, a.n, "kendall_p", a.kendall_p, None),
                _ => {}
            }
        }
    }

    pub fn write(self, path: &Path) -> Result<()> {
        let mut columns = Vec::new();
        if self.current.is_some() {
            columns.push(Column::new("config".into(), self.config));
        }
        columns.extend([
            Column::new("scope".into(), self.scope),
            Column::new("n".into(), self.n),
            Column::new("metric".into(), self.metric),
            Column::new("value".into(), self.value),
            Column::new("ci_lo".into(), self.ci_lo),
            Column::new("ci_hi".into(), self.ci_hi),
        ]);
        write_csv(DataFrame::new_infer_height(columns)?, path)
    }
}

/// Writes a frame as CSV, atomically.
pub fn write_csv(df: DataFrame, path: &Path) -> Result<()> {
    crate::dataset::frame::write(df, path)
}
