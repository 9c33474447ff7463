//! Reasoning judges and structured verdicts against an in-process mock of such a server: the
//! verdict is read from the answer, never from the thinking (`reasoning_content`, a closed or
//! unclosed `<think>`), an answer cut off while thinking is its own status, thinking tokens are
//! counted, a 400 naming `temperature` is retried without it, and JSON answers are read in
//! content, in a tool call and in a fenced block (malformed JSON says why).

use crate::common::{json_of, run, write};
use crate::judge_cli::user_text;
use crate::mock_http::{MockServer, Reply};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

fn reply(choice: Value, usage: Value) -> Reply {
    let body = json!({"id": "x", "object": "chat.completion", "model": "mock", "choices": [choice], "usage": usage});
    Reply::Full {
        status: 200,
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: body.to_string().into_bytes(),
    }
}

/// The case an item gets, from its prompt, and what its rating must be: `Some(verdict)`, or
/// `None` with the status.
fn case(text: &str) -> (usize, Option<i64>, &'static str) {
    match text.len() % 5 {
        // The answer says A; the thinking apart says B.
        0 => (0, Some(-1), "rated"),
        // A closed <think> with a decoy [[B]], then [[A]].
        1 => (1, Some(-1), "rated"),
        // An unclosed <think> holding a decoy verdict, stopped at max_tokens.
        2 => (2, None, "cut_off"),
        // Nothing but thinking apart, and an empty answer at max_tokens.
        3 => (3, None, "cut_off"),
        // A plain answer B, after thinking apart.
        _ => (4, Some(1), "rated"),
    }
}

fn reasoning_server(temperature_refused: Arc<Mutex<usize>>) -> MockServer {
    MockServer::start(move |r| {
        let body: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
        if body.get("temperature").is_some() {
            *temperature_refused.lock().expect("count") += 1;
            return Reply::status(
                400,
                r#"{"error": {"message": "Unsupported parameter: 'temperature' is not supported with this model.", "type": "invalid_request_error", "param": "temperature"}}"#,
            );
        }
        let (k, _, _) = case(&user_text(r));
        let usage = json!({"prompt_tokens": 300, "completion_tokens": 200, "completion_tokens_details": {"reasoning_tokens": 150}});
        let message = |content: Value, reasoning: Option<&str>| {
            let mut m = json!({"role": "assistant", "content": content});
            if let Some(t) = reasoning {
                m["reasoning_content"] = json!(t);
            }
            m
        };
        let (m, finish) = match k {
            0 => (message(json!("My verdict: [[A]]"), Some("Assistant B is better: [[B]]. Hmm, no.")), "stop"),
            1 => (message(json!("<think>Clearly [[B]] wins... wait, A is right.</think>\nFinal verdict: [[A]]"), None), "stop"),
            2 => (message(json!("<think>Response 2 looks better, so [[B]]. But let me check the"), None), "length"),
            3 => (message(Value::Null, Some("[[A]] is tempting, but")), "length"),
            _ => (message(json!("[[B]]"), Some("thinking about [[A]]")), "stop"),
        };
        reply(
            json!({"index": 0, "message": m, "finish_reason": finish}),
            usage,
        )
    })
}

#[test]
fn thinking_is_never_a_verdict_and_a_cut_off_answer_is_its_own_status() {
    let refused = Arc::new(Mutex::new(0));
    let server = reasoning_server(refused.clone());
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("run");
    let args = [
        "calibrate",
        "--endpoint",
        &server.url,
        "--model",
        "o-mock",
        "--prompt",
        "mt-bench_pairwise",
        "--data",
        "sample",
        "--limit",
        "30",
        "--bootstrap",
        "0",
        "--no-cache",
        "--concurrency",
        "1",
        "--temperature",
        "0",
        "--reasoning-effort",
        "low",
        "--max-tokens",
        "200",
        "--out",
        out.to_str().expect("utf-8"),
    ];
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    // The 400 naming temperature: one refusal, then every call without it, and the run says so.
    assert_eq!(*refused.lock().expect("count"), 1);
    let requests = server.requests.lock().expect("log").clone();
    assert_eq!(requests.len(), 31);
    for r in &requests[1..] {
        let body: Value = serde_json::from_slice(&r.body).expect("json");
        assert!(body.get("temperature").is_none());
        assert_eq!(body["reasoning_effort"], "low");
    }
    assert!(
        stderr.contains("30 calls were sent without 'temperature'"),
        "{stderr}"
    );
    // Every item as its case says: no decoy read, cut-offs as their own status.
    let items = std::fs::read_to_string(out.join("items.jsonl")).expect("items");
    let texts: Vec<Value> = items
        .lines()
        .map(|l| serde_json::from_str(l).expect("item"))
        .collect();
    let ratings = std::fs::read_to_string(out.join("ratings.csv")).expect("ratings");
    let mut lines = ratings.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).expect("column");
    let (rating, status) = (col("rating"), col("status"));
    let mut seen = [0usize; 5];
    for (item, line) in texts.iter().zip(lines) {
        let cells: Vec<&str> = line.split(',').collect();
        let rendered = {
            // The user message of mt-bench_pairwise: its layout around the texts.
            format!(
                "[User Question]\n{}\n\n[The Start of Assistant A's Answer]\n{}\n[The End of Assistant A's Answer]\n\n[The Start of Assistant B's Answer]\n{}\n[The End of Assistant B's Answer]",
                item["prompt"].as_str().expect("p"), item["response1"].as_str().expect("r1"), item["response2"].as_str().expect("r2")
            )
        };
        let (k, want, want_status) = case(&rendered);
        seen[k] += 1;
        assert_eq!(cells[status], want_status, "case {k}: {line}");
        assert_eq!(
            cells[rating],
            want.map_or(String::new(), |v| v.to_string()),
            "case {k}"
        );
    }
    assert!(seen.iter().all(|&n| n > 0), "every case was met: {seen:?}");
    // The JSON counts, the reasons and the cost.
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).expect("run.json"))
            .expect("json");
    let cost = &doc["configs"][0]["cost"];
    assert_eq!(cost["tokens_reasoning"].as_u64(), Some(150 * 30));
    let report = json_of(&["report", out.to_str().expect("utf-8"), "--bootstrap", "0"]);
    let c = &report["configs"][0];
    assert_eq!(
        c["counts"]["cut_off"].as_u64(),
        Some((seen[2] + seen[3]) as u64)
    );
    assert_eq!(c["cost"]["tokens_reasoning"].as_u64(), Some(4500));
    assert!(
        (c["cost"]["reasoning_share_of_budget"]
            .as_f64()
            .expect("share")
            - 0.75)
            .abs()
            < 1e-12
    );
    let reasons = c["reasons"].as_array().expect("reasons");
    assert!(reasons.iter().any(|r| r["reason"].as_str().is_some_and(|t| t.starts_with("cut off while thinking after 200 tokens (150 of them thinking): raise --max-tokens"))), "{reasons:?}");
    assert!(
        stdout.contains("Thinking:") && stdout.contains("4500 thinking tokens (75% of its budget"),
        "{stdout}"
    );
    // The thinking is kept: completions.jsonl has it apart; the page shows it collapsed.
    let answers = std::fs::read_to_string(out.join("completions.jsonl")).expect("answers");
    assert!(answers.contains("\"reasoning\":\"Assistant B is better: [[B]]. Hmm, no.\""));
    let page = std::fs::read_to_string(out.join("report.html")).expect("page");
    assert!(page.contains("Clearly [[B]] wins") && page.contains("reasoning"));
}

