//! `analyze --annotators`: several annotators per item, their agreement, the human ceiling
//! and the judge beside it, on PandaLM's real test set (three annotators, GPT-3.5 as the
//! judge) and on hand-made files (missing votes, items without a majority, bad input).

use crate::common::{close, error_of, fixture, json_of, run, shared_data, write};
use serde_json::{json, Value};

fn fixture_doc() -> Value {
    serde_json::from_str(&std::fs::read_to_string(fixture("metrics.json")).expect("fixture"))
        .expect("JSON")
}

/// PandaLM's test set with GPT-3.5's verdict beside the three annotators, one row per item.
fn pandalm_panel(dir: &std::path::Path) -> Option<String> {
    let shared = shared_data()?;
    let read = |name: &str| -> Vec<Value> {
        std::fs::read_to_string(shared.join("pandalm").join(name))
            .expect("PandaLM file")
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).expect("JSON line"))
            .collect()
    };
    let gpt: std::collections::HashMap<i64, Value> = read("gpt-3.5-turbo-testset-v1.jsonl")
        .into_iter()
        .map(|r| (r["idx"].as_i64().expect("idx"), r["gpt_result"].clone()))
        .collect();
    let rows: String = read("testset-v1.jsonl")
        .iter()
        .map(|r| {
            let idx = r["idx"].as_i64().expect("idx");
            format!(
                "{}\n",
                json!({"idx": idx, "annotator1": r["annotator1"], "annotator2": r["annotator2"],
                       "annotator3": r["annotator3"], "gpt": gpt.get(&idx).cloned().unwrap_or(Value::Null)})
            )
        })
        .collect();
    Some(
        write(dir, "pandalm-panel.jsonl", &rows)
            .to_string_lossy()
            .into_owned(),
    )
}

const PANDALM: [&str; 12] = [
    "--annotators",
    "annotator1,annotator2,annotator3",
    "--gold-map",
    "0=0,1=-1,2=1",
    "--rating-col",
    "gpt",
    "--rating-map",
    "1=-1,2=1,Tie=0",
    "--unreadable",
    "drop",
    "--id-col",
    "idx",
];

