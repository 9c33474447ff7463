//! RM-Bench on its real files (../shared/data/rmbench: chat 129 prompts, safety-refuse 284):
//! a reward model's scores through `--judge scores:FILE` give RM-Bench's own
//! `compute_accuracy` (run from its source by tests/fixtures/generate_rmbench_fixtures.py) to
//! 1e-12, per domain and over four domains; a pairwise judge's matrix equals the one counted
//! here from its ratings; the JSON array files are read as they are published.

use crate::common::{fixture, json_of, ratings_strings, shared_data};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

fn rows(path: &Path) -> Vec<Value> {
    serde_json::from_str::<Value>(&std::fs::read_to_string(path).expect("RM-Bench file"))
        .expect("a JSON array")
        .as_array()
        .expect("an array")
        .clone()
}

fn row_key(row: &Value) -> String {
    let id = match &row["id"] {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    format!("{}-{id}", row["subset"].as_str().expect("subset"))
}

/// A scores file for `rows` from a fixture case's scores (by row key: chosen, rejected).
fn scores_file(rows: &[Value], scores: &Value, path: &Path) {
    let mut out = String::new();
    for row in rows {
        let s = &scores[row_key(row)];
        for (side, k) in [("chosen", 0), ("rejected", 1)] {
            for (text, score) in row[side]
                .as_array()
                .expect("list")
                .iter()
                .zip(s[k].as_array().expect("scores").iter())
            {
                let line =
                    serde_json::json!({"prompt": row["prompt"], "response": text, "score": score});
                out.push_str(&format!("{line}\n"));
            }
        }
    }
    std::fs::write(path, out).expect("scores file");
}

fn close(got: &Value, want: &Value, what: &str) {
    let (g, w) = (
        got.as_f64().expect("a number"),
        want.as_f64().expect("a number"),
    );
    assert!((g - w).abs() < 1e-12, "{what}: {g} vs RM-Bench's {w}");
}

fn calibrate(data: &Path, judge: &str, out: &Path) -> Value {
    json_of(&[
        "calibrate",
        "--data",
        data.to_str().expect("utf-8"),
        "--judge",
        judge,
        "--bootstrap",
        "0",
        "--out",
        out.to_str().expect("utf-8"),
    ])
}

#[test]
fn a_reward_models_scores_give_rm_benchs_compute_accuracy_on_the_real_files() {
    let Some(shared) = shared_data() else { return };
    let fixture: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("rmbench.json")).expect("fixture"))
            .expect("JSON");
    let dir = tempfile::tempdir().expect("tempdir");
    let chat_path = shared.join("rmbench/chat.json");
    let safety_path = shared.join("rmbench/safety-refuse.json");
    let (chat, safety) = (rows(&chat_path), rows(&safety_path));
    // The four-domain file: chat prompts relabelled by position, as the fixture did.
    let relabel: Vec<(String, String)> = fixture["relabel"]
        .as_array()
        .expect("relabel")
        .iter()
        .map(|x| {
            (
                x[0].as_str().expect("subset").into(),
                x[1].as_str().expect("domain").into(),
            )
        })
        .collect();
    let mut total: Vec<Value> = chat
        .iter()
        .enumerate()
        .map(|(n, row)| {
            let mut r = row.clone();
            r["subset"] = Value::String(relabel[n % 3].0.clone());
            r
        })
        .collect();
    total.extend(safety.iter().cloned());
    let total_path = dir.path().join("total.json");
    std::fs::write(&total_path, serde_json::to_string(&total).expect("JSON")).expect("file");
    for (k, case) in fixture["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .enumerate()
    {
        let rule = case["rule"].as_str().expect("rule");
        let scores = dir.path().join(format!("scores-{k}.jsonl"));
        scores_file(
            &chat.iter().chain(&safety).cloned().collect::<Vec<_>>(),
            &case["scores"],
            &scores,
        );
        let judge = format!("scores:{}", scores.display());
        // Each domain alone, as run_rm.py scores one file.
        for (domain, path) in [("chat", &chat_path), ("safety", &safety_path)] {
            let doc = calibrate(path, &judge, &dir.path().join(format!("run-{k}-{domain}")));
            let r = &doc["configs"][0]["rmbench"]["domains"][domain];
            for (ours, theirs) in [
                ("hard", "hard_acc"),
                ("normal", "normal_acc"),
                ("easy", "easy_acc"),
            ] {
                close(
                    &r[ours],
                    &case["domains"][domain][theirs],
                    &format!("{rule} {domain} {ours}"),
                );
            }
        }
        // The four domains: RM-Bench's total (the mean over domains).
        let doc = calibrate(
            &total_path,
            &judge,
            &dir.path().join(format!("run-{k}-total")),
        );
        let r = &doc["configs"][0]["rmbench"];
        assert_eq!(r["complete"], true);
        if k == 0 {
            every_item_has_its_texts_in_the_page(&dir.path().join(format!("run-{k}-total")));
        }
        let want = &case["four_domains"];
        for (ours, theirs) in [
            ("hard", "hard_acc"),
            ("normal", "normal_acc"),
            ("easy", "easy_acc"),
            ("average", "total_avg_acc"),
        ] {
            close(&r[ours], &want[theirs], &format!("{rule} total {ours}"));
        }
        for domain in ["chat", "math", "code", "safety"] {
            close(
                &r["domains"][domain]["average"],
                &want[domain],
                &format!("{rule} {domain} average"),
            );
        }
    }
}

