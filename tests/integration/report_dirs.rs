//! `raterlab report DIR` on every form: a RewardBench 2 run is remade file for file from its
//! directory; a pairs run written by the previous release (run.json without a schema) and a
//! RewardBench 2 run of version 3 still read, and their tables come out byte for byte; a
//! RewardBench 2 run of version 1, or a damaged one, is refused with the way to remake it.

use crate::common::{error_of, fixture, json_of, run};
use std::collections::BTreeMap;
use std::path::Path;

/// Every file below `dir` (name → bytes).
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .expect("a run directory")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).expect("readable"),
            )
        })
        .collect()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for (name, bytes) in files(from) {
        std::fs::write(to.join(name), bytes).expect("copy");
    }
}

/// Runs `calibrate ARGS --out DIR --json`, then `report DIR --json` on a copy: every file the
/// report writes again equals the run's own, and so does the document.
fn remade(args: &[&str]) -> (serde_json::Value, tempfile::TempDir) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("run");
    let out_s = out.to_str().expect("utf-8");
    let mut all = args.to_vec();
    all.extend(["--out", out_s]);
    let calibrated = json_of(&all);
    report_remakes(&out, &calibrated, &tmp.path().join("copy"));
    (calibrated, tmp)
}

/// `report DIR --json` on a copy (at `copy`) of the run directory `out` that `calibrate`
/// wrote with the document `calibrated`: the same document, and every file the same.
pub fn report_remakes(out: &Path, calibrated: &serde_json::Value, copy: &Path) {
    copy_dir(out, copy);
    let reported = json_of(&["report", copy.to_str().expect("utf-8")]);
    assert_eq!(
        &reported, calibrated,
        "report DIR's document is calibrate's"
    );
    let (before, after) = (files(out), files(copy));
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>()
    );
    for (name, bytes) in &before {
        let first_difference = || {
            let (a, b) = (
                String::from_utf8_lossy(bytes),
                String::from_utf8_lossy(&after[name]),
            );
            a.lines()
                .zip(b.lines())
                .find(|(x, y)| x != y)
                .map(|(x, y)| format!("\n  before: {x}\n  after:  {y}"))
                .unwrap_or_default()
        };
        assert!(
            after[name] == *bytes,
            "{name} differs after report DIR ({}){}",
            out.display(),
            first_difference()
        );
    }
}

#[test]
fn a_rewardbench2_run_is_remade_file_for_file() {
    // The demo's three protocols; sc:3 on both ranking prompts (other reader, split votes);
    // pairwise in both orders with sc:3 (pairs won, lost and unread).
    let (doc, _) = remade(&["calibrate", "--demo", "--data", "sample-v2"]);
    assert_eq!(doc["configs"].as_array().map(Vec::len), Some(3));
    remade(&[
        "calibrate",
        "--demo",
        "--data",
        "sample-v2",
        "--prompt",
        "rb2_ranking",
        "--prompt",
        "rb2_ranking_gemini",
        "--rater",
        "sc:3",
        "--bootstrap",
        "200",
    ]);
    let (doc, tmp) = remade(&[
        "calibrate",
        "--demo",
        "--data",
        "sample-v2",
        "--prompt",
        "simple_no_tie",
        "--both-orders",
        "--rater",
        "sc:3",
        "--pointwise-missing",
        "lowest",
    ]);
    assert_eq!(doc["configs"][0]["missing"], "lowest");
    // Another bootstrap changes the intervals, not the scores.
    let dir = tmp.path().join("copy");
    let again = json_of(&["report", dir.to_str().expect("utf-8"), "--bootstrap", "0"]);
    let (a, b) = (
        &doc["configs"][0]["rewardbench2"],
        &again["configs"][0]["rewardbench2"],
    );
    assert_eq!(a["score"], b["score"]);
    assert_ne!(a["ci"], b["ci"]);
    assert_eq!(again["bootstrap"], 0);
}

