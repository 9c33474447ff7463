//! `--data`: the bundled sample, a reward-bench split by name, or a file (reward-bench schema,
//! or any pairwise file with a `--map` column mapping).

use super::frame::{self, Frame};
use super::hub::{self, HubFile, Progress};
pub use super::mapped::{Mapping, DEFAULT_SUBSET};
use super::pairs::{self, Pair};
use super::rewardbench2::{self, Rb2Row};
use crate::error::input_error;
use anyhow::Result;
use std::path::{Path, PathBuf};

/// The bundled sample (data/sample.parquet), embedded in the binary.
pub const SAMPLE: &[u8] = include_bytes!("../../data/sample.parquet");
/// The bundled sample in RewardBench 2's shape (data/sample-v2.parquet).
pub const SAMPLE_V2: &[u8] = include_bytes!("../../data/sample-v2.parquet");

/// Where the pairs come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DataSpec {
    Sample,
    /// The bundled RewardBench 2 sample.
    SampleV2,
    /// A split on the Hub: reward-bench's `filtered` or `raw`, or RewardBench 2's.
    Split(HubFile),
    File(PathBuf),
}

impl DataSpec {
    pub fn parse(text: &str) -> Self {
        match text {
            "sample" => DataSpec::Sample,
            "sample-v2" => DataSpec::SampleV2,
            _ => match HubFile::named(text) {
                Some(hub) => DataSpec::Split(hub),
                None => DataSpec::File(PathBuf::from(text)),
            },
        }
    }

    pub fn describe(&self) -> String {
        match self {
            DataSpec::Sample => "sample (bundled)".to_string(),
            DataSpec::SampleV2 => "sample-v2 (bundled, RewardBench 2's shape)".to_string(),
            DataSpec::Split(h) if h.repo == "allenai/reward-bench" => {
                format!("reward-bench {}", h.split)
            }
            DataSpec::Split(h) => format!("{} {}", h.repo, h.split),
            DataSpec::File(p) => p.display().to_string(),
        }
    }
}

/// Pairs and what loading had to leave out.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub pairs: Vec<Pair>,
    /// RewardBench 2's rows, when the data is in that form (then `pairs` is empty).
    pub rewardbench2: Option<Vec<Rb2Row>>,
    /// RM-Bench's prompts, when the data is in that form (then `pairs` is empty: they become
    /// nine pairs each once selected).
    pub rmbench: Option<Vec<super::rmbench::RmPrompt>>,
    /// Rows whose annotators had no majority (multi-annotator labels only).
    pub no_majority: usize,
    /// The label columns when the label is the majority of several annotators.
    pub annotators: Vec<String>,
    pub source: String,
    /// Conversations left out under `--unshared skip`, by id.
    pub unshared: Vec<String>,
}

/// The local copy of a Hub split: the Hugging Face cache, then raterlab's own cache, else a
/// download into raterlab's cache.
pub fn find_split(hub: &HubFile, progress: &dyn Progress) -> Result<PathBuf> {
    let file = hub.file;
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let hf_home = std::env::var_os("HF_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| home.join(".cache").join("huggingface"));
    let snapshots = hf_home
        .join("hub")
        .join(hub.hf_cache_name())
        .join("snapshots");
    if let Ok(entries) = std::fs::read_dir(&snapshots) {
        let mut candidates: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.path().join("data").join(file))
            .filter(|p| p.is_file())
            .collect();
        candidates.sort();
        if let Some(found) = candidates.pop() {
            return Ok(found);
        }
    }
    let own = cache_dir().join(hub.folder).join(file);
    if !own.is_file() {
        hub::fetch_split(hub, &own, progress)?;
    }
    Ok(own)
}

/// raterlab's cache folder: `$RATERLAB_CACHE`, else `~/.cache/raterlab`.
pub fn cache_dir() -> PathBuf {
    std::env::var_os("RATERLAB_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .unwrap_or_default()
                .join(".cache")
                .join("raterlab")
        })
}

/// AlpacaEval's annotations (a JSON array with instruction, output_1, output_2) as pairs in the
/// order its judge saw them; `None` for any other JSON file.
fn alpacaeval_pairs(path: &Path) -> Result<Option<(Vec<Pair>, String)>> {
    if !super::alpacaeval::file_looks_like(path) {
        return Ok(None);
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| input_error(format!("cannot read '{}': {e}", path.display())))?;
    let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) else {
        // Not JSON at all: the frame reader says where.
        return Ok(None);
    };
    if !super::alpacaeval::looks_like(&value) {
        return Ok(None);
    }
    let annotations = super::alpacaeval::read(path, &value)?;
    let mut models: Vec<&str> = annotations.iter().map(|a| a.generator_2.as_str()).collect();
    models.sort_unstable();
    models.dedup();
    let evaluated = models.join(", ");
    Ok(Some((super::alpacaeval::pairs(annotations), evaluated)))
}

fn has_reward_bench_columns(frame: &Frame) -> bool {
    ["chosen", "rejected"]
        .iter()
        .all(|c| frame.df.column(c).is_ok())
}

