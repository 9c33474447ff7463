//! Pointwise judges end to end: a mock server that grades single responses in each built-in
//! format (faults included), scores files against a hand computation, and JudgeBench's rule
//! on order-blind scores.

use crate::common::{error_of, json_of, run, write};
use crate::judge_cli::{completion, user_text};
use crate::mock_http::MockServer;
use serde_json::Value;
use std::path::Path;

/// Grades the one response a request holds, in the format its prompt asks for: GOOD high, BAD
/// low, WEIRD unreadable.
fn grade(text: &str) -> String {
    let (good, weird) = (text.contains("GOOD"), text.contains("WEIRD"));
    if text.contains("[[rating]]") {
        match (good, weird) {
            (_, true) => "Rating: high".into(),
            (true, _) => "Clear and correct.\nRating: [[9]]".into(),
            _ => "Wrong.\nRating: [[3]]".into(),
        }
    } else if text.contains("Reply with the score only") {
        assert!(text.contains("Reference answer: the reference"), "{text}");
        match (good, weird) {
            (_, true) => "five".into(),
            (true, _) => "5".into(),
            _ => "2".into(),
        }
    } else {
        match (good, weird) {
            (_, true) => r#"{"label": 2, "reason": "out of contract"}"#.into(),
            (true, _) => r#"{"label": 1, "reason": "correct"}"#.into(),
            _ => r#"```json\n{"label": 0, "reason": "wrong"}\n```"#.into(),
        }
    }
}

/// 10 pairs: 4 with response 1 GOOD (gold −1), 4 with response 2 GOOD (gold 1), one with both
/// GOOD (gold 0: equal grades are a tie), one with a WEIRD response 2 (gold −1).
fn pairs_file(dir: &Path) -> String {
    let mut rows = Vec::new();
    for i in 0..10 {
        let (r1, r2, label) = match i {
            0..=3 => ("GOOD", "BAD", -1),
            4..=7 => ("BAD", "GOOD", 1),
            8 => ("GOOD", "GOOD", 0),
            _ => ("GOOD", "WEIRD", -1),
        };
        rows.push(
            serde_json::json!({
                "id": i, "q": format!("question {i}"), "a": format!("{r1} answer {i}"),
                "b": format!("{r2} answer {i}"), "label": label, "ref": "the reference",
            })
            .to_string(),
        );
    }
    write(dir, "pairs.jsonl", &(rows.join("\n") + "\n"))
        .to_str()
        .expect("utf-8")
        .to_string()
}

const MAP: &str = "prompt=q,response1=a,response2=b,label=label,id=id,reference=ref";

fn calibrate(data: &str, out: &Path, extra: &[&str]) -> Value {
    let mut args = vec![
        "calibrate",
        "--data",
        data,
        "--map",
        MAP,
        "--both-orders",
        "--bootstrap",
        "200",
        "--json",
        "--out",
        out.to_str().expect("utf-8"),
        "--no-cache",
    ];
    args.extend(extra);
    let (code, stdout, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&stdout).expect("JSON")
}

