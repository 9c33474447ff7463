//! AlpacaEval's evaluator measures (#42) through `analyze` in long form, against AlpacaEval's own
//! `Analyzer` (tests/fixtures/generate_alpacafarm_fixtures.py runs its analyze.py): the real
//! AlpacaFarm cross-annotations with its `humans` and `longest` rows and the early GPT-4 judge,
//! generated files with uneven counts, missing annotations, ties and unjudged items, and the
//! published leaderboard's rows.

use crate::common::{error_of, fixture, json_of, ratings_strings, run, shared_data, write};
use serde_json::Value;
use std::path::Path;

fn reference() -> Value {
    let text = std::fs::read_to_string(fixture("alpacafarm.json")).expect("fixture");
    serde_json::from_str(&text).expect("fixture JSON")
}

/// The measures AlpacaEval computes, compared to 1e-9 (`prefer_lists` by its March 2024 rule).
fn assert_row(got: &Value, want: &Value, what: &str, with_bias: bool) {
    let mut keys = vec![
        "human_agreement",
        "variance",
        "prefer_longer",
        "prefer_first",
    ];
    if with_bias {
        keys.push("bias");
    }
    for key in keys {
        match (got[key].as_f64(), want[key].as_f64()) {
            (Some(g), Some(w)) => assert!((g - w).abs() < 1e-9, "{what} {key}: {g} vs {w}"),
            (g, w) => assert_eq!(g, w, "{what} {key}: both undefined or both defined"),
        }
    }
    let (g, w) = (
        got["prefer_lists"].as_f64(),
        want["prefer_lists_2024-03"].as_f64(),
    );
    match (g, w) {
        (Some(g), Some(w)) => assert!((g - w).abs() < 1e-9, "{what} prefer_lists: {g} vs {w}"),
        _ => assert_eq!(g, w, "{what} prefer_lists"),
    }
    assert_eq!(
        got["parsed"].as_u64(),
        want["parsed"].as_u64(),
        "{what} parsed"
    );
}

