//! ARCHITECTURE.md names only what exists: every file it names with a path (`room/file.rs`)
//! is in `src/` (or `tests/`, `benches/`), every bare file name (`file.rs`) is somewhere
//! there, and every `room::Name` path's last name is declared in that room's files. The rules
//! a test can check each have their own test (`layers.rs`, `rules.rs`, `schema.rs`); this one
//! keeps the map's names true as the code moves.

use crate::common::root;
use std::path::Path;

fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a folder").flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The backticked spans of the text.
fn quoted(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

#[test]
fn every_file_and_path_the_architecture_names_exists() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let mut files = Vec::new();
    for dir in ["src", "tests", "benches"] {
        sources(&root().join(dir), &mut files);
    }
    let relative: Vec<String> = files
        .iter()
        .filter_map(|f| f.strip_prefix(root()).ok())
        .map(|f| f.to_string_lossy().replace('\\', "/"))
        .collect();
    let mut missing = Vec::new();
    let mut checked = 0;
    for span in quoted(&text) {
        let name = span.trim();
        if name.ends_with(".rs") && !name.contains(' ') && !name.contains('<') {
            checked += 1;
            let found = relative.iter().any(|r| {
                r.ends_with(&format!("/{name}")) || r == name || r == &format!("src/{name}")
            });
            if !found {
                missing.push(name.to_string());
            }
        }
    }
    assert!(checked > 50, "the check reads the file names ({checked})");
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names files that do not exist: {missing:?}"
    );
}

#[test]
fn every_room_path_the_architecture_names_is_declared_in_its_room() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let rooms = [
        "cli",
        "commands",
        "dataset",
        "evaluation",
        "judge",
        "label",
        "metrics",
        "prompts",
        "raters",
        "report",
        "run",
        "verdicts",
    ];
    let mut missing = Vec::new();
    let mut checked = 0;
    for span in quoted(&text) {
        let path: Vec<&str> = span.trim().split("::").collect();
        let ident = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_');
        if path.len() < 2 || !rooms.contains(&path[0]) || !path.iter().all(|s| ident(s)) {
            continue;
        }
        checked += 1;
        let mut files = Vec::new();
        sources(&root().join("src").join(path[0]), &mut files);
        let last = path[path.len() - 1];
        let declared = files.iter().any(|f| {
            let code = std::fs::read_to_string(f).unwrap_or_default();
            code.contains(&format!("fn {last}"))
                || code.contains(&format!("struct {last}"))
                || code.contains(&format!("enum {last}"))
                || code.contains(&format!("trait {last}"))
                || code.contains(&format!("type {last}"))
                || code.contains(&format!("mod {last}"))
                || code.contains(&format!("const {last}"))
                || code.contains(&format!("    {last},"))
                || code.contains(&format!("    {last} {{"))
                || code.contains(&format!("    {last}("))
                || code.contains(&format!("pub use {last}"))
                || f.file_stem().is_some_and(|s| s == last)
                || f.parent()
                    .and_then(|p| p.file_name())
                    .is_some_and(|p| p == last)
        });
        if !declared {
            missing.push(span.to_string());
        }
    }
    assert!(checked > 40, "the check reads the paths ({checked})");
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths no room declares: {missing:?}"
    );
}

/// Keyed random streams: no file in `evaluation/` or `metrics/` makes a generator but
/// `metrics/random.rs`, so every draw there is `stream(seed, purpose, index)`.
#[test]
fn every_analytic_draws_from_a_keyed_stream() {
    let mut files = Vec::new();
    for dir in ["src/evaluation", "src/metrics"] {
        sources(&root().join(dir), &mut files);
    }
    assert!(
        files.len() > 40,
        "the check reads the rooms ({})",
        files.len()
    );
    let mut makers = Vec::new();
    for file in &files {
        if file.ends_with("metrics/random.rs") {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("a source file");
        for (n, line) in text.lines().enumerate() {
            let makes = [
                "seed_from_u64",
                "from_seed",
                "from_os_rng",
                "rand::rng()",
                "thread_rng",
            ]
            .iter()
            .any(|m| line.contains(m));
            if makes {
                makers.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        makers.is_empty(),
        "generators made outside metrics::random::stream:\n{}",
        makers.join("\n")
    );
}
