//! `run.json`, the description of a run directory, as one serde type per form: written by
//! `report::calibrate::run_dir` after every run and read back by `report DIR` through the same types.
//! Fields are declared in alphabetical order, so the file reads as before the types existed.
//!
//! `schema` counts the file's versions: 1 (no field) was written before these types, and
//! `report DIR` still reads a pairs run of that version; 2 adds `schema` itself (a number)
//! and, for RewardBench 2, what `report DIR` needs to rebuild the run (`data.both_orders`,
//! each configuration's `floor` and `simulated`, and `order` in items.jsonl); 3 writes it as
//! every document does, `"raterlab/run/3"` (`docs/schema/run.json`), and the paired tests of a
//! RewardBench 2 run in their one shape. Every version reads.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The version this build writes.
pub const SCHEMA: u32 = 3;

/// The first version that keeps what `report DIR` needs of a RewardBench 2 run.
pub const RB2_READABLE: u32 = 2;

/// run.json's version: written `"raterlab/run/<N>"`, read from that or from the bare number
/// versions 2 wrote (1 wrote none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version(pub u32);

impl Default for Version {
    fn default() -> Self {
        Version(1)
    }
}

impl Serialize for Version {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{}/{}", crate::run::schema::RUN, self.0))
    }
}

impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Either {
            Number(u32),
            Text(String),
        }
        match Either::deserialize(d)? {
            Either::Number(n) => Ok(Version(n)),
            Either::Text(t) => crate::run::schema::version_of(&t)
                .filter(|_| t.starts_with(crate::run::schema::RUN))
                .map(Version)
                .ok_or_else(|| {
                    serde::de::Error::custom(format!(
                        "schema '{t}' is not a run.json version (raterlab/run/N)"
                    ))
                }),
        }
    }
}

/// What a configuration's calls cost (`cost` of a pairs run, `calls` of a RewardBench 2 run,
/// which has no wall time).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct CostFile {
    #[serde(default)]
    pub cache_hits: u64,
    #[serde(default)]
    pub calls: u64,
    #[serde(default)]
    pub tokens_in: u64,
    #[serde(default)]
    pub tokens_out: u64,
    /// Of `tokens_out`, the thinking's (absent when none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub tokens_reasoning: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_seconds: Option<f64>,
    /// Requests behind the answers and their latencies added up (absent from runs made before
    /// they were counted), and dollars with a price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_seconds: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usd: Option<f64>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_no_item(n: &usize) -> bool {
    *n == 0
}

impl From<crate::evaluation::Cost> for CostFile {
    fn from(c: crate::evaluation::Cost) -> Self {
        Self {
            cache_hits: c.cache_hits,
            calls: c.calls,
            tokens_in: c.tokens_in,
            tokens_out: c.tokens_out,
            tokens_reasoning: c.tokens_reasoning,
            wall_seconds: Some(c.wall_seconds),
            requests: c.requests,
            request_seconds: c.request_seconds,
            usd: c.usd,
        }
    }
}

impl From<CostFile> for crate::evaluation::Cost {
    fn from(c: CostFile) -> Self {
        Self {
            calls: c.calls,
            cache_hits: c.cache_hits,
            tokens_in: c.tokens_in,
            tokens_out: c.tokens_out,
            tokens_reasoning: c.tokens_reasoning,
            wall_seconds: c.wall_seconds.unwrap_or(0.0),
            requests: c.requests,
            request_seconds: c.request_seconds,
            usd: c.usd,
        }
    }
}

/// A pointwise configuration's rules.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointwiseFile {
    #[serde(default)]
    pub lowest: Option<f64>,
    #[serde(default)]
    pub order_blind: bool,
    #[serde(default)]
    pub tie_margin: f64,
}

/// A configuration of a run over pairs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairsConfigFile {
    #[serde(default)]
    pub cost: CostFile,
    #[serde(default)]
    pub judge: String,
    #[serde(default)]
    pub max_tokens: u32,
    #[serde(default)]
    pub model: String,
    pub name: String,
    #[serde(default)]
    pub parser: String,
    #[serde(default)]
    pub pointwise: Option<PointwiseFile>,
    /// The model's price, when one was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<crate::judge::Price>,
    /// Where the configuration's probabilities come from (`logprobs`, `votes`, `scores`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probability: Option<String>,
    #[serde(default)]
    pub prompt: String,
    #[serde(default)]
    pub rater: String,
    #[serde(default)]
    pub simulated: bool,
    #[serde(default)]
    pub system: Option<String>,
    #[serde(default)]
    pub temperature: f64,
    #[serde(default)]
    pub template: String,
    /// A jury: its members (configurations of this run, by name) and vote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jury: Option<JuryFile>,
}

