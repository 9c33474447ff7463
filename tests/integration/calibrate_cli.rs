//! `raterlab calibrate` and `raterlab report` end to end.

use crate::common::{error_of, json_of, run, METRIC_FIELDS};
use serde_json::Value;

fn calibrate_json(args: &[&str]) -> Value {
    let mut all = vec!["calibrate"];
    all.extend(args);
    json_of(&all)
}

#[test]
fn demo_writes_every_export_and_documented_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run");
    let out_s = out.to_str().expect("utf-8");
    let doc = calibrate_json(&["--demo", "--out", out_s, "--bootstrap", "200"]);
    let configs = doc["configs"].as_array().expect("configs");
    assert_eq!(configs.len(), 9, "3 prompts × (basic, sc:5) + 3 baselines");
    assert_eq!(doc["simulated"], true);
    for c in configs {
        for key in [
            "name",
            "prompt",
            "rater",
            "judge",
            "counts",
            "overall",
            "by_subset",
            "sections",
            "cost",
        ] {
            assert!(c.get(key).is_some(), "{key} missing in {}", c["name"]);
        }
        let n = &c["counts"];
        assert_eq!(n["examples"], 43);
        let sum = n["rated"].as_u64().unwrap_or(0)
            + n["no_verdict"].as_u64().unwrap_or(0)
            + n["call_failures"].as_u64().unwrap_or(0);
        assert_eq!(sum, 43, "counts add up for {}", c["name"]);
        let overall = &c["overall"];
        for key in METRIC_FIELDS.iter().copied().chain(["policies"]) {
            assert!(overall.get(key).is_some(), "overall.{key} missing");
        }
        for policy in ["drop", "as_wrong", "as_tie"] {
            assert!(
                overall["policies"][policy]["accuracy"].is_number()
                    || overall["policies"][policy]["accuracy"].is_null()
            );
        }
        assert!(
            c.get("position").is_none(),
            "no position without --both-orders"
        );
        assert_eq!(c["by_subset"].as_object().expect("subsets").len(), 23);
    }
    assert!(
        configs[0]["sections"]["chat-hard"].is_number(),
        "sample covers every reward-bench subset"
    );
    assert!(configs[0]["leaderboard"].is_number());
    let comparisons = doc["comparisons"].as_array().expect("comparisons");
    assert_eq!(comparisons.len(), 36);
    // The best's eight pairs have verdicts; the others say they have none.
    assert!(comparisons
        .iter()
        .all(|c| c["verdict"].as_str().is_some_and(|v| {
            v.contains("accuracy")
                && v.contains("κq")
                && if c["judged"] == true {
                    v.contains("McNemar Holm p ")
                } else {
                    v.contains("McNemar raw p ") && v.contains("unadjusted")
                }
        })));
    assert_eq!(
        comparisons.iter().filter(|c| c["judged"] == true).count(),
        8
    );
    // Ranking honesty: the demo's kappa winner hedges with ties; accuracy crowns another.
    let note = doc["ranking_note"].as_str().expect("ranking note");
    assert!(
        note.contains("kappa (quadratic) ranks raterlab_with_tie/sc:5 first")
            && note.contains("accuracy ranks raterlab_no_tie/basic first")
            && note.contains("answers tie on"),
        "{note}"
    );
    // Power of each accuracy comparison, from its own discordant counts.
    for c in comparisons {
        let n = c["n"].as_f64().expect("n");
        let (only_a, only_b) = (
            c["only_a_right"].as_f64().expect("a"),
            c["only_b_right"].as_f64().expect("b"),
        );
        let psi = (only_a + only_b) / n;
        let got = c["discordance"].as_f64().expect("discordance");
        assert!((got - psi).abs() < 1e-12, "{got} vs {psi}");
        let needed =
            raterlab::metrics::power::mcnemar_items_needed(psi, (only_b - only_a) / n, 0.05, 0.8);
        assert_eq!(
            c["items_needed"].as_f64(),
            needed.is_finite().then(|| needed.ceil())
        );
        let verdict = c["verdict"].as_str().expect("verdict");
        if verdict.contains("no significant difference: accuracy") && needed.is_finite() {
            assert!(
                verdict.contains("items would separate them on accuracy"),
                "{verdict}"
            );
        }
    }
    for file in [
        "metrics.csv",
        "confusion.csv",
        "comparisons.csv",
        "ratings.csv",
        "ratings.parquet",
        "completions.jsonl",
        "run.json",
        "table.tex",
        "metrics.svg",
        "confusion-01-raterlab_no_tie_basic.svg",
    ] {
        assert!(out.join(file).is_file(), "{file} written");
    }
    let metrics = std::fs::read_to_string(out.join("metrics.csv")).expect("metrics");
    assert!(
        metrics.starts_with("config,scope,n,metric,value,ci_lo,ci_hi\n"),
        "{}",
        &metrics[..80]
    );
    let ratings = std::fs::read_to_string(out.join("ratings.csv")).expect("ratings");
    assert_eq!(ratings.lines().count(), 1 + 9 * 43);
    let completions = std::fs::read_to_string(out.join("completions.jsonl")).expect("completions");
    assert_eq!(
        completions.lines().count(),
        43 * (1 + 5) * 3,
        "every sample's raw text is kept"
    );
    let tex = std::fs::read_to_string(out.join("table.tex")).expect("tex");
    assert!(
        tex.contains("\\toprule")
            && tex.contains("raterlab\\_with\\_tie/sc:5")
            && tex.contains("simulated judge")
    );
    insta::assert_snapshot!("demo_table_tex", tex);
    let comparisons = std::fs::read_to_string(out.join("comparisons.csv")).expect("csv");
    insta::assert_snapshot!("demo_comparisons_csv", comparisons);
    let svg = std::fs::read_to_string(out.join("metrics.svg")).expect("svg");
    assert!(svg.starts_with("<svg") && svg.contains("kappa (quadratic) (95% CI)"));

    // `report DIR` re-renders the same results without calling any judge.
    let again = json_of(&["report", out_s]);
    assert_eq!(again["configs"], doc["configs"]);
    assert_eq!(again["comparisons"], doc["comparisons"]);
    let (code, table, err) = run(&["report", out_s]);
    assert_eq!(code, 0, "{err}");
    assert!(table.contains("Paired comparisons") && table.contains("run directory:"));
}

