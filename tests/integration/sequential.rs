//! `calibrate --sequential` over a real OpenAI-compatible mock that answers as LLMBar's
//! recorded judges (../shared/data/llmbar): the run stops at the item where the sequence first
//! excludes ½, the mock sees at most stopped_at + 2 × concurrency requests per model, clearly
//! worse configurations stop receiving calls, and the same command resumes to the same end.

use crate::common::{ratings_strings, root, run, shared_data};
use crate::judge_cli::{completion, user_text};
use crate::mock_http::MockServer;
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

const CONCURRENCY: usize = 4;

/// Each recorded judge's answer by the two responses as shown (both orders are recorded).
fn recorded(shared: &Path, judge: &str) -> HashMap<(String, String), String> {
    let path = shared.join(format!("llmbar/judges/{judge}.jsonl"));
    std::fs::read_to_string(path)
        .expect("recorded judge")
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("a JSON line");
            let s = |k: &str| v[k].as_str().expect("text").to_string();
            ((s("response1"), s("response2")), s("completion"))
        })
        .collect()
}

/// The two outputs of an `llmbar-vanilla` prompt as rendered.
fn shown(text: &str) -> (String, String) {
    let after = |from: &str, to: &str| -> String {
        let start = text.find(from).expect("marker") + from.len();
        let end = start + text[start..].find(to).expect("marker");
        text[start..end].to_string()
    };
    (
        after("# Output (a):\n", "\n\n# Output (b):\n"),
        after("# Output (b):\n", "\n\n# Which is better"),
    )
}

/// A mock answering each model as its recorded judge (`always-a`: "Output (a)" throughout).
fn judges(shared: &Path, models: &[(&str, &str)]) -> MockServer {
    let answers: HashMap<String, HashMap<(String, String), String>> = models
        .iter()
        .filter(|(_, judge)| *judge != "always-a")
        .map(|(model, judge)| (model.to_string(), recorded(shared, judge)))
        .collect();
    MockServer::start(move |r| {
        let body: Value = serde_json::from_slice(&r.body).expect("JSON body");
        let model = body["model"].as_str().expect("model");
        let answer = match answers.get(model) {
            Some(judge) => judge.get(&shown(&user_text(r))).cloned(),
            None => Some("Output (a)".to_string()),
        };
        completion(&answer.unwrap_or_else(|| "no recording".into()))
    })
}