/// report.html's item browser shows each item's prompt and responses as items.jsonl has them
/// (3,717 pairs: the page once read items.jsonl while another thread was still writing it,
/// and 979 items had no texts).
fn every_item_has_its_texts_in_the_page(run: &Path) {
    let page = std::fs::read_to_string(run.join("report.html")).expect("report.html");
    let data = crate::report_html::page_data(&page);
    let lines = std::fs::read_to_string(run.join("items.jsonl")).expect("items.jsonl");
    let texts: std::collections::HashMap<String, Value> = lines
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("a JSON line");
            (v["id"].as_str().expect("id").to_string(), v)
        })
        .collect();
    let items = data["items"].as_array().expect("items");
    assert_eq!(items.len(), 3717);
    assert_eq!(texts.len(), items.len());
    for item in items {
        let line = &texts[item["id"].as_str().expect("id")];
        for (page_key, line_key) in [
            ("prompt", "prompt"),
            ("r1", "response1"),
            ("r2", "response2"),
        ] {
            assert_eq!(item[page_key], line[line_key], "{} {page_key}", item["id"]);
        }
        assert!(
            !item["prompt"].as_str().unwrap_or("").is_empty(),
            "{}",
            item["id"]
        );
    }
}

/// A pairwise judge on RM-Bench: nine pairs per prompt in a seeded order; its matrix is the
/// share of prompts whose chosen response won each cell, counted here from ratings.parquet
/// (a tie or no verdict is not a win), with `--limit` counting prompts.
#[test]
fn a_pairwise_judges_matrix_is_counted_from_its_ratings() {
    let Some(shared) = shared_data() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run");
    let doc = json_of(&[
        "calibrate",
        "--data",
        shared.join("rmbench/chat.json").to_str().expect("utf-8"),
        "--judge",
        "sim",
        "--prompt",
        "simple_with_tie",
        "--limit",
        "40",
        "--bootstrap",
        "200",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    let pair = ratings_strings(&out, "pair_id");
    let gold = ratings_strings(&out, "gold");
    let rating = ratings_strings(&out, "rating");
    assert_eq!(
        pair.len(),
        40 * 9,
        "--limit counts prompts: nine pairs each"
    );
    let mut cells: HashMap<(String, usize), (f64, f64)> = HashMap::new();
    let mut prompts = std::collections::BTreeSet::new();
    for ((p, g), r) in pair.iter().zip(&gold).zip(&rating) {
        let p = p.as_deref().expect("pair id");
        let (prompt, tail) = p.rsplit_once(':').expect("a cell");
        let (i, j) = (
            usize::from(tail.as_bytes()[1] - b'0'),
            usize::from(tail.as_bytes()[3] - b'0'),
        );
        prompts.insert(prompt.to_string());
        let win = r.is_some() && r == g;
        let e = cells.entry((prompt.to_string(), i * 3 + j)).or_default();
        e.0 += f64::from(u8::from(win));
        e.1 += 1.0;
    }
    let n = prompts.len() as f64;
    let matrix: Vec<f64> = (0..9)
        .map(|c| {
            prompts
                .iter()
                .map(|p| {
                    let (w, k) = cells[&(p.clone(), c)];
                    w / k
                })
                .sum::<f64>()
                / n
        })
        .collect();
    let r = &doc["configs"][0]["rmbench"];
    for c in 0..9 {
        close(
            &r["matrix"][c / 3][c % 3],
            &Value::from(matrix[c]),
            &format!("cell {c}"),
        );
    }
    let hard = (matrix[1] + matrix[2] + matrix[5]) / 3.0;
    close(&r["hard"], &Value::from(hard), "hard");
    let (lo, hi) = (
        r["hard_ci"][0].as_f64().expect("ci"),
        r["hard_ci"][1].as_f64().expect("ci"),
    );
    assert!(lo <= hard && hard <= hi && lo < hi, "{lo} {hard} {hi}");
    // The page has a heat map per configuration and the run directory its SVG.
    let page = std::fs::read_to_string(out.join("report.html")).expect("page");
    assert!(
        page.contains("RM-Bench&#x27;s style matrix") || page.contains("RM-Bench's style matrix")
    );
    assert!(std::fs::read_dir(&out)
        .expect("run dir")
        .flatten()
        .any(|e| e.file_name().to_string_lossy().starts_with("rmbench-01-")));
}

/// A row whose lists are not three and three, or a subset outside RM-Bench's, is refused
/// with the file, row and fix.
#[test]
fn a_broken_rm_bench_row_is_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("bad.json");
    let row = |subset: &str, chosen: usize| {
        serde_json::json!({"id": 1, "subset": subset, "prompt": "p",
            "chosen": vec!["a"; chosen], "rejected": ["x", "y", "z"]})
    };
    // The error of calibrate on these two rows.
    let error = |rows: Value| {
        std::fs::write(&path, rows.to_string()).expect("file");
        crate::common::error_of(&[
            "calibrate",
            "--data",
            path.to_str().expect("utf-8"),
            "--judge",
            "sim",
        ])
    };
    let err = error(serde_json::json!([
        row("alpacaeval", 3),
        row("llmbar-natural", 3)
    ]));
    assert!(
        err.contains("row 2") && err.contains("'llmbar-natural' is none of RM-Bench's subsets"),
        "{err}"
    );
    // A row's `domain` field names it as RM-Bench's own split does (by its prefix), and one
    // that starts with no domain is an error too.
    let mut domained = row("llmbar-natural", 3);
    domained["domain"] = "safety-refuse".into();
    let mut unknown = row("alpacaeval", 3);
    unknown["domain"] = "poetry".into();
    let err = error(serde_json::json!([domained, unknown]));
    assert!(
        err.contains("column 'domain', row 2")
            && err.contains("'poetry' starts with none of RM-Bench's domains"),
        "{err}"
    );
    let err = error(serde_json::json!([
        row("alpacaeval", 3),
        row("alpacaeval", 2)
    ]));
    assert!(
        err.contains("column 'chosen', row 2")
            && err.contains("2 responses; RM-Bench rows hold three"),
        "{err}"
    );
}

/// RM-Bench's real code file names its subset `bigcode/humanevalpack`, and its files carry a
/// `domain` field its own `split_dataset_by_domain` reads (by prefix): both are accepted, and
/// each prompt lands in its domain.
#[test]
fn rm_bench_subsets_with_an_organisation_or_a_domain_field() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("code.json");
    let rows: Vec<Value> = [
        ("bigcode/humanevalpack", None),
        ("bigcode/humanevalpack", Some("code")),
        ("llmbar-natural", Some("safety-response")),
        ("alpacaeval", Some("chat")),
    ]
    .iter()
    .enumerate()
    .map(|(i, (subset, domain))| {
        let mut r = serde_json::json!({"id": i, "subset": subset, "prompt": format!("p{i}"),
            "chosen": ["a", "bb", "**ccc**"], "rejected": ["x", "yy", "**zzz**"]});
        if let Some(d) = domain {
            r["domain"] = (*d).into();
        }
        r
    })
    .collect();
    std::fs::write(&path, Value::from(rows).to_string()).expect("file");
    let doc = crate::common::json_of(&[
        "calibrate",
        "--data",
        path.to_str().expect("utf-8"),
        "--judge",
        "sim",
        "--bootstrap",
        "0",
        "--json",
        "--no-cache",
        "--out",
        dir.path().join("run").to_str().expect("utf-8"),
    ]);
    assert_eq!(doc["data"]["items"], 36, "four prompts, nine pairs each");
    let rm = &doc["configs"][0]["rmbench"];
    let prompts = |domain: &str| rm["domains"][domain]["prompts"].as_u64();
    assert_eq!(
        (prompts("code"), prompts("safety"), prompts("chat")),
        (Some(2), Some(1), Some(1)),
        "{rm}"
    );
}

