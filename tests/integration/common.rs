//! Helpers that make a new test one line.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixture(name: &str) -> PathBuf {
    root().join("tests").join("fixtures").join(name)
}

/// `raterlab` with these arguments, run from the repository root; the caller's COLUMNS left
/// out, so a test sees what a pipe gets whatever the shell that runs `cargo test` exports (a
/// test of widths sets its own).
pub fn raterlab(args: &[&str]) -> Command {
    let mut cmd = Command::cargo_bin("raterlab").expect("binary built");
    cmd.current_dir(root()).args(args).env_remove("COLUMNS");
    cmd
}

/// Runs `raterlab` and returns (exit code, stdout, stderr).
pub fn run(args: &[&str]) -> (i32, String, String) {
    let out = raterlab(args).output().expect("raterlab runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `raterlab ARGS... --json` (`--json` added when missing) expecting success; its JSON
/// document.
#[allow(dead_code)]
pub fn json_of(args: &[&str]) -> serde_json::Value {
    let mut args = args.to_vec();
    if !args.contains(&"--json") {
        args.push("--json");
    }
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "raterlab {args:?}: {err}");
    serde_json::from_str(&out).expect("JSON on stdout")
}

/// Runs `raterlab` expecting bad input: exit code 2, nothing on stdout, a one-line error,
/// which is returned. A value typed when the command line is read is clap's usage error: its
/// one line naming the value and the flag, then clap's pointer to --help, and nothing else.
pub fn error_of(args: &[&str]) -> String {
    let (code, out, err) = run(args);
    assert_eq!(code, 2, "exit code for bad input; stderr: {err}");
    assert!(out.is_empty(), "nothing on stdout: {out}");
    let err = match err.strip_suffix("\n\nFor more information, try '--help'.\n") {
        Some(first) if first.starts_with("error: invalid value '") => format!("{first}\n"),
        _ => err,
    };
    assert_eq!(err.lines().count(), 1, "one-line error: {err}");
    err.trim_end().to_string()
}

/// How many completions the response store in `cache` holds (0 when it has none yet), read
/// as a user would, with SQLite, while a run may be writing it.
#[allow(dead_code)]
pub fn stored(cache: &Path) -> usize {
    let path = cache.join("completions.sqlite");
    if !path.is_file() {
        return 0;
    }
    let open =
        rusqlite::Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY);
    open.and_then(|c| {
        c.busy_timeout(std::time::Duration::from_secs(10))?;
        c.query_row("SELECT count(*) FROM completions", [], |r| {
            r.get::<_, i64>(0)
        })
    })
    .map_or(0, |n| n as usize)
}

/// Writes a file into a temporary directory and returns its path.
pub fn write(dir: &Path, name: &str, contents: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("temp file written");
    path
}

/// `../shared/data`, or `None` (with a notice) when it is missing. With
/// `RATERLAB_REQUIRE_SHARED=1` (set by .ci/run) a missing folder fails the test instead.
#[allow(dead_code)]
pub fn shared_data() -> Option<PathBuf> {
    let dir = root().join("..").join("shared").join("data");
    if dir.is_dir() {
        return Some(dir);
    }
    missing(
        "RATERLAB_REQUIRE_SHARED",
        &format!("{} is missing", dir.display()),
    );
    None
}

/// A test's prerequisite is missing: a failure when `require` is set to 1 (as .ci/run does),
/// otherwise a printed notice and the test is skipped.
#[allow(clippy::print_stderr)]
pub fn missing(require: &str, what: &str) {
    if std::env::var(require).is_ok_and(|v| v == "1") {
        panic!("{require}=1 but {what}");
    }
    eprintln!("skipped: {what} (set {require}=1 to fail instead)");
}

/// The fields of analyze's metric object (README, "analyze JSON output"), which calibrate's
/// `overall` and `by_subset` entries hold too.
pub const METRIC_FIELDS: [&str; 11] = [
    "n",
    "accuracy",
    "kappa",
    "kappa_linear",
    "kappa_quadratic",
    "spearman",
    "spearman_p",
    "kendall_tau_b",
    "kendall_p",
    "confusion",
    "ci",
];

/// A column of a run directory's ratings.parquet as floats (missing values `None`).
#[allow(dead_code)]
pub fn ratings_floats(run_dir: &Path, column: &str) -> Vec<Option<f64>> {
    let values = ratings_column(run_dir, column, polars::prelude::DataType::Float64);
    values.f64().expect("floats").iter().collect()
}