/// Loads pairs. With a mapping the file is read as a generic pairwise file; without one it
/// must have reward-bench's schema.
pub fn load(
    spec: &DataSpec,
    (mapping, unshared): (Option<&Mapping>, super::conversation_file::Unshared),
    progress: &dyn Progress,
) -> Result<Loaded> {
    let reward_bench = |pairs: Vec<Pair>| Loaded {
        pairs,
        rewardbench2: None,
        rmbench: None,
        no_majority: 0,
        annotators: Vec::new(),
        source: spec.describe(),
        unshared: Vec::new(),
    };
    match spec {
        DataSpec::Sample => Ok(reward_bench(pairs::reward_bench_from_bytes(
            "sample (bundled)",
            SAMPLE,
        )?)),
        DataSpec::SampleV2 => Ok(Loaded {
            rewardbench2: Some(rewardbench2::from_bytes(&spec.describe(), SAMPLE_V2)?),
            ..reward_bench(Vec::new())
        }),
        DataSpec::Split(hub) => {
            load_file(&find_split(hub, progress)?, (None, unshared)).map(|l| Loaded {
                source: spec.describe(),
                ..l
            })
        }
        DataSpec::File(path) => load_file(path, (mapping, unshared)),
    }
}

fn load_file(
    path: &Path,
    (mapping, unshared): (Option<&Mapping>, super::conversation_file::Unshared),
) -> Result<Loaded> {
    // No such file and no extension: a dataset name mistyped, most likely.
    if path.extension().is_none() && !path.exists() {
        return Err(input_error(format!(
            "--data '{}' is neither a file nor a dataset name; the names are sample, sample-v2, filtered, raw and reward-bench-2",
            path.display()
        )));
    }
    if mapping.is_none() && path.extension().is_some_and(|e| e == "json") {
        if let Some((pairs, evaluated)) = alpacaeval_pairs(path)? {
            return Ok(Loaded {
                pairs,
                rewardbench2: None,
                rmbench: None,
                no_majority: 0,
                unshared: Vec::new(),
                annotators: Vec::new(),
                source: format!(
                    "{} (AlpacaEval annotations, in the order AlpacaEval showed them; no gold: the evaluated model {evaluated} stands as gold, so a probability's expected accuracy is AlpacaEval's win rate / 100)",
                    path.display()
                ),
            });
        }
    }
    let frame = frame::read(path)?;
    let conversations = mapping
        .is_none()
        .then(|| super::conversation_file::shape(&frame))
        .flatten();
    match mapping {
        Some(m) => super::mapped::from_mapped(&frame, m).map(|m| Loaded {
            pairs: m.pairs,
            rewardbench2: None,
            rmbench: None,
            no_majority: m.no_majority,
            unshared: Vec::new(),
            annotators: m.annotators,
            source: frame.path.display().to_string(),
        }),
        None if conversations.is_some() => {
            let shape = conversations.unwrap_or(super::conversation_file::Shape::Lists);
            let (pairs, skipped) = super::conversation_file::from_frame(&frame, shape, unshared)?;
            Ok(Loaded {
                pairs,
                rewardbench2: None,
                rmbench: None,
                no_majority: 0,
                annotators: Vec::new(),
                source: format!("{} (conversations: {})", path.display(), shape.describe()),
                unshared: skipped,
            })
        }
        None if super::rmbench::is_rmbench(&frame) => Ok(Loaded {
            pairs: Vec::new(),
            rewardbench2: None,
            rmbench: Some(super::rmbench::from_frame(&frame)?),
            no_majority: 0,
            annotators: Vec::new(),
            source: format!(
                "{} (RM-Bench: each prompt's three chosen × three rejected responses, nine pairs)",
                path.display()
            ),
            unshared: Vec::new(),
        }),
        None if rewardbench2::is_rewardbench2(&frame) => Ok(Loaded {
            pairs: Vec::new(),
            rewardbench2: Some(rewardbench2::from_frame(frame)?),
            rmbench: None,
            no_majority: 0,
            unshared: Vec::new(),
            annotators: Vec::new(),
            source: path.display().to_string(),
        }),
        None if has_reward_bench_columns(&frame) || frame.height() == 0 => Ok(Loaded {
            pairs: pairs::from_reward_bench(frame)?,
            rewardbench2: None,
            rmbench: None,
            no_majority: 0,
            unshared: Vec::new(),
            annotators: Vec::new(),
            source: path.display().to_string(),
        }),
        None => Err(input_error(format!(
            "'{}' is not in reward-bench's schema (columns found: {}); map its columns with --map response1=COL,response2=COL,label=COL[,prompt=COL,id=COL,subset=COL]",
            path.display(),
            frame.column_names().join(", ")
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn majority_votes() {
        use crate::metrics::raters::majority;
        assert_eq!(majority(&[Some(1), Some(1), Some(-1)]), Some(1));
        assert_eq!(majority(&[Some(1), Some(0), Some(-1)]), None);
        assert_eq!(majority(&[Some(0)]), Some(0));
        assert_eq!(majority(&[Some(1), Some(-1)]), None);
        // More than half of the votes given: a missing vote does not count.
        assert_eq!(majority(&[Some(1), None, Some(1), Some(-1)]), Some(1));
        assert_eq!(majority(&[Some(1), Some(1), Some(0), Some(-1)]), None);
    }

    #[test]
    fn mapping_parse_and_errors() {
        let m = Mapping::parse(
            &[
                "response1=a".into(),
                "response2=b".into(),
                "label=x+y+z".into(),
            ],
            &["A>B=-1".into(), "2=1".into()],
        )
        .expect("valid");
        assert_eq!(m.fields["label"], vec!["x", "y", "z"]);
        assert_eq!(m.gold["A>B"], -1);
        assert_eq!(super::super::mapped::gold_of(&m, "2"), Some(1));
        assert_eq!(super::super::mapped::gold_of(&m, "7"), None);
        let err = Mapping::parse(&["answer=a".into()], &[]).expect_err("unknown field");
        assert!(err.to_string().contains("unknown field 'answer'"));
        let err = Mapping::parse(&["response1=a".into()], &[]).expect_err("incomplete");
        assert!(err.to_string().contains("lacks 'response2'"));
    }
}
