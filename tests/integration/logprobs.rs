//! Probabilities from a live server's token logprobs: an in-process mock answers AlpacaEval's
//! one-token prompt in OpenAI's chat shape, in the legacy completions shape, without logprobs,
//! and with none of the mapped tokens among the alternatives. Each item's p_response2 is the
//! one its answer implies; the others say why they have none; the cache keeps the logprobs
//! (an --offline rerun gives the same probabilities without a call).

use crate::common::{json_of, run};
use crate::judge_cli::user_text;
use crate::mock_http::{MockServer, Reply};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// What the mock answers for a prompt, and the P(response 2) it implies (`None`: no
/// probability).
fn answer(text: &str) -> (Value, Option<f64>) {
    let n = text.len();
    let (lp_second, lp_first) = (
        -((n % 7) as f64) * 0.3 - 0.01,
        -((n % 5) as f64) * 0.4 - 0.02,
    );
    let p = lp_second.exp() / (lp_second.exp() + lp_first.exp());
    let content = if p >= 0.5 { "M" } else { "m" };
    let choice = |logprobs: Value| json!({"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "length", "logprobs": logprobs});
    match n % 4 {
        // OpenAI's chat shape (OpenAI, vLLM, llama.cpp's server).
        0 => (
            choice(
                json!({"content": [{"token": content, "logprob": lp_second.max(lp_first), "bytes": [77],
                "top_logprobs": [{"token": "M", "logprob": lp_second, "bytes": [77]}, {"token": "m", "logprob": lp_first, "bytes": [109]}, {"token": "The", "logprob": -9.5, "bytes": [84, 104, 101]}]}]}),
            ),
            Some(p),
        ),
        // The legacy completions shape (older llama-cpp-python servers).
        1 => (
            choice(
                json!({"tokens": [content], "token_logprobs": [lp_second.max(lp_first)], "top_logprobs": [{"m": lp_first, "M": lp_second, "Both": -8.0}], "text_offset": [0]}),
            ),
            Some(p),
        ),
        // A server that ignores `logprobs`.
        2 => (choice(Value::Null), None),
        // Neither identifier among the alternatives.
        _ => (
            choice(
                json!({"content": [{"token": "The", "logprob": -0.1, "top_logprobs": [{"token": "The", "logprob": -0.1}, {"token": "Both", "logprob": -2.5}]}]}),
            ),
            None,
        ),
    }
}

fn server(expected: Arc<Mutex<Vec<Option<f64>>>>) -> MockServer {
    MockServer::start(move |r| {
        let (choice, p) = answer(&user_text(r));
        expected.lock().expect("test data").push(p);
        let body = json!({"id": "x", "object": "chat.completion", "model": "mock", "choices": [choice],
            "usage": {"prompt_tokens": 500, "completion_tokens": 1}});
        Reply::Full {
            status: 200,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: body.to_string().into_bytes(),
        }
    })
}

/// The plan of every run here: AlpacaEval's one-token prompt over 40 bundled pairs.
const PLAN: [&str; 8] = [
    "--model",
    "mock",
    "--prompt",
    "alpaca_eval_weighted",
    "--data",
    "sample",
    "--limit",
    "40",
];

fn args<'a>(url: &'a str, cache: &'a str, out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec![
        "calibrate",
        "--endpoint",
        url,
        "--bootstrap",
        "0",
        "--cache-dir",
        cache,
        "--out",
        out,
    ];
    a.extend_from_slice(&PLAN);
    a.extend_from_slice(extra);
    a
}

fn probabilities(out: &std::path::Path) -> (Vec<f64>, Vec<String>) {
    use polars::prelude::SerReader;
    let p = crate::common::ratings_floats(out, "p_response2");
    let file = std::fs::File::open(out.join("ratings.parquet")).expect("ratings");
    let df = polars::prelude::ParquetReader::new(file)
        .finish()
        .expect("parquet");
    let why = df.column("p_reason").expect("p_reason");
    let why: Vec<Option<&str>> = why.str().expect("text").iter().collect();
    let mut got: Vec<f64> = p.iter().flatten().copied().collect();
    got.sort_by(f64::total_cmp);
    let reasons = p
        .iter()
        .zip(why)
        .filter(|(p, _)| p.is_none())
        .map(|(_, w)| w.unwrap_or("").to_string())
        .collect();
    (got, reasons)
}

