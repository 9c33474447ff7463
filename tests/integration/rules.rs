//! ARCHITECTURE.md's rules ("what is never done") that a test can check by reading `src/`:
//! which files may name tokio, reqwest and polars, where printing happens, that `metrics/`
//! and `evaluation/` do no I/O, that `metrics/` uses nothing but itself, and that no draw
//! leans on Rust's `Hash`. The rules no test can check are listed there as such.

use crate::layers::{sources, strip_comments};
use std::path::Path;

/// The files (code, comments left out) where `pattern` occurs, but for those `allowed` says
/// may name it.
fn found_outside(pattern: &str, allowed: impl Fn(&Path) -> bool) -> Vec<String> {
    let re = regex::Regex::new(pattern).expect("a valid regex");
    let files = sources();
    assert!(files.len() > 50, "read {} files from src/", files.len());
    files
        .iter()
        .filter(|(path, text)| !allowed(path) && re.is_match(&strip_comments(text)))
        .map(|(path, _)| path.display().to_string())
        .collect()
}

/// The files that name `pattern`, to show a rule is not vacuous.
fn found_in(pattern: &str) -> usize {
    found_outside(pattern, |_| false).len()
}

#[test]
fn each_crate_stays_in_its_rooms() {
    let tokio = |p: &Path| p.starts_with("judge") || p == Path::new("label/server.rs");
    let axum = |p: &Path| p == Path::new("label/server.rs");
    let rusqlite = |p: &Path| p.starts_with("judge/cache") || p == Path::new("label/store.rs");
    let reqwest = |p: &Path| {
        p.starts_with("judge/openai")
            || [
                "judge/http.rs",
                "judge/reward.rs",
                "judge/batch/api.rs",
                "dataset/hub.rs",
            ]
            .iter()
            .any(|f| p == Path::new(f))
    };
    let polars = |p: &Path| {
        p.starts_with("dataset")
            || p.starts_with("report")
            || p.starts_with("run/read")
            || p == Path::new("run/write.rs")
    };
    for (name, pattern, allowed) in [
        ("tokio", r"\btokio::", &tokio as &dyn Fn(&Path) -> bool),
        ("reqwest", r"\breqwest::", &reqwest),
        ("polars", r"\bpolars::", &polars),
        ("axum", r"\baxum::", &axum),
        ("rusqlite", r"\brusqlite::", &rusqlite),
    ] {
        assert!(
            found_in(pattern) > 0,
            "{name}: the check reads no use at all"
        );
        let outside = found_outside(pattern, allowed);
        assert!(
            outside.is_empty(),
            "{name} named outside its rooms: {outside:?}"
        );
    }
}

#[test]
fn only_report_media_prints() {
    let pattern = r"\be?print(ln)?!";
    assert!(found_in(pattern) > 0, "the check reads no print at all");
    let outside = found_outside(pattern, |p| p == Path::new("report/media/format.rs"));
    assert!(
        outside.is_empty(),
        "printing outside report::media::format: {outside:?}"
    );
}

#[test]
fn metrics_and_evaluation_do_no_io_and_metrics_uses_only_itself() {
    let pure = |p: &Path| p.starts_with("metrics") || p.starts_with("evaluation");
    let io = r"\bstd::(fs|net|process)\b|\bFile::|\bpolars::|\bDataFrame\b|\breqwest::|\bstdin\(|\bstdout\(";
    assert!(found_in(io) > 0, "the check reads no I/O at all");
    let impure = found_outside(io, |p| !pure(p));
    assert!(impure.is_empty(), "I/O in a pure room: {impure:?}");
    let room = regex::Regex::new(r"\bcrate::([a-z_]+)").expect("a valid regex");
    let files = sources();
    let metrics = files.iter().filter(|(p, _)| p.starts_with("metrics"));
    let beyond: Vec<String> = metrics
        .flat_map(|(p, text)| {
            let code = strip_comments(text);
            let rooms: Vec<String> = room
                .captures_iter(&code)
                .map(|c| c[1].to_string())
                .collect();
            rooms
                .into_iter()
                .filter(|r| r != "metrics")
                .map(move |r| format!("{} uses {r}", p.display()))
        })
        .collect();
    assert!(beyond.is_empty(), "metrics/ uses another room: {beyond:?}");
}

#[test]
fn no_draw_leans_on_rusts_hash() {
    let pattern = r"\b(DefaultHasher|RandomState|BuildHasher|SipHasher)\b";
    let found = found_outside(pattern, |_| false);
    assert!(
        found.is_empty(),
        "seed draws with stable_hash, not Rust's Hash: {found:?}"
    );
}
