//! Honest verdicts (#53): every reported pair's interval agrees with its verdict in every
//! output (the answer, --json, comparisons.csv, report.html), on the demo and on a
//! 12-configuration run; items without an id column keep their identity under another file
//! name or another published shape.

use crate::common::{json_of, run, shared_data};
use crate::conversations::{export, message_lists};
use crate::judge_cli::completion;
use crate::mock_http::MockServer;
use crate::report_dirs::split_csv;
use serde_json::{json, Value};
use std::path::Path;

/// Whether an interval excludes 0.
fn excludes(ci: &Value) -> bool {
    let (lo, hi) = (ci[0].as_f64(), ci[1].as_f64());
    lo.is_some_and(|lo| lo > 0.0) || hi.is_some_and(|hi| hi < 0.0)
}

fn called(finding: &Value) -> bool {
    matches!(finding.as_str(), Some("a_better" | "b_better"))
}

/// Every pair of a run directory's --json and comparisons.csv: a verdict exactly where its
/// interval excludes 0, on both metrics; a pair outside the family has no verdict and says
/// its interval is unadjusted. Returns (pairs in the family, pairs called different).
fn check_run(doc: &Value, dir: &Path) -> (usize, usize) {
    let comparisons = doc["comparisons"].as_array().expect("comparisons");
    let (mut judged, mut different) = (0, 0);
    for c in comparisons {
        let name = format!("{} vs {}", c["b"], c["a"]);
        for metric in ["accuracy", "kappa_quadratic"] {
            let t = crate::common::paired(c, metric);
            assert_eq!((&t["a"], &t["b"]), (&c["a"], &c["b"]), "{name}");
            if c["judged"] == true && t["finding"] != "untested" {
                assert_eq!(
                    excludes(&t["ci"]),
                    called(&t["finding"]),
                    "{name}: {metric} {} at {} beside {}",
                    t["ci"],
                    t["ci_level"],
                    t["finding"]
                );
                different += usize::from(called(&t["finding"]));
            } else if c["judged"] == false {
                assert_eq!(t["finding"], "no_verdict", "{name}");
                assert_eq!(t["ci_level"], 0.95, "{name}");
            }
        }
        if c["judged"] == true {
            judged += 1;
            let v = c["verdict"].as_str().expect("verdict");
            assert!(!v.contains("unadjusted"), "{name}: {v}");
        } else {
            let v = c["verdict"].as_str().expect("verdict");
            assert!(v.contains("no verdict") && v.contains("unadjusted"), "{v}");
        }
    }
    // comparisons.csv holds the same pairs, intervals and findings.
    let csv = std::fs::read_to_string(dir.join("comparisons.csv")).expect("comparisons.csv");
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let rows: Vec<Vec<String>> = lines.map(split_csv).collect();
    assert_eq!(rows.len(), comparisons.len());
    for (row, c) in rows.iter().zip(comparisons) {
        for (lo, hi, p_holm, metric) in [
            ("accuracy_ci_lo", "accuracy_ci_hi", "p_holm", "accuracy"),
            (
                "kappa_quadratic_ci_lo",
                "kappa_quadratic_ci_hi",
                "kappa_quadratic_p_holm",
                "kappa_quadratic",
            ),
        ] {
            let num = |k: &str| row[col(k)].parse::<f64>().ok();
            if let (Some(lo), Some(hi), Some(p)) = (num(lo), num(hi), num(p_holm)) {
                assert_eq!(lo > 0.0 || hi < 0.0, p < 0.05, "{row:?}");
                let finding = &crate::common::paired(c, metric)["finding"];
                assert_eq!(p < 0.05, called(finding), "{row:?}");
            }
        }
    }
    // report.html shows each verdict's interval as the terminal does.
    let html = std::fs::read_to_string(dir.join("report.html")).expect("report.html");
    for c in comparisons.iter().filter(|c| c["judged"] == true) {
        let ci = &crate::common::paired(c, "kappa_quadratic")["ci"];
        let lo = ci[0].as_f64().expect("lo");
        let hi = ci[1].as_f64().expect("hi");
        let shown = format!("[{lo:+.3}, {hi:+.3}]");
        assert!(html.contains(&shown), "report.html lacks {shown}");
    }
    (judged, different)
}

fn calibrate(dir: &Path, extra: &[&str]) -> Value {
    let out = dir.to_str().expect("utf-8");
    let mut args = vec!["calibrate", "--json", "--out", out];
    args.extend_from_slice(extra);
    json_of(&args)
}

