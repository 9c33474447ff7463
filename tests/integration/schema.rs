//! The documents' contract: every `--json` document and run.json names its version
//! (`schema: "raterlab/<name>/<N>"`), and `docs/schema/<name>.json` (JSON Schema, Draft
//! 2020-12) validates what every command writes on every form. The schemas' shared paired-test
//! definition is one text in every file.

use crate::common::{json_of, root, write};
use serde_json::Value;
use std::path::Path;

fn schema(name: &str) -> Value {
    let path = root().join("docs/schema").join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&text).expect("a schema is JSON")
}

/// Validates `doc` against `docs/schema/<name>.json`, and its `schema` field.
pub fn valid(name: &str, version: &str, doc: &Value, what: &str) {
    assert_eq!(doc["schema"], version, "{what}");
    let validator = jsonschema::draft202012::new(&schema(name)).expect("a valid schema");
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .take(5)
        .collect();
    assert!(errors.is_empty(), "{what} against {name}.json: {errors:#?}");
}

fn run_json(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("run.json")).expect("run.json");
    serde_json::from_str(&text).expect("run.json is JSON")
}

#[test]
fn every_document_of_every_command_and_form_meets_its_schema() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = |name: &str| dir.path().join(name).to_str().expect("utf-8").to_string();
    // Pairs: calibrate, report DIR, run.json; a second run raced with --sequential.
    let pairs = path("pairs");
    let doc = json_of(&["calibrate", "--demo", "--bootstrap", "50", "--out", &pairs]);
    valid(
        "calibrate",
        "raterlab/calibrate/2",
        &doc,
        "calibrate --demo",
    );
    // The checks can fail: a paired test missing a key is refused.
    let mut broken = doc.clone();
    if let Some(t) = broken["comparisons"][0]["tests"][0].as_object_mut() {
        t.remove("p_holm");
    }
    let validator = jsonschema::draft202012::new(&schema("calibrate")).expect("schema");
    assert!(!validator.is_valid(&broken), "a paired test without p_holm");
    valid(
        "calibrate",
        "raterlab/calibrate/2",
        &json_of(&["report", &pairs]),
        "report DIR (pairs)",
    );
    valid(
        "run",
        "raterlab/run/4",
        &run_json(Path::new(&pairs)),
        "run.json (pairs)",
    );
    let raced = path("raced");
    let doc = json_of(&[
        "calibrate",
        "--demo",
        "--sequential",
        "--bootstrap",
        "0",
        "--out",
        &raced,
    ]);
    assert!(doc["sequential"].is_object());
    valid(
        "calibrate",
        "raterlab/calibrate/2",
        &doc,
        "calibrate --demo --sequential",
    );

    // RewardBench 2 rows: calibrate, report DIR, run.json.
    let rb2 = path("rb2");
    let doc = json_of(&[
        "calibrate",
        "--data",
        "sample-v2",
        "--judge",
        "sim",
        "--prompt",
        "rb2_ranking",
        "--prompt",
        "rb2_rating",
        "--bootstrap",
        "50",
        "--out",
        &rb2,
    ]);
    assert!(!doc["comparisons"]
        .as_array()
        .expect("comparisons")
        .is_empty());
    let form = "calibrate-rewardbench2";
    valid(
        form,
        "raterlab/calibrate-rewardbench2/2",
        &doc,
        "calibrate sample-v2",
    );
    let again = json_of(&["report", &rb2]);
    valid(
        form,
        "raterlab/calibrate-rewardbench2/2",
        &again,
        "report DIR (rb2)",
    );
    valid(
        "run",
        "raterlab/run/4",
        &run_json(Path::new(&rb2)),
        "run.json (rb2)",
    );

    // analyze: one column, several columns with groups, two files, an estimate.
    let input = root().join("data/example-ratings.csv");
    let input = input.to_str().expect("utf-8");
    let one = json_of(&["analyze", "--input", input, "--group-col", "subset"]);
    valid("analyze", "raterlab/analyze/2", &one, "analyze one column");
    let wide = write(
        dir.path(),
        "wide.csv",
        &(0..60)
            .map(|i| {
                let g = if i % 2 == 0 { 1 } else { -1 };
                let b = if i % 5 == 0 { -g } else { g };
                let c = if i % 3 == 0 { -g } else { g };
                format!("{i},{g},{b},{c},{}\n", if i % 2 == 0 { 0.8 } else { 0.3 })
            })
            .fold("id,gold,a,b,p\n".to_string(), |mut s, l| {
                s.push_str(&l);
                s
            }),
    );
    let wide = wide.to_str().expect("utf-8");
    let several = json_of(&["analyze", "--input", wide, "--rating-col", "a,b"]);
    assert!(several["comparisons"].is_array());
    valid(
        "analyze",
        "raterlab/analyze/2",
        &several,
        "analyze several columns",
    );
    let estimate = json_of(&[
        "analyze",
        "--input",
        wide,
        "--rating-col",
        "a",
        "--estimate",
    ]);
    assert!(estimate["estimate"].is_object());
    valid(
        "analyze",
        "raterlab/analyze/2",
        &estimate,
        "analyze --estimate",
    );
    let gold = write(dir.path(), "gold.csv", "id,label\n1,1\n2,-1\n3,1\n4,-1\n");
    let ratings = write(
        dir.path(),
        "ratings.csv",
        "id,rating\n1,1\n2,-1\n3,-1\n4,-1\n",
    );
    let two = json_of(&[
        "analyze",
        "--gold",
        gold.to_str().expect("utf-8"),
        "--ratings",
        ratings.to_str().expect("utf-8"),
        "--gold-col",
        "label",
        "--rating-col",
        "rating",
    ]);
    valid("analyze", "raterlab/analyze/2", &two, "analyze two files");

    // plan: assumed and measured, on accuracy and on kappa.
    for args in [
        vec!["plan", "--diff", "0.05", "--discordance", "0.3"],
        vec!["plan", "--diff", "0.05", "--from", &pairs],
        vec!["plan", "--metric", "kappa_quadratic", "--diff", "0.1"],
    ] {
        valid("plan", "raterlab/plan/1", &json_of(&args), &args.join(" "));
    }

    // cache stats, of a store a real run against the mock judge filled.
    let server = crate::mock_http::MockServer::start(|r| {
        crate::judge_cli::completion(&format!("{} <tie>", crate::judge_cli::user_text(r).len()))
    });
    let cache = path("cache");
    let rated = path("rated.jsonl");
    crate::common::run(&[
        "rate",
        "--endpoint",
        &server.url,
        "--model",
        "m",
        "--prompt",
        "simple_with_tie",
        "--limit",
        "3",
        "--cache-dir",
        &cache,
        "--out",
        &rated,
    ]);
    let stats = json_of(&["cache", "stats", "--cache-dir", &cache]);
    assert_eq!(stats["entries"], 3);
    valid(
        "cache-stats",
        "raterlab/cache-stats/1",
        &stats,
        "cache stats",
    );
}

