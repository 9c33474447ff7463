//! `calibrate --batch`: the plan's uncached calls through an OpenAI-compatible Batch API, in
//! rounds, with a state file that survives Ctrl-C; and `raterlab batch cancel`.

use super::state::{earlier_results, ingest_cached, Entry, State};
use super::{check_batchable, plan_keys, write_shards};
use crate::error::{input_error, Interrupted};
use crate::judge::batch::api::{ApiError, BatchApi, BatchInfo};
use crate::judge::batch::ingest::Tally;
use crate::judge::batch::{Format, Key, Settled, Shard};
use crate::judge::cache::Cache;
use crate::judge::Judge;
use crate::raters::{Config, Part};
use crate::run::batch::Watch;
use crate::run::settings::JudgeSpec;
use crate::run::settings::{CalibrateSettings, PlanSettings};
use anyhow::{Context, Result};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `calibrate --batch` needs an endpoint with a Batch API and an OpenAI-compatible judge.
pub fn check_batch_judges(args: &PlanSettings) -> Result<()> {
    if args.demo || !matches!(args.judge.judge, None | Some(JudgeSpec::OpenAi)) {
        return Err(input_error(
            "--batch sends the calls through an OpenAI-compatible Batch API; drop --demo and --judge, and give --endpoint URL --model NAME",
        ));
    }
    // An experiment file's judges may each name their own endpoint (checked per part).
    if args.judge.endpoint.is_none() && args.config.is_none() {
        return Err(input_error(
            "--batch needs --endpoint URL: the server whose Batch API (/files, /batches) runs the calls, e.g. https://api.openai.com/v1",
        ));
    }
    Ok(())
}

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Ctrl-C stops the wait (not the batches): the handler only raises a flag.
fn watch_ctrl_c() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst));
    });
}

/// Sleeps, waking early on Ctrl-C; false when interrupted.
fn pause(wait: Duration) -> bool {
    let until = Instant::now() + wait;
    while Instant::now() < until {
        if INTERRUPTED.load(Ordering::SeqCst) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50).min(until - Instant::now()));
    }
    !INTERRUPTED.load(Ordering::SeqCst)
}

fn api_error(api: &BatchApi, e: ApiError, plan: &str) -> anyhow::Error {
    let upload_missing = matches!(
        &e,
        ApiError::Status { method: "POST", path, status: 404, .. } if path == "/files"
    );
    if upload_missing {
        return input_error(format!(
            "the server at {} has no Batch API ({e}). For a server without one (vLLM's OpenAI server, llama.cpp, Ollama), use the offline route: `raterlab batch export {plan} --out DIR`, then `vllm run-batch -i DIR/<shard>.jsonl -o results.jsonl --model MODEL` (or examples/ray_batch.py), then `raterlab batch ingest results.jsonl --manifest DIR/manifest.json`, then the same calibrate command with --offline instead of --batch",
            api.base()
        ));
    }
    if matches!(e.status(), Some(400 | 401 | 403 | 404 | 422)) {
        return input_error(format!(
            "the Batch API at {} refused the request: {e}; check --endpoint, --model and the API key (--api-key-env)",
            api.base()
        ));
    }
    anyhow::Error::new(e).context(format!("the Batch API at {}", api.base()))
}

/// Downloads a finished batch's output and error files into `dir` and ingests them.
fn collect(
    api: &BatchApi,
    info: &BatchInfo,
    dir: &Path,
    cache: (&Cache, &crate::judge::batch::Samples),
    known: &dyn Fn(&Key) -> bool,
    tally: &mut Tally,
) -> Result<Vec<String>> {
    let mut names = Vec::new();
    for (file, kind) in [
        (&info.output_file_id, "output"),
        (&info.error_file_id, "errors"),
    ] {
        let Some(file) = file else { continue };
        let name = format!("{}-{kind}.jsonl", info.id);
        api.download(file, &dir.join(&name))
            .map_err(|e| api_error(api, e, ""))?;
        ingest_cached(&dir.join(&name), cache, known, tally)?;
        names.push(name);
    }
    Ok(names)
}

/// How to resume or cancel, for the Ctrl-C message and the state's users.
fn resume_hint(api: &BatchApi, state_path: &Path, running: &[String]) -> String {
    format!(
        "interrupted: {} batch(es) keep running on the server ({}). Run the same command again to resume waiting for them (no new batch is created; state: {}), or cancel them: raterlab batch cancel --endpoint {} --state {}",
        running.len(),
        running.join(", "),
        state_path.display(),
        api.base(),
        state_path.display()
    )
}

