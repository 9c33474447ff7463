//! `--data`: the bundled sample, a reward-bench split by name, or a file (reward-bench schema,
//! or any pairwise file with a `--map` column mapping).

use super::frame::{self, Frame};
use super::hub::{self, HubFile, Progress};
use super::labels::NoMajority;
use super::pairs::{self, Pair};
use super::rewardbench2::{self, Rb2Row};
use crate::error::input_error;
use anyhow::Result;
use std::collections::HashMap;
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

/// How a generic pairwise file maps onto pairs: `--map prompt=instruction+input,
/// response1=response_a,response2=response_b,label=winner,id=idx,subset=category` and
/// `--gold-map 1=-1,2=1,0=0`. `+` joins text columns with a blank line; for `label`, it takes
/// the majority of several annotator columns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mapping {
    pub fields: HashMap<String, Vec<String>>,
    /// Source label (as text) → gold label (-1, 0, 1).
    pub gold: HashMap<String, i64>,
    /// Items whose annotators (label=A+B+C) have no majority: left out, or a tie.
    pub no_majority: NoMajority,
}

const FIELDS: [&str; 9] = [
    "prompt",
    "response1",
    "response2",
    "label",
    "id",
    "subset",
    "reference",
    "generator1",
    "generator2",
];

impl Mapping {
    pub fn parse(map: &[String], gold_map: &[String]) -> Result<Self> {
        let mut fields = HashMap::new();
        for item in map {
            let (field, columns) = item.split_once('=').ok_or_else(|| {
                input_error(format!(
                    "--map '{item}': expected FIELD=COLUMN, e.g. response1=response_a"
                ))
            })?;
            if !FIELDS.contains(&field) {
                return Err(input_error(format!(
                    "--map '{item}': unknown field '{field}'; fields are {}",
                    FIELDS.join(", ")
                )));
            }
            fields.insert(
                field.to_string(),
                columns.split('+').map(str::to_string).collect(),
            );
        }
        let mut gold = HashMap::new();
        for item in gold_map {
            let (from, to) = item.rsplit_once('=').ok_or_else(|| {
                input_error(format!(
                    "--gold-map '{item}': expected VALUE=GOLD, e.g. 1=-1 or A>B=-1"
                ))
            })?;
            let to: i64 = to
                .trim()
                .parse()
                .ok()
                .filter(|v| [-1, 0, 1].contains(v))
                .ok_or_else(|| {
                    input_error(format!(
                        "--gold-map '{item}': the gold label must be -1, 0 or 1"
                    ))
                })?;
            gold.insert(from.to_string(), to);
        }
        // Without label=COL the pairs have no gold: rated and kept, or labelled by people
        // (`raterlab label`, then `--labels STORE`).
        for required in ["response1", "response2"] {
            if !fields.contains_key(required) {
                return Err(input_error(format!(
                    "--map lacks '{required}'; a pairwise file needs at least response1=COL,response2=COL (and label=COL for its gold)"
                )));
            }
        }
        Ok(Self {
            fields,
            gold,
            no_majority: NoMajority::Drop,
        })
    }

