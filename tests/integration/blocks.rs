//! The rating loop asks every configuration from the first block of items on, over a real
//! OpenAI-compatible mock, while the run directory keeps its files in configuration order.

use crate::common::run;
use crate::judge_cli::completion;
use crate::mock_http::MockServer;
use serde_json::Value;

/// Two models over 2,000 items: the first 1,000 requests hold at least 100 of each (not
/// 2,000 of one, then 2,000 of the other), and completions.jsonl and ratings.csv still list
/// the first model's 2,000 items, then the second's.
#[test]
fn every_configuration_is_asked_from_the_first_block_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut csv = String::from("id,subset,prompt,chosen,chosen_model,rejected,rejected_model\n");
    for i in 0..2000 {
        csv.push_str(&format!("p{i},s,question {i},answer {i},m1,other {i},m2\n"));
    }
    let data = crate::common::write(dir.path(), "pairs.csv", &csv);
    let server = MockServer::start(|_| completion("[[A]]"));
    let out = dir.path().join("run");
    let cache = dir.path().join("cache");
    let (code, _, err) = run(&[
        "calibrate",
        "--data",
        data.to_str().expect("utf-8"),
        "--endpoint",
        &server.url,
        "--model",
        "judge-a",
        "--model",
        "judge-b",
        "--prompt",
        "simple_with_tie",
        "--rater",
        "basic",
        "--cache-dir",
        cache.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{err}");
    let models: Vec<String> = server
        .requests
        .lock()
        .expect("log")
        .iter()
        .map(|r| {
            let body: Value = serde_json::from_slice(&r.body).expect("JSON body");
            body["model"].as_str().expect("model").to_string()
        })
        .collect();
    assert_eq!(models.len(), 4000);
    for model in ["judge-a", "judge-b"] {
        let early = models[..1000].iter().filter(|m| *m == model).count();
        assert!(early >= 100, "{model}: {early} of the first 1000 requests");
    }
    let lines = std::fs::read_to_string(out.join("completions.jsonl")).expect("completions");
    let configs: Vec<String> = lines
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("a JSON line");
            v["config"].as_str().expect("config").to_string()
        })
        .collect();
    assert_eq!(configs.len(), 4000);
    let first = &configs[0];
    assert!(configs[..2000].iter().all(|c| c == first), "{first}");
    assert!(configs[2000..].iter().all(|c| c != first));
    let ids: Vec<String> = lines
        .lines()
        .take(2000)
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON")["id"].to_string())
        .collect();
    assert_eq!(ids[0], "\"s-p0\"");
    assert_eq!(ids[1999], "\"s-p1999\"");
    // The parts' own files were joined and removed.
    let left: Vec<String> = std::fs::read_dir(&out)
        .expect("run dir")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with(".completions"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
