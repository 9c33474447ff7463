//! What a command runs and what it produced, below both `commands/` (which makes it) and
//! `report/` (which renders it): the options checked into settings (`data`, `judges`), a
//! calibrate run's plan of calls (`plan`) and its record (`record`), a run directory read back
//! (`file` its run.json, `read` the rest, `lines` its JSONL files) and
//! written (`write`), every form's by the one reader and writer, the
//! settings and result of `analyze` (`analysis`), the answer log a calibrate run writes as it
//! rates (`answers`), what the batch commands did (`batch`) and the
//! cache commands (`cache`).

pub mod active;
pub mod analysis;
pub mod answers;
pub mod asks;
pub mod batch;
pub mod cache;
pub mod data;
pub mod estimate;
pub mod evaluated;
pub mod file;
pub mod forms;
pub mod gold;
pub mod judges;
pub mod jury;
pub mod labelling;
pub mod lines;
pub mod pac;
pub mod plan;
pub mod ratings;
pub mod read;
pub mod record;
pub mod schema;
pub mod settings;
pub mod write;

/// The command as typed, with the program named `raterlab` rather than by its full path.
pub fn command_line() -> Vec<String> {
    std::env::args()
        .enumerate()
        .map(|(i, a)| if i == 0 { "raterlab".to_string() } else { a })
        .collect()
}