#[test]
fn reasons_for_missing_ratings_are_counted_and_survive_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run");
    let out_s = out.to_str().expect("utf-8");
    let args = [
        "--demo",
        "--judge",
        "sim:malformed=0.3",
        "--rater",
        "basic",
        "--bootstrap",
        "0",
        "--out",
        out_s,
    ];
    let doc = calibrate_json(&args);
    for c in doc["configs"].as_array().expect("configs") {
        let reasons = c["reasons"].as_array().expect("reasons");
        let total: u64 = reasons.iter().filter_map(|r| r["count"].as_u64()).sum();
        let n = &c["counts"];
        let missing =
            n["no_verdict"].as_u64().unwrap_or(0) + n["call_failures"].as_u64().unwrap_or(0);
        assert!(missing > 0, "a 30% malformed rate leaves items unrated");
        assert_eq!(
            total, missing,
            "every unrated item has a reason: {reasons:?}"
        );
        assert!(reasons[0]["reason"].as_str().is_some_and(|r| {
            r.starts_with("unparseable: no <winner> tag")
                || r.starts_with("unparseable: no [[A]], [[B]] or [[C]]")
        }));
    }
    let mut table_args = vec!["calibrate"];
    table_args.extend(args);
    let (code, table, err) = run(&table_args);
    assert_eq!(code, 0, "{err}");
    let section = |t: &str| {
        let start = t.find("Why items have no rating").expect("reasons section");
        let end = t.find("reward-bench sections").expect("next section");
        t[start..end].to_string()
    };
    assert!(section(&table).contains(" × unparseable: no <winner> tag"));
    let (code, again, err) = run(&["report", out_s]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        section(&again),
        section(&table),
        "report DIR shows the same reasons"
    );
}

#[test]
fn both_orders_reports_position_bias_everywhere() {
    let dir = tempfile::tempdir().expect("tempdir");
    let doc = calibrate_json(&[
        "--judge",
        "sim:position_bias=0.4",
        "--both-orders",
        "--prompt",
        "mt-bench_pairwise",
        "--rater",
        "basic",
        "--rater",
        "first",
        "--bootstrap",
        "0",
        "--out",
        dir.path().to_str().expect("utf-8"),
    ]);
    let judge = &doc["configs"][0];
    let pos = &judge["position"];
    assert_eq!(pos["pairs"], 43);
    for key in ["consistency", "first_position_win_rate"] {
        assert!(
            pos[key].as_f64().is_some_and(|v| (0.0..=1.0).contains(&v)),
            "{key}"
        );
    }
    for rule in ["fastchat", "judgebench", "llmbar"] {
        assert!(pos["rules"][rule]["accuracy"].is_number(), "{rule}");
    }
    // The published rules' breakdowns, overall and in every subset, and their denominators.
    let subset_pos = &judge["by_subset"]["math-prm"]["position"];
    for p in [pos, subset_pos] {
        let share = |rule: &str, key: &str| p["rules"][rule][key].as_f64().expect(key);
        let jb = |key: &str| share("judgebench", key);
        assert!((jb("all_correct") + jb("all_incorrect") + jb("some_correct") - 1.0).abs() < 1e-12);
        assert!(
            jb("accuracy") >= jb("all_correct"),
            "one right order and a tie can count"
        );
        assert!(jb("inconsistent") <= 1.0 && jb("missing") <= 1.0);
        assert_eq!(share("llmbar", "correct_both"), jb("all_correct"));
        assert!(share("llmbar", "equal") >= 0.0);
        assert!(p["pairs_both_rated"].as_u64() <= p["pairs"].as_u64());
    }
    assert!(subset_pos["pairs"].as_u64() == Some(4));
    // Always answering "response 1" is perfectly position-biased and never consistent.
    let first = &doc["configs"][1]["position"];
    assert_eq!(first["first_position_win_rate"], 1.0);
    assert_eq!(first["consistency"], 0.0);
    assert_eq!(first["rules"]["llmbar"]["accuracy"], 0.5);
    assert_eq!(first["rules"]["llmbar"]["equal"], 0.0);
    assert_eq!(first["rules"]["judgebench"]["accuracy"], 0.0);
    // Each pair has one right and one wrong order: +1 − 1 = 0, not correct.
    assert_eq!(first["rules"]["judgebench"]["some_correct"], 1.0);
    assert_eq!(first["rules"]["judgebench"]["inconsistent"], 1.0);
    assert_eq!(first["pairs_both_rated"], 43);
}

