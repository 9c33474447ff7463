//! Cost: self-consistency's samples asked in one request (`n`) against mocks that honour `n`,
//! refuse it (HTTP 400) or ignore it (llama-cpp-python's server answers one choice), dollars
//! from `--price`, and a kill -9 in the middle of an `n: 5` run.

use crate::common::{json_of, root, run, stored};
use crate::mock_http::{MockServer, Reply, Request};
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;

fn body(r: &Request) -> Value {
    serde_json::from_slice(&r.body).unwrap_or(Value::Null)
}

/// A verdict for a prompt and a choice: deterministic, varied.
fn verdict(prompt: &str, choice: u64) -> &'static str {
    let h = prompt
        .bytes()
        .fold(choice, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
    if h % 3 == 0 {
        "[[B]]"
    } else {
        "[[A]]"
    }
}

/// How a mock treats `n`.
#[derive(Clone, Copy, PartialEq)]
enum N {
    /// OpenAI and vLLM: n choices, the prompt billed once.
    Honours,
    /// An HTTP 400 naming it (OpenAI's words for a model without it).
    Refuses,
    /// llama-cpp-python's server: one choice whatever is asked.
    Ignores,
}

/// A chat-completions reply of `n` choices: 100 prompt tokens, 7 completion tokens a choice.
fn reply(r: &Request, mode: N) -> Reply {
    let b = body(r);
    let asked = b["n"].as_u64().unwrap_or(1);
    if mode == N::Refuses && asked > 1 {
        return Reply::status(
            400,
            r#"{"error":{"message":"Invalid 'n': this model only supports n=1.","type":"invalid_request_error","param":"n"}}"#,
        );
    }
    let n = if mode == N::Ignores { 1 } else { asked };
    let prompt = b["messages"].to_string();
    let choices: Vec<Value> = (0..n)
        .map(|k| {
            // RewardBench 2's ratings prompts are answered a grade, the rest a verdict.
            let seed = k + b["seed"].as_u64().unwrap_or(0);
            let content = if prompt.contains("[Your judgement]") {
                if verdict(&prompt, seed) == "[[B]]" { "Fine.\n\n8" } else { "Weak.\n\n4" }
            } else {
                verdict(&prompt, seed)
            };
            json!({"index": k, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"})
        })
        .collect();
    let out = json!({
        "id": "chatcmpl-n", "object": "chat.completion", "model": "m",
        "choices": choices,
        "usage": {"prompt_tokens": 100, "completion_tokens": 7 * n, "total_tokens": 100 + 7 * n},
    });
    Reply::bytes(out.to_string().into_bytes())
}

fn sample_data() -> String {
    root()
        .join("data/sample.parquet")
        .to_str()
        .expect("utf-8")
        .to_string()
}

/// The issue's command, against `server`, in `dir` (its run directory `dir/out`).
fn command(server: &MockServer, dir: &Path, out: &str, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "calibrate",
        "--data",
        &sample_data(),
        "--endpoint",
        &server.url,
        "--model",
        "m",
        "--prompt",
        "reward-bench_gemini_no_tie",
        "--rater",
        "basic",
        "--rater",
        "sc:5",
        "--price",
        "m=3,15",
        "--json",
        "--bootstrap",
        "200",
        "--cache-dir",
        dir.join("cache").to_str().expect("utf-8"),
        "--out",
        dir.join(out).to_str().expect("utf-8"),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

fn config<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["configs"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == name))
        .unwrap_or_else(|| {
            let names: Vec<&Value> = doc["configs"]
                .as_array()
                .map(|c| c.iter().map(|c| &c["name"]).collect())
                .unwrap_or_default();
            panic!("no configuration {name} among {names:?}")
        })
}

#[test]
fn sc5_asks_once_per_item_and_pays_the_prompt_once() {
    let server = MockServer::start(|r| reply(r, N::Honours));
    let dir = tempfile::tempdir().expect("tempdir");
    let doc = json_of(&strs(&command(&server, dir.path(), "run", &[])));
    let items = doc["data"]["items"].as_u64().expect("items");
    assert_eq!(items, 43);
    // 43 requests for basic, 43 for sc:5 (not 215).
    let bodies: Vec<Value> = server
        .requests
        .lock()
        .expect("log")
        .iter()
        .map(body)
        .collect();
    assert_eq!(bodies.len(), 86);
    let asked: Vec<u64> = bodies
        .iter()
        .map(|b| b["n"].as_u64().unwrap_or(0))
        .collect();
    assert_eq!(asked.iter().filter(|&&n| n == 5).count(), 43);
    assert_eq!(asked.iter().filter(|&&n| n == 1).count(), 43);
    let sc = &config(&doc, "reward-bench_gemini_no_tie/sc:5")["cost"];
    let basic = &config(&doc, "reward-bench_gemini_no_tie/basic")["cost"];
    // The prompt is billed once a request; every sample's completion is.
    assert_eq!(sc["requests"], 43);
    assert_eq!(sc["prompt_tokens"], 43 * 100);
    assert_eq!(sc["completion_tokens"], 43 * 5 * 7);
    assert_eq!(sc["calls"], 215);
    assert_eq!(basic["requests"], 43);
    assert_eq!(basic["prompt_tokens"], 43 * 100);
    // Dollars: the server's usage × the prices ($3 in, $15 out per million).
    let usd = |c: &Value, tin: f64, tout: f64| {
        let want = (tin * 3.0 + tout * 15.0) / 1e6;
        let got = c["usd"].as_f64().expect("usd");
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        let per = c["usd_per_1000"].as_f64().expect("usd_per_1000");
        assert!((per - want * 1000.0 / 43.0).abs() < 1e-12);
    };
    usd(sc, 4300.0, 1505.0);
    usd(basic, 4300.0, 301.0);
    // Every sample is a verdict of its own: 5 per item in the run directory.
    let answers = std::fs::read_to_string(dir.path().join("run/completions.jsonl")).expect("log");
    let sc_lines = answers
        .lines()
        .filter(|l| l.contains("\"reward-bench_gemini_no_tie/sc:5\""))
        .count();
    assert_eq!(sc_lines, 215);
    // The frontier is in dollars, and names its best and its tests.
    let f = &doc["cost_frontier"];
    assert_eq!(f["unit"], "usd");
    assert_eq!(f["metric"], "kappa_quadratic");
    assert_eq!(f["margin"], 0.02);
    assert!(f["frontier"].as_array().is_some_and(|a| !a.is_empty()));
    // The same command again answers from the cache: no request, and the same dollars
    // (what the answers cost when first paid), the cached answers counted apart.
    let again = json_of(&strs(&command(&server, dir.path(), "again", &[])));
    assert_eq!(server.count(), 86);
    let sc2 = &config(&again, "reward-bench_gemini_no_tie/sc:5")["cost"];
    assert_eq!(sc2["usd"], sc["usd"]);
    assert_eq!(sc2["requests"], 43);
    assert_eq!(sc2["cached"], 215);
    // --offline reads the same answers back from the cache, sample by sample.
    let offline = json_of(&strs(&command(
        &server,
        dir.path(),
        "offline",
        &["--offline"],
    )));
    assert_eq!(
        config(&offline, "reward-bench_gemini_no_tie/sc:5")["overall"],
        config(&doc, "reward-bench_gemini_no_tie/sc:5")["overall"]
    );
}

#[test]
fn a_server_that_refuses_n_gets_one_request_per_sample_and_a_note() {
    let server = MockServer::start(|r| reply(r, N::Refuses));
    let dir = tempfile::tempdir().expect("tempdir");
    let (code, out, err) = run(&strs(&command(
        &server,
        dir.path(),
        "run",
        &["--concurrency", "1"],
    )));
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).expect("json");
    // One refused request, then every sample alone: 43 + 1 + 215.
    assert_eq!(server.count(), 43 + 1 + 215, "{err}");
    let sc = &config(&doc, "reward-bench_gemini_no_tie/sc:5")["cost"];
    assert_eq!(sc["requests"], 215);
    assert_eq!(sc["prompt_tokens"], 215 * 100);
    assert!(
        err.contains("reward-bench_gemini_no_tie/sc:5: 215 calls were sent one request per sample, not together with 'n' (HTTP 400: Invalid 'n'"),
        "{err}"
    );
    // --samples-per-request 1 never asks for n.
    let quiet = MockServer::start(|r| reply(r, N::Refuses));
    let (code, _, err) = run(&strs(&command(
        &quiet,
        dir.path(),
        "r2",
        &["--samples-per-request", "1", "--no-cache"],
    )));
    assert_eq!(code, 0, "{err}");
    assert_eq!(quiet.count(), 43 + 215);
    assert!(!err.contains("one request per sample"), "{err}");
}

