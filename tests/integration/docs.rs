//! The documentation and `--help` agree (#46): every subcommand's `--help` ends with a pointer
//! to a section of the guide or the methods page that exists, and the README keeps to its
//! size with the two commands first. (`scripts/check-docs`, run by .ci/run, runs the docs'
//! examples and checks their pasted output.)

use crate::common::{root, run};

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(path: &str) -> Vec<String> {
    let text = std::fs::read_to_string(root().join(path)).expect("doc");
    let mut inside = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            inside = !inside;
        } else if !inside && line.starts_with('#') {
            out.push(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

#[test]
fn every_help_ends_with_a_section_that_exists() {
    for command in [
        &["calibrate"][..],
        &["report"],
        &["rate"],
        &["analyze"],
        &["data", "summary"],
        &["data", "export"],
        &["prompts"],
        &["batch", "export"],
        &["batch", "ingest"],
        &["cache"],
        &["plan"],
    ] {
        let mut args = command.to_vec();
        args.push("--help");
        let (code, out, err) = run(&args);
        assert_eq!(code, 0, "{err}");
        let last = out.trim_end().lines().last().expect("help text");
        let pointer = last
            .strip_prefix("Guide: ")
            .unwrap_or_else(|| panic!("{command:?} --help ends with {last:?}"));
        let target = pointer.split_whitespace().next().expect("a link");
        let (path, section) = target.split_once('#').expect("FILE#SECTION");
        assert!(
            anchors(path).iter().any(|a| a == section),
            "{command:?}: no section #{section} in {path}"
        );
    }
}

#[test]
fn the_readme_is_short_and_starts_with_the_two_commands() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README");
    assert!(
        readme.lines().count() <= 250,
        "{} lines",
        readme.lines().count()
    );
    let fence = readme.find("```sh\n").expect("a shell block");
    let first = &readme[fence + 6..];
    let block = &first[..first.find("```").expect("its end")];
    assert!(
        block.starts_with("cargo run -- calibrate --demo"),
        "{block}"
    );
    assert!(
        block
            .lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("cargo test")),
        "{block}"
    );
    for link in ["docs/guide.md", "docs/methods.md", "CONTRIBUTING.md"] {
        assert!(
            readme.contains(&format!("]({link})")),
            "the README links {link}"
        );
        assert!(root().join(link).is_file(), "{link}");
    }
}