#[test]
fn misconfiguration_fails_before_any_call() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run");
    let o = out.to_str().expect("utf-8");
    assert!(error_of(&[
        "calibrate",
        "--judge",
        "sim",
        "--prompt",
        "simple",
        "--out",
        o
    ])
    .starts_with("error: unknown prompt 'simple'; built-in prompts are simple_no_tie,"));
    assert_eq!(
        error_of(&["calibrate", "--judge", "sim", "--parser", "json_label", "--out", o]),
        "error: parser 'json_label' does not fit prompt 'simple_with_tie': the prompt never asks for that verdict format; choose a matching --parser or another --prompt"
    );
    assert_eq!(
        error_of(&["calibrate", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m", "--out", o]),
        "error: cannot reach the endpoint http://127.0.0.1:9/v1 (nothing answers at 127.0.0.1:9); is the server running? check --endpoint"
    );
    // --sort is typed when the command line is read: clap's usage error (exit 2), its first
    // line naming the value and the metrics.
    let (code, _, err) = crate::common::run(&["calibrate", "--demo", "--sort", "f1", "--out", o]);
    assert_eq!(
        (code, err.lines().next().unwrap_or("")),
        (2, "error: invalid value 'f1' for '--sort <METRIC>': 'f1' is not a metric; use one of kappa_quadratic, kappa, accuracy, spearman, kendall_tau_b")
    );
    assert_eq!(
        error_of(&["calibrate", "--demo", "--data", "filtered", "--out", o]),
        "error: --demo runs on a bundled sample: sample (pairs), or --data sample-v2 (RewardBench 2); drop --data, or drop --demo"
    );
    assert!(!out.exists(), "nothing was written");
    assert!(error_of(&["report", dir.path().to_str().expect("utf-8")])
        .contains("is not a complete raterlab run directory"));
}

#[test]
fn help_explains_with_examples() {
    for command in ["calibrate", "report", "rate", "analyze", "data", "prompts"] {
        let (code, out, _) = run(&[command, "--help"]);
        assert_eq!(code, 0, "{command}");
        assert!(out.len() > 200, "{command} --help explains itself");
    }
    let (_, out, _) = run(&["calibrate", "--help"]);
    assert!(out.contains("raterlab calibrate --demo") && out.contains("--both-orders"));
}

/// #24's measurement: reward-bench's own functions over `calibrate --demo`'s ratings.csv gave
/// these published scores; the strict ones count a tie or no verdict wrong, and the best
/// configuration changes with the rule.
#[test]
fn demo_scores_under_both_reward_bench_rules() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run");
    let doc = calibrate_json(&[
        "--demo",
        "--out",
        out.to_str().expect("utf-8"),
        "--bootstrap",
        "0",
    ]);
    let score = |name: &str, key: &str| -> f64 {
        let c = doc["configs"]
            .as_array()
            .expect("configs")
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("no configuration {name}"));
        c[key].as_f64().unwrap_or_else(|| panic!("{name}: {key}"))
    };
    for (name, strict, published) in [
        ("raterlab_no_tie/basic", 0.8092, 0.8092),
        ("raterlab_with_tie/basic", 0.7353, 0.7739),
        ("raterlab_with_tie/sc:5", 0.6569, 0.8285),
        ("raterlab_ab_no_tie/sc:5", 0.6131, 0.7825),
        ("baseline/longer", 0.6157, 0.6383),
    ] {
        assert!(
            (score(name, "leaderboard") - strict).abs() < 5e-5,
            "{name} strict"
        );
        assert!(
            (score(name, "leaderboard_published") - published).abs() < 5e-5,
            "{name} published"
        );
    }
    let sc = &doc["configs"].as_array().expect("configs")[0];
    for key in ["chat", "chat-hard", "safety", "reasoning"] {
        assert!(
            sc["sections_published"][key].is_number(),
            "sections_published.{key}"
        );
    }
    assert!(sc["overall"]["published_credit"].is_number());
    assert!(sc["by_subset"]["alpacaeval-easy"]["published_credit"].is_number());
    let csv = std::fs::read_to_string(out.join("metrics.csv")).expect("metrics.csv");
    assert!(
        csv.lines()
            .any(|l| l.contains(",leaderboard,") && l.contains(",published_credit,")),
        "metrics.csv has the published leaderboard"
    );
}
