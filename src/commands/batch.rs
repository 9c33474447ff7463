//! `raterlab batch export | ingest | cancel`, and `calibrate --batch`: a plan's uncached calls
//! written as batch input, batch results read into the response cache, and (with --batch) the
//! OpenAI-compatible Batch API driven end to end: upload, create, poll, download, ingest,
//! resubmit what is worth resubmitting, then report from the cache.

use super::calibrate::{data_settings, plan, Plan};
use super::data;
use super::judges::{self, completions_dir};
use crate::cli::{CalibrateArgs, PlanArgs};
use crate::dataset::examples::Example;
use crate::dataset::hub::Progress;
use crate::error::{input_error, Interrupted};
use crate::judge::batch::api::{ApiError, BatchApi, BatchInfo};
use crate::judge::batch::ingest::{self, Tally};
use crate::judge::batch::{self, Counts, Format, Key, Manifest, Settled, Shard, Shards};
use crate::judge::cache::{Cache, Store};
use crate::judge::{Call, Judge};
use crate::raters::{for_each_call, Config};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use serde_json::json;
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What `batch export` wrote.
#[derive(Debug, Clone)]
pub struct ExportSummary {
    pub dir: PathBuf,
    pub manifest: PathBuf,
    pub format: Format,
    pub counts: Counts,
    pub shards: Vec<Shard>,
    pub cache: PathBuf,
}

/// What `batch ingest` read.
#[derive(Debug, Clone)]
pub struct IngestSummary {
    pub files: Vec<PathBuf>,
    pub tally: Tally,
    pub cache: PathBuf,
    pub manifest: PathBuf,
    /// Requests the manifest lists, and how many of them the cache still lacks.
    pub planned: u64,
    pub missing: u64,
}

/// Every judged configuration must call an OpenAI-compatible endpoint: the simulator,
/// replays and score files answer locally.
fn check_batchable(configs: &[Config], what: &str) -> Result<()> {
    if let Some(c) = configs
        .iter()
        .find(|c| !c.rater.is_baseline() && !c.judge.cacheable())
    {
        return Err(input_error(format!(
            "{what} sends calls to an OpenAI-compatible judge, and configuration '{}' uses {}, which answers locally; give --model NAME (and no --judge), or drop --demo",
            c.name,
            c.judge.describe()
        )));
    }
    if configs.iter().all(|c| c.rater.is_baseline()) {
        return Err(input_error(format!(
            "{what}: the plan has no judge call (only baselines); add --rater basic or sc:N"
        )));
    }
    Ok(())
}

/// `calibrate --batch` needs an endpoint with a Batch API and an OpenAI-compatible judge.
pub fn check_batch_judges(args: &PlanArgs) -> Result<()> {
    if args.demo || args.judge.judge.as_deref().is_some_and(|j| j != "openai") {
        return Err(input_error(
            "--batch sends the calls through an OpenAI-compatible Batch API; drop --demo and --judge, and give --endpoint URL --model NAME",
        ));
    }
    if args.judge.endpoint.is_none() {
        return Err(input_error(
            "--batch needs --endpoint URL: the server whose Batch API (/files, /batches) runs the calls, e.g. https://api.openai.com/v1",
        ));
    }
    Ok(())
}

/// The plan's calls, one at a time (the same ones at each call).
fn calls<'a>(configs: &'a [Config], examples: &'a [Example]) -> impl Fn(&mut dyn FnMut(Call)) + 'a {
    move |f: &mut dyn FnMut(Call)| for_each_call(configs, examples, |_, _, call| f(call))
}

/// The plan's keys, and its name: a SHA-256 over every key in order, which names the plan's
/// batch state. One pass over the calls.
fn plan_keys(configs: &[Config], examples: &[Example]) -> (String, HashSet<Key>) {
    let mut h = Sha256::new();
    let mut keys = HashSet::new();
    for_each_call(configs, examples, |_, _, call| {
        let hex = crate::judge::cache::key(&call);
        h.update(hex.as_bytes());
        keys.extend(Key::parse(&hex));
    });
    (crate::judge::cache::hex(&h.finalize()[..16]), keys)
}