/// `calibrate --sequential` on LLMBar with these models; the run's `--json`.
fn race(server: &MockServer, models: &[&str], sequential: &str, dir: &Path) -> (Value, PathBuf) {
    let shared = shared_data().expect("shared data");
    let data = shared.join("llmbar/llmbar-reward-bench-schema.parquet");
    let prompt = root().join("examples/prompts/llmbar-vanilla.toml");
    let out = dir.join(format!(
        "run-{}",
        server.requests.lock().expect("log").len()
    ));
    let concurrency = CONCURRENCY.to_string();
    let mut args = vec![
        "calibrate",
        "--data",
        data.to_str().expect("utf-8"),
        "--endpoint",
        &server.url,
        "--prompt",
        prompt.to_str().expect("utf-8"),
        "--rater",
        "basic",
        "--concurrency",
        &concurrency,
        "--bootstrap",
        "0",
        "--json",
        "--sequential",
        sequential,
    ];
    let cache = dir.join("cache");
    args.extend(["--cache-dir", cache.to_str().expect("utf-8")]);
    args.extend(["--out", out.to_str().expect("utf-8")]);
    for m in models {
        args.extend(["--model", m]);
    }
    let (code, stdout, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    (serde_json::from_str(&stdout).expect("JSON"), out)
}

/// Requests per model.
fn requests(server: &MockServer) -> HashMap<String, usize> {
    let mut n = HashMap::new();
    for r in server.requests.lock().expect("log").iter() {
        let body: Value = serde_json::from_slice(&r.body).expect("JSON body");
        *n.entry(body["model"].as_str().expect("model").to_string())
            .or_default() += 1;
    }
    n
}

/// Each configuration's ratings (None: not a verdict) and the gold, in the run's item order.
fn ratings(out: &Path) -> (Vec<i64>, HashMap<String, Vec<Option<i64>>>) {
    let col = |name: &str| ratings_strings(out, name);
    let (configs, gold, rating, status) =
        (col("config"), col("gold"), col("rating"), col("status"));
    let text = |v: &Option<String>| v.clone().unwrap_or_default();
    let first = text(&configs[0]);
    let mut golds = Vec::new();
    let mut by: HashMap<String, Vec<Option<i64>>> = HashMap::new();
    for k in 0..configs.len() {
        let name = text(&configs[k]);
        // The gold, once: from the first configuration's rows.
        if name == first {
            golds.push(text(&gold[k]).parse().expect("gold"));
        }
        let value = (text(&status[k]) == "rated").then(|| text(&rating[k]).parse().expect("label"));
        by.entry(name).or_default().push(value);
    }
    (golds, by)
}

#[test]
fn a_named_comparison_stops_where_the_sequence_first_excludes_a_half() {
    let Some(shared) = shared_data() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let models = [("gpt4", "GPT-4-Vanilla"), ("falcon", "Falcon-CoT")];
    let server = judges(&shared, &models);
    let named = "gpt4/llmbar-vanilla/basic,falcon/llmbar-vanilla/basic";
    let (doc, out) = race(&server, &["gpt4", "falcon"], named, dir.path());
    let s = &doc["sequential"];
    let stopped = s["stopped_at"].as_u64().expect("decided") as usize;
    assert_eq!(s["decided"]["better"], "gpt4/llmbar-vanilla/basic", "{s}");
    assert_eq!(
        (s["comparisons"].as_u64(), s["order"].as_str()),
        (Some(1), Some("shuffled"))
    );
    // The sequence over the items both rated, in the run's order: its first exclusion.
    let (gold, by) = ratings(&out);
    let (a, b) = (
        &by["gpt4/llmbar-vanilla/basic"],
        &by["falcon/llmbar-vanilla/basic"],
    );
    let both: Vec<usize> = (0..gold.len())
        .filter(|&i| a[i].is_some() || b[i].is_some())
        .collect();
    let label = |x: &Option<i64>| x.unwrap_or(i64::MIN);
    let (g, la, lb): (Vec<i64>, Vec<i64>, Vec<i64>) = (
        both.iter().map(|&i| gold[i]).collect(),
        both.iter().map(|&i| label(&a[i])).collect(),
        both.iter().map(|&i| label(&b[i])).collect(),
    );
    let want = raterlab::evaluation::sequential::sequential(&g, &la, &lb, 0.05);
    assert_eq!(want.stopped_at, Some(stopped));
    assert_eq!(s["decided"]["lower"].as_f64(), want.lower);
    assert!(stopped < 419, "{stopped}");
    // Calls in flight finish; at most two blocks past the decision.
    let asked = requests(&server);
    for model in ["gpt4", "falcon"] {
        assert!(asked[model] >= stopped, "{model}: {}", asked[model]);
        assert!(
            asked[model] <= stopped + 2 * CONCURRENCY,
            "{model}: {} after {stopped}",
            asked[model]
        );
    }
    for c in doc["configs"].as_array().expect("configs") {
        assert_eq!(
            c["stopped_at"].as_u64(),
            Some(stopped as u64),
            "{}",
            c["name"]
        );
        // The tables cover the items each rated: no item never asked is counted.
        assert!(
            c["counts"]["not_asked"].as_u64().expect("not asked")
                >= 419 - (stopped as u64) - 2 * CONCURRENCY as u64
        );
    }
    assert!(s["calls_saved"].as_u64().expect("saved") > 0);
    // The same command again: every call made before from the cache, the same decision at the
    // same item. Calls stream, so how far past the decision the calls reach depends on when
    // the answers came: the second run may ask a few items the first did not, fewer than two
    // chunks of the concurrency per configuration.
    let before = server.requests.lock().expect("log").len();
    let (again, _) = race(&server, &["gpt4", "falcon"], named, dir.path());
    let more = server.requests.lock().expect("log").len() - before;
    assert!(
        more < 2 * 2 * CONCURRENCY,
        "{more} new calls on the same command again"
    );
    assert_eq!(again["sequential"]["decided"], s["decided"]);
    assert_eq!(again["sequential"]["stopped_at"], s["stopped_at"]);
}

#[test]
fn three_clearly_worse_configurations_stop_receiving_calls_and_two_go_on() {
    let Some(shared) = shared_data() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let models = [
        ("gpt4", "GPT-4-Vanilla"),
        ("gpt4-again", "GPT-4-Vanilla"),
        ("chatgpt", "ChatGPT-Vanilla"),
        ("llama", "LLaMA2-CoT"),
        ("always-a", "always-a"),
    ];
    let server = judges(&shared, &models);
    let names: Vec<&str> = models.iter().map(|m| m.0).collect();
    let (doc, _) = race(&server, &names, "", dir.path());
    let s = &doc["sequential"];
    assert_eq!(s["comparisons"], 10);
    let dropped: HashMap<String, usize> = s["dropped"]
        .as_array()
        .expect("dropped")
        .iter()
        .map(|d| {
            let name = d["worse"].as_str().expect("name");
            (
                name.split('/').next().expect("model").to_string(),
                d["at"].as_u64().expect("at") as usize,
            )
        })
        .collect();
    let mut worse: Vec<&str> = dropped.keys().map(String::as_str).collect();
    worse.sort_unstable();
    assert_eq!(worse, ["always-a", "chatgpt", "llama"], "{s}");
    // Never told apart, the two go on to the last item.
    assert!(s["stopped_at"].is_null() && s["decided"].is_null());
    let asked = requests(&server);
    assert_eq!((asked["gpt4"], asked["gpt4-again"]), (419, 419));
    for (model, at) in &dropped {
        assert!(*at < 300, "{model} dropped at {at}");
        assert!(
            asked[model] <= at + 2 * CONCURRENCY,
            "{model}: {} after {at}",
            asked[model]
        );
    }
    for c in doc["configs"].as_array().expect("configs") {
        let model = c["name"]
            .as_str()
            .expect("name")
            .split('/')
            .next()
            .expect("model");
        let want = dropped.get(model).map(|&at| at as u64);
        assert_eq!(c["stopped_at"].as_u64(), want, "{model}");
    }
    // The cost frontier ranks by the same rule: a dropped configuration is on no point and in
    // no test, and is named as not ranked.
    let frontier = &doc["cost_frontier"];
    let model_of = |v: &serde_json::Value| {
        let name = v.as_str().expect("a name");
        name.split('/').next().expect("model").to_string()
    };
    let not_ranked: Vec<String> = frontier["not_ranked"]
        .as_array()
        .expect("not_ranked")
        .iter()
        .map(model_of)
        .collect();
    assert_eq!(not_ranked.len(), dropped.len(), "{frontier}");
    assert!(
        not_ranked.iter().all(|m| dropped.contains_key(m)),
        "{frontier}"
    );
    let on_chart = frontier["points"].as_array().expect("points").iter();
    let tested = frontier["tests"].as_array().expect("tests").iter();
    for p in on_chart.chain(tested) {
        assert!(!dropped.contains_key(&model_of(&p["name"])), "{p}");
    }
    assert!(
        !dropped.contains_key(&model_of(&frontier["best"])),
        "{frontier}"
    );
    // The document's not_ranked: the dropped ones whose κq (on the items each rated) is above
    // the best's, in that order, each with the item it was dropped at.
    let kq = |name: &str| -> f64 {
        let c = doc["configs"].as_array().expect("configs").iter();
        let c = c
            .clone()
            .find(|c| c["name"] == name)
            .expect("a configuration");
        c["overall"]["kappa_quadratic"]
            .as_f64()
            .unwrap_or(f64::NEG_INFINITY)
    };
    let best = doc["comparison_family"]["best"].as_str().expect("best");
    let mut above: Vec<(f64, String)> = doc["configs"]
        .as_array()
        .expect("configs")
        .iter()
        .map(|c| c["name"].as_str().expect("name").to_string())
        .filter(|n| dropped.contains_key(&model_of(&serde_json::json!(n))) && kq(n) > kq(best))
        .map(|n| (kq(&n), n))
        .collect();
    above.sort_by(|a, b| b.0.total_cmp(&a.0));
    let listed: Vec<(String, u64)> = doc["not_ranked"]
        .as_array()
        .expect("not_ranked")
        .iter()
        .map(|n| {
            assert_eq!(n["why"], "dropped", "{n}");
            (
                n["config"].as_str().expect("config").into(),
                n["at"].as_u64().expect("at"),
            )
        })
        .collect();
    let want: Vec<(String, u64)> = above
        .into_iter()
        .map(|(_, n)| {
            let at = dropped[&model_of(&serde_json::json!(n))] as u64;
            (n, at)
        })
        .collect();
    assert_eq!(listed, want, "{}", doc["not_ranked"]);
}

#[test]
fn sequential_refuses_batch_unknown_names_and_a_single_configuration() {
    let demo = ["calibrate", "--demo", "--bootstrap", "0"];
    let err = |extra: &[&str]| {
        let mut args = demo.to_vec();
        args.extend(extra);
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{err}");
        err
    };
    assert!(err(&["--sequential", "--batch"]).contains("one batch round, which cannot stop"));
    let e = err(&["--sequential", "a,b"]);
    assert!(
        e.contains("'a' is not a configuration of this run") && e.contains("raterlab_no_tie/basic"),
        "{e}"
    );
    assert!(err(&["--sequential", "a"]).contains("expected two different configuration names"));
    let e = err(&[
        "--sequential",
        "--prompt",
        "raterlab_no_tie",
        "--rater",
        "basic",
        "--rater",
        "first",
    ]);
    assert!(e.contains("has 1 judged configuration"), "{e}");
    assert!(err(&["--no-shuffle"]).contains("--sequential"));
}
