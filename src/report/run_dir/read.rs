//! A run directory read back (`raterlab report DIR`): run.json and ratings.parquet into the
//! run's description and record, checked, with the texts of items.jsonl for the shapes.

use crate::dataset::examples::Order;
use crate::error::input_error;
use crate::evaluation::{
    Annotations, ConfigRecord, Cost, ItemRow, Outcome, PointwiseRecord, RunRecord,
};
use crate::report::lines::{each_line, read_lines, ItemTexts};
use crate::run::file::{PairsRunFile, RunFile};
use crate::run::record::{ConfigMeta, RunMeta};
use anyhow::Result;
use polars::prelude::*;
use std::fs::File;
use std::path::Path;

fn bad_run(dir: &Path, what: impl std::fmt::Display) -> anyhow::Error {
    input_error(format!("'{}' is not a complete raterlab run directory: {what}; run `raterlab calibrate` to make one", dir.display()))
}

/// run.json of a run directory, typed.
pub fn run_file(dir: &Path) -> Result<RunFile> {
    let text = std::fs::read_to_string(dir.join("run.json"))
        .map_err(|e| bad_run(dir, format!("run.json: {e}")))?;
    RunFile::parse(&text).map_err(|e| bad_run(dir, format!("run.json: {e}")))
}

/// Reads a run directory over pairs back (its run.json + ratings.parquet).
pub fn read(dir: &Path, doc: &PairsRunFile) -> Result<(RunMeta, RunRecord)> {
    let configs_json = &doc.configs;
    let metas: Vec<ConfigMeta> = configs_json
        .iter()
        .map(|c| ConfigMeta {
            name: c.name.clone(),
            prompt: c.prompt.clone(),
            parser: c.parser.clone(),
            rater: c.rater.clone(),
            judge: c.judge.clone(),
            model: c.model.clone(),
            temperature: c.temperature,
            max_tokens: c.max_tokens,
            simulated: c.simulated,
            system: c.system.clone(),
            template: c.template.clone(),
        })
        .collect();
    let file = File::open(dir.join("ratings.parquet"))
        .map_err(|e| bad_run(dir, format!("ratings.parquet: {e}")))?;
    let df = ParquetReader::new(file)
        .finish()
        .map_err(|e| bad_run(dir, format!("ratings.parquet: {e}")))?;
    let text_col = |name: &str| -> Result<Vec<String>> {
        let c = df
            .column(name)
            .map_err(|_| bad_run(dir, format!("ratings.parquet has no column '{name}'")))?;
        Ok(c.str()
            .map_err(|_| bad_run(dir, format!("column '{name}' is not text")))?
            .iter()
            .map(|v| v.unwrap_or_default().to_string())
            .collect())
    };
    let int_col = |name: &str| -> Result<Vec<Option<i64>>> {
        let c = df
            .column(name)
            .map_err(|_| bad_run(dir, format!("ratings.parquet has no column '{name}'")))?;
        Ok(c.i64()
            .map_err(|_| bad_run(dir, format!("column '{name}' is not integer")))?
            .iter()
            .collect())
    };
    let (config, id, pair, subset, order, status) = (
        text_col("config")?,
        text_col("id")?,
        text_col("pair_id")?,
        text_col("subset")?,
        text_col("order")?,
        text_col("status")?,
    );
    let (gold, rating) = (int_col("gold")?, int_col("rating")?);
    let reason = text_col("reason")?;
    // Pointwise grades (absent from run directories written before pointwise judges).
    let float_col = |name: &str| -> Vec<Option<f64>> {
        df.column(name)
            .ok()
            .and_then(|c| c.cast(&DataType::Float64).ok())
            .and_then(|c| c.f64().ok().map(|v| v.iter().collect()))
            .unwrap_or_else(|| vec![None; df.height()])
    };
    let grades = (float_col("grade1"), float_col("grade2"));
    // `seeded` (the pair's one-order position) is absent from run directories written before
    // it existed: draw it again from the data seed, as the run did.
    let data_seed = doc.data.seed;
    let seeded: Vec<bool> = match df.column("seeded").ok().and_then(|c| c.bool().ok()) {
        Some(c) => c.iter().map(|v| v.unwrap_or(true)).collect(),
        None => (0..config.len())
            .map(|i| {
                let swapped = order[i] == "swapped";
                !doc.data.both_orders
                    || crate::dataset::examples::is_swapped(data_seed, &pair[i]) == swapped
            })
            .collect(),
    };
    let first = config.first().cloned().unwrap_or_default();
    let items: Vec<ItemRow> = (0..config.len())
        .take_while(|&i| config[i] == first)
        .map(|i| ItemRow {
            id: id[i].clone(),
            pair_id: pair[i].clone(),
            subset: subset[i].clone(),
            order: if order[i] == "swapped" {
                Order::Swapped
            } else {
                Order::AsSource
            },
            gold: gold[i].unwrap_or(0),
            seeded: seeded[i],
        })
        .collect();
    let n = items.len();
    if n == 0 || config.len() != n * metas.len() {
        return Err(bad_run(
            dir,
            format!(
                "ratings.parquet holds {} rows, expected {} configurations × {n} items",
                config.len(),
                metas.len()
            ),
        ));
    }
    // Every sample's verdict, from completions.jsonl (for the self-consistency curves), read
    // a line at a time: the answers' texts are not kept.
    #[derive(serde::Deserialize)]
    struct SampleVerdict {
        config: String,
        id: String,
        sample: u32,
        verdict: Option<i64>,
    }
    let mut sample_verdicts: std::collections::HashMap<(String, String), Vec<Option<i64>>> =
        std::collections::HashMap::new();
    each_line(&dir.join("completions.jsonl"), |line: SampleVerdict| {
        let verdicts = sample_verdicts.entry((line.config, line.id)).or_default();
        let at = line.sample as usize;
        if verdicts.len() <= at {
            verdicts.resize(at + 1, None);
        }
        verdicts[at] = line.verdict;
    });
    let records = metas
        .iter()
        .enumerate()
        .map(|(k, m)| {
            let outcomes = (k * n..(k + 1) * n)
                .map(|i| match (status[i].as_str(), rating[i]) {
                    ("rated", Some(v)) => Outcome::Rated(v),
                    ("no_verdict", _) => Outcome::NoVerdict,
                    _ => Outcome::CallFailed,
                })
                .collect();
            let c = configs_json[k].cost;
            ConfigRecord {
                name: m.name.clone(),
                prompt: m.prompt.clone(),
                rater: m.rater.clone(),
                judge: m.judge.clone(),
                simulated: m.simulated,
                outcomes,
                cost: Cost {
                    calls: c.calls,
                    cache_hits: c.cache_hits,
                    tokens_in: c.tokens_in,
                    tokens_out: c.tokens_out,
                    wall_seconds: c.wall_seconds.unwrap_or(0.0),
                },
                reasons: crate::evaluation::tally(
                    (k * n..(k + 1) * n)
                        .filter(|&i| status[i] != "rated" && !reason[i].is_empty())
                        .map(|i| reason[i].as_str()),
                ),
                pointwise: configs_json[k].pointwise.as_ref().map(|p| PointwiseRecord {
                    grades: (k * n..(k + 1) * n)
                        .map(|i| (grades.0[i], grades.1[i]))
                        .collect(),
                    tie_margin: p.tie_margin,
                    lowest: p.lowest,
                    order_blind: p.order_blind,
                }),
                samples: (m.rater.starts_with("sc:") && configs_json[k].pointwise.is_none()).then(
                    || {
                        (k * n..(k + 1) * n)
                            .map(|i| {
                                sample_verdicts
                                    .get(&(m.name.clone(), id[i].clone()))
                                    .cloned()
                                    .unwrap_or_default()
                            })
                            .collect()
                    },
                ),
            }
        })
        .collect();
    let data = &doc.data;
    let meta = RunMeta {
        name: doc.name.clone(),
        dir: dir.to_path_buf(),
        source: data.source.clone(),
        seed: data.seed,
        both_orders: data.both_orders,
        bootstrap: doc.bootstrap,
        checksum: data.checksum_sha256.clone(),
        configs: metas,
        command: doc.command.clone(),
        created_unix: doc.created_unix,
        sort: doc.sort.clone(),
        no_majority: data.no_majority,
    };
    // Several annotators' labels, one "a,b,c" string per item (run directories written
    // before them have neither the column nor the names).
    let annotators = match &data.annotators {
        Some(a) => {
            let column = text_col("votes")?;
            let votes = column[..n]
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    v.split(',')
                        .map(|x| x.trim().parse::<i64>())
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|_| {
                            bad_run(dir, format!("row {}: votes '{v}' are not labels", i + 1))
                        })
                })
                .collect::<Result<Vec<_>>>()?;
            Some(Annotations {
                names: a.names.clone(),
                votes,
                no_majority: meta.no_majority,
                policy: a.policy.clone(),
            })
        }
        None => None,
    };
    // The responses' shapes for the bias diagnostics, from items.jsonl (absent: none).
    let shapes = {
        let texts: std::collections::HashMap<String, [crate::evaluation::bias::Shape; 2]> =
            read_lines::<ItemTexts>(&dir.join("items.jsonl"))
                .into_iter()
                .map(|t| {
                    let shape = crate::evaluation::bias::Shape::of;
                    (t.id, [shape(&t.response1), shape(&t.response2)])
                })
                .collect();
        items
            .iter()
            .map(|i| texts.get(&i.id).copied())
            .collect::<Option<Vec<_>>>()
            .unwrap_or_default()
    };
    let record = RunRecord {
        items,
        configs: records,
        both_orders: meta.both_orders,
        annotators,
        shapes,
    };
    Ok((meta, record))
}