fn plan_json(
    args: &PlanArgs,
    dataset: &data::Dataset,
    plan: &Plan,
    seed: u64,
) -> serde_json::Value {
    json!({
        "source": dataset.source,
        "examples": dataset.examples.len(),
        "seed": seed,
        "both_orders": dataset.both_orders,
        "configs": plan.metas.iter().filter(|m| m.model != "-").map(|m| json!({
            "name": m.name, "model": m.model, "prompt": m.prompt, "rater": m.rater,
            "temperature": m.temperature, "max_tokens": m.max_tokens,
        })).collect::<Vec<_>>(),
        "command": super::command_line(),
        "cache_dir": completions_dir(args.judge.cache_dir.as_deref()),
    })
}

/// Writes the pending requests of a plan (not in the cache in `cache_dir`, not in `skip`) as
/// shard files; returns the shards and counts.
fn write_shards(
    cache_dir: &Path,
    configs: &[Config],
    examples: &[Example],
    dir: &Path,
    format: Format,
    skip: &HashSet<Key>,
) -> Result<(Vec<Shard>, Counts)> {
    std::fs::create_dir_all(dir).map_err(|e| {
        input_error(format!(
            "cannot create the folder '{}': {e}; pass another --out",
            dir.display()
        ))
    })?;
    let mut shards = Shards::new(dir, format, batch::MAX_LINES, batch::MAX_BYTES);
    let progress = crate::report::progress::Steps::default();
    let write = |key, call: Call| {
        if skip.contains(&key) {
            return Ok(());
        }
        shards.push(key, &call)
    };
    let mut counts = batch::pending(cache_dir, dir, calls(configs, examples), write, &progress)
        .with_context(|| format!("writing batch files in '{}'", dir.display()))?;
    let shards = shards
        .finish()
        .with_context(|| format!("writing batch files in '{}'", dir.display()))?;
    counts.pending = shards.iter().map(|s| s.lines).sum();
    Ok((shards, counts))
}

/// `raterlab batch export`.
pub fn export(args: &PlanArgs, out: &Path, format: &str) -> Result<ExportSummary> {
    let format = Format::parse(format).ok_or_else(|| {
        input_error(format!(
            "--format '{format}' is not a batch format; use openai (OpenAI Batch, vLLM run-batch, Ray) or anthropic"
        ))
    })?;
    if out.is_file() {
        return Err(input_error(format!(
            "--out '{}' is a file; batch export writes a folder of shard files and manifest.json",
            out.display()
        )));
    }
    let settings = data_settings(args)?;
    let mut plan_args = args.clone();
    // No endpoint, no call, and the cache read for its keys only (below).
    plan_args.judge.offline = true;
    plan_args.judge.no_cache = true;
    let planned = plan(&plan_args, settings.seed)?;
    check_batchable(&planned.configs, "batch export")?;
    let dataset = data::load(&settings, &crate::report::progress::Download::default())?;
    judges::check_configs(&planned.configs, &dataset.examples)?;
    let cache_dir = completions_dir(args.judge.cache_dir.as_deref());
    if cache_dir.is_file() {
        return Err(input_error(format!(
            "--cache-dir '{}' is a file; give the folder of the response cache",
            cache_dir.display()
        )));
    }
    // Shards of an earlier export into this folder are replaced, never mixed in.
    let manifest_path = out.join("manifest.json");
    if let Ok(old) = Manifest::read(&manifest_path) {
        for s in old.shards {
            let _ = std::fs::remove_file(out.join(s.file));
        }
    }
    let (shards, counts) = write_shards(
        &cache_dir,
        &planned.configs,
        &dataset.examples,
        out,
        format,
        &HashSet::new(),
    )?;
    let manifest = Manifest {
        raterlab_version: env!("CARGO_PKG_VERSION").into(),
        format,
        created_unix: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
        plan: plan_json(args, &dataset, &planned, settings.seed),
        counts: counts.clone(),
        shards: shards.clone(),
    };
    manifest
        .write(&manifest_path, out)
        .with_context(|| format!("writing '{}'", manifest_path.display()))?;
    Ok(ExportSummary {
        dir: out.to_path_buf(),
        manifest: manifest_path,
        format,
        counts,
        shards,
        cache: cache_dir,
    })
}

