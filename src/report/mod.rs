//! Showing results: terminal tables, JSON and CSV exports. The only place that prints.

pub mod analyze;
pub mod annotators;
pub mod batch;
pub mod bias;
pub mod cache;
pub mod calibrate;
pub mod consistency;
pub mod csv;
pub mod data;
pub mod format;
pub mod groups;
pub mod html;
pub mod json;
pub mod latex;
pub mod lines;
pub mod plan;
pub mod plots;
pub mod progress;
pub mod prompts;
pub mod ranking;
pub mod ratings;
pub mod rewardbench2;
pub mod run_dir;
pub mod summary;
pub mod table;