/// A jury of a run over pairs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JuryFile {
    pub members: Vec<String>,
    pub vote: String,
    pub weights: Vec<f64>,
    #[serde(default)]
    pub tie_margin: f64,
}

/// The annotators of a run's data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnnotatorsFile {
    pub names: Vec<String>,
    #[serde(default)]
    pub policy: String,
}

/// The data of a run over pairs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairsDataFile {
    #[serde(default)]
    pub annotators: Option<AnnotatorsFile>,
    #[serde(default)]
    pub both_orders: bool,
    #[serde(default)]
    pub checksum_sha256: String,
    #[serde(default)]
    pub items: usize,
    #[serde(default)]
    pub no_majority: usize,
    /// Items without a gold label (rated and kept, in no agreement measure); absent when 0,
    /// so run.json of a run over labelled data reads as before.
    #[serde(default, skip_serializing_if = "is_no_item")]
    pub unlabelled: usize,
    #[serde(default)]
    pub seed: u64,
    #[serde(default)]
    pub source: String,
    /// Conversations left out under `--unshared skip`, by id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unshared: Vec<String>,
    /// `--reference`: the model scores the system level compares rankings with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<ReferenceFile>,
}

/// A reference table as run.json keeps it (`report DIR` compares with it again), or the gold
/// labels' ranking (`gold`: no scores).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReferenceFile {
    pub source: String,
    #[serde(default)]
    pub gold: bool,
    #[serde(default)]
    pub scores: Vec<(String, f64)>,
}

/// run.json of a run over pairs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairsRunFile {
    #[serde(default = "default_bootstrap")]
    pub bootstrap: usize,
    #[serde(default)]
    pub command: Vec<String>,
    pub configs: Vec<PairsConfigFile>,
    #[serde(default)]
    pub created_unix: u64,
    pub data: PairsDataFile,
    /// `--estimate`: the label and α of the corrected estimates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<crate::evaluation::estimate::EstimateSettings>,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub raterlab_version: String,
    #[serde(default)]
    pub schema: Version,
    /// `--sequential`: the items' order and where the race ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequential: Option<Box<crate::run::record::SequentialRun>>,
    #[serde(default)]
    pub sort: String,
    /// Which comparisons get a verdict (a run made before `--family` judged every pair).
    #[serde(default = "every_pair")]
    pub family: String,
    /// `--alpha` (a run made before it was read at 0.05).
    #[serde(default = "default_alpha")]
    pub alpha: f64,
}

fn default_alpha() -> f64 {
    crate::evaluation::paired::ALPHA
}

fn every_pair() -> String {
    "all".into()
}

fn default_bootstrap() -> usize {
    1000
}

/// A configuration of a RewardBench 2 run: what `report DIR` reads back, and the figures of
/// `calibrate --json` beside them (its leaderboards and analytics, written as computed and
/// never read).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rb2ConfigFile {
    #[serde(default)]
    pub calls: CostFile,
    /// The score a missing one counts as under `lowest` (schema 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub floor: Option<f64>,
    #[serde(default)]
    pub grades: Value,
    /// A jury: its vote's key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jury: Option<String>,
    /// A jury's members, by name (a run written before they were kept has none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<String>,
    /// `--pointwise-missing`'s rule: drop or lowest.
    pub missing: String,
    pub name: String,
    pub protocol: String,
    #[serde(default)]
    pub read: Value,
    #[serde(default)]
    pub readers_disagree: Option<usize>,
    #[serde(default)]
    pub rewardbench2: Value,
    #[serde(default)]
    pub rewardbench2_other_missing_rule: Value,
    /// The judge is the simulated one (schema 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simulated: Option<bool>,
    #[serde(default)]
    pub slots: Value,
}

/// The data of a RewardBench 2 run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rb2DataFile {
    /// Pairwise configurations saw each pair in both orders (schema 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub both_orders: Option<bool>,
    pub form: String,
    pub rows: usize,
    pub seed: u64,
    pub source: String,
}

