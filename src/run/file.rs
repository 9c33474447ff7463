//! `run.json`, the description of a run directory, one serde type for every form: written by
//! `run::write::persist` after every run and read back by `report DIR` through the same type.
//! Fields are declared in alphabetical order, so the file reads as before the types existed.
//!
//! `schema` counts the file's versions: 1 (no field) was written before these types, and
//! `report DIR` still reads a pairs run of that version; 2 adds `schema` itself (a number)
//! and, for RewardBench 2, what `report DIR` needs to rebuild the run (`data.both_orders`,
//! each configuration's `floor` and `simulated`, and `order` in items.jsonl); 3 writes it as
//! every document does, `"raterlab/run/3"` (`docs/schema/run.json`), and the paired tests of a
//! RewardBench 2 run in their one shape; 4 is one shape for every form (`data.form`; a
//! RewardBench 2 configuration's protocol, floor and rule under `rows`, its jury as a pairs
//! run's; the figures of `calibrate --json` no longer copied in), `sort` only when given, and
//! the command line as its words on either form. Every version reads: a RewardBench 2 run.json
//! of versions 2 and 3 is read into version 4's shape.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A run directory that cannot be read back: what is missing or wrong, and how to make one.
pub fn bad_run(dir: &std::path::Path, what: impl std::fmt::Display) -> anyhow::Error {
    crate::error::input_error(format!("'{}' is not a complete raterlab run directory: {what}; run `raterlab calibrate` to make one", dir.display()))
}

/// The version this build writes.
pub const SCHEMA: u32 = 4;

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

/// A configuration of a run, of either form.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ConfigFile {
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
    /// On RewardBench 2 rows: its protocol, floor and rule for a missing score (version 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<RowsConfigFile>,
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

/// The data of a run: its form, source, seed and what became of its items.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DataFile {
    #[serde(default)]
    pub annotators: Option<AnnotatorsFile>,
    #[serde(default)]
    pub both_orders: bool,
    #[serde(default)]
    pub checksum_sha256: String,
    /// `pairs` or `rewardbench2` (absent before version 4: pairs, or a RewardBench 2 run's
    /// own shape).
    #[serde(default)]
    pub form: crate::run::record::Form,
    /// The record's items: pairs (on RewardBench 2 rows, each row's correct completion against
    /// each other one).
    #[serde(default)]
    pub items: usize,
    #[serde(default)]
    pub no_majority: usize,
    /// Items without a gold label (rated and kept, in no agreement measure); absent when 0,
    /// so run.json of a run over labelled data reads as before.
    #[serde(default, skip_serializing_if = "is_no_item")]
    pub unlabelled: usize,
    /// RewardBench 2's rows (none on pairs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<usize>,
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

/// run.json, of every form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunFile {
    /// `--alt-test`: its ε and options (absent without it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alt_test: Option<crate::evaluation::alt_test::AltTestSettings>,
    #[serde(default = "default_bootstrap")]
    pub bootstrap: usize,
    #[serde(default)]
    pub command: Vec<String>,
    pub configs: Vec<ConfigFile>,
    #[serde(default)]
    pub created_unix: u64,
    pub data: DataFile,
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
    /// `--sort` as given (absent: the form's own order; before version 4 a run over pairs
    /// wrote its default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort: Option<String>,
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

/// A RewardBench 2 configuration's own (`rows` of a configuration in run.json): how it
/// rated the rows, what a missing score counts as, and under which rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RowsConfigFile {
    /// The score a missing one counts as under `lowest`.
    pub floor: f64,
    /// `--pointwise-missing`'s rule: drop or lowest.
    pub missing: String,
    /// `ranking`, `ratings`, `pairwise` or `scores`.
    pub protocol: String,
}

/// run.json of a RewardBench 2 run of versions 2 and 3: the `calibrate --json` document with
/// the run's name, command line and time. Read only to become a [`RunFile`]
/// ([`Rb2RunFileV3::current`]); its figures, written as computed and never read, are left.
#[derive(Debug, Clone, Deserialize)]
struct Rb2RunFileV3 {
    #[serde(default = "default_alpha")]
    alpha: f64,
    bootstrap: usize,
    #[serde(default)]
    command: String,
    configs: Vec<Rb2ConfigV3>,
    #[serde(default)]
    created_unix: u64,
    data: Rb2DataV3,
    #[serde(default = "every_pair")]
    family: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    schema: Version,
    #[serde(default)]
    sort: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
struct Rb2ConfigV3 {
    #[serde(default)]
    calls: CostFile,
    #[serde(default)]
    floor: Option<f64>,
    #[serde(default)]
    jury: Option<String>,
    #[serde(default)]
    members: Vec<String>,
    missing: String,
    name: String,
    protocol: String,
    #[serde(default)]
    simulated: Option<bool>,
}

#[derive(Debug, Clone, Deserialize)]
struct Rb2DataV3 {
    #[serde(default)]
    both_orders: Option<bool>,
    rows: usize,
    seed: u64,
    source: String,
}

impl Rb2RunFileV3 {
    /// The same run as version 4 writes it: one type for every form. A floor version 1 did
    /// not keep stays absent (`report DIR` refuses that version, saying how to remake it).
    fn current(self) -> RunFile {
        let configs = self
            .configs
            .into_iter()
            .map(|c| ConfigFile {
                cost: c.calls,
                simulated: c.simulated.unwrap_or(false),
                jury: c.jury.map(|vote| JuryFile {
                    members: c.members,
                    vote,
                    weights: Vec::new(),
                    tie_margin: 0.0,
                }),
                rows: Some(RowsConfigFile {
                    floor: c
                        .floor
                        .unwrap_or(crate::evaluation::rewardbench2::FAILED_RATING),
                    missing: c.missing,
                    protocol: c.protocol,
                }),
                name: c.name,
                ..ConfigFile::default()
            })
            .collect();
        RunFile {
            bootstrap: self.bootstrap,
            // Version 3 kept the command line as one string, its words joined by spaces.
            command: self.command.split(' ').map(String::from).collect(),
            configs,
            created_unix: self.created_unix,
            data: DataFile {
                both_orders: self.data.both_orders.unwrap_or(false),
                form: crate::run::record::Form::RewardBench2,
                rows: Some(self.data.rows),
                seed: self.data.seed,
                source: self.data.source,
                ..DataFile::default()
            },
            estimate: None,
            alt_test: None,
            name: self.name,
            raterlab_version: String::new(),
            schema: self.schema,
            sequential: None,
            sort: self.sort,
            family: self.family,
            alpha: self.alpha,
        }
    }
}

impl RunFile {
    /// The form of the run's data.
    pub fn form(&self) -> crate::run::record::Form {
        self.data.form
    }

