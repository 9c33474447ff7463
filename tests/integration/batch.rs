//! Batch engines: `batch export`, `batch ingest` (OpenAI, vLLM, Anthropic and Ray shapes) and
//! `calibrate --batch` against a mock OpenAI Batch API on 127.0.0.1 (status transitions,
//! output out of order, per-line errors, an expired batch, a batch where every line failed,
//! duplicate custom_ids refused with 400, kill -9 and resume). Every run must end with each
//! item rated, without a verdict or failed with a reason, and equal an online run of the same
//! plan against the same mock judge.

use crate::common::{error_of, raterlab, run, write};
use crate::mock_http::{MockServer, Reply, Request};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The mock judge's answer to a chat request body: a grade for pointwise prompts, else a
/// verdict from the text's length (deterministic, and the same online and in a batch).
fn answer(body: &Value) -> String {
    let user = body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_str())
        .unwrap_or("");
    if user.contains("Rating: [[") {
        return format!("Fine. Rating: [[{}]]", user.len() % 10 + 1);
    }
    // RewardBench 2's four-way prompt (its instructions are the system message) and its 1-10
    // ratings prompts.
    if user.contains("[The Start of Assistant D's Answer]") {
        return format!(
            "Assistant {0} is best. [[{0}]]",
            ["A", "B", "C", "D"][user.len() % 4]
        );
    }
    if user.contains("rate the response on a scale of 1 to 10") {
        return format!("A fair answer.\n{}", user.len() % 10 + 1);
    }
    match user.len() % 3 {
        0 => "Response 2 is clearer. <winner>2</winner>".into(),
        1 => "Response 1 is right. <winner>1</winner>".into(),
        _ => "They are equally good. <tie>".into(),
    }
}

fn chat_body(text: &str) -> Value {
    chat_body_n(text, 1)
}

/// A body of `n` choices (a request asking `n` samples), the prompt billed once.
fn chat_body_n(text: &str, n: u64) -> Value {
    let choices: Vec<Value> = (0..n)
        .map(|k| json!({"index": k, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}))
        .collect();
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "mock",
        "choices": choices,
        "usage": {"prompt_tokens": 100, "completion_tokens": 7 * n, "total_tokens": 100 + 7 * n},
    })
}

/// The mock's answer to a request body: as many choices as it asks for.
fn answered(body: &Value) -> Value {
    chat_body_n(&answer(body), body["n"].as_u64().unwrap_or(1))
}

fn json_reply(status: u16, v: &Value) -> Reply {
    Reply::Full {
        status,
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: v.to_string().into_bytes(),
    }
}

/// How a batch of the mock goes wrong (by the batch's number, from 1).
#[derive(Debug, Clone, Default)]
struct Faults {
    /// Batches that expire after answering this many lines; the rest are `batch_expired`.
    expire_after: HashMap<usize, usize>,
    /// Batches that complete with every line failed (HTTP 500).
    all_fail: HashSet<usize>,
    /// Lines (by position in the file) of any batch that fail with HTTP 400, for good.
    bad_lines: HashSet<usize>,
    /// Refuse every batch creation with 400, as for duplicate custom_ids.
    refuse: bool,
    /// No Batch API at all (/v1/files is 404), as vLLM's OpenAI server.
    no_files: bool,
    /// Batches that fail validation (status `failed`, no files, the reason in `errors`).
    invalid: HashSet<usize>,
}

#[derive(Debug, Default)]
struct Batch {
    input: String,
    status: String,
    errors_data: Option<Value>,
    polls: usize,
    output: Option<String>,
    errors: Option<String>,
    total: usize,
    completed: usize,
    failed: usize,
}

#[derive(Debug, Default)]
struct World {
    files: HashMap<String, Vec<u8>>,
    batches: Vec<Batch>,
    created: usize,
    duplicate_refusals: usize,
}

/// A mock OpenAI Batch API (and chat endpoint) on 127.0.0.1.
struct BatchServer {
    server: MockServer,
    world: Arc<Mutex<World>>,
    /// While set, batches stay in progress.
    hold: Arc<AtomicBool>,
}

impl BatchServer {
    fn start(faults: Faults) -> Self {
        let world = Arc::new(Mutex::new(World::default()));
        let hold = Arc::new(AtomicBool::new(false));
        let (w, h) = (world.clone(), hold.clone());
        let server = MockServer::start(move |r| handle(r, &w, &h, &faults));
        Self {
            server,
            world,
            hold,
        }
    }

    fn endpoint(&self) -> String {
        format!("{}/v1", self.server.url)
    }

    fn created(&self) -> usize {
        self.world.lock().expect("world").created
    }

    fn chat_calls(&self) -> usize {
        self.server
            .requests
            .lock()
            .expect("log")
            .iter()
            .filter(|r| r.path.ends_with("/chat/completions"))
            .count()
    }

    /// The request lines of each batch created, in order.
    fn batch_sizes(&self) -> Vec<usize> {
        let w = self.world.lock().expect("world");
        w.batches
            .iter()
            .map(|b| {
                w.files.get(&b.input).map_or(0, |f| {
                    f.split(|c| *c == b'\n').filter(|l| !l.is_empty()).count()
                })
            })
            .collect()
    }
}

/// The `file` part of a multipart/form-data body.
fn multipart_file(r: &Request) -> Option<Vec<u8>> {
    let content_type = r.header("content-type")?;
    let boundary = content_type.split("boundary=").nth(1)?.trim_matches('"');
    let delimiter = format!("--{boundary}");
    let body = &r.body;
    let text = String::from_utf8_lossy(body);
    for part in text.split(&delimiter) {
        if part.contains("name=\"file\"") {
            let start = part.find("\r\n\r\n")? + 4;
            let content = &part[start..];
            return Some(
                content
                    .strip_suffix("\r\n")
                    .unwrap_or(content)
                    .as_bytes()
                    .to_vec(),
            );
        }
    }
    None
}

fn batch_json(id: usize, b: &Batch) -> Value {
    json!({
        "id": format!("batch_{id}"), "object": "batch", "endpoint": "/v1/chat/completions",
        "input_file_id": b.input, "completion_window": "24h", "status": b.status,
        "output_file_id": b.output, "error_file_id": b.errors.clone().unwrap_or_default(),
        "request_counts": {"total": b.total, "completed": b.completed, "failed": b.failed},
        "errors": b.errors_data,
    })
}

