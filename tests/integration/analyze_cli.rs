//! `raterlab analyze` end to end: output shapes and every bad-input case.

use crate::common::{error_of, json_of, run, write, METRIC_FIELDS};
use polars::prelude::*;
use serde_json::Value;
use std::path::Path;

const RATINGS: &str = "id,subset,gold,rating\n\
a-1,chat,-1,-1\na-2,chat,1,1\na-3,chat,1,0\na-4,chat,-1,1\n\
b-1,safety,1,1\nb-2,safety,-1,-1\nb-3,safety,-1,-1\nb-4,safety,1,-1\n";

#[test]
fn help_shows_examples() {
    let (code, out, _) = run(&["analyze", "--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("Examples:"), "{out}");
    assert!(out.contains("raterlab analyze --gold gold.parquet --ratings judge.jsonl"));
}

#[test]
fn terminal_report_of_the_bundled_example() {
    let (code, out, err) = run(&[
        "analyze",
        "--input",
        "data/example-ratings.csv",
        "--group-col",
        "subset",
    ]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!(out);
}

#[test]
fn json_has_the_documented_fields() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(dir.path(), "r.csv", RATINGS);
    let doc = json_of(&[
        "analyze",
        "--input",
        path.to_str().expect("utf-8"),
        "--group-col",
        "subset",
        "--json",
    ]);
    for key in METRIC_FIELDS
        .iter()
        .copied()
        .chain(["only_in_gold", "only_in_ratings", "groups"])
    {
        assert!(doc.get(key).is_some(), "missing {key}");
    }
    assert_eq!(doc["n"], 8);
    assert_eq!(doc["accuracy"], 0.625);
    assert_eq!(doc["confusion"]["labels"], serde_json::json!([-1, 0, 1]));
    assert_eq!(
        doc["confusion"]["matrix"],
        serde_json::json!([[3, 0, 1], [0, 0, 0], [1, 1, 2]])
    );
    let ci = doc["ci"]["kappa_quadratic"].as_array().expect("interval");
    assert!(ci[0].as_f64().expect("lo") <= ci[1].as_f64().expect("hi"));
    let chat = &doc["groups"]["chat"];
    assert_eq!(chat["n"], 4);
    assert_eq!(chat["accuracy"], 0.5);
    assert_eq!(doc["groups"]["safety"]["accuracy"], 0.75);
}

#[test]
fn undefined_statistics_are_null_in_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(
        dir.path(),
        "c.csv",
        "id,gold,rating\n1,1,0\n2,-1,0\n3,1,0\n",
    );
    let doc = json_of(&[
        "analyze",
        "--input",
        path.to_str().expect("utf-8"),
        "--json",
        "--bootstrap",
        "0",
    ]);
    assert_eq!(doc["spearman"], Value::Null);
    assert_eq!(doc["kendall_p"], Value::Null);
    assert_eq!(doc["kappa"], 0.0);
    assert_eq!(doc["ci"], Value::Null);
}

#[test]
fn bootstrap_is_reproducible_and_seeded() {
    let args = |seed: &'static str| {
        [
            "analyze",
            "--input",
            "data/example-ratings.csv",
            "--json",
            "--seed",
            seed,
        ]
    };
    let a = json_of(&args("3"));
    assert_eq!(a["ci"], json_of(&args("3"))["ci"]);
    assert_ne!(a["ci"], json_of(&args("4"))["ci"]);
}

#[test]
fn two_files_are_joined_on_ids() {
    let dir = tempfile::tempdir().expect("tempdir");
    let gold = write(
        dir.path(),
        "gold.csv",
        "id,gold,subset\nx,1,s\ny,-1,s\nz,1,t\nonly-gold,1,t\n",
    );
    let ratings = dir.path().join("judge.parquet");
    let mut df = df!(
        "id" => ["z", "y", "x", "r1", "r2"],
        "verdict" => [1i64, 0, 1, -1, -1],
    )
    .expect("frame");
    ParquetWriter::new(std::fs::File::create(&ratings).expect("file"))
        .finish(&mut df)
        .expect("parquet written");
    let doc = json_of(&[
        "analyze",
        "--gold",
        gold.to_str().expect("utf-8"),
        "--ratings",
        ratings.to_str().expect("utf-8"),
        "--rating-col",
        "verdict",
        "--group-col",
        "subset",
        "--json",
    ]);
    assert_eq!(doc["n"], 3);
    assert_eq!(doc["only_in_gold"], 1);
    assert_eq!(doc["only_in_ratings"], 2);
    assert_eq!(
        doc["confusion"]["matrix"],
        serde_json::json!([[0, 1, 0], [0, 0, 0], [0, 0, 2]])
    );
    assert_eq!(doc["groups"]["t"]["n"], 1);
}