    /// A run over pairs (`plan --from` reads only those).
    pub fn over_pairs(&self) -> bool {
        self.form() == crate::run::record::Form::Pairs
    }

    /// Parses run.json's text, of any version: a RewardBench 2 run before version 4 had a
    /// shape of its own, read into this one.
    pub fn parse(text: &str) -> Result<Self, serde_json::Error> {
        let doc: Value = serde_json::from_str(text)?;
        let old =
            |v: &Value| serde_json::from_value::<Version>(v.clone()).map_or(true, |v| v.0 < 4);
        if doc["data"]["form"] == "rewardbench2" && old(&doc["schema"]) {
            Ok(serde_json::from_value::<Rb2RunFileV3>(doc)?.current())
        } else {
            serde_json::from_value(doc)
        }
    }

    /// The text written to run.json.
    pub fn text(&self) -> Result<String, serde_json::Error> {
        Ok(serde_json::to_string_pretty(self)? + "\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file written before the types (schema 1) reads, a RewardBench 2 file of version 3
    /// reads into the one shape, and what is written reads back the same.
    #[test]
    fn files_read_back_as_written() {
        let old = r#"{"bootstrap": 10, "command": ["raterlab"], "configs": [{"name": "a", "cost": {"calls": 3}}],
            "data": {"source": "s", "seed": 7}, "name": "n", "sort": "kappa"}"#;
        let f = RunFile::parse(old).expect("reads");
        assert_eq!(
            (f.schema.0, f.configs[0].cost.calls, f.data.seed, f.form()),
            (1, 3, 7, crate::run::record::Form::Pairs)
        );
        assert_eq!(f.sort.as_deref(), Some("kappa"));
        let again = RunFile::parse(&f.text().expect("writes"));
        assert_eq!(again.expect("reads"), f);
        let rb2 = r#"{"schema": "raterlab/run/3", "bootstrap": 0, "command": "raterlab calibrate --demo",
            "configs": [{"name": "x", "missing": "lowest", "protocol": "ranking", "floor": -3.0,
            "calls": {"calls": 4, "usd": 0.5}, "rewardbench2": {"score": 0.5}},
            {"name": "j", "missing": "lowest", "protocol": "ranking", "jury": "majority", "members": ["x"]}],
            "data": {"form": "rewardbench2", "rows": 2, "seed": 1, "source": "s", "both_orders": true}}"#;
        let f = RunFile::parse(rb2).expect("reads");
        assert_eq!(f.form(), crate::run::record::Form::RewardBench2);
        assert_eq!(f.command, ["raterlab", "calibrate", "--demo"]);
        assert_eq!((f.data.rows, f.data.both_orders), (Some(2), true));
        let rows = f.configs[0].rows.as_ref().expect("its own");
        assert_eq!(
            (rows.protocol.as_str(), rows.missing.as_str(), rows.floor),
            ("ranking", "lowest", -3.0)
        );
        assert_eq!(
            (f.configs[0].cost.calls, f.configs[0].cost.usd),
            (4, Some(0.5))
        );
        let jury = f.configs[1].jury.as_ref().expect("a jury");
        assert_eq!(
            (jury.vote.as_str(), jury.members.as_slice()),
            ("majority", &["x".to_string()][..])
        );
        // Written again, it is version 4's shape, and reads back the same.
        let mut current = f.clone();
        current.schema = Version(SCHEMA);
        let text = current.text().expect("writes");
        assert!(text.contains("\"form\": \"rewardbench2\""), "{text}");
        assert_eq!(RunFile::parse(&text).expect("reads"), current);
    }

    /// Version 2 wrote a bare number, versions 3 on write "raterlab/run/N": both read, and any
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
            "\"raterlab/run/4\""
        );
    }
}