/// Runs a batch's lines: output and error files, out of order (reversed).
fn finish(world: &mut World, index: usize, faults: &Faults) {
    let number = index + 1;
    let input = world
        .files
        .get(&world.batches[index].input)
        .cloned()
        .unwrap_or_default();
    let lines: Vec<Value> = String::from_utf8_lossy(&input)
        .lines()
        .filter(|l| !l.is_empty())
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    for (i, line) in lines.iter().enumerate() {
        let id = line["custom_id"].clone();
        let expired = faults.expire_after.get(&number).is_some_and(|&k| i >= k);
        if expired {
            err.push(json!({"id": format!("batch_req_{i}"), "custom_id": id, "response": null,
                "error": {"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}}));
        } else if faults.all_fail.contains(&number) {
            err.push(json!({"id": format!("batch_req_{i}"), "custom_id": id,
                "response": {"status_code": 500, "request_id": "r", "body": {"error": {"message": "The server had an error", "type": "server_error"}}}, "error": null}));
        } else if faults.bad_lines.contains(&i) {
            err.push(json!({"id": format!("batch_req_{i}"), "custom_id": id,
                "response": {"status_code": 400, "request_id": "r", "body": {"error": {"message": "This model's maximum context length is 16 tokens", "type": "invalid_request_error"}}}, "error": null}));
        } else {
            out.push(json!({"id": format!("batch_req_{i}"), "custom_id": id,
                "response": {"status_code": 200, "request_id": "r", "body": answered(&line["body"])}, "error": null}));
        }
    }
    // Output order is not input order.
    out.reverse();
    err.reverse();
    let to_file = |rows: &[Value]| -> Vec<u8> {
        rows.iter()
            .map(|r| format!("{r}\n"))
            .collect::<String>()
            .into_bytes()
    };
    let status = if faults.expire_after.contains_key(&number) {
        "expired"
    } else {
        "completed"
    };
    let (completed, failed) = (out.len(), err.len());
    let output = (!out.is_empty()).then(|| {
        let id = format!("file-out-{number}");
        world.files.insert(id.clone(), to_file(&out));
        id
    });
    let errors = (!err.is_empty()).then(|| {
        let id = format!("file-err-{number}");
        world.files.insert(id.clone(), to_file(&err));
        id
    });
    let b = &mut world.batches[index];
    b.status = status.into();
    b.output = output;
    b.errors = errors;
    b.completed = completed;
    b.failed = failed;
}

fn handle(r: &Request, world: &Mutex<World>, hold: &AtomicBool, faults: &Faults) -> Reply {
    let mut w = world.lock().expect("world");
    let path = r.path.trim_start_matches("/v1");
    match (r.method.as_str(), path) {
        ("POST", "/chat/completions") => {
            let body: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
            json_reply(200, &answered(&body))
        }
        ("POST", "/files") if faults.no_files => json_reply(404, &json!({"detail": "Not Found"})),
        ("POST", "/files") => match multipart_file(r) {
            Some(content) => {
                let id = format!("file-in-{}", w.files.len() + 1);
                let bytes = content.len();
                w.files.insert(id.clone(), content);
                json_reply(
                    200,
                    &json!({"id": id, "object": "file", "bytes": bytes, "purpose": "batch"}),
                )
            }
            None => json_reply(400, &json!({"error": {"message": "no file part"}})),
        },
        ("POST", "/batches") => {
            let body: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
            let input = body["input_file_id"].as_str().unwrap_or("").to_string();
            let Some(content) = w.files.get(&input).cloned() else {
                return json_reply(404, &json!({"error": {"message": "no such file"}}));
            };
            let mut ids = HashSet::new();
            let mut total = 0;
            for line in String::from_utf8_lossy(&content)
                .lines()
                .filter(|l| !l.is_empty())
            {
                let v: Value = serde_json::from_str(line).unwrap_or(Value::Null);
                total += 1;
                if faults.refuse || !ids.insert(v["custom_id"].as_str().unwrap_or("").to_string()) {
                    w.duplicate_refusals += 1;
                    return json_reply(
                        400,
                        &json!({"error": {"message": format!("Duplicate custom_id '{}' in the input file", v["custom_id"]), "type": "invalid_request_error"}}),
                    );
                }
            }
            w.created += 1;
            w.batches.push(Batch {
                input,
                status: "validating".into(),
                total,
                ..Batch::default()
            });
            let index = w.batches.len() - 1;
            json_reply(200, &batch_json(index + 1, &w.batches[index]))
        }
        ("GET", p) if p.starts_with("/batches/batch_") => {
            let Some(index) = p["/batches/batch_".len()..]
                .parse::<usize>()
                .ok()
                .and_then(|n| n.checked_sub(1))
                .filter(|&i| i < w.batches.len())
            else {
                return json_reply(404, &json!({"error": {"message": "no such batch"}}));
            };
            let held = hold.load(Ordering::SeqCst);
            let b = &mut w.batches[index];
            b.polls += 1;
            let next = match b.status.as_str() {
                "validating" if faults.invalid.contains(&(index + 1)) => {
                    b.errors_data = Some(
                        json!({"object": "list", "data": [{"code": "invalid_json_line", "message": "The server could not read line 3", "line": 3}]}),
                    );
                    Some("failed")
                }
                "validating" => Some("in_progress"),
                "in_progress" if !held => Some("finalizing"),
                "finalizing" => None,
                _ => Some(""),
            };
            match next {
                Some("") => {}
                Some(s) => b.status = s.into(),
                None => finish(&mut w, index, faults),
            }
            json_reply(200, &batch_json(index + 1, &w.batches[index]))
        }
        ("POST", p) if p.starts_with("/batches/batch_") && p.ends_with("/cancel") => {
            let n: usize = p["/batches/batch_".len()..p.len() - "/cancel".len()]
                .parse()
                .unwrap_or(0);
            match w.batches.get_mut(n.wrapping_sub(1)) {
                Some(b) => {
                    b.status = "cancelled".into();
                    json_reply(200, &batch_json(n, b))
                }
                None => json_reply(404, &json!({"error": {"message": "no such batch"}})),
            }
        }
        ("GET", p) if p.starts_with("/files/") && p.ends_with("/content") => {
            let id = &p["/files/".len()..p.len() - "/content".len()];
            match w.files.get(id) {
                Some(bytes) => Reply::Full {
                    status: 200,
                    headers: vec![("Content-Type".into(), "application/octet-stream".into())],
                    body: bytes.clone(),
                },
                None => json_reply(404, &json!({"error": {"message": "no such file"}})),
            }
        }
        _ => json_reply(
            404,
            &json!({"error": {"message": format!("no route {} {}", r.method, r.path)}}),
        ),
    }
}

/// The plan options both runs share.
const PLAN: [&str; 9] = [
    "--model",
    "mock-judge",
    "--limit",
    "6",
    "--both-orders",
    "--prompt",
    "simple_with_tie",
    "--rater",
    "basic",
];

/// The shared plan, each sample its own request (`--samples-per-request 1`): the batch
/// machinery's tests count requests as calls; `samples_in_one_request_*` test `n`.
fn plan_args(extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = PLAN.iter().map(|s| s.to_string()).collect();
    args.extend(["--rater", "sc:3"].map(String::from));
    if !extra.contains(&"--samples-per-request") {
        args.extend(["--samples-per-request", "1"].map(String::from));
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

/// `calibrate --json` with these arguments; the parsed document.
fn calibrate(args: &[String]) -> (i32, Value, String) {
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = run(&refs);
    (code, serde_json::from_str(&out).unwrap_or(Value::Null), err)
}

/// The figures of a calibrate document that a batch run must reproduce.
fn figures(doc: &Value) -> Value {
    let configs = doc["configs"].as_array().cloned().unwrap_or_default();
    Value::Array(
        configs
            .iter()
            .map(|c| json!({"name": c["name"], "counts": c["counts"], "overall": c["overall"], "reasons": c["reasons"]}))
            .collect(),
    )
}

struct Runs {
    dir: tempfile::TempDir,
}

impl Runs {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }
    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).to_string_lossy().into_owned()
    }
    fn calibrate(
        &self,
        endpoint: &str,
        cache: &str,
        out: &str,
        extra: &[&str],
    ) -> (i32, Value, String) {
        calibrate(&self.args(endpoint, cache, out, extra))
    }
    /// `calibrate --json` of the shared plan (and `extra`) with its cache and run directory.
    fn args(&self, endpoint: &str, cache: &str, out: &str, extra: &[&str]) -> Vec<String> {
        let mut args = vec![
            "calibrate".to_string(),
            "--json".into(),
            "--endpoint".into(),
            endpoint.into(),
            "--cache-dir".into(),
            self.path(cache),
            "--out".into(),
            self.path(out),
            "--bootstrap".into(),
            "0".into(),
        ];
        args.extend(plan_args(extra));
        args
    }
    /// The online reference run (its own cache).
    fn online(&self, server: &BatchServer) -> Value {
        let (code, doc, err) = self.calibrate(&server.endpoint(), "online-cache", "online", &[]);
        assert_eq!(code, 0, "{err}");
        doc
    }
    fn batch(&self, server: &BatchServer, extra: &[&str]) -> (i32, Value, String) {
        calibrate(&self.batch_args(server, extra))
    }
    fn batch_args(&self, server: &BatchServer, extra: &[&str]) -> Vec<String> {
        let mut all = vec!["--batch", "--poll-interval", "0.02"];
        all.extend_from_slice(extra);
        self.args(&server.endpoint(), "batch-cache", "batched", &all)
    }
}

/// Each item ends rated, without a verdict, or failed with a reason; the counts add up.
fn assert_accounted(doc: &Value) {
    for c in doc["configs"].as_array().expect("configs") {
        let n = &c["counts"];
        let sum = ["rated", "no_verdict", "call_failures"]
            .iter()
            .map(|k| n[k].as_u64().unwrap_or(0))
            .sum::<u64>();
        assert_eq!(Some(sum), n["examples"].as_u64(), "{}: {n}", c["name"]);
    }
}

#[test]
fn a_batch_run_equals_the_online_run_with_output_out_of_order() {
    let server = BatchServer::start(Faults::default());
    let runs = Runs::new();
    let online = runs.online(&server);
    let chat = server.chat_calls();
    assert_eq!(chat, 12 * 4, "6 pairs x 2 orders x (1 + 3 samples)");
    let (code, batched, err) = runs.batch(&server, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        server.chat_calls(),
        chat,
        "a batch run makes no online call"
    );
    assert_eq!(server.created(), 1);
    assert_eq!(server.batch_sizes(), [48]);
    assert_eq!(figures(&batched), figures(&online));
    assert_accounted(&batched);
    assert!(
        err.contains("batch batch_1 completed: 48 answered, 0 failed"),
        "{err}"
    );
    // The batch's answers are calls of this run, not cache hits; a re-run sends nothing.
    let cost = &batched["configs"][0]["cost"];
    assert_eq!(
        (cost["calls"].as_u64(), cost["cache_hits"].as_u64()),
        (Some(12), Some(0)),
        "{cost}"
    );
    let (code, again, err) = runs.batch(&server, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(server.created(), 1, "everything cached: no second batch");
    assert_eq!(figures(&again), figures(&online));
}

/// Runs the shared plan online and through the mock's batches with `faults`; asserts the
/// batches had `sizes` requests and that the batch run equals the online run with every item
/// accounted for. Returns the batch run's stderr.
fn recovers(faults: Faults, sizes: &[usize]) -> String {
    let server = BatchServer::start(faults);
    let runs = Runs::new();
    let online = runs.online(&server);
    let chat = server.chat_calls();
    let (code, batched, err) = runs.batch(&server, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        server.chat_calls(),
        chat,
        "a batch run makes no online call"
    );
    assert_eq!(server.batch_sizes(), sizes);
    assert_eq!(figures(&batched), figures(&online));
    assert_accounted(&batched);
    err
}

/// The same plan and faults through the batches alone (`extra` options), when no batch
/// answers any call: the run is written (its JSON printed), and the
/// command fails naming every configuration left without an answer.
fn batch_unanswered(faults: Faults, extra: &[&str]) -> (BatchServer, Value) {
    let server = BatchServer::start(faults);
    let runs = Runs::new();
    let (code, doc, err) = runs.batch(&server, extra);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(
            "error: no call of these configurations was answered: simple_with_tie/basic ("
        ) && err.contains("; simple_with_tie/sc:3 ("),
        "{err}"
    );
    assert_accounted(&doc);
    (server, doc)
}

#[test]
fn an_expired_batch_keeps_its_results_and_the_rest_is_resubmitted() {
    // The 20 paid answers are kept; 28 go again.
    let err = recovers(
        Faults {
            expire_after: HashMap::from([(1, 20)]),
            ..Faults::default()
        },
        &[48, 28],
    );
    assert!(
        err.contains("batch batch_1 expired: 20 answered, 28 failed"),
        "{err}"
    );
}

#[test]
fn a_completed_batch_with_every_line_failed_is_retried_within_the_round_limit() {
    let all_fail = || Faults {
        all_fail: HashSet::from([1]),
        ..Faults::default()
    };
    recovers(all_fail(), &[48, 48]);
    // With one round, the failures stay failures, each with its reason, and counts add up.
    let (server, doc) = batch_unanswered(all_fail(), &["--batch-rounds", "1"]);
    assert_eq!(server.created(), 1);
    let basic = &doc["configs"][0];
    assert_eq!(basic["counts"]["call_failures"], 12, "{}", basic["counts"]);
    assert!(
        basic["reasons"].to_string().contains("HTTP 500"),
        "{}",
        basic["reasons"]
    );
}

#[test]
fn a_batch_that_fails_validation_is_resubmitted_and_its_reason_shown() {
    let err = recovers(
        Faults {
            invalid: HashSet::from([1]),
            ..Faults::default()
        },
        &[48, 48],
    );
    assert!(
        err.contains("batch batch_1 failed: 0 answered, 0 failed (The server could not read line 3 (line 3))"),
        "{err}"
    );
    // Failing every round: each item fails with the reason, and the counts add up.
    let (_, doc) = batch_unanswered(
        Faults {
            invalid: HashSet::from([1, 2]),
            ..Faults::default()
        },
        &["--batch-rounds", "2"],
    );
    assert_eq!(doc["configs"][0]["counts"]["call_failures"], 12);
    assert!(
        doc["configs"][0]["reasons"]
            .to_string()
            .contains("no batch answered it in 2 round(s) (last: batch_2 failed)"),
        "{}",
        doc["configs"][0]["reasons"]
    );
}

#[test]
fn per_line_errors_fail_their_items_with_the_reason_and_are_not_resent() {
    let server = BatchServer::start(Faults {
        bad_lines: HashSet::from([0, 5]),
        ..Faults::default()
    });
    let runs = Runs::new();
    let (code, doc, err) = runs.batch(&server, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(server.created(), 1, "a 400 is final: nothing to resubmit");
    assert_accounted(&doc);
    // Lines 0 and 5 of the batch are the basic rater's items 0 and 5 (calls go out
    // configuration, then item, then sample).
    let failures: Vec<u64> = doc["configs"]
        .as_array()
        .expect("configs")
        .iter()
        .map(|c| c["counts"]["call_failures"].as_u64().unwrap_or(99))
        .collect();
    assert_eq!(failures, [2, 0]);
    assert!(
        doc.to_string().contains("maximum context length"),
        "the engine's message is kept"
    );
}

#[test]
fn duplicate_requests_are_sent_once_and_a_refused_batch_is_a_clear_error() {
    // Pointwise grading in both orders shows each response twice: the same request, one
    // custom_id. The mock refuses duplicates with 400, as OpenAI does.
    let server = BatchServer::start(Faults::default());
    let runs = Runs::new();
    let online = {
        let (code, doc, err) = runs.calibrate(
            &server.endpoint(),
            "online-cache",
            "online",
            &["--prompt", "mt-bench_single"],
        );
        assert_eq!(code, 0, "{err}");
        doc
    };
    let (code, batched, err) = runs.batch(&server, &["--prompt", "mt-bench_single"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(server.world.lock().expect("world").duplicate_refusals, 0);
    assert_eq!(figures(&batched), figures(&online));
    // A server that refuses the batch: exit 2, the message says so, nothing was lost.
    let server = BatchServer::start(Faults {
        refuse: true,
        ..Faults::default()
    });
    let runs = Runs::new();
    let (code, _, err) = runs.batch(&server, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("refused") && err.contains("Duplicate custom_id"),
        "{err}"
    );
}

#[test]
fn a_server_without_a_batch_api_names_the_offline_route() {
    let server = BatchServer::start(Faults {
        no_files: true,
        ..Faults::default()
    });
    let runs = Runs::new();
    let (code, _, err) = runs.batch(&server, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("has no Batch API")
            && err.contains("batch export")
            && err.contains("vllm run-batch")
            && err.contains("batch ingest"),
        "{err}"
    );
}

/// The state file of the only plan batched into `cache`.
fn state_file(cache: &Path) -> Option<PathBuf> {
    let batches = cache.join("batches");
    std::fs::read_dir(batches)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("state.json"))
        .find(|p| p.is_file())
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    for _ in 0..400 {
        if done() {
            return;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    panic!("timed out waiting for {what}");
}

/// Starts `raterlab ARGS` (a `--batch` run), waits until its first batch was polled `polls`
/// times (the mock holds it in progress), and returns the running process.
fn spawn_polling(server: &BatchServer, args: &[String], polls: usize) -> std::process::Child {
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("raterlab"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    wait_for("the batch to be created and polled", || {
        server
            .world
            .lock()
            .expect("world")
            .batches
            .first()
            .is_some_and(|b| b.polls >= polls)
    });
    child
}

#[test]
fn kill_9_while_polling_then_the_same_command_resumes_without_a_second_batch() {
    let server = BatchServer::start(Faults::default());
    server.hold.store(true, Ordering::SeqCst);
    let runs = Runs::new();
    let online = runs.online(&server);
    let args = runs.batch_args(&server, &[]);
    let mut child = spawn_polling(&server, &args, 3);
    let cache = PathBuf::from(runs.path("batch-cache"));
    child.kill().expect("kill -9");
    let _ = child.wait();
    let state = state_file(&cache).expect("the state file was written before polling");
    assert!(std::fs::read_to_string(&state)
        .expect("state")
        .contains("batch_1"));
    server.hold.store(false, Ordering::SeqCst);
    let (code, resumed, err) = runs.batch(&server, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        server.created(),
        1,
        "resumed the batch instead of paying twice"
    );
    assert_eq!(figures(&resumed), figures(&online));
}

#[test]
fn ctrl_c_leaves_the_batch_running_and_says_how_to_resume_or_cancel() {
    let server = BatchServer::start(Faults::default());
    server.hold.store(true, Ordering::SeqCst);
    let runs = Runs::new();
    let args = runs.batch_args(&server, &[]);
    let child = spawn_polling(&server, &args, 2);
    let interrupted = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill -INT");
    assert!(interrupted.success());
    let out = child.wait_with_output().expect("exits");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        err.contains("keep running")
            && err.contains("batch_1")
            && err.contains("raterlab batch cancel"),
        "{err}"
    );
    assert_eq!(
        server.world.lock().expect("world").batches[0].status,
        "in_progress",
        "not cancelled"
    );
    let state = state_file(Path::new(&runs.path("batch-cache"))).expect("state");
    let state_s = state.to_string_lossy().into_owned();
    let (code, out, err) = run(&[
        "batch",
        "cancel",
        "--endpoint",
        &server.endpoint(),
        "--state",
        &state_s,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("batch_1: cancelled"), "{out}");
    assert_eq!(
        server.world.lock().expect("world").batches[0].status,
        "cancelled"
    );
}

/// The shard lines of an export: (custom_id, body).
pub fn shard_lines(dir: &Path) -> Vec<(String, Value)> {
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("manifest.json")).expect("manifest"),
    )
    .expect("json");
    let mut lines = Vec::new();
    for s in manifest["shards"].as_array().expect("shards") {
        let text =
            std::fs::read_to_string(dir.join(s["file"].as_str().expect("file"))).expect("shard");
        for l in text.lines() {
            let v: Value = serde_json::from_str(l).expect("a JSON line");
            // OpenAI's lines hold the request as `body`, Anthropic's as `params`.
            let body = v.get("body").or_else(|| v.get("params")).cloned();
            lines.push((
                v["custom_id"].as_str().expect("id").to_string(),
                body.unwrap_or(Value::Null),
            ));
        }
    }
    lines
}

/// The mock judge's answers to request lines, as Ray Data output rows (JSONL).
fn ray_rows(lines: &[(String, Value)]) -> String {
    lines
        .iter()
        .map(|(id, body)| {
            format!(
                "{}\n",
                json!({"custom_id": id, "generated_text": answer(body)})
            )
        })
        .collect()
}

#[test]
fn export_then_ingest_then_offline_equals_the_online_run() {
    let server = BatchServer::start(Faults::default());
    let runs = Runs::new();
    let online = runs.online(&server);
    let export = runs.path("export");
    let cache = runs.path("offline-cache");
    let refs = export_args(&export, &cache, &[]);
    let refs: Vec<&str> = refs.iter().map(String::as_str).collect();
    let (code, out, err) = run(&refs);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("48 requests in 1 file(s)"), "{out}");
    let lines = shard_lines(Path::new(&export));
    assert_eq!(lines.len(), 48);
    assert!(lines.iter().all(|(id, body)| id.len() == 64
        && body["model"] == "mock-judge"
        && body.get("stream").is_none()));
    // A small runner in vLLM run-batch's output shape; the first answer is withheld.
    let results: String = lines.iter().skip(1).rev().map(|(id, body)| {
        format!("{}\n", json!({"id": "vllm-x", "custom_id": id, "response": {"status_code": 200, "request_id": "vllm-batch-x", "body": chat_body(&answer(body))}, "error": null}))
    }).collect();
    let results_path = write(runs.dir.path(), "results.jsonl", &results);
    let results_s = results_path.to_string_lossy().into_owned();
    let manifest = format!("{export}/manifest.json");
    let (code, out, err) = ingest(&results_s, &manifest, &cache);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("cached        47") && out.contains("47 answered, 1 still missing"),
        "{out}"
    );
    assert!(
        out.contains("run the same `raterlab batch export` command"),
        "{out}"
    );
    // Idempotent.
    let (code, out, _) = ingest(&results_s, &manifest, &cache);
    assert_eq!(code, 0);
    assert!(
        out.contains("cached        0") && out.contains("already there 47"),
        "{out}"
    );
    // Offline now misses exactly one call, and names it.
    let (code, _, err) = runs.calibrate(
        "http://127.0.0.1:9/v1",
        "offline-cache",
        "offline",
        &["--offline"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("1 of 48 calls are not in the cache"), "{err}");
    // Exporting again writes only the missing one; ingesting it completes the plan.
    let (code, out, err) = run(&refs);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("1 requests in 1 file(s)") && out.contains("47 already cached"),
        "{out}"
    );
    let lines = shard_lines(Path::new(&export));
    assert_eq!(lines.len(), 1);
    let rest = format!(
        "{}\n",
        json!({"custom_id": lines[0].0, "generated_text": answer(&lines[0].1)})
    );
    let rest_path = write(runs.dir.path(), "ray-output.jsonl", &rest);
    let (code, out, err) = ingest(&rest_path.to_string_lossy(), &manifest, &cache);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("every request is answered"), "{out}");
    let (code, offline, err) = runs.calibrate(
        "http://127.0.0.1:9/v1",
        "offline-cache",
        "offline",
        &["--offline"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(figures(&offline), figures(&online));
}

/// `raterlab batch ingest FILE --manifest M --cache-dir C`.
fn ingest(file: &str, manifest: &str, cache: &str) -> (i32, String, String) {
    run(&[
        "batch",
        "ingest",
        file,
        "--manifest",
        manifest,
        "--cache-dir",
        cache,
    ])
}

/// `batch export` of the shared plan (and `extra`) into `out`, with its own cache.
fn export_args(out: &str, cache: &str, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = ["batch", "export", "--out", out, "--cache-dir", cache]
        .map(String::from)
        .to_vec();
    args.extend(plan_args(extra));
    args
}

/// Fills the `KEY-n` placeholders of a fixture with the export's custom_ids.
fn fixture_with_keys(name: &str, keys: &[String]) -> String {
    let mut text =
        std::fs::read_to_string(crate::common::fixture(&format!("batch/{name}"))).expect("fixture");
    for (i, k) in keys.iter().enumerate().rev() {
        text = text.replace(&format!("KEY-{i}"), k);
    }
    text
}

#[test]
fn vllm_and_anthropic_result_shapes_and_bad_input() {
    let runs = Runs::new();
    let export = runs.path("export");
    let cache = runs.path("cache");
    let refs = export_args(&export, &cache, &[]);
    let refs: Vec<&str> = refs.iter().map(String::as_str).collect();
    assert_eq!(run(&refs).0, 0);
    let keys: Vec<String> = shard_lines(Path::new(&export))
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    let manifest = format!("{export}/manifest.json");
    // vLLM: one success, an error as a plain string, an error as an object; an unknown id.
    let vllm = write(
        runs.dir.path(),
        "vllm.jsonl",
        &fixture_with_keys("vllm-output.jsonl", &keys),
    );
    let (code, out, err) = ingest(&vllm.to_string_lossy(), &manifest, &cache);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("cached        1")
            && out.contains("failed        2 (HTTP 400 2)")
            && out.contains("unknown id    1"),
        "{out}"
    );
    // Anthropic: succeeded, errored, expired, canceled.
    let anthropic = write(
        runs.dir.path(),
        "anthropic.jsonl",
        &fixture_with_keys("anthropic-results.jsonl", &keys),
    );
    let (code, out, err) = ingest(&anthropic.to_string_lossy(), &manifest, &cache);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("cached        1")
            && out.contains("failed        3 (canceled 1, expired 1, overloaded_error 1)"),
        "{out}"
    );
    // A truncated last line is counted and skipped; what came before stays.
    let full = fixture_with_keys("vllm-output.jsonl", &keys[2..]);
    let cut = &full[..full.len() - 30];
    let truncated = write(runs.dir.path(), "cut.jsonl", cut);
    let (code, out, err) = ingest(&truncated.to_string_lossy(), &manifest, &cache);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("unreadable    1 lines skipped") && out.contains("cut short"),
        "{out}"
    );
    // Not JSONL at all: exit 2, file and line named.
    let csv = write(runs.dir.path(), "results.csv", "custom_id,text\nabc,x\n");
    let e = error_of(&[
        "batch",
        "ingest",
        &csv.to_string_lossy(),
        "--manifest",
        &manifest,
        "--cache-dir",
        &cache,
    ]);
    assert!(e.contains("results.csv', line 1: not JSON"), "{e}");
    // The export's own input file is not a result.
    let shard = format!("{export}/mock-judge-001.jsonl");
    let e = error_of(&["batch", "ingest", &shard, "--cache-dir", &cache]);
    assert!(e.contains("a batch request line"), "{e}");
    // No manifest to be found.
    let lonely = tempfile::tempdir().expect("tempdir");
    let loose = write(lonely.path(), "out.jsonl", "{}\n");
    let e = error_of(&[
        "batch",
        "ingest",
        &loose.to_string_lossy(),
        "--cache-dir",
        &cache,
    ]);
    assert!(
        e.contains("no manifest.json") && e.contains("--manifest"),
        "{e}"
    );
    // Anthropic request bodies.
    let a_out = runs.path("anthropic-export");
    let mut args = vec![
        "batch".to_string(),
        "export".into(),
        "--format".into(),
        "anthropic".into(),
        "--out".into(),
        a_out.clone(),
        "--cache-dir".into(),
        runs.path("empty-cache"),
    ];
    args.extend(plan_args(&["--prompt", "mt-bench_pairwise"]));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = run(&refs);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Anthropic Message Batches"), "{out}");
    let shard = std::fs::read_to_string(format!("{a_out}/mock-judge-001.jsonl")).expect("shard");
    let lines: Vec<Value> = shard
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert!(
        lines
            .iter()
            .all(|l| l["params"]["messages"][0]["role"] == "user"
                && l["params"]["max_tokens"] == 1024
                && l["custom_id"].as_str().is_some_and(|id| id.len() == 64)),
        "{shard}"
    );
    // MT-Bench's system prompt moves to Anthropic's top-level "system".
    assert!(
        lines.iter().any(|l| l["params"]["system"].is_string()),
        "{shard}"
    );
    let e = error_of(&[
        "batch", "export", "--format", "csv", "--model", "m", "--out", &a_out,
    ]);
    assert!(e.contains("--format 'csv'"), "{e}");
}

#[test]
fn ray_results_as_parquet_are_read() {
    let runs = Runs::new();
    let export = runs.path("export");
    let cache = runs.path("cache");
    let refs = export_args(&export, &cache, &[]);
    let refs: Vec<&str> = refs.iter().map(String::as_str).collect();
    assert_eq!(run(&refs).0, 0);
    let lines = shard_lines(Path::new(&export));
    // A Parquet table as Ray Data's write_parquet makes it, via `data export`'s writer path:
    // written with polars from a JSONL table.
    let rows = ray_rows(&lines);
    let jsonl = write(runs.dir.path(), "rows.jsonl", &rows);
    let parquet = runs.dir.path().join("ray-out").join("part-0.parquet");
    std::fs::create_dir_all(parquet.parent().expect("dir")).expect("dir");
    let status = std::process::Command::new("python3")
        .args(["-c", "import sys, pyarrow.json as j, pyarrow.parquet as p; p.write_table(j.read_json(sys.argv[1]), sys.argv[2])", &jsonl.to_string_lossy(), &parquet.to_string_lossy()])
        .status();
    if !status.is_ok_and(|s| s.success()) {
        crate::common::missing("RATERLAB_REQUIRE_SHARED", "python3 with pyarrow is missing");
        return;
    }
    let folder = runs
        .dir
        .path()
        .join("ray-out")
        .to_string_lossy()
        .into_owned();
    let manifest = format!("{export}/manifest.json");
    let (code, out, err) = ingest(&folder, &manifest, &cache);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("cached        48") && out.contains("every request is answered"),
        "{out}"
    );
}

#[test]
fn batch_flags_are_checked_before_any_work() {
    let e = error_of(&["calibrate", "--batch", "--demo"]);
    assert!(
        e.contains("--batch sends the calls through an OpenAI-compatible Batch API"),
        "{e}"
    );
    let e = error_of(&["calibrate", "--batch", "--model", "m"]);
    assert!(e.contains("--batch needs --endpoint"), "{e}");
    let e = error_of(&["batch", "export", "--demo", "--out", "/tmp/raterlab-never"]);
    assert!(e.contains("answers locally"), "{e}");
    let (code, _, err) = run(&["calibrate", "--batch", "--offline", "--model", "m"]);
    assert_eq!(code, 2, "{err}");
    let _ = raterlab(&["batch", "--help"]).assert().success();
}

#[test]
fn two_runs_and_an_ingest_write_one_cache_at_once_and_offline_finds_every_answer() {
    let server = BatchServer::start(Faults::default());
    let runs = Runs::new();
    let cache = "shared-cache";
    // The ingest's plan (seed 7), exported with its own cache so every request is written.
    let export = runs.path("export");
    let refs = export_args(&export, &runs.path("export-cache"), &["--seed", "7"]);
    let refs: Vec<&str> = refs.iter().map(String::as_str).collect();
    assert_eq!(run(&refs).0, 0);
    let results = ray_rows(&shard_lines(Path::new(&export)));
    let results = write(runs.dir.path(), "results.jsonl", &results);
    // Two online runs (seeds 8 and 9: other positions, so partly other requests) and the
    // ingest, as three processes writing the same store.
    let spawn = |args: Vec<String>| {
        std::process::Command::new(assert_cmd::cargo::cargo_bin("raterlab"))
            .args(args)
            .output()
    };
    let online = |seed: &'static str| {
        let args = runs.args(
            &server.endpoint(),
            cache,
            &format!("online-{seed}"),
            &["--seed", seed, "--concurrency", "2"],
        );
        move || spawn(args)
    };
    let ingest_args: Vec<String> = [
        "batch",
        "ingest",
        &results.to_string_lossy(),
        "--manifest",
        &format!("{export}/manifest.json"),
        "--cache-dir",
        &runs.path(cache),
    ]
    .map(String::from)
    .to_vec();
    let handles = [
        std::thread::spawn(online("8")),
        std::thread::spawn(online("9")),
        std::thread::spawn(move || spawn(ingest_args)),
    ];
    for handle in handles {
        let out = handle.join().expect("joined").expect("ran");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // Every plan is now answered from the shared store alone.
    for seed in ["7", "8", "9"] {
        let (code, doc, err) = runs.calibrate(
            "http://127.0.0.1:9/v1",
            cache,
            &format!("offline-{seed}"),
            &["--offline", "--seed", seed],
        );
        assert_eq!(code, 0, "seed {seed}: {err}");
        for c in doc["configs"].as_array().expect("configs") {
            assert_eq!(c["counts"]["call_failures"], 0, "seed {seed}: {c}");
        }
    }
}

/// RewardBench 2's bundled sample, ranking and ratings, by the mock judge.
const RB2_PLAN: [&str; 8] = [
    "--data",
    "sample-v2",
    "--prompt",
    "rb2_ranking",
    "--prompt",
    "rb2_rating",
    "--model",
    "mock-judge",
];

/// `calibrate --json` of `RB2_PLAN` against `server`.
fn rb2_args(runs: &Runs, server: &BatchServer, cache: &str, out: &str, batch: bool) -> Vec<String> {
    let mut args: Vec<String> = ["calibrate", "--json", "--bootstrap", "0"]
        .iter()
        .chain(&RB2_PLAN)
        .map(|s| s.to_string())
        .collect();
    args.extend([
        "--endpoint".to_string(),
        server.endpoint(),
        "--cache-dir".into(),
        runs.path(cache),
        "--out".into(),
        runs.path(out),
    ]);
    if batch {
        args.extend(["--batch", "--poll-interval", "0.02"].map(String::from));
    }
    args
}

/// What a RewardBench 2 batch run must reproduce of the online run: every score and reading.
fn rb2_figures(doc: &Value) -> Value {
    let configs = doc["configs"].as_array().cloned().unwrap_or_default();
    assert!(!configs.is_empty(), "{doc}");
    Value::Array(
        configs
            .iter()
            .map(|c| json!({"name": c["name"], "scores": c["rewardbench2"], "read": c["read"], "calls": c["calls"]["calls"]}))
            .collect(),
    )
}

/// RewardBench 2 rows go through the Batch API like pairs: one batch, no online call, the
/// same leaderboards as the online run; the run directory holds every answer.
#[test]
fn rewardbench2_rows_go_through_the_batch_api_and_equal_the_online_run() {
    let server = BatchServer::start(Faults::default());
    let runs = Runs::new();
    let (code, online, err) = calibrate(&rb2_args(&runs, &server, "online-cache", "online", false));
    assert_eq!(code, 0, "{err}");
    let chat = server.chat_calls();
    // 15 four-way calls and the distinct completions' grades (sample-v2: 15 rows outside
    // Ties with 4 completions, 2 Ties rows graded by both configurations from one cache).
    assert!(chat > 15, "{chat}");
    let (code, batched, err) = calibrate(&rb2_args(&runs, &server, "batch-cache", "batched", true));
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        server.chat_calls(),
        chat,
        "a batch run makes no online call"
    );
    assert_eq!(server.created(), 1, "{err}");
    assert_eq!(
        server.batch_sizes(),
        [chat],
        "every call in one batch, each once"
    );
    assert_eq!(rb2_figures(&batched), rb2_figures(&online));
    assert!(
        err.contains(&format!(
            "batch batch_1 completed: {chat} answered, 0 failed"
        )),
        "{err}"
    );
    let log = std::fs::read_to_string(Path::new(&runs.path("batched")).join("completions.jsonl"))
        .expect("the answers are in the run directory");
    assert!(log.contains("[[") && log.lines().count() >= chat, "{log}");
    // Everything cached now: the same command creates no batch and sends nothing.
    let (code, again, err) = calibrate(&rb2_args(&runs, &server, "batch-cache", "again", true));
    assert_eq!(code, 0, "{err}");
    assert_eq!((server.created(), server.chat_calls()), (1, chat));
    assert_eq!(
        rb2_figures(&again)[0]["scores"],
        rb2_figures(&online)[0]["scores"]
    );
}