/// What the batches settled: a configuration's judge then answers from the cache, or with the
/// failure a batch reported, so the run rates and reports as usual.
#[derive(Debug, Clone)]
pub struct Settle {
    cache: Arc<Cache>,
    failures: Arc<HashMap<Key, crate::judge::CallError>>,
    fresh: Arc<HashSet<Key>>,
    missing: String,
}

impl Settle {
    /// Gives `config` (unless a baseline) the judge that answers from the batches.
    pub fn settle(&self, config: &mut Config) {
        if config.rater.is_baseline() {
            return;
        }
        let settled: Arc<dyn Judge> = Arc::new(Settled {
            cache: self.cache.clone(),
            failures: self.failures.clone(),
            fresh: self.fresh.clone(),
            missing: self.missing.clone(),
            describe: config.judge.describe(),
        });
        config.judge = settled;
    }
}

/// A `calibrate --batch` run's batches: the API, the plan's folder and state file, the
/// cache the results go to, and what the results said so far.
struct Rounds<'a> {
    api: BatchApi,
    dir: PathBuf,
    state_path: PathBuf,
    state: State,
    cache: Arc<Cache>,
    /// The plan's keys: results for other keys are not this plan's.
    known: HashSet<Key>,
    tally: Tally,
    /// The last batch collected, and how it ended.
    last_batch: String,
    watch: &'a dyn Watch,
}

impl Rounds<'_> {
    /// Polls the batches not yet collected until each has ended, collecting each as soon as
    /// it ends (paid results are kept at once); Ctrl-C stops the wait, not the batches.
    fn wait(&mut self, first_wait: f64) -> Result<()> {
        let open: Vec<usize> = (0..self.state.batches.len())
            .filter(|&i| !self.state.batches[i].ingested)
            .collect();
        if open.is_empty() {
            return Ok(());
        }
        let mut wait = first_wait;
        let mut infos: HashMap<usize, BatchInfo> = HashMap::new();
        loop {
            for &i in &open {
                if infos.get(&i).is_some_and(BatchInfo::is_terminal) {
                    continue;
                }
                let info = self
                    .api
                    .get(&self.state.batches[i].id)
                    .map_err(|e| api_error(&self.api, e, ""))?;
                infos.insert(i, info);
            }
            let mut shown: Vec<BatchInfo> =
                open.iter().filter_map(|i| infos.get(i).cloned()).collect();
            shown.sort_by(|a, b| a.id.cmp(&b.id));
            self.watch.polled(&shown);
            for &i in &open {
                match infos.get(&i) {
                    Some(info) if info.is_terminal() && !self.state.batches[i].ingested => {
                        self.collect(i, info)?;
                    }
                    _ => {}
                }
            }
            if open.iter().all(|&i| self.state.batches[i].ingested) {
                break;
            }
            if !pause(Duration::from_secs_f64(wait)) {
                self.watch.done();
                let running: Vec<String> = open
                    .iter()
                    .filter(|&&i| !self.state.batches[i].ingested)
                    .map(|&i| self.state.batches[i].id.clone())
                    .collect();
                return Err(Interrupted(resume_hint(&self.api, &self.state_path, &running)).into());
            }
            wait = (wait * 1.5).min(first_wait.max(600.0));
        }
        self.watch.done();
        Ok(())
    }

    /// Downloads and ingests ended batch `i`, and saves that it is collected.
    fn collect(&mut self, i: usize, info: &BatchInfo) -> Result<()> {
        let known = &self.known;
        let results = collect(
            &self.api,
            info,
            &self.dir,
            (&self.cache, &self.state.batches[i].samples),
            &|k: &Key| known.contains(k),
            &mut self.tally,
        )?;
        let entry = &mut self.state.batches[i];
        entry.status = info.status.clone();
        entry.results = results;
        entry.errors = info.errors.clone();
        entry.ingested = true;
        self.last_batch = format!("{} {}", entry.id, entry.status);
        self.state.save(&self.state_path)?;
        self.watch.note(&format!(
            "batch {} {}: {} answered, {} failed{}",
            info.id,
            info.status,
            info.counts.completed,
            info.counts.failed,
            if info.errors.is_empty() {
                String::new()
            } else {
                format!(" ({})", info.errors.join("; "))
            }
        ));
        Ok(())
    }

    /// Uploads round `round`'s shards (in `round_dir`) and creates a batch of each, saving
    /// each batch's id at once; stops creating on Ctrl-C.
    fn submit(
        &mut self,
        round: u32,
        round_dir: &Path,
        shards: Vec<Shard>,
        hint: &str,
    ) -> Result<()> {
        for shard in shards {
            if INTERRUPTED.load(Ordering::SeqCst) {
                break;
            }
            let file_id = self
                .api
                .upload(&round_dir.join(&shard.file))
                .map_err(|e| api_error(&self.api, e, hint))?;
            let info = self
                .api
                .create(&file_id)
                .map_err(|e| api_error(&self.api, e, hint))?;
            self.state.batches.push(Entry {
                id: info.id.clone(),
                round,
                shard: format!("round-{round}/{}", shard.file),
                model: shard.model.clone(),
                requests: shard.lines,
                status: info.status.clone(),
                results: Vec::new(),
                ingested: false,
                errors: Vec::new(),
                samples: shard.samples.clone(),
            });
            self.state.save(&self.state_path)?;
            self.watch.note(&format!(
                "batch {} created for {} requests to {} (state: {})",
                info.id,
                shard.lines,
                shard.model,
                self.state_path.display()
            ));
        }
        Ok(())
    }

    /// The last round that created a batch (0 before any).
    fn round(&self) -> u32 {
        self.state
            .batches
            .iter()
            .map(|b| b.round)
            .max()
            .unwrap_or(0)
    }

    /// The keys whose failure is not worth another try.
    fn failed_for_good(&self) -> HashSet<Key> {
        self.tally
            .failures
            .iter()
            .flatten()
            .filter(|(_, f)| !f.retryable)
            .map(|(k, _)| *k)
            .collect()
    }

    /// What the batches settled: answers in the cache, failures, and the reason of a call
    /// no batch answered.
    fn settle(self) -> Settle {
        let failures: HashMap<Key, crate::judge::CallError> = self
            .tally
            .failures
            .iter()
            .flatten()
            .filter(|(k, _)| !self.cache.contains(&k.hex()))
            .map(|(k, f)| (*k, f.to_call_error()))
            .collect();
        let rounds_done = self.round();
        let missing = format!(
            "no batch answered it in {rounds_done} round(s) (last: {}); raise --batch-rounds or run the same command again",
            if self.last_batch.is_empty() { "none" } else { &self.last_batch }
        );
        Settle {
            cache: self.cache,
            failures: Arc::new(failures),
            fresh: Arc::new(self.tally.fresh.clone().unwrap_or_default()),
            missing,
        }
    }
}