/// A `.json` file holding a list of objects reads like JSONL, and an empty string is a
/// response (AlpacaEval has empty outputs), not a missing value: in reward-bench's columns
/// and in RM-Bench's lists.
#[test]
fn json_arrays_are_data_and_empty_strings_are_responses() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pairs: Vec<Value> = (0..4)
        .map(|i| serde_json::json!({"prompt": format!("p{i}"), "chosen": format!("good {i}"), "chosen_model": "a",
            "rejected": if i % 2 == 1 { "" } else { "bad" }, "rejected_model": "b", "subset": "s", "id": i}))
        .collect();
    // calibrate --json on these rows, written as a JSON array.
    let run = |name: &str, rows: Vec<Value>| {
        let path = dir.path().join(format!("{name}.json"));
        std::fs::write(&path, Value::from(rows).to_string()).expect("file");
        let out = dir.path().join(name);
        json_of(&[
            "calibrate",
            "--data",
            path.to_str().expect("utf-8"),
            "--judge",
            "sim",
            "--bootstrap",
            "0",
            "--out",
            out.to_str().expect("utf-8"),
        ])
    };
    let doc = run("pairs", pairs);
    assert_eq!(doc["configs"][0]["counts"]["examples"], 4);
    let rm: Vec<Value> = (0..3)
        .map(|i| {
            serde_json::json!({"id": i, "subset": "alpacaeval", "prompt": format!("p{i}"),
            "chosen": ["a", "bb", ""], "rejected": ["", "x", "yy"]})
        })
        .collect();
    let doc = run("rm", rm);
    assert_eq!(
        doc["configs"][0]["counts"]["examples"], 27,
        "three prompts, nine pairs each"
    );
    assert!(doc["configs"][0]["rmbench"]["hard"].is_number());
}

