//! The terminal is an interface: in a real pseudo-terminal of 80, 100 and 120 columns (util-linux
//! `script`, `stty cols`), `calibrate --demo` and its RewardBench 2 demo print no line wider
//! than the terminal, and the first 45 lines name the best configuration and its paired
//! verdict against the runner-up. Piped, the output keeps full lines and every table.

use crate::common::{root, run};

/// raterlab's stdout in a pty `cols` wide (stderr, the progress bars, dropped).
fn in_pty(cols: usize, args: &[&str]) -> String {
    let bin = assert_cmd::cargo::cargo_bin("raterlab");
    let command = format!(
        "stty cols {cols} rows 50; '{}' {} 2>/dev/null",
        bin.display(),
        args.iter()
            .map(|a| format!("'{a}'"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let out = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(root())
        .env_remove("COLUMNS")
        .output()
        .expect("util-linux `script` runs (Debian's bsdutils)");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n")
}

fn fits(text: &str, cols: usize) {
    let wide: Vec<(usize, &str)> = text
        .lines()
        .filter(|l| console::measure_text_width(l) > cols)
        .map(|l| (console::measure_text_width(l), l))
        .collect();
    assert!(
        wide.is_empty(),
        "{} lines wider than {cols}: {wide:?}",
        wide.len()
    );
}

#[test]
fn the_demos_fit_the_terminal_and_answer_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    for cols in [80, 100, 120] {
        let out = dir.path().join(format!("pairs-{cols}"));
        let pairs = in_pty(
            cols,
            &["calibrate", "--demo", "--out", out.to_str().expect("utf-8")],
        );
        fits(&pairs, cols);
        // The first 45 lines, as prose (a wrapped line joins the next).
        let first: Vec<&str> = pairs.lines().take(45).collect();
        let first = first.join(" ");
        assert!(
            first.contains("Best: raterlab_with_tie/sc:5 (sim) on kappa (quadratic)"),
            "{first}"
        );
        assert!(
            first.contains("Against the runner-up (raterlab_no_tie/sc:5")
                && first.contains("no significant difference"),
            "{first}"
        );
        assert!(
            first.contains("Baselines (kappa (quadratic)): baseline/longer"),
            "{first}"
        );
        assert!(first.contains("SIMULATED"), "{first}");
        // The detailed tables wait for --details on a terminal.
        assert!(!pairs.contains("Confusion matrices"), "{pairs}");
        let out = dir.path().join(format!("rb2-{cols}"));
        let rb2 = in_pty(
            cols,
            &[
                "calibrate",
                "--demo",
                "--data",
                "sample-v2",
                "--out",
                out.to_str().expect("utf-8"),
            ],
        );
        fits(&rb2, cols);
        let first: Vec<&str> = rb2.lines().take(45).collect();
        let first = first.join(" ");
        assert!(
            first.contains("Best: rb2_ranking/basic (sim) on the leaderboard"),
            "{first}"
        );
        assert!(
            first.contains("Against the runner-up (rb2_rating/basic (sim)"),
            "{first}"
        );
    }
    // --details on a terminal: every table, still fitted.
    let out = dir.path().join("details");
    let details = in_pty(
        100,
        &[
            "calibrate",
            "--demo",
            "--details",
            "--out",
            out.to_str().expect("utf-8"),
        ],
    );
    fits(&details, 100);
    assert!(details.contains("Confusion matrices"));
}

#[test]
fn piped_output_keeps_full_lines_and_every_table() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run");
    let (code, text, err) = run(&["calibrate", "--demo", "--out", out.to_str().expect("utf-8")]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("Confusion matrices") && text.contains("Spearman"));
    assert!(text.lines().any(|l| console::measure_text_width(l) > 120));
    assert!(text.starts_with("raterlab calibrate: 9 configurations"));
    // The answer first. On 43 items the best judge's κq is above the longer-response
    // baseline's by an interval far from 0 (#53: it used to read "not told apart" beside
    // κq -0.56 [-0.83, -0.28], its bootstrap p floored at 2/1001), so the best is named first.
    assert!(
        text.lines().nth(3).is_some_and(|l| l.starts_with("Best: ")),
        "{text}"
    );
    assert!(!text.contains("not told apart"), "{text}");
}

/// A judge that always answers response 1 agrees with gold no better than chance (κq 0): the
/// answer says so before it names a best.
#[test]
fn a_judge_at_chance_is_said_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let items = dir.path().join("items.jsonl");
    let (code, _, err) = run(&["data", "export", "--out", items.to_str().expect("utf-8")]);
    assert_eq!(code, 0, "{err}");
    let recordings: String = std::fs::read_to_string(&items)
        .expect("export")
        .lines()
        .map(|l| {
            let e: serde_json::Value = serde_json::from_str(l).expect("item");
            let r = serde_json::json!({"prompt": e["prompt"], "response1": e["response1"],
                "response2": e["response2"], "completion": "[[A]]"});
            format!("{r}\n")
        })
        .collect();
    let rec = dir.path().join("rec.jsonl");
    std::fs::write(&rec, recordings).expect("recordings");
    let (code, text, err) = run(&[
        "calibrate",
        "--judge",
        &format!("replay:{}", rec.display()),
        "--prompt",
        "mt-bench_pairwise",
        "--rater",
        "basic",
        "--rater",
        "longer",
        "--out",
        dir.path().join("run").to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{err}");
    let first = text.lines().nth(2).unwrap_or_default();
    assert!(
        first.starts_with(
            "No configuration is distinguishable from chance: no judge's κq interval lies above 0"
        ),
        "{text}"
    );
    assert!(
        text.lines().nth(3).is_some_and(|l| l.starts_with("Best: ")),
        "{text}"
    );
}

/// A wide table leaves out its secondary columns before it would break a number across lines:
/// with both orders at 80 or 100 columns, the position-bias table showed "0.539" over "7" (found on a
/// real llama.cpp session). Every configuration's figures appear whole, as `--json` has them.
#[test]
fn a_narrow_terminal_never_breaks_a_number() {
    let dir = tempfile::tempdir().expect("tempdir");
    for cols in [80, 100] {
        let out = dir.path().join(format!("run-{cols}"));
        let out = out.to_str().expect("utf-8");
        let text = in_pty(
            cols,
            &[
                "calibrate",
                "--demo",
                "--both-orders",
                "--details",
                "--out",
                out,
            ],
        );
        fits(&text, cols);
        let table = text
            .split("Position bias (both orders)")
            .nth(1)
            .and_then(|t| t.split("\n\n").next())
            .expect("the position-bias table");
        assert!(
            table
                .replace('\n', " ")
                .contains(&format!("left out at {cols} columns")),
            "{table}"
        );
        let doc = crate::common::json_of(&["report", out]);
        let configs = doc["configs"].as_array().expect("configs");
        assert_eq!(configs.len(), 9);
        for c in configs {
            let p = &c["overall"]["position"];
            let fastchat = &p["rules"]["fastchat"]["accuracy"];
            for (key, v) in [
                ("consistency", &p["consistency"]),
                ("first_position_win_rate", &p["first_position_win_rate"]),
                ("fastchat accuracy", fastchat),
            ] {
                let shown = format!("{:.4}", v.as_f64().expect(key));
                assert!(
                    table.contains(&shown),
                    "{} {key} {shown}:\n{table}",
                    c["name"]
                );
            }
        }
    }
}