fn analyze(gold: &Path, ratings: &[&Path], extra: &[&str]) -> Value {
    let mut args = vec![
        "analyze".to_string(),
        "--gold".into(),
        gold.display().to_string(),
    ];
    for r in ratings {
        args.push("--ratings".into());
        args.push(r.display().to_string());
    }
    for a in [
        "--id-col",
        "instruction,output_1,output_2",
        "--texts",
        "output_1,output_2",
        "--gold-col",
        "preference",
        "--rating-col",
        "preference",
        "--gold-map",
        "1=-1,2=1",
        "--bootstrap",
        "200",
    ] {
        args.push(a.into());
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    rows(json_of(&args))
}

/// analyze's AlpacaEval rows by name: the run's humans and longest (`evaluator`, as calibrate
/// writes it) and the judge's (`configs[0].evaluator`).
fn rows(mut doc: Value) -> Value {
    let (humans, longest) = (
        doc["evaluator"]["humans"].clone(),
        doc["evaluator"]["longest"].clone(),
    );
    let judge = doc["configs"][0]["evaluator"].clone();
    let object = doc.as_object_mut().expect("a document");
    object.insert("humans".into(), humans);
    object.insert("longest".into(), longest);
    object.insert("evaluator".into(), judge);
    doc
}

#[test]
fn real_crossannotations_match_alpacaevals_analyzer_and_its_leaderboard() {
    let Some(shared) = shared_data() else { return };
    let dir = shared.join("alpacafarm");
    let want = reference();
    let seeds: Vec<_> = (0..4)
        .map(|s| dir.join(format!("gpt4_b1/seed{s}.json")))
        .collect();
    let seeds: Vec<&Path> = seeds.iter().map(|p| p.as_path()).collect();
    let got = analyze(
        &dir.join("crossannotations.json"),
        &seeds,
        &["--rating-map", "1=-1,2=1"],
    );
    assert_row(&got["humans"], &want["real"]["humans"], "humans", false);
    assert_row(&got["longest"], &want["real"]["longest"], "longest", true);
    assert_row(&got["evaluator"], &want["real"]["gpt4_b1"], "gpt4_b1", true);
    assert_eq!(got["long_form"]["items"], 648);
    assert_eq!(got["long_form"]["annotations_per_item"], 4);
    assert_eq!(got["long_form"]["joined_input"], true);
    assert_eq!(got["evaluator"]["samples_per_item"], 4);
    // Every figure is a fraction with an interval around it.
    for row in ["humans", "longest", "evaluator"] {
        for (key, ci) in got[row]["ci"].as_object().expect("ci") {
            let v = got[row][key].as_f64().expect("value");
            let (lo, hi) = (ci[0].as_f64().expect("lo"), ci[1].as_f64().expect("hi"));
            assert!((0.0..=1.0).contains(&v), "{row} {key} = {v}");
            assert!(
                lo <= v + 1e-12 && v <= hi + 1e-12,
                "{row} {key}: {v} in [{lo}, {hi}]"
            );
        }
    }
    // The paired comparisons on human agreement: against the humans and the longest.
    let versus = got["evaluator"]["versus"].as_array().expect("versus");
    assert_eq!(versus.len(), 2);
    assert_eq!(
        (&versus[0]["a"], &versus[0]["b"]),
        (&"humans".into(), &"evaluator".into())
    );
    let d = versus[0]["diff"].as_f64().expect("diff");
    let expected = want["real"]["gpt4_b1"]["human_agreement"]
        .as_f64()
        .expect("a")
        - want["real"]["humans"]["human_agreement"]
            .as_f64()
            .expect("h");
    assert!((d - expected).abs() < 1e-9);

    // The published table's humans and longest rows (percent there, fractions here).
    let table = std::fs::read_to_string(dir.join("evaluators_leaderboard.csv")).expect("csv");
    let header: Vec<&str> = table.lines().next().expect("header").split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
    for (name, row) in [("humans", &got["humans"]), ("longest", &got["longest"])] {
        let line = table
            .lines()
            .find(|l| l.starts_with(&format!("{name},")))
            .expect("row");
        let cells: Vec<f64> = line
            .split(',')
            .map(|c| c.parse().unwrap_or(f64::NAN))
            .collect();
        let close = |key: &str, column: &str, scale: f64| {
            let published = cells[col(column)] / scale;
            let ours = row[key].as_f64().expect(key);
            assert!(
                (ours - published).abs() < 1e-9,
                "{name} {key}: {ours} vs {published}"
            );
        };
        close("human_agreement", "Human agreement", 100.0);
        close("variance", "Variance", 100.0);
        close("prefer_longer", "Proba. prefer longer", 1.0);
        close("prefer_lists", "Proba. prefer lists", 1.0);
        close("prefer_first", "Proba. prefer 1", 1.0);
        if name == "longest" {
            close("bias", "Bias", 100.0);
        }
    }

    // One seed alone: AlpacaEval cannot estimate bias or variance from one sample.
    let one = analyze(
        &dir.join("crossannotations.json"),
        &seeds[..1],
        &["--rating-map", "1=-1,2=1"],
    );
    assert_row(
        &one["evaluator"],
        &want["real"]["gpt4_b1_seed0"],
        "seed 0",
        true,
    );
    assert!(one["evaluator"]["bias"].is_null() && one["evaluator"]["variance"].is_null());
}

#[test]
fn generated_long_form_matches_alpacaevals_analyzer_at_the_edges() {
    let want = reference();
    // uneven's judge file is AlpacaEval's saved form (`index`, `n_annotated`), read with the
    // map a user gives AlpacaEval's preferences (1.5, its tie, then reads as 0).
    for (case, extra, samples) in [
        ("uneven", vec!["--rating-map", "1=-1,2=1"], "index"),
        (
            "explicit",
            vec![
                "--rating-map",
                "1=-1,2=1,1.5=0",
                "--annotations-per-item",
                "3",
            ],
            "seed",
        ),
        ("pairs", vec!["--rating-map", "1=-1,2=1,1.5=0"], "seed"),
        // A weighted judge's continuous preferences, kept whole on AlpacaEval's scale.
        ("weighted", vec!["--rating-map", "1=-1,2=1"], "seed"),
    ] {
        let gold = fixture(&format!("alpacafarm/{case}-gold.json"));
        let judge = fixture(&format!("alpacafarm/{case}-judge.json"));
        let args = extra;
        let got = analyze(&gold, &[&judge], &args);
        let w = &want[case];
        assert_row(
            &got["humans"],
            &w["humans"],
            &format!("{case} humans"),
            false,
        );
        assert_row(
            &got["longest"],
            &w["longest"],
            &format!("{case} longest"),
            true,
        );
        assert_row(
            &got["evaluator"],
            &w["judge"],
            &format!("{case} judge"),
            true,
        );
        let long = &got["long_form"];
        assert_eq!(
            long["annotations_per_item"], w["annotations_per_item"],
            "{case}"
        );
        assert_eq!(long["items"], w["kept"], "{case}");
        let (items, kept, judged) = (
            w["items"].as_u64().expect("items"),
            w["kept"].as_u64().expect("kept"),
            w["judged"].as_u64().expect("judged"),
        );
        assert_eq!(long["too_few"].as_u64(), Some(items - kept), "{case}");
        assert_eq!(got["only_in_gold"].as_u64(), Some(kept - judged), "{case}");
        assert_eq!(long["columns"][0], "annotator_index");
        assert_eq!(long["columns"][1], samples);
    }
}

#[test]
fn long_form_reads_missing_and_unreadable_annotations_and_names_keys_in_one_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let gold = write(
        dir.path(),
        "gold.csv",
        "q,a,b,pref,annotator_index\n\
         x,1,2,1,0\nx,1,2,1,3\nx,1,2,2,4\n\
         y,1,2,2,0\ny,1,2,,1\ny,1,2,2,2\ny,1,2,2,5\n\
         z,1,2,1,0\nz,1,2,1,1\nz,1,2,1,2\n\
         w,1,2,2,0\nw,1,2,1,1\n",
    );
    let judge = write(
        dir.path(),
        "judge.csv",
        "q,a,b,pref,seed\nx,1,2,1,0\ny,1,2,2,0\nz,1,2,,0\nv,1,2,1,0\nx,1,2,2,1\ny,1,2,1,1\n",
    );
    let args = |extra: &[&str]| {
        let mut a = vec![
            "analyze",
            "--gold",
            gold.to_str().expect("utf-8"),
            "--ratings",
            judge.to_str().expect("utf-8"),
            "--id-col",
            "q,a,b",
            "--gold-col",
            "pref",
            "--rating-col",
            "pref",
            "--gold-map",
            "1=-1,2=1",
            "--rating-map",
            "1=-1,2=1",
            "--bootstrap",
            "0",
        ];
        a.extend_from_slice(extra);
        a.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let owned = args(&[]);
    let got = rows(json_of(
        &owned.iter().map(String::as_str).collect::<Vec<_>>(),
    ));
    // Readable counts x 3, y 3 (one missing), z 3, w 2: N = 2, the first two of each count;
    // y's first two hold one readable annotation, so y is left out.
    assert_eq!(got["long_form"]["annotations_per_item"], 2);
    assert_eq!(got["long_form"]["too_few"], 1);
    assert_eq!(got["long_form"]["items"], 3);
    // w is in the gold only, v in the ratings only; each counted and the first named.
    assert_eq!(got["only_in_gold"], 1);
    assert_eq!(got["only_in_ratings"], 1);
    assert_eq!(got["long_form"]["only_in_gold"], "w · 1 · 2");
    // z's only sample is missing (unparsed): x's two are the readable ones.
    assert_eq!(got["evaluator"]["parsed"], 2);
    let (code, text, _) = run(&args(&[]).iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 0);
    assert!(
        text.contains("1 items whose judge's first sample is unparsed"),
        "{text}"
    );
    assert!(text.contains("only in gold (first: 'w · 1 · 2')"), "{text}");

    // An unreadable annotation names file, column and row.
    let bad = write(
        dir.path(),
        "bad.csv",
        "q,a,b,pref,seed\nx,1,2,1,0\ny,1,2,maybe,0\n",
    );
    let mut owned = args(&[]);
    let at = owned.iter().position(|a| a == "--ratings").expect("flag") + 1;
    owned[at] = bad.display().to_string();
    let err = error_of(&owned.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        err.contains("bad.csv") && err.contains("column 'pref'") && err.contains("row 2"),
        "{err}"
    );
}

#[test]
fn a_repeated_key_without_an_annotation_column_stays_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let gold = write(dir.path(), "gold.csv", "q,a,pref\nx,1,1\nx,1,2\ny,1,1\n");
    let judge = write(dir.path(), "judge.csv", "q,a,pref\nx,1,1\ny,1,2\n");
    let refused = |extra: &[&str]| {
        let mut args = vec![
            "analyze",
            "--gold",
            gold.to_str().expect("utf-8"),
            "--ratings",
            judge.to_str().expect("utf-8"),
            "--id-col",
            "q,a",
            "--gold-col",
            "pref",
            "--rating-col",
            "pref",
        ];
        args.extend_from_slice(extra);
        error_of(&args)
    };
    let err = refused(&[]);
    assert!(
        err.contains("gold.csv") && err.contains("row 2") && err.contains("--annotator-col"),
        "{err}"
    );
    // Named, the column must exist.
    let err = refused(&["--annotator-col", "rater"]);
    assert!(err.contains("rater"), "{err}");
}