#[test]
fn both_shapes_no_logprobs_and_missing_tokens() {
    let expected = Arc::new(Mutex::new(Vec::new()));
    let server = server(expected.clone());
    let dir = tempfile::tempdir().expect("test data");
    let (cache, out) = (dir.path().join("cache"), dir.path().join("run"));
    let (cache, out_s) = (
        cache.to_str().expect("test data"),
        out.to_str().expect("test data"),
    );
    let doc = json_of(&args(&server.url, cache, out_s, &[]));
    // Every request asked for logprobs, five alternatives (AlpacaEval's setting).
    let requests = server.requests.lock().expect("test data").clone();
    assert_eq!(requests.len(), 40);
    for r in &requests {
        let body: Value = serde_json::from_slice(&r.body).expect("test data");
        assert_eq!(
            (body["logprobs"].clone(), body["top_logprobs"].clone()),
            (json!(true), json!(5))
        );
    }
    let want = expected.lock().expect("test data").clone();
    let mut with: Vec<f64> = want.iter().flatten().copied().collect();
    with.sort_by(f64::total_cmp);
    let (got, reasons) = probabilities(&out);
    assert!(
        with.len() >= 10 && with.len() < 40,
        "the cases vary: {} with a probability",
        with.len()
    );
    assert_eq!(got.len(), with.len());
    for (g, w) in got.iter().zip(&with) {
        assert!((g - w).abs() < 1e-12, "{g} vs {w}");
    }
    // The others say why, and the hard verdicts still count.
    let none = reasons.iter().filter(|r| r.contains("no logprobs")).count();
    let absent = reasons
        .iter()
        .filter(|r| r.contains("none of the mapped tokens"))
        .count();
    assert_eq!(none + absent, 40 - with.len());
    assert!(none > 0 && absent > 0, "{reasons:?}");
    let p = &doc["configs"][0]["probability"];
    assert_eq!(p["with_probability"].as_u64(), Some(with.len() as u64));
    assert_eq!(doc["configs"][0]["counts"]["rated"].as_u64(), Some(40));
    let missing: u64 = p["missing"]
        .as_array()
        .expect("test data")
        .iter()
        .map(|m| m["count"].as_u64().expect("test data"))
        .sum();
    assert_eq!(missing, (40 - with.len()) as u64);

    // The cache kept the logprobs: --offline gives the same probabilities, no call made.
    let again = dir.path().join("again");
    let (code, _, err) = run(&args(
        &server.url,
        cache,
        again.to_str().expect("test data"),
        &["--offline"],
    ));
    assert_eq!(code, 0, "{err}");
    assert_eq!(server.requests.lock().expect("test data").len(), 40);
    assert_eq!(probabilities(&again).0, got);

    // --top-logprobs sets how many alternatives, and is part of the cache key: new calls.
    let three = dir.path().join("three");
    let mut a = args(
        &server.url,
        cache,
        three.to_str().expect("test data"),
        &["--top-logprobs", "3"],
    );
    a[16] = "4";
    let (code, _, err) = run(&a);
    assert_eq!(code, 0, "{err}");
    let requests = server.requests.lock().expect("test data").clone();
    assert_eq!(requests.len(), 44);
    let last: Value = serde_json::from_slice(&requests[43].body).expect("test data");
    assert_eq!(last["top_logprobs"], json!(3));
}

#[test]
fn a_template_without_probability_asks_for_no_logprobs() {
    let expected = Arc::new(Mutex::new(Vec::new()));
    let server = server(expected);
    let dir = tempfile::tempdir().expect("test data");
    let cache = dir.path().join("cache");
    let out = dir.path().join("run");
    let mut a = args(
        &server.url,
        cache.to_str().expect("test data"),
        out.to_str().expect("test data"),
        &[],
    );
    a[12] = "simple_no_tie";
    let doc = json_of(&a);
    let body: Value = serde_json::from_slice(&server.requests.lock().expect("test data")[0].body)
        .expect("test data");
    assert!(body.get("logprobs").is_none() && body.get("top_logprobs").is_none());
    assert!(doc["configs"][0].get("probability").is_none());
}