/// `manifest.json` beside the file, or in one of the three folders above it.
fn find_manifest(file: &Path) -> Option<PathBuf> {
    let start = if file.is_dir() {
        Some(file)
    } else {
        file.parent()
    };
    start?
        .ancestors()
        .take(4)
        .map(|d| d.join("manifest.json"))
        .find(|m| m.is_file())
}

/// The result files a path names: the file, or a folder's JSON, JSONL and Parquet files.
fn result_files(path: &Path) -> Result<Vec<PathBuf>> {
    if path.is_dir() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(|e| input_error(format!("cannot read the folder '{}': {e}", path.display())))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.is_file()
                    && p.file_name().is_some_and(|n| n != "manifest.json")
                    && matches!(
                        p.extension().and_then(|e| e.to_str()),
                        Some("json" | "jsonl" | "parquet")
                    )
            })
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(input_error(format!(
                "the folder '{}' holds no .jsonl, .json or .parquet result file",
                path.display()
            )));
        }
        return Ok(files);
    }
    if !path.exists() {
        return Err(input_error(format!(
            "cannot read '{}': file not found; check the path",
            path.display()
        )));
    }
    Ok(vec![path.to_path_buf()])
}

/// The error for a result file that stopped being readable at a line.
fn stopped(path: &Path, at: &ingest::Unreadable, cached: u64) -> anyhow::Error {
    input_error(format!(
        "'{}', line {}: {}; batch ingest reads OpenAI/vLLM batch output, Anthropic results or {{custom_id, text}} rows (JSONL or Parquet). {cached} answers read before it are in the cache",
        path.display(),
        at.line,
        at.message,
    ))
}

/// Reads one result file, each result to `sink`. `Ok(Err(at))`: the file stopped being
/// readable at a line (results before it were taken).
fn read_results(
    path: &Path,
    tally: &mut Tally,
    sink: &mut ingest::Sink,
) -> Result<Result<(), ingest::Unreadable>> {
    if path.extension().and_then(|e| e.to_str()) == Some("parquet") {
        let frame = crate::dataset::frame::read(path)?;
        let ids = frame.text("custom_id", "custom_id", "custom_id")?;
        let column = ["text", "generated_text"]
            .into_iter()
            .find(|c| frame.column_names().iter().any(|n| n == c))
            .ok_or_else(|| {
                input_error(format!(
                    "'{}' has no \"text\" or \"generated_text\" column (it has {}); a results table holds custom_id and the answer's text",
                    path.display(),
                    frame.column_names().join(", ")
                ))
            })?;
        let texts = frame.optional_text(column)?;
        for (row, (id, text)) in ids.into_iter().zip(texts).enumerate() {
            let at = |message: String| ingest::Unreadable {
                line: row as u64 + 1,
                message,
            };
            let line = match batch::results::read(&json!({"custom_id": id, column: text})) {
                Ok(line) => line,
                Err(m) => return Ok(Err(at(m))),
            };
            if let Err(e) = sink(line, tally) {
                return Ok(Err(at(format!("cannot keep its result: {e}"))));
            }
        }
        return Ok(Ok(()));
    }
    let file = std::fs::File::open(path)
        .map_err(|e| input_error(format!("cannot read '{}': {e}", path.display())))?;
    let name = path.display().to_string();
    Ok(ingest::jsonl(
        std::io::BufReader::with_capacity(1 << 20, file),
        &name,
        tally,
        sink,
    ))
}