    fn columns(&self, field: &str) -> Option<&[String]> {
        self.fields.get(field).map(Vec::as_slice)
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

/// The subset of the items of a file without a subset column.
pub const DEFAULT_SUBSET: &str = "data";

fn text_values(frame: &Frame, columns: &[String], what: &str) -> Result<Vec<String>> {
    let parts: Vec<Vec<String>> = columns
        .iter()
        .map(|c| frame.text(c, "--map", what))
        .collect::<Result<_>>()?;
    Ok((0..frame.height())
        .map(|row| {
            parts
                .iter()
                .map(|p| p[row].as_str())
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join("\n\n")
        })
        .collect())
}

/// The gold label of a source value: through `--gold-map`, else an integer in -1..=1.
fn gold_of(mapping: &Mapping, value: &str) -> Option<i64> {
    if let Some(&g) = mapping.gold.get(value) {
        return Some(g);
    }
    if !mapping.gold.is_empty() {
        return None;
    }
    value
        .trim()
        .parse::<i64>()
        .ok()
        .filter(|v| [-1, 0, 1].contains(v))
}

/// Pairs from a generic file by column mapping.
pub fn from_mapped(frame: &Frame, mapping: &Mapping) -> Result<Loaded> {
    let policy = mapping.no_majority;
    let n = frame.height();
    if n == 0 {
        return Err(input_error(format!(
            "'{}' has no rows; nothing to rate",
            frame.path.display()
        )));
    }
    let get = |field: &str| mapping.columns(field);
    let prompt = match get("prompt") {
        Some(cols) => text_values(frame, cols, "prompt")?,
        None => vec![String::new(); n],
    };
    let response1 = text_values(frame, get("response1").unwrap_or_default(), "response")?;
    let response2 = text_values(frame, get("response2").unwrap_or_default(), "response")?;
    // Without a subset column every item is in one subset, named the same whatever the
    // file's name (renaming a file changes nothing but the run's name).
    let subset = match get("subset") {
        Some(cols) => text_values(frame, cols, "subset")?,
        None => vec![DEFAULT_SUBSET.to_string(); n],
    };
    let reference = match get("reference") {
        Some(cols) => Some(text_values(frame, cols, "reference")?),
        None => None,
    };
    let generators = match (get("generator1"), get("generator2")) {
        (Some(a), Some(b)) => Some((
            text_values(frame, a, "generator")?,
            text_values(frame, b, "generator")?,
        )),
        (None, None) => None,
        _ => {
            return Err(input_error(
                "--map names one generator; name both, e.g. generator1=generator_1,generator2=generator_2",
            ))
        }
    };
    let raw_ids = match get("id") {
        Some(cols) => text_values(frame, cols, "id")?,
        None => (0..n).map(|i| i.to_string()).collect(),
    };
    let label_cols = get("label").unwrap_or_default();
    let labels: Vec<Vec<Option<String>>> = label_cols
        .iter()
        .map(|c| frame.optional_text(c, "--map label=COL", "label"))
        .collect::<Result<_>>()?;
    // Each row's votes: one per label column; none when every label cell of the row is empty
    // (the item is unlabelled: rated, kept, in no agreement measure).
    let empty = |v: &Option<String>| v.as_deref().is_none_or(|t| t.trim().is_empty());
    let mut row_votes: Vec<Option<Vec<i64>>> = Vec::with_capacity(n);
    for row in 0..n {
        if labels.iter().all(|values| empty(&values[row])) {
            row_votes.push(None);
            continue;
        }
        let mut votes: Vec<i64> = Vec::with_capacity(labels.len());
        for (col, values) in label_cols.iter().zip(&labels) {
            let value = values[row].as_deref().unwrap_or("");
            let gold = gold_of(mapping, value).ok_or_else(|| {
                input_error(format!(
                    "'{}', column '{col}', row {}: label '{value}' has no gold label; map it with --gold-map (e.g. --gold-map '{value}=-1'), gold labels are -1 (response 1 better), 0 (tie), 1 (response 2 better)",
                    frame.path.display(),
                    row + 1
                ))
            })?;
            votes.push(gold);
        }
        row_votes.push(Some(votes));
    }
    // Long form (rows repeating an id, a column naming the annotation, as AlpacaEval publishes
    // its cross-annotations): an item's rows are its annotators, in file order; the first N
    // count, N the fewest any item has.
    let groups = long_form_groups(frame, &raw_ids, label_cols.len(), get("id").is_some());
    let per_item = groups.as_ref().and_then(|g| g.iter().map(Vec::len).min());
    let groups = groups.unwrap_or_else(|| (0..n).map(|r| vec![r]).collect());
    let mut pairs = Vec::with_capacity(groups.len());
    let mut no_majority = 0;
    for rows in &groups {
        let row = rows[0];
        let votes: Option<Vec<i64>> = match per_item {
            Some(k) => rows
                .iter()
                .take(k)
                .map(|&r| row_votes[r].as_ref().map(|v| v[0]))
                .collect(),
            None => row_votes[row].clone(),
        };
        let majority = votes.as_ref().map(|votes| {
            crate::metrics::raters::majority(&votes.iter().copied().map(Some).collect::<Vec<_>>())
        });
        let (gold, votes) = match (majority, votes) {
            (None, _) | (_, None) => (None, Vec::new()),
            (Some(Some(gold)), Some(votes)) => (Some(gold), votes),
            (Some(None), Some(votes)) => {
                no_majority += 1;
                match policy {
                    NoMajority::Drop => continue,
                    NoMajority::Tie => (Some(0), votes),
                }
            }
        };
        pairs.push(Pair {
            history: Vec::new(),
            // With a mapped subset, ids are `{subset}-{id}` as for reward-bench; without one the
            // file's own ids are kept, so they still join with other files of the same data.
            id: if get("subset").is_some() {
                format!("{}-{}", subset[row], raw_ids[row])
            } else {
                raw_ids[row].clone()
            },
            subset: subset[row].clone(),
            prompt: prompt[row].clone(),
            first: response1[row].clone(),
            second: response2[row].clone(),
            gold,
            reference: reference.as_ref().map(|r| r[row].clone()),
            randomize: false,
            votes: if label_cols.len() > 1 || per_item.is_some() {
                votes
            } else {
                Vec::new()
            },
            generators: generators
                .as_ref()
                .map(|(a, b)| [a[row].clone(), b[row].clone()]),
        });
    }
    // Without an id column, an item's id is its content's (`pairs::content_id`), not its row.
    if get("id").is_none() {
        pairs::with_content_ids(&mut pairs, get("subset").is_some());
    }
    let ids: Vec<String> = pairs.iter().map(|p| p.id.clone()).collect();
    pairs::check_unique_ids(&frame.path, &ids)?;
    Ok(Loaded {
        pairs,
        rewardbench2: None,
        rmbench: None,
        no_majority,
        unshared: Vec::new(),
        annotators: match per_item {
            Some(k) => (1..=k).map(|a| format!("#{a}")).collect(),
            None if label_cols.len() > 1 => label_cols.to_vec(),
            None => Vec::new(),
        },
        source: frame.path.display().to_string(),
    })
}

/// Long form's items: the rows of each id in first-seen order, when one label column is
/// mapped, ids are mapped and repeat, and the file has a column naming the annotation
/// (`annotator_index`, `seed`, `sample`); None otherwise (a repeated id stays an error).
fn long_form_groups(
    frame: &Frame,
    ids: &[String],
    label_columns: usize,
    ids_mapped: bool,
) -> Option<Vec<Vec<usize>>> {
    if label_columns != 1 || !ids_mapped || super::long::annotation_column(frame, None).is_none() {
        return None;
    }
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (row, id) in ids.iter().enumerate() {
        match index.get(id.as_str()) {
            Some(&g) => groups[g].push(row),
            None => {
                index.insert(id, groups.len());
                groups.push(vec![row]);
            }
        }
    }
    (groups.len() < ids.len()).then_some(groups)
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
        Some(m) => from_mapped(&frame, m),
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
        assert_eq!(gold_of(&m, "2"), Some(1));
        assert_eq!(gold_of(&m, "7"), None);
        let err = Mapping::parse(&["answer=a".into()], &[]).expect_err("unknown field");
        assert!(err.to_string().contains("unknown field 'answer'"));
        let err = Mapping::parse(&["response1=a".into()], &[]).expect_err("incomplete");
        assert!(err.to_string().contains("lacks 'response2'"));
    }
}