/// A judge answering in JSON four ways: content, a tool call, a fenced block, and malformed.
fn json_server(requests: Arc<Mutex<Vec<Value>>>) -> MockServer {
    MockServer::start(move |r| {
        let body: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
        requests.lock().expect("log").push(body);
        let verdict = if user_text(r).len() % 2 == 0 {
            "B"
        } else {
            "A"
        };
        let args = json!({"reason": "shorter and right", "winner": verdict}).to_string();
        let message = match user_text(r).len() % 4 {
            0 => json!({"role": "assistant", "content": args}),
            1 => {
                json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "verdict", "arguments": args}}]})
            }
            2 => {
                json!({"role": "assistant", "content": format!("Here is my verdict.\n```json\n{args}\n```")})
            }
            _ => json!({"role": "assistant", "content": "{\"reason\": \"cut\", \"winner\": "}),
        };
        reply(
            json!({"index": 0, "message": message, "finish_reason": "stop"}),
            json!({"prompt_tokens": 10, "completion_tokens": 10}),
        )
    })
}

#[test]
fn json_verdicts_in_content_tool_calls_and_fences() {
    let requests = Arc::new(Mutex::new(Vec::new()));
    let server = json_server(requests.clone());
    let dir = tempfile::tempdir().expect("temp dir");
    let prompt = write(
        dir.path(),
        "json.toml",
        "name = \"json_verdict\"\nparser = \"json\"\npath = \"winner\"\nvalues = { A = \"response1\", B = \"response2\" }\ntemplate = '''Which answer is better? Reply in JSON {\"reason\": ..., \"winner\": \"A\" or \"B\"}.\nQ: {prompt}\nA: {response1}\nB: {response2}'''\n\n[request]\nresponse_format = { type = \"json_schema\", json_schema = { name = \"verdict\", schema = { type = \"object\", properties = { reason = { type = \"string\" }, winner = { type = \"string\", enum = [\"A\", \"B\"] } }, required = [\"reason\", \"winner\"] } } }\n",
    );
    let out = dir.path().join("run");
    let (code, _, err) = crate::logprobs::endpoint_run(&server.url, &prompt, 24, &out);
    assert_eq!(code, 0, "{err}");
    // The schema went out with every request.
    for body in requests.lock().expect("log").iter() {
        assert_eq!(body["response_format"]["type"], "json_schema");
        assert_eq!(
            body["response_format"]["json_schema"]["schema"]["required"],
            json!(["reason", "winner"])
        );
    }
    let answers = std::fs::read_to_string(out.join("completions.jsonl")).expect("answers");
    let (mut read, mut malformed) = (0, 0);
    for line in answers.lines() {
        let a: Value = serde_json::from_str(line).expect("json");
        let text = a["text"].as_str().expect("text");
        if text.ends_with("\"winner\": ") {
            malformed += 1;
            let why = a["problem"].as_str().expect("a reason");
            assert!(
                why.contains("malformed JSON") && why.contains("EOF"),
                "{why}"
            );
        } else {
            read += 1;
            let want = if text.contains("\"winner\":\"B\"") {
                1
            } else {
                -1
            };
            assert_eq!(a["verdict"].as_i64(), Some(want), "{text}");
        }
    }
    assert!(
        read >= 12 && malformed >= 1,
        "{read} read, {malformed} malformed"
    );
    // The tool call's arguments were the answer.
    assert!(answers.contains("{\\\"reason\\\":\\\"shorter and right\\\""));
}
