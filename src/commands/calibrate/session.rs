//! What a `calibrate` run does whatever the data's form: the plan (with `--batch`, every call
//! answered by a batch), the run directory, the Batch API rounds, the answer log, the progress
//! bars, one budget over every call, each configuration's tally, the evaluation's settings, and
//! the finish (cache notes, the unwritten-answers warning, the failure checks). A form says
//! only which items each configuration rates and how a rating folds back into its rows.

use crate::judge::cache::Cache;
use crate::judge::execute::Budget;
use crate::raters::{self, CallTally, Config, Flow, Rating};
use crate::run::forms::Layout;
use crate::run::forms::PartSpec;
use crate::run::judges;
use crate::run::plan::{plan, Plan};
use crate::run::record::Form;
use crate::run::settings::CalibrateSettings;
use anyhow::Result;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A run's plan and name, before its directory exists.
#[derive(Debug)]
pub struct Session {
    pub plan: Plan,
    /// `--name`, the experiment file's, else the form's default.
    pub name: String,
    /// The concurrency and pace every call shares.
    budget: Budget,
}

/// Where a run went and what its calls cost.
#[derive(Debug)]
pub struct Rated {
    pub dir: PathBuf,
    pub created_unix: u64,
    /// Per configuration of the plan: cost and failures.
    pub tallies: Vec<CallTally>,
    /// Per part: from its first call to its last answer.
    pub wall_seconds: Vec<f64>,
    /// Per part: the calls the plan holds.
    pub planned: Vec<u64>,
}

/// The run's name: `--name`, the experiment file's, else `demo` or `calibrate`.
fn name(args: &CalibrateSettings, planned: Option<String>) -> String {
    args.name
        .clone()
        .or(planned)
        .unwrap_or_else(|| if args.plan.demo { "demo" } else { "calibrate" }.into())
}

impl Session {
    /// The plan of `args` for data of `form` (its default prompts and raters); with
    /// `--batch`, checked for a Batch API and answered from the cache only.
    pub fn plan(args: &CalibrateSettings, form: Form, seed: u64) -> Result<Self> {
        let mut plan_args = args.plan.clone();
        if args.batch.batch {
            // Every call is answered by a batch (or fails as the batch said): none goes out alone.
            super::super::batch::rounds::check_batch_judges(&plan_args)?;
            plan_args.judge.offline = true;
        }
        let plan = plan(
            &plan_args,
            form,
            seed,
            &crate::report::media::progress::Steps::default(),
        )?;
        Ok(Self {
            name: name(args, plan.name.clone()),
            budget: judges::budget(&args.plan.judge)?,
            plan,
        })
    }

    /// Creates the run directory, sends every part's calls (through the Batch API first with
    /// `--batch`), writes the answers to `completions.jsonl` as they come and hands each
    /// rating to `fold` with its part's index, the part and the item's index. The parts are
    /// asked a chunk of items at a time, all parts in every chunk, each call sent as a slot
    /// frees; once `fold` says stop, no new call is sent, and the items not yet asked come to
    /// `fold` not asked (once it drops parts, the same for theirs).
    pub fn rate(
        &self,
        args: &CalibrateSettings,
        layout: &Layout<'_>,
        fold: &mut dyn FnMut(usize, &PartSpec, usize, &Rating) -> Flow,
    ) -> Result<Rated> {
        let (dir, created_unix) = super::out::create(args.out.as_deref(), &self.name)?;
        let parts = &layout.specs;
        // Each part's configuration as called: with --batch, answered by the batches.
        let mut configs: Vec<Config> = parts.iter().map(|p| p.config.clone()).collect();
        if args.batch.batch {
            let settles = super::super::batch::rounds::run_batches(
                args,
                &layout.parts(),
                &self.plan.caches,
                &crate::report::batch::Watcher::default(),
            )?;
            for (config, settle) in configs.iter_mut().zip(settles) {
                if let Some(settle) = settle {
                    settle.settle(config);
                }
            }
        }
        let called: Vec<raters::Part<'_>> = configs
            .iter()
            .zip(parts)
            .map(|(c, p)| (c, layout.items(p)))
            .collect();
        let counted = raters::Counted::of(&called);
        let planned = counted.calls();
        let observer = crate::report::media::progress::Calls::new(&configs, &planned);
        let mut log = crate::run::answers::AnswerLog::create(
            &dir,
            configs.iter().map(|c| c.name.clone()).collect(),
        )?;
        let mut tallies = vec![CallTally::default(); self.plan.configs.len()];
        // Under --sequential a chunk holds no more calls than the concurrency, so a stop or a
        // drop costs at most the calls already out (under two chunks).
        let blocks = if args.sequential.is_some() {
            raters::Blocks::Concurrency
        } else {
            raters::Blocks::Large
        };
        let mut fold_each = |k: usize, index: usize, rating: Rating| {
            log.add(k, &rating);
            tallies[parts[k].of].add(&rating);
            fold(k, &parts[k], index, &rating)
        };
        raters::rate_parts(
            &called,
            counted,
            self.budget,
            observer.clone(),
            &mut fold_each,
            blocks,
        );
        observer.finish();
        log.finish()?;
        Ok(Rated {
            dir,
            created_unix,
            tallies,
            wall_seconds: (0..parts.len()).map(|k| observer.wall_seconds(k)).collect(),
            planned,
        })
    }
}

/// Problems to report after the run directory is written: notes of each cache, answers that
/// could not be cached, and failures that fail the run (exit code 2): refusals, and with
/// `--offline` calls missing from the cache.
pub fn finish<'a>(
    args: &CalibrateSettings,
    caches: &[Arc<Cache>],
    tallies: impl Iterator<Item = (&'a str, &'a CallTally)>,
    dir: &Path,
) -> Result<()> {
    let unwritten: usize = caches
        .iter()
        .map(|c| c.write_errors.load(std::sync::atomic::Ordering::Relaxed))
        .sum();
    for cache in caches {
        for note in crate::report::rate::cache_notes(cache) {
            crate::report::media::format::stderr_line(&format!("note: {note}"));
        }
    }
    let tallies: Vec<(&str, &CallTally)> = tallies.collect();
    for (name, tally) in &tallies {
        for (adjusted, n) in &tally.sent_without {
            crate::report::media::format::stderr_line(&format!(
                "note: {name}: {n} calls were sent {adjusted}"
            ));
        }
    }
    if unwritten > 0 {
        crate::report::media::format::warn(&format!(
            "{unwritten} answers could not be written to the cache; they are in the run directory"
        ));
    }
    judges::check_failures(
        &args.plan.judge,
        caches.first().map(Arc::as_ref),
        tallies.into_iter(),
        &format!("the run directory was written: {}", dir.display()),
    )
}
