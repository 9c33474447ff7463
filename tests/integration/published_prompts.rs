//! Built-ins under published names send what their sources send, byte for byte: the requests
//! a mock OpenAI server receives equal the messages `tests/fixtures/generate_prompt_fixtures.py`
//! renders with each source's own code, for pairs with a code block, braces, quotes,
//! placeholder names and trailing newlines, in both orders (pointwise: each response).

use crate::common::{fixture, raterlab};
use crate::judge_cli::completion;
use crate::mock_http::MockServer;
use serde_json::Value;
use std::collections::BTreeMap;

fn expected() -> Value {
    let text = std::fs::read_to_string(fixture("published_prompts.json")).expect("fixture");
    serde_json::from_str(&text).expect("fixture JSON")
}

/// The fixture's pairs as a JSONL data file (reward-bench's columns), with their reference
/// answers or without.
fn pairs_file(dir: &std::path::Path, fixture: &Value, reference: bool) -> std::path::PathBuf {
    let lines: Vec<String> = fixture["pairs"]
        .as_array()
        .expect("pairs")
        .iter()
        .map(|p| {
            let mut row = serde_json::json!({
                "id": p["id"], "prompt": p["prompt"], "chosen": p["chosen"],
                "rejected": p["rejected"], "subset": "awkward",
                "chosen_model": "a", "rejected_model": "b",
            });
            if reference {
                row["reference"] = p["reference"].clone();
                row["label"] = serde_json::json!(-1);
            }
            row.to_string()
        })
        .collect();
    let path = dir.join(if reference {
        "with-reference.jsonl"
    } else {
        "awkward.jsonl"
    });
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    path
}

/// Each request's `messages`, as sent, sorted (the order of concurrent requests is free).
fn sent(server: &MockServer) -> Vec<String> {
    let mut all: Vec<String> = server
        .requests
        .lock()
        .expect("log")
        .iter()
        .map(|r| {
            let body: Value = serde_json::from_slice(&r.body).expect("a JSON body");
            body["messages"].to_string()
        })
        .collect();
    all.sort();
    all
}

