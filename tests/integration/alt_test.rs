//! The alternative annotator test (`--alt-test`): `analyze` equal to the authors' `alt_test`
//! (tests/fixtures/generate_alt_test_fixtures.py runs their notebook's function) on every case
//! and on PandaLM's real annotators, `calibrate` equal to `analyze`, the answer first at 100
//! columns with 13 annotators, and bad input.

use crate::common::{close, error_of, fixture, json_of, raterlab, run, shared_data, write};
use serde_json::Value;

fn expected() -> Value {
    let text = std::fs::read_to_string(fixture("alt_test/expected.json")).expect("fixture");
    serde_json::from_str(&text).expect("JSON")
}

/// `analyze --alt-test` on a case's file with its settings.
fn analyze_args(file: &str, case: &Value) -> Vec<String> {
    let names: Vec<&str> = (case["annotators"].as_array().expect("names").iter())
        .map(|n| n.as_str().expect("name"))
        .collect();
    [
        "analyze",
        "--input",
        file,
        "--annotators",
        &names.join(","),
        "--rating-col",
        "judge",
        "--alt-test",
        &case["epsilon"].to_string(),
        "--alt-test-score",
        case["score"].as_str().expect("score"),
        "--alpha",
        &case["q"].to_string(),
        "--unreadable",
        "drop",
        "--bootstrap",
        "0",
        "--json",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Every figure of `got` (raterlab's `alt_test`) against the authors' `want`.
fn same_as_authors(got: &Value, want: &Value, case: &str) {
    close(&got["winning_rate"], &want["winning_rate"], case);
    close(
        &got["advantage_probability"],
        &want["advantage_probability"],
        case,
    );
    assert_eq!(got["n_items"], want["n_items"], "{case}");
    assert_eq!(
        got["passed"],
        want["winning_rate"].as_f64().expect("ω") >= 0.5,
        "{case}"
    );
    let tested = got["annotators"].as_array().expect("annotators");
    let wanted = want["tested"].as_array().expect("tested");
    assert_eq!(tested.len(), wanted.len(), "{case}: annotators tested");
    for (g, w) in tested.iter().zip(wanted) {
        assert_eq!(g["name"], w["name"], "{case}");
        close(
            &g["p_value"],
            &w["p_value"],
            &format!("{case} {}", w["name"]),
        );
        assert_eq!(g["beaten"], w["beaten"], "{case} {}", w["name"]);
    }
    let left: Vec<&Value> = (got["left_out"].as_array().expect("left_out").iter())
        .map(|l| &l["name"])
        .collect();
    let want_left: Vec<&Value> = want["left_out"].as_array().expect("left").iter().collect();
    assert_eq!(left, want_left, "{case}: left out");
}

#[test]
fn analyze_gives_the_authors_alt_test_on_every_case() {
    let expected = expected();
    let cases = expected.as_object().expect("cases");
    let mut checked = 0;
    for (name, case) in cases {
        if ["pandalm", "alpacafarm"].contains(&name.as_str()) {
            continue; // real data, read from ../shared by the tests below
        }
        let file = fixture(&format!("alt_test/{name}.csv"));
        let args = analyze_args(&file.to_string_lossy(), case);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let doc = json_of(&args);
        same_as_authors(&doc["alt_test"], case, name);
        crate::schema::valid("analyze", "raterlab/analyze/2", &doc, name);
        assert_eq!(doc["configs"][0]["alt_test"], doc["alt_test"], "{name}");
        checked += 1;
    }
    assert_eq!(checked, 8);
    // The cases cover what the issue asks: names, grades, verdicts, missing labels, an
    // annotator under the minimum, a zero-spread difference (NaN p) and t = -inf (p = 0).
    assert!(expected["no_spread"]["tested"][0]["p_value"].is_null());
    assert_eq!(expected["outright"]["tested"][0]["p_value"], 0.0);
    assert_eq!(expected["under_minimum"]["left_out"][0], "r4");
}

#[test]
fn pandalms_annotators_give_the_authors_alt_test() {
    let Some(shared) = shared_data() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
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
    let pandalm: std::collections::HashMap<i64, Value> = read("pandalm-7b-testset-v1.jsonl")
        .into_iter()
        .map(|r| (r["idx"].as_i64().expect("idx"), r["pandalm_result"].clone()))
        .collect();
    let rows: String = read("testset-v1.jsonl")
        .iter()
        .map(|r| {
            let idx = r["idx"].as_i64().expect("idx");
            let line = serde_json::json!({"idx": idx, "annotator1": r["annotator1"],
                "annotator2": r["annotator2"], "annotator3": r["annotator3"],
                "gpt": gpt.get(&idx).cloned().unwrap_or(Value::Null),
                "pandalm": pandalm.get(&idx).map(|v| v.to_string()).unwrap_or_default()});
            format!("{line}\n")
        })
        .collect();
    let file = write(dir.path(), "pandalm.jsonl", &rows);
    let file = file.to_string_lossy();
    let judged = |columns: &str, bootstrap: &str| {
        json_of(&[
            "analyze",
            "--input",
            &file,
            "--annotators",
            "annotator1,annotator2,annotator3",
            "--gold-map",
            "0=0,1=-1,2=1",
            "--rating-col",
            columns,
            "--rating-map",
            "1=-1,2=1,Tie=0,0=0",
            "--unreadable",
            "drop",
            "--id-col",
            "idx",
            "--alt-test",
            "0.15",
            "--bootstrap",
            bootstrap,
        ])
    };
    let doc = judged("gpt", "0");
    same_as_authors(&doc["alt_test"], &expected()["pandalm"], "pandalm");
    assert_eq!(doc["alt_test"]["passed"], false);
    // Both recorded judges at once: each column's test as alone, their ρ compared in a pair.
    let both = judged("gpt,pandalm", "200");
    let alone = judged("pandalm", "0");
    assert_eq!(both["configs"][0]["alt_test"], doc["alt_test"]);
    assert_eq!(both["configs"][1]["alt_test"], alone["alt_test"]);
    let t = &both["alt_test_comparisons"]["tests"][0];
    assert_eq!(
        (&t["a"], &t["b"]),
        (&Value::from("gpt"), &Value::from("pandalm"))
    );
    let (lo, hi) = (
        t["ci"][0].as_f64().expect("lo"),
        t["ci"][1].as_f64().expect("hi"),
    );
    assert_eq!(t["finding"] != "no_difference", lo > 0.0 || hi < 0.0, "{t}");
}

/// Long form's annotators are the people its annotation column names, not positions:
/// AlpacaFarm's cross-annotations give 16 annotators (4 on each pair), and the alt-test on them
/// is the authors' with each person's labels (the fixture script builds their dictionaries
/// from the same file by `annotator_index`).
#[test]
fn long_form_annotators_are_the_people_who_annotated() {
    let Some(shared) = shared_data() else {
        return;
    };
    let dir = shared.join("alpacafarm");
    let path = |p: &str| dir.join(p).to_string_lossy().to_string();
    let doc = json_of(&[
        "analyze",
        "--gold",
        &path("crossannotations.json"),
        "--ratings",
        &path("gpt4_b1/seed0.json"),
        "--id-col",
        "instruction,output_1,output_2",
        "--gold-col",
        "preference",
        "--rating-col",
        "preference",
        "--gold-map",
        "1=-1,2=1",
        "--rating-map",
        "1=-1,2=1",
        "--alt-test",
        "0.1",
        "--bootstrap",
        "0",
    ]);
    let want = &expected()["alpacafarm"];
    same_as_authors(&doc["alt_test"], want, "alpacafarm");
    assert_eq!(
        doc["long_form"]["panel"]["by"], "column",
        "{}",
        doc["long_form"]
    );
    assert_eq!(doc["long_form"]["annotators"], 16);
    let names: Vec<&str> = (doc["annotators"]["names"].as_array())
        .or_else(|| doc["annotators"]["annotators"].as_array())
        .expect("the panel's names")
        .iter()
        .map(|n| n.as_str().expect("name"))
        .collect();
    let wanted: Vec<&str> = (want["annotators"].as_array().expect("names").iter())
        .map(|n| n.as_str().expect("name"))
        .collect();
    assert_eq!(names, wanted);
}

/// The pairwise case as pairs to rate: the `longer` baseline always prefers response 2, so its
/// alt-test is `analyze`'s with a judge of 1 on every item (the order shown flips an item's
/// votes and rating alike, which accuracy does not see).
#[test]
fn calibrate_gives_the_alt_test_analyze_gives() {
    let dir = tempfile::tempdir().expect("tempdir");
    let case = std::fs::read_to_string(fixture("alt_test/pairwise.csv")).expect("case");
    let mut pairs = String::from("id,q,r1,r2,a1,a2,a3\n");
    let mut constant = String::from("id,annotator1,annotator2,annotator3,judge\n");
    for line in case.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        pairs.push_str(&format!(
            "{},Q {},x,yy,{},{},{}\n",
            f[0], f[0], f[1], f[2], f[3]
        ));
        constant.push_str(&format!("{},{},{},{},1\n", f[0], f[1], f[2], f[3]));
    }
    let pairs = write(dir.path(), "pairs.csv", &pairs);
    let constant = write(dir.path(), "constant.csv", &constant);
    let out = dir.path().join("run");
    let doc = json_of(&[
        "calibrate",
        "--data",
        &pairs.to_string_lossy(),
        "--map",
        "prompt=q,response1=r1,response2=r2,label=a1+a2+a3,id=id",
        "--no-majority",
        "tie",
        "--rater",
        "longer",
        "--rater",
        "first",
        "--alt-test",
        "0.1",
        "--bootstrap",
        "200",
        "--out",
        &out.to_string_lossy(),
    ]);
    let want = json_of(&[
        "analyze",
        "--input",
        &constant.to_string_lossy(),
        "--annotators",
        "annotator1,annotator2,annotator3",
        "--rating-col",
        "judge",
        "--alt-test",
        "0.1",
        "--bootstrap",
        "0",
    ]);
    crate::schema::valid(
        "calibrate",
        "raterlab/calibrate/2",
        &doc,
        "calibrate --alt-test",
    );
    let run_file: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).expect("run.json"))
            .expect("JSON");
    assert_eq!(run_file["alt_test"]["epsilon"], 0.1);
    let configs = doc["configs"].as_array().expect("configs");
    let longer = (configs.iter())
        .find(|c| c["name"].as_str().is_some_and(|n| n.contains("longer")))
        .expect("longer");
    let got = &longer["alt_test"];
    for key in ["winning_rate", "advantage_probability", "n_items", "passed"] {
        close(&got[key], &want["alt_test"][key], key);
    }
    for (g, w) in (got["annotators"].as_array().expect("a").iter())
        .zip(want["alt_test"]["annotators"].as_array().expect("a"))
    {
        close(&g["p_value"], &w["p_value"], "p");
        assert_eq!(g["beaten"], w["beaten"]);
    }
    // Two judges: their advantage probabilities compared, B − A with an interval whose
    // verdict it agrees with.
    let tests = doc["alt_test_comparisons"]["tests"]
        .as_array()
        .expect("tests");
    assert_eq!(tests.len(), 1);
    let t = &tests[0];
    let (lo, hi) = (
        t["ci"][0].as_f64().expect("lo"),
        t["ci"][1].as_f64().expect("hi"),
    );
    assert!(lo <= t["diff"].as_f64().expect("diff") && t["diff"].as_f64().expect("d") <= hi);
    let called = t["finding"] != "no_difference";
    assert_eq!(called, lo > 0.0 || hi < 0.0, "{t}");
    // run.json keeps the test's settings, so `report DIR` shows the same.
    let report = json_of(&["report", &out.to_string_lossy()]);
    assert_eq!(
        report["configs"][0]["alt_test"],
        doc["configs"][0]["alt_test"]
    );
    let csv = std::fs::read_to_string(out.join("metrics.csv")).expect("metrics.csv");
    assert!(csv.contains("alt_test,") && csv.contains("advantage_probability"));
}

