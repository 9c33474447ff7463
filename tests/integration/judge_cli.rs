//! `raterlab rate` against an in-process OpenAI-compatible mock on 127.0.0.1 (faults
//! included), the response cache (re-runs, --offline, kill -9), replay and the simulator.

use crate::common::{error_of, json_of, raterlab, run, shared_data, stored};
use crate::mock_http::{MockServer, Reply, Request};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A chat-completions reply carrying `text`.
pub fn completion(text: &str) -> Reply {
    let body = json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "mock",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 7, "total_tokens": 107},
    });
    Reply::Full {
        status: 200,
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: body.to_string().into_bytes(),
    }
}

/// The user message of a request.
pub fn user_text(r: &Request) -> String {
    let body: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
    body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_str())
        .unwrap_or("")
        .to_string()
}

/// A judge that prefers the response mentioning the better answer's first words: here, a
/// fixed verdict from the text's length parity, so runs are deterministic.
fn verdict_for(text: &str) -> &'static str {
    if text.len() % 3 == 0 {
        "Response 2 is clearer. <winner>2</winner>"
    } else if text.len() % 3 == 1 {
        "Response 1 is right. <winner>1</winner>"
    } else {
        "They are equally good. <tie>"
    }
}

fn rate_args<'a>(url: &'a str, out: &'a str, cache: &'a str) -> Vec<&'a str> {
    vec![
        "rate",
        "--endpoint",
        url,
        "--model",
        "mock-judge",
        "--prompt",
        "simple_with_tie",
        "--out",
        out,
        "--cache-dir",
        cache,
        "--retries",
        "3",
        "--retry-base-ms",
        "5",
        "--timeout",
        "1",
        "--concurrency",
        "8",
    ]
}

/// `raterlab rate` with `rate_args` writing into `dir`, each flag's value replaced or the flag
/// added; returns the exit code, stderr and the ratings file's path.
fn rate_with(url: &str, dir: &Path, flags: &[(&str, &str)]) -> (i32, String, PathBuf) {
    let out = dir.join("r.jsonl");
    let cache = dir.join("cache");
    let mut args = rate_args(
        url,
        out.to_str().expect("utf-8"),
        cache.to_str().expect("utf-8"),
    );
    for &(flag, value) in flags {
        match args.iter().position(|a| *a == flag) {
            Some(at) => args[at + 1] = value,
            None => args.extend([flag, value]),
        }
    }
    let (code, _, err) = run(&args);
    (code, err, out)
}

/// `raterlab rate` with `rate_args`, which must succeed; returns stdout.
fn rate_ok(url: &str, out: &Path, cache: &Path) -> String {
    let (code, stdout, err) = run(&rate_args(
        url,
        out.to_str().expect("utf-8"),
        cache.to_str().expect("utf-8"),
    ));
    assert_eq!(code, 0, "{err}");
    stdout
}

fn read_jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("ratings written")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

fn statuses(rows: &[Value]) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    for r in rows {
        *out.entry(r["status"].as_str().expect("status").to_string())
            .or_default() += 1;
    }
    out
}

