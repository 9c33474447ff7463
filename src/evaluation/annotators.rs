//! Several annotators per item: their agreement, the human ceiling, and the judge beside it
//! (pure; the numbers come from `metrics::raters`).

use crate::metrics::raters::{bootstrap_panel, majority, Ceiling, Panel, Votes};
use crate::metrics::{Agreement, Contingency, LabelError, Labels, Resampling, Side};

/// Everything reported about the annotators and a judge measured against them.
#[derive(Debug, Clone, PartialEq)]
pub struct AnnotatorReport {
    pub names: Vec<String>,
    /// Items (rows) with at least one vote.
    pub items: usize,
    /// Items whose annotators have no majority, and what was done with them.
    pub no_majority: usize,
    pub policy: &'static str,
    pub panel: Panel,
    /// Intervals (1 − α) of `panel.flat()`, in its order (None without bootstrap).
    pub intervals: Option<Vec<(f64, f64)>>,
    /// The intervals' level, 1 − α.
    pub level: f64,
    /// The judge against the label on items where every vote agrees (two or more votes), and
    /// against the majority where the votes split: judges fail differently on the two. Items
    /// with a single vote are in neither. None without a judge.
    pub unanimous: Option<Agreement>,
    pub split: Option<Agreement>,
    /// `shared[a][b]`: items both annotators labelled.
    pub shared: Vec<Vec<usize>>,
}

impl AnnotatorReport {
    /// Judge ÷ human for each form of the ceiling.
    pub fn ratio(&self) -> Option<Ceiling> {
        let j = self.panel.judge.as_ref()?.ceiling;
        let h = self.panel.humans.ceiling;
        Some(Ceiling {
            leave_one_out: j.leave_one_out / h.leave_one_out,
            per_vote: j.per_vote / h.per_vote,
            per_vote_no_ties: j.per_vote_no_ties / h.per_vote_no_ties,
        })
    }

    /// The interval of figure `index` of `panel.flat()`.
    pub fn interval(&self, index: usize) -> Option<(f64, f64)> {
        self.intervals.as_ref().and_then(|i| i.get(index).copied())
    }

    /// Items both annotators a and b labelled.
    pub fn shared(&self, a: usize, b: usize) -> usize {
        self.shared[a][b]
    }

    /// Each annotator's mean Cohen's kappa with the other annotators, and the judge's with
    /// them all (last, when there is a judge), highest first: where the judge stands among
    /// the humans.
    pub fn places(&self) -> Vec<(String, f64, bool)> {
        let n = self.names.len();
        let k = &self.panel.humans.pairwise_kappa;
        let mut out: Vec<(String, f64, bool)> = (0..n)
            .map(|a| {
                let others: Vec<f64> = (0..n).filter(|&b| b != a).map(|b| k[a][b]).collect();
                let mean = others.iter().sum::<f64>() / others.len() as f64;
                (self.names[a].clone(), mean, false)
            })
            .collect();
        if let Some(j) = &self.panel.judge {
            let mean = j.kappa_per_annotator.iter().sum::<f64>() / n as f64;
            out.push(("the judge".into(), mean, true));
        }
        out.sort_by(|a, b| b.1.total_cmp(&a.1));
        out
    }

    /// Where the pairwise kappa (a, b) sits in `panel.flat()`.
    pub fn pairwise_index(&self, a: usize, b: usize) -> usize {
        7 + a * self.names.len() + b
    }

    /// Where the judge's figures start in `panel.flat()` (leave-one-out, per vote, per vote
    /// without ties, then kappa per annotator).
    pub fn judge_index(&self) -> usize {
        7 + self.names.len() * self.names.len()
    }
}

fn index_of(labels: &Labels, v: i64, side: Side, index: usize) -> Result<usize, LabelError> {
    labels
        .as_slice()
        .iter()
        .position(|&l| l == v)
        .ok_or_else(|| LabelError::OutsideLabels {
            side,
            index,
            value: v,
            labels: labels.clone(),
        })
}

