//! `analyze` and `calibrate` are one pipeline (#54): `analyze` on a run's ratings (one
//! configuration, with the responses' texts, the generators and a probability column) gives
//! the same figures as `calibrate` gave that configuration, for every analytic both show.

use crate::common::{json_of, ratings_floats, ratings_strings, shared_data, without};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::Path;

/// Configuration `name`'s rows of a run directory as a JSONL file `analyze` reads: the
/// ratings.parquet columns, and each item's prompt and responses from items.jsonl.
/// Returns the rows written and whether any has a probability.
fn one_configuration(run_dir: &Path, name: &str, out: &Path) -> (usize, bool) {
    let texts: HashMap<String, Value> = std::fs::read_to_string(run_dir.join("items.jsonl"))
        .expect("items.jsonl")
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("JSON");
            (v["id"].as_str().expect("id").to_string(), v)
        })
        .collect();
    let column = |c: &str| ratings_strings(run_dir, c);
    let (config, id, subset, status) = (
        column("config"),
        column("id"),
        column("subset"),
        column("status"),
    );
    let (gold, rating, g1, g2) = (
        column("gold"),
        column("rating"),
        column("generator1"),
        column("generator2"),
    );
    let p = ratings_floats(run_dir, "p_response2");
    let number = |v: &Option<String>| v.as_ref().map(|s| s.parse::<i64>().expect("a label"));
    let (mut lines, mut with_p) = (Vec::new(), false);
    for k in (0..config.len()).filter(|&k| config[k].as_deref() == Some(name)) {
        // Every answer read: analyze has no item without a verdict.
        assert_eq!(status[k].as_deref(), Some("rated"), "{name} row {k}");
        let item = &texts[id[k].as_deref().expect("id")];
        with_p |= p[k].is_some();
        lines.push(
            json!({
                "id": id[k], "subset": subset[k], "gold": number(&gold[k]),
                "rating": number(&rating[k]), "p_response2": p[k],
                "generator1": g1[k], "generator2": g2[k], "prompt": item["prompt"],
                "response1": item["response1"], "response2": item["response2"],
            })
            .to_string(),
        );
    }
    std::fs::write(out, lines.join("\n") + "\n").expect("write");
    (lines.len(), with_p)
}