#[test]
fn batch_engines_carry_the_logprobs_both_ways() {
    let dir = tempfile::tempdir().expect("test data");
    let path = |p: &str| dir.path().join(p).to_str().expect("test data").to_string();
    let (export, cache) = (path("export"), path("cache"));
    let mut plan = PLAN;
    plan[7] = "12";
    let mut a = vec![
        "batch",
        "export",
        "--out",
        export.as_str(),
        "--cache-dir",
        cache.as_str(),
    ];
    a.extend_from_slice(&plan);
    let (code, _, err) = run(&a);
    assert_eq!(code, 0, "{err}");
    let lines = crate::batch::shard_lines(std::path::Path::new(&export));
    assert_eq!(lines.len(), 12);
    // The engine's results: OpenAI's batch output lines, each with the chat-shape logprobs of
    // the answer the mock server would give.
    let mut results = String::new();
    let mut expected: Vec<f64> = Vec::new();
    for (key, body) in &lines {
        assert_eq!(
            (body["logprobs"].clone(), body["top_logprobs"].clone()),
            (json!(true), json!(5))
        );
        let text = body["messages"]
            .as_array()
            .expect("test data")
            .last()
            .expect("test data")["content"]
            .as_str()
            .expect("test data");
        let (mut choice, p) = answer(text);
        if p.is_none() {
            // Only the two shapes with a probability here; the chat shape for all.
            let n = text.len();
            let (s, f) = (
                -((n % 7) as f64) * 0.3 - 0.01,
                -((n % 5) as f64) * 0.4 - 0.02,
            );
            choice["logprobs"] = json!({"content": [{"token": "M", "logprob": s, "top_logprobs": [{"token": "M", "logprob": s}, {"token": "m", "logprob": f}]}]});
        }
        let lp = Logprobs(choice["logprobs"].clone());
        expected.push(lp.p());
        let line = json!({"id": "r", "custom_id": key, "response": {"status_code": 200, "body": {
            "id": "x", "object": "chat.completion", "model": "mock", "choices": [choice],
            "usage": {"prompt_tokens": 9, "completion_tokens": 1}}}});
        results.push_str(&format!("{line}\n"));
    }
    let file = dir.path().join("results.jsonl");
    std::fs::write(&file, results).expect("test data");
    let manifest = format!("{export}/manifest.json");
    let (code, _, err) = run(&[
        "batch",
        "ingest",
        file.to_str().expect("test data"),
        "--manifest",
        &manifest,
        "--cache-dir",
        &cache,
    ]);
    assert_eq!(code, 0, "{err}");
    let out = path("run");
    let mut a = vec![
        "calibrate",
        "--offline",
        "--cache-dir",
        cache.as_str(),
        "--out",
        out.as_str(),
        "--bootstrap",
        "0",
    ];
    a.extend_from_slice(&plan);
    let (code, _, err) = run(&a);
    assert_eq!(code, 0, "{err}");
    let (got, reasons) = probabilities(std::path::Path::new(&out));
    assert!(reasons.is_empty(), "{reasons:?}");
    expected.sort_by(f64::total_cmp);
    assert_eq!(got.len(), 12);
    for (g, w) in got.iter().zip(&expected) {
        assert!((g - w).abs() < 1e-12, "{g} vs {w}");
    }
}

/// An independent reading of a chat- or completions-shape logprobs object: p(M) / (p(m) + p(M)).
struct Logprobs(Value);

impl Logprobs {
    fn p(&self) -> f64 {
        let top = &self.0["content"][0]["top_logprobs"];
        let get = |t: &str| -> f64 {
            match top.as_array() {
                Some(list) => list
                    .iter()
                    .find(|x| x["token"] == t)
                    .map_or(0.0, |x| x["logprob"].as_f64().expect("test data").exp()),
                None => self.0["top_logprobs"][0][t].as_f64().map_or(0.0, f64::exp),
            }
        };
        get("M") / (get("M") + get("m"))
    }
}

