//! A run over pairs' record read back: ratings.parquet into the record, checked, with the texts
//! of items.jsonl for the shapes, the depths and the generators, and completions.jsonl's
//! verdicts for the self-consistency curves.

use crate::dataset::examples::Order;
use crate::evaluation::{
    Annotations, ConfigRecord, Cost, ItemRow, Outcome, PointwiseRecord, ProbabilityRecord,
    RunRecord, Shape,
};
use crate::run::file::{bad_run, AnnotatorsFile, ConfigFile, RunFile};
use crate::run::lines::{each_line, read_lines, ItemTexts};
use crate::run::record::RunMeta;
use anyhow::Result;
use polars::prelude::*;
use std::collections::HashMap;
use std::fs::File;
use std::path::Path;

/// ratings.parquet, column by column: one row per configuration and item.
struct Ratings {
    config: Vec<String>,
    id: Vec<String>,
    pair: Vec<String>,
    subset: Vec<String>,
    order: Vec<String>,
    status: Vec<String>,
    gold: Vec<Option<i64>>,
    rating: Vec<Option<i64>>,
    reason: Vec<String>,
    /// Pointwise grades (absent from run directories written before pointwise judges).
    grades: (Vec<Option<f64>>, Vec<Option<f64>>),
    /// P(response 2 better) and why none (absent before probabilities).
    p_response2: Vec<Option<f64>>,
    p_reason: Vec<String>,
    seeded: Vec<bool>,
    /// Several annotators' labels, one "a,b,c" string per item, when the run has them.
    votes: Option<Vec<String>>,
    /// Long form by annotator: each item's annotators in file order ("2,0,5"), when written.
    vote_order: Option<Vec<String>>,
}

fn ratings(dir: &Path, doc: &RunFile) -> Result<Ratings> {
    let file = File::open(dir.join("ratings.parquet"))
        .map_err(|e| bad_run(dir, format!("ratings.parquet: {e}")))?;
    let df = ParquetReader::new(file)
        .finish()
        .map_err(|e| bad_run(dir, format!("ratings.parquet: {e}")))?;
    let column = |name: &str| {
        df.column(name)
            .map_err(|_| bad_run(dir, format!("ratings.parquet has no column '{name}'")))
    };
    let text_col = |name: &str| -> Result<Vec<String>> {
        Ok(column(name)?
            .str()
            .map_err(|_| bad_run(dir, format!("column '{name}' is not text")))?
            .iter()
            .map(|v| v.unwrap_or_default().to_string())
            .collect())
    };
    let int_col = |name: &str| -> Result<Vec<Option<i64>>> {
        Ok(column(name)?
            .i64()
            .map_err(|_| bad_run(dir, format!("column '{name}' is not integer")))?
            .iter()
            .collect())
    };
    let float_col = |name: &str| -> Vec<Option<f64>> {
        df.column(name)
            .ok()
            .and_then(|c| c.cast(&DataType::Float64).ok())
            .and_then(|c| c.f64().ok().map(|v| v.iter().collect()))
            .unwrap_or_else(|| vec![None; df.height()])
    };
    let (config, pair, order) = (
        text_col("config")?,
        text_col("pair_id")?,
        text_col("order")?,
    );
    // `seeded` (the pair's one-order position) is absent from run directories written before
    // it existed: draw it again from the data seed, as the run did.
    let seeded: Vec<bool> = match df.column("seeded").ok().and_then(|c| c.bool().ok()) {
        Some(c) => c.iter().map(|v| v.unwrap_or(true)).collect(),
        None => (0..config.len())
            .map(|i| {
                let swapped = order[i] == "swapped";
                !doc.data.both_orders
                    || crate::dataset::examples::is_swapped(doc.data.seed, &pair[i]) == swapped
            })
            .collect(),
    };
    Ok(Ratings {
        id: text_col("id")?,
        subset: text_col("subset")?,
        status: text_col("status")?,
        gold: int_col("gold")?,
        rating: int_col("rating")?,
        reason: text_col("reason")?,
        grades: (float_col("grade1"), float_col("grade2")),
        p_response2: float_col("p_response2"),
        p_reason: if df.column("p_reason").is_ok() {
            text_col("p_reason")?
        } else {
            vec![String::new(); df.height()]
        },
        votes: doc
            .data
            .annotators
            .as_ref()
            .map(|_| text_col("votes"))
            .transpose()?,
        vote_order: if df.column("vote_order").is_ok() {
            Some(text_col("vote_order")?)
        } else {
            None
        },
        config,
        pair,
        order,
        seeded,
    })
}

