//! `analyze --estimate` end to end on the Arena battles with GPT-3.5-turbo as the judge (every
//! 25th battle labelled with the human winner): its JSON equals the authors' code
//! (tests/fixtures/ppi.json) in the one-file and the two-file forms, the models' rank-sets
//! equal prediction-powered ranking's, and bad input is refused with exit code 2.

use crate::common::{error_of, fixture, json_of, run, shared_data, write};
use serde_json::Value;
use std::path::{Path, PathBuf};

const MAP: &str = "model_a=-1,model_b=1,tie=0,tie (bothbad)=0";
const TWELVE: [&str; 12] = [
    "vicuna-13b",
    "koala-13b",
    "gpt-3.5-turbo",
    "gpt-4",
    "oasst-pythia-12b",
    "alpaca-13b",
    "claude-v1",
    "RWKV-4-Raven-14B",
    "chatglm-6b",
    "fastchat-t5-3b",
    "palm-2",
    "claude-instant-v1",
];

fn close(got: &Value, want: &Value, what: &str) {
    let (g, w) = (
        got.as_f64().unwrap_or(f64::NAN),
        want.as_f64().unwrap_or(f64::NAN),
    );
    assert!((g - w).abs() < 1e-9, "{what}: {g} vs {w}");
}

/// The battles as CSV rows (num, model_a, model_b, human winner or empty, judge winner), every
/// 25th labelled; with `only`, the battles among those models alone.
fn arena_csv(shared: &Path, dir: &Path, only: Option<&[&str]>) -> (PathBuf, PathBuf, PathBuf) {
    let read = |name: &str| -> Vec<Value> {
        std::fs::read_to_string(shared.join("arena-ppr").join(name))
            .expect("battles")
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON"))
            .collect()
    };
    let (human, judge) = (read("human.json"), read("gpt-3.5-turbo.json"));
    let (mut one, mut gold, mut ratings) = (
        String::from("num,model_a,model_b,human,judge\n"),
        String::from("num,human\n"),
        String::from("num,judge\n"),
    );
    let quote = |v: &Value| format!("\"{}\"", v.as_str().expect("text"));
    for (i, (h, j)) in human.iter().zip(&judge).enumerate() {
        let inside = |m: &Value| {
            only.is_none_or(|o| {
                o.contains(&m["model_a"].as_str().unwrap_or(""))
                    && o.contains(&m["model_b"].as_str().unwrap_or(""))
            })
        };
        if !inside(h) {
            continue;
        }
        let labelled = i % 25 == 0;
        let winner = if labelled {
            quote(&h["winner"])
        } else {
            String::new()
        };
        one.push_str(&format!(
            "{},{},{},{winner},{}\n",
            h["num"],
            quote(&h["model_a"]),
            quote(&h["model_b"]),
            quote(&j["winner"])
        ));
        if labelled {
            gold.push_str(&format!("{},{winner}\n", h["num"]));
        }
        ratings.push_str(&format!("{},{}\n", h["num"], quote(&j["winner"])));
    }
    (
        write(dir, "arena.csv", &one),
        write(dir, "gold.csv", &gold),
        write(dir, "ratings.csv", &ratings),
    )
}

/// `analyze`'s flags for the Arena file's columns and labels, with `--estimate`.
const ARENA: [&str; 13] = [
    "--id-col",
    "num",
    "--gold-col",
    "human",
    "--rating-col",
    "judge",
    "--gold-map",
    MAP,
    "--rating-map",
    MAP,
    "--bootstrap",
    "0",
    "--estimate",
];

fn analyze(input: &[&str], extra: &[&str]) -> Value {
    let mut args = vec!["analyze"];
    args.extend(input);
    args.extend(ARENA);
    args.push("--json");
    args.extend(extra);
    json_of(&args)
}

fn fixture_doc() -> Value {
    serde_json::from_str(&std::fs::read_to_string(fixture("ppi.json")).expect("ppi.json"))
        .expect("JSON")
}