/// A grading server: the first token's alternatives over the grades 1-5, their weights from
/// the response's text, so each response has its own distribution.
fn grades(text: &str) -> (Value, Vec<(f64, f64)>) {
    let n = text.len();
    let lps: Vec<f64> = (1..=5).map(|g| -(((n + 3 * g) % 7) as f64) * 0.5).collect();
    let total: f64 = lps.iter().map(|l| l.exp()).sum();
    let dist = (1..=5)
        .map(|g| (g as f64, lps[g - 1].exp() / total))
        .collect();
    let best = (1..=5)
        .max_by(|&a, &b| lps[a - 1].total_cmp(&lps[b - 1]))
        .expect("five");
    let top: Vec<Value> = (1..=5)
        .map(|g| json!({"token": g.to_string(), "logprob": lps[g - 1]}))
        .collect();
    let choice = json!({"index": 0, "message": {"role": "assistant", "content": best.to_string()},
        "logprobs": {"content": [{"token": best.to_string(), "logprob": lps[best - 1], "top_logprobs": top}]}});
    (choice, dist)
}

#[test]
fn a_pointwise_template_gives_expected_grades_and_their_comparison() {
    type Graded = Vec<(String, Vec<(f64, f64)>)>;
    let seen: Arc<Mutex<Graded>> = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let server = MockServer::start(move |r| {
        let text = user_text(r);
        let (choice, dist) = grades(&text);
        log.lock().expect("log").push((text, dist));
        let body = json!({"id": "x", "object": "chat.completion", "model": "mock", "choices": [choice], "usage": {"prompt_tokens": 50, "completion_tokens": 1}});
        Reply::Full {
            status: 200,
            headers: vec![],
            body: body.to_string().into_bytes(),
        }
    });
    let dir = tempfile::tempdir().expect("temp dir");
    let prompt = crate::common::write(
        dir.path(),
        "grade.toml",
        "name = \"grade_1_5\"\nmode = \"pointwise\"\nparser = \"score\"\ntemplate = '''Grade the answer from 1 to 5; reply with the score only.\nQ: {prompt}\nA: {response}'''\n\n[probability]\ntokens = { \"1\" = 1, \"2\" = 2, \"3\" = 3, \"4\" = 4, \"5\" = 5 }\n",
    );
    let out = dir.path().join("run");
    let (code, _, err) = endpoint_run(&server.url, &prompt, 10, &out);
    assert_eq!(code, 0, "{err}");
    // Each item: the two responses' distributions, by the graded text, compared independently.
    let by_text: std::collections::HashMap<String, Vec<(f64, f64)>> =
        seen.lock().expect("log").iter().cloned().collect();
    let items = std::fs::read_to_string(out.join("items.jsonl")).expect("items");
    let p = crate::common::ratings_floats(&out, "p_response2");
    let (e1, e2) = (
        crate::common::ratings_floats(&out, "expected_grade1"),
        crate::common::ratings_floats(&out, "expected_grade2"),
    );
    let mut checked = 0;
    for (k, line) in items.lines().enumerate() {
        let item: Value = serde_json::from_str(line).expect("an item");
        let dist = |r: &str| {
            let text = format!(
                "Grade the answer from 1 to 5; reply with the score only.\nQ: {}\nA: {}",
                item["prompt"].as_str().expect("prompt"),
                item[r].as_str().expect("response")
            );
            by_text.get(&text).cloned().expect("the server graded it")
        };
        let (d1, d2) = (dist("response1"), dist("response2"));
        let mean = |d: &[(f64, f64)]| d.iter().map(|(g, q)| g * q).sum::<f64>();
        let mut want = 0.0;
        for (g1, q1) in &d1 {
            for (g2, q2) in &d2 {
                want += q1
                    * q2
                    * if g2 > g1 {
                        1.0
                    } else if g2 == g1 {
                        0.5
                    } else {
                        0.0
                    };
            }
        }
        assert!((p[k].expect("p") - want).abs() < 1e-12, "item {k}");
        assert!(
            (e1[k].expect("e1") - mean(&d1)).abs() < 1e-12
                && (e2[k].expect("e2") - mean(&d2)).abs() < 1e-12
        );
        checked += 1;
    }
    assert_eq!(checked, 10);
    // completions.jsonl keeps each answer's distribution.
    let answers = std::fs::read_to_string(out.join("completions.jsonl")).expect("answers");
    let first: Value = serde_json::from_str(answers.lines().next().expect("a line")).expect("json");
    assert_eq!(
        first["grade_distribution"].as_array().map(Vec::len),
        Some(5)
    );
}