#[test]
fn jsonl_input_and_likert_labels() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lines: String = [(1, 1), (2, 3), (3, 3), (4, 5), (5, 4), (3, 2)]
        .iter()
        .enumerate()
        .map(|(i, (g, r))| format!("{{\"id\": {i}, \"gold\": {g}, \"rating\": {r}}}\n"))
        .collect();
    let path = write(dir.path(), "likert.jsonl", &lines);
    let doc = json_of(&[
        "analyze",
        "--input",
        path.to_str().expect("utf-8"),
        "--json",
    ]);
    assert_eq!(
        doc["confusion"]["labels"],
        serde_json::json!([1, 2, 3, 4, 5])
    );
    assert_eq!(doc["n"], 6);
    // With an explicit wider scale the unused label changes the weighted kappa's distances.
    let wide = json_of(&[
        "analyze",
        "--input",
        path.to_str().expect("utf-8"),
        "--json",
        "--labels",
        "0,1,2,3,4,5",
    ]);
    assert_eq!(
        wide["confusion"]["labels"],
        serde_json::json!([0, 1, 2, 3, 4, 5])
    );
    assert_eq!(wide["accuracy"], doc["accuracy"]);
}

#[test]
fn tidy_csv_export() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = write(dir.path(), "r.csv", RATINGS);
    let out = dir.path().join("metrics.csv");
    let (code, _, err) = run(&[
        "analyze",
        "--input",
        input.to_str().expect("utf-8"),
        "--group-col",
        "subset",
        "--csv",
        out.to_str().expect("utf-8"),
        "--bootstrap",
        "0",
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&out).expect("csv written");
    let mut lines = text.lines();
    // calibrate's metrics.csv, the rating column as the configuration.
    assert_eq!(
        lines.next(),
        Some("config,scope,n,metric,value,ci_lo,ci_hi")
    );
    assert!(
        text.contains("rating,overall,8,accuracy,0.625,,\n"),
        "{text}"
    );
    assert!(text.contains("rating,chat,4,accuracy,0.5,,\n"), "{text}");
    assert!(
        text.contains("rating,overall,8,parse_rate,1.0,,\n"),
        "{text}"
    );
    // 3 scopes × (8 statistics + 2 p-values + parse rate + reward-bench's credit + 3 policies
    // × 2 metrics) + header
    assert_eq!(text.lines().count(), 55);
}

fn bad_input(dir: &Path, name: &str, contents: &str, extra: &[&str]) -> String {
    let path = write(dir, name, contents);
    let shown = path.display().to_string();
    let mut args = vec!["analyze", "--input", path.to_str().expect("utf-8")];
    args.extend(extra);
    error_of(&args).replace(&shown, "FILE")
}

#[test]
fn error_missing_file() {
    assert_eq!(
        error_of(&["analyze", "--input", "no/such/file.csv"]),
        "error: cannot read 'no/such/file.csv': file not found; check the path"
    );
}

#[test]
fn error_unknown_format() {
    let dir = tempfile::tempdir().expect("tempdir");
    assert_eq!(
        bad_input(dir.path(), "ratings.xlsx", "x", &[]),
        "error: cannot read 'FILE': unknown format '.xlsx'; use a .csv, .parquet, .jsonl or .json file"
    );
}

#[test]
fn error_missing_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    assert_eq!(
        bad_input(dir.path(), "r.csv", "id,label,rating\n1,1,1\n", &[]),
        "error: 'FILE' has no column 'gold' (columns found: id, label, rating); name the right column with --gold-col"
    );
}