#[test]
fn arena_estimates_equal_ppi_py_and_lee_et_al_in_both_forms() {
    let Some(shared) = shared_data() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let (one, gold, ratings) = arena_csv(&shared, dir.path(), None);
    let want = &fixture_doc()["arena"];
    for m in want["means"].as_array().expect("means") {
        let alpha = m["alpha"].to_string();
        let input_one = ["--input", one.to_str().expect("utf-8")];
        let input_two = [
            "--gold",
            gold.to_str().expect("utf-8"),
            "--ratings",
            ratings.to_str().expect("utf-8"),
        ];
        // A negative label parses as the flag's value; a --gold-map value names the same one.
        for (input, label) in [(&input_one[..], "-1"), (&input_two[..], "model_a")] {
            let doc = analyze(input, &["--estimate-label", label, "--alpha", &alpha]);
            let e = &doc["estimate"];
            assert_eq!(
                (e["n_labelled"].as_u64(), e["n_unlabelled"].as_u64()),
                (Some(1077), Some(25842))
            );
            assert_eq!(e["alpha"], m["alpha"]);
            for key in ["humans", "ppi", "ppi_plus"] {
                for side in 0..2 {
                    close(
                        &e["mean"][key]["ci"][side],
                        &m[key][side],
                        &format!("{key} at α {alpha}"),
                    );
                }
            }
            close(&e["mean"]["ppi_plus"]["lambda"], &m["lambda"], "λ");
            close(
                &e["mean"]["judge"]["estimate"],
                &want["judge_mean"],
                "the judge alone",
            );
            let rg = want["rogan_gladen"]
                .as_array()
                .expect("rogan_gladen")
                .iter()
                .find(|r| r["alpha"] == m["alpha"])
                .expect("α");
            let got = &e["mean"]["rogan_gladen"];
            close(&got["estimate"], &rg["clipped"], "Rogan–Gladen");
            close(&got["sensitivity"], &rg["sensitivity"], "sensitivity");
            close(&got["specificity"], &rg["specificity"], "specificity");
            for side in 0..2 {
                close(&got["ci"][side], &rg["ci"][side], "Rogan–Gladen interval");
            }
            assert!(e["worth"].as_f64().expect("worth") > 1077.0);
        }
    }
}

#[test]
fn arena_models_rank_as_prediction_powered_ranking_ranks_them() {
    let Some(shared) = shared_data() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let (one, _, _) = arena_csv(&shared, dir.path(), Some(&TWELVE));
    let want = &fixture_doc()["systems"];
    let models: Vec<&str> = want["models"]
        .as_array()
        .expect("models")
        .iter()
        .map(|m| m.as_str().expect("name"))
        .collect();
    for alpha in ["0.05", "0.1"] {
        let doc = analyze(
            &["--input", one.to_str().expect("utf-8")],
            &["--generators", "model_a,model_b", "--alpha", alpha],
        );
        let s = &doc["estimate"]["systems"];
        close(&s["lambda"], &want["lambda"], "λ");
        let got = s["models"].as_array().expect("models");
        assert_eq!(got.len(), 12);
        for m in got {
            let name = m["name"].as_str().expect("name");
            let i = models
                .iter()
                .position(|x| *x == name)
                .expect("a model of the twelve");
            for (source, key) in [("ppr", "ppr"), ("humans", "humans"), ("judge", "judge")] {
                close(
                    &m[source]["win_rate"],
                    &want[key]["win_rate"][i],
                    &format!("{source} {name}"),
                );
                // Chatzi et al.'s published figures, kept beside each model's own.
                close(
                    &m[source]["se_published"],
                    &want[key]["se"][i],
                    &format!("{source} se {name}"),
                );
                assert_eq!(
                    m[source]["rank_set_published"], want[key]["rank_sets"][alpha][i],
                    "{source} {name} at α {alpha}"
                );
                // Each model's own battles: a larger standard error, a rank-set no narrower.
                let (own, published) = (&m[source]["rank_set"], &m[source]["rank_set_published"]);
                let bound = |v: &serde_json::Value, k: usize| v[k].as_u64().expect("rank");
                assert!(
                    bound(own, 0) <= bound(published, 0) && bound(own, 1) >= bound(published, 1)
                );
                assert!(m[source]["se"].as_f64() >= m[source]["se_published"].as_f64());
            }
        }
    }
    // The terminal answers first; the table and the figure follow.
    let html = dir.path().join("estimate.html");
    let mut args = vec!["analyze", "--input", one.to_str().expect("utf-8")];
    args.extend(ARENA);
    args.extend([
        "--generators",
        "model_a,model_b",
        "--html",
        html.to_str().expect("utf-8"),
    ]);
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let first = out
        .lines()
        .find(|l| l.starts_with("Corrected with"))
        .expect("the answer");
    assert!(first.contains("633 human labels: model_a wins"), "{first}");
    let lines: Vec<&str> = out.lines().collect();
    let answer = lines
        .iter()
        .position(|l| l.starts_with("Corrected with"))
        .expect("answer");
    let table = lines
        .iter()
        .position(|l| l.starts_with("┌"))
        .expect("a table");
    assert!(answer < table);
    assert!(out.contains("Models ranked with few human labels"));
    let page = std::fs::read_to_string(&html).expect("page");
    assert!(
        page.contains("models ranked with few human labels")
            && page.contains("Models ranked with few human labels (PPR")
    );
}