#[test]
fn every_item_ends_rated_unparseable_or_failed_under_faults() {
    // The fault an item meets depends on its prompt's first words; transient faults clear on
    // the second attempt.
    let attempts: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
    let seen = attempts.clone();
    let server = MockServer::start(move |r| {
        let text = user_text(r);
        let n = {
            let mut a = seen.lock().expect("lock");
            let n = a.entry(text.clone()).or_default();
            *n += 1;
            *n
        };
        let fault = |needle: &str| text.contains(needle);
        if fault("capital of Australia") && n == 1 {
            return Reply::Full {
                status: 429,
                headers: vec![("Retry-After".into(), "0".into())],
                body: b"{\"error\":{\"message\":\"slow down\"}}".to_vec(),
            };
        }
        if fault("haiku about autumn") && n == 1 {
            return Reply::status(500, "{\"error\":{\"message\":\"overloaded\"}}");
        }
        if fault("train station") && n == 1 {
            return Reply::Delayed(Duration::from_millis(2500), Box::new(completion("late")));
        }
        if fault("VPN does") && n == 1 {
            let Reply::Full { body, .. } = completion("<winner>1</winner>") else {
                unreachable!()
            };
            return Reply::CutShort {
                sent: body.len() / 2,
                body,
            };
        }
        if fault("prime number between 20 and 30") {
            return Reply::status(200, "{\"choices\": [{\"message\": ");
        }
        if fault("name for a bakery") {
            return Reply::status(200, "{\"choices\": []}");
        }
        if fault("passive voice") {
            // One request too long for the model: about this item only (unlike a 404 or a
            // 401, which refuse the whole configuration), so the other items go on.
            return Reply::status(
                400,
                "{\"error\":{\"message\":\"This model's maximum context length is 4096 tokens\"}}",
            );
        }
        if fault("declining a meeting") {
            return completion("I cannot decide.");
        }
        completion(verdict_for(&text))
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("ratings.jsonl");
    let cache = dir.path().join("cache");
    let stdout = rate_ok(&server.url, &out, &cache);
    let rows = read_jsonl(&out);
    assert_eq!(rows.len(), 43);
    let s = statuses(&rows);
    assert_eq!(
        s.get("rated").copied().unwrap_or(0)
            + s.get("no_verdict").copied().unwrap_or(0)
            + s.get("call_failed").copied().unwrap_or(0),
        43
    );
    let by_prompt = |needle: &str| {
        rows.iter()
            .find(|r| r["completions"].as_str().is_some() && read_prompt(r).contains(needle))
            .unwrap_or_else(|| panic!("row for {needle}"))
            .clone()
    };
    for transient in [
        "capital of Australia",
        "haiku about autumn",
        "train station",
        "VPN does",
    ] {
        assert_eq!(
            by_prompt(transient)["status"],
            "rated",
            "{transient} recovers after a retry"
        );
    }
    let broken = by_prompt("prime number between 20 and 30");
    assert_eq!(broken["status"], "call_failed");
    assert!(
        broken["reason"]
            .as_str()
            .expect("reason")
            .starts_with("call failed: malformed response: invalid JSON"),
        "{broken}"
    );
    assert_eq!(
        by_prompt("name for a bakery")["reason"],
        "call failed: malformed response: empty \"choices\""
    );
    let missing = by_prompt("passive voice");
    assert_eq!(
        missing["reason"],
        "call failed: request rejected with HTTP 400: This model's maximum context length is 4096 tokens"
    );
    assert_eq!(by_prompt("declining a meeting")["status"], "no_verdict");
    let tries = attempts.lock().expect("lock");
    let count = |needle: &str| {
        tries
            .iter()
            .filter(|(k, _)| k.contains(needle))
            .map(|(_, v)| *v)
            .sum::<usize>()
    };
    assert_eq!(count("passive voice"), 1, "a 400 is not retried");
    assert_eq!(
        count("prime number between 20 and 30"),
        4,
        "malformed bodies are retried, then given up"
    );
    assert_eq!(count("capital of Australia"), 2);
    assert!(
        stdout.contains("no verdict 1 · call failures 3"),
        "{stdout}"
    );
}

/// The pair's prompt, recovered from the rating row's id via the bundled sample.
fn read_prompt(row: &Value) -> String {
    SAMPLE_PROMPTS.with(|p| {
        p.get(row["pair_id"].as_str().expect("pair id"))
            .cloned()
            .unwrap_or_default()
    })
}

thread_local! {
    static SAMPLE_PROMPTS: HashMap<String, String> = {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("sample.jsonl");
        let (code, _, err) = run(&["data", "export", "--out", path.to_str().expect("utf-8")]);
        assert_eq!(code, 0, "{err}");
        read_jsonl(&path).iter().map(|r| (r["pair_id"].as_str().unwrap_or("").to_string(), r["prompt"].as_str().unwrap_or("").to_string())).collect()
    };
}

fn steady_server() -> MockServer {
    MockServer::start(|r| completion(verdict_for(&user_text(r))))
}

#[test]
fn cached_rerun_makes_no_call_and_offline_fails_clearly_on_a_miss() {
    let server = steady_server();
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    let cache = dir.path().join("cache");
    let cache_s = cache.to_str().expect("utf-8");
    let mut cmd = raterlab(&rate_args(&server.url, a.to_str().expect("utf-8"), cache_s));
    let first = cmd
        .env("OPENAI_API_KEY", "sk-test-secret-123")
        .output()
        .expect("runs");
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert_eq!(server.count(), 43);
    assert!(server
        .requests
        .lock()
        .expect("log")
        .iter()
        .all(|r| r.header("authorization") == Some("Bearer sk-test-secret-123")));
    let stdout = rate_ok(&server.url, &b, Path::new(cache_s));
    assert_eq!(server.count(), 43, "the re-run made no call");
    assert!(stdout.contains("calls 43 (cache hits 43)"), "{stdout}");
    let strip = |rows: Vec<Value>| {
        rows.into_iter()
            .map(|r| {
                (
                    r["id"].clone(),
                    r["rating"].clone(),
                    r["completions"].clone(),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(read_jsonl(&a)), strip(read_jsonl(&b)));
    // The key is in no file (the store and its write-ahead log included).
    let store = cache.join("completions.sqlite");
    assert_eq!(stored(&cache), 43);
    for path in [
        a.clone(),
        b.clone(),
        store.clone(),
        store.with_extension("sqlite-wal"),
    ] {
        let bytes = std::fs::read(&path).unwrap_or_default();
        assert!(
            !bytes.windows(14).any(|w| w == b"sk-test-secret"),
            "{}",
            path.display()
        );
    }
    // Offline with the endpoint down: served from the cache.
    drop(server);
    let c = dir.path().join("c.jsonl");
    let (code, _, err) = run(&[
        "rate",
        "--model",
        "mock-judge",
        "--prompt",
        "simple_with_tie",
        "--offline",
        "--cache-dir",
        cache_s,
        "--out",
        c.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(strip(read_jsonl(&c)), strip(read_jsonl(&a)));
    // Offline with a prompt never asked: every call is a miss, and the run says so.
    let (code, _, err) = run(&[
        "rate",
        "--model",
        "mock-judge",
        "--prompt",
        "mt-bench_pairwise",
        "--offline",
        "--cache-dir",
        cache_s,
        "--out",
        c.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 2);
    assert_eq!(
        err.lines().last().unwrap_or_default(),
        format!("error: --offline: 43 of 43 calls are not in the cache ({cache_s}/completions.sqlite); run without --offline to make them (the ratings file was written)")
    );
    assert!(
        err.starts_with("mt-bench_pairwise/basic: 43/43 calls, 0 from cache, 43 failed"),
        "a summary line per configuration when stderr is no terminal: {err}"
    );
}

#[test]
fn kill_dash_9_loses_no_answer_received() {
    let gate = Gate::new(8);
    let held = gate.clone();
    let server = MockServer::start(move |r| {
        held.wait();
        completion(verdict_for(&user_text(r)))
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("cache");
    let cache_s = cache.to_str().expect("utf-8");
    let out = dir.path().join("killed.jsonl");
    let mut args = rate_args(&server.url, out.to_str().expect("utf-8"), cache_s);
    let last = args.len() - 1;
    args[last] = "2"; // --concurrency 2: a slow run to interrupt
    interrupt(&args, &cache, "-KILL", &gate);
    let made = server.count();
    assert!(made < 43, "killed before the end ({made} calls)");
    let stored = stored(&cache);
    assert!(stored >= 6);
    // Re-run: answers stored before the kill are reused, none is asked again.
    let again = steady_server();
    let resumed = dir.path().join("resumed.jsonl");
    let stdout = rate_ok(&again.url, &resumed, Path::new(cache_s));
    assert_eq!(again.count(), 43 - stored, "{stdout}");
    // And the result equals an uninterrupted run.
    let fresh = dir.path().join("fresh.jsonl");
    let fresh_cache = dir.path().join("fresh-cache");
    rate_ok(&again.url, &fresh, &fresh_cache);
    let key = |rows: Vec<Value>| {
        rows.into_iter()
            .map(|r| (r["id"].clone(), r["rating"].clone(), r["status"].clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(key(read_jsonl(&resumed)), key(read_jsonl(&fresh)));
}

#[test]
fn a_former_jsonl_cache_is_moved_into_the_store_once_and_a_torn_line_is_asked_again() {
    let server = steady_server();
    let dir = tempfile::tempdir().expect("tempdir");
    let first = dir.path().join("first");
    let out = dir.path().join("r.jsonl");
    rate_ok(&server.url, &out, &first);
    // The answers as the former cache wrote them (one checksummed record a line), from
    // `cache export`, with the last line cut short as a crash during a write would.
    let exported = dir.path().join("exported.jsonl");
    let (code, stdout, err) = run(&[
        "cache",
        "export",
        "--cache-dir",
        first.to_str().expect("utf-8"),
        "--out",
        exported.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        stdout.contains("cache export: 43 completions written"),
        "{stdout}"
    );
    let log: String = read_jsonl(&exported)
        .iter()
        .map(|e| {
            let (key, text) = (
                e["key"].as_str().expect("key"),
                e["text"].as_str().expect("text"),
            );
            assert_eq!(e["model"], "mock-judge");
            use sha2::Digest;
            let mut h = sha2::Sha256::new();
            h.update(key.as_bytes());
            h.update([0u8]);
            h.update(text.as_bytes());
            let check: String = h.finalize()[..8]
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            json!({"key": key, "check": check, "completion": {
                "text": text, "tokens_in": e["tokens_in"], "tokens_out": e["tokens_out"],
                "latency_ms": e["latency_ms"]}})
            .to_string()
                + "\n"
        })
        .collect();
    let cache = dir.path().join("former");
    std::fs::create_dir_all(&cache).expect("dir");
    std::fs::write(cache.join("completions.jsonl"), &log[..log.len() - 30]).expect("log");
    let stdout = rate_ok(&server.url, &out, &cache);
    assert_eq!(server.count(), 44, "only the torn answer is asked again");
    assert!(
        stdout.contains("note: moved 42 answers from")
            && stdout.contains("note: 1 damaged cache lines were skipped"),
        "{stdout}"
    );
    assert_eq!(read_jsonl(&out).len(), 43);
    assert_eq!(stored(&cache), 43);
    assert!(!cache.join("completions.jsonl").exists(), "moved once");
    assert_eq!(
        std::fs::read_to_string(cache.join("completions.jsonl.migrated")).expect("kept"),
        log[..log.len() - 30]
    );
    // Once moved, a run reads only the store: nothing is asked, nothing is noted.
    let stdout = rate_ok(&server.url, &out, &cache);
    assert_eq!(server.count(), 44);
    assert!(!stdout.contains("note: moved"), "{stdout}");
}

#[test]
fn replaying_llmbar_reproduces_the_published_accuracies() {
    let Some(shared) = shared_data() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    for judge in ["GPT-4-Vanilla", "ChatGPT-Vanilla"] {
        let out = dir.path().join(format!("{judge}.jsonl"));
        let data = shared.join("llmbar/llmbar-reward-bench-schema.parquet");
        let replay = format!(
            "replay:{}",
            shared
                .join(format!("llmbar/judges/{judge}.jsonl"))
                .display()
        );
        let (code, _, err) = run(&[
            "rate",
            "--data",
            data.to_str().expect("utf-8"),
            "--both-orders",
            "--judge",
            &replay,
            "--prompt",
            "simple_no_tie",
            "--parser",
            "output_ab",
            "--out",
            out.to_str().expect("utf-8"),
        ]);
        assert_eq!(code, 0, "{err}");
        let rows = read_jsonl(&out);
        let stats: Value = serde_json::from_str(
            &std::fs::read_to_string(shared.join(format!("llmbar/judges/{judge}.statistics.json")))
                .expect("stats"),
        )
        .expect("JSON");
        let subsets = stats.as_object().expect("object");
        assert_eq!(subsets.len(), 5);
        for (subset, published) in subsets {
            let items: Vec<&Value> = rows
                .iter()
                .filter(|r| r["subset"] == subset.as_str())
                .collect();
            let correct = items.iter().filter(|r| r["rating"] == r["gold"]).count();
            let ours = 100.0 * correct as f64 / items.len() as f64;
            let theirs: f64 = published["correct_average"]
                .as_str()
                .expect("text")
                .trim_end_matches('%')
                .parse()
                .expect("number");
            assert!(
                (ours - theirs).abs() < 1e-9,
                "{judge} {subset}: {ours} vs {theirs}"
            );
        }
    }
}

#[test]
fn simulated_judge_is_deterministic_and_labelled() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    let args = |out: &Path| -> Vec<String> {
        [
            "rate",
            "--judge",
            "sim:accuracy=0.7,malformed=0.2",
            "--prompt",
            "arena-hard",
            "--rater",
            "sc:3:majority",
            "--out",
            out.to_str().expect("utf-8"),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let run_owned = |v: Vec<String>| run(&v.iter().map(String::as_str).collect::<Vec<_>>());
    let (code, stdout, err) = run_owned(args(&a));
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("[SIMULATED judge, not an LLM]"), "{stdout}");
    assert_eq!(run_owned(args(&b)).0, 0);
    assert_eq!(
        std::fs::read_to_string(&a).expect("a"),
        std::fs::read_to_string(&b).expect("b")
    );
    let rows = read_jsonl(&a);
    let s = statuses(&rows);
    assert_eq!(s.values().sum::<usize>(), 43);
    assert!(
        rows.iter().any(|r| r["samples_used"].as_u64() == Some(2)),
        "malformed samples are left out and counted"
    );
}

#[test]
fn misconfiguration_is_caught_before_any_call() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("r.csv");
    let out_s = out.to_str().expect("utf-8");
    let server = steady_server();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--prompt", "nope"], "error: unknown prompt 'nope'; built-in prompts are simple_no_tie, simple_with_tie, reward-bench_gemini_no_tie, mt-bench_pairwise, raterlab_no_tie, raterlab_with_tie, raterlab_ab_no_tie, arena-hard, alpaca_eval_weighted, mt-bench_pairwise_multi-turn, mt-bench_single_multi-turn, mt-bench_single, reference_1-5, reference_1-5_logprobs, correct_json, scores, prometheus2_relative, prometheus2_absolute, judgelm, pandalm, autoj_pairwise, autoj_single, skywork_critic, offsetbias, rb2_ranking, rb2_ranking_gemini, rb2_rating, rb2_rating_ties (or pass a .toml file)"),
        (vec!["--parser", "xml"], "error: unknown parser 'xml'; parsers are winner_tag, winner_tag_tie, ab_brackets, arena_hard, output_ab, binary, score, comparative, json_label, rating, number, final_rating, rb2_ranking, rb2_ranking_published, prometheus_relative, prometheus_absolute, judgelm, judgelm_tie, pandalm, pandalm_tie, autoj_pairwise, autoj_rating, skywork_critic, skywork_critic_judgebench, offsetbias"),
        (vec!["--rater", "sc:0"], "error: rater 'sc:0': the number of samples N in sc:N must be a whole number from 1 to 1000, not '0' (e.g. sc:5)"),
        (vec!["--rater", "sc:3:vote"], "error: rater 'sc:3:vote': 'vote' is not a vote rule; use sc:3:mean, sc:3:majority or sc:3:unanimous"),
        (vec!["--rater", "best"], "error: unknown rater 'best'; raters are basic, sc:N[:mean|majority|unanimous] (e.g. sc:5), random, longer, first"),
        (vec!["--parser", "arena_hard"], "error: parser 'arena_hard' does not fit prompt 'simple_with_tie': the prompt never asks for that verdict format; choose a matching --parser or another --prompt"),
    ];
    for (extra, want) in cases {
        let mut args = vec![
            "rate",
            "--endpoint",
            &server.url,
            "--model",
            "m",
            "--out",
            out_s,
        ];
        args.extend(extra);
        let (code, _, err) = run(&args);
        assert_eq!((code, err.trim()), (2, want));
    }
    assert_eq!(server.count(), 0, "no call was made");
    let (code, _, err) = run(&[
        "rate",
        "--endpoint",
        "http://127.0.0.1:9/v1",
        "--model",
        "m",
        "--out",
        out_s,
    ]);
    assert_eq!((code, err.trim()), (2, "error: cannot reach the endpoint http://127.0.0.1:9/v1 (nothing answers at 127.0.0.1:9); is the server running? check --endpoint"));
    let mut cmd = raterlab(&[
        "rate",
        "--endpoint",
        "https://api.example.invalid/v1",
        "--model",
        "m",
        "--out",
        out_s,
    ]);
    let output = cmd.env_remove("OPENAI_API_KEY").output().expect("runs");
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&output.stderr).trim(), "error: the API key variable OPENAI_API_KEY is not set; export it, or name another variable with --api-key-env (servers on this machine need no key)");
}

#[test]
fn a_refused_model_or_key_stops_the_run_with_the_servers_words() {
    // Like Ollama for a model it has not pulled, and OpenAI for a bad key: every call with
    // that configuration would fail the same way, so only the calls already in flight go out.
    for (status, message) in [
        (404, r#"model "qwen2.5:7b" not found, try pulling it first"#),
        (401, "Incorrect API key provided"),
    ] {
        let server = MockServer::start(move |_| {
            Reply::status(status, &json!({"error": {"message": message}}).to_string())
        });
        let dir = tempfile::tempdir().expect("tempdir");
        let (code, err, out) = rate_with(&server.url, dir.path(), &[("--rater", "sc:3")]);
        let sent = server.count();
        assert!(
            (1..=8).contains(&sent),
            "at most the 8 requests in flight were sent, not 43: {sent}"
        );
        // Each request asked for an item's 3 samples (`n`), so each refusal counts 3 calls.
        let want = format!(
            "error: the judge refused the configuration: request rejected with HTTP {status}: {message} ({} of 129 calls refused, and the {} after them were not sent). Check --model (the name the server serves), the API key (--api-key-env) and --endpoint (it usually ends in /v1); the ratings file was written",
            3 * sent,
            129 - 3 * sent
        );
        assert_eq!((code, err.lines().last().unwrap_or("")), (2, want.as_str()));
        let rows = read_jsonl(&out);
        assert_eq!(statuses(&rows).get("call_failed"), Some(&43));
    }
}

#[test]
fn timeouts_lower_the_concurrency_for_a_server_that_answers_one_at_a_time() {
    // Like llama.cpp with one slot: requests queue, each takes 50 ms, and the server finishes
    // every request it got, even one whose caller gave up. With 43 in flight, the last ones
    // wait over 1 s and time out; their retries would queue behind the abandoned ones.
    let slot = Arc::new(Mutex::new(()));
    let server = MockServer::start(move |r| {
        let _busy = slot.lock().expect("lock");
        std::thread::sleep(Duration::from_millis(50));
        completion(verdict_for(&user_text(r)))
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let (code, err, out) = rate_with(
        &server.url,
        dir.path(),
        &[("--concurrency", "64"), ("--retries", "8")],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning: calls are timing out: at most 32 in flight from now on (was 64)"),
        "{err}"
    );
    assert!(err.contains("Next time pass --concurrency"), "{err}");
    let rows = read_jsonl(&out);
    assert_eq!(
        statuses(&rows).get("call_failed"),
        None,
        "every item is answered in the end"
    );
    assert!(
        server.count() < 43 * 3,
        "retries do not storm the server: {} requests for 43 items",
        server.count()
    );
}

#[test]
fn requests_per_minute_spaces_the_calls() {
    let times: Arc<Mutex<Vec<std::time::Instant>>> = Arc::default();
    let seen = times.clone();
    let server = MockServer::start(move |r| {
        seen.lock().expect("lock").push(std::time::Instant::now());
        completion(verdict_for(&user_text(r)))
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("r.jsonl");
    let (code, _, err) = run(&[
        "rate",
        "--endpoint",
        &server.url,
        "--model",
        "m",
        "--no-cache",
        "--rpm",
        "1200",
        "--subset",
        "hep-*",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{err}");
    let mut t = times.lock().expect("lock").clone();
    assert_eq!(t.len(), 7, "the seven hep-* pairs of the sample");
    t.sort();
    // 1200 per minute: starts are spaced 50 ms apart, so 7 requests span at least 300 ms
    // (measured on arrival; the span, not each gap, so scheduling jitter cannot flake it).
    let span = t[t.len() - 1] - t[0];
    assert!(span >= Duration::from_millis(280), "{span:?}");
}

const USER_TEMPLATE: &str = r#"name = "mine"
system = "You judge fairly."
parser = "winner_tag_tie"
ties = true
template = '''
Q: {prompt}
A: {response1}
B: {response2}
Answer <winner>1</winner>, <winner>2</winner> or <tie>. {not a placeholder}'''
"#;

#[test]
fn user_templates_from_toml() {
    let server = steady_server();
    let dir = tempfile::tempdir().expect("tempdir");
    let template = dir.path().join("mine.toml");
    std::fs::write(&template, USER_TEMPLATE).expect("template");
    let t = template.to_str().expect("utf-8");
    let (code, shown, err) = run(&["prompts", "show", t]);
    assert_eq!(code, 0, "{err}");
    assert!(
        shown.contains("# mine (parser winner_tag_tie, ties allowed)")
            && shown.contains("{not a placeholder}"),
        "{shown}"
    );
    let out = dir.path().join("r.jsonl");
    let (code, _, err) = run(&[
        "rate",
        "--endpoint",
        &server.url,
        "--model",
        "m",
        "--no-cache",
        "--prompt",
        t,
        "--subset",
        "math-prm",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{err}");
    let requests = server.requests.lock().expect("log");
    let body: Value = serde_json::from_slice(&requests[0].body).expect("JSON body");
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(body["messages"][0]["content"], "You judge fairly.");
    let user = body["messages"][1]["content"].as_str().expect("text");
    assert!(
        user.starts_with("Q: ") && user.ends_with("{not a placeholder}"),
        "{user}"
    );
    std::fs::write(
        &template,
        "name = \"bad\"\nparser = \"nope\"\nties = false\ntemplate = \"{response1} {response2}\"\n",
    )
    .expect("template");
    let (code, _, err) = run(&["prompts", "show", t]);
    assert_eq!(code, 2);
    assert!(
        err.contains("unknown parser 'nope'; parsers are winner_tag,"),
        "{err}"
    );
}

#[test]
fn ctrl_c_keeps_answers_and_the_same_command_resumes() {
    let gate = Gate::new(8);
    let held = gate.clone();
    let server = MockServer::start(move |r| {
        held.wait();
        completion(verdict_for(&user_text(r)))
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("cache");
    let cache_s = cache.to_str().expect("utf-8").to_string();
    let run_dir = dir.path().join("run").to_str().expect("utf-8").to_string();
    let args = [
        "calibrate",
        "--endpoint",
        &server.url,
        "--model",
        "mock-judge",
        "--cache-dir",
        &cache_s,
        "--concurrency",
        "2",
        "--bootstrap",
        "0",
        "--out",
        &run_dir,
    ];
    interrupt(&args, &cache, "-INT", &gate);
    let made = server.count();
    assert!(made < 43, "interrupted before the end ({made} calls)");
    let kept = stored(&cache);
    let (code, stdout, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        server.count(),
        made + 43 - kept,
        "only unanswered calls are made again: {stdout}"
    );
}

/// A mock server's hold on its answers: the first `open` requests are answered at once, later
/// ones wait until `release` (at most 30 s), so a test interrupts a run mid-way without racing
/// a clock (under a loaded machine a delay alone let every call finish before the signal).
#[derive(Clone)]
struct Gate {
    open: usize,
    state: std::sync::Arc<(std::sync::Mutex<(usize, bool)>, std::sync::Condvar)>,
}

impl Gate {
    fn new(open: usize) -> Self {
        Self {
            open,
            state: Default::default(),
        }
    }

    fn wait(&self) {
        let (lock, released) = &*self.state;
        let Ok(mut state) = lock.lock() else { return };
        state.0 += 1;
        if state.0 <= self.open {
            return;
        }
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while !state.1 {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return;
            }
            match released.wait_timeout(state, left) {
                Ok((s, _)) => state = s,
                Err(_) => return,
            }
        }
    }

    fn release(&self) {
        let (lock, released) = &*self.state;
        if let Ok(mut state) = lock.lock() {
            state.1 = true;
        }
        released.notify_all();
    }
}

/// Starts `raterlab` with `args`, waits until six answers are in the store in `cache` (the
/// `gate` holds the answers after its first few), sends it `signal` (`-KILL`, `-INT`), lets
/// the held answers go, and waits for it to end. raterlab starts with SIGINT at its default
/// (GNU env's `--default-signal`): a `cargo test` started in the background by a script
/// inherits SIGINT ignored, and the run then made all its calls despite the Ctrl-C.
fn interrupt(args: &[&str], cache: &Path, signal: &str, gate: &Gate) {
    let mut child = std::process::Command::new("env")
        .arg("--default-signal=INT")
        .arg(assert_cmd::cargo::cargo_bin("raterlab"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    for _ in 0..200 {
        if stored(cache) >= 6 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = std::process::Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    gate.release();
    child.wait().expect("reaped");
}

#[test]
fn regex_templates_read_their_patterns_and_explain_mistakes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let head = "name = \"mine\"\nparser = \"regex\"\nties = false\ntemplate = \"{prompt} {response1} {response2} Output (a) or Output (b)?\"\n";
    let patterns = "[[patterns]]\nverdict = \"response1\"\npattern = '''Output \\(a\\) is better'''\n[[patterns]]\nverdict = \"response2\"\npattern = '''Output \\(b\\) is better'''\n";
    let template = dir.path().join("mine.toml");
    let t = template.to_str().expect("utf-8").to_string();
    // A working template: the simulated judge answers with the patterns' text, read back.
    std::fs::write(&template, format!("{head}match = \"unique\"\n{patterns}")).expect("template");
    let run_dir = dir.path().join("run");
    let doc = json_of(&[
        "calibrate",
        "--judge",
        "sim:malformed=0",
        "--prompt",
        &t,
        "--bootstrap",
        "0",
        "--out",
        run_dir.to_str().expect("utf-8"),
    ]);
    assert_eq!(doc["configs"][0]["counts"]["rated"], 43);
    let run_json: Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("run.json")).expect("run.json"))
            .expect("JSON");
    assert_eq!(
        run_json["configs"][0]["parser"],
        r"regex[unique](response1=/Output \(a\) is better/, response2=/Output \(b\) is better/)"
    );
    let (code, shown, err) = run(&["prompts", "show", &t, "--toml"]);
    assert_eq!(code, 0, "{err}");
    assert!(shown.contains("match = \"unique\"\n\n[[patterns]]\nverdict = \"response1\"\npattern = '''Output \\(a\\) is better'''"), "{shown}");

    let mistake = |toml: String| {
        std::fs::write(&template, toml).expect("template");
        error_of(&["prompts", "show", &t])
    };
    let at = format!("error: prompt file '{t}': ");
    assert_eq!(
        mistake(format!("{head}{patterns}")),
        format!("{at}parser \"regex\" needs match = one of first, last, unique, priority")
    );
    assert_eq!(
        mistake(format!("{head}match = \"any\"\n{patterns}")),
        format!(
            "{at}match = \"any\" is not a match policy; use one of first, last, unique, priority"
        )
    );
    assert!(mistake(format!(
        "{head}match = \"first\"\n[[patterns]]\nverdict = \"response1\"\npattern = '''('''\n"
    ))
    .starts_with(&format!(
        "{at}the response1 pattern '(' is not a valid regular expression"
    )));
    assert_eq!(
        mistake(format!(
            "{head}match = \"first\"\n[[patterns]]\nverdict = \"a\"\npattern = 'x'\n"
        )),
        format!("{at}patterns entry 1: verdict \"a\" is not response1, response2 or tie")
    );
    assert_eq!(
        mistake(format!("{head}match = \"first\"\n{patterns}[[patterns]]\nverdict = \"tie\"\npattern = 'equal'\n")),
        format!("{at}ties = false but there is a tie pattern; give a tie pattern exactly when ties = true")
    );
    assert_eq!(
        mistake(format!("{head}match = \"first\"\n").replace("\"regex\"", "\"output_ab\"")),
        format!("{at}match and [[patterns]] go with parser = \"regex\", not \"output_ab\"")
    );
    assert!(
        error_of(&["rate", "--judge", "sim", "--parser", "regex", "--out", "x.csv"]).starts_with(
            "error: --parser regex needs patterns, which only a TOML template can give"
        )
    );
}
