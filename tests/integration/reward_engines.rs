//! Reward models behind serving engines (`vllm-reward:`, `tei-reward:`, `sglang-reward:`)
//! against mock engines that answer as vLLM's `/pooling`, TEI's `/predict` and SGLang's
//! `/classify` do: the request bodies are the engines' own, the results equal those of
//! `scores:FILE` holding the same numbers, a second run sends nothing, and faults are retried.

use crate::common::{error_of, json_of, root};
use crate::mock_http::{MockServer, Reply, Request};
use serde_json::{json, Value};

/// The mock reward model's score of a response: many digits, so that a rounding anywhere
/// between the engine and the report would show.
fn score(text: &str) -> f64 {
    let h = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    (h % 1_000_003) as f64 / 7919.0 - 63.0
}

fn json_reply(value: Value) -> Reply {
    Reply::Full {
        status: 200,
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: value.to_string().into_bytes(),
    }
}

fn body(r: &Request) -> Value {
    serde_json::from_slice(&r.body).expect("a JSON body")
}

/// vLLM's `/pooling` for a reward model: refuses a body without `use_activation: false`.
fn vllm(r: &Request) -> Reply {
    let b = body(r);
    if r.path != "/pooling" || b["use_activation"] != json!(false) || b["model"] != "rm" {
        return Reply::status(400, r#"{"error": {"message": "unexpected request"}}"#);
    }
    let messages = b["messages"].as_array().expect("messages");
    let last = messages.last().expect("a message");
    assert_eq!(last["role"], "assistant", "{b}");
    json_reply(json!({
        "id": "pool-1", "object": "list", "created": 1, "model": "rm",
        "data": [{"index": 0, "object": "pooling", "data": [score(last["content"].as_str().expect("text"))]}],
        "usage": {"prompt_tokens": 12, "total_tokens": 12},
    }))
}

/// TEI's `/predict` with raw scores.
fn tei(r: &Request) -> Reply {
    let b = body(r);
    if r.path != "/predict" || b["raw_scores"] != json!(true) {
        return Reply::status(
            422,
            r#"{"error": "unexpected request", "error_type": "Validation"}"#,
        );
    }
    let response = b["inputs"][0][1].as_str().expect("a text pair");
    json_reply(json!([{"score": score(response), "label": "LABEL_0"}]))
}

/// The bundled pairs' texts as a scores file (prompt, response, score).
fn pairs_scores(dir: &std::path::Path) -> String {
    use polars::prelude::*;
    let df = ParquetReader::new(
        std::fs::File::open(root().join("data/sample.parquet")).expect("sample"),
    )
    .finish()
    .expect("parquet");
    let text = |c: &str| df.column(c).expect(c).str().expect("text").clone();
    let (prompts, chosen, rejected) = (text("prompt"), text("chosen"), text("rejected"));
    let quote = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    let mut csv = String::from("prompt,response,score\n");
    for i in 0..df.height() {
        let prompt = prompts.get(i).expect("prompt");
        for response in [
            chosen.get(i).expect("chosen"),
            rejected.get(i).expect("rejected"),
        ] {
            csv.push_str(&format!(
                "{},{},{}\n",
                quote(prompt),
                quote(response),
                score(response)
            ));
        }
    }
    let path = dir.join("pairs-scores.csv");
    std::fs::write(&path, csv).expect("scores");
    format!("scores:{}", path.display())
}

fn calibrate(data: &str, judge: &str, extra: &[&str], out: &std::path::Path) -> Value {
    let mut args = vec![
        "calibrate",
        "--data",
        data,
        "--judge",
        judge,
        "--bootstrap",
        "200",
        "--out",
        out.to_str().expect("utf-8"),
    ];
    args.extend_from_slice(extra);
    json_of(&args)
}

#[test]
fn vllm_and_tei_reward_models_score_as_their_scores_file_does() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("cache");
    let cache = cache.to_str().expect("utf-8");
    let rb2_file = crate::rewardbench2::sample_scores(dir.path(), "rb2.csv", |_, t| Some(score(t)));
    let pairs_file = pairs_scores(dir.path());
    let vllm_server = MockServer::start(vllm);
    let tei_server = MockServer::start(tei);
    // Two model names: the cache keys an answer by the model, as it does a chat model's.
    let engines = [
        (
            format!("vllm-reward:{}", vllm_server.url),
            "rm",
            &vllm_server,
        ),
        (
            format!("tei-reward:{}", tei_server.url),
            "rm-tei",
            &tei_server,
        ),
    ];
    for (data, file, field) in [
        ("sample-v2", &rb2_file, "rewardbench2"),
        ("sample", &pairs_file, "overall"),
    ] {
        let want = calibrate(data, file, &[], &dir.path().join("file"));
        for (judge, model, server) in &engines {
            let before = server.count();
            let first = calibrate(
                data,
                judge,
                &["--model", model, "--cache-dir", cache],
                &dir.path().join("a"),
            );
            let sent = server.count() - before;
            assert!(sent > 0, "{judge} on {data}: no request");
            assert_eq!(
                first["configs"][0][field], want["configs"][0][field],
                "{judge} on {data}: not the scores file's results"
            );
            // The cache answers a second run whole.
            let again = calibrate(
                data,
                judge,
                &["--model", model, "--cache-dir", cache],
                &dir.path().join("b"),
            );
            assert_eq!(
                server.count() - before,
                sent,
                "{judge} on {data}: the second run sent requests"
            );
            assert_eq!(again["configs"][0][field], want["configs"][0][field]);
        }
    }
    // vLLM's bodies: the model, the conversation as messages, no activation.
    let requests = vllm_server.requests.lock().expect("log").clone();
    let first = body(&requests[0]);
    assert_eq!(
        first
            .as_object()
            .expect("object")
            .keys()
            .collect::<Vec<_>>(),
        ["messages", "model", "use_activation"]
    );
    let messages = first["messages"].as_array().expect("messages");
    assert_eq!(messages.len(), 2, "{first}");
    assert_eq!(messages[0]["role"], "user");
    // TEI's: the text pair and raw scores.
    let first = body(&tei_server.requests.lock().expect("log")[0]);
    assert_eq!(
        first
            .as_object()
            .expect("object")
            .keys()
            .collect::<Vec<_>>(),
        ["inputs", "raw_scores"]
    );
    assert_eq!(first["inputs"].as_array().map(Vec::len), Some(1));
    assert_eq!(first["inputs"][0].as_array().map(Vec::len), Some(2));
}