/// A column of a run directory's ratings.parquet, cast to `kind`.
fn ratings_column(
    run_dir: &Path,
    column: &str,
    kind: polars::prelude::DataType,
) -> polars::prelude::Series {
    use polars::prelude::SerReader;
    let file = std::fs::File::open(run_dir.join("ratings.parquet")).expect("ratings.parquet");
    let df = polars::prelude::ParquetReader::new(file)
        .finish()
        .expect("parquet");
    df.column(column)
        .expect("the column")
        .as_materialized_series()
        .cast(&kind)
        .expect("the column in that type")
}

/// A column of a run directory's ratings.parquet as text (missing values `None`).
#[allow(dead_code)]
pub fn ratings_strings(run_dir: &Path, column: &str) -> Vec<Option<String>> {
    let values = ratings_column(run_dir, column, polars::prelude::DataType::String);
    values
        .str()
        .expect("strings")
        .iter()
        .map(|v| v.map(str::to_string))
        .collect()
}

/// A best-of file's rows (RewardBench 2, Ties): id, subset, prompt, the chosen and the rejected
/// texts.
#[allow(dead_code)]
pub struct ListRow {
    pub id: String,
    pub subset: String,
    pub prompt: String,
    pub chosen: Vec<String>,
    pub rejected: Vec<String>,
}

/// The rows of a parquet file with `id, subset, prompt` and `chosen`/`rejected` lists.
#[allow(dead_code)]
pub fn list_rows(path: &Path) -> Vec<ListRow> {
    use polars::prelude::SerReader;
    let df = polars::prelude::ParquetReader::new(std::fs::File::open(path).expect("the file"))
        .finish()
        .expect("parquet");
    let text = |c: &str| -> Vec<String> {
        df.column(c)
            .expect("column")
            .cast(&polars::prelude::DataType::String)
            .expect("text")
            .str()
            .expect("text")
            .iter()
            .map(|s| s.expect("text").to_string())
            .collect()
    };
    let list = |c: &str| -> Vec<Vec<String>> {
        df.column(c)
            .expect("column")
            .list()
            .expect("list")
            .series_iter()
            .map(|s| {
                s.expect("list")
                    .str()
                    .expect("texts")
                    .iter()
                    .map(|t| t.expect("text").to_string())
                    .collect()
            })
            .collect()
    };
    let (ids, subsets, prompts) = (text("id"), text("subset"), text("prompt"));
    ids.into_iter()
        .zip(subsets)
        .zip(prompts)
        .zip(list("chosen").into_iter().zip(list("rejected")))
        .map(|(((id, subset), prompt), (chosen, rejected))| ListRow {
            id,
            subset,
            prompt,
            chosen,
            rejected,
        })
        .collect()
}

/// A comparison's paired test on `metric` (`{a, b, metric, diff, ci, ci_level, p, p_holm,
/// finding}`), from its `tests`.
pub fn paired<'a>(comparison: &'a serde_json::Value, metric: &str) -> &'a serde_json::Value {
    comparison["tests"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["metric"] == metric))
        .unwrap_or_else(|| panic!("no {metric} test in {comparison}"))
}

/// `value` with every key `key` taken out, at any depth.
#[allow(dead_code)]
pub fn without(value: &serde_json::Value, key: &str) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| k.as_str() != key)
                .map(|(k, v)| (k.clone(), without(v, key)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|v| without(v, key)).collect()),
        v => v.clone(),
    }
}

/// `calibrate` on sample-v2 by three simulated models under two protocols, and the jury `poll`
/// of the three under each (8 configurations), with `bootstrap` resamples, into `out`.
pub fn rb2_poll<'a>(out: &'a str, bootstrap: &'a str) -> Vec<&'a str> {
    vec![
        "calibrate",
        "--data",
        "sample-v2",
        "--judge",
        "sim",
        "--model",
        "s1",
        "--model",
        "s2",
        "--model",
        "s3",
        "--prompt",
        "rb2_ranking",
        "--prompt",
        "rb2_rating",
        "--jury",
        "poll=s1,s2,s3",
        "--bootstrap",
        bootstrap,
        "--out",
        out,
    ]
}

/// Two JSON values equal: numbers to 1e-9, anything else exactly.
#[allow(dead_code)]
pub fn close(got: &serde_json::Value, want: &serde_json::Value, what: &str) {
    match (got.as_f64(), want.as_f64()) {
        (Some(g), Some(w)) => assert!((g - w).abs() < 1e-9, "{what}: {g} vs {w}"),
        _ => assert_eq!(got, want, "{what}"),
    }
}