/// `analyze` on configuration `i` of a calibrate run equals it on every key both documents
/// have, the configuration's identity aside; `expected` are keys that must be among them.
fn analyze_equals_calibrate(run_dir: &Path, doc: &Value, i: usize, expected: &[&str]) {
    let calibrated = &doc["configs"][i];
    let name = calibrated["name"].as_str().expect("name");
    let file = run_dir.with_extension("one.jsonl");
    let (n, with_p) = one_configuration(run_dir, name, &file);
    assert!(n > 0, "{name}: no rows");
    // A configuration without probabilities has an empty column: not named.
    let probability: &[&str] = if with_p {
        &["--probability", "p_response2"]
    } else {
        &[]
    };
    let bootstrap = doc["bootstrap"].as_u64().unwrap_or(0).to_string();
    let seed = doc["data"]["seed"].as_u64().expect("seed").to_string();
    let input = file.to_str().expect("utf-8");
    let mut args = vec!["analyze", "--input", input, "--group-col", "subset"];
    args.extend(probability);
    args.extend([
        "--texts",
        "response1,response2",
        "--generators",
        "generator1,generator2",
        "--prompt-col",
        "prompt",
        "--bootstrap",
        &bootstrap,
        "--seed",
        &seed,
        "--json",
        "--csv",
    ]);
    let csv = run_dir.with_extension("metrics.csv");
    args.push(csv.to_str().expect("utf-8"));
    let analyzed = json_of(&args);
    let ours = analyzed["configs"][0].as_object().expect("configs[0]");
    // Who the configuration is, and what only a judge's calls have.
    let identity = [
        "name",
        "prompt",
        "rater",
        "judge",
        "model",
        "simulated",
        "reasons",
    ];
    let mut compared = Vec::new();
    for (key, value) in ours {
        if identity.contains(&key.as_str()) {
            continue;
        }
        let theirs = calibrated
            .get(key)
            .unwrap_or_else(|| panic!("{name}: analyze shows '{key}', which calibrate does not"));
        // The probability's source names the column in analyze, the rater in calibrate.
        let (a, b) = (without(value, "source"), without(theirs, "source"));
        assert_eq!(
            a, b,
            "{name}: '{key}' differs between analyze and calibrate"
        );
        compared.push(key.as_str());
    }
    for key in expected {
        assert!(
            compared.contains(key),
            "{name}: '{key}' not compared ({compared:?})"
        );
    }
    // The agreement figures at the top are the configuration's overall ones.
    assert_eq!(analyzed["accuracy"], calibrated["overall"]["accuracy"]);
    // metrics.csv is calibrate's: every row analyze writes for its column is calibrate's row
    // for the configuration, value for value.
    let rows = |path: &Path, config: &str| -> std::collections::HashSet<String> {
        let text = std::fs::read_to_string(path).expect("metrics.csv");
        assert!(text.starts_with("config,scope,n,metric,value,ci_lo,ci_hi\n"));
        let prefix = format!("{config},");
        let rows = text.lines().filter_map(|l| l.strip_prefix(&prefix));
        rows.map(String::from).collect()
    };
    let ours = rows(&csv, "rating");
    let theirs = rows(&run_dir.join("metrics.csv"), name);
    assert!(ours.len() >= 100, "{name}: {} rows", ours.len());
    let mut missing: Vec<&String> = ours.difference(&theirs).collect();
    missing.sort();
    assert!(
        missing.is_empty(),
        "{name}: not calibrate's rows: {missing:?}"
    );
}

/// The demo's run in `dir`: its directory and `--json` document.
fn demo(dir: &Path) -> (std::path::PathBuf, Value) {
    let run_dir = dir.join("demo");
    let doc = json_of(&[
        "calibrate",
        "--demo",
        "--out",
        run_dir.to_str().expect("utf-8"),
        "--json",
    ]);
    (run_dir, doc)
}

/// A `--json` document's configurations' names, in its order.
fn config_names(doc: &Value) -> Vec<&str> {
    doc["configs"]
        .as_array()
        .expect("configs")
        .iter()
        .map(|c| c["name"].as_str().expect("name"))
        .collect()
}

#[test]
fn analyze_on_the_demos_ratings_equals_calibrate() {
    let out = tempfile::tempdir().expect("temp dir");
    let (run_dir, doc) = demo(out.path());
    // raterlab_no_tie/sc:5: votes give it probabilities; basic: none.
    let names = config_names(&doc);
    let sc = names
        .iter()
        .position(|n| *n == "raterlab_no_tie/sc:5")
        .expect("the demo's sc:5");
    analyze_equals_calibrate(
        &run_dir,
        &doc,
        sc,
        &[
            "overall",
            "by_subset",
            "counts",
            "systems",
            "length_model",
            "sections",
        ],
    );
    let basic = names
        .iter()
        .position(|n| *n == "raterlab_no_tie/basic")
        .expect("the demo's basic");
    analyze_equals_calibrate(
        &run_dir,
        &doc,
        basic,
        &["overall", "systems", "length_model"],
    );
    // The scope-level analytics are inside `overall`: the probabilities and the biases.
    assert!(doc["configs"][sc]["overall"]["probability"].is_object());
    assert!(doc["configs"][sc]["overall"]["bias"].is_object());
}