/// `text`'s metrics.csv with each length-model row (`length_coef`, `length_coef_se`,
/// `gold_coef`) replaced by `was`'s row of the same configuration, scope and metric, once
/// every number in it is within 1e-7 of that row's.
fn same_length_model(text: &str, was: &str) -> String {
    let key = |l: &str| l.split(',').take(4).collect::<Vec<_>>().join(",");
    let model = |l: &str| {
        ["length_coef", "length_coef_se", "gold_coef"].contains(&l.split(',').nth(3).unwrap_or(""))
    };
    let old: BTreeMap<String, &str> = was
        .split_inclusive('\n')
        .filter(|l| model(l))
        .map(|l| (key(l), l))
        .collect();
    assert!(old.len() >= 3, "the fixture has length-model rows");
    text.split_inclusive('\n')
        .map(|l| {
            if !model(l) {
                return l.to_string();
            }
            let o = old
                .get(&key(l))
                .unwrap_or_else(|| panic!("no earlier row for {l}"));
            let numbers = |r: &str| -> Vec<Option<f64>> {
                r.trim_end()
                    .split(',')
                    .skip(4)
                    .map(|v| v.parse().ok())
                    .collect()
            };
            for (a, b) in numbers(l).into_iter().zip(numbers(o)) {
                match (a, b) {
                    (Some(a), Some(b)) => assert!((a - b).abs() < 1e-7, "{l} vs {o}"),
                    (a, b) => assert_eq!(a.is_some(), b.is_some(), "{l} vs {o}"),
                }
            }
            o.to_string()
        })
        .collect()
}

