//! The house reads one way (ARCHITECTURE.md, "Layers"): no file uses a file of a higher layer,
//! no files reach each other in a circle, and no file is over 600 lines. The graph is read from
//! `src/` the way `../shared/tools/modgraph.py` reads it: a `crate::`, `super::` or `self::`
//! path (also inside `use a::{b, c}` groups) is a use of the file that defines the module it
//! names. A room's `mod.rs` declaring its files and re-exporting their names (`pub use
//! file::Name`) is not a use.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

const MAX_LINES: usize = 600;

/// `use crate::a::{b, c};` groups, and any `crate::`/`super::`/`self::` path.
static USE_GROUP: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(
        r"(?s)\buse\s+(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^;]*)\};",
    )
    .expect("a valid regex")
});
static PATH: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
        .expect("a valid regex")
});

/// The layers, top first: a file may use files of its own layer or of layers below it.
const LAYERS: &[&[&str]] = &[
    &["main", "lib", "api"],
    &["cli"],
    &["commands"],
    &["report"],
    &["run"],
    &["evaluation"],
    &["raters"],
    &["judge", "label"],
    &["dataset", "prompts"],
    &["metrics", "verdicts"],
    &["error"],
];

/// A file's module path (`src/judge/batch/mod.rs` → `["judge", "batch"]`).
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main") {
        return Vec::new();
    }
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

pub(crate) fn strip_comments(src: &str) -> String {
    let mut out = String::new();
    let mut rest = src;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        rest = rest[start..]
            .find("*/")
            .map_or("", |end| &rest[start + end + 2..]);
    }
    out.push_str(rest);
    out.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `mod name;` declarations: the file's child modules.
static CHILD: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r"(?m)^\s*(?:pub(?:\([a-z]+\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;")
        .expect("a valid regex")
});

/// A bare path into a child module (`bias::bias(`), outside a re-export line.
static BARE: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r"(?:^|[^A-Za-z0-9_:])([a-z_][a-z0-9_]*)::").expect("a valid regex")
});

/// The paths a file names: (head, tail segments), head being crate, super or self. A bare
/// path into one of the file's own child modules (`mod bias;` ... `bias::bias(...)` or
/// `use bias::Shape;`) is `self`'s: an orchestrator's call into its helper is a use, which a
/// helper that calls back into the orchestrator closes into a circle. A re-export (`pub use
/// child::Name`) is a facade, not a use.
fn paths(src: &str) -> Vec<(String, Vec<String>)> {
    let src = strip_comments(src);
    let mut out = Vec::new();
    let children: BTreeSet<String> = CHILD
        .captures_iter(&src)
        .map(|c| c[1].to_string())
        .collect();
    for line in src.lines() {
        let t = line.trim_start();
        if t.starts_with("pub use") || t.starts_with("pub(crate) use") || CHILD.is_match(t) {
            continue;
        }
        for c in BARE.captures_iter(line) {
            if children.contains(&c[1]) {
                out.push(("self".to_string(), vec![c[1].to_string()]));
            }
        }
    }
    for c in USE_GROUP.captures_iter(&src) {
        let mid: Vec<String> = c[2]
            .split("::")
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        for item in c[3].split(',') {
            let item = item.split(" as ").next().unwrap_or("").trim();
            let item = item
                .split("::{")
                .next()
                .unwrap_or("")
                .replace(['{', '}'], "");
            let mut tail = mid.clone();
            if !item.is_empty() && item != "self" {
                tail.extend(item.split("::").filter(|s| !s.is_empty()).map(String::from));
            }
            out.push((c[1].to_string(), tail));
        }
    }
    for c in PATH.captures_iter(&src) {
        let tail = c[2]
            .split("::")
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        out.push((c[1].to_string(), tail));
    }
    out
}