#[test]
fn analyze_on_alpacaevals_replayed_models_equals_calibrate() {
    let Some(shared) = shared_data() else { return };
    // alpaca-7b: every answer is read (gpt-3.5-turbo-1106's run has rows without a verdict,
    // which analyze reads only by leaving them out).
    {
        let file = shared.join("alpacaeval/alpaca-7b.json");
        let out = tempfile::tempdir().expect("temp dir");
        let run_dir = out.path().join("run");
        let doc = json_of(&[
            "calibrate",
            "--data",
            file.to_str().expect("utf-8"),
            "--judge",
            &format!("replay:{}", file.display()),
            "--prompt",
            "alpaca_eval_weighted",
            "--bootstrap",
            "200",
            "--out",
            run_dir.to_str().expect("utf-8"),
            "--json",
        ]);
        analyze_equals_calibrate(
            &run_dir,
            &doc,
            0,
            &[
                "overall",
                "by_subset",
                "systems",
                "length_model",
                "probability",
            ],
        );
    }
}

#[test]
fn the_pairwise_analytics_refuse_another_scale_and_the_agreement_stays() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = crate::common::write(
        dir.path(),
        "likert.csv",
        "gold,rating,a,b\n1,2,x,yy\n3,3,xx,y\n5,4,x,y\n4,4,xy,y\n",
    );
    let input = file.to_str().expect("utf-8");
    for flag in [["--texts", "a,b"], ["--generators", "a,b"]] {
        let (code, _, err) = crate::common::run(&["analyze", "--input", input, flag[0], flag[1]]);
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains("likert.csv") && err.contains(flag[0]) && err.contains("--rating-map"),
            "{err}"
        );
    }
    // Without them, the scale's agreement is the evaluation's, on the file's labels.
    let doc = json_of(&["analyze", "--input", input, "--bootstrap", "0", "--json"]);
    assert_eq!(doc["labels"], json!([1, 2, 3, 4, 5]));
    assert_eq!(doc["n"], 4);
    assert_eq!(doc["accuracy"], 0.5);
    assert_eq!(doc["configs"][0]["overall"]["accuracy"], 0.5);
    assert_eq!(
        doc["configs"][0]["overall"]["confusion"]["labels"],
        json!([1, 2, 3, 4, 5])
    );
}

/// Every configuration of a run as one rating column each, in the run's order.
fn wide(run_dir: &Path, names: &[&str], out: &Path) {
    let column = |c: &str| ratings_strings(run_dir, c);
    let (config, id, subset, gold, rating) = (
        column("config"),
        column("id"),
        column("subset"),
        column("gold"),
        column("rating"),
    );
    let number = |v: &Option<String>| v.as_ref().map(|s| s.parse::<i64>().expect("a label"));
    let mut rows: Vec<serde_json::Map<String, Value>> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    for k in 0..config.len() {
        let key = id[k].clone().expect("id");
        let row = *at.entry(key.clone()).or_insert_with(|| {
            let mut m = serde_json::Map::new();
            m.insert("id".into(), json!(key));
            m.insert("subset".into(), json!(subset[k]));
            m.insert("gold".into(), json!(number(&gold[k])));
            rows.push(m);
            rows.len() - 1
        });
        let name = config[k].clone().expect("config");
        rows[row].insert(name, json!(number(&rating[k])));
    }
    assert!(rows
        .iter()
        .all(|r| names.iter().all(|n| r.contains_key(*n))));
    let lines: Vec<String> = rows
        .iter()
        .map(|r| Value::Object(r.clone()).to_string())
        .collect();
    std::fs::write(out, lines.join("\n") + "\n").expect("write");
}