#[test]
fn a_pairs_run_of_the_previous_release_reads_and_its_tables_come_out_the_same() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("run");
    let old = fixture("run-dirs/pairs-v1");
    copy_dir(&old, &dir);
    let old_json = std::fs::read_to_string(old.join("run.json")).expect("run.json");
    assert!(
        !old_json.contains("\"schema\""),
        "a file from before the schema"
    );
    let (code, _, err) = run(&["report", dir.to_str().expect("utf-8")]);
    assert_eq!(code, 0, "{err}");
    for name in [
        "metrics.csv",
        "comparisons.csv",
        "confusion.csv",
        "table.tex",
    ] {
        let (was, is) = (
            std::fs::read(old.join(name)).expect("fixture"),
            std::fs::read(dir.join(name)).expect("written"),
        );
        if name == "metrics.csv" {
            // The intended changes: each configuration's cost rows (scopes `cost` and
            // `cost_frontier`), added since; the rows' order (a configuration's analytics now
            // follow its scopes, #41); and the length model's coefficients, now fitted by Newton
            // as statsmodels fits them (the release's L-BFGS stopped within 1e-7 of them). Every
            // other earlier row is as it was, under the same header.
            let text = String::from_utf8(is).expect("utf-8");
            let was = String::from_utf8(was).expect("utf-8");
            let text = same_length_model(&text, &was);
            let (cost, kept): (Vec<&str>, Vec<&str>) = text
                .split_inclusive('\n')
                .partition(|l| l.split(',').nth(1).is_some_and(|s| s.starts_with("cost")));
            assert!(
                cost.iter()
                    .any(|l| l.contains(",cost,") && l.contains(",prompt_tokens,")),
                "{text}"
            );
            assert!(cost.iter().any(|l| l.contains(",cost_frontier,")), "{text}");
            // Keyed random streams (#67) draw other resamples: every interval moves, so a row
            // keeps its bounds' presence (defined or empty), not their values.
            let rows = |t: &str| {
                let mut lines: Vec<String> = t
                    .split_inclusive('\n')
                    .enumerate()
                    .map(|(k, l)| {
                        if k == 0 {
                            l.to_string()
                        } else {
                            without_bounds(l)
                        }
                    })
                    .collect();
                lines[1..].sort();
                lines
            };
            assert_eq!(
                rows(&kept.concat()),
                rows(&was),
                "{name} differs from the previous release's"
            );
            continue;
        }
        if name == "comparisons.csv" {
            // The intended change (#53): the kappa p-values (a normal approximation from the
            // bootstrap's SE, no longer floored at 2/1001), the intervals (at the Holm step's
            // level, with the level and whether the pair is in the family) and the verdicts.
            // The pairs, differences, counts, McNemar's raw p and the power are as they were;
            // a run from before --family reads as `all`: every pair has a verdict.
            let table = |t: &[u8]| -> Vec<BTreeMap<String, String>> {
                let t = String::from_utf8(t.to_vec()).expect("utf-8");
                let mut lines = t.lines();
                let header: Vec<String> = split_csv(lines.next().expect("header"));
                lines
                    .map(|l| header.iter().cloned().zip(split_csv(l)).collect())
                    .collect()
            };
            let (was, is) = (table(&was), table(&is));
            assert_eq!(was.len(), is.len());
            for (w, i) in was.iter().zip(&is) {
                for key in [
                    "a",
                    "b",
                    "n",
                    "accuracy_diff",
                    "kappa_quadratic_diff",
                    "only_a_right",
                    "only_b_right",
                    "p_value",
                    "discordance",
                    "min_detectable_difference",
                    "items_needed",
                ] {
                    assert_eq!(w[key], i[key], "comparisons.csv, {key}");
                }
                assert_eq!(i["judged"], "true");
            }
            continue;
        }
        // table.tex: the same table with the intervals' bounds left out (keyed random streams,
        // #67, draw other resamples).
        let (was, is) = (
            brackets_emptied(&String::from_utf8(was).expect("utf-8")),
            brackets_emptied(&String::from_utf8(is).expect("utf-8")),
        );
        assert!(
            was == is,
            "{name} differs from the previous release's:\n{was}\n{is}"
        );
    }
    // run.json is the same but for its schema, now written, its family, its α and its form.
    let new_json = std::fs::read_to_string(dir.join("run.json")).expect("run.json");
    let strip = |t: &str| -> serde_json::Value {
        let mut v: serde_json::Value = serde_json::from_str(t).expect("json");
        let o = v.as_object_mut().expect("object");
        o.remove("schema");
        o.remove("family");
        o.remove("alpha");
        o["data"].as_object_mut().expect("data").remove("form");
        v
    };
    assert_eq!(strip(&new_json), strip(&old_json));
    assert!(
        new_json.contains("\"schema\": \"raterlab/run/4\""),
        "{new_json}"
    );
    assert!(new_json.contains("\"family\": \"all\""), "{new_json}");
    assert!(new_json.contains("\"alpha\": 0.05"), "{new_json}");
    assert!(new_json.contains("\"form\": \"pairs\""), "{new_json}");
    assert_eq!(
        new_json.lines().count(),
        old_json.lines().count() + 4,
        "four lines more: the schema, the family, α and the form"
    );
}

