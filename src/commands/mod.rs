//! One module per subcommand: validate settings, then run the stages in order.

pub mod analyze;
pub mod batch;
pub mod cache;
pub mod calibrate;
pub mod data;
pub mod label;
pub mod plan;
pub mod rate;
pub mod report;