/// llama-cpp-python's server takes `n` and answers one choice: the first sample comes from
/// that answer, the other four are asked one by one, and the run says why.
#[test]
fn a_server_that_ignores_n_has_the_rest_asked_alone() {
    let server = MockServer::start(|r| reply(r, N::Ignores));
    let dir = tempfile::tempdir().expect("tempdir");
    let (code, out, err) = run(&strs(&command(
        &server,
        dir.path(),
        "run",
        &["--concurrency", "1"],
    )));
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(server.count(), 43 + 215, "{err}");
    let sc = &config(&doc, "reward-bench_gemini_no_tie/sc:5")["cost"];
    assert_eq!(sc["requests"], 215);
    assert_eq!(sc["calls"], 215);
    assert!(
        err.contains("calls were sent one request per sample, not together with 'n' (the server answered 1 choice(s) of the 5 asked with 'n')"),
        "{err}"
    );
}

#[test]
fn a_price_for_a_model_no_judge_uses_is_an_error() {
    let server = MockServer::start(|r| reply(r, N::Honours));
    let dir = tempfile::tempdir().expect("tempdir");
    let mut args = command(&server, dir.path(), "run", &[]);
    let at = args.iter().position(|a| a == "m=3,15").expect("price");
    args[at] = "gpt-4o=3,15".into();
    let (code, _, err) = run(&strs(&args));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--price gpt-4o: no judge of this run uses the model 'gpt-4o'; its models: m"),
        "{err}"
    );
    assert_eq!(server.count(), 0);
    args[at] = "m=3".into();
    let (code, _, err) = run(&strs(&args));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("expected MODEL=IN,OUT"), "{err}");
}