#[test]
fn a_grading_server_gives_the_true_verdicts_in_every_format() {
    let server = MockServer::start(|r| completion(&grade(&user_text(r))));
    let dir = tempfile::tempdir().expect("tempdir");
    let data = pairs_file(dir.path());
    let prompts = ["mt-bench_single", "reference_1-5", "correct_json"];
    let mut extra = vec![
        "--endpoint",
        server.url.as_str(),
        "--model",
        "grader",
        "--rater",
        "basic",
    ];
    for p in prompts {
        extra.extend(["--prompt", p]);
    }
    let doc = calibrate(&data, &dir.path().join("run"), &extra);
    // One call per distinct response and prompt: the two orders share them, and pair 8's two
    // identical answers are one.
    assert_eq!(server.count(), 3 * 19);
    for (config, prompt) in doc["configs"]
        .as_array()
        .expect("configs")
        .iter()
        .zip(prompts)
    {
        let n = &config["counts"];
        assert_eq!(n["examples"], 20, "{prompt}");
        // The WEIRD pair has no grade for one response: no verdict in either order.
        assert_eq!(
            (n["rated"].as_u64(), n["no_verdict"].as_u64()),
            (Some(18), Some(2)),
            "{prompt}"
        );
        assert_eq!(
            config["cost"]["calls"], 19,
            "{prompt}: 19 calls, each counted once"
        );
        // Every readable pair is judged right, the equal pair as a tie.
        assert_eq!(config["overall"]["accuracy"], 1.0, "{prompt}");
        assert_eq!(n["ties"], 2, "{prompt}");
        let pw = &config["overall"]["pointwise"];
        // Pairs with a winner, once each: 8 graded, the WEIRD one missing.
        assert_eq!(
            (pw["pairs"].as_u64(), pw["missing"].as_u64()),
            (Some(8), Some(1)),
            "{prompt}"
        );
        assert_eq!(pw["auc"], 1.0, "{prompt}");
        assert_eq!(pw["equal_grades"], 0.0, "{prompt}");
        // lowest: the WEIRD response takes the scale's minimum, below GOOD: right.
        assert_eq!(pw["missing_rule"]["lowest"]["accuracy"], 1.0, "{prompt}");
        assert_eq!(pw["missing_rule"]["lowest"]["n"], 20, "{prompt}");
        assert_eq!(pw["missing_rule"]["drop"]["n"], 18, "{prompt}");
        assert_eq!(config["position"]["consistency"], 1.0, "{prompt}");
    }
    let reasons: Vec<String> = doc["configs"]
        .as_array()
        .expect("configs")
        .iter()
        .map(|c| c["reasons"][0]["reason"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(
        reasons,
        [
            "unparseable: no [[rating]] such as 'Rating: [[7]]'",
            "unparseable: no score opening the text or after 'Score:'",
            "unparseable: label 2 is not 1 or 0",
        ]
    );
    // The raw grades are kept: ratings.csv has both, completions.jsonl says which response.
    let ratings = std::fs::read_to_string(dir.path().join("run/ratings.csv")).expect("ratings");
    assert!(ratings.lines().next().is_some_and(
        |h| h.ends_with(",grade1,grade2,p_response2,p_reason,expected_grade1,expected_grade2")
    ));
    assert!(ratings.contains("mt-bench_single/basic,0#ab,0,data,as-source,true,-1,-1,rated,2,,completions.jsonl:1-2,9.0,3.0"), "{ratings}");
    let first: Value = serde_json::from_str(
        std::fs::read_to_string(dir.path().join("run/completions.jsonl"))
            .expect("completions")
            .lines()
            .next()
            .expect("a line"),
    )
    .expect("JSON");
    assert_eq!(
        (first["side"].as_u64(), first["grade"].as_f64()),
        (Some(1), Some(9.0))
    );

    // --pointwise-missing lowest rates the WEIRD pair; the report still shows both rules.
    let doc = calibrate(
        &data,
        &dir.path().join("lowest"),
        &[&extra[..], &["--pointwise-missing", "lowest"]].concat(),
    );
    for config in doc["configs"].as_array().expect("configs") {
        assert_eq!(config["counts"]["rated"], 20);
        assert_eq!(
            config["overall"]["pointwise"]["missing_rule"]["drop"]["n"],
            18
        );
    }
    // A tie margin of 10 on a 1-10 scale makes every pair a tie.
    let doc = calibrate(
        &data,
        &dir.path().join("margin"),
        &[
            &extra[..2 * 2 + 2],
            &["--prompt", "mt-bench_single", "--tie-margin", "10"],
        ]
        .concat(),
    );
    assert_eq!(doc["configs"][0]["counts"]["ties"], 18);
}

#[test]
fn pointwise_mistakes_are_named_before_any_call() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = pairs_file(dir.path());
    let template = write(
        dir.path(),
        "p.toml",
        "name = \"p\"\nmode = \"pointwise\"\nparser = \"winner_tag\"\ntemplate = \"{response}\"\n",
    );
    let t = template.to_str().expect("utf-8");
    assert_eq!(
        error_of(&["prompts", "show", t]),
        format!("error: prompt file '{t}': parser 'winner_tag' reads pairwise verdicts, not grades; a pointwise template takes score (1-5), rating ([[1..10]]), final_rating (1-10 ending the answer), binary (yes/no, 1/0), json_label ({{\"label\": 1|0}}) or number")
    );
    write(
        dir.path(),
        "p.toml",
        "name = \"p\"\nmode = \"pointwise\"\nparser = \"score\"\ntemplate = \"{response1}\"\n",
    );
    assert_eq!(
        error_of(&["prompts", "show", t]),
        format!("error: prompt file '{t}': a pointwise template needs {{response}}; use {{prompt}}, {{response}} and optionally {{reference}}")
    );
    write(dir.path(), "p.toml", "name = \"p\"\nmode = \"pointwise\"\nparser = \"score\"\nscale = [5, 1]\ntemplate = \"{response}\"\n");
    assert_eq!(
        error_of(&["prompts", "show", t]),
        format!("error: prompt file '{t}': scale = [5, 1]: the minimum must be below the maximum")
    );
    let out = dir.path().join("run");
    let o = out.to_str().expect("utf-8");
    // Typed when the command line is read: clap's usage error (exit 2), its first line.
    let (code, _, err) = run(&[
        "calibrate",
        "--judge",
        "sim",
        "--prompt",
        "mt-bench_single",
        "--pointwise-missing",
        "one",
        "--out",
        o,
    ]);
    assert_eq!(
        (code, err.lines().next().unwrap_or("")),
        (2, "error: invalid value 'one' for '--pointwise-missing <RULE>': 'one': use drop (no verdict when a grade is missing) or lowest (the scale's lowest grade, context-bench's rule)")
    );
    assert_eq!(
        error_of(&["calibrate", "--judge", "sim", "--prompt", "reference_1-5", "--out", o]),
        "error: prompt 'reference_1-5' uses {reference}, but the data has no reference answers; map a column with --map reference=COL"
    );
    // With a reference column mapped it runs.
    let (code, _, err) = run(&[
        "calibrate",
        "--judge",
        "sim",
        "--data",
        &data,
        "--map",
        MAP,
        "--prompt",
        "reference_1-5",
        "--bootstrap",
        "0",
        "--out",
        o,
    ]);
    assert_eq!(code, 0, "{err}");
}

/// A reward model's scores: equal scores are ties, a missing score leaves the pair without a
/// verdict, and JudgeBench's vote over both orders counts a tie as not correct.
#[test]
fn scores_files_against_a_hand_computation() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = pairs_file(dir.path());
    // By text: pairs 0-3 right (GOOD higher), 4-5 wrong, 6 equal, 7 missing (empty score), the
    // rest scored as GOOD > BAD / WEIRD; pair 8 (gold tie) scored equal.
    let mut csv = String::from("prompt,response,score\n");
    for i in 0..10 {
        let (a, b) = match i {
            0..=3 => ("2.5", "-1"),
            4 | 5 => ("3", "1"),
            6 => ("0.5", "0.5"),
            7 => ("", "4"),
            8 => ("1", "1"),
            _ => ("2", "0"),
        };
        let (r1, r2) = match i {
            0..=3 | 9 => ("GOOD", if i == 9 { "WEIRD" } else { "BAD" }),
            4..=7 => ("BAD", "GOOD"),
            _ => ("GOOD", "GOOD"),
        };
        csv.push_str(&format!(
            "question {i},{r1} answer {i},{a}\nquestion {i},{r2} answer {i},{b}\n"
        ));
    }
    let scores = write(dir.path(), "scores.csv", &csv);
    let judge = format!("scores:{}", scores.display());
    let doc = calibrate(
        &data,
        &dir.path().join("run"),
        &["--judge", &judge, "--rater", "basic"],
    );
    let c = &doc["configs"][0];
    assert_eq!(c["name"], "scores/basic");
    assert_eq!(c["cost"]["calls"], 19);
    // 20 items: pair 7 has no verdict in both orders; 18 rated.
    assert_eq!(
        (
            c["counts"]["rated"].as_u64(),
            c["counts"]["no_verdict"].as_u64()
        ),
        (Some(18), Some(2))
    );
    // Right: pairs 0-3, 8 (tie = tie gold), 9 → 6 pairs × 2 orders = 12 of 18.
    assert!((c["overall"]["accuracy"].as_f64().expect("accuracy") - 12.0 / 18.0).abs() < 1e-12);
    let pos = &c["position"];
    // JudgeBench: +2 for pairs 0-3, 9; −2 for 4, 5; 0 for 6 (tie vs gold 1), 7 (missing) and
    // 8 (tie vs gold 0 counts +2: the label is a tie): correct 6 of 10.
    assert_eq!(pos["rules"]["judgebench"]["accuracy"], 0.6);
    assert_eq!(pos["rules"]["judgebench"]["missing"], 0.1);
    // An order-blind judge agrees with itself on every pair rated in both orders.
    assert_eq!(
        (
            pos["consistency"].as_f64(),
            pos["pairs_both_rated"].as_u64()
        ),
        (Some(1.0), Some(9))
    );
    let pw = &c["overall"]["pointwise"];
    // Pairs with a winner and both scores: 0-6, 9 = 8; gaps 3.5 ×4, −2 ×2, 0, 2 → mean 12/8.
    assert_eq!(
        (pw["pairs"].as_u64(), pw["missing"].as_u64()),
        (Some(8), Some(1))
    );
    assert!((pw["mean_gap"].as_f64().expect("gap") - 12.0 / 8.0).abs() < 1e-12);
    // AUC (5 + ½) / 8; equal grades 1/8.
    assert!((pw["auc"].as_f64().expect("auc") - 5.5 / 8.0).abs() < 1e-12);
    assert!((pw["equal_grades"].as_f64().expect("equal") - 1.0 / 8.0).abs() < 1e-12);
    // No scale: no "lowest" rule.
    assert!(pw["missing_rule"]["lowest"].is_null());
    // The scores' probability: σ(score2 − score1). 18 items have both scores; pair 8's gold is
    // a tie (2 items left out); the gold side gets σ(3.5) on 8 items, σ(−2) on 4, ½ on 2 and
    // σ(2) on 2.
    let p = &c["probability"];
    assert_eq!(p["source"], "scores");
    assert_eq!(
        (
            p["with_probability"].as_u64(),
            p["gold_ties_left_out"].as_u64(),
            p["n"].as_u64()
        ),
        (Some(18), Some(2), Some(16))
    );
    let sigmoid = |x: f64| 1.0 / (1.0 + (-x).exp());
    let soft = (8.0 * sigmoid(3.5) + 4.0 * sigmoid(-2.0) + 1.0 + 2.0 * sigmoid(2.0)) / 16.0;
    assert!((p["expected_accuracy"].as_f64().expect("soft") - soft).abs() < 1e-12);
    // `report DIR` rebuilds the same results from the run directory, grades included.
    let again = json_of(&[
        "report",
        dir.path().join("run").to_str().expect("utf-8"),
        "--bootstrap",
        "200",
    ]);
    assert_eq!(again["configs"], doc["configs"]);

    // A reward model beside an LLM judge in one experiment.
    let experiment = write(
        dir.path(),
        "exp.toml",
        &format!(
            "prompts = [\"mt-bench_single\", \"simple_no_tie\"]\nraters = [\"basic\"]\n[[judge]]\nlabel = \"rm\"\njudge = \"scores:{}\"\n[[judge]]\nlabel = \"llm\"\njudge = \"sim\"\n",
            scores.display()
        ),
    );
    let mixed = json_of(&[
        "calibrate",
        "--config",
        experiment.to_str().expect("utf-8"),
        "--data",
        &data,
        "--map",
        MAP,
        "--both-orders",
        "--bootstrap",
        "0",
        "--out",
        dir.path().join("mixed").to_str().expect("utf-8"),
    ]);
    let names: Vec<&str> = mixed["configs"]
        .as_array()
        .expect("configs")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "rm/scores/basic",
            "llm/mt-bench_single/basic",
            "llm/simple_no_tie/basic"
        ]
    );
    for key in ["accuracy", "kappa_quadratic"] {
        assert_eq!(
            mixed["configs"][0]["overall"][key],
            doc["configs"][0]["overall"][key]
        );
    }
    assert_eq!(
        mixed["configs"][0]["overall"]["pointwise"]["auc"],
        doc["configs"][0]["overall"]["pointwise"]["auc"]
    );
    assert_eq!(mixed["configs"][0]["counts"], doc["configs"][0]["counts"]);
    assert_eq!(mixed["comparisons"].as_array().map(Vec::len), Some(3));

    // The id form: pair_id, side, score.
    let by_id = write(dir.path(), "by-id.jsonl", "{\"pair_id\": \"0\", \"side\": \"first\", \"score\": 1}\n{\"pair_id\": \"0\", \"side\": \"second\", \"score\": 0}\n");
    let judge = format!("scores:{}", by_id.display());
    let doc = json_of(&[
        "calibrate",
        "--data",
        &data,
        "--map",
        MAP,
        "--judge",
        &judge,
        "--bootstrap",
        "0",
        "--out",
        dir.path().join("ids").to_str().expect("utf-8"),
    ]);
    let c = &doc["configs"][0];
    assert_eq!(c["counts"]["rated"], 1);
    assert_eq!(c["counts"]["call_failures"], 9);
    assert!(
        c["reasons"][0]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("no score for the first response of pair 1 in")),
        "{}",
        c["reasons"]
    );

    // Bad scores files.
    let bad = write(dir.path(), "bad.csv", "prompt,response,score\nq,r,high\n");
    assert_eq!(
        error_of(&["calibrate", "--data", &data, "--map", MAP, "--judge", &format!("scores:{}", bad.display()), "--out", dir.path().join("x").to_str().expect("utf-8")]),
        format!("error: '{}', column 'score', row 1: 'high' is not a number; leave it empty for a response without a score", bad.display())
    );
    let bad = write(dir.path(), "bad2.csv", "text,score\nq,1\n");
    assert_eq!(
        error_of(&["calibrate", "--data", &data, "--map", MAP, "--judge", &format!("scores:{}", bad.display()), "--out", dir.path().join("x").to_str().expect("utf-8")]),
        format!("error: '{}' is not a scores file (columns found: text, score); it needs prompt, response, score (or pair_id, side, score)", bad.display())
    );
}