/// The report for `votes` (rows × annotators) and the judge's `ratings` (per row).
pub fn report(
    labels: &Labels,
    names: Vec<String>,
    votes: &[Vec<Option<i64>>],
    ratings: Option<&[Option<i64>]>,
    no_majority: (usize, &'static str),
    r: Resampling,
) -> Result<AnnotatorReport, LabelError> {
    let to_index = |v: &Option<i64>, side: Side, row: usize| {
        v.map(|v| index_of(labels, v, side, row)).transpose()
    };
    let items: Vec<Vec<Option<usize>>> = votes
        .iter()
        .enumerate()
        .map(|(i, row)| row.iter().map(|v| to_index(v, Side::Gold, i)).collect())
        .collect::<Result<_, _>>()?;
    let judge: Option<Vec<Option<usize>>> = ratings
        .map(|r| {
            r.iter()
                .enumerate()
                .map(|(i, v)| to_index(v, Side::Rating, i))
                .collect::<Result<_, _>>()
        })
        .transpose()?;
    let votes_ix = Votes {
        labels: labels.clone(),
        items,
    };
    let panel = Panel::of(&votes_ix, judge.as_deref());
    let intervals = (r.resamples > 0).then(|| bootstrap_panel(&votes_ix, judge.as_deref(), r));
    let (mut unanimous, mut split) = ((Vec::new(), Vec::new()), (Vec::new(), Vec::new()));
    for (row, r) in votes.iter().zip(ratings.unwrap_or_default()) {
        let present: Vec<i64> = row.iter().flatten().copied().collect();
        let (Some(r), Some(m)) = (r, majority(row)) else {
            continue;
        };
        // One vote is neither unanimous nor split.
        if present.len() < 2 {
            continue;
        }
        let target = if present.iter().all(|v| *v == m) {
            &mut unanimous
        } else {
            &mut split
        };
        target.0.push(m);
        target.1.push(*r);
    }
    let agreement = |(gold, rating): (Vec<i64>, Vec<i64>)| -> Result<Agreement, LabelError> {
        Ok(Agreement::with_bootstrap(
            Contingency::from_pairs(labels, &gold, &rating)?,
            r,
        ))
    };
    let k = names.len();
    let shared = (0..k)
        .map(|a| {
            (0..k)
                .map(|b| {
                    (votes.iter())
                        .filter(|row| row[a].is_some() && row[b].is_some())
                        .count()
                })
                .collect()
        })
        .collect();
    Ok(AnnotatorReport {
        shared,
        names,
        items: votes
            .iter()
            .filter(|r| r.iter().any(Option::is_some))
            .count(),
        no_majority: no_majority.0,
        policy: no_majority.1,
        panel,
        intervals,
        level: r.level,
        unanimous: ratings
            .is_some()
            .then(|| agreement(unanimous))
            .transpose()?,
        split: ratings.is_some().then(|| agreement(split)).transpose()?,
    })
}

/// The annotator panel: theirs and each configuration's agreement, the ceiling beside it.
#[derive(Debug)]
pub struct AnnotatorsAnalytic;

impl super::Analytic for AnnotatorsAnalytic {
    fn run(&self, cx: &super::Context, _configs: &[super::ConfigResult]) -> super::Found {
        super::Found::per_config(cx.run.configs.iter().map(|c| {
            super::analytic::kept(
                cx.run
                    .annotators
                    .as_ref()
                    .and_then(|a| panel(a, &cx.run.labels, Some(c), cx.settings.resampling())),
            )
        }))
    }
}

/// The annotators' panel on `labels`, with one configuration's ratings beside it when given
/// (None if a label falls outside them): what `calibrate` and `analyze` show for each
/// configuration and `data summary` for the data alone.
pub fn panel(
    a: &super::Annotations,
    labels: &Labels,
    config: Option<&super::ConfigRecord>,
    r: Resampling,
) -> Option<AnnotatorReport> {
    let votes = &a.votes;
    let judge: Option<Vec<Option<i64>>> =
        config.map(|c| c.outcomes.iter().map(|o| o.rating()).collect());
    let policy = match a.policy.as_str() {
        "tie" => "tie",
        "mean" => "mean",
        _ => "drop",
    };
    report(
        labels,
        a.names.clone(),
        votes,
        judge.as_deref(),
        (a.no_majority, policy),
        r,
    )
    .ok()
}