#[test]
fn pandalm_reproduces_the_published_kappa_table_and_the_references() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(panel) = pandalm_panel(dir.path()) else {
        return;
    };
    let csv = dir.path().join("metrics.csv");
    let mut args = vec!["analyze", "--input", &panel, "--json", "--bootstrap", "200"];
    args.extend(PANDALM);
    let csv_s = csv.to_string_lossy().into_owned();
    args.extend(["--csv", &csv_s]);
    let doc = json_of(&args);
    let a = &doc["annotators"];
    // PandaLM's paper: Cohen's kappa 0.85 (1-2), 0.88 (1-3), 0.86 (2-3).
    let k = |i: usize, j: usize| a["pairwise_kappa"][i][j].as_f64().expect("kappa");
    let published = [((0, 1), 0.85), ((0, 2), 0.88), ((1, 2), 0.86)];
    for ((i, j), p) in published {
        assert!(
            (k(i, j) - p).abs() < 0.005,
            "kappa {i}-{j}: {} vs {p}",
            k(i, j)
        );
        assert_eq!(k(i, j), k(j, i));
    }
    // Every figure equals the references (statsmodels, krippendorff, irrCAC, sklearn, and the
    // ceiling's definitions in plain Python).
    let want = &fixture_doc()["real_annotators"];
    for key in [
        "fleiss_kappa",
        "krippendorff_alpha_nominal",
        "krippendorff_alpha_ordinal",
        "gwet_ac1",
    ] {
        close(&a[key], &want[key], key);
    }
    for i in 0..3 {
        for j in 0..3 {
            close(
                &a["pairwise_kappa"][i][j],
                &want["pairwise_kappa"][i][j],
                "pairwise",
            );
        }
    }
    let judge = &doc["judge_vs_annotators"];
    for form in ["leave_one_out", "per_vote", "per_vote_no_ties"] {
        close(&a["ceiling"][form], &want["ceiling"][form], form);
        close(&judge[form], &want["judge"][form], form);
        let ratio = judge["ratio"][form].as_f64().expect("ratio");
        let expected = want["judge"][form].as_f64().expect("judge")
            / want["ceiling"][form].as_f64().expect("human");
        assert!((ratio - expected).abs() < 1e-12);
        let ci = &a["ci"]["ceiling"][form];
        let (lo, hi) = (ci[0].as_f64().expect("lo"), ci[1].as_f64().expect("hi"));
        let v = a["ceiling"][form].as_f64().expect("value");
        assert!(lo <= v && v <= hi, "{form}: {v} not in [{lo}, {hi}]");
    }
    for i in 0..3 {
        close(
            &judge["kappa_per_annotator"][i],
            &want["judge_kappa_per_annotator"][i],
            "judge kappa",
        );
    }
    // The judge against the majority equals the two-file analysis of the same data.
    let case = fixture_doc()["real_data"]
        .as_array()
        .expect("cases")
        .iter()
        .find(|c| c["name"] == "pandalm_majority_vs_gpt35")
        .cloned()
        .expect("case");
    for key in [
        "accuracy",
        "kappa",
        "kappa_quadratic",
        "spearman",
        "kendall_tau_b",
    ] {
        close(&doc[key], &case["expected"][key], key);
    }
    assert_eq!(doc["n"], case["expected"]["n"]);
    assert_eq!(a["no_majority"], 0);
    // Unanimous and split items are reported apart and add up to the scored items.
    let (u, s) = (
        judge["unanimous"]["n"].as_u64(),
        judge["split"]["n"].as_u64(),
    );
    assert_eq!(u.zip(s).map(|(u, s)| u + s), doc["n"].as_u64());
    assert!(
        judge["unanimous"]["accuracy"].as_f64() > judge["split"]["accuracy"].as_f64(),
        "a judge agrees more where humans do"
    );
    // The CSV carries the same figures.
    let text = std::fs::read_to_string(&csv).expect("csv");
    for needle in [
        "annotators,999,fleiss_kappa,",
        "annotators,999,kappa:annotator1:annotator2,",
        "annotators,999,ceiling_per_vote,",
        "judge_vs_annotators,999,ratio_leave_one_out,",
        "judge_vs_annotators,999,kappa:annotator3,",
        "unanimous,",
        "split,",
    ] {
        assert!(text.contains(needle), "{needle} missing from\n{text}");
    }
    // The terminal shows the section.
    let mut args = vec!["analyze", "--input", &panel, "--bootstrap", "0"];
    args.extend(PANDALM);
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    for needle in [
        "Pairwise Cohen's kappa between annotators",
        "0.8520",
        "Human ceiling and the judge",
        "judge ÷ human",
        "split items (the majority)",
    ] {
        assert!(out.contains(needle), "{needle} missing from\n{out}");
    }
}

#[test]
fn missing_votes_and_items_without_a_majority_follow_the_stated_policy() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Item 3 splits three ways; item 4 has one vote missing; item 5 two votes missing.
    let file = write(
        dir.path(),
        "panel.csv",
        "id,a,b,c,judge\n1,1,1,1,1\n2,-1,-1,1,-1\n3,-1,0,1,0\n4,1,,1,1\n5,,,-1,1\n6,0,0,-1,0\n",
    );
    let path = file.to_string_lossy().into_owned();
    let analyze = |extra: &[&str]| -> Value {
        let mut args = vec![
            "analyze",
            "--input",
            &path,
            "--annotators",
            "a,b,c",
            "--rating-col",
            "judge",
            "--json",
            "--bootstrap",
            "0",
        ];
        args.extend_from_slice(extra);
        json_of(&args)
    };
    let dropped = analyze(&[]);
    assert_eq!(dropped["annotators"]["no_majority"], 1);
    assert_eq!(dropped["annotators"]["no_majority_policy"], "drop");
    assert_eq!(dropped["n"], 5, "the split item is left out");
    // Item 5's only vote (-1) is its majority; the judge says 1.
    assert_eq!(dropped["accuracy"], 0.8);
    let tied = analyze(&["--no-majority", "tie"]);
    assert_eq!(tied["n"], 6);
    assert_eq!(tied["annotators"]["no_majority_policy"], "tie");
    // The split item scored as a tie: the judge said 0, so it counts as right.
    assert!((tied["accuracy"].as_f64().expect("acc") - 5.0 / 6.0).abs() < 1e-12);
    // Per vote by hand: pairs 3 + 3 + 3 + 1 + 0 + 3 = 13, equal 3 + 1 + 0 + 1 + 1 = 6.
    close(
        &dropped["annotators"]["ceiling"]["per_vote"],
        &json!(6.0 / 13.0),
        "per vote",
    );
    // Unanimous: items 1 and 4 (two or more votes, all equal); split: 2 and 6; item 5 has one
    // vote and item 3 no majority.
    assert_eq!(dropped["judge_vs_annotators"]["unanimous"]["n"], 2);
    assert_eq!(dropped["judge_vs_annotators"]["split"]["n"], 2);
}