#[test]
fn the_first_screen_answers_with_thirteen_annotators_at_100_columns() {
    let case = &expected()["thirteen"];
    let file = fixture("alt_test/thirteen.csv");
    let mut args = analyze_args(&file.to_string_lossy(), case);
    args.retain(|a| a != "--json");
    let out = raterlab(&args.iter().map(String::as_str).collect::<Vec<_>>())
        .env("COLUMNS", "100")
        .output()
        .expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let first: Vec<&str> = text.lines().take(6).collect();
    let beaten = (case["tested"].as_array().expect("t").iter())
        .filter(|t| t["beaten"] == true)
        .count();
    let question =
        format!("Can judge replace an annotator? No: it beats {beaten} of 13 (ω 0.38 < 0.5)");
    assert!(
        first.iter().any(|l| l.starts_with(&question)),
        "{question}\n{text}"
    );
    let wide: Vec<&str> = text.lines().filter(|l| l.chars().count() > 100).collect();
    assert!(wide.is_empty(), "lines over 100 columns: {wide:#?}");
    // The 13 × 13 kappa matrix is a long table of pairs at this width.
    assert!(text.contains("annotator_01 – annotator_02"), "{text}");
}

#[test]
fn bad_alt_test_input_exits_2_with_the_fix() {
    let dir = tempfile::tempdir().expect("tempdir");
    let one = write(dir.path(), "one.csv", "gold,rating\n1,1\n-1,1\n");
    let e = error_of(&[
        "analyze",
        "--input",
        &one.to_string_lossy(),
        "--alt-test",
        "0.1",
    ]);
    assert!(
        e.contains("--alt-test compares the judge with several annotators"),
        "{e}"
    );
    let case = fixture("alt_test/categorical.csv");
    let case = case.to_string_lossy();
    let base = [
        "analyze",
        "--input",
        &case,
        "--annotators",
        "a1,a2,a3,a4,a5",
        "--rating-col",
        "judge",
    ];
    fn with<'a>(base: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
        [base, extra].concat()
    }
    let e = error_of(&with(&base, &["--alt-test", "1.5"]));
    assert!(
        e.contains("--alt-test 1.5: ε is a margin from 0 to 1"),
        "{e}"
    );
    let e = error_of(&with(
        &base,
        &["--alt-test", "0.1", "--alt-test-score", "neg_rmse"],
    ));
    assert!(e.contains("these labels are names"), "{e}");
    let e = error_of(&with(&base, &["--alt-test-min-items", "10"]));
    assert!(e.contains("turn it on with --alt-test EPSILON"), "{e}");
    let e = error_of(&with(
        &base,
        &["--alt-test", "0.1", "--alt-test-min-annotators", "1"],
    ));
    assert!(e.contains("at least 2 annotators"), "{e}");
    let e = error_of(&with(
        &base,
        &["--alt-test", "0.1", "--alt-test-score", "rmse"],
    ));
    assert!(
        e.contains("accuracy (categories, verdicts) or neg_rmse"),
        "{e}"
    );
    // calibrate: one gold label per item has no annotator to replace; refused before any call.
    let dir2 = tempfile::tempdir().expect("tempdir");
    let out = dir2.path().join("run");
    let e = error_of(&[
        "calibrate",
        "--demo",
        "--alt-test",
        "0.1",
        "--out",
        &out.to_string_lossy(),
    ]);
    assert!(e.contains("this data has one gold label per item"), "{e}");
    assert!(!out.exists(), "nothing written");
    // Labels by name are read without a map, and said.
    let (code, out, _) = run(&with(&base, &["--alt-test", "0.15"]));
    assert_eq!(code, 0);
    assert!(
        out.contains("labels read by name: 0 Negative, 1 Positive, 2 unknown"),
        "{out}"
    );
}

