//! The system level (#43): each model's win rate under each configuration, Bradley–Terry
//! strengths when models meet each other, and the ranking against a reference, against
//! AlpacaEval's published leaderboard, scipy and scikit-learn (tests/fixtures/systems.json,
//! from generate_systems_fixtures.py).

use crate::common::{error_of, fixture, json_of, shared_data, write};
use serde_json::{json, Value};
use std::path::Path;

fn reference() -> Value {
    let text = std::fs::read_to_string(fixture("systems.json")).expect("fixture");
    serde_json::from_str(&text).expect("fixture JSON")
}

const MODELS: [&str; 8] = [
    "systems/chatglm2-6b",
    "systems/claude-instant-1.2",
    "systems/gemma-7b-it",
    "systems/gpt35_turbo_instruct",
    "systems/phi-2-sft",
    "systems/vicuna-13b-v1.5",
    "alpaca-7b",
    "gpt-3.5-turbo-1106",
];

/// The 8 models' AlpacaEval annotations as one array (the form AlpacaEval publishes).
fn all_models(shared: &Path, dir: &Path) -> std::path::PathBuf {
    let mut rows: Vec<Value> = Vec::new();
    for m in MODELS {
        let text = std::fs::read_to_string(shared.join(format!("alpacaeval/{m}.json")))
            .expect("annotations");
        let v: Value = serde_json::from_str(&text).expect("JSON array");
        rows.extend(v.as_array().expect("array").iter().cloned());
    }
    let path = dir.join("all.json");
    std::fs::write(&path, serde_json::to_string(&rows).expect("JSON")).expect("written");
    path
}

fn close(got: &Value, want: f64, tolerance: f64, what: &str) {
    let g = got.as_f64().unwrap_or_else(|| panic!("{what}: {got}"));
    assert!((g - want).abs() < tolerance, "{what}: {g} vs {want}");
}

