//! A run directory read back (`raterlab report DIR`, `plan --from`), one reader for every
//! form: run.json into the run's description (the same `RunMeta` for every form), then its
//! record from the file that holds it: a run over pairs' ratings.parquet (`ratings.rs`), or
//! RewardBench 2's rows and what each configuration made of them in items.jsonl (`rows.rs`),
//! each checked as any input is.

mod ratings;
mod rows;

use crate::error::input_error;
use crate::evaluation::RunRecord;
use crate::run::file::{bad_run, ConfigFile, RunFile};
use crate::run::record::{ConfigMeta, Form, RunHead, RunMeta};
use anyhow::Result;
use std::path::Path;

/// run.json of a run directory, typed.
pub fn run_file(dir: &Path) -> Result<RunFile> {
    let text = std::fs::read_to_string(dir.join("run.json"))
        .map_err(|e| bad_run(dir, format!("run.json: {e}")))?;
    let file = RunFile::parse(&text).map_err(|e| bad_run(dir, format!("run.json: {e}")))?;
    // A level every reader can use (a hand-edited run.json is read as any input is).
    let alpha = file.alpha;
    crate::evaluation::alpha(alpha).map_err(|_| {
        input_error(format!(
            "'{}', run.json: 'alpha' is {alpha}, where a significance level is a number strictly between 0 and 1; set it to the run's level (0.05 by default) and run report again",
            dir.display()
        ))
    })?;
    Ok(file)
}

fn config_meta(c: &ConfigFile) -> ConfigMeta {
    ConfigMeta {
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
        price: c.price,
    }
}

/// Reads a run directory back, of either form: its description from run.json, and its
/// record by the file that holds it (a run over pairs: ratings.parquet, `ratings.rs`;
/// RewardBench 2's rows: items.jsonl's rows and what each configuration made of them,
/// `rows.rs`).
pub fn read(dir: &Path, doc: &RunFile) -> Result<(RunMeta, RunRecord)> {
    let meta = meta(dir, doc);
    let record = match meta.form {
        Form::Pairs => ratings::record(dir, doc, &meta)?,
        Form::RewardBench2 => rows::record(dir, doc)?,
    };
    Ok((meta, record))
}

/// A run's description, from run.json alone.
fn meta(dir: &Path, doc: &RunFile) -> RunMeta {
    let data = &doc.data;
    RunMeta {
        head: RunHead {
            name: doc.name.clone(),
            dir: dir.to_path_buf(),
            source: data.source.clone(),
            seed: data.seed,
            both_orders: data.both_orders,
            bootstrap: doc.bootstrap,
            command: doc.command.clone(),
            created_unix: doc.created_unix,
        },
        checksum: data.checksum_sha256.clone(),
        configs: doc.configs.iter().map(config_meta).collect(),
        form: doc.form(),
        // A run.json of an earlier raterlab holds one of the same keys; anything else (edited
        // by hand) reads as the default.
        sort: doc.sort.as_deref().map(|s| s.parse().unwrap_or_default()),
        family: doc.family.parse().unwrap_or_default(),
        no_majority: data.no_majority,
        unshared: data.unshared.clone(),
        sequential: doc.sequential.as_deref().cloned(),
        estimate: doc.estimate,
        alt_test: doc.alt_test.unwrap_or_default(),
        alpha: doc.alpha,
    }
}