const PANDALM_MAP: &str = "prompt=instruction+input,response1=response1,response2=response2,label=annotator1+annotator2+annotator3,id=idx";

/// calibrate's rows, rebuilt through `analyze` in long form from the run directory (the
/// annotators' votes and the texts as shown, the basic judge's ratings): the same figures, so
/// calibrate inherits analyze's agreement with AlpacaEval's Analyzer. sc:N gets bias and
/// variance from its samples; `report DIR` gives the same rows; metrics.csv carries them.
#[test]
fn calibrate_gives_each_configuration_the_measures_analyze_gives() {
    let Some(shared) = shared_data() else { return };
    let data = shared.join("pandalm/testset-v1.jsonl");
    let dir = tempfile::tempdir().expect("tempdir");
    let run_dir = dir.path().join("run");
    let doc = json_of(&[
        "calibrate",
        "--data",
        data.to_str().expect("utf-8"),
        "--map",
        PANDALM_MAP,
        "--gold-map",
        "0=0,1=-1,2=1",
        "--judge",
        "sim",
        "--rater",
        "basic",
        "--rater",
        "sc:3",
        "--rater",
        "longer",
        "--bootstrap",
        "100",
        "--out",
        run_dir.to_str().expect("utf-8"),
    ]);
    let configs = doc["configs"].as_array().expect("configs");
    let by_name = |name: &str| {
        configs
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("{name}"))
    };
    let sc = &by_name("simple_with_tie/sc:3")["evaluator"];
    assert_eq!(sc["samples_per_item"], 3);
    assert!(
        sc["bias"].as_f64().is_some() && sc["variance"].as_f64().is_some(),
        "{sc}"
    );
    let basic = &by_name("simple_with_tie/basic")["evaluator"];
    assert!(
        basic["bias"].is_null() && basic["variance"].is_null(),
        "{basic}"
    );
    let against = doc["evaluator"]["against_best"]
        .as_array()
        .expect("against_best");
    assert_eq!(against.len(), 2);
    assert!(against
        .iter()
        .all(|c| c["p_holm"].as_f64() >= c["p"].as_f64() && c["metric"] == "human_agreement"));

    // The run directory as long-form files for analyze.
    let config = ratings_strings(&run_dir, "config");
    let ids = ratings_strings(&run_dir, "id");
    let rating = ratings_strings(&run_dir, "rating");
    let votes = ratings_strings(&run_dir, "votes");
    let texts: std::collections::HashMap<String, (String, String)> =
        std::fs::read_to_string(run_dir.join("items.jsonl"))
            .expect("items.jsonl")
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).expect("item");
                let s = |k: &str| v[k].as_str().expect(k).to_string();
                (s("id"), (s("response1"), s("response2")))
            })
            .collect();
    let (mut gold, mut judge) = (String::new(), String::new());
    for k in 0..config.len() {
        if config[k].as_deref() != Some("simple_with_tie/basic") {
            continue;
        }
        let id = ids[k].clone().expect("id");
        let (r1, r2) = &texts[&id];
        for (a, v) in votes[k].as_deref().expect("votes").split(',').enumerate() {
            let row = serde_json::json!({"id": id, "r1": r1, "r2": r2, "vote": v.parse::<i64>().expect("vote"), "annotator_index": a});
            gold.push_str(&format!("{row}\n"));
        }
        let r = rating[k]
            .as_deref()
            .map(|r| r.parse::<i64>().expect("rating"));
        judge.push_str(&format!("{}\n", serde_json::json!({"id": id, "rating": r})));
    }
    let gold = write(dir.path(), "gold.jsonl", &gold);
    let judge = write(dir.path(), "judge.jsonl", &judge);
    let again = rows(json_of(&[
        "analyze",
        "--gold",
        gold.to_str().expect("utf-8"),
        "--ratings",
        judge.to_str().expect("utf-8"),
        "--texts",
        "r1,r2",
        "--gold-col",
        "vote",
        "--bootstrap",
        "0",
    ]));
    let close = |x: &Value, y: &Value, what: &str| {
        for key in [
            "human_agreement",
            "variance",
            "prefer_longer",
            "prefer_lists",
            "prefer_first",
            "parsed",
        ] {
            match (x[key].as_f64(), y[key].as_f64()) {
                (Some(a), Some(b)) => assert!((a - b).abs() < 1e-9, "{what} {key}: {a} vs {b}"),
                (a, b) => assert_eq!(a, b, "{what} {key}"),
            }
        }
    };
    close(&doc["evaluator"]["humans"], &again["humans"], "humans");
    close(&doc["evaluator"]["longest"], &again["longest"], "longest");
    close(basic, &again["evaluator"], "basic");

    // report DIR rebuilds the same rows; metrics.csv carries them.
    let report = json_of(&["report", run_dir.to_str().expect("utf-8")]);
    assert_eq!(report["evaluator"], doc["evaluator"]);
    assert_eq!(report["configs"][1]["evaluator"], configs[1]["evaluator"]);
    let csv = std::fs::read_to_string(run_dir.join("metrics.csv")).expect("metrics.csv");
    assert!(
        csv.contains("simple_with_tie/sc:3,evaluator,") && csv.contains(",evaluator:humans,"),
        "{csv}"
    );
}