/// The items, from the first configuration's rows.
fn items(r: &Ratings) -> Vec<ItemRow> {
    let first = r.config.first().cloned().unwrap_or_default();
    let n = (0..r.config.len())
        .take_while(|&i| r.config[i] == first)
        .count();
    let subsets = crate::evaluation::items::interned(r.subset[..n].iter().map(String::as_str));
    (0..n)
        .zip(subsets)
        .map(|(i, subset)| ItemRow {
            id: r.id[i].as_str().into(),
            pair_id: r.pair[i].as_str().into(),
            subset,
            order: if r.order[i] == "swapped" {
                Order::Swapped
            } else {
                Order::AsSource
            },
            gold: r.gold[i],
            seeded: r.seeded[i],
        })
        .collect()
}

/// Every sample's verdict by (configuration, item), from completions.jsonl (for the
/// self-consistency curves), read a line at a time: the answers' texts are not kept.
fn sample_verdicts(dir: &Path) -> HashMap<(String, String), Vec<Option<i64>>> {
    #[derive(serde::Deserialize)]
    struct SampleVerdict {
        config: String,
        id: String,
        sample: u32,
        verdict: Option<i64>,
    }
    let mut out: HashMap<(String, String), Vec<Option<i64>>> = HashMap::new();
    each_line(&dir.join("completions.jsonl"), |line: SampleVerdict| {
        let verdicts = out.entry((line.config, line.id)).or_default();
        let at = line.sample as usize;
        if verdicts.len() <= at {
            verdicts.resize(at + 1, None);
        }
        verdicts[at] = line.verdict;
    });
    out
}

/// Configuration `k`'s record: its rows `k * n..(k + 1) * n` of ratings.parquet.
fn config_record(
    (k, n): (usize, usize),
    file: &ConfigFile,
    r: &Ratings,
    samples: &HashMap<(String, String), Vec<Option<i64>>>,
    seed: u64,
) -> ConfigRecord {
    let rows = k * n..(k + 1) * n;
    let c = file.cost;
    ConfigRecord {
        name: file.name.clone(),
        prompt: file.prompt.clone(),
        rater: file.rater.clone(),
        // run.json keeps the rater's spec; a jury's (its vote) is no rater kind.
        kind: match file.jury {
            Some(_) => None,
            None => crate::raters::RaterKind::parse(&file.rater, seed).ok(),
        },
        judge: file.judge.clone(),
        simulated: file.simulated,
        outcomes: rows
            .clone()
            .map(|i| match (r.status[i].as_str(), r.rating[i]) {
                ("rated", Some(v)) => Outcome::Rated(v),
                ("no_verdict", _) => Outcome::NoVerdict,
                ("cut_off", _) => Outcome::CutOff,
                ("not_asked", _) => Outcome::NotAsked,
                _ => Outcome::CallFailed,
            })
            .collect(),
        cost: Cost::from(c),
        reasons: crate::evaluation::tally(
            rows.clone()
                .filter(|&i| r.status[i] != "rated" && !r.reason[i].is_empty())
                .map(|i| r.reason[i].as_str()),
        ),
        pointwise: file.pointwise.as_ref().map(|p| PointwiseRecord {
            grades: rows
                .clone()
                .map(|i| (r.grades.0[i], r.grades.1[i]))
                .collect(),
            tie_margin: p.tie_margin,
            lowest: p.lowest,
            order_blind: p.order_blind,
        }),
        probability: file.probability.as_ref().map(|source| ProbabilityRecord {
            source: source.clone(),
            p: rows.clone().map(|i| r.p_response2[i]).collect(),
            missing: crate::evaluation::tally(
                rows.clone()
                    .filter(|&i| r.p_response2[i].is_none() && !r.p_reason[i].is_empty())
                    .map(|i| r.p_reason[i].as_str()),
            ),
        }),
        jury: None,
        samples: (file.rater.starts_with("sc:") && file.pointwise.is_none()).then(|| {
            rows.map(|i| {
                samples
                    .get(&(file.name.clone(), r.id[i].clone()))
                    .cloned()
                    .unwrap_or_default()
            })
            .collect()
        }),
    }
}

