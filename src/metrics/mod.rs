//! Agreement statistics between two aligned label lists.
//!
//! Pure code: plain slices in, numbers out. No I/O, no DataFrames, no printing.
//! Discrete labels go through a k×k contingency table built once in O(n); every statistic
//! and every bootstrap resample is derived from that table. `general` keeps the sort-based
//! path for non-integer scores.

pub mod active;
mod agreement;
mod align;
pub mod alt_test;
mod bootstrap;
pub mod bradley_terry;
pub mod calibration;
pub mod confseq;
mod contingency;
pub mod general;
mod kappa;
pub mod pac;
pub mod paired;
pub mod power;
pub mod ppi;
pub mod ppr;
pub mod pvalue;
pub mod random;
mod rank;
pub mod raters;
pub mod scale;

pub use agreement::{Agreement, Estimates, Statistic};
pub use align::{align, Aligned};
pub use bootstrap::{
    bootstrap_table, interval, interval_defined, multinomial, percentile, redraws, Interval,
    Intervals, Resampling,
};
pub use contingency::{Contingency, LabelError, Labels, Side, PAIRWISE};
pub use kappa::{kappa, Weights};
pub use rank::{kendall_tau_b, spearman, Correlation};