/// The file → file graph of the `.rs` files below `root`, keyed by path relative to `root`.
fn graph(files: &BTreeMap<PathBuf, String>) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let modules: BTreeMap<Vec<String>, PathBuf> =
        files.keys().map(|p| (module_of(p), p.clone())).collect();
    let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for (file, src) in files {
        let me = module_of(file);
        let targets = edges.entry(file.clone()).or_default();
        for (head, mut tail) in paths(src) {
            let mut start: Vec<String> = match head.as_str() {
                "crate" => Vec::new(),
                "super" => {
                    let mut s = me.clone();
                    s.pop();
                    while tail.first().is_some_and(|t| t == "super") {
                        s.pop();
                        tail.remove(0);
                    }
                    s
                }
                _ => me.clone(),
            };
            start.extend(tail);
            let target = (1..=start.len())
                .rev()
                .find_map(|k| modules.get(&start[..k]));
            if let Some(target) = target {
                if target != file {
                    targets.insert(target.clone());
                }
            }
        }
    }
    edges
}

fn layer_of(file: &Path) -> Option<usize> {
    let room = module_of(file)
        .into_iter()
        .next()
        .unwrap_or_else(|| file.with_extension("").to_string_lossy().into_owned());
    LAYERS.iter().position(|l| l.contains(&room.as_str()))
}

/// Everything wrong with the graph: upward uses, circles, rooms without a layer.
fn problems(edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<String> {
    let mut out = Vec::new();
    for (from, targets) in edges {
        let Some(lf) = layer_of(from) else {
            out.push(format!(
                "{} is in no layer: add its room to LAYERS and ARCHITECTURE.md",
                from.display()
            ));
            continue;
        };
        for to in targets {
            if let Some(lt) = layer_of(to) {
                if lt < lf {
                    out.push(format!(
                        "{} uses {}, a file of a higher layer",
                        from.display(),
                        to.display()
                    ));
                }
            }
        }
    }
    // Circles: a file that reaches itself.
    out.extend(
        circles(edges)
            .into_iter()
            .map(|f| format!("{} reaches itself through the files it uses", f.display())),
    );
    out
}

/// The nodes of `edges` that reach themselves.
fn circles(edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<&PathBuf> {
    let mut out = Vec::new();
    for start in edges.keys() {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<&PathBuf> = edges[start].iter().collect();
        while let Some(f) = stack.pop() {
            if f == start {
                out.push(start);
                break;
            }
            if seen.insert(f.clone()) {
                stack.extend(edges.get(f).into_iter().flatten());
            }
        }
    }
    out
}

fn read_tree(root: &Path, dir: &Path, files: &mut BTreeMap<PathBuf, String>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            read_tree(root, &path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("a source file is UTF-8");
            let rel = path.strip_prefix(root).expect("below src/").to_path_buf();
            files.insert(rel, text);
        }
    }
}

pub(crate) fn sources() -> BTreeMap<PathBuf, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = BTreeMap::new();
    read_tree(&root, &root, &mut files);
    files
}

