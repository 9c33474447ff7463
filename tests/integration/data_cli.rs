//! `raterlab data summary|export`: loading, positions, selection and bad input.

use crate::common::{error_of, root, run, shared_data, write};
use polars::prelude::*;
use std::path::Path;

fn ok(args: &[&str]) -> String {
    let (code, out, err) = run(args);
    assert_eq!(code, 0, "stderr: {err}");
    out
}

fn export(dir: &Path, name: &str, extra: &[&str]) -> DataFrame {
    let out = dir.join(name);
    let mut args = vec!["data", "export", "--out", out.to_str().expect("utf-8")];
    args.extend(extra);
    ok(&args);
    ParquetReader::new(std::fs::File::open(&out).expect("written"))
        .finish()
        .expect("parquet")
}

fn strings(df: &DataFrame, col: &str) -> Vec<String> {
    df.column(col)
        .expect("column")
        .str()
        .expect("text")
        .iter()
        .map(|v| v.unwrap_or("").to_string())
        .collect()
}

fn ints(df: &DataFrame, col: &str) -> Vec<i64> {
    df.column(col)
        .expect("column")
        .i64()
        .expect("ints")
        .iter()
        .map(|v| v.unwrap_or(99))
        .collect()
}

/// The bundled sample's chosen response of each pair id.
fn chosen_by_id() -> std::collections::HashMap<String, String> {
    let df = ParquetReader::new(
        std::fs::File::open(root().join("data/sample.parquet")).expect("sample"),
    )
    .finish()
    .expect("parquet");
    let ids: Vec<String> = strings(&df, "subset")
        .iter()
        .zip(ints(&df, "id"))
        .map(|(s, i)| format!("{s}-{i}"))
        .collect();
    ids.into_iter().zip(strings(&df, "chosen")).collect()
}

#[test]
fn golden_labels_follow_the_chosen_response() {
    let dir = tempfile::tempdir().expect("tempdir");
    let df = export(dir.path(), "ex.parquet", &[]);
    let chosen = chosen_by_id();
    assert_eq!(df.height(), 43);
    let (mut first, mut second) = (0, 0);
    for ((id, r1), gold) in strings(&df, "id")
        .iter()
        .zip(strings(&df, "response1"))
        .zip(ints(&df, "gold"))
    {
        if chosen[id] == r1 {
            assert_eq!(gold, -1, "{id}");
            first += 1;
        } else {
            assert_eq!(gold, 1, "{id}");
            second += 1;
        }
    }
    assert!(
        first >= 10 && second >= 10,
        "positions are mixed: {first} / {second}"
    );
}

#[test]
fn positions_do_not_move_when_selecting() {
    let dir = tempfile::tempdir().expect("tempdir");
    let all = export(dir.path(), "all.parquet", &[]);
    let some = export(
        dir.path(),
        "some.parquet",
        &["--subset", "hep-*", "--subset", "math-prm"],
    );
    assert_eq!(some.height(), 11);
    let gold_of: std::collections::HashMap<String, i64> = strings(&all, "id")
        .into_iter()
        .zip(ints(&all, "gold"))
        .collect();
    for (id, gold) in strings(&some, "id").iter().zip(ints(&some, "gold")) {
        assert_eq!(gold_of[id], gold, "{id}");
    }
    let other_seed = export(dir.path(), "seed.parquet", &["--seed", "7"]);
    assert_ne!(ints(&all, "gold"), ints(&other_seed, "gold"));
}

#[test]
fn both_orders_and_stratified_limit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let both = export(dir.path(), "both.parquet", &["--both-orders"]);
    assert_eq!(both.height(), 86);
    let golds = ints(&both, "gold");
    assert_eq!(golds.iter().filter(|&&g| g == -1).count(), 43);
    let limited = export(dir.path(), "limit.parquet", &["--limit", "23"]);
    let mut subsets = strings(&limited, "subset");
    subsets.sort();
    subsets.dedup();
    assert_eq!(
        (limited.height(), subsets.len()),
        (23, 23),
        "one pair of every subset"
    );
    let per = export(
        dir.path(),
        "per.parquet",
        &["--per-subset", "1", "--section", "chat"],
    );
    assert_eq!(per.height(), 5);
}