/// Rates the awkward pairs with `prompt` against a mock server; the requests' messages.
pub fn requests_of(prompt: &str, reference: bool, answer: &'static str) -> Vec<String> {
    let fixture = expected();
    let dir = tempfile::tempdir().expect("tempdir");
    let data = pairs_file(dir.path(), &fixture, reference);
    let server = MockServer::start(move |_| completion(answer));
    let out = dir.path().join("ratings.csv");
    let url = format!("{}/v1", server.url);
    let mut args = vec![
        "rate",
        "--endpoint",
        &url,
        "--model",
        "judge",
        "--data",
        data.to_str().expect("utf-8"),
        "--both-orders",
        "--no-cache",
        "--prompt",
        prompt,
        "--out",
        out.to_str().expect("utf-8"),
    ];
    if reference {
        args.extend_from_slice(&[
            "--map",
            "prompt=prompt,response1=chosen,response2=rejected,label=label,reference=reference,id=id,subset=subset",
        ]);
    }
    let output = raterlab(&args).output().expect("rate runs");
    assert!(
        output.status.success(),
        "{prompt}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    sent(&server)
}

/// The fixture's messages for `prompt`, sorted like `sent`.
pub fn rendered(prompt: &str) -> Vec<String> {
    let fixture = expected();
    let requests = &fixture["prompts"][prompt]["requests"];
    let by_pair: BTreeMap<String, Value> =
        serde_json::from_value(requests.clone()).expect("requests by pair");
    let mut all: Vec<String> = by_pair
        .values()
        .flat_map(|r| r.as_array().expect("a pair's requests").clone())
        .map(|m| m.to_string())
        .collect();
    all.sort();
    all
}

#[test]
fn the_five_built_ins_under_published_names_send_their_sources_bytes() {
    for (prompt, answer) in [
        ("simple_no_tie", "<winner>1</winner>"),
        ("simple_with_tie", "<tie>"),
        ("reward-bench_gemini_no_tie", "[[B]]"),
        ("mt-bench_pairwise", "[[C]]"),
        ("mt-bench_single", "Rating: [[6]]"),
    ] {
        let want = rendered(prompt);
        assert_eq!(want.len(), 6, "{prompt}: three pairs, two requests each");
        let got = requests_of(prompt, false, answer);
        // A pointwise judge asks each response once, whichever order shows it.
        let mut got_distinct = got.clone();
        got_distinct.dedup();
        assert_eq!(
            got_distinct, want,
            "{prompt}: the requests differ from the source's"
        );
    }
}

/// The presets send what their projects' own code renders, with and without a reference
/// answer where the project has both forms.
#[test]
fn every_preset_sends_its_projects_bytes() {
    for (prompt, reference, answer) in [
        ("prometheus2_relative", false, "Feedback: fine. [RESULT] A"),
        ("prometheus2_relative", true, "Feedback: fine. [RESULT] B"),
        ("prometheus2_absolute", false, "Feedback: fine. [RESULT] 4"),
        ("prometheus2_absolute", true, "Feedback: fine. [RESULT] 2"),
        ("judgelm", false, "8 7\nThe first is better."),
        ("judgelm", true, "7 7\nBoth."),
        ("pandalm", false, "Tie\n\n### Reason: both"),
        (
            "autoj_pairwise",
            false,
            "So, the final decision is Response 2",
        ),
        ("autoj_single", false, "Rating: [[6]]"),
        ("skywork_critic", false, "[[A]]"),
        ("offsetbias", false, "Output (b)"),
    ] {
        let key = if reference {
            format!("{prompt}+reference")
        } else {
            prompt.to_string()
        };
        let want = rendered(&key);
        assert_eq!(want.len(), 6, "{key}");
        let mut got = requests_of(prompt, reference, answer);
        got.dedup();
        assert_eq!(got, want, "{key}: the requests differ from the project's");
    }
}

/// The presets' parsers read every recorded and constructed answer as their projects' own
/// readers do; where raterlab's rule differs from a project's fallback, the default counts the
/// answer unreadable and the `_tie` / `_judgebench` parser is the project's rule.
#[test]
fn the_presets_parsers_agree_with_their_projects_readers() {
    use raterlab::verdicts::{Parser, Verdict};
    let fixture = expected();
    let parser = |name: &str| Parser::from_name(name).unwrap_or_else(|| panic!("parser {name}"));
    let verdict = |p: &Parser, text: &str| match p.parse(text) {
        Verdict::Rated(v) => Some(v),
        _ => None,
    };
    let mut checked = 0;
    for (family, entries) in fixture["parsers"].as_object().expect("parsers") {
        for e in entries.as_array().expect("entries") {
            let text = e["answer"].as_str().expect("answer");
            let fallback = e["fallback"].as_bool().unwrap_or(false);
            checked += 1;
            match family.as_str() {
                "prometheus_absolute" | "autoj_rating" => {
                    let project = e["project"].as_f64();
                    let strict = if fallback { None } else { project };
                    assert_eq!(
                        parser(family).grade(text).ok(),
                        strict,
                        "{family}: {text:?}"
                    );
                }
                "judgelm" | "pandalm" => {
                    let project = e["project"].as_i64();
                    let strict = if fallback { None } else { project };
                    assert_eq!(verdict(&parser(family), text), strict, "{family}: {text:?}");
                    let theirs = parser(&format!("{family}_tie"));
                    assert_eq!(verdict(&theirs, text), project, "{family}_tie: {text:?}");
                }
                "skywork_critic" => {
                    let project = e["project"].as_i64();
                    let judgebench = parser("skywork_critic_judgebench");
                    assert_eq!(verdict(&judgebench, text), project, "judgebench: {text:?}");
                    // raterlab's default: exactly one of the two tags.
                    let strict = match (text.contains("[[A]]"), text.contains("[[B]]")) {
                        (true, false) => Some(-1),
                        (false, true) => Some(1),
                        _ => None,
                    };
                    assert_eq!(verdict(&parser(family), text), strict, "{family}: {text:?}");
                }
                _ => {
                    let project = e["project"].as_i64();
                    assert_eq!(
                        verdict(&parser(family), text),
                        project,
                        "{family}: {text:?}"
                    );
                }
            }
        }
    }
    assert!(checked > 400, "{checked} answers");
}

/// `prompts show` names a published prompt's source (repository, file, commit) and prints the
/// text as sent; raterlab's own wordings say so.
#[test]
fn prompts_show_names_each_source() {
    let (code, out, err) = crate::common::run(&["prompts", "show", "simple_no_tie"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("# sent byte for byte as published by GoogleCloudPlatform/generative-ai (Apache-2.0):")
            && out.contains("PROMPT_MAP[\"simple_no_tie\"]")
            && out.contains("blob/084626aa7389f68be1f3439344b17df75f636e52/gemini/evaluation/evaltask_approach/evaluate_autorater.ipynb")
            && out.contains("[Start of Prompt]{prompt} [end of  prompt]"),
        "{out}"
    );
    for (name, repo) in [
        ("mt-bench_single", "lm-sys/FastChat"),
        ("prometheus2_relative", "prometheus-eval/prometheus-eval"),
        ("judgelm", "baaivision/JudgeLM"),
        ("pandalm", "WeOpenML/PandaLM"),
        ("autoj_pairwise", "GAIR-NLP/auto-j"),
        ("skywork_critic", "ScalerLab/JudgeBench"),
        ("offsetbias", "ncsoft/offsetbias"),
    ] {
        let (_, out, _) = crate::common::run(&["prompts", "show", name]);
        assert!(
            out.contains(&format!("as published by {repo}")),
            "{name}: {out}"
        );
    }
    let (_, out, _) = crate::common::run(&["prompts", "show", "raterlab_no_tie"]);
    assert!(out.contains("# raterlab's wording"), "{out}");
    let (_, toml, _) = crate::common::run(&["prompts", "show", "judgelm", "--toml"]);
    assert!(
        toml.starts_with("# copied from baaivision/JudgeLM"),
        "{toml}"
    );
}

/// `prompts list` names the presets and their parsers, and fits a 100-column terminal.
#[test]
fn prompts_list_shows_the_presets_within_100_columns() {
    let output = crate::common::raterlab(&["prompts", "list"])
        .env("COLUMNS", "100")
        .output()
        .expect("prompts list runs");
    let text = String::from_utf8_lossy(&output.stdout);
    for name in [
        "prometheus2_relative",
        "judgelm_tie",
        "pandalm",
        "raterlab_no_tie",
        "offsetbias",
    ] {
        assert!(text.contains(name), "{name} missing:\n{text}");
    }
    let widest = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    assert!(widest <= 100, "{widest} columns:\n{text}");
}