#[test]
fn engine_faults_are_retried_and_refusals_explained() {
    // Every third request fails (a 503, then a body cut short); each is retried.
    let seen = std::sync::atomic::AtomicUsize::new(0);
    let flaky = MockServer::start(move |r| {
        match seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst) % 6 {
            2 => Reply::status(503, "busy"),
            5 => Reply::CutShort {
                body: b"{\"data\": [{\"data\": [1.0]}]}".to_vec(),
                sent: 9,
            },
            _ => vllm(r),
        }
    });
    let dir = tempfile::tempdir().expect("tempdir");
    // An OpenAI base URL (`/v1`) reaches the root's /pooling too.
    let doc = calibrate(
        "sample",
        &format!("vllm-reward:{}/v1", flaky.url),
        &["--model", "rm", "--no-cache", "--retry-base-ms", "1"],
        &dir.path().join("run"),
    );
    let counts = &doc["configs"][0]["counts"];
    assert_eq!(counts["call_failures"], 0, "{counts}");
    assert!(
        flaky.count() > 86,
        "the faults were retried: {} requests",
        flaky.count()
    );

    // An older vLLM that refuses use_activation: the error says what to upgrade.
    let old = MockServer::start(|_| {
        Reply::status(
            400,
            r#"{"error": {"message": "1 validation error for PoolingChatRequest\nuse_activation\n  Extra inputs are not permitted", "type": "BadRequestError", "code": 400}}"#,
        )
    });
    let (code, _, err) = crate::common::run(&[
        "calibrate",
        "--data",
        "sample",
        "--judge",
        &format!("vllm-reward:{}", old.url),
        "--model",
        "rm",
        "--no-cache",
        "--out",
        dir.path().join("old").to_str().expect("utf-8"),
    ]);
    assert_ne!(code, 0, "{err}");
    assert!(
        err.contains("upgrade vLLM") && err.contains("use_activation"),
        "{err}"
    );
    // Wrong input: no model for vLLM, no chat template for SGLang, not a URL.
    let err = error_of(&[
        "calibrate",
        "--judge",
        &format!("vllm-reward:{}", old.url),
        "--no-cache",
    ]);
    assert!(err.contains("needs --model"), "{err}");
    let err = error_of(&[
        "calibrate",
        "--judge",
        &format!("sglang-reward:{}", old.url),
        "--model",
        "rm",
        "--no-cache",
    ]);
    assert!(err.contains("needs --chat-template FILE"), "{err}");
    let err = error_of(&["calibrate", "--judge", "tei-reward:localhost:8080"]);
    assert!(err.contains("takes the server's base URL"), "{err}");
    // A batch file of pooling requests: refused, saying why and what to run instead.
    let out = dir.path().join("batch");
    let err = error_of(&[
        "batch",
        "export",
        "--judge",
        &format!("vllm-reward:{}", old.url),
        "--model",
        "rm",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert!(
        err.contains("is a reward model behind an engine")
            && err.contains("run `raterlab calibrate`"),
        "{err}"
    );
    assert!(!out.join("manifest.json").exists());
}

#[test]
fn sglang_reward_models_are_sent_the_conversation_through_its_chat_template() {
    let dir = tempfile::tempdir().expect("tempdir");
    let template = dir.path().join("chat.jinja");
    std::fs::write(
        &template,
        "{{ bos_token }}{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}<|end|>\n{% endfor %}",
    )
    .expect("template");
    let server = MockServer::start(|r| {
        let b = body(r);
        let text = b["text"].as_str().unwrap_or("");
        if r.path != "/classify" || b["model"] != "rm" || !text.starts_with("<|user|>\n") {
            return Reply::status(400, r#"{"error": {"message": "unexpected request"}}"#);
        }
        let response = text
            .trim_end_matches("<|end|>\n")
            .rsplit("<|assistant|>\n")
            .next()
            .expect("the response");
        json_reply(json!({"embedding": [score(response)], "meta_info": {"id": "1"}}))
    });
    let pairs_file = pairs_scores(dir.path());
    let want = calibrate("sample", &pairs_file, &[], &dir.path().join("file"));
    let got = calibrate(
        "sample",
        &format!("sglang-reward:{}", server.url),
        &[
            "--model",
            "rm",
            "--chat-template",
            template.to_str().expect("utf-8"),
            "--no-cache",
        ],
        &dir.path().join("run"),
    );
    assert_eq!(got["configs"][0]["overall"], want["configs"][0]["overall"]);
    assert_eq!(server.count(), 86, "one request per response shown");
}

/// A conversation is sent as its turns (HH-RLHF's real transcripts): vLLM applies the model's
/// chat template to the whole exchange, the scored reply last.
#[test]
fn a_conversation_reaches_vllm_as_its_turns() {
    let Some(shared) = crate::common::shared_data() else {
        return;
    };
    let data = shared.join("hh-rlhf/harmless-base-test.jsonl");
    let server = MockServer::start(vllm);
    let dir = tempfile::tempdir().expect("tempdir");
    let doc = calibrate(
        data.to_str().expect("utf-8"),
        &format!("vllm-reward:{}", server.url),
        &["--model", "rm", "--no-cache", "--limit", "20"],
        &dir.path().join("run"),
    );
    assert_eq!(doc["configs"][0]["counts"]["call_failures"], 0);
    let raw = std::fs::read_to_string(&data).expect("data");
    let requests = server.requests.lock().expect("log").clone();
    assert_eq!(requests.len(), 40, "each reply scored once");
    let mut longest = 0;
    for r in &requests {
        let messages = body(r)["messages"].as_array().expect("messages").clone();
        longest = longest.max(messages.len());
        for (k, m) in messages.iter().enumerate() {
            let role = if k % 2 == 0 { "user" } else { "assistant" };
            assert_eq!(m["role"], role, "turn {k} of {messages:?}");
            // Every turn is the transcript's text, as the file holds it.
            let text = m["content"].as_str().expect("text");
            let escaped = serde_json::to_string(text).expect("json");
            assert!(
                raw.contains(escaped.trim_matches('"')),
                "not in the file: {text:?}"
            );
        }
    }
    assert!(
        longest >= 4,
        "no multi-turn conversation among the first 20: {longest}"
    );
}
