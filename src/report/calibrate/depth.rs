//! Conversations by depth (`evaluation::depth`): a table of each configuration's accuracy and
//! quadratic kappa per depth bucket, with the bias toward the longer final reply, for the
//! terminal and report.html (`--json` `configs[i].by_depth` and metrics.csv's `depth:` scopes
//! are written with the other scopes).

use crate::evaluation::{ConfigResult, Evaluated, Scope};
use crate::metrics::Statistic;
use crate::report::calibrate::section::{Place, Section, View};
use crate::report::media::format::with_interval;
use crate::report::media::table::Table;

/// A configuration's scopes by depth bucket (none without conversations).
fn by_depth(c: &ConfigResult) -> &[(String, Scope)] {
    let grouped = c
        .grouped
        .iter()
        .find(|g| g.key == crate::evaluation::depth::KEY);
    grouped.map_or(&[][..], |g| &g.scopes[..])
}

/// Configurations (in the ranking's order) × depth buckets: accuracy and κq with CIs (1 − α), n
/// rated, and the excess preference for the longer final reply; None without conversations.
fn table(run: &Evaluated, order: &[usize]) -> Option<Table> {
    if by_depth(run.evaluation.configs.first()?).is_empty() {
        return None;
    }
    let mut t = Table::new(
        format!("By conversation depth (user turns up to the judged reply): accuracy and κq with {} CIs, items rated, and the judge's excess preference for the longer final reply", crate::report::media::format::ci_level(run)),
        &["configuration", "depth", "rated/n", "accuracy", "κq", "longer: excess"],
    );
    for &i in order {
        let c = &run.evaluation.configs[i];
        for (k, (bucket, s)) in by_depth(c).iter().enumerate() {
            let longer =
                s.findings
                    .get::<crate::evaluation::bias::Bias>()
                    .map_or("-".to_string(), |b| {
                        let p = &b.length;
                        if p.excess.is_finite() {
                            format!("{:+.2}", p.excess)
                        } else {
                            "-".into()
                        }
                    });
            t.rows.push(vec![
                if k == 0 {
                    crate::report::media::format::shown_name(&run.record.configs[i])
                } else {
                    String::new()
                },
                bucket.clone(),
                format!("{}/{}", s.counts.rated, s.counts.examples),
                with_interval(&s.agreement, Statistic::Accuracy),
                with_interval(&s.agreement, Statistic::KappaQuadratic),
                longer,
            ]);
        }
    }
    t.secondary = vec![5];
    t.notes.push(
        "longer: how much more often than gold the judge prefers the longer final reply (the earlier turns, shared by both sides, are not counted); '-' where no pair's final replies differ in length by more than 30 characters".into(),
    );
    Some(t)
}

/// Depth's section: its table among the scopes' (with `--details`).
#[derive(Debug)]
pub struct DepthSection;

impl Section for DepthSection {
    fn place(&self) -> Place {
        Place::Scopes
    }
    fn tables(&self, run: &Evaluated, order: &[usize], view: View) -> Vec<Table> {
        view.details(|| table(run, order).into_iter().collect())
    }
}