#[test]
fn export_formats_and_summary() {
    let dir = tempfile::tempdir().expect("tempdir");
    for name in ["ex.csv", "ex.jsonl"] {
        let out = dir.path().join(name);
        ok(&[
            "data",
            "export",
            "--section",
            "safety",
            "--out",
            out.to_str().expect("utf-8"),
        ]);
        let text = std::fs::read_to_string(&out).expect("written");
        assert!(text.contains("refusals-dangerous-0"), "{name}");
    }
    let summary = ok(&["data", "summary"]);
    assert!(summary.contains("43 items · seed 42"), "{summary}");
    assert!(summary.contains("│ reasoning ┆    11 │"), "{summary}");
}

fn summary_of(path: &Path) -> String {
    error_of(&["data", "summary", "--data", path.to_str().expect("utf-8")])
        .replace(&path.display().to_string(), "FILE")
}

fn write_parquet(path: &Path, mut df: DataFrame) {
    ParquetWriter::new(std::fs::File::create(path).expect("file"))
        .finish(&mut df)
        .expect("parquet");
}

fn reward_bench_frame(prompt: Vec<Option<&str>>, ids: Vec<i64>) -> DataFrame {
    let n = prompt.len();
    df!(
        "prompt" => prompt,
        "chosen" => vec!["good"; n],
        "chosen_model" => vec!["m"; n],
        "rejected" => vec!["bad"; n],
        "rejected_model" => vec!["m"; n],
        "subset" => vec!["s"; n],
        "id" => ids,
    )
    .expect("frame")
}

#[test]
fn bad_data_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let not_parquet = write(d, "text.parquet", "prompt,chosen\n");
    assert!(summary_of(&not_parquet).starts_with("error: cannot read 'FILE' as Parquet:"));

    let sample = std::fs::read(root().join("data/sample.parquet")).expect("sample");
    let truncated = d.join("truncated.parquet");
    std::fs::write(&truncated, &sample[..sample.len() / 2]).expect("written");
    assert!(summary_of(&truncated).starts_with("error: cannot read 'FILE' as Parquet:"));

    let empty = write(d, "empty.parquet", "");
    assert_eq!(
        summary_of(&empty),
        "error: 'FILE' is empty (0 bytes); check that it was written completely"
    );

    let missing = d.join("missing.parquet");
    write_parquet(
        &missing,
        reward_bench_frame(vec![Some("p")], vec![0])
            .drop("chosen_model")
            .expect("drop"),
    );
    assert_eq!(
        summary_of(&missing),
        "error: 'FILE' is not in reward-bench's schema: no column 'chosen_model' (columns found: prompt, chosen, rejected, rejected_model, subset, id); reward-bench files have prompt, chosen, chosen_model, rejected, rejected_model, subset, id; for other files use --map"
    );

    let null_prompt = d.join("null.parquet");
    write_parquet(
        &null_prompt,
        reward_bench_frame(vec![Some("p"), None], vec![0, 1]),
    );
    assert_eq!(
        summary_of(&null_prompt),
        "error: 'FILE', column 'prompt', row 2: the prompt is missing (null); fill it in or drop the row"
    );

    let duplicate = d.join("dup.parquet");
    write_parquet(
        &duplicate,
        reward_bench_frame(vec![Some("a"), Some("b"), Some("c")], vec![0, 1, 0]),
    );
    assert_eq!(
        summary_of(&duplicate),
        "error: 'FILE', row 3: duplicate example id 's-0' (first seen at row 1); ids ({subset}-{id}) must be unique"
    );

    let mistyped = d.join("typed.parquet");
    let mut df = reward_bench_frame(vec![Some("p")], vec![0]);
    df.with_column(Column::new("subset".into(), [3i64]))
        .expect("replace");
    write_parquet(&mistyped, df);
    assert_eq!(
        summary_of(&mistyped),
        "error: 'FILE', column 'subset': has type i64, expected text as in reward-bench's schema"
    );
}

