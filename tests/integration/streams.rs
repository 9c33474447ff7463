//! Keyed random streams (#67): every draw is `stream(seed, purpose, index)`, so a result is
//! the same whatever the number of threads that compute it. Each command runs twice, with
//! `RATERLAB_THREADS=1` and `=2`, and must print the same document, intervals included.

use crate::common::{raterlab, shared_data, without};
use serde_json::Value;

fn json_on(threads: &str, args: &[&str]) -> (Value, Value) {
    let out = raterlab(args)
        .env("RATERLAB_THREADS", threads)
        .output()
        .expect("raterlab runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{args:?} on {threads} thread(s): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_str(&text).expect("a JSON document");
    // What a clock measures (`wall_seconds`) is the one part that may differ.
    (without(&doc, "wall_seconds"), doc)
}

#[test]
fn the_demo_is_the_same_on_one_thread_and_on_two() {
    let dir = tempfile::tempdir().expect("temp dir");
    let on = |threads: &str, out: &str| {
        let out = dir.path().join(out);
        let args = ["calibrate", "--demo", "--bootstrap", "300", "--out"];
        json_on(
            threads,
            &[&args[..], &[out.to_str().expect("utf-8"), "--json"]].concat(),
        )
    };
    let (one, doc) = on("1", "one");
    let (two, _) = on("2", "two");
    assert!(
        doc["configs"][0]["overall"]["ci"]["kappa_quadratic"].is_array(),
        "the demo's intervals are drawn: {}",
        &doc["configs"][0]["overall"]
    );
    // The run directories' paths differ; nothing else may.
    assert_eq!(
        same_dir(&one),
        same_dir(&two),
        "the demo's document differs between 1 and 2 threads"
    );
}

/// The document as text with the two run directories' names made one.
fn same_dir(v: &Value) -> String {
    v.to_string().replace("/one", "/X").replace("/two", "/X")
}

#[test]
fn calibration_intervals_on_real_probabilities_are_the_same_on_one_thread_and_on_two() {
    let Some(shared) = shared_data() else { return };
    let file = shared.join("alpacaeval/alpaca-7b.json");
    let dir = tempfile::tempdir().expect("temp dir");
    let judge = format!("replay:{}", file.display());
    let on = |threads: &str, out: &str| {
        let out = dir.path().join(out);
        json_on(
            threads,
            &[
                "calibrate",
                "--data",
                file.to_str().expect("utf-8"),
                "--judge",
                &judge,
                "--prompt",
                "alpaca_eval_weighted",
                "--bootstrap",
                "300",
                "--out",
                out.to_str().expect("utf-8"),
                "--json",
            ],
        )
    };
    let (one, doc) = on("1", "one");
    let interval = &doc["configs"][0]["probability"]["auc_ci"];
    assert!(
        interval.is_array(),
        "the calibration figures have intervals: {}",
        &doc["configs"][0]["probability"]
    );
    let (two, _) = on("2", "two");
    // The run directories' paths differ; nothing else may.
    assert_eq!(same_dir(&one), same_dir(&two), "1 and 2 threads differ");
}