/// `raterlab batch ingest`: the results are taken in one pass over the files, then settled
/// part by part (`ingest::Join`), so memory stays bounded however many there are.
pub fn ingest_files(
    files: &[PathBuf],
    manifest: Option<&Path>,
    cache_dir: Option<&Path>,
) -> Result<IngestSummary> {
    let mut paths = Vec::new();
    for f in files {
        paths.extend(result_files(f)?);
    }
    let manifest_path = match manifest {
        Some(m) => m.to_path_buf(),
        None => files.first().and_then(|f| find_manifest(f)).ok_or_else(|| {
            input_error(format!(
                "no manifest.json beside '{}' or in a folder above it; pass --manifest DIR/manifest.json (written by `raterlab batch export --out DIR`)",
                files.first().map(|f| f.display().to_string()).unwrap_or_default()
            ))
        })?,
    };
    // Checked whole first (without its keys), then its keys streamed into the join.
    Manifest::read(&manifest_path).map_err(input_error)?;
    let cache = completions_dir(cache_dir);
    if cache.is_file() {
        return Err(input_error(format!(
            "--cache-dir '{}' is a file; give the folder of the response cache",
            cache.display()
        )));
    }
    let mut join = ingest::Join::open(&cache, |each| Manifest::for_each_key(&manifest_path, each))
        .map_err(input_error)?;
    let mut tally = Tally::default();
    let mut stop = None;
    let progress = crate::report::progress::Steps::default();
    progress.start("batch ingest: result lines read", None);
    let mut lines = 0u64;
    for path in &paths {
        let read = read_results(path, &mut tally, &mut |line, _| {
            lines += 1;
            if lines % 4096 == 0 {
                progress.advance(4096);
            }
            join.push(&line)
        });
        match read {
            Ok(Ok(())) => {}
            // What was read before the stop is still settled into the cache.
            Ok(Err(at)) => {
                stop = Some((path.clone(), Ok(at)));
                break;
            }
            Err(e) => {
                stop = Some((path.clone(), Err(e)));
                break;
            }
        }
    }
    let joined = join
        .finish(&mut tally, &progress)
        .with_context(|| format!("writing answers to the cache in '{}'", cache.display()))?;
    match stop {
        Some((path, Ok(at))) => return Err(stopped(&path, &at, tally.cached)),
        Some((_, Err(e))) => return Err(e),
        None => {}
    }
    Ok(IngestSummary {
        files: paths,
        tally,
        cache,
        manifest: manifest_path,
        planned: joined.planned,
        missing: joined.missing,
    })
}

/// One batch of a `calibrate --batch` run, as saved in its state file.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    id: String,
    round: u32,
    /// The shard it was made from (relative to the state's folder).
    shard: String,
    model: String,
    requests: u64,
    status: String,
    /// Its result files (relative to the state's folder), once downloaded and ingested.
    results: Vec<String>,
    ingested: bool,
    #[serde(default)]
    errors: Vec<String>,
}

/// `state.json` of a plan's batches.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct State {
    endpoint: String,
    batches: Vec<Entry>,
}

impl State {
    fn load(path: &Path) -> Result<Self> {
        match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| {
                input_error(format!(
                    "the batch state file '{}' is damaged ({e}); its batches are listed there for `raterlab batch cancel`; move it away to start new batches",
                    path.display()
                ))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(input_error(format!(
                "cannot read the batch state file '{}': {e}",
                path.display()
            ))),
        }
    }

    /// Written whole, at once: a batch created is never forgotten.
    fn save(&self, path: &Path) -> Result<()> {
        let partial = path.with_extension("json.partial");
        let text = serde_json::to_string_pretty(self)?;
        std::fs::write(&partial, text)
            .and_then(|()| std::fs::rename(&partial, path))
            .with_context(|| format!("saving the batch state '{}'", path.display()))
    }
}