#[test]
fn annotator_options_are_checked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write(dir.path(), "p.csv", "id,a,b,judge\n1,1,x,1\n2,1,1,1\n");
    let path = file.to_string_lossy().into_owned();
    // (annotators, extra options, what the error names)
    let cases: [(&str, &[&str], &[&str]); 4] = [
        ("a", &[], &["--annotators needs two or more columns"]),
        ("a,zz", &[], &["zz"]),
        ("a,b", &[], &["column 'b', row 1", "'x'"]),
        (
            "a,b",
            &["--no-majority", "coin"],
            &["invalid value 'coin' for '--no-majority"],
        ),
    ];
    for (annotators, extra, named) in cases {
        let mut args = vec![
            "analyze",
            "--input",
            &path,
            "--annotators",
            annotators,
            "--rating-col",
            "judge",
        ];
        args.extend_from_slice(extra);
        let e = error_of(&args);
        assert!(named.iter().all(|n| e.contains(n)), "{e}");
    }
    let (code, _, err) = run(&[
        "analyze",
        "--gold",
        &path,
        "--ratings",
        &path,
        "--annotators",
        "a,b",
    ]);
    assert_eq!(code, 2, "{err}");
    // Reading the unreadable vote as missing makes the file usable.
    let doc = json_of(&[
        "analyze",
        "--input",
        &path,
        "--annotators",
        "a,b",
        "--rating-col",
        "judge",
        "--unreadable",
        "drop",
        "--bootstrap",
        "0",
    ]);
    assert_eq!(doc["annotators"]["items"], 2);
}

const PANDALM_MAP: &str = "prompt=instruction+input,response1=response1,response2=response2,label=annotator1+annotator2+annotator3,id=idx";