#[test]
fn the_house_reads_one_way_with_no_circle() {
    let files = sources();
    assert!(files.len() > 50, "read {} files from src/", files.len());
    let edges = graph(&files);
    // The graph is read, not empty: commands use the run room, report uses evaluation.
    assert!(edges[Path::new("commands/calibrate/session.rs")].contains(Path::new("run/plan.rs")));
    assert!(
        edges[Path::new("report/calibrate/summary.rs")].contains(Path::new("evaluation/mod.rs"))
    );
    let found = problems(&edges);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The two seams shared between command rooms (ARCHITECTURE.md names them): `data summary`
/// asks calibrate's `forms::Loaded`, and `calibrate --batch` runs the batch rounds.
const SHARED_SEAMS: [(&str, &str); 2] = [
    ("data", "commands/calibrate/forms.rs"),
    ("calibrate", "commands/batch/rounds.rs"),
];

/// Every use of one command's module by another command's (a room is `commands/<room>.rs` or
/// `commands/<room>/`), but the shared seams.
fn commands_calling_commands(edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<String> {
    let room = |p: &Path| -> Option<String> {
        let m = module_of(p);
        (m.first().map(String::as_str) == Some("commands"))
            .then(|| m.get(1).cloned())
            .flatten()
    };
    let mut out = Vec::new();
    for (from, targets) in edges {
        let Some(mine) = room(from) else { continue };
        for to in targets {
            let Some(theirs) = room(to) else { continue };
            let shared = SHARED_SEAMS.contains(&(mine.as_str(), &*to.to_string_lossy()));
            if theirs != mine && !shared {
                out.push(format!(
                    "{} calls {}: what several commands share lives below commands/ (run/)",
                    from.display(),
                    to.display()
                ));
            }
        }
    }
    out
}

#[test]
fn a_command_never_calls_another() {
    let edges = graph(&sources());
    let found = commands_calling_commands(&edges);
    assert!(found.is_empty(), "{}", found.join("\n"));
    // The check sees such a call: analyze asking label for its gold, as it once did.
    let files: BTreeMap<PathBuf, String> = [
        ("commands/mod.rs", "pub mod analyze; pub mod label;"),
        (
            "commands/analyze.rs",
            "fn f() { super::label::analyze_gold(s); }",
        ),
        ("commands/label.rs", "pub fn analyze_gold() {}"),
    ]
    .into_iter()
    .map(|(p, s)| (PathBuf::from(p), s.to_string()))
    .collect();
    let found = commands_calling_commands(&graph(&files));
    assert_eq!(
        found,
        ["commands/analyze.rs calls commands/label.rs: what several commands share lives below commands/ (run/)"]
    );
}

#[test]
fn no_file_is_over_600_lines() {
    let long: Vec<String> = sources()
        .iter()
        .filter(|(_, text)| text.lines().count() > MAX_LINES)
        .map(|(p, text)| format!("{} has {} lines", p.display(), text.lines().count()))
        .collect();
    assert!(long.is_empty(), "split along a seam: {}", long.join(", "));
}

#[test]
fn the_checker_finds_upward_uses_and_circles() {
    let files: BTreeMap<PathBuf, String> = [
        ("metrics/mod.rs", "use crate::report::table::Table;"),
        ("report/mod.rs", ""),
        ("report/table.rs", "use super::summary::x;"),
        ("report/summary.rs", "use super::table::{Table, confusion};"),
        ("nowhere.rs", ""),
        // An orchestrator that calls its helper, and the helper that imports back from it.
        (
            "evaluation/mod.rs",
            "pub mod bias;\npub use bias::Shape;\nfn evaluate() { bias::bias(); }",
        ),
        ("evaluation/bias.rs", "use super::RunRecord;"),
        // A facade only: re-exports are no use.
        ("raters/mod.rs", "pub mod kind;\npub use kind::Kind;"),
        ("raters/kind.rs", "use super::Config;"),
    ]
    .into_iter()
    .map(|(p, s)| (PathBuf::from(p), s.to_string()))
    .collect();
    let found = problems(&graph(&files));
    assert!(
        found
            .contains(&"metrics/mod.rs uses report/table.rs, a file of a higher layer".to_string()),
        "{found:?}"
    );
    assert!(
        found.contains(&"report/table.rs reaches itself through the files it uses".to_string()),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|p| p.starts_with("nowhere.rs is in no layer")),
        "{found:?}"
    );
    for circle in ["evaluation/mod.rs", "evaluation/bias.rs"] {
        assert!(
            found.contains(&format!(
                "{circle} reaches itself through the files it uses"
            )),
            "{found:?}"
        );
    }
    assert_eq!(found.len(), 6, "{found:?}");
}

/// The command line becomes settings once, in `cli/`: no file below it names a clap type or
/// the `cli` room (`main.rs`, `lib.rs` and `api.rs` dispatch the parsed command).
#[test]
fn no_clap_type_below_the_command_line() {
    let named: Vec<String> = sources()
        .iter()
        .filter(|(p, _)| {
            let top = p
                .components()
                .next()
                .map(|c| c.as_os_str().to_string_lossy().into_owned());
            !matches!(
                top.as_deref(),
                Some("cli" | "lib.rs" | "api.rs" | "main.rs")
            )
        })
        .filter(|(_, text)| {
            let code = strip_comments(text);
            code.contains("crate::cli") || code.contains("clap::") || code.contains("super::cli")
        })
        .map(|(p, _)| p.display().to_string())
        .collect();
    assert!(
        named.is_empty(),
        "clap types below cli/: {}",
        named.join(", ")
    );
}

/// `report/media/` is the floor of `report/`: how things are written, using no file of the
/// outputs above it (ARCHITECTURE.md, "report/").
#[test]
fn reports_media_use_nothing_above_them() {
    let files = sources();
    let edges = graph(&files);
    let media = |p: &Path| p.starts_with("report/media");
    let up: Vec<String> = edges
        .iter()
        .filter(|(from, _)| media(from))
        .flat_map(|(from, to)| {
            to.iter()
                .filter(|t| t.starts_with("report") && !media(t))
                .map(move |t| format!("{} uses {}", from.display(), t.display()))
        })
        .collect();
    assert!(
        edges.keys().filter(|p| media(p)).count() >= 8,
        "media/ is read"
    );
    assert!(up.is_empty(), "{}", up.join("\n"));
}

/// Where a file builds JSON by hand (`json!`): the lines outside its tests.
fn json_by_hand(text: &str) -> Vec<usize> {
    let code = strip_comments(text);
    let code = code.split("#[cfg(test)]").next().unwrap_or("");
    code.lines()
        .enumerate()
        .filter(|(_, l)| l.contains("json!") || l.contains("serde_json::json"))
        .map(|(i, _)| i + 1)
        .collect()
}

/// One schema per result (ARCHITECTURE.md, "report/"): what `report/` shows as JSON is a type
/// that serializes, never a document assembled by hand with `json!`.
#[test]
fn no_report_file_builds_json_by_hand() {
    // The check can fail.
    assert_eq!(
        json_by_hand("fn f() -> Value {\n    json!({\"a\": 1})\n}"),
        [2]
    );
    assert!(json_by_hand("// json!({})\n#[cfg(test)]\nmod tests { json!(1); }").is_empty());
    let files = sources();
    let report: Vec<&PathBuf> = files.keys().filter(|p| p.starts_with("report")).collect();
    assert!(report.len() > 30, "report/ is read: {} files", report.len());
    let by_hand: Vec<String> = report
        .into_iter()
        .flat_map(|p| {
            json_by_hand(&files[p])
                .into_iter()
                .map(move |l| format!("{}:{l}", p.display()))
        })
        .collect();
    assert!(by_hand.is_empty(), "JSON by hand: {}", by_hand.join(", "));
}

/// The files that may name a form's variants: where a command loads data or a run directory
/// and so chooses the form, the seam every form goes through (`run/forms.rs`) and the enums'
/// own files, and each form's own files. Everything else (the session, batch export, juries,
/// the Python module) reaches a form through `run::forms` and the one `Run`, which shows itself
/// by its form (`report/calibrate/forms.rs`; ARCHITECTURE.md, "Forms").
const FORM_NAMERS: &[&str] = &[
    // Loading, and the forms' room.
    "run/data.rs",
    "run/forms.rs",
    "run/file.rs",
    "run/plan.rs",
    // The run's record, the form's enum's own file, and the one reader of a run directory,
    // which reads each form's record from the file that holds it.
    "run/record.rs",
    "run/read/mod.rs",
    // The commands' side of the seam: the loader's choice as a form's type, and RewardBench
    // 2 rows' wiring of the one pipeline.
    "commands/calibrate/forms.rs",
    // The report's side: what the run shows, by its form's files.
    "report/calibrate/forms.rs",
    // Each form's own files.
    "commands/calibrate/pairs.rs",
    "run/write.rs",
    "report/calibrate/run_dir/rewardbench2.rs",
];

/// Whether `text` names a variant of a form (`Rows::Pairs`, `RunFile::RewardBench2`, ...).
fn names_a_form(text: &str) -> bool {
    let code = strip_comments(text);
    ["Rows", "RunFile", "Form"].iter().any(|e| {
        ["Pairs", "RewardBench2"]
            .iter()
            .any(|v| code.contains(&format!("{e}::{v}")))
    })
}

#[test]
fn only_the_loaders_and_the_forms_name_a_form() {
    assert!(names_a_form("match rows { Rows::Pairs(d) => d }"));
    assert!(!names_a_form("// Rows::Pairs\nlet x = rows.layout(c, b);"));
    let files = sources();
    for f in FORM_NAMERS {
        assert!(files.contains_key(Path::new(f)), "{f} is a source file");
    }
    let naming: Vec<String> = files
        .iter()
        .filter(|(p, text)| {
            !FORM_NAMERS.iter().any(|f| Path::new(f) == p.as_path()) && names_a_form(text)
        })
        .map(|(p, _)| p.display().to_string())
        .collect();
    assert!(
        naming.is_empty(),
        "form variants named outside the loaders and the forms: {}",
        naming.join(", ")
    );
}

/// The report files the registry's list names (`=> calibrate::jury::JurySection;` in
/// `evaluation/registry.rs`).
fn registered(registry: &str) -> Vec<PathBuf> {
    let re = regex::Regex::new(r"=>\s*([a-z_:]+)::[A-Za-z]+Section\s*;").expect("regex");
    re.captures_iter(&strip_comments(registry))
        .map(|c| PathBuf::from(format!("report/{}.rs", c[1].replace("::", "/"))))
        .collect()
}

/// Who may use an analytic's report file besides the registry: the other commands and forms
/// that show the same measures (`analyze`, `data`'s annotator summary, `labels stats`'
/// annotator panel, RewardBench 2's run and its run directory with the cost analysis), each
/// for its own document.
const ANALYTIC_USERS: &[&str] = &[
    "report/calibrate/sections.rs",
    "report/analyze.rs",
    "report/data.rs",
    "report/label.rs",
    "report/calibrate/rewardbench2/mod.rs",
    "report/calibrate/run_dir/rewardbench2.rs",
];

#[test]
fn an_analytic_is_reached_only_through_the_registry() {
    let files = sources();
    let registry = files
        .get(Path::new("evaluation/registry.rs"))
        .expect("evaluation/registry.rs");
    let analytics = registered(registry);
    assert!(analytics.len() >= 11, "{analytics:?}");
    for a in &analytics {
        assert!(
            files.contains_key(a),
            "{} is registered but not a file",
            a.display()
        );
    }
    let edges = graph(&files);
    let mut stray = Vec::new();
    for (file, uses) in &edges {
        let allowed =
            analytics.contains(file) || ANALYTIC_USERS.iter().any(|u| file == Path::new(u));
        for used in uses.iter().filter(|u| analytics.contains(u)) {
            if !allowed {
                stray.push(format!("{} uses {}", file.display(), used.display()));
            }
        }
    }
    assert!(
        stray.is_empty(),
        "the outputs reach an analytic only through report/calibrate/sections.rs:\n{}",
        stray.join("\n")
    );
    // The check can fail: a terminal naming an analytic is found.
    let mut bad = files.clone();
    bad.insert(
        PathBuf::from("report/calibrate/mod.rs"),
        "fn f() { crate::report::calibrate::jury::tables(run, order, true); }".into(),
    );
    let edges = graph(&bad);
    assert!(
        edges[Path::new("report/calibrate/mod.rs")].contains(Path::new("report/calibrate/jury.rs"))
    );
}

/// The analytics' evaluation files, as `evaluation/registry.rs`'s list names them
/// (`jury::JuryAnalytic =>`).
fn registered_evaluations(registry: &str) -> Vec<PathBuf> {
    let re = regex::Regex::new(r"\b([a-z_]+)::[A-Za-z]+Analytic\s*=>").expect("regex");
    re.captures_iter(&strip_comments(registry))
        .map(|c| PathBuf::from(format!("evaluation/{}.rs", &c[1])))
        .collect()
}

/// The evaluation's own files: they run whatever analytics they are handed.
const EVALUATION_CORE: &[&str] = &[
    "evaluation/mod.rs",
    "evaluation/result.rs",
    "evaluation/analytic.rs",
];

#[test]
fn the_evaluation_reaches_an_analytic_only_through_its_registry() {
    let files = sources();
    let evaluations = registered_evaluations(&files[Path::new("evaluation/registry.rs")]);
    assert!(evaluations.len() >= 10, "{evaluations:?}");
    // Every analytic's evaluation is registered, and is a file.
    let implemented = regex::Regex::new(r"impl super::Analytic for ([A-Za-z]+)").expect("regex");
    for (file, src) in &files {
        for c in implemented.captures_iter(&strip_comments(src)) {
            assert!(
                evaluations.contains(file),
                "{} implements Analytic ({}) but evaluation/registry.rs does not register it",
                file.display(),
                &c[1]
            );
        }
    }
    let stray = |files: &BTreeMap<PathBuf, String>| -> Vec<String> {
        let edges = graph(files);
        EVALUATION_CORE
            .iter()
            .flat_map(|core| {
                edges[Path::new(core)]
                    .iter()
                    .filter(|u| evaluations.contains(u))
                    .map(move |u| format!("{core} uses {}", u.display()))
            })
            .collect()
    };
    let found = stray(&files);
    assert!(
        found.is_empty(),
        "the evaluation runs the analytics it is handed, and names none:\n{}",
        found.join("\n")
    );
    // The check can fail: an evaluation that calls the system level itself is found.
    let mut bad = files.clone();
    bad.get_mut(Path::new("evaluation/mod.rs"))
        .expect("evaluation/mod.rs")
        .push_str("\nfn f() { systems::systems(run, settings); }\n");
    assert_eq!(
        stray(&bad),
        ["evaluation/mod.rs uses evaluation/systems.rs"]
    );
}

/// The report files that run an evaluation (`evaluate(`, or the registry of analytics).
fn evaluating_reports(files: &BTreeMap<PathBuf, String>) -> Vec<String> {
    let re = regex::Regex::new(r"\bevaluate\s*\(|evaluation::registry|evaluation::\{[^}]*registry")
        .expect("regex");
    files
        .iter()
        .filter(|(f, _)| f.starts_with("report"))
        .filter(|(_, src)| re.is_match(&strip_comments(src)))
        .map(|(f, _)| f.display().to_string())
        .collect()
}

#[test]
fn no_report_file_runs_the_evaluation() {
    let files = sources();
    let found = evaluating_reports(&files);
    assert!(
        found.is_empty(),
        "report/ renders what the evaluation found and evaluates nothing:\n{}",
        found.join("\n")
    );
    // The check can fail: a section that evaluates the record itself is found.
    let mut bad = files.clone();
    bad.get_mut(Path::new("report/calibrate/bias.rs"))
        .expect("bias.rs")
        .push_str("\nfn f() { crate::evaluation::registry::evaluate(record, settings); }\n");
    assert_eq!(evaluating_reports(&bad), ["report/calibrate/bias.rs"]);
}

/// A file's unit within `commands/`: its folder (`commands/calibrate`) or, at the top, itself.
fn command_unit(file: &Path) -> Option<PathBuf> {
    let mut parts = file.components();
    (parts.next()?.as_os_str() == "commands").then_some(())?;
    let second = parts.next()?;
    Some(Path::new("commands").join(second.as_os_str()))
}

/// The units of `commands/` that reach themselves through the others they use.
fn command_loops(edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<String> {
    let mut units: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for (from, targets) in edges {
        let Some(u) = command_unit(from) else {
            continue;
        };
        let entry = units.entry(u.clone()).or_default();
        entry.extend(
            targets
                .iter()
                .filter_map(|t| command_unit(t))
                .filter(|t| *t != u),
        );
    }
    circles(&units)
        .into_iter()
        .map(|u| format!("{} reaches itself", u.display()))
        .collect()
}

#[test]
fn no_folder_loop_in_commands() {
    let files = sources();
    let loops = command_loops(&graph(&files));
    assert!(
        loops.is_empty(),
        "a folder (or file) of commands/ uses one that uses it back: {}",
        loops.join(", ")
    );
    // The check can fail: the batch export using calibrate's forms, while calibrate's session
    // uses the batch rounds.
    let mut bad = files.clone();
    bad.get_mut(Path::new("commands/batch/export.rs"))
        .expect("commands/batch/export.rs")
        .push_str("\nfn f() { crate::commands::calibrate::forms::loaded(rows); }\n");
    assert_eq!(
        command_loops(&graph(&bad)),
        [
            "commands/batch reaches itself",
            "commands/calibrate reaches itself"
        ]
    );
}

/// A file and the type it defines.
type Defined = (PathBuf, String);

/// Each line of the registry's list: the evaluation's file and type (None: no analytic) and
/// the section's file and type.
fn registry_lines(registry: &str) -> Vec<(Option<Defined>, Defined)> {
    let re = regex::Regex::new(
        r"(?m)^\s*(?:-|([a-z_]+)::([A-Za-z]+Analytic))\s*=>\s*([a-z_:]+)::([A-Za-z]+Section)\s*;",
    )
    .expect("regex");
    re.captures_iter(&strip_comments(registry))
        .map(|c| {
            let analytic = c.get(1).map(|f| {
                (
                    PathBuf::from(format!("evaluation/{}.rs", f.as_str())),
                    c[2].to_string(),
                )
            });
            let section = (
                PathBuf::from(format!("report/{}.rs", c[3].replace("::", "/"))),
                c[4].to_string(),
            );
            (analytic, section)
        })
        .collect()
}

/// The files that name `ty` (a whole word), besides `allowed`.
fn naming(files: &BTreeMap<PathBuf, String>, ty: &str, allowed: &[&Path]) -> Vec<String> {
    let word = regex::Regex::new(&format!(r"\b{ty}\b")).expect("regex");
    files
        .iter()
        .filter(|(f, src)| !allowed.contains(&f.as_path()) && word.is_match(&strip_comments(src)))
        .map(|(f, _)| format!("{} names {ty}", f.display()))
        .collect()
}

/// An analytic is its two files and one line of the registry: no other file names its
/// evaluation's or its section's type (ARCHITECTURE.md, "an analytic").
#[test]
fn an_analytic_is_named_in_its_two_files_and_its_registration_line_only() {
    let files = sources();
    let registry = Path::new("evaluation/registry.rs");
    let lines = registry_lines(&files[registry]);
    assert!(lines.len() >= 12, "{lines:?}");
    let check = |files: &BTreeMap<PathBuf, String>| -> Vec<String> {
        let mut found = Vec::new();
        for (analytic, (section_file, section)) in &lines {
            assert!(
                files.contains_key(section_file),
                "{}",
                section_file.display()
            );
            found.extend(naming(files, section, &[registry, section_file]));
            if let Some((file, ty)) = analytic {
                assert!(files.contains_key(file), "{}", file.display());
                found.extend(naming(files, ty, &[registry, file, section_file]));
            }
        }
        found
    };
    let found = check(&files);
    assert!(found.is_empty(), "{}", found.join("\n"));
    // The check can fail: a second registration is found.
    let mut bad = files.clone();
    bad.get_mut(Path::new("report/calibrate/mod.rs"))
        .expect("report/calibrate/mod.rs")
        .push_str("\nconst S: &[&dyn Section] = &[&jury::JurySection];\n");
    assert_eq!(check(&bad), ["report/calibrate/mod.rs names JurySection"]);
}
