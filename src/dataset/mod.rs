//! Loading: files on disk → validated, typed data.
//!
//! The only home of polars on the input side. Every error names the file, the column and the
//! row, and says how to fix it.
//!
//! - `frame`: CSV/Parquet/JSONL reading and typed columns;
//! - `labels`: aligned (gold, rating) lists for `analyze`;
//! - `long`: several annotations per item in long form (rows repeating a key);
//! - `pairs`: preference pairs (reward-bench and mapped generic files);
//! - `best_of`: RewardBench 2's rows (several completions, some correct) in seeded orders;
//! - `select`: subsets, sections, seeded stratified sampling;
//! - `examples`: seeded positions, golden labels, both orders;
//! - `hub`: downloading reward-bench splits into the cache;
//! - `source`: `--data` (sample, split names, files, `--map`);
//! - `sections`: reward-bench's section table and leaderboard weighting.

pub mod alpacaeval;
pub mod columns;
pub mod conversation;
pub mod conversation_file;
pub mod examples;
pub mod export;
pub mod frame;
pub mod hub;
pub mod labels;
pub mod long;
pub mod mapped;
pub mod pairs;
pub mod reference;
pub mod rewardbench2;
pub mod rmbench;
pub mod scores;
pub mod sections;
pub mod select;
pub mod source;
