//! The anytime-valid confidence sequence against confseq's own `predmix_empbern_twosided_cs`
//! (tests/fixtures/confseq.json, written by tests/fixtures/generate_confseq_fixtures.py from
//! confseq's source): at every t, on the real Chatbot Arena battles (GPT-3.5-turbo against a
//! rater that always says `model_a`, both against the human winner) and on generated streams.

use crate::common::{fixture, shared_data};
use raterlab::metrics::confseq::{twosided, TRUNCATION};
use serde_json::Value;

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}

/// Every bound of `x`'s sequences equals confseq's to 1e-9; returns how many were compared.
fn check(name: &str, x: &[f64], sequences: &Value) -> usize {
    let mut compared = 0;
    for s in sequences.as_array().expect("sequences") {
        let alpha = s["alpha"].as_f64().expect("alpha");
        let (lower, upper) = twosided(x, alpha, TRUNCATION);
        for (mine, theirs) in [(lower, &s["lower"]), (upper, &s["upper"])] {
            let theirs = numbers(theirs);
            assert_eq!(mine.len(), theirs.len(), "{name}");
            for (t, (a, b)) in mine.iter().zip(&theirs).enumerate() {
                assert!(
                    (a - b).abs() < 1e-9,
                    "{name} α = {alpha}, t = {}: {a} vs {b}",
                    t + 1
                );
            }
            compared += theirs.len();
        }
    }
    compared
}

/// The winners of an arena-ppr file, `tie (bothbad)` read as a tie.
fn winners(path: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .expect("the battles")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("a JSON line");
            v["winner"]
                .as_str()
                .expect("winner")
                .replace("tie (bothbad)", "tie")
        })
        .collect()
}

#[test]
fn the_sequence_equals_confseqs_at_every_t() {
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("confseq.json")).expect("fixture file"),
    )
    .expect("fixture JSON");
    let mut compared = 0;
    for (name, stream) in doc["streams"].as_object().expect("streams") {
        compared += check(name, &numbers(&stream["x"]), &stream["sequences"]);
    }
    assert!(compared > 10_000, "{compared}");
    let Some(shared) = shared_data() else { return };
    let human = winners(&shared.join("arena-ppr/human.json"));
    let judge = winners(&shared.join("arena-ppr/gpt-3.5-turbo.json"));
    assert_eq!((human.len(), judge.len()), (26_919, 26_919));
    let x: Vec<f64> = human
        .iter()
        .zip(&judge)
        .map(|(h, j)| {
            let (a, b) = (
                f64::from(u8::from(j == h)),
                f64::from(u8::from(h == "model_a")),
            );
            (a - b + 1.0) / 2.0
        })
        .collect();
    let arena = &doc["arena"];
    let mean = x.iter().sum::<f64>() / x.len() as f64;
    assert!((mean - arena["mean"].as_f64().expect("mean")).abs() < 1e-12);
    assert_eq!(check("arena", &x, &arena["sequences"]), 2 * 26_919);
    // GPT-3.5-turbo agrees with the humans more often than "always model_a" does, and the
    // sequence first says so at battle 483 (its interval then excludes 1/2).
    let (lower, upper) = twosided(&x, 0.05, TRUNCATION);
    let first = lower
        .iter()
        .zip(&upper)
        .position(|(l, u)| *l > 0.5 || *u < 0.5);
    assert_eq!(first.map(|t| t + 1), Some(483));
}