#[test]
fn rewardbench2_batch_killed_while_polling_resumes_without_a_second_batch() {
    let server = BatchServer::start(Faults::default());
    server.hold.store(true, Ordering::SeqCst);
    let runs = Runs::new();
    let (code, online, err) = calibrate(&rb2_args(&runs, &server, "online-cache", "online", false));
    assert_eq!(code, 0, "{err}");
    let chat = server.chat_calls();
    let args = rb2_args(&runs, &server, "batch-cache", "batched", true);
    let mut child = spawn_polling(&server, &args, 3);
    child.kill().expect("kill -9");
    let _ = child.wait();
    let state = state_file(Path::new(&runs.path("batch-cache"))).expect("the state file");
    assert!(std::fs::read_to_string(&state)
        .expect("state")
        .contains("batch_1"));
    server.hold.store(false, Ordering::SeqCst);
    let (code, resumed, err) = calibrate(&args);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        server.created(),
        1,
        "resumed the batch instead of paying twice"
    );
    assert_eq!(server.chat_calls(), chat, "no call went online");
    assert_eq!(rb2_figures(&resumed), rb2_figures(&online));
}

/// RewardBench 2 rows take the offline route too: `batch export` writes each configuration's
/// calls (four-way, every grade, Ties' included) as calibrate lays them out, an engine answers
/// them (vLLM's shape for OpenAI-format shards, Anthropic's Message Batches shape), `batch
/// ingest` fills the cache, and `calibrate --offline` equals the online run.
#[test]
fn rewardbench2_rows_export_ingest_and_go_offline() {
    let server = BatchServer::start(Faults::default());
    let runs = Runs::new();
    let (code, online, err) = calibrate(&rb2_args(&runs, &server, "online-cache", "online", false));
    assert_eq!(code, 0, "{err}");
    let chat = server.chat_calls();
    for format in ["openai", "anthropic"] {
        let export = runs.path(&format!("export-{format}"));
        let cache = format!("cache-{format}");
        let cache_path = runs.path(&cache);
        let mut export_args = vec!["batch", "export", "--format", format, "--out", &export];
        export_args.extend(["--cache-dir", &cache_path]);
        export_args.extend(RB2_PLAN);
        let (code, out, err) = run(&export_args);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains(&format!("{chat} requests")), "{out}");
        let results: String = shard_lines(Path::new(&export))
            .iter()
            .map(|(id, body)| {
                let line = if format == "openai" {
                    json!({"id": "vllm-x", "custom_id": id, "response": {"status_code": 200, "request_id": "r", "body": chat_body(&answer(body))}, "error": null})
                } else {
                    // Anthropic's requests keep the system prompt apart; the mock judge reads
                    // the user turn.
                    let text = answer(body);
                    json!({"custom_id": id, "result": {"type": "succeeded", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "usage": {"input_tokens": 10, "output_tokens": 3}}}})
                };
                format!("{line}\n")
            })
            .collect();
        let results = write(
            runs.dir.path(),
            &format!("{format}-results.jsonl"),
            &results,
        );
        let manifest = format!("{export}/manifest.json");
        let (code, out, err) = ingest(&results.to_string_lossy(), &manifest, &cache_path);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("every request is answered"), "{out}");
        let mut offline_args =
            rb2_args(&runs, &server, &cache, &format!("offline-{format}"), false);
        offline_args.push("--offline".into());
        let (code, offline, err) = calibrate(&offline_args);
        assert_eq!(code, 0, "{err}");
        assert_eq!(server.chat_calls(), chat, "offline: no call");
        let scores = |d: &Value| {
            rb2_figures(d)
                .as_array()
                .expect("configs")
                .iter()
                .map(|c| (c["scores"].clone(), c["read"].clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(scores(&offline), scores(&online), "{format}");
    }
}

/// A jury whose members live on two servers: `--batch` sends each member's calls to its own
/// server's Batch API, and the jury equals the online run's.
#[test]
fn a_jurys_members_are_batched_each_at_its_own_endpoint() {
    let (one, two) = (
        BatchServer::start(Faults::default()),
        BatchServer::start(Faults::default()),
    );
    let runs = Runs::new();
    let experiment = format!(
        "prompts = [\"simple_with_tie\"]\n\
         [[judge]]\nlabel = \"a\"\nendpoint = \"{}\"\nmodel = \"mock-judge\"\n\
         [[judge]]\nlabel = \"b\"\nendpoint = \"{}\"\nmodel = \"mock-judge\"\ntemperature = 0.7\n\
         [[judge]]\nlabel = \"c\"\nendpoint = \"{}\"\nmodel = \"other-judge\"\n\
         [[jury]]\nname = \"poll\"\nmembers = [\"a\", \"b\", \"c\"]\n",
        one.endpoint(),
        two.endpoint(),
        one.endpoint()
    );
    let config = runs.path("exp.toml");
    std::fs::write(&config, experiment).expect("experiment");
    let args = |cache: &str, out: &str, batch: bool| -> Vec<String> {
        let mut a: Vec<String> = [
            "calibrate",
            "--json",
            "--config",
            &config,
            "--cache-dir",
            &runs.path(cache),
            "--out",
            &runs.path(out),
            "--bootstrap",
            "0",
            "--limit",
            "6",
            "--both-orders",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        if batch {
            a.extend(["--batch", "--poll-interval", "0.02"].map(String::from));
        }
        a
    };
    let (code, online, err) = calibrate(&args("online-cache", "online", false));
    assert_eq!(code, 0, "{err}");
    let chat = (one.chat_calls(), two.chat_calls());
    assert_eq!(
        chat,
        (24, 12),
        "a and c on the first server, b on the second"
    );
    let (code, batched, err) = calibrate(&args("batch-cache", "batched", true));
    assert_eq!(code, 0, "{err}");
    assert_eq!((one.chat_calls(), two.chat_calls()), chat, "no online call");
    // Each server ran the batches of its own members' calls (one per model).
    assert_eq!(one.batch_sizes().iter().sum::<usize>(), 24);
    assert_eq!(two.batch_sizes(), [12]);
    assert_eq!(figures(&batched), figures(&online));
    let jury = |doc: &Value| doc["configs"][3]["jury"].clone();
    assert_eq!(jury(&batched), jury(&online));
    assert_eq!(batched["configs"][3]["cost"]["calls"].as_u64(), Some(36));
}

/// The plan's sc:3 samples in one request line each (`n: 3`), the manifest naming each
/// line's later samples; a result of three choices fills all three keys, and the run from
/// the cache equals the online run (which asked `n` too).
#[test]
fn samples_in_one_request_export_ingest_offline() {
    let server = BatchServer::start(Faults::default());
    let runs = Runs::new();
    let n = ["--samples-per-request", "128"];
    let (code, online, err) = runs.calibrate(&server.endpoint(), "online-cache", "online", &n);
    assert_eq!(code, 0, "{err}");
    assert_eq!(server.chat_calls(), 24, "12 basic + 12 sc:3 requests");
    for (name, cache, answer_n) in [("full", "n-cache", true), ("one", "one-cache", false)] {
        let export = runs.path(&format!("export-{name}"));
        let cache_path = runs.path(cache);
        let args = export_args(&export, &cache_path, &n);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, out, err) = run(&refs);
        assert_eq!(code, 0, "{err}");
        let lines = shard_lines(Path::new(&export));
        assert_eq!(lines.len(), 24, "{out}");
        let asked: Vec<u64> = lines
            .iter()
            .map(|(_, b)| b["n"].as_u64().unwrap_or(0))
            .collect();
        assert_eq!(asked.iter().filter(|&&k| k == 3).count(), 12);
        assert_eq!(asked.iter().filter(|&&k| k == 1).count(), 12);
        let manifest: Value = serde_json::from_str(
            &std::fs::read_to_string(Path::new(&export).join("manifest.json")).expect("manifest"),
        )
        .expect("json");
        let listed = manifest["shards"][0]["samples"]
            .as_object()
            .expect("samples");
        assert_eq!(listed.len(), 12);
        assert!(listed
            .values()
            .all(|v| v.as_array().is_some_and(|a| a.len() == 2)));
        let results: String = lines
            .iter()
            .map(|(id, body)| {
                let reply = if answer_n { answered(body) } else { chat_body(&answer(body)) };
                format!("{}\n", json!({"id": "vllm-x", "custom_id": id, "response": {"status_code": 200, "request_id": "r", "body": reply}, "error": null}))
            })
            .collect();
        let path = write(runs.dir.path(), &format!("results-{name}.jsonl"), &results);
        let manifest_path = format!("{export}/manifest.json");
        let (code, out, err) = ingest(&path.to_string_lossy(), &manifest_path, &cache_path);
        assert_eq!(code, 0, "{err}");
        if answer_n {
            assert!(
                out.contains("cached        48") && out.contains("every request is answered"),
                "{out}"
            );
            assert!(!out.contains("no choice"), "{out}");
            let (code, offline, err) = runs.calibrate(
                "http://127.0.0.1:9/v1",
                cache,
                &format!("offline-{name}"),
                &["--offline", "--samples-per-request", "128"],
            );
            assert_eq!(code, 0, "{err}");
            assert_eq!(figures(&offline), figures(&online));
        } else {
            // An engine that ignores n (llama.cpp's servers) answers one choice a line: the
            // other samples stay missing, and the summary says what to do.
            assert!(
                out.contains("cached        24") && out.contains("24 still missing"),
                "{out}"
            );
            assert!(
                out.contains(
                    "no choice     24 samples asked together with 'n' came back without a choice"
                ) && out.contains("--samples-per-request 1"),
                "{out}"
            );
        }
    }
}

/// `calibrate --batch` asks each item's samples in one request line, and reads the choices
/// back under their own keys: the same figures as online.
#[test]
fn samples_in_one_request_calibrate_batch() {
    let server = BatchServer::start(Faults::default());
    let runs = Runs::new();
    let n = ["--samples-per-request", "128"];
    let (code, online, err) = runs.calibrate(&server.endpoint(), "online-cache", "online", &n);
    assert_eq!(code, 0, "{err}");
    let (code, batched, err) = runs.batch(&server, &n);
    assert_eq!(code, 0, "{err}");
    assert_eq!(server.batch_sizes(), [24]);
    assert_eq!(figures(&batched), figures(&online));
    let sc = batched["configs"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["rater"] == "sc:3"))
        .expect("sc:3");
    assert_eq!(sc["cost"]["requests"], 12, "{}", sc["cost"]);
    assert_eq!(sc["cost"]["prompt_tokens"], 1200, "{}", sc["cost"]);
    assert_eq!(sc["cost"]["calls"], 36);
}
