//! Bias diagnostics on LLMBar's recorded GPT-4 judge (../shared/data/llmbar): every share
//! recomputed here from the run directory's own files by the definitions (an implementation
//! independent of raterlab's), the baselines' known preferences, the subsets where length
//! predicts gold, and `report DIR` rebuilding the same figures from items.jsonl.

use crate::common::{json_of, run, shared_data};
use serde_json::Value;
use std::collections::HashMap;

fn lines(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("file")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

/// P(picks the target | the judge picked) by the definition: items where `target` gives a
/// side, the judge's pick among -1/1.
fn share(rows: &[(i64, i64)]) -> f64 {
    let picked: Vec<&(i64, i64)> = rows.iter().filter(|(pick, _)| *pick != 0).collect();
    picked
        .iter()
        .filter(|(pick, target)| pick == target)
        .count() as f64
        / picked.len() as f64
}

#[test]
fn llmbar_gpt4_prefers_length_beyond_gold_and_the_figures_follow_their_definitions() {
    let Some(shared) = shared_data() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run");
    let data = shared.join("llmbar/llmbar-reward-bench-schema.parquet");
    let judge = format!(
        "replay:{}",
        shared.join("llmbar/judges/GPT-4-Vanilla.jsonl").display()
    );
    let args = [
        "calibrate",
        "--data",
        data.to_str().expect("utf-8"),
        "--both-orders",
        "--judge",
        &judge,
        "--prompt",
        "simple_no_tie",
        "--parser",
        "output_ab",
        "--rater",
        "basic",
        "--rater",
        "longer",
        "--rater",
        "first",
        "--bootstrap",
        "200",
        "--json",
        "--out",
        out.to_str().expect("utf-8"),
    ];
    let doc = json_of(&args);
    let config = |name: &str| -> &Value {
        doc["configs"]
            .as_array()
            .expect("configs")
            .iter()
            .find(|c| c["name"] == name)
            .expect("configuration")
    };
    // Recompute the length preference of the judge and of gold from items.jsonl and
    // ratings.csv: the longer response's side where lengths differ by more than 30 characters.
    let longer: HashMap<String, i64> = lines(&out.join("items.jsonl"))
        .iter()
        .filter_map(|item| {
            let len = |k: &str| item[k].as_str().expect("text").chars().count() as i64;
            let (a, b) = (len("response1"), len("response2"));
            ((a - b).abs() > 30).then(|| {
                (
                    item["id"].as_str().expect("id").to_string(),
                    if b > a { 1 } else { -1 },
                )
            })
        })
        .collect();
    let mut reader = csv_rows(&out.join("ratings.csv"));
    let header = reader.remove(0);
    let col = |name: &str| header.iter().position(|h| h == name).expect("column");
    let (c_config, c_id, c_gold, c_rating) = (col("config"), col("id"), col("gold"), col("rating"));
    let mut judge_rows = Vec::new();
    let mut gold_rows = Vec::new();
    for row in reader
        .iter()
        .filter(|r| r[c_config] == "simple_no_tie/basic")
    {
        if let Some(target) = longer.get(&row[c_id]) {
            let rating: i64 = row[c_rating].parse().unwrap_or(0);
            judge_rows.push((rating, *target));
            gold_rows.push((row[c_gold].parse::<i64>().expect("gold"), *target));
        }
    }
    let bias = &config("simple_no_tie/basic")["overall"]["bias"];
    let length = &bias["length"];
    assert_eq!(length["items"].as_u64(), Some(longer.len() as u64));
    let (judge, gold) = (share(&judge_rows), share(&gold_rows));
    assert!((length["judge"].as_f64().expect("judge") - judge).abs() < 1e-12);
    assert!((length["gold"].as_f64().expect("gold") - gold).abs() < 1e-12);
    assert!((length["excess"].as_f64().expect("excess") - (judge - gold)).abs() < 1e-12);
    // GPT-4 prefers the longer answer more often than LLMBar's gold does (LLMBar's
    // adversarial sets make the longer answer the worse one), and the length-adjusted model
    // agrees: a positive length coefficient whose CI excludes 0.
    let ci = &length["ci"]["excess"];
    assert!(ci[0].as_f64().expect("lo") > 0.0, "{length}");
    let model = &config("simple_no_tie/basic")["length_model"];
    assert!(
        model["length"].as_f64().expect("coef") > 0.0
            && model["length_ci"][0].as_f64().expect("lo") > 0.0,
        "{model}"
    );
    // The baselines prefer what they are built to prefer.
    assert_eq!(
        config("baseline/longer")["overall"]["bias"]["length"]["judge"],
        1.0
    );
    assert_eq!(
        config("baseline/first")["overall"]["bias"]["first_position"]["judge"],
        1.0
    );
    // With both orders, gold names response 1 exactly half the time.
    assert_eq!(bias["first_position"]["gold"], 0.5);
    // The subsets where length alone predicts gold are flagged.
    let flagged: Vec<&str> = config("simple_no_tie/basic")["by_subset"]
        .as_object()
        .expect("subsets")
        .iter()
        .filter(|(_, s)| s["bias"]["length_predicts_gold"] == true)
        .map(|(name, _)| name.as_str())
        .collect();
    assert!(flagged.contains(&"llmbar-adver-neighbor"), "{flagged:?}");
    // The outputs: metrics.csv rows, bias.svg, the terminal section; report DIR agrees.
    let csv = std::fs::read_to_string(out.join("metrics.csv")).expect("metrics.csv");
    assert!(
        csv.contains(",bias_length_excess,") && csv.contains(",length_coef,"),
        "rows"
    );
    let svg = std::fs::read_to_string(out.join("bias.svg")).expect("bias.svg");
    assert!(svg.contains("prefers the longer response") && svg.contains("gold labels"));
    let again = json_of(&["report", out.to_str().expect("utf-8")]);
    for (a, b) in doc["configs"]
        .as_array()
        .expect("configs")
        .iter()
        .zip(again["configs"].as_array().expect("configs"))
    {
        assert_eq!(a["overall"]["bias"], b["overall"]["bias"]);
        assert_eq!(a["length_model"], b["length_model"]);
    }
    let (code, text, err) = run(&["report", out.to_str().expect("utf-8")]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("Bias: how often each prefers") && text.contains("llmbar-adver-neighbor ("),
        "{text}"
    );
}

/// A CSV file as rows of fields (quotes handled).
fn csv_rows(path: &std::path::Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).expect("csv");
    let mut rows = Vec::new();
    let (mut row, mut field, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => row.push(std::mem::take(&mut field)),
            ('\n', false) => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            _ => field.push(c),
        }
    }
    rows
}