#[test]
fn eight_models_replayed_give_alpacaevals_leaderboard_and_scipys_correlations() {
    let Some(shared) = shared_data() else { return };
    let want = &reference()["alpacaeval"];
    let dir = tempfile::tempdir().expect("tempdir");
    let data = all_models(&shared, dir.path());
    let run_dir = dir.path().join("run");
    let bench = shared.join("alpacaeval/benchmarks.csv");
    let doc = json_of(&[
        "calibrate",
        "--data",
        data.to_str().expect("utf-8"),
        "--judge",
        &format!("replay:{}", data.display()),
        "--prompt",
        "alpaca_eval_weighted",
        "--reference",
        bench.to_str().expect("utf-8"),
        // AlpacaEval's header cell is "Arena Elo\n[Feb 2, 2024]": white space folds.
        "--reference-map",
        "model=Model,score=Arena Elo [Feb 2, 2024]",
        "--bootstrap",
        "300",
        "--out",
        run_dir.to_str().expect("utf-8"),
    ]);
    let systems = &doc["configs"][0]["systems"];
    assert_eq!(systems["baseline"], "gpt4_1106_preview");
    assert_eq!(systems["score"], "win_rate");
    let generators = systems["generators"].as_array().expect("generators");
    assert_eq!(generators.len(), 8);
    for m in generators {
        let name = m["name"].as_str().expect("name");
        // In percent, as the leaderboard prints them.
        let win = m["win_rate"].as_f64().expect("win") * 100.0;
        close(
            &json!(win),
            want["win_rate"][name].as_f64().expect("w"),
            1e-6,
            name,
        );
        let discrete = m["discrete_win_rate"].as_f64().expect("d") * 100.0;
        close(
            &json!(discrete),
            want["discrete_win_rate"][name].as_f64().expect("d"),
            1e-9,
            name,
        );
        let [lo, hi] = [
            m["ci"][0].as_f64().expect("lo"),
            m["ci"][1].as_f64().expect("hi"),
        ];
        assert!(
            lo < win / 100.0 && win / 100.0 < hi,
            "{name}: {lo} {win} {hi}"
        );
    }
    // To 1e-9 against AlpacaEval's stored preferences: the mean of preference - 1 per model.
    let arrays: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(&data).expect("data")).expect("JSON");
    for m in generators {
        let name = m["name"].as_str().expect("name");
        let stored: Vec<f64> = arrays
            .iter()
            .filter(|a| a["generator_2"] == name)
            .filter_map(|a| a["preference"].as_f64())
            .map(|p| p - 1.0)
            .collect();
        let mean = stored.iter().sum::<f64>() / stored.len() as f64;
        close(
            &m["win_rate"],
            mean,
            1e-9,
            &format!("{name} against its stored preferences"),
        );
    }
    // Ranked best first.
    let wins: Vec<f64> = generators
        .iter()
        .map(|m| m["win_rate"].as_f64().expect("w"))
        .collect();
    assert!(wins.windows(2).all(|w| w[0] >= w[1]));
    let r = &systems["reference"];
    assert_eq!(r["n"], 4);
    for key in ["spearman", "kendall", "pearson"] {
        close(&r[key], want[key].as_f64().expect(key), 1e-9, key);
    }
    let missing: Vec<&str> = r["missing"]
        .as_array()
        .expect("missing")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for m in [
        "alpaca-7b",
        "gpt-3.5-turbo-1106",
        "gpt35_turbo_instruct",
        "phi-2-sft",
    ] {
        assert!(missing.contains(&m), "{missing:?}");
    }
    let sep = systems["separability"].as_f64().expect("separability");
    assert!((0.0..=1.0).contains(&sep));
    // report DIR compares with the same reference again, from run.json.
    let again = json_of(&["report", run_dir.to_str().expect("utf-8")]);
    assert_eq!(again["configs"][0]["systems"], doc["configs"][0]["systems"]);
    let csv = std::fs::read_to_string(run_dir.join("metrics.csv")).expect("metrics.csv");
    assert!(
        csv.contains(",model:claude-instant-1.2,805,win_rate,")
            && csv.contains(",systems,4,spearman,"),
        "{csv}"
    );
    let ratings = std::fs::read_to_string(run_dir.join("ratings.csv")).expect("ratings.csv");
    assert!(ratings
        .lines()
        .next()
        .expect("header")
        .ends_with("generator1,generator2"));
}