/// The answer's RM-Bench line names the best by the one rule of "the best": a judge, never a
/// baseline whose average is higher (here the longer response, against a judge right 30% of
/// the time), and the table still lists every configuration by average.
#[test]
fn the_rm_bench_line_names_the_best_judge_not_a_higher_baseline() {
    let Some(shared) = shared_data() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run");
    let doc = json_of(&[
        "calibrate",
        "--data",
        shared.join("rmbench/chat.json").to_str().expect("utf-8"),
        "--judge",
        "sim:accuracy=0.3",
        "--prompt",
        "simple_with_tie",
        "--rater",
        "basic",
        "--rater",
        "longer",
        "--limit",
        "40",
        "--bootstrap",
        "100",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    let average = |name: &str| {
        doc["configs"]
            .as_array()
            .expect("configs")
            .iter()
            .find(|c| c["name"] == name)
            .and_then(|c| c["rmbench"]["average"].as_f64())
            .expect("an average")
    };
    let (judge, baseline) = ("simple_with_tie/basic", "baseline/longer");
    assert!(
        average(baseline) > average(judge),
        "the baseline averages higher"
    );
    let (code, text, err) = crate::common::run(&["report", out.to_str().expect("utf-8")]);
    assert_eq!(code, 0, "{err}");
    let line = text
        .lines()
        .find(|l| l.starts_with("RM-Bench: ") && l.contains(" averages "))
        .unwrap_or_else(|| panic!("no RM-Bench line:\n{text}"));
    assert!(
        line.starts_with(&format!("RM-Bench: {judge} (sim) averages")),
        "{line}"
    );
    // The table: both, best average first.
    let table = text
        .split("RM-Bench: chosen vs rejected")
        .nth(1)
        .expect("the RM-Bench table");
    let at = |name: &str| table.find(name).expect("listed");
    assert!(at(baseline) < at(judge), "{table}");
}
