//! Everything a person or a paper sees, and the only place that prints. Sorted by command:
//! one file per command's output (`analyze`, `batch`, `cache`, `data`, `plan`, `prompts`,
//! `rate`), and a room for `calibrate`'s and `report DIR`'s (`calibrate/`: its sections,
//! forms, page and run directory); the annotator panel, which `analyze`, `data summary` and
//! `calibrate` all show, AlpacaEval's evaluator measures and the corrected estimates (`estimate`; `analyze`, `calibrate`), beside them. `media/` is the floor they stand on: how things are
//! written (numbers, text tables, JSON, CSV, HTML pages, progress bars, JSONL lines), using
//! nothing above it.

pub mod alt_test;
pub mod analyze;
pub mod annotators;
pub mod batch;
pub mod cache;
pub mod calibrate;
pub mod data;
pub mod estimate;
pub mod evaluator;
pub mod label;
pub mod media;
pub mod plan;
pub mod prompts;
pub mod rate;
pub mod scale;
pub mod sequential;
