//! One module per subcommand: validate settings, then run the stages in order.

pub mod active;
pub mod analyze;
pub mod asks;
pub mod batch;
pub mod cache;
pub mod calibrate;
pub mod data;
pub mod estimate;
pub mod label;
pub mod out;
pub mod pac;
pub mod plan;
pub mod rate;
pub mod report;