#[test]
fn plan_simulates_the_winning_rate_by_items_as_the_authors_do() {
    let args = [
        "plan",
        "--alt-test",
        "0.05,0.2",
        "--sizes",
        "30,100,200",
        "--datasets",
        "6",
        "--boots",
        "4",
        "--judge-noise",
        "0.2",
        "--seed",
        "3",
    ];
    let doc = json_of(&args);
    crate::schema::valid("plan", "raterlab/plan/1", &doc, "plan --alt-test");
    assert_eq!(doc, json_of(&args), "seeded");
    let sizes = doc["alt_test"]["sizes"].as_array().expect("sizes");
    assert_eq!(sizes.len(), 3);
    let w = |z: usize, k: usize| sizes[z]["epsilons"][k]["winning_rate"].as_f64().expect("ω");
    // More items and a wider margin: a judge as noisy as 0.2 (annotators 0.3) wins more.
    assert!(w(2, 1) >= w(0, 1) && w(2, 1) > w(2, 0), "{doc}");
    let spread = &sizes[2]["epsilons"][1]["winning_rate_spread"];
    assert!(
        spread[0].as_f64().expect("lo") <= w(2, 1) && w(2, 1) <= spread[1].as_f64().expect("hi")
    );
    // The items a margin needs: from there on every size tried reaches 0.5, the size before
    // does not.
    for (k, need) in doc["alt_test"]["items_needed"]
        .as_array()
        .expect("needs")
        .iter()
        .enumerate()
    {
        let Some(n) = need[1].as_u64() else {
            assert!(w(2, k) < 0.5, "{need}");
            continue;
        };
        let from = sizes
            .iter()
            .position(|z| z["items"] == n)
            .expect("a size tried");
        assert!((from..sizes.len()).all(|z| w(z, k) >= 0.5), "{need}");
        assert!(from == 0 || w(from - 1, k) < 0.5, "{need}");
    }
    // The terminal answers first: the items each margin needs.
    let (code, out, _) = run(&args[..args.len()]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("Items for the alt-test to pass this judge on average"),
        "{out}"
    );
    let e = error_of(&["plan", "--alt-test", "0.1", "--sizes", "10"]);
    assert!(e.contains("from 30 items"), "{e}");
}