/// A RewardBench 2 run of version 3 (its own run.json shape, the `--json` document's figures
/// copied in), written by the release before version 4: `report DIR` reads it, its tables come
/// out byte for byte, and run.json is written again in version 4's one shape, which reads
/// back to the same tables and terminal.
#[test]
fn a_rewardbench2_run_of_version_3_reads_into_the_one_shape() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("v3");
    let fixture_dir = fixture("run-dirs/rewardbench2-v3");
    copy_dir(&fixture_dir, &dir);
    let dir_s = dir.to_str().expect("utf-8");
    let old: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).expect("run.json"))
            .expect("JSON");
    assert_eq!(old["schema"], "raterlab/run/3");
    let first = run(&["report", dir_s]);
    assert_eq!(first.0, 0, "{}", first.2);
    for name in ["metrics.csv", "comparisons.csv", "table.tex"] {
        assert!(
            std::fs::read(dir.join(name)).expect(name)
                == std::fs::read(fixture_dir.join(name)).expect(name),
            "{name} differs from version 3's"
        );
    }
    let new: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).expect("run.json"))
            .expect("JSON");
    assert_eq!(new["schema"], "raterlab/run/4");
    assert_eq!(new["data"]["form"], "rewardbench2");
    assert_eq!(new["data"]["rows"], old["data"]["rows"]);
    assert_eq!(new["command"][1], "calibrate");
    assert!(new.get("comparisons").is_none() && new.get("best_group").is_none());
    let (was, is) = (
        old["configs"].as_array().expect("configs"),
        new["configs"].as_array().expect("configs"),
    );
    assert_eq!(was.len(), is.len());
    for (w, i) in was.iter().zip(is) {
        assert_eq!(w["name"], i["name"]);
        assert_eq!(w["protocol"], i["rows"]["protocol"]);
        assert_eq!(w["missing"], i["rows"]["missing"]);
        assert_eq!(w["floor"], i["rows"]["floor"]);
        assert_eq!(w["calls"]["calls"], i["cost"]["calls"]);
    }
    // Version 4's file reads back to the same tables and terminal.
    let again = run(&["report", dir_s]);
    assert_eq!(again.0, 0, "{}", again.2);
    assert_eq!(again.1, first.1);
    for name in ["metrics.csv", "comparisons.csv", "table.tex"] {
        assert!(
            std::fs::read(dir.join(name)).expect(name)
                == std::fs::read(fixture_dir.join(name)).expect(name),
            "{name} differs after version 4 is read back"
        );
    }
}

#[test]
fn old_or_damaged_rewardbench2_runs_are_refused_with_the_way_to_remake_them() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("old");
    copy_dir(&fixture("run-dirs/rewardbench2-v1"), &dir);
    let err = error_of(&["report", dir.to_str().expect("utf-8")]);
    assert!(
        err.contains("run.json schema 1") && err.contains("--offline remakes it"),
        "{err}"
    );
    // A run of this release with items.jsonl gone, or its order damaged.
    let out = tmp.path().join("new");
    let out_s = out.to_str().expect("utf-8");
    json_of(&["calibrate", "--demo", "--data", "sample-v2", "--out", out_s]);
    let err = error_of(&["plan", "--diff", "0.03", "--from", out_s]);
    assert!(
        err.contains("plan --from reads the paired tests of a run over pairs"),
        "{err}"
    );
    let items = std::fs::read_to_string(out.join("items.jsonl")).expect("items");
    let first = items.lines().next().expect("a row");
    let damaged = items.replacen(first, &first.replacen("\"order\":[", "\"order\":[0,", 1), 1);
    std::fs::write(out.join("items.jsonl"), damaged).expect("write");
    let err = error_of(&["report", out_s]);
    assert!(
        err.contains("items.jsonl line 1: 'order' is not a permutation"),
        "{err}"
    );
    std::fs::remove_file(out.join("items.jsonl")).expect("rm");
    let err = error_of(&["report", out_s]);
    assert!(
        err.contains("not a complete RewardBench 2 run directory: items.jsonl"),
        "{err}"
    );
}

/// A quoted-field-aware split of one CSV line.
pub fn split_csv(line: &str) -> Vec<String> {
    let (mut out, mut field, mut quoted) = (Vec::new(), String::new(), false);
    for ch in line.chars() {
        match ch {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut field)),
            _ => field.push(ch),
        }
    }
    out.push(field);
    out
}

/// A metrics.csv row with its `ci_lo,ci_hi` replaced by whether each is defined.
fn without_bounds(line: &str) -> String {
    let body = line.trim_end_matches('\n');
    let mut fields: Vec<&str> = body.rsplitn(3, ',').collect();
    fields.reverse();
    match fields.as_slice() {
        [head, lo, hi] => format!("{head},{},{}\n", !lo.is_empty(), !hi.is_empty()),
        _ => line.to_string(),
    }
}

/// The text with every `[...]` emptied to `[]` (an interval's bounds).
fn brackets_emptied(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut inside = false;
    for c in text.chars() {
        match c {
            '[' => {
                inside = true;
                out.push(c);
            }
            ']' => {
                inside = false;
                out.push(c);
            }
            _ if inside => {}
            _ => out.push(c),
        }
    }
    out
}
