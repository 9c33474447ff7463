//! Significance groups as JSON, tidy CSV rows and the terminal's table.

use crate::evaluation::groups::{Group, Groups};
use crate::evaluation::Evaluated;
use crate::report::calibrate::section::{key, Place, Section, View};
use crate::report::media::csv::TidyRows;
use crate::report::media::table::Table;
use serde::Serialize;
use serde_json::Value;

/// A group as `--json` shows it: configurations by name.
#[derive(Serialize)]
struct GroupJson {
    best: String,
    best_accuracy: f64,
    indistinguishable: Vec<String>,
    tests: Vec<TestJson>,
}

/// One configuration's test against the scope's best: the counts, and the paired test's
/// shape (`a` the best, `b` the configuration).
#[derive(Serialize)]
struct TestJson {
    config: String,
    n: u64,
    only_best_right: u64,
    only_config_right: u64,
    #[serde(flatten)]
    test: crate::evaluation::paired::PairedTest,
}

fn group_json(run: &Evaluated, g: &Group) -> GroupJson {
    let name = |i: usize| run.record.configs[i].name.clone();
    GroupJson {
        best: name(g.best),
        best_accuracy: g.best_accuracy,
        indistinguishable: g.members().into_iter().map(name).collect(),
        tests: g
            .tests
            .iter()
            .map(|t| TestJson {
                config: name(t.config),
                n: t.n,
                only_best_right: t.only_best_right,
                only_config_right: t.only_other_right,
                test: t.shaped(&name(g.best), &name(t.config), g.alpha),
            })
            .collect(),
    }
}

/// The top-level `significance_groups` object.
#[derive(Serialize)]
struct GroupsJson {
    alpha: f64,
    test: &'static str,
    overall: Option<GroupJson>,
    by_subset: std::collections::BTreeMap<String, GroupJson>,
}

/// The top-level `significance_groups` object.
fn to_json(run: &Evaluated, g: &Groups) -> Value {
    serde_json::to_value(GroupsJson {
        alpha: g.alpha,
        test: "McNemar exact vs the scope's most accurate configuration (items both rated); Holm over the overall tests, and over all subset tests together",
        overall: g.overall.as_ref().map(|o| group_json(run, o)),
        by_subset: g
            .by_subset
            .iter()
            .map(|(k, v)| (k.clone(), group_json(run, v)))
            .collect(),
    })
    .unwrap_or_default()
}

/// Per configuration and scope: `holm_p_vs_best` and `in_best_group` (1 or 0).
fn tidy(run: &Evaluated, g: &Groups, rows: &mut TidyRows) {
    let scopes = g
        .overall
        .iter()
        .map(|o| ("overall", o))
        .chain(g.by_subset.iter().map(|(k, v)| (k.as_str(), v)));
    for (scope, group) in scopes {
        let members = group.members();
        for (i, c) in run.record.configs.iter().enumerate() {
            rows.set_config(&c.name);
            let test = group.tests.iter().find(|t| t.config == i);
            let n = test.map_or(0, |t| t.n);
            rows.push(
                scope,
                n,
                "in_best_group",
                f64::from(u8::from(members.contains(&i))),
                None,
            );
            if let Some(t) = test {
                rows.push(scope, n, "holm_p_vs_best", t.p_holm, None);
            }
        }
    }
}

/// The terminal's table: per scope, the best and who cannot be told apart from it.
fn tables(run: &Evaluated, g: &Groups) -> Vec<Table> {
    if g.overall.is_none() {
        return Vec::new();
    }
    let name = |i: usize| crate::report::media::format::shown_name(&run.record.configs[i]);
    let mut t = Table::new(
        format!(
            "Indistinguishable from the best (McNemar vs the most accurate configuration, Holm-adjusted p ≥ {})",
            g.alpha
        ),
        &["scope", "best", "accuracy", "group size", "indistinguishable from the best"],
    );
    let scopes = g
        .overall
        .iter()
        .map(|o| ("overall".to_string(), o))
        .chain(g.by_subset.iter().map(|(k, v)| (k.clone(), v)));
    for (scope, group) in scopes {
        let members = group.members();
        t.rows.push(vec![
            scope,
            name(group.best),
            crate::report::media::format::fixed(group.best_accuracy),
            format!("{} of {}", members.len(), run.record.configs.len()),
            members[1..]
                .iter()
                .map(|&i| name(i))
                .collect::<Vec<_>>()
                .join(", "),
        ]);
    }
    let tests: usize = g.by_subset.values().map(|v| v.tests.len()).sum();
    t.notes.push(format!(
        "Holm over the {} overall tests and, separately, over all {tests} subset tests: a subset's \"best\" whose group holds most configurations is not a finding",
        g.overall.as_ref().map_or(0, |o| o.tests.len())
    ));
    vec![t]
}

/// The significance groups' section: after the comparisons (with `--details`); the document's
/// `significance_groups`, always there.
#[derive(Debug)]
pub struct GroupsSection;

impl Section for GroupsSection {
    fn place(&self) -> Place {
        Place::After
    }
    fn tables(&self, run: &Evaluated, _order: &[usize], view: View) -> Vec<Table> {
        let groups = run.evaluation.of_run::<Groups>();
        view.details(|| groups.map_or_else(Vec::new, |g| tables(run, g)))
    }
    fn run_json(&self, run: &Evaluated) -> Vec<(&'static str, Value)> {
        let groups = run.evaluation.of_run::<Groups>();
        key("significance_groups", groups.map(|g| to_json(run, g)))
    }
    fn run_rows(&self, rows: &mut TidyRows, run: &Evaluated) {
        if let Some(g) = run.evaluation.of_run::<Groups>() {
            tidy(run, g, rows);
        }
    }
}