#[test]
fn analyze_on_every_rating_column_compares_them_as_calibrate_does() {
    let out = tempfile::tempdir().expect("temp dir");
    let (run_dir, doc) = demo(out.path());
    // The judged configurations (a baseline is a rater kind, which a column has not).
    let mut names = config_names(&doc);
    names.retain(|n| !n.starts_with("baseline/"));
    assert_eq!(names.len(), 6);
    let file = out.path().join("wide.jsonl");
    wide(&run_dir, &names, &file);
    let columns = names.join(",");
    let analyzed = json_of(&[
        "analyze",
        "--input",
        file.to_str().expect("utf-8"),
        "--rating-col",
        &columns,
        "--group-col",
        "subset",
        "--unreadable",
        "drop",
        "--seed",
        "42",
        "--json",
        "--csv",
        out.path().join("metrics.csv").to_str().expect("utf-8"),
        "--html",
        out.path().join("analysis.html").to_str().expect("utf-8"),
    ]);
    // The page answers as calibrate's does: the best and the paired comparisons.
    let page = std::fs::read_to_string(out.path().join("analysis.html")).expect("page");
    assert!(
        page.contains("Paired comparisons") && page.contains("Best: "),
        "{page}"
    );
    // metrics.csv names each column's rows.
    let csv = std::fs::read_to_string(out.path().join("metrics.csv")).expect("metrics.csv");
    assert!(csv.starts_with("config,scope,n,metric"), "{csv}");
    for name in &names {
        let prefix = format!("{name},overall,");
        let accuracy = |l: &&str| l.starts_with(&prefix) && l.contains(",accuracy,");
        assert_eq!(csv.lines().filter(accuracy).count(), 1, "{name}\n{csv}");
    }
    let configs = analyzed["configs"].as_array().expect("configs");
    assert_eq!(configs.len(), 6);
    for c in configs {
        let name = c["name"].as_str().expect("name");
        let theirs = doc["configs"]
            .as_array()
            .expect("configs")
            .iter()
            .find(|t| t["name"] == name)
            .expect("the same configuration");
        for key in ["accuracy", "kappa_quadratic", "ci", "confusion", "n"] {
            assert_eq!(c["overall"][key], theirs["overall"][key], "{name} {key}");
        }
    }
    // The pairs among the six, with their tests: calibrate's family holds the baselines too,
    // so the unadjusted figures are compared, and the best is the same configuration.
    let pairs = |d: &Value| -> Vec<Value> {
        d["comparisons"]
            .as_array()
            .expect("comparisons")
            .iter()
            .filter(|c| names.contains(&c["a"].as_str().unwrap_or("")))
            .filter(|c| names.contains(&c["b"].as_str().unwrap_or("")))
            .map(|c| {
                let (accuracy, kappa) = (
                    crate::common::paired(c, "accuracy"),
                    crate::common::paired(c, "kappa_quadratic"),
                );
                json!([
                    c["a"],
                    c["b"],
                    c["n"],
                    accuracy["diff"],
                    c["only_a_right"],
                    c["only_b_right"],
                    accuracy["p"],
                    kappa["diff"],
                    kappa["p"]
                ])
            })
            .collect()
    };
    let ours = pairs(&analyzed);
    assert_eq!(ours.len(), 15);
    assert_eq!(ours, pairs(&doc));
    assert_eq!(
        analyzed["comparison_family"]["best"],
        doc["comparison_family"]["best"]
    );
}

#[test]
fn several_rating_columns_say_what_they_cannot_do() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = crate::common::write(
        dir.path(),
        "two.csv",
        "gold,a,b,p\n1,1,-1,0.9\n-1,-1,-1,0.2\n",
    );
    let input = file.to_str().expect("utf-8");
    let cases: [(&[&str], &str); 3] = [
        (
            &["--input", input, "--rating-col", "a,nope"],
            "no column 'nope'",
        ),
        (
            &[
                "--input",
                input,
                "--rating-col",
                "a,b",
                "--probability",
                "p",
            ],
            "--probability reads one rating column",
        ),
        (
            &["--gold", input, "--ratings", input, "--rating-col", "a,b"],
            "give it with --input",
        ),
    ];
    // The header counts the items, not one column's rated pairs.
    let (code, text, err) =
        crate::common::run(&["analyze", "--input", input, "--rating-col", "a,b"]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("2 items, 2 rating columns"), "{text}");
    for (args, says) in cases {
        let mut all = vec!["analyze"];
        all.extend(args);
        let (code, _, err) = crate::common::run(&all);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