/// kill -9 while an `n: 5` run is under way: the samples of each request are stored together,
/// so the same command pays for none twice.
#[test]
fn kill_dash_9_in_an_n5_run_pays_no_sample_twice() {
    let release = std::sync::Arc::new((std::sync::Mutex::new(false), std::sync::Condvar::new()));
    let held = release.clone();
    let answered = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = answered.clone();
    let server = MockServer::start(move |r| {
        // The first 6 requests are answered at once; later ones wait for the kill.
        if count.fetch_add(1, std::sync::atomic::Ordering::SeqCst) >= 6 {
            let (lock, cv) = &*held;
            let mut go = lock.lock().expect("lock");
            let deadline = std::time::Instant::now() + Duration::from_secs(30);
            while !*go && std::time::Instant::now() < deadline {
                go = cv
                    .wait_timeout(go, Duration::from_millis(100))
                    .expect("wait")
                    .0;
            }
        }
        reply(r, N::Honours)
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("cache");
    let mut args = command(&server, dir.path(), "run", &["--concurrency", "2"]);
    // sc:5 alone, so every request carries 5 samples.
    let basic = args.iter().position(|a| a == "basic").expect("basic");
    args.drain(basic - 1..=basic);
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("raterlab"))
        .args(&args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    for _ in 0..300 {
        if stored(&cache) >= 30 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = std::process::Command::new("kill")
        .args(["-KILL", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    {
        let (lock, cv) = &*release;
        *lock.lock().expect("lock") = true;
        cv.notify_all();
    }
    child.wait().expect("reaped");
    let kept = stored(&cache);
    // Whole requests only: 5 samples each.
    assert_eq!(kept % 5, 0, "{kept} answers stored");
    assert!((30..215).contains(&kept), "{kept}");
    let before = server.count();
    let resumed = MockServer::start(|r| reply(r, N::Honours));
    let mut again = args.clone();
    let at = again.iter().position(|a| *a == server.url).expect("url");
    again[at] = resumed.url.clone();
    let (code, out, err) = run(&strs(&again));
    assert_eq!(code, 0, "{err}");
    // Only the items whose samples were never stored are asked, 5 samples in each request.
    assert_eq!(resumed.count(), (215 - kept) / 5, "{err}");
    let doc: Value = serde_json::from_str(&out).expect("json");
    let sc = &config(&doc, "reward-bench_gemini_no_tie/sc:5")["cost"];
    assert_eq!(sc["cached"], kept as u64);
    assert!(before >= kept / 5);
}

/// An experiment file's `price` on its `[[judge]]`, and a jury's cost: the sum of its
/// members', each at its own model's price.
#[test]
fn an_experiment_files_prices_and_a_jurys_sum() {
    let server = MockServer::start(|r| reply(r, N::Honours));
    let dir = tempfile::tempdir().expect("tempdir");
    let toml = format!(
        r#"prompts = ["reward-bench_gemini_no_tie"]
raters = ["basic"]

[[judge]]
label = "cheap"
endpoint = "{url}"
model = "small"
price = {{ input = 0.5, output = 1.5 }}

[[judge]]
label = "dear"
endpoint = "{url}"
model = "large"
price = {{ input = 10, output = 30 }}

[[judge]]
label = "unpriced"
endpoint = "{url}"
model = "other"

[[jury]]
name = "pair"
members = ["cheap", "dear"]
"#,
        url = server.url
    );
    let experiment = dir.path().join("exp.toml");
    std::fs::write(&experiment, toml).expect("write");
    let doc = json_of(&[
        "calibrate",
        "--data",
        &sample_data(),
        "--config",
        experiment.to_str().expect("utf-8"),
        "--bootstrap",
        "100",
        "--json",
        "--no-cache",
        "--out",
        dir.path().join("run").to_str().expect("utf-8"),
    ]);
    let usd = |name: &str| config(&doc, name)["cost"]["usd"].as_f64();
    let (cheap, dear) = (
        usd("cheap/reward-bench_gemini_no_tie/basic").expect("priced"),
        usd("dear/reward-bench_gemini_no_tie/basic").expect("priced"),
    );
    assert!(
        (cheap - (4300.0 * 0.5 + 301.0 * 1.5) / 1e6).abs() < 1e-12,
        "{cheap}"
    );
    assert!(
        (dear - (4300.0 * 10.0 + 301.0 * 30.0) / 1e6).abs() < 1e-12,
        "{dear}"
    );
    assert!(
        (usd("pair/reward-bench_gemini_no_tie/basic").expect("the jury's") - (cheap + dear)).abs()
            < 1e-12
    );
    assert_eq!(usd("unpriced/reward-bench_gemini_no_tie/basic"), None);
    // One judge without a price: the frontier counts tokens, not dollars.
    assert_eq!(doc["cost_frontier"]["unit"], "tokens");
}

/// RewardBench 2 rows take `--price` as pairs do: each configuration's calls in dollars (its
/// tokens at the model's price; a jury its members' sum), on the terminal, in `--json` and read
/// back by `report DIR`.
#[test]
fn rewardbench2_configurations_cost_dollars_at_their_price() {
    let server = MockServer::start(|r| reply(r, N::Honours));
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run");
    let cache = dir.path().join("cache");
    let on_rows = |out: &Path, extra: &[&str]| -> Vec<String> {
        let args: Vec<String> = [
            "calibrate",
            "--data",
            "sample-v2",
            "--endpoint",
            &server.url,
            "--model",
            "m",
            "--bootstrap",
            "0",
            "--cache-dir",
            cache.to_str().expect("utf-8"),
            "--out",
            out.to_str().expect("utf-8"),
        ]
        .iter()
        .chain(extra)
        .map(|s| s.to_string())
        .collect();
        args
    };
    let mut args = on_rows(
        &out,
        &[
            "--prompt",
            "rb2_ranking",
            "--prompt",
            "rb2_ranking_gemini",
            "--jury",
            "both=rb2_ranking/basic,rb2_ranking_gemini/basic",
            "--price",
            "m=2,10",
        ],
    );
    let (code, terminal, err) = run(&strs(&args));
    assert_eq!(code, 0, "{err}");
    // 15 four-way calls and 13 Ties ratings a prompt, 100 prompt and 7 completion tokens each:
    // 28 × (100 × $2 + 7 × $10) / 1e6 = $0.00756. The second prompt's Ties ratings are the
    // first's (the same calls, from the cache), which cost what they cost when first paid.
    let usd = 28.0 * (100.0 * 2.0 + 7.0 * 10.0) / 1e6;
    assert!(
        terminal.contains(&format!("28 calls, 0 from the cache, ${usd:.4}")),
        "{terminal}"
    );
    args.push("--json".into());
    let doc = json_of(&strs(&args));
    let configs = doc["configs"].as_array().expect("configs");
    for (c, want) in configs.iter().zip([usd, usd, 2.0 * usd]) {
        let got = c["calls"]["usd"].as_f64().expect("dollars");
        assert!((got - want).abs() < 1e-12, "{}: {got} vs {want}", c["name"]);
        // configs[i].cost as a run over pairs has it: dollars, per 1000 rows, requests.
        let cost = &c["cost"];
        assert!(
            (cost["usd"].as_f64().expect("usd") - want).abs() < 1e-12,
            "{cost}"
        );
        let per_1000 = cost["usd_per_1000"].as_f64().expect("per 1000");
        assert!((per_1000 - want * 1000.0 / 19.0).abs() < 1e-12, "{cost}");
        assert_eq!(cost["prompt_tokens"], c["calls"]["tokens_in"]);
    }
    // The cost frontier of the compared score: in dollars (every judge has a price), each
    // point the configuration's mean subset score, the jury (twice the price) never cheaper.
    let f = &doc["cost_frontier"];
    assert_eq!(f["unit"], "usd", "{f}");
    assert_eq!(f["metric"], "mean_subset_score");
    let points = f["points"].as_array().expect("points");
    assert_eq!(points.len(), 3);
    for p in points {
        let c = configs
            .iter()
            .find(|c| c["name"] == p["name"])
            .expect("a configuration");
        assert_eq!(p["cost"], c["cost"]["usd"]);
    }
    assert!(points
        .iter()
        .all(|p| p["name"] != "both" || p["cost"].as_f64() == Some(2.0 * usd)));
    assert!(
        terminal.contains("Cost and agreement, cheapest first (cost in dollars"),
        "{terminal}"
    );
    let again = json_of(&["report", out.to_str().expect("utf-8"), "--json"]);
    assert_eq!(again["configs"], doc["configs"]);
    assert_eq!(again["cost_frontier"], doc["cost_frontier"]);
    let metrics = std::fs::read_to_string(out.join("metrics.csv")).expect("metrics.csv");
    assert!(metrics.contains(",cost,") && metrics.contains(",cost_frontier,"));
    // Without a price, no dollars.
    let plain = json_of(&strs(&on_rows(&dir.path().join("plain"), &["--json"])));
    assert!(plain["configs"][0]["calls"].get("usd").is_none());
    assert!(plain["configs"][0]["cost"]["usd"].is_null());
    // One configuration: nothing to draw a frontier through.
    assert!(plain["cost_frontier"].is_null());
}
