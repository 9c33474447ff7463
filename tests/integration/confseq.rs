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