#[test]
fn error_non_integer_label() {
    let dir = tempfile::tempdir().expect("tempdir");
    assert_eq!(
        bad_input(dir.path(), "r.csv", "id,gold,rating\n1,1,1\n2,-1,0.5\n", &[]),
        "error: 'FILE', column 'rating', row 2: '0.5' is not an integer label; labels must be whole numbers such as -1, 0, 1"
    );
    assert_eq!(
        bad_input(dir.path(), "w.csv", "id,gold,rating\n1,B,1\n", &[]),
        "error: 'FILE', column 'gold', row 1: 'B' is not an integer label; map text labels to -1, 0, 1 with --gold-map (e.g. --gold-map 'B=0'), or write whole numbers such as -1, 0, 1"
    );
    // A judge's "Tie" names the rating map.
    assert_eq!(
        bad_input(dir.path(), "t.csv", "id,gold,rating
1,1,Tie
", &[]),
        "error: 'FILE', column 'rating', row 1: 'Tie' is not an integer label; map text labels to -1, 0, 1 with --rating-map (e.g. --rating-map 'Tie=0'), or write whole numbers such as -1, 0, 1"
    );
}

#[test]
fn error_null_label() {
    let dir = tempfile::tempdir().expect("tempdir");
    assert_eq!(
        bad_input(dir.path(), "r.csv", "id,gold,rating\n1,1,1\n2,-1,\n3,1,1\n", &[]),
        "error: 'FILE', column 'rating', row 2: the label is missing; every row needs a label (fill it in or drop the row)"
    );
    // A missing gold label is no error: the row is unlabelled, counted, in no measure.
    let file = write(
        dir.path(),
        "g.jsonl",
        "{\"id\":1,\"gold\":1,\"rating\":1}\n{\"id\":2,\"gold\":null,\"rating\":1}\n{\"id\":3,\"gold\":-1,\"rating\":1}\n",
    );
    let doc = json_of(&["analyze", "--input", file.to_str().expect("utf-8")]);
    assert_eq!(
        (doc["n"].as_u64(), doc["unlabelled"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(doc["accuracy"], 0.5);
    let (code, out, err) = run(&["analyze", "--input", file.to_str().expect("utf-8")]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\n1 rated item has no gold label"), "{out}");
}

#[test]
fn error_duplicate_ids() {
    let dir = tempfile::tempdir().expect("tempdir");
    assert_eq!(
        bad_input(dir.path(), "r.csv", "id,gold,rating\nq1,1,1\nq2,-1,1\nq1,1,-1\n", &[]),
        "error: 'FILE', column 'id', row 3: duplicate id 'q1' (first seen at row 1); ids must be unique, remove or rename one"
    );
}

#[test]
fn error_empty_input() {
    let dir = tempfile::tempdir().expect("tempdir");
    assert_eq!(
        bad_input(dir.path(), "r.csv", "id,gold,rating\n", &[]),
        "error: 'FILE' has no rows; nothing to analyze"
    );
    assert_eq!(
        bad_input(dir.path(), "e.csv", "", &[]),
        "error: 'FILE' is empty (0 bytes); check that it was written completely"
    );
}

#[test]
fn error_label_outside_label_set() {
    let dir = tempfile::tempdir().expect("tempdir");
    assert_eq!(
        bad_input(dir.path(), "r.csv", "id,gold,rating\n1,1,1\n2,-1,2\n", &["--labels", "-1,0,1"]),
        "error: 'FILE', column 'rating', row 2: label 2 is not in the label set [-1, 0, 1]; pass --labels with every label used"
    );
    assert_eq!(
        error_of(&["analyze", "--input", "data/example-ratings.csv", "--labels", "-1,x"]),
        "error: --labels: 'x' is not an integer; give whole numbers separated by commas, e.g. --labels=-1,0,1"
    );
}

#[test]
fn error_not_parquet() {
    let dir = tempfile::tempdir().expect("tempdir");
    let message = bad_input(dir.path(), "r.parquet", "id,gold,rating\n1,1,1\n", &[]);
    assert!(
        message.starts_with("error: cannot read 'FILE' as Parquet: ")
            && message.ends_with("; check that the file is complete and in that format"),
        "{message}"
    );
}

#[test]
fn error_no_common_ids() {
    let dir = tempfile::tempdir().expect("tempdir");
    let gold = write(dir.path(), "g.csv", "id,gold\na,1\n");
    let ratings = write(dir.path(), "r.csv", "id,rating\nb,1\n");
    let message = error_of(&[
        "analyze",
        "--gold",
        gold.to_str().expect("utf-8"),
        "--ratings",
        ratings.to_str().expect("utf-8"),
    ]);
    assert!(message.contains("no id appears in both"), "{message}");
}

#[test]
fn usage_errors_exit_2() {
    let (code, _, err) = run(&["analyze"]);
    assert_eq!(code, 2);
    assert!(err.contains("--input"), "{err}");
    let (code, _, _) = run(&["analyze", "--input", "a.csv", "--gold", "b.csv"]);
    assert_eq!(code, 2);
}