/// Every schema that holds a paired test defines it with the same text, so the one shape
/// cannot drift between documents (run.json holds none from version 4).
#[test]
fn the_paired_test_is_defined_once_in_every_schema() {
    let names = ["calibrate", "analyze", "calibrate-rewardbench2"];
    let defs: Vec<Value> = names
        .iter()
        .map(|n| schema(n)["$defs"]["paired_test"].clone())
        .collect();
    assert!(defs[0]["required"].as_array().is_some_and(|r| r.len() == 9));
    for (n, d) in names.iter().zip(&defs) {
        assert_eq!(d, &defs[0], "{n}.json's paired_test");
    }
    // A RewardBench 2 configuration's `pairs` is a scope as a run over pairs has it.
    for def in ["scope", "agreement", "counts"] {
        let pairs = schema("calibrate")["$defs"][def].clone();
        assert!(pairs.is_object(), "calibrate.json's {def}");
        assert_eq!(
            schema("calibrate-rewardbench2")["$defs"][def],
            pairs,
            "calibrate-rewardbench2.json's {def}"
        );
    }
    for entry in std::fs::read_dir(root().join("docs/schema")).expect("docs/schema") {
        let s = schema(
            entry
                .expect("entry")
                .path()
                .file_stem()
                .and_then(|s| s.to_str())
                .expect("a name"),
        );
        assert_eq!(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
        jsonschema::draft202012::new(&s).expect("each schema compiles");
    }
}