#[test]
fn estimate_refuses_what_it_cannot_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let unlabelled = write(dir.path(), "u.csv", "id,gold,rating\n1,,-1\n2,,1\n3,,-1\n");
    let path = unlabelled.to_str().expect("utf-8");
    // Without --estimate, rows without gold have nothing to be measured against.
    let e = error_of(&["analyze", "--input", path]);
    assert!(
        e.contains("no row has a gold label") && e.contains("add --estimate"),
        "{e}"
    );
    // With it: the judge alone, and why nothing else.
    let doc = json_of(&[
        "analyze",
        "--input",
        path,
        "--estimate",
        "--json",
        "--bootstrap",
        "0",
    ]);
    let est = &doc["estimate"];
    assert_eq!(est["n_labelled"], 0);
    close(
        &est["mean"]["judge"]["estimate"],
        &serde_json::json!(2.0 / 3.0),
        "judge alone",
    );
    assert!(est["mean"]["ppi_plus"].is_null());
    assert!(est["notes"][0]
        .as_str()
        .expect("note")
        .contains("no item has a gold label"));
    let e = error_of(&[
        "analyze",
        "--input",
        path,
        "--estimate",
        "--estimate-label",
        "model_a",
    ]);
    assert!(
        e.contains("--estimate-label 'model_a' is neither a label"),
        "{e}"
    );
    let e = error_of(&["analyze", "--input", path, "--estimate", "--alpha", "1.5"]);
    assert!(
        e.contains("'1.5' for '--alpha") && e.contains("strictly between 0 and 1"),
        "{e}"
    );
    let (code, _, e) = run(&["analyze", "--input", path, "--estimate-label", "-1"]);
    assert!(code == 2 && e.contains("--estimate"), "{e}");
    // A label neither the gold nor the ratings hold (a typo) is no certain zero.
    let e = error_of(&[
        "analyze",
        "--input",
        path,
        "--estimate",
        "--estimate-label",
        "5",
    ]);
    assert!(
        e.contains(
            "--estimate-label 5: no gold label or rating is 5; the labels present are -1, 1"
        ),
        "{e}"
    );
    // One label, one verdict: said in the singular.
    let one = write(
        dir.path(),
        "one.csv",
        "id,gold,rating\n1,-1,-1\n2,,1\n3,1,1\n",
    );
    let (code, out, err) = run(&[
        "analyze",
        "--input",
        one.to_str().expect("utf-8"),
        "--estimate",
        "--bootstrap",
        "0",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Corrected with 2 human labels"), "{out}");
    assert!(
        !out.contains("1 human labels") && !out.contains("1 verdicts"),
        "{out}"
    );
}

/// `calibrate --estimate` on LLMBar's pairs with three labels in four emptied, rated by the
/// recorded GPT-4 judge: its estimate is `analyze --estimate` on its own ratings.csv, and
/// `report DIR` gives it again.
#[test]
fn calibrate_estimates_as_analyze_does_on_its_ratings() {
    let Some(shared) = shared_data() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let export = dir.path().join("llmbar.jsonl");
    let parquet = shared.join("llmbar/llmbar-reward-bench-schema.parquet");
    let (code, _, err) = run(&[
        "data",
        "export",
        "--data",
        parquet.to_str().expect("utf-8"),
        "--out",
        export.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{err}");
    let lines: String = std::fs::read_to_string(&export)
        .expect("export")
        .lines()
        .enumerate()
        .map(|(k, l)| {
            let mut v: Value = serde_json::from_str(l).expect("JSON");
            if k % 4 != 0 {
                v["gold"] = Value::Null;
            }
            format!("{v}\n")
        })
        .collect();
    let data = write(dir.path(), "pairs.jsonl", &lines);
    let out = dir.path().join("run");
    let judge = format!(
        "replay:{}",
        shared.join("llmbar/judges/GPT-4-Vanilla.jsonl").display()
    );
    let prompt = crate::common::root().join("examples/prompts/llmbar-vanilla.toml");
    let doc = json_of(&[
        "calibrate",
        "--data",
        data.to_str().expect("utf-8"),
        "--map",
        "prompt=prompt,response1=response1,response2=response2,label=gold,id=id",
        "--judge",
        &judge,
        "--prompt",
        prompt.to_str().expect("utf-8"),
        "--rater",
        "basic",
        "--bootstrap",
        "0",
        "--estimate",
        "--estimate-label",
        "-1",
        "--alpha",
        "0.1",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    let e = &doc["configs"][0]["estimate"];
    assert_eq!(
        (e["n_labelled"].as_u64(), e["n_unlabelled"].as_u64()),
        (Some(105), Some(314))
    );
    assert_eq!(e["alpha"], 0.1);
    let ratings = out.join("ratings.csv");
    let analyzed = json_of(&[
        "analyze",
        "--input",
        ratings.to_str().expect("utf-8"),
        "--estimate",
        "--alpha",
        "0.1",
        "--bootstrap",
        "0",
    ]);
    assert_eq!(analyzed["estimate"]["mean"], e["mean"]);
    assert_eq!(analyzed["estimate"]["worth"], e["worth"]);
    let reread = json_of(&["report", out.to_str().expect("utf-8")]);
    assert_eq!(reread["configs"][0]["estimate"], *e);
    let metrics = std::fs::read_to_string(out.join("metrics.csv")).expect("metrics.csv");
    assert!(
        metrics
            .lines()
            .any(|l| l.contains(",estimate,419,estimate_ppi_plus,")),
        "{metrics}"
    );
    // A label calibrate does not have, and RewardBench 2's rows, are refused.
    let (code, _, err) = run(&["calibrate", "--demo", "--estimate", "--estimate-label", "2"]);
    assert!(code == 2 && err.contains("--estimate-label 2"), "{err}");
    let (code, _, err) = run(&[
        "calibrate",
        "--data",
        "sample-v2",
        "--judge",
        "sim",
        "--estimate",
    ]);
    assert!(code == 2 && err.contains("--estimate corrects"), "{err}");
}

/// `plan --labels --width` from a pilot: the Arena battles (every 25th labelled) as a pilot
/// split 500 labels as Lee et al.'s `allocate_calibration_sample` does with the pilot's rates,
/// and the labels for the width of the pilot's own PPI++ interval are the pilot's labels.
#[test]
fn plan_splits_the_labels_and_sizes_the_interval_from_a_pilot() {
    let Some(shared) = shared_data() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let (one, _, _) = arena_csv(&shared, dir.path(), None);
    // The pilot's gold and rating columns, as a one-configuration ratings.csv has them.
    let label = |v: &str| match v {
        "model_a" => "-1",
        "model_b" => "1",
        "" => "",
        _ => "0",
    };
    let text = std::fs::read_to_string(&one).expect("arena.csv");
    let mut pilot = String::from("gold,rating\n");
    for line in text.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        let (human, judge) = (cells[3].trim_matches('"'), cells[4].trim_matches('"'));
        pilot.push_str(&format!("{},{}\n", label(human), label(judge)));
    }
    let pilot = write(dir.path(), "pilot.csv", &pilot);
    let path = pilot.to_str().expect("utf-8");
    let estimated = json_of(&["analyze", "--input", path, "--estimate", "--bootstrap", "0"]);
    let ci = &estimated["estimate"]["mean"]["ppi_plus"]["ci"];
    let width = ci[1].as_f64().expect("hi") - ci[0].as_f64().expect("lo");
    let doc = json_of(&[
        "plan",
        "--labels",
        "500",
        "--width",
        &width.to_string(),
        "--pilot",
        path,
    ]);
    assert_eq!(doc["metric"], "labels");
    let lee = fixture_doc()["arena"]["allocation"]
        .as_array()
        .expect("allocation")
        .iter()
        .find(|c| c["m"] == 500 && c["pilot"] == 0)
        .expect("the case of 500")
        .clone();
    let a = &doc["allocation"];
    assert_eq!(
        [&a["negatives"], &a["positives"]],
        [&lee["split"][0], &lee["split"][1]]
    );
    close(&a["positive_rate"], &lee["p"], "the judge's rate");
    let n = doc["width"]["labelled_ppi_plus"].as_f64().expect("labels");
    assert!((n - 1077.0).abs() <= 1.0, "{n}");
    assert!(doc["width"]["labelled_humans"].as_f64().expect("humans") >= n);
    let (code, _, err) = run(&["plan", "--width", "2", "--pilot", path]);
    assert!(code == 2 && err.contains("--width 2"), "{err}");
}

/// `calibrate --estimate` with the models named (`--map generator1=…,generator2=…`): each
/// configuration's `estimate.systems` is `analyze --estimate --generators` on its ratings.csv.
#[test]
fn calibrate_ranks_the_models_as_analyze_does_on_its_ratings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut csv = String::from("id,prompt,response1,response2,gold,model1,model2\n");
    let models = ["alpha", "beta", "gamma"];
    for i in 0..300usize {
        let (a, b) = (models[i % 3], models[(i / 3 + i + 1) % 3]);
        let (a, b) = if a == b {
            (a, models[(i + 2) % 3])
        } else {
            (a, b)
        };
        // alpha beats beta beats gamma, mostly; a third of the items labelled.
        let rank = |m: &str| models.iter().position(|x| *x == m).expect("model");
        let gold = if (rank(a) < rank(b)) ^ (i % 5 == 0) {
            -1
        } else {
            1
        };
        let cell = if i % 3 == 0 {
            gold.to_string()
        } else {
            String::new()
        };
        csv.push_str(&format!(
            "q{i},question {i},answer {i} by {a},reply {i} by {b}{},{cell},{a},{b}\n",
            "!".repeat(i % 4)
        ));
    }
    let data = write(dir.path(), "models.csv", &csv);
    let out = dir.path().join("run");
    let doc = json_of(&[
        "calibrate", "--data", data.to_str().expect("utf-8"), "--map",
        "prompt=prompt,response1=response1,response2=response2,label=gold,id=id,generator1=model1,generator2=model2",
        "--judge", "sim", "--prompt", "simple_no_tie", "--rater", "basic", "--bootstrap", "0",
        "--estimate", "--out", out.to_str().expect("utf-8"),
    ]);
    let e = &doc["configs"][0]["estimate"];
    let names: Vec<&str> = e["systems"]["models"]
        .as_array()
        .expect("models")
        .iter()
        .map(|m| m["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names.len(), 3, "{e}");
    let ratings = out.join("ratings.csv");
    let analyzed = json_of(&[
        "analyze",
        "--input",
        ratings.to_str().expect("utf-8"),
        "--estimate",
        "--generators",
        "generator1,generator2",
        "--unreadable",
        "drop",
        "--bootstrap",
        "0",
    ]);
    // The same figures; the items come in another order (labelled first), so sums may differ
    // in their last bits.
    same(&analyzed["estimate"]["systems"], &e["systems"], "systems");
    same(&analyzed["estimate"]["mean"], &e["mean"], "mean");
}

/// Two JSON values equal, numbers to 1e-9.
fn same(a: &Value, b: &Value, at: &str) {
    match (a, b) {
        (Value::Number(_), Value::Number(_)) => close(a, b, at),
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "{at}");
            for (k, (p, q)) in x.iter().zip(y).enumerate() {
                same(p, q, &format!("{at}[{k}]"));
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            assert_eq!(
                x.keys().collect::<Vec<_>>(),
                y.keys().collect::<Vec<_>>(),
                "{at}"
            );
            for (k, p) in x {
                same(p, &y[k], &format!("{at}.{k}"));
            }
        }
        _ => assert_eq!(a, b, "{at}"),
    }
}
