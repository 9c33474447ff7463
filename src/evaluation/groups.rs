//! Significance groups: in each scope (overall, every subset), the configurations that cannot
//! be told apart from the best one, so a table of 23 subsets does not crown noise.
//!
//! The best is the highest accuracy (items without a verdict dropped); every other
//! configuration is compared with it by McNemar's exact test on the items both rated, as the
//! paired comparisons are. Holm's adjustment runs over one family for the overall scope and
//! one family for all subset tests together. A configuration is in the best's group when its
//! adjusted p-value is at least 0.05; one without a common rated item is untested, and in no
//! group.

use super::record::RunRecord;
use super::result::{ConfigResult, Scope};
use crate::metrics::paired::{holm, mcnemar_exact};
use crate::metrics::Statistic;
use std::collections::BTreeMap;

/// One configuration against the scope's best.
#[derive(Debug, Clone, PartialEq)]
pub struct VersusBest {
    pub config: usize,
    /// Items both rated.
    pub n: u64,
    pub only_best_right: u64,
    pub only_other_right: u64,
    pub p: f64,
    pub p_holm: f64,
}

impl VersusBest {
    /// This test as the outputs write a paired test: the configuration (B) against the
    /// scope's best (A) on accuracy over the items both rated, McNemar's exact p (no
    /// interval), found as every paired test is (`MetricTest::finding`).
    pub fn shaped(&self, best: &str, config: &str, alpha: f64) -> super::paired::PairedTest {
        let diff = if self.n == 0 {
            f64::NAN
        } else {
            (self.only_other_right as f64 - self.only_best_right as f64) / self.n as f64
        };
        let test = super::paired::MetricTest {
            diff,
            ci: (f64::NAN, f64::NAN),
            level: f64::NAN,
            p: self.p,
            p_holm: self.p_holm,
            basis: super::paired::Basis::McNemar {
                only_a: self.only_best_right,
                only_b: self.only_other_right,
                n: self.n,
            },
            alpha,
        };
        super::paired::PairedTest {
            ci: None,
            ci_level: None,
            ..test.shaped(best, config, "accuracy")
        }
    }
}

/// A scope's best configuration and the tests against it.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub best: usize,
    pub best_accuracy: f64,
    pub tests: Vec<VersusBest>,
    /// The level below which an adjusted p tells a configuration apart from the best.
    pub alpha: f64,
}

impl Group {
    /// The best and every configuration indistinguishable from it.
    pub fn members(&self) -> Vec<usize> {
        std::iter::once(self.best)
            .chain(
                self.tests
                    .iter()
                    .filter(|t| t.p_holm >= self.alpha)
                    .map(|t| t.config),
            )
            .collect()
    }
}

/// Groups overall and per subset.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Groups {
    pub overall: Option<Group>,
    pub by_subset: BTreeMap<String, Group>,
    /// The level below which an adjusted p tells a configuration apart from the best.
    pub alpha: f64,
}

fn group(run: &RunRecord, scopes: &[&Scope], items: &[usize], alpha: f64) -> Option<Group> {
    let best = super::ranking::best_of(
        (0..scopes.len())
            .filter(|&c| scopes[c].counts.rated > 0)
            .map(|c| (c, scopes[c].agreement.get(Statistic::Accuracy))),
    )?;
    let tests = (0..scopes.len())
        .filter(|&c| c != best)
        .map(|c| {
            let (mut n, mut only_best, mut only_other) = (0, 0, 0);
            for &i in items {
                let (Some(gold), Some(a), Some(b)) = (
                    run.items.gold[i],
                    run.configs[best].outcomes[i].rating(),
                    run.configs[c].outcomes[i].rating(),
                ) else {
                    continue;
                };
                n += 1;
                only_best += u64::from(a == gold && b != gold);
                only_other += u64::from(b == gold && a != gold);
            }
            VersusBest {
                config: c,
                n,
                only_best_right: only_best,
                only_other_right: only_other,
                p: if n == 0 {
                    f64::NAN
                } else {
                    mcnemar_exact(only_best, only_other)
                },
                p_holm: f64::NAN,
            }
        })
        .collect();
    Some(Group {
        best,
        best_accuracy: scopes[best].agreement.get(Statistic::Accuracy),
        tests,
        alpha,
    })
}

/// Holm over every test of these groups (those with a p-value).
fn adjust<'a>(groups: impl Iterator<Item = &'a mut Group>) {
    let mut tests: Vec<&mut VersusBest> = groups
        .flat_map(|g| g.tests.iter_mut())
        .filter(|t| !t.p.is_nan())
        .collect();
    let p: Vec<f64> = tests.iter().map(|t| t.p).collect();
    for (t, adjusted) in tests.iter_mut().zip(holm(&p)) {
        t.p_holm = adjusted;
    }
}

/// The groups of a run's evaluated configurations.
pub fn groups(run: &RunRecord, configs: &[ConfigResult], alpha: f64) -> Groups {
    if configs.len() < 2 {
        return Groups {
            alpha,
            ..Groups::default()
        };
    }
    let all: Vec<usize> = (0..run.items.len()).collect();
    let overall_scopes: Vec<&Scope> = configs.iter().map(|c| &c.overall).collect();
    let mut overall = group(run, &overall_scopes, &all, alpha);
    adjust(overall.iter_mut());
    let subsets = run.subsets();
    let mut by_subset: BTreeMap<String, Group> = subsets
        .iter()
        .filter_map(|(name, items)| {
            let scopes: Option<Vec<&Scope>> =
                configs.iter().map(|c| c.by_subset.get(*name)).collect();
            Some((name.to_string(), group(run, &scopes?, items, alpha)?))
        })
        .collect();
    adjust(by_subset.values_mut());
    Groups {
        overall,
        by_subset,
        alpha,
    }
}

/// Per scope, the configurations indistinguishable from the best.
#[derive(Debug)]
pub struct GroupsAnalytic;

impl super::Analytic for GroupsAnalytic {
    fn run(&self, cx: &super::Context, configs: &[ConfigResult]) -> super::Found {
        let found = groups(cx.run, configs, cx.settings.alpha);
        super::Found::of_run(super::analytic::kept(Some(found)))
    }
}
