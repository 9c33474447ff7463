//! `raterlab cache stats | export | prune` on a store a real run filled (against the mock
//! judge on 127.0.0.1), and the store's errors.

use crate::common::{error_of, json_of, run, stored};
use crate::judge_cli::{completion, user_text};
use crate::mock_http::MockServer;
use std::path::Path;

/// `rate` of the bundled sample with `model` into the store in `cache`.
fn fill(url: &str, model: &str, cache: &Path, out: &Path) {
    let (code, _, err) = run(&[
        "rate",
        "--endpoint",
        url,
        "--model",
        model,
        "--prompt",
        "simple_with_tie",
        "--limit",
        "5",
        "--cache-dir",
        &cache.to_string_lossy(),
        "--out",
        &out.to_string_lossy(),
    ]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn stats_export_and_prune_by_model_with_a_dry_run_first() {
    let server = MockServer::start(|r| completion(&format!("{} <tie>", user_text(r).len())));
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("cache");
    let c = cache.to_string_lossy().into_owned();
    let out = dir.path().join("r.jsonl");
    fill(&server.url, "judge-a", &cache, &out);
    fill(&server.url, "judge-b", &cache, &out);
    let stats = json_of(&["cache", "stats", "--cache-dir", &c]);
    assert_eq!(stats["entries"], 10);
    let models: Vec<(&str, u64)> = stats["models"]
        .as_array()
        .expect("models")
        .iter()
        .map(|m| {
            (
                m["model"].as_str().expect("name"),
                m["entries"].as_u64().expect("n"),
            )
        })
        .collect();
    assert_eq!(models, [("judge-a", 5), ("judge-b", 5)]);
    assert_eq!(
        stats["models"][0]["tokens_in"], 500,
        "5 calls of 100 prompt tokens"
    );
    assert!(stats["bytes"].as_u64().expect("bytes") > 0);
    assert!(stats["newest"].as_str().expect("date").ends_with(" UTC"));
    let (code, text, _) = run(&["cache", "stats", "--cache-dir", &c]);
    assert_eq!(code, 0);
    assert!(
        text.contains("10 completions") && text.contains("judge-b"),
        "{text}"
    );
    // Export one model's answers, as JSONL with their texts.
    let exported = dir.path().join("a.jsonl");
    let (code, text, err) = run(&[
        "cache",
        "export",
        "--cache-dir",
        &c,
        "--model",
        "judge-a",
        "--out",
        &exported.to_string_lossy(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("5 completions of model judge-a written"),
        "{text}"
    );
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&exported)
        .expect("written")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(lines.len(), 5);
    assert!(lines.iter().all(|l| l["model"] == "judge-a"
        && l["text"].as_str().is_some_and(|t| t.ends_with("<tie>"))
        && l["key"].as_str().is_some_and(|k| k.len() == 64)));
    // A dry run counts and deletes nothing; then the model's answers go, the others stay.
    let (code, text, _) = run(&[
        "cache",
        "prune",
        "--cache-dir",
        &c,
        "--model",
        "judge-a",
        "--dry-run",
    ]);
    assert_eq!(code, 0);
    assert!(
        text.contains("would delete 5 completions (of model judge-a); 5 would stay"),
        "{text}"
    );
    assert_eq!(stored(&cache), 10);
    let (code, text, _) = run(&["cache", "prune", "--cache-dir", &c, "--model", "judge-a"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("deleted 5 completions (of model judge-a); 5 stay"),
        "{text}"
    );
    assert_eq!(stored(&cache), 5);
    // By age: nothing here is older than a day.
    let (_, text, _) = run(&["cache", "prune", "--cache-dir", &c, "--older-than", "1d"]);
    assert!(text.contains("deleted 0 completions"), "{text}");
    assert_eq!(stored(&cache), 5);
    // The pruned answers are asked again; the kept ones are not.
    let before = server.count();
    fill(&server.url, "judge-b", &cache, &out);
    fill(&server.url, "judge-a", &cache, &out);
    assert_eq!(server.count(), before + 5);
    let (_, text, _) = run(&["cache", "prune", "--cache-dir", &c, "--all"]);
    assert!(
        text.contains("deleted 10 completions (all); 0 stay"),
        "{text}"
    );
}

#[test]
fn cache_commands_refuse_what_they_cannot_do() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("nowhere").to_string_lossy().into_owned();
    assert!(error_of(&["cache", "stats", "--cache-dir", &missing]).contains("no response cache in"));
    assert!(!dir.path().join("nowhere").exists(), "nothing created");
    let e = error_of(&["cache", "prune", "--cache-dir", &missing]);
    assert!(
        e.contains("--model NAME, --older-than AGE") && e.contains("--all"),
        "{e}"
    );
    let e = error_of(&[
        "cache",
        "prune",
        "--cache-dir",
        &missing,
        "--older-than",
        "ninety",
    ]);
    assert!(e.contains("such as 90d"), "{e}");
    // A file that is not a store: what it is and what to do, for the cache commands and runs.
    let damaged = dir.path().join("damaged");
    std::fs::create_dir_all(&damaged).expect("dir");
    std::fs::write(damaged.join("completions.sqlite"), "not a database").expect("file");
    let d = damaged.to_string_lossy().into_owned();
    let e = error_of(&["cache", "stats", "--cache-dir", &d]);
    assert!(
        e.contains("is not a readable SQLite database") && e.contains("move it aside"),
        "{e}"
    );
    let e = error_of(&[
        "rate",
        "--endpoint",
        "http://127.0.0.1:9/v1",
        "--model",
        "m",
        "--offline",
        "--cache-dir",
        &d,
        "--out",
        &dir.path().join("r.jsonl").to_string_lossy(),
    ]);
    assert!(e.contains("is not a readable SQLite database"), "{e}");
}