/// The documented form: rows through --map with generator columns, a JSONL replay with
/// logprobs, AlpacaEval's weighted template as a TOML file (identical = "tie"), and a
/// two-column reference table.
#[test]
fn mapped_rows_with_generators_and_a_jsonl_replay_give_the_same_win_rates() {
    let Some(shared) = shared_data() else { return };
    let want = &reference()["alpacaeval"];
    let dir = tempfile::tempdir().expect("tempdir");
    let data = all_models(&shared, dir.path());
    // AlpacaEval's order shown, read from raterlab's own export of the pairs (the evaluated
    // model, generator_2, is the gold side: gold -1 where AlpacaEval showed it first).
    let exported = dir.path().join("items.jsonl");
    let (code, _, err) = crate::common::run(&[
        "data",
        "export",
        "--data",
        data.to_str().expect("utf-8"),
        "--out",
        exported.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{err}");
    let arrays: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(&data).expect("data")).expect("JSON");
    let (mut rows, mut recordings) = (String::new(), String::new());
    for (line, a) in std::fs::read_to_string(&exported)
        .expect("export")
        .lines()
        .zip(&arrays)
    {
        let e: Value = serde_json::from_str(line).expect("item");
        let swapped = e["gold"] == -1;
        let (g1, g2) = if swapped {
            (&a["generator_2"], &a["generator_1"])
        } else {
            (&a["generator_1"], &a["generator_2"])
        };
        rows.push_str(&format!(
            "{}\n",
            json!({"id": e["id"], "instruction": e["prompt"], "first": e["response1"], "second": e["response2"],
                   "label": e["gold"], "model_1": g1, "model_2": g2})
        ));
        if let Some(raw) = a.get("raw_completion").filter(|r| !r.is_null()) {
            recordings.push_str(&format!(
                "{}\n",
                json!({"prompt": e["prompt"], "response1": e["response1"], "response2": e["response2"],
                       "completion": raw["message"]["content"], "logprobs": raw["logprobs"]})
            ));
        }
    }
    let rows = write(dir.path(), "rows.jsonl", &rows);
    let recordings = write(dir.path(), "recordings.jsonl", &recordings);
    let (code, toml, err) =
        crate::common::run(&["prompts", "show", "alpaca_eval_weighted", "--toml"]);
    assert_eq!(code, 0, "{err}");
    assert!(toml.contains("identical = \"tie\""), "{toml}");
    let template = write(dir.path(), "weighted.toml", &toml);
    let arena = write(
        dir.path(),
        "arena.csv",
        "model,arena_elo\nclaude-instant-1.2,1104\nvicuna-13b-v1.5,1037\ngemma-7b-it,1029\nchatglm2-6b,925\n",
    );
    let doc = json_of(&[
        "calibrate",
        "--data",
        rows.to_str().expect("utf-8"),
        "--map",
        "prompt=instruction,response1=first,response2=second,label=label,id=id,generator1=model_1,generator2=model_2",
        "--judge",
        &format!("replay:{}", recordings.display()),
        "--prompt",
        template.to_str().expect("utf-8"),
        "--reference",
        arena.to_str().expect("utf-8"),
        "--reference-map",
        "model=model,score=arena_elo",
        "--bootstrap",
        "0",
        "--out",
        dir.path().join("run").to_str().expect("utf-8"),
    ]);
    let systems = &doc["configs"][0]["systems"];
    for m in systems["generators"].as_array().expect("generators") {
        let name = m["name"].as_str().expect("name");
        let win = m["win_rate"].as_f64().expect("win") * 100.0;
        close(
            &json!(win),
            want["win_rate"][name].as_f64().expect("w"),
            1e-6,
            name,
        );
    }
    close(
        &systems["reference"]["spearman"],
        want["spearman"].as_f64().expect("s"),
        1e-9,
        "spearman",
    );
}

/// Models against each other: Bradley–Terry strengths equal scikit-learn's fit of Chatbot
/// Arena's design on generated tournaments, through a calibrate run whose judge replays each
/// battle's winner.
#[test]
fn tournaments_fit_bradley_terry_as_chatbot_arena_does() {
    for (t, tournament) in reference()["tournaments"]
        .as_array()
        .expect("tournaments")
        .iter()
        .enumerate()
    {
        let dir = tempfile::tempdir().expect("tempdir");
        let (mut rows, mut recordings) = (String::new(), String::new());
        for (i, b) in tournament["battles"]
            .as_array()
            .expect("battles")
            .iter()
            .enumerate()
        {
            let (a, bb, w) = (
                b[0].as_str().expect("a"),
                b[1].as_str().expect("b"),
                b[2].as_str().expect("w"),
            );
            let (label, verdict) = match w {
                "model_a" => (-1, "[[A]]"),
                "model_b" => (1, "[[B]]"),
                _ => (0, "[[C]]"),
            };
            let (prompt, r1, r2) = (
                format!("battle {i}"),
                format!("{a} says {i}"),
                format!("{bb} says {i}"),
            );
            rows.push_str(&format!("{}\n", json!({"id": i, "prompt": prompt, "r1": r1, "r2": r2, "label": label, "a": a, "b": bb})));
            recordings.push_str(&format!(
                "{}\n",
                json!({"prompt": prompt, "response1": r1, "response2": r2, "completion": verdict})
            ));
        }
        let rows = write(dir.path(), "battles.jsonl", &rows);
        let recordings = write(dir.path(), "recordings.jsonl", &recordings);
        let doc = json_of(&[
            "calibrate",
            "--data",
            rows.to_str().expect("utf-8"),
            "--map",
            "prompt=prompt,response1=r1,response2=r2,label=label,id=id,generator1=a,generator2=b",
            "--judge",
            &format!("replay:{}", recordings.display()),
            "--prompt",
            "mt-bench_pairwise",
            "--reference",
            "gold",
            "--bootstrap",
            "100",
            "--out",
            dir.path().join("run").to_str().expect("utf-8"),
        ]);
        let systems = &doc["configs"][0]["systems"];
        assert_eq!(systems["score"], "elo");
        assert!(systems["baseline"].is_null());
        let models = tournament["models"].as_array().expect("models");
        for (m, elo) in models
            .iter()
            .zip(tournament["elo"].as_array().expect("elo"))
        {
            let got = systems["generators"]
                .as_array()
                .expect("generators")
                .iter()
                .find(|g| g["name"] == *m)
                .unwrap_or_else(|| panic!("{m}"));
            close(
                &got["elo"],
                elo.as_f64().expect("elo"),
                1e-6,
                &format!("tournament {t} {m}"),
            );
        }
        // The judge replays the gold winners: it ranks the models exactly as the gold does.
        close(
            &systems["reference"]["spearman"],
            1.0,
            1e-12,
            "gold spearman",
        );
        assert_eq!(systems["reference"]["source"], "gold");
    }
}

#[test]
fn a_reference_needs_generators_and_its_columns() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rows = write(
        dir.path(),
        "rows.jsonl",
        "{\"p\":\"q\",\"a\":\"x\",\"b\":\"y\",\"l\":1,\"g\":\"m1\",\"h\":\"m2\"}\n",
    );
    let table = write(dir.path(), "arena.csv", "name,elo\nm1,1000\nm2,1100\n");
    let base = |extra: &[&str]| {
        let mut a = vec![
            "calibrate",
            "--data",
            rows.to_str().expect("utf-8"),
            "--judge",
            "sim",
            "--rater",
            "basic",
        ];
        a.extend_from_slice(extra);
        a.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let err = error_of(
        &base(&[
            "--map",
            "prompt=p,response1=a,response2=b,label=l",
            "--reference",
            table.to_str().expect("utf-8"),
            "--reference-map",
            "model=name,score=elo",
        ])
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>(),
    );
    assert!(err.contains("generator1=COL,generator2=COL"), "{err}");
    let err = error_of(
        &base(&[
            "--map",
            "prompt=p,response1=a,response2=b,label=l,generator1=g,generator2=h",
            "--reference",
            table.to_str().expect("utf-8"),
            "--reference-map",
            "model=name,score=rating",
        ])
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>(),
    );
    assert!(
        err.contains("arena.csv")
            && err.contains("no column 'rating'")
            && err.contains("name, elo"),
        "{err}"
    );
    let err = error_of(
        &base(&[
            "--map",
            "prompt=p,response1=a,response2=b,label=l,generator1=g",
        ])
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>(),
    );
    assert!(err.contains("name both"), "{err}");
}

/// Words of a shell command line: white space splits, double quotes group.
fn words(line: &str) -> Vec<String> {
    let (mut out, mut word, mut quoted) = (Vec::new(), String::new(), false);
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// The README's system-level command and its pasted rows: every pasted line is in the output
/// at 100 columns.
#[test]
fn the_readmes_system_level_example_prints_what_it_shows() {
    let Some(shared) = shared_data() else { return };
    let readme = std::fs::read_to_string(crate::common::root().join("docs/methods.md"))
        .expect("docs/methods.md");
    let section = readme
        .split("## The system level: does the judge rank the models as humans do?")
        .nth(1)
        .expect("the methods page's section");
    let mut blocks = section.split("```").skip(1).step_by(2);
    let commands = blocks.next().expect("the commands").replace("\\\n", " ");
    let pasted = blocks.next().expect("the pasted output");
    let line = commands
        .lines()
        .find(|l| l.trim_start().starts_with("raterlab calibrate"))
        .expect("the raterlab line");
    let dir = tempfile::tempdir().expect("tempdir");
    let data = all_models(&shared, dir.path());
    let args: Vec<String> = words(line)
        .into_iter()
        .skip(1)
        .map(|w| {
            w.replace("all.json", data.to_str().expect("utf-8"))
                .replace("../shared/data", shared.to_str().expect("utf-8"))
        })
        .chain([
            "--out".to_string(),
            dir.path().join("run").display().to_string(),
        ])
        .collect();
    let out = crate::common::raterlab(&args.iter().map(String::as_str).collect::<Vec<_>>())
        .env("COLUMNS", "100")
        .output()
        .expect("raterlab runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for line in pasted.lines().map(str::trim_end).filter(|l| !l.is_empty()) {
        assert!(
            text.contains(line),
            "README line not in the output: {line}\n{text}"
        );
    }
}

/// One ranking of the models: Bradley–Terry Elo, with each model's win rate as its view. A
/// model that met only the strongest opponent wins less often than one that met only the
/// weakest, yet is rated above it; the terminal says how many pairs the two order differently
/// and names them, and says so too when they agree.
#[test]
fn the_elo_ranking_says_where_its_win_rate_view_orders_models_differently() {
    let dir = tempfile::tempdir().expect("tempdir");
    // (model 1, model 2, times, response 1 wins of them): A meets only C and wins 40%; B meets
    // only D and wins 60%; C beats D 80% of the time.
    let schedule = [("A", "C", 50, 20), ("B", "D", 50, 30), ("C", "D", 100, 80)];
    let mut csv = String::from("id,gold,rating,g1,g2\n");
    let mut id = 0;
    for (a, b, times, wins) in schedule {
        for k in 0..times {
            let rating = if k < wins { -1 } else { 1 };
            csv.push_str(&format!("{id},{rating},{rating},{a},{b}\n"));
            id += 1;
        }
    }
    let path = write(dir.path(), "battles.csv", &csv);
    let input = path.to_str().expect("utf-8");
    let args = [
        "analyze",
        "--input",
        input,
        "--generators",
        "g1,g2",
        "--bootstrap",
        "50",
    ];
    let doc = json_of(&[&args[..], &["--json"]].concat());
    let models = doc["configs"][0]["systems"]["generators"]
        .as_array()
        .expect("generators")
        .clone();
    let score = |m: &Value, key: &str| m[key].as_f64().expect("number");
    let mut reordered = Vec::new();
    for (i, a) in models.iter().enumerate() {
        for b in &models[i + 1..] {
            if (score(a, "elo") - score(b, "elo")) * (score(a, "win_rate") - score(b, "win_rate"))
                < 0.0
            {
                reordered.push((a["name"].clone(), b["name"].clone()));
            }
        }
    }
    assert!(
        reordered.contains(&(json!("A"), json!("B"))),
        "A (40% against the strongest) above B (60% against the weakest) by Elo: {models:?}"
    );
    let (code, text, err) = crate::common::run(&args);
    assert_eq!(code, 0, "{err}");
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        text.contains(&format!(
            "The win rates order {} of the 6 pairs of models the other way: Elo puts",
            reordered.len()
        )) && text.contains("A above B"),
        "{text}"
    );
    // Every pair in the same order: said too.
    let fair = "id,gold,rating,g1,g2\n0,-1,-1,A,B\n1,-1,-1,A,B\n2,1,1,A,B\n3,-1,-1,B,C\n4,-1,-1,B,C\n5,1,1,B,C\n6,-1,-1,A,C\n7,-1,-1,A,C\n8,-1,-1,A,C\n";
    let fair = write(dir.path(), "fair.csv", fair);
    let (code, text, err) = crate::common::run(&[
        "analyze",
        "--input",
        fair.to_str().expect("utf-8"),
        "--generators",
        "g1,g2",
        "--bootstrap",
        "50",
    ]);
    assert_eq!(code, 0, "{err}");
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        text.contains("The win rates order every pair of the 3 models as Elo does."),
        "{text}"
    );
}