/// `calibrate --batch`: every uncached call of the parts (configurations and their items)
/// goes through the Batch API of its judge's endpoint (the judges of an experiment file may
/// each have their own: a jury's members' calls go each to its member's server); returns,
/// per part, what settles its judge.
pub fn run_batches(
    args: &CalibrateSettings,
    parts: &[Part<'_>],
    caches: &[Arc<Cache>],
    watch: &dyn Watch,
) -> Result<Vec<Option<Settle>>> {
    check_batchable(parts.iter().map(|p| p.0), "--batch")?;
    // The parts by endpoint, in the order they first appear (baselines make no call).
    let mut groups: Vec<(crate::judge::Endpoint, Vec<usize>)> = Vec::new();
    for (k, part) in parts.iter().enumerate() {
        if part.0.rater.is_baseline() {
            continue;
        }
        let Some(endpoint) = part.0.judge.endpoint() else {
            return Err(input_error(format!(
                "--batch sends calls to an OpenAI-compatible server, and configuration '{}' has none ({}); give its judge an endpoint",
                part.0.name,
                part.0.judge.describe()
            )));
        };
        match groups.iter_mut().find(|g| g.0 .0 == endpoint.0) {
            Some(g) => g.1.push(k),
            None => groups.push((endpoint, vec![k])),
        }
    }
    let mut out: Vec<Option<Settle>> = vec![None; parts.len()];
    for ((endpoint, key), members) in groups {
        let own: Vec<Part<'_>> = members.iter().map(|&k| parts[k]).collect();
        let settle = batches_at(args, &own, caches, watch, &endpoint, key)?;
        for k in members {
            out[k] = Some(settle.clone());
        }
    }
    Ok(out)
}

/// The Batch API at `endpoint`, with `key` or the judge's key variable's.
fn api_at(
    judge: &crate::run::settings::JudgeSettings,
    endpoint: &str,
    key: Option<String>,
) -> Result<BatchApi> {
    let key = key.or_else(|| {
        std::env::var(&judge.api_key_env)
            .ok()
            .filter(|k| !k.trim().is_empty())
    });
    BatchApi::new(
        endpoint,
        key,
        Duration::from_secs_f64(judge.timeout.max(1.0)),
    )
    .map_err(|e| input_error(format!("--endpoint: {e}")))
}

/// The batches of the parts whose judges share one endpoint.
fn batches_at(
    args: &CalibrateSettings,
    parts: &[Part<'_>],
    caches: &[Arc<Cache>],
    watch: &dyn Watch,
    endpoint: &str,
    key: Option<String>,
) -> Result<Settle> {
    let Some(cache) = caches.first().cloned() else {
        return Err(input_error(
            "--batch needs the response cache; drop --no-cache",
        ));
    };
    let judge = &args.plan.judge;
    let endpoint = endpoint.to_string();
    let api = api_at(judge, &endpoint, key)?;
    let (plan_name, known) = plan_keys(parts);
    let dir = cache.path().with_file_name("batches").join(&plan_name);
    let cache_dir = cache
        .path()
        .parent()
        .unwrap_or(Path::new("."))
        .to_path_buf();
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("creating the batch folder '{}'", dir.display()))?;
    let state_path = dir.join("state.json");
    let mut state = State::load(&state_path)?;
    state.endpoint = endpoint.clone();
    let tally = earlier_results(&state, &dir, &cache, &known)?;
    watch_ctrl_c();
    let mut rounds = Rounds {
        api,
        dir,
        state_path,
        state,
        cache,
        known,
        tally,
        last_batch: String::new(),
        watch,
    };
    let first_wait = args.batch.poll_interval.max(0.001);
    loop {
        rounds.wait(first_wait)?;
        let round = rounds.round();
        // Failures not worth another try stay failures; everything else missing is resent.
        let settled = rounds.failed_for_good();
        if round >= args.batch.batch_rounds.max(1) {
            break;
        }
        let round_dir = rounds.dir.join(format!("round-{}", round + 1));
        let (shards, counts) = write_shards(
            &cache_dir,
            parts,
            &round_dir,
            (
                Format::Openai,
                crate::run::judges::samples_per_request(judge),
            ),
            &settled,
        )?;
        if shards.is_empty() {
            break;
        }
        watch.note(&format!(
            "round {}: {} requests in {} batch(es) ({} of the plan's {} calls cached, {} failed for good)",
            round + 1,
            counts.pending,
            shards.len(),
            counts.cached,
            counts.calls,
            settled.len()
        ));
        rounds.submit(round + 1, &round_dir, shards, &plan_hint(args))?;
    }
    Ok(rounds.settle())
}

/// The plan's options for the hint that names `batch export` (the data and model).
fn plan_hint(args: &CalibrateSettings) -> String {
    let models: Vec<String> = args
        .plan
        .judge
        .model
        .iter()
        .map(|m| format!("--model {m}"))
        .collect();
    format!("{} --data {} ...", models.join(" "), args.plan.data.data)
}

/// `raterlab batch cancel`: the unfinished batches of a state file, or the ids given.
pub fn cancel(
    endpoint: &str,
    api_key_env: &str,
    state: Option<&Path>,
    ids: &[String],
) -> Result<Vec<BatchInfo>> {
    let mut targets: Vec<String> = ids.to_vec();
    if let Some(path) = state {
        if !path.is_file() {
            return Err(input_error(format!(
                "no batch state file at '{}'; calibrate --batch prints its path",
                path.display()
            )));
        }
        let saved = State::load(path)?;
        targets.extend(
            saved
                .batches
                .into_iter()
                .filter(|b| !b.ingested)
                .map(|b| b.id),
        );
    }
    let key = std::env::var(api_key_env)
        .ok()
        .filter(|k| !k.trim().is_empty());
    let api = BatchApi::new(endpoint, key, Duration::from_secs(60))
        .map_err(|e| input_error(format!("--endpoint: {e}")))?;
    targets
        .iter()
        .map(|id| api.cancel(id).map_err(|e| api_error(&api, e, "")))
        .collect()
}