#[test]
fn a_recording_carries_its_logprobs() {
    // Record answers for the items a run shows, some with logprobs in the legacy shape.
    let expected = Arc::new(Mutex::new(Vec::new()));
    let server = server(expected);
    let dir = tempfile::tempdir().expect("temp dir");
    let first = dir.path().join("first");
    let cache = dir.path().join("cache");
    let (code, _, err) = run(&args(
        &server.url,
        cache.to_str().expect("utf-8"),
        first.to_str().expect("utf-8"),
        &[],
    ));
    assert_eq!(code, 0, "{err}");
    let mut recording = String::new();
    let mut want: Vec<f64> = Vec::new();
    for (k, line) in std::fs::read_to_string(first.join("items.jsonl"))
        .expect("items")
        .lines()
        .enumerate()
    {
        let item: Value = serde_json::from_str(line).expect("item");
        let (m, big): (f64, f64) = (-0.1 * k as f64 - 0.05, -0.2);
        let mut rec = json!({"prompt": item["prompt"], "response1": item["response1"], "response2": item["response2"], "completion": "M"});
        if k % 3 != 0 {
            rec["logprobs"] = json!({"tokens": ["M"], "token_logprobs": [big], "top_logprobs": [{"M": big, "m": m}]});
            want.push(big.exp() / (big.exp() + m.exp()));
        }
        recording.push_str(&format!("{rec}\n"));
    }
    let file = crate::common::write(dir.path(), "recorded.jsonl", &recording);
    let out = dir.path().join("replayed");
    let replay = |file: &std::path::Path, out: &std::path::Path| {
        let judge = format!("replay:{}", file.display());
        let mut a = vec!["calibrate", "--judge", &judge, "--bootstrap", "0"];
        a.extend_from_slice(&PLAN[2..]);
        a.extend_from_slice(&["--out", out.to_str().expect("utf-8")]);
        run(&a)
    };
    let (code, _, err) = replay(&file, &out);
    assert_eq!(code, 0, "{err}");
    let (got, reasons) = probabilities(&out);
    want.sort_by(f64::total_cmp);
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert!((g - w).abs() < 1e-12);
    }
    assert!(
        reasons.iter().all(|r| r.contains("no logprobs")),
        "{reasons:?}"
    );
    // A recording whose logprobs are not logprobs: exit 2, file and line named.
    let bad = crate::common::write(dir.path(), "bad.jsonl", "{\"prompt\": \"p\", \"response1\": \"a\", \"response2\": \"b\", \"completion\": \"M\", \"logprobs\": [1, 2]}\n");
    let (code, _, err) = replay(&bad, &dir.path().join("bad"));
    assert_eq!(code, 2);
    assert!(
        err.contains("bad.jsonl', line 1") && err.contains("logprobs"),
        "{err}"
    );
}

/// `calibrate` against a mock endpoint with a prompt file, over the first bundled pairs, no
/// cache, no intervals.
pub fn endpoint_run(
    url: &str,
    prompt: &std::path::Path,
    limit: usize,
    out: &std::path::Path,
) -> (i32, String, String) {
    let limit = limit.to_string();
    run(&[
        "calibrate",
        "--endpoint",
        url,
        "--model",
        "mock",
        "--prompt",
        prompt.to_str().expect("utf-8"),
        "--data",
        "sample",
        "--limit",
        &limit,
        "--bootstrap",
        "0",
        "--no-cache",
        "--out",
        out.to_str().expect("utf-8"),
    ])
}
