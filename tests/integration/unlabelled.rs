//! Items without a gold label, on the real LLMBar pairs with every fourth label emptied: rated
//! and kept by `calibrate`, counted, and left out of every agreement measure, which equal a run
//! over the labelled pairs alone; `analyze` reads them back from ratings.csv as unlabelled, in
//! one file and in two.

use crate::common::{json_of, run, shared_data, write};
use serde_json::Value;
use std::path::Path;

/// `data export`'s JSONL lines of LLMBar's pairs.
fn exported(shared: &Path, dir: &Path) -> Vec<Value> {
    let out = dir.join("llmbar.jsonl");
    let data = shared.join("llmbar/llmbar-reward-bench-schema.parquet");
    let (code, _, err) = run(&[
        "data",
        "export",
        "--data",
        data.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{err}");
    std::fs::read_to_string(&out)
        .expect("export")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// The lines as a pairwise JSONL file, `gold` null where `blank` says.
fn pairs_file(dir: &Path, name: &str, lines: &[&Value], blank: impl Fn(usize) -> bool) -> String {
    let text: String = lines
        .iter()
        .enumerate()
        .map(|(k, l)| {
            let mut l = (*l).clone();
            if blank(k) {
                l["gold"] = Value::Null;
            }
            format!("{l}\n")
        })
        .collect();
    write(dir, name, &text).to_string_lossy().into_owned()
}

const MAP: &str = "prompt=prompt,response1=response1,response2=response2,label=gold,id=id";

fn calibrate(data: &str, out: &Path) -> Value {
    json_of(&[
        "calibrate",
        "--data",
        data,
        "--map",
        MAP,
        "--judge",
        // Every answer readable: an unlabelled item is then rated, whatever the prompt's text.
        "sim:malformed=0",
        "--rater",
        "basic",
        "--rater",
        "longer",
        "--bootstrap",
        "200",
        "--out",
        out.to_str().expect("utf-8"),
    ])
}

#[test]
fn unlabelled_items_are_rated_kept_counted_and_in_no_measure() {
    let Some(shared) = shared_data() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let lines = exported(&shared, dir.path());
    assert_eq!(lines.len(), 419);
    let all: Vec<&Value> = lines.iter().collect();
    let blank = |k: usize| k % 4 == 3;
    let unlabelled = (0..all.len()).filter(|&k| blank(k)).count();
    let mixed = pairs_file(dir.path(), "mixed.jsonl", &all, blank);
    let labelled: Vec<&Value> = (0..all.len())
        .filter(|&k| !blank(k))
        .map(|k| all[k])
        .collect();
    let only = pairs_file(dir.path(), "labelled.jsonl", &labelled, |_| false);

    let run_dir = dir.path().join("mixed");
    let doc = calibrate(&mixed, &run_dir);
    assert_eq!(doc["data"]["items"], 419);
    assert_eq!(doc["data"]["unlabelled"], unlabelled);
    let alone = calibrate(&only, &dir.path().join("labelled"));
    assert_eq!(alone["data"]["unlabelled"], 0);
    for (k, config) in doc["configs"]
        .as_array()
        .expect("configs")
        .iter()
        .enumerate()
    {
        let counts = &config["overall"]["counts"];
        assert_eq!(counts["examples"], 419 - unlabelled, "{config}");
        assert_eq!(counts["unlabelled"], unlabelled);
        // Every agreement figure is the labelled pairs' alone.
        let theirs = &alone["configs"][k]["overall"];
        for key in [
            "n",
            "accuracy",
            "kappa_quadratic",
            "spearman",
            "confusion",
            "ci",
        ] {
            assert_eq!(config["overall"][key], theirs[key], "{key}");
        }
        assert_eq!(config["overall"]["policies"], theirs["policies"]);
    }
    assert_eq!(doc["comparisons"], alone["comparisons"]);

    // ratings.csv keeps every item, the unlabelled rated with an empty gold.
    let gold = crate::common::ratings_strings(&run_dir, "gold");
    let status = crate::common::ratings_strings(&run_dir, "status");
    assert_eq!(gold.len(), 2 * 419);
    let without: Vec<usize> = (0..gold.len()).filter(|&r| gold[r].is_none()).collect();
    assert_eq!(without.len(), 2 * unlabelled);
    assert!(without
        .iter()
        .all(|&r| status[r].as_deref() == Some("rated")));
    let meta: Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("run.json")).expect("run.json"))
            .expect("JSON");
    assert_eq!(meta["data"]["unlabelled"], unlabelled);

    // The terminal says so under its header, and `report DIR` rereads the same run.
    let (code, out, err) = run(&["report", run_dir.to_str().expect("utf-8")]);
    assert_eq!(code, 0, "{err}");
    let line = format!("{unlabelled} of the 419 items have no gold label");
    assert!(
        out.lines().nth(1).is_some_and(|l| l.starts_with(&line)),
        "{out}"
    );
    let again = json_of(&["report", run_dir.to_str().expect("utf-8")]);
    assert_eq!(again["configs"], doc["configs"]);
    assert_eq!(again["data"], doc["data"]);

    // analyze on ratings.csv: the first configuration's rows, one file and two.
    let csv = run_dir.join("ratings.csv");
    let text = std::fs::read_to_string(&csv).expect("ratings.csv");
    let mut rows = text.lines();
    let header = rows.next().expect("header");
    let first = doc["configs"][0]["name"].as_str().expect("name");
    let mine: String = rows
        .filter(|l| l.starts_with(&format!("{first},")))
        .map(|l| format!("{l}\n"))
        .collect();
    let one = write(dir.path(), "one.csv", &format!("{header}\n{mine}"));
    let one = one.to_str().expect("utf-8");
    let a = json_of(&[
        "analyze",
        "--input",
        one,
        "--gold-col",
        "gold",
        "--rating-col",
        "rating",
        "--unreadable",
        "drop",
    ]);
    let overall = &doc["configs"][0]["overall"];
    assert_eq!(a["n"], overall["n"]);
    assert_eq!(a["accuracy"], overall["accuracy"]);
    let rated_unlabelled = without.iter().filter(|&&r| r < 419).count();
    assert_eq!(a["unlabelled"], rated_unlabelled);
    assert_eq!(a["dropped_gold"], 0);
    // Two files: gold rows for the labelled ids only.
    let ids = crate::common::ratings_strings(&run_dir, "id");
    let mut gold_csv = String::from("id,gold\n");
    for r in 0..419 {
        if let (Some(id), Some(g)) = (&ids[r], &gold[r]) {
            gold_csv.push_str(&format!("{id},{g}\n"));
        }
    }
    let gold_file = write(dir.path(), "gold.csv", &gold_csv);
    let b = json_of(&[
        "analyze",
        "--gold",
        gold_file.to_str().expect("utf-8"),
        "--ratings",
        one,
        "--gold-col",
        "gold",
        "--rating-col",
        "rating",
        "--unreadable",
        "drop",
    ]);
    assert_eq!(b["n"], a["n"]);
    assert_eq!(b["accuracy"], a["accuracy"]);
    assert_eq!(b["unlabelled"], rated_unlabelled);
}

/// With no labelled item there is nothing to rank: the answer says so instead of naming a best
/// "over 0 items", and the items are still rated and kept.
#[test]
fn a_run_without_any_gold_label_says_so_first() {
    let Some(shared) = shared_data() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let lines = exported(&shared, dir.path());
    let first: Vec<&Value> = lines.iter().take(10).collect();
    let data = pairs_file(dir.path(), "none.jsonl", &first, |_| true);
    let out = dir.path().join("none");
    let (code, stdout, err) = run(&[
        "calibrate",
        "--data",
        &data,
        "--map",
        MAP,
        "--judge",
        "sim",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{err}");
    let answer: String = stdout
        .split("\n\n")
        .nth(1)
        .unwrap_or_default()
        .replace('\n', " ");
    assert!(
        answer.starts_with("No item has a gold label (and was asked): there is no agreement to measure. The 10 items were rated"),
        "{stdout}"
    );
    assert!(!stdout.contains("Best:"), "{stdout}");
    let status = crate::common::ratings_strings(&out, "status");
    assert_eq!(status.len(), 10);
    // Every item was asked (the simulated judge may answer one unreadably).
    assert!(status
        .iter()
        .all(|s| matches!(s.as_deref(), Some("rated" | "no_verdict"))));
}
