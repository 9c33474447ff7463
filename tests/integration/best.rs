//! The one rule of "the best" (`evaluation::ranking`) on pairs and on RewardBench 2's rows: a
//! configuration that read fewer than half of its answers is not ranked however high its
//! figures, the answer says so and why, and `--json` names the best and those not ranked.

use crate::judge_cli::{completion, user_text};
use crate::mock_http::{MockServer, Reply};
use crate::rewardbench2_judges::{between, by_prompt};

/// A judge whose four-way picks are all readable, right on two rows of three; whose grades of
/// Ties rows are all readable; and who grades each correct completion outside Ties 9 and
/// answers every incorrect one with no grade.
fn judge() -> MockServer {
    let rows = crate::common::list_rows(&crate::common::root().join("data/sample-v2.parquet"));
    let index = by_prompt(rows.iter().map(|r| r.prompt.as_str()));
    MockServer::start(move |r| {
        let text = user_text(r);
        if text.contains("[The Start of Assistant D's Answer]") {
            let prompt = between(&text, "[User Question]\n", "\n\n[The Start of Assistant A");
            let k = index[prompt];
            let right = ["A", "B", "C", "D"]
                .iter()
                .position(|l| {
                    let answer = between(
                        &text,
                        &format!("[The Start of Assistant {l}'s Answer]\n"),
                        &format!("\n[The End of Assistant {l}'s Answer]"),
                    );
                    rows[k].chosen.iter().any(|c| c == answer)
                })
                .expect("a correct one");
            let pick = if k % 3 == 0 { (right + 1) % 4 } else { right };
            return completion(&format!("[[{}]]", ["A", "B", "C", "D"][pick]));
        }
        if text.contains("[Your judgement]") {
            let prompt = between(&text, "[Query]\n", "\n\n[Response]\n");
            let answer = between(&text, "[Response]\n", "\n\n[Your judgement]");
            let row = &rows[index[prompt]];
            let correct = rows
                .iter()
                .any(|r| r.prompt == row.prompt && r.chosen.iter().any(|c| c == answer));
            return completion(match (correct, row.subset == "Ties") {
                (true, _) => "Right.\n\n9",
                (false, true) => "Wrong.\n\n3",
                (false, false) => "Hard to say.",
            });
        }
        Reply::status(400, "unexpected request")
    })
}

#[test]
fn a_configuration_that_read_few_answers_is_not_the_best_however_high_it_scores() {
    let server = judge();
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run");
    let cache = dir.path().join("cache");
    let args = [
        "calibrate",
        "--data",
        "sample-v2",
        "--endpoint",
        &server.url,
        "--model",
        "mock",
        "--prompt",
        "rb2_rating",
        "--prompt",
        "rb2_ranking",
        "--prompt",
        "rb2_ranking_gemini",
        // A grade not read counts below every grade: the rating configuration wins every row
        // on the few grades it read.
        "--pointwise-missing",
        "lowest",
        "--cache-dir",
        cache.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
    ];
    let doc = crate::common::json_of(&args);
    let configs = doc["configs"].as_array().expect("configs");
    let score = |k: usize| configs[k]["rewardbench2"]["score"].as_f64().expect("score");
    let names: Vec<&str> = configs
        .iter()
        .map(|c| c["name"].as_str().expect("name"))
        .collect();
    let (rating, ranking) = (
        names
            .iter()
            .position(|n| n.starts_with("rb2_rating"))
            .expect("rating"),
        names
            .iter()
            .position(|n| n.starts_with("rb2_ranking"))
            .expect("ranking"),
    );
    assert!(
        score(rating) > score(ranking),
        "{} vs {}",
        score(rating),
        score(ranking)
    );
    // Its grades: the 15 correct completions outside Ties and Ties' 21, of 60 + 21.
    let grades = &configs[rating]["read"]["grades"];
    assert_eq!(
        (grades["missing"].as_u64(), grades["of"].as_u64()),
        (Some(45), Some(81))
    );
    assert_eq!(doc["best"], names[ranking]);
    assert_eq!(
        doc["not_ranked"],
        serde_json::json!([{"config": names[rating], "why": "few_readable", "read": 36, "asked": 81}])
    );
    assert_eq!(doc["best_group"][0], names[ranking]);
    // Off the cost chart, as on pairs: the two ranking prompts are its points.
    let frontier = &doc["cost_frontier"];
    assert_eq!(
        frontier["not_ranked"],
        serde_json::json!([names[rating]]),
        "{frontier}"
    );
    assert_eq!(
        frontier["points"].as_array().map(Vec::len),
        Some(2),
        "{frontier}"
    );
    // The terminal's answer: why it is not ranked, then the best.
    let (code, text, err) = crate::common::run(&["report", out.to_str().expect("utf-8")]);
    assert_eq!(code, 0, "{err}");
    let line = |p: &dyn Fn(&str) -> bool| {
        text.lines()
            .position(p)
            .unwrap_or_else(|| panic!("no such line:\n{text}"))
    };
    let not_ranked = line(&|l| {
        l.starts_with(&format!(
            "Not ranked: {} read a pick, verdict or grade in 36 of its 81 answers",
            names[rating]
        ))
    });
    let best = line(&|l| l.starts_with("Best") && l.contains(&format!(": {} on ", names[ranking])));
    assert!(not_ranked < best, "{text}");
}

/// On pairs: a judge right on the few answers it reads (12 of 43) has the highest κq on them,
/// and is not ranked; the steady one is the best, and `--json` says why.
#[test]
fn on_pairs_the_highest_figures_on_few_answers_read_are_not_ranked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let experiment = crate::common::write(
        dir.path(),
        "exp.toml",
        r#"prompts = ["simple_with_tie"]
raters = ["basic"]

[[judge]]
label = "careless"
judge = "sim:accuracy=1.0,malformed=0.7,tie_rate=0"

[[judge]]
label = "steady"
judge = "sim:accuracy=0.75,malformed=0,tie_rate=0"
"#,
    );
    let out = dir.path().join("run");
    let args = [
        "calibrate",
        "--data",
        "sample",
        "--config",
        experiment.to_str().expect("utf-8"),
        "--bootstrap",
        "100",
        "--out",
        out.to_str().expect("utf-8"),
    ];
    let doc = crate::common::json_of(&args);
    let kq = |k: usize| {
        doc["configs"][k]["overall"]["kappa_quadratic"]
            .as_f64()
            .expect("κq")
    };
    let counts = &doc["configs"][0]["overall"]["counts"];
    assert!(kq(0) > kq(1), "{} vs {}", kq(0), kq(1));
    let read = counts["rated"].as_u64().expect("rated");
    let asked = counts["examples"].as_u64().expect("examples");
    assert!(2 * read < asked, "{counts}");
    assert_eq!(
        doc["comparison_family"]["best"],
        "steady/simple_with_tie/basic"
    );
    assert_eq!(
        doc["not_ranked"],
        serde_json::json!([{"config": "careless/simple_with_tie/basic", "why": "few_readable", "read": read, "asked": asked}])
    );
    let (code, text, err) = crate::common::run(&["report", out.to_str().expect("utf-8")]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains(&format!(
            "Not ranked: careless/simple_with_tie/basic read a verdict in {read} of its {asked} items"
        )),
        "{text}"
    );
}