/// The methods page's command and its pasted rows: the command runs, and every pasted line is
/// in its output at 160 columns (a changed figure fails here).
#[test]
fn the_readmes_evaluator_example_prints_what_it_shows() {
    let Some(shared) = shared_data() else { return };
    let readme = std::fs::read_to_string(crate::common::root().join("docs/methods.md"))
        .expect("docs/methods.md");
    let section = readme
        .split("## AlpacaEval's evaluator measures")
        .nth(1)
        .expect("the methods page's section");
    let mut blocks = section.split("```").skip(1).step_by(2);
    let command = blocks.next().expect("the command").replace("\\\n", " ");
    let pasted = blocks.next().expect("the pasted output");
    let dir = shared.join("alpacafarm");
    let args: Vec<String> = command
        .split_whitespace()
        .skip_while(|w| *w != "raterlab")
        .skip(1)
        .map(|w| w.replace("$D", dir.to_str().expect("utf-8")))
        .collect();
    assert!(args.iter().any(|a| a == "--gold"), "{command}");
    let out = crate::common::raterlab(&args.iter().map(String::as_str).collect::<Vec<_>>())
        .env("COLUMNS", "160")
        .output()
        .expect("raterlab runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for line in pasted.lines().map(str::trim_end).filter(|l| !l.is_empty()) {
        assert!(
            text.contains(line),
            "README line not in the output: {line}\n{text}"
        );
    }
}