/// run.json of a RewardBench 2 run: the `calibrate --json` document, its name, command line
/// and time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rb2RunFile {
    /// `--alpha` (a run made before it was written was read at 0.05).
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    #[serde(default)]
    pub best_group: Vec<String>,
    pub bootstrap: usize,
    #[serde(default)]
    pub command: String,
    #[serde(default)]
    pub comparisons: Vec<Value>,
    pub configs: Vec<Rb2ConfigFile>,
    #[serde(default)]
    pub created_unix: u64,
    pub data: Rb2DataFile,
    /// Which comparisons get a verdict (a run made before RewardBench 2 read `--family` judged
    /// every pair).
    #[serde(default = "every_pair")]
    pub family: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub schema: Version,
    /// `--sort accuracy`: the configurations shown by their leaderboard.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort: Option<String>,
}

/// The form a run.json describes, told by `data.form`.
#[derive(Debug, Clone, PartialEq)]
pub enum RunFile {
    Pairs(PairsRunFile),
    RewardBench2(Rb2RunFile),
}

impl RunFile {
    /// The run over pairs, for a command that reads only those (`plan --from`).
    pub fn into_pairs(self) -> Option<PairsRunFile> {
        match self {
            RunFile::Pairs(file) => Some(file),
            RunFile::RewardBench2(_) => None,
        }
    }

    /// The run's `--alpha`, whichever the form.
    pub fn alpha(&self) -> f64 {
        match self {
            RunFile::Pairs(file) => file.alpha,
            RunFile::RewardBench2(file) => file.alpha,
        }
    }

    /// Parses run.json's text.
    pub fn parse(text: &str) -> Result<Self, serde_json::Error> {
        let doc: Value = serde_json::from_str(text)?;
        if doc["data"]["form"] == "rewardbench2" {
            Ok(RunFile::RewardBench2(serde_json::from_value(doc)?))
        } else {
            Ok(RunFile::Pairs(serde_json::from_value(doc)?))
        }
    }

    /// The text written to run.json.
    pub fn text(&self) -> Result<String, serde_json::Error> {
        let text = match self {
            RunFile::Pairs(f) => serde_json::to_string_pretty(f)?,
            RunFile::RewardBench2(f) => serde_json::to_string_pretty(f)?,
        };
        Ok(text + "\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file written before the types (schema 1) reads, and what is written reads back the
    /// same.
    #[test]
    fn files_read_back_as_written() {
        let old = r#"{"bootstrap": 10, "command": ["raterlab"], "configs": [{"name": "a", "cost": {"calls": 3}}],
            "data": {"source": "s", "seed": 7}, "name": "n"}"#;
        let RunFile::Pairs(f) = RunFile::parse(old).expect("reads") else {
            panic!("a pairs run");
        };
        assert_eq!(
            (f.schema.0, f.configs[0].cost.calls, f.data.seed),
            (1, 3, 7)
        );
        let again = RunFile::parse(&RunFile::Pairs(f.clone()).text().expect("writes"));
        assert_eq!(again.expect("reads"), RunFile::Pairs(f));
        let rb2 = r#"{"bootstrap": 0, "configs": [{"name": "x", "missing": "drop", "protocol": "ranking",
            "rewardbench2": {"score": 0.5}}], "data": {"form": "rewardbench2", "rows": 2, "seed": 1, "source": "s"}}"#;
        let RunFile::RewardBench2(f) = RunFile::parse(rb2).expect("reads") else {
            panic!("a RewardBench 2 run");
        };
        assert_eq!(f.configs[0].rewardbench2["score"], 0.5);
        assert_eq!(f.configs[0].floor, None);
        let again = RunFile::parse(&RunFile::RewardBench2(f.clone()).text().expect("writes"));
        assert_eq!(again.expect("reads"), RunFile::RewardBench2(f));
    }

    /// Version 2 wrote a bare number, version 3 writes "raterlab/run/3": both read, and any
    /// other text is refused, saying what a version looks like.
    #[test]
    fn every_version_reads_and_the_current_one_is_written_as_text() {
        let read = |v: &str| serde_json::from_str::<Version>(v);
        assert_eq!(read("2").expect("a number"), Version(2));
        assert_eq!(read("\"raterlab/run/3\"").expect("a text"), Version(3));
        let wrong = read("\"raterlab/analyze/2\"").expect_err("another document");
        assert!(wrong.to_string().contains("raterlab/run/N"), "{wrong}");
        assert_eq!(
            serde_json::to_string(&Version(SCHEMA)).expect("writes"),
            "\"raterlab/run/3\""
        );
    }
}