/// The annotators' labels of the first `n` rows (run directories written before annotators
/// have neither the column nor the names).
fn annotations(
    dir: &Path,
    a: &AnnotatorsFile,
    (votes, order): (&[String], Option<&[String]>),
    no_majority: usize,
) -> Result<Annotations> {
    let annotators = a.names.len();
    let indices = |(i, v): (usize, &String)| -> Result<Vec<usize>> {
        v.split(',')
            .filter(|x| !x.trim().is_empty())
            .map(|x| x.trim().parse::<usize>().ok().filter(|&k| k < annotators))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| {
                let why = format!("row {}: vote_order '{v}' does not name annotators", i + 1);
                bad_run(dir, why)
            })
    };
    let order = match order {
        Some(o) => o
            .iter()
            .enumerate()
            .map(indices)
            .collect::<Result<Vec<_>>>()?,
        None => Vec::new(),
    };
    let votes = votes
        .iter()
        .enumerate()
        .map(|(i, v)| {
            v.split(',')
                .map(|x| match x.trim() {
                    "" => Ok(None),
                    x => x.parse::<i64>().map(Some),
                })
                .collect::<Result<Vec<_>, _>>()
                .map_err(|_| bad_run(dir, format!("row {}: votes '{v}' are not labels", i + 1)))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Annotations {
        names: a.names.clone(),
        votes,
        order,
        no_majority,
        policy: a.policy.clone(),
        label_names: Vec::new(),
    })
}

/// items.jsonl's lines by id (absent: none), read once for the shapes, the depths and the
/// generators.
fn texts(dir: &Path) -> HashMap<String, ItemTexts> {
    read_lines::<ItemTexts>(&dir.join("items.jsonl"))
        .into_iter()
        .map(|t| (t.id.clone(), t))
        .collect()
}

/// The responses' shapes for the bias diagnostics (none unless every item has its texts).
fn shapes(texts: &HashMap<String, ItemTexts>, items: &[ItemRow]) -> Vec<[Shape; 2]> {
    items
        .iter()
        .map(|i| {
            let t = texts.get(&*i.id)?;
            Some([Shape::of(&t.response1), Shape::of(&t.response2)])
        })
        .collect::<Option<Vec<_>>>()
        .unwrap_or_default()
}

/// The analytics' inputs from items.jsonl: each item's conversation depth (none when every
/// item is single-turn, or the file is missing).
fn inputs(
    texts: &HashMap<String, ItemTexts>,
    items: &[ItemRow],
) -> crate::evaluation::analytic::Inputs {
    let depth = |i: &ItemRow| {
        texts
            .get(&*i.id)
            .map(|t| crate::dataset::conversation::depth(&t.turns))
    };
    let depths: Vec<u32> = items.iter().map(|i| depth(i).unwrap_or(1)).collect();
    let mut inputs = crate::evaluation::analytic::Inputs::default();
    if let Some(d) = crate::evaluation::depth::Depths::of(depths) {
        inputs.put(Box::new(d));
    }
    inputs
}