/// `analyze --compare-col --sequential` on the Arena battles as one file (the human winner,
/// GPT-3.5-turbo's and an always-`model_a` rater's): the decision at battle 483 and the
/// intervals at 100, 1,000 and the last battle, each confseq's; the terminal says it first.
#[test]
fn analyze_decides_the_arena_comparison_where_confseq_does() {
    let Some(shared) = shared_data() else { return };
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("confseq.json")).expect("fixture file"),
    )
    .expect("fixture JSON");
    let theirs = &doc["arena"]["sequences"][0];
    let (lower, upper) = (numbers(&theirs["lower"]), numbers(&theirs["upper"]));
    let human = winners(&shared.join("arena-ppr/human.json"));
    let judge = winners(&shared.join("arena-ppr/gpt-3.5-turbo.json"));
    let mut csv = String::from("id,gold,gpt,always_a\n");
    for (k, (h, j)) in human.iter().zip(&judge).enumerate() {
        csv.push_str(&format!("{k},{h},{j},model_a\n"));
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let file = crate::common::write(dir.path(), "arena.csv", &csv);
    let args = [
        "analyze",
        "--input",
        file.to_str().expect("utf-8"),
        "--rating-col",
        "gpt",
        "--compare-col",
        "always_a",
        "--sequential",
        "--gold-map",
        "model_a=-1,model_b=1,tie=0",
        "--rating-map",
        "model_a=-1,model_b=1,tie=0",
        "--bootstrap",
        "0",
    ];
    let s = crate::common::json_of(&args)["sequential"].clone();
    assert_eq!(
        (s["a"].as_str(), s["b"].as_str()),
        (Some("gpt"), Some("always_a"))
    );
    assert_eq!(
        (s["n"].as_u64(), s["stopped_at"].as_u64()),
        (Some(26_919), Some(483))
    );
    assert_eq!(s["better"], "a");
    let close = |v: &Value, want: f64| (v.as_f64().expect("a bound") - want).abs() < 1e-9;
    assert!(
        close(&s["lower"], lower[482]) && close(&s["upper"], upper[482]),
        "{s}"
    );
    let at = s["at"].as_array().expect("at");
    let times: Vec<u64> = at.iter().map(|b| b["t"].as_u64().expect("t")).collect();
    assert_eq!(times, [100, 1000, 26_919]);
    for b in at {
        let t = b["t"].as_u64().expect("t") as usize;
        assert!(
            close(&b["lower"], lower[t - 1]) && close(&b["upper"], upper[t - 1]),
            "{b}"
        );
    }
    let (code, out, err) = crate::common::run(&args);
    assert_eq!(code, 0, "{err}");
    let first = out
        .split("\n\n")
        .nth(1)
        .unwrap_or_default()
        .replace('\n', " ");
    assert!(
        first.starts_with("Sequential: gpt agrees with the gold more often than always_a, decided at item 483 of 26,919"),
        "{out}"
    );
    // --html draws the curve (its SVG, embedded, marks the decision).
    let page = dir.path().join("arena.html");
    let mut with_page = args.to_vec();
    with_page.extend(["--html", page.to_str().expect("utf-8")]);
    let (code, _, err) = crate::common::run(&with_page);
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(&page).expect("the page");
    assert!(html.contains("sequential comparison"), "the curve's figure");
    // Asked without the second column, or the column without the flag: an error naming the fix.
    let path = file.to_str().expect("utf-8");
    let err = crate::common::error_of(&["analyze", "--input", path, "--sequential"]);
    assert!(
        err.contains("name their column with --compare-col COL"),
        "{err}"
    );
    let err = crate::common::error_of(&["analyze", "--input", path, "--compare-col", "gpt"]);
    assert!(err.ends_with("add --sequential"), "{err}");
    // --alpha sets the sequence's level: at 0.2 its intervals are narrower, so it decides no
    // later, and the output states the level.
    let mut loose = args.to_vec();
    loose.extend(["--alpha", "0.2"]);
    let s = crate::common::json_of(&loose)["sequential"].clone();
    assert_eq!(s["alpha"].as_f64(), Some(0.2), "{s}");
    let at = s["stopped_at"].as_u64().expect("decided");
    assert!(at < 483, "decided at {at}");
    let (code, out, err) = crate::common::run(&loose);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("80%"), "{out}");
    let err = crate::common::error_of(&["analyze", "--input", path, "--alpha", "1.5"]);
    assert!(err.contains("between 0 and 1"), "{err}");
}