/// calibrate reads AlpacaEval's long form too: rows repeating a key (here the three texts),
/// `annotator_index` naming the annotation, the first four of each pair its annotators. The
/// humans' and the longest output's rows then equal AlpacaEval's own.
#[test]
fn calibrate_reads_the_cross_annotations_in_long_form() {
    let Some(shared) = shared_data() else { return };
    let data = shared.join("alpacafarm/crossannotations.json");
    let dir = tempfile::tempdir().expect("tempdir");
    let doc = json_of(&[
        "calibrate",
        "--data",
        data.to_str().expect("utf-8"),
        "--map",
        "prompt=instruction,response1=output_1,response2=output_2,label=preference,id=instruction+output_1+output_2",
        "--gold-map",
        "1=-1,2=1",
        "--no-majority",
        "tie",
        "--judge",
        "sim",
        "--rater",
        "sc:3",
        "--bootstrap",
        "0",
        "--out",
        dir.path().join("run").to_str().expect("utf-8"),
    ]);
    assert_eq!(doc["data"]["items"], 648);
    let want = reference();
    assert_row(
        &doc["evaluator"]["humans"],
        &want["real"]["humans"],
        "humans",
        false,
    );
    assert_row(
        &doc["evaluator"]["longest"],
        &want["real"]["longest"],
        "longest",
        true,
    );
    let sc = &doc["configs"][0]["evaluator"];
    assert_eq!(sc["annotations_per_item"], 4);
    assert_eq!(sc["samples_per_item"], 3);
    // The panel's annotators are the 16 people of `annotator_index`, each with the pairs they
    // annotated among the first 4 of each (counted here from the file), not 4 positions.
    let rows: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(&data).expect("file")).expect("JSON");
    let mut seen: std::collections::HashMap<String, usize> = Default::default();
    let mut per_person: std::collections::BTreeMap<i64, usize> = Default::default();
    for r in &rows {
        let key = format!("{}|{}|{}", r["instruction"], r["output_1"], r["output_2"]);
        let k = seen.entry(key).or_default();
        *k += 1;
        if *k <= 4 {
            *per_person
                .entry(r["annotator_index"].as_i64().expect("index"))
                .or_default() += 1;
        }
    }
    let panel = &doc["configs"][0]["annotators"];
    let names: Vec<String> = per_person.keys().map(|k| format!("#{k}")).collect();
    assert_eq!(panel["names"], serde_json::json!(names));
    let kappa = panel["pairwise_kappa"].as_array().expect("matrix");
    assert_eq!(kappa.len(), 16);
    // #6 annotated one pair: its κ with anyone is undefined; #0 and #13 share pairs.
    let at = |a: &str| names.iter().position(|n| n == a).expect("annotator");
    assert!(kappa[at("#0")][at("#13")].as_f64().is_some());
    assert_eq!(per_person[&6], 1);
    // `report DIR` reads the votes back by person and in file order (`vote_order`): the same
    // evaluator rows, by position, as the run.
    let again = json_of(&[
        "report",
        dir.path().join("run").to_str().expect("utf-8"),
        "--json",
    ]);
    assert_eq!(again["evaluator"], doc["evaluator"]);
    assert_eq!(
        again["configs"][0]["evaluator"],
        doc["configs"][0]["evaluator"]
    );
}