#[test]
fn calibrate_and_data_summary_carry_the_annotators() {
    let Some(shared) = shared_data() else { return };
    let data = shared
        .join("pandalm/testset-v1.jsonl")
        .to_string_lossy()
        .into_owned();
    let dir = tempfile::tempdir().expect("tempdir");
    let run_dir = dir.path().join("run").to_string_lossy().into_owned();
    let calibrate = |extra: &[&str]| -> Value {
        let mut args = vec![
            "calibrate",
            "--data",
            &data,
            "--map",
            PANDALM_MAP,
            "--gold-map",
            "0=0,1=-1,2=1",
            "--judge",
            "sim",
            "--rater",
            "basic",
            "--rater",
            "first",
            "--bootstrap",
            "100",
            "--json",
            "--out",
            &run_dir,
        ];
        args.extend_from_slice(extra);
        json_of(&args)
    };
    let one = calibrate(&[]);
    let want = &fixture_doc()["real_annotators"];
    for c in one["configs"].as_array().expect("configs") {
        let a = &c["annotators"];
        close(&a["fleiss_kappa"], &want["fleiss_kappa"], "fleiss");
        close(&a["gwet_ac1"], &want["gwet_ac1"], "gwet");
        close(
            &a["ceiling"]["per_vote"],
            &want["ceiling"]["per_vote"],
            "per vote",
        );
        let j = &c["judge_vs_annotators"];
        assert!(
            j["per_vote"].as_f64().is_some() && j["ratio"]["per_vote"].as_f64().is_some(),
            "{j}"
        );
        assert_eq!(j["kappa_per_annotator"].as_array().map(Vec::len), Some(3));
    }
    // `report DIR` rebuilds the same figures from the run directory.
    let again = json_of(&["report", &run_dir]);
    for (x, y) in one["configs"]
        .as_array()
        .expect("configs")
        .iter()
        .zip(again["configs"].as_array().expect("configs"))
    {
        assert_eq!(x["annotators"], y["annotators"]);
        assert_eq!(x["judge_vs_annotators"], y["judge_vs_annotators"]);
    }
    let csv = std::fs::read_to_string(dir.path().join("run/metrics.csv")).expect("metrics.csv");
    assert!(
        csv.contains("annotators,999,kappa:annotator1:annotator2,")
            && csv.contains("judge_vs_annotators,999,ratio_per_vote,"),
        "{csv}"
    );
    // Both orders: each annotator's label flips with the order, so agreement shares are
    // unchanged (every pair counted twice).
    let both = calibrate(&["--both-orders"]);
    for form in ["leave_one_out", "per_vote", "per_vote_no_ties"] {
        close(
            &both["configs"][0]["annotators"]["ceiling"][form],
            &one["configs"][0]["annotators"]["ceiling"][form],
            form,
        );
    }
    // `first` always names response 1, and both orders flip every vote: it agrees with
    // each non-tie vote in exactly one of the two orders, so its per-vote agreement is half
    // the share of votes that are not ties.
    let first = both["configs"]
        .as_array()
        .expect("configs")
        .iter()
        .find(|c| c["rater"] == "first")
        .expect("first");
    let votes: Vec<String> = want["votes"]
        .as_array()
        .expect("votes")
        .iter()
        .flat_map(|row| {
            row.as_str()
                .expect("row")
                .split(' ')
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    let not_ties = votes.iter().filter(|v| *v != "1").count() as f64 / votes.len() as f64;
    close(
        &first["judge_vs_annotators"]["per_vote"],
        &json!(not_ties / 2.0),
        "first's per vote",
    );
    // data summary shows the annotators.
    let (code, out, err) = run(&[
        "data",
        "summary",
        "--data",
        &data,
        "--map",
        PANDALM_MAP,
        "--gold-map",
        "0=0,1=-1,2=1",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Pairwise Cohen's kappa between annotators")
            && out.contains("0.8520")
            && out.contains("Human ceiling"),
        "{out}"
    );
    // Its intervals follow --bootstrap, as calibrate's do: none with 0, the figures unchanged.
    let interval = regex::Regex::new(r"0\.8520 \[0\.\d{4}, 0\.\d{4}\]").expect("regex");
    assert!(interval.is_match(&out), "{out}");
    let (code, bare, err) = run(&[
        "data",
        "summary",
        "--data",
        &data,
        "--map",
        PANDALM_MAP,
        "--gold-map",
        "0=0,1=-1,2=1",
        "--bootstrap",
        "0",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        bare.contains("0.8520") && !interval.is_match(&bare),
        "{bare}"
    );
}

#[test]
fn calibrate_no_majority_policy_keeps_split_pairs_as_ties() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write(
        dir.path(),
        "panel.csv",
        "id,q,r1,r2,a,b,c\n1,Q1,x,yy,1,1,2\n2,Q2,xx,y,0,1,2\n3,Q3,x,y,2,2,2\n",
    );
    let path = file.to_string_lossy().into_owned();
    let summary = |policy: &str| -> (String, Value) {
        let out_dir = dir.path().join(policy).to_string_lossy().into_owned();
        let (code, out, err) = run(&[
            "calibrate",
            "--data",
            &path,
            "--map",
            "prompt=q,response1=r1,response2=r2,label=a+b+c,id=id",
            "--gold-map",
            "1=-1,2=1,0=0",
            "--no-majority",
            policy,
            "--rater",
            "longer",
            "--bootstrap",
            "0",
            "--json",
            "--out",
            &out_dir,
        ]);
        assert_eq!(code, 0, "{err}");
        (err, serde_json::from_str(&out).expect("JSON"))
    };
    let (_, dropped) = summary("drop");
    assert_eq!(dropped["data"]["items"], 2);
    let (_, tied) = summary("tie");
    assert_eq!(tied["data"]["items"], 3, "the split pair is kept as a tie");
    let a = &tied["configs"][0]["annotators"];
    assert_eq!(a["no_majority"], 1);
    assert_eq!(a["no_majority_policy"], "tie");
    let e = error_of(&[
        "data",
        "summary",
        "--data",
        &path,
        "--map",
        "prompt=q,response1=r1,response2=r2,label=a+b+c",
        "--gold-map",
        "1=-1,2=1,0=0",
        "--no-majority",
        "maybe",
    ]);
    assert!(
        e.contains("invalid value 'maybe' for '--no-majority"),
        "{e}"
    );
}