/// What `calibrate --batch` tells its user while it waits.
pub trait Watch {
    /// A line of news (a round started, a batch ended).
    fn note(&self, message: &str);
    /// The latest status of the batches being waited on.
    fn polled(&self, batches: &[BatchInfo]);
    /// Waiting is over.
    fn done(&self);
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

/// Reads one result file straight into the run's cache.
fn ingest_cached(
    path: &Path,
    cache: &Cache,
    known: &dyn Fn(&Key) -> bool,
    tally: &mut Tally,
) -> Result<()> {
    read_results(path, tally, &mut ingest::settling(cache, known))?
        .map_err(|at| stopped(path, &at, tally.cached))
}

/// Downloads a finished batch's output and error files into `dir` and ingests them.
fn collect(
    api: &BatchApi,
    info: &BatchInfo,
    dir: &Path,
    cache: &Cache,
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

/// `calibrate --batch`: every uncached call of the plan goes through the Batch API; returns
/// the configurations with judges that answer from the cache (or with the failure a batch
/// reported), so the run rates and reports as usual.
pub fn run_batches(
    args: &CalibrateArgs,
    configs: Vec<Config>,
    examples: &[Example],
    caches: &[Arc<Cache>],
    watch: &dyn Watch,
) -> Result<Vec<Config>> {
    check_batchable(&configs, "--batch")?;
    let Some(cache) = caches.first().cloned() else {
        return Err(input_error(
            "--batch needs the response cache; drop --no-cache",
        ));
    };
    let judge = &args.plan.judge;
    let endpoint = judge.endpoint.clone().unwrap_or_default();
    let key = std::env::var(&judge.api_key_env)
        .ok()
        .filter(|k| !k.trim().is_empty());
    let api = BatchApi::new(
        &endpoint,
        key,
        Duration::from_secs_f64(judge.timeout.max(1.0)),
    )
    .map_err(|e| input_error(format!("--endpoint: {e}")))?;
    let (plan_name, known) = plan_keys(&configs, examples);
    let dir = cache.path().with_file_name("batches").join(&plan_name);
    let cache_dir = cache.path().parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("creating the batch folder '{}'", dir.display()))?;
    let state_path = dir.join("state.json");
    let mut state = State::load(&state_path)?;
    state.endpoint = endpoint.clone();
    let known = |k: &Key| known.contains(k);
    let mut tally = Tally {
        fresh: Some(HashSet::new()),
        failures: Some(HashMap::new()),
        ..Tally::default()
    };
    // Results already downloaded (an earlier run of this command) count again: their
    // failures decide what is worth resubmitting.
    for entry in state.batches.iter().filter(|b| b.ingested) {
        for name in &entry.results {
            ingest_cached(&dir.join(name), cache.as_ref(), &known, &mut tally)?;
        }
    }
    watch_ctrl_c();
    let rounds = args.batch.batch_rounds.max(1);
    let first_wait = args.batch.poll_interval.max(0.001);
    let mut last_batch = String::new();
    loop {
        let open: Vec<usize> = (0..state.batches.len())
            .filter(|&i| !state.batches[i].ingested)
            .collect();
        if !open.is_empty() {
            let mut wait = first_wait;
            let mut infos: HashMap<usize, BatchInfo> = HashMap::new();
            loop {
                for &i in &open {
                    if infos.get(&i).is_some_and(BatchInfo::is_terminal) {
                        continue;
                    }
                    let info = api
                        .get(&state.batches[i].id)
                        .map_err(|e| api_error(&api, e, ""))?;
                    infos.insert(i, info);
                }
                let mut shown: Vec<BatchInfo> =
                    open.iter().filter_map(|i| infos.get(i).cloned()).collect();
                shown.sort_by(|a, b| a.id.cmp(&b.id));
                watch.polled(&shown);
                // Collect each batch as soon as it ends: paid results are kept at once.
                for &i in &open {
                    let Some(info) = infos.get(&i) else { continue };
                    if !info.is_terminal() || state.batches[i].ingested {
                        continue;
                    }
                    let results = collect(&api, info, &dir, &cache, &known, &mut tally)?;
                    let entry = &mut state.batches[i];
                    entry.status = info.status.clone();
                    entry.results = results;
                    entry.errors = info.errors.clone();
                    entry.ingested = true;
                    last_batch = format!("{} {}", entry.id, entry.status);
                    state.save(&state_path)?;
                    watch.note(&format!(
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
                }
                if open.iter().all(|&i| state.batches[i].ingested) {
                    break;
                }
                if !pause(Duration::from_secs_f64(wait)) {
                    watch.done();
                    let running: Vec<String> = open
                        .iter()
                        .filter(|&&i| !state.batches[i].ingested)
                        .map(|&i| state.batches[i].id.clone())
                        .collect();
                    return Err(Interrupted(resume_hint(&api, &state_path, &running)).into());
                }
                wait = (wait * 1.5).min(first_wait.max(600.0));
            }
            watch.done();
        }
        let round = state.batches.iter().map(|b| b.round).max().unwrap_or(0);
        // Failures not worth another try stay failures; everything else missing is resent.
        let settled: HashSet<Key> = tally
            .failures
            .iter()
            .flatten()
            .filter(|(_, f)| !f.retryable)
            .map(|(k, _)| *k)
            .collect();
        if round >= rounds {
            break;
        }
        let round_dir = dir.join(format!("round-{}", round + 1));
        let (shards, counts) = write_shards(
            cache_dir,
            &configs,
            examples,
            &round_dir,
            Format::Openai,
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
        for shard in shards {
            if INTERRUPTED.load(Ordering::SeqCst) {
                break;
            }
            let path = round_dir.join(&shard.file);
            let file_id = api
                .upload(&path)
                .map_err(|e| api_error(&api, e, &plan_hint(args)))?;
            let info = api
                .create(&file_id)
                .map_err(|e| api_error(&api, e, &plan_hint(args)))?;
            state.batches.push(Entry {
                id: info.id.clone(),
                round: round + 1,
                shard: format!("round-{}/{}", round + 1, shard.file),
                model: shard.model.clone(),
                requests: shard.lines,
                status: info.status.clone(),
                results: Vec::new(),
                ingested: false,
                errors: Vec::new(),
            });
            state.save(&state_path)?;
            watch.note(&format!(
                "batch {} created for {} requests to {} (state: {})",
                info.id,
                shard.lines,
                shard.model,
                state_path.display()
            ));
        }
    }
    let failures: HashMap<Key, crate::judge::CallError> = tally
        .failures
        .iter()
        .flatten()
        .filter(|(k, _)| !cache.contains(&k.hex()))
        .map(|(k, f)| (*k, f.to_call_error()))
        .collect();
    let rounds_done = state.batches.iter().map(|b| b.round).max().unwrap_or(0);
    let missing = format!(
        "no batch answered it in {rounds_done} round(s) (last: {}); raise --batch-rounds or run the same command again",
        if last_batch.is_empty() { "none" } else { &last_batch }
    );
    let failures = Arc::new(failures);
    let fresh = Arc::new(tally.fresh.clone().unwrap_or_default());
    Ok(configs
        .into_iter()
        .map(|mut c| {
            if !c.rater.is_baseline() {
                let settled: Arc<dyn Judge> = Arc::new(Settled {
                    cache: cache.clone(),
                    failures: failures.clone(),
                    fresh: fresh.clone(),
                    missing: missing.clone(),
                    describe: c.judge.describe(),
                });
                c.judge = settled;
            }
            c
        })
        .collect())
}

/// The plan's options for the hint that names `batch export` (the data and model).
fn plan_hint(args: &CalibrateArgs) -> String {
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