#[test]
fn every_verdict_agrees_with_its_interval_on_the_demo_and_twelve_configurations() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let demo = calibrate(&tmp.path().join("demo"), &["--demo"]);
    assert_eq!(demo["comparison_family"]["family"], "best");
    assert_eq!(demo["comparison_family"]["kappa_quadratic_tests"], 36);
    let (judged, different) = check_run(&demo, &tmp.path().join("demo"));
    assert_eq!(judged, 8, "the best against each of the other eight");
    assert!(
        different > 0,
        "the demo separates the best from some baseline"
    );
    let all = calibrate(&tmp.path().join("all"), &["--demo", "--family", "all"]);
    assert_eq!(check_run(&all, &tmp.path().join("all")).0, 36);
    // Twelve: three prompts × basic, sc:3, sc:5, and three baselines.
    let mut twelve = vec!["--judge", "sim", "--bootstrap", "400"];
    for p in [
        "simple_no_tie",
        "simple_with_tie",
        "reward-bench_gemini_no_tie",
    ] {
        twelve.extend(["--prompt", p]);
    }
    for r in ["basic", "sc:3", "sc:5", "random", "longer", "first"] {
        twelve.extend(["--rater", r]);
    }
    for family in ["best", "all"] {
        let dir = tmp.path().join(format!("twelve-{family}"));
        let mut args = twelve.clone();
        args.extend(["--family", family]);
        let doc = calibrate(&dir, &args);
        assert_eq!(doc["configs"].as_array().expect("configs").len(), 12);
        assert_eq!(doc["comparison_family"]["accuracy_tests"], 66);
        let (judged, _) = check_run(&doc, &dir);
        assert_eq!(judged, if family == "best" { 11 } else { 66 });
    }
    // The answer's first line follows the tests: "not told apart" only without a verdict.
    let (code, out, err) = run(&[
        "calibrate",
        "--demo",
        "--out",
        tmp.path().join("t").to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{err}");
    let best = demo["comparison_family"]["best"].as_str().expect("best");
    let longer = demo["comparisons"]
        .as_array()
        .expect("comparisons")
        .iter()
        .find(|c| {
            (c["a"] == best && c["b"] == "baseline/longer")
                || (c["b"] == best && c["a"] == "baseline/longer")
        })
        .expect("the best against the longer baseline");
    let separated = called(&crate::common::paired(longer, "accuracy")["finding"])
        || called(&crate::common::paired(longer, "kappa_quadratic")["finding"]);
    assert_eq!(
        out.contains("not told apart from the best baseline"),
        !separated,
        "{out}"
    );
}

/// The same HH-RLHF rows as a transcript file `a.jsonl` and as a message-list file
/// `b.parquet` (no id column in either): the same ids, positions and requests. Renaming a
/// file changes nothing but the run's name.
#[test]
fn the_same_conversations_under_another_name_and_shape_are_the_same_items() {
    use polars::prelude::*;
    let Some(shared) = shared_data() else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    let rows: Vec<Value> = std::fs::read_to_string(shared.join("hh-rlhf/harmless-base-test.jsonl"))
        .expect("hh-rlhf")
        .lines()
        .take(40)
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let a = tmp.path().join("a.jsonl");
    let text: String = rows
        .iter()
        .map(|r| {
            format!(
                "{}\n",
                json!({"chosen": r["chosen"], "rejected": r["rejected"]})
            )
        })
        .collect();
    std::fs::write(&a, &text).expect("write");
    let renamed = tmp.path().join("harmless-renamed.jsonl");
    std::fs::write(&renamed, &text).expect("write");
    // The same rows as message lists, from the turns the transcripts load as.
    let parsed = export(&a, tmp.path(), "parsed", &[]);
    let lists: String = parsed
        .iter()
        .map(|row| format!("{}\n", message_lists(row)))
        .collect();
    let lists_path = tmp.path().join("lists.jsonl");
    std::fs::write(&lists_path, lists).expect("write");
    let mut df = JsonReader::new(std::fs::File::open(&lists_path).expect("open"))
        .with_json_format(JsonFormat::JsonLines)
        .finish()
        .expect("message lists");
    let b = tmp.path().join("b.parquet");
    ParquetWriter::new(std::fs::File::create(&b).expect("create"))
        .finish(&mut df)
        .expect("parquet");
    let server = MockServer::start(|_| completion("[[A]]"));
    let rate = |data: &Path, name: &str| {
        let dir = tmp.path().join(name);
        let before = server.requests.lock().expect("log").len();
        let doc = json_of(&[
            "calibrate",
            "--data",
            data.to_str().expect("utf-8"),
            "--endpoint",
            &server.url,
            "--model",
            "m",
            "--prompt",
            "simple_no_tie",
            "--cache-dir",
            tmp.path()
                .join(format!("cache-{name}"))
                .to_str()
                .expect("utf-8"),
            "--bootstrap",
            "0",
            "--json",
            "--out",
            dir.to_str().expect("utf-8"),
        ]);
        assert_eq!(doc["data"]["items"], 40, "{name}");
        let items = std::fs::read_to_string(dir.join("items.jsonl")).expect("items.jsonl");
        let mut sent: Vec<String> = server.requests.lock().expect("log")[before..]
            .iter()
            .map(|r| String::from_utf8_lossy(&r.body).into_owned())
            .collect();
        sent.sort();
        (items, sent)
    };
    let (items_a, sent_a) = rate(&a, "a");
    let (items_b, sent_b) = rate(&b, "b");
    let (items_r, sent_r) = rate(&renamed, "renamed");
    assert_eq!(sent_a.len(), 40);
    assert!(items_a == items_b, "a.jsonl and b.parquet give other items");
    assert!(
        sent_a == sent_b,
        "a.jsonl and b.parquet send other requests"
    );
    assert!(
        items_a == items_r && sent_a == sent_r,
        "renaming the file changed the items"
    );
    // The ids are the content's, not the file's: no file name, no row number.
    for line in items_a.lines() {
        let item: Value = serde_json::from_str(line).expect("item");
        let id = item["id"].as_str().expect("id");
        assert!(
            id.len() == 16 && id.chars().all(|c| c.is_ascii_hexdigit()),
            "{id}"
        );
    }
}