#[test]
fn bad_selection_and_mapping() {
    let unknown = error_of(&["data", "summary", "--subset", "alpaca"]);
    assert!(
        unknown.starts_with(
            "error: --subset 'alpaca' matches no subset of the data (subsets: alpacaeval-easy,"
        ),
        "{unknown}"
    );
    assert_eq!(
        error_of(&["data", "summary", "--limit", "0"]),
        "error: --limit 0 selects nothing; give a positive number of pairs"
    );
    assert_eq!(
        error_of(&["data", "summary", "--section", "coding"]),
        "error: --section 'coding' is not a reward-bench section; use chat, chat-hard, safety or reasoning"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write(dir.path(), "p.csv", "a,b,w\nx,y,A\nz,q,C\n");
    let message = error_of(&[
        "data",
        "summary",
        "--data",
        file.to_str().expect("utf-8"),
        "--map",
        "response1=a,response2=b,label=w",
        "--gold-map",
        "A=-1,B=1",
    ]);
    assert!(message.ends_with("column 'w', row 2: label 'C' has no gold label; map it with --gold-map (e.g. --gold-map 'C=-1'), gold labels are -1 (response 1 better), 0 (tie), 1 (response 2 better)"), "{message}");
    // Names with no map: each needs its side, and the message gives a map to start from.
    let arena = write(
        dir.path(),
        "arena.csv",
        "a,b,w1,w2,w3\nx,y,model_a,tie,model_b\nz,q,model_a,model_a,\n",
    );
    let arena = arena.to_str().expect("utf-8");
    let base = [
        "data",
        "summary",
        "--data",
        arena,
        "--map",
        "response1=a,response2=b,label=w1+w2+w3",
    ];
    let message = error_of(&base);
    assert!(message.ends_with("column 'w1', row 1: label 'model_a' is a name, and a judge's verdict on a pair says which response is better (-1: response 1, 0: a tie, 1: response 2), so each name needs its side: --gold-map 'model_a=-1,model_b=1,tie=0' (SIDE: -1, 0 or 1)"), "{message}");
    // With the map, an empty cell is that annotator's missing label: row 2's majority is
    // model_a's two votes, and row 1 (one vote each) has none.
    let mapped = [
        "--gold-map",
        "model_a=-1,model_b=1,tie=0",
        "--no-majority",
        "tie",
    ];
    let (code, out, err) = run(&[&base[..], &mapped[..]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("\n2 items ·") && out.contains("\n1 pairs kept as ties"),
        "{out}"
    );
    assert!(
        out.contains("│ data   ┆       - ┆     2 ┆      1 ┆        1 ┆      0 ┆"),
        "{out}"
    );
    let message = error_of(&["data", "summary", "--data", file.to_str().expect("utf-8")]);
    assert!(
        message.contains(
            "is not in reward-bench's schema (columns found: a, b, w); map its columns with --map"
        ),
        "{message}"
    );
}

#[test]
fn llmbar_in_reward_bench_schema() {
    let Some(shared) = shared_data() else { return };
    let path = shared.join("llmbar/llmbar-reward-bench-schema.parquet");
    let dir = tempfile::tempdir().expect("tempdir");
    let df = export(
        dir.path(),
        "llmbar.parquet",
        &["--data", path.to_str().expect("utf-8")],
    );
    assert_eq!(df.height(), 419);
    let subsets = strings(&df, "subset");
    for (name, count) in [
        ("llmbar-natural", 100),
        ("llmbar-adver-neighbor", 134),
        ("llmbar-adver-GPTInst", 92),
        ("llmbar-adver-GPTOut", 47),
        ("llmbar-adver-manual", 46),
    ] {
        assert_eq!(
            subsets.iter().filter(|s| *s == name).count(),
            count,
            "{name}"
        );
    }
    assert!(strings(&df, "id").contains(&"llmbar-natural-0".to_string()));
}

#[test]
fn pandalm_with_three_annotators() {
    let Some(shared) = shared_data() else { return };
    let path = shared.join("pandalm/testset-v1.jsonl");
    let dir = tempfile::tempdir().expect("tempdir");
    let df = export(dir.path(), "pandalm.parquet", &[
        "--data", path.to_str().expect("utf-8"),
        "--map", "prompt=instruction+input,response1=response1,response2=response2,label=annotator1+annotator2+annotator3,id=idx,subset=motivation_app",
        "--gold-map", "0=0,1=-1,2=1",
    ]);
    let golds = ints(&df, "gold");
    // Majorities computed independently in Python: 422 × response 1, 105 ties, 472 × response 2.
    assert_eq!(df.height(), 999);
    assert_eq!(
        (
            golds.iter().filter(|&&g| g == -1).count(),
            golds.iter().filter(|&&g| g == 0).count(),
            golds.iter().filter(|&&g| g == 1).count()
        ),
        (422, 105, 472)
    );
    assert!(strings(&df, "prompt")[0].contains("\n\nIf you have any questions about my rate"));
}