/// Each item's generators and prompt, from items.jsonl (None unless every item has both).
fn generators(
    texts: &HashMap<String, ItemTexts>,
    items: &[ItemRow],
) -> Option<crate::evaluation::Generators> {
    let rows: Vec<(Option<[String; 2]>, &str)> = items
        .iter()
        .map(|i| {
            let t = texts.get(&*i.id);
            let pair = t.and_then(|t| Some([t.generator1.clone()?, t.generator2.clone()?]));
            (pair, t.map_or("", |t| t.prompt.as_str()))
        })
        .collect();
    crate::evaluation::Generators::of(rows.iter().map(|(g, p)| (g.as_ref(), *p)))
}

/// A jury's members by their positions in run.json.
fn jury(
    dir: &Path,
    c: &ConfigFile,
    j: &crate::run::file::JuryFile,
    doc: &RunFile,
) -> Result<crate::raters::jury::Jury> {
    let members = j
        .members
        .iter()
        .map(|m| {
            doc.configs
                .iter()
                .position(|x| &x.name == m)
                .ok_or_else(|| {
                    bad_run(
                        dir,
                        format!("jury '{}': member '{m}' is not a configuration", c.name),
                    )
                })
        })
        .collect::<Result<Vec<_>>>()?;
    if j.weights.len() != members.len() {
        return Err(bad_run(
            dir,
            format!("jury '{}': one weight per member", c.name),
        ));
    }
    Ok(crate::raters::jury::Jury {
        name: c.name.clone(),
        members,
        vote: j
            .vote
            .parse::<crate::raters::jury::Vote>()
            .map_err(|e| bad_run(dir, format!("jury '{}': {e}", c.name)))?,
        weights: j.weights.clone(),
        tie_margin: j.tie_margin,
    })
}

/// The record of a run over pairs: ratings.parquet, with the texts of items.jsonl.
pub fn record(dir: &Path, doc: &RunFile, meta: &RunMeta) -> Result<RunRecord> {
    let r = ratings(dir, doc)?;
    let items = items(&r);
    let n = items.len();
    if n == 0 || r.config.len() != n * doc.configs.len() {
        return Err(bad_run(
            dir,
            format!(
                "ratings.parquet holds {} rows, expected {} configurations × {n} items",
                r.config.len(),
                doc.configs.len()
            ),
        ));
    }
    let samples = sample_verdicts(dir);
    let mut configs: Vec<ConfigRecord> = doc
        .configs
        .iter()
        .enumerate()
        .map(|(k, c)| config_record((k, n), c, &r, &samples, doc.data.seed))
        .collect();
    for (k, c) in doc.configs.iter().enumerate() {
        configs[k].jury = c.jury.as_ref().map(|j| jury(dir, c, j, doc)).transpose()?;
    }
    let data = &doc.data;
    let annotators = match (&data.annotators, &r.votes) {
        (Some(a), Some(votes)) => {
            let order = r.vote_order.as_ref().map(|o| &o[..n]);
            Some(annotations(dir, a, (&votes[..n], order), data.no_majority)?)
        }
        _ => None,
    };
    let texts = texts(dir);
    let mut generators = generators(&texts, &items);
    if let (Some(g), Some(r)) = (generators.as_mut(), &data.reference) {
        g.reference = Some(if r.gold {
            crate::evaluation::Reference::Gold
        } else {
            crate::evaluation::Reference::Table {
                source: r.source.clone(),
                scores: r.scores.clone(),
            }
        });
    }
    let mut inputs = inputs(&texts, &items);
    // The race's end: a configuration it dropped is never the best (`ranking::best`).
    if let Some(s) = &meta.sequential {
        inputs.put(Box::new(s.raced.clone()));
    }
    let record = RunRecord {
        labels: crate::metrics::Labels::pairwise(),
        inputs,
        generators,
        shapes: shapes(&texts, &items),
        items: items.into_iter().collect(),
        configs,
        both_orders: meta.head.both_orders,
        annotators,
    };
    Ok(record)
}
