//! The versions of the documents raterlab writes: every `--json` document and run.json carries
//! `schema: "raterlab/<name>/<N>"`, and `docs/schema/<name>.json` (JSON Schema, Draft 2020-12)
//! validates it. A change that removes or moves a key, or changes a value's type or meaning,
//! bumps N and is named in CHANGELOG.md with its migration; a new key is no break.

/// `calibrate --json` and `report DIR --json` on pairs. 2: every paired test in one shape
/// (`evaluation::paired::PairedTest`).
pub const CALIBRATE: &str = "raterlab/calibrate/2";
/// `calibrate --json` and `report DIR --json` on RewardBench 2 rows. 2: the paired tests'
/// shape (`metric` for `statistic`).
pub const CALIBRATE_REWARDBENCH2: &str = "raterlab/calibrate-rewardbench2/2";
/// `analyze --json`. 2: the paired tests' shape; `systems` and `evaluator` under `configs[0]`.
pub const ANALYZE: &str = "raterlab/analyze/2";
/// `plan --json`.
pub const PLAN: &str = "raterlab/plan/1";
/// `cache stats --json`.
pub const CACHE_STATS: &str = "raterlab/cache-stats/1";
/// run.json, of either form (`run::file::SCHEMA` is its N).
pub const RUN: &str = "raterlab/run";

/// The N of a `raterlab/<name>/<N>` text.
pub fn version_of(text: &str) -> Option<u32> {
    text.strip_prefix("raterlab/")?
        .rsplit('/')
        .next()?
        .parse()
        .ok()
}
