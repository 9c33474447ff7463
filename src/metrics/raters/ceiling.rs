//! The human ceiling (how well one annotator predicts the others), a judge measured the same
//! ways, and the panel of every annotator statistic with one item bootstrap over them all.

use super::{
    fleiss_of, gwet_of, kappa_of, krippendorff_of, pairwise_of, unique_mode, Patterns, Votes,
};
use crate::metrics::random::{stream, Purpose};
use crate::metrics::{redraws, Resampling};

/// Agreement in the two published forms of the human ceiling.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ceiling {
    /// AlpacaEval's: each vote against the unique mode of the others (skipped when they have
    /// none), averaged over (item, rater).
    pub leave_one_out: f64,
    /// MT-Bench's: the share of equal pairs among all pairs of distinct votes on an item.
    pub per_vote: f64,
    /// As `per_vote`, leaving out pairs where either vote is a tie.
    pub per_vote_no_ties: f64,
}

/// Running weighted shares of the three forms.
#[derive(Debug, Default, Clone, Copy)]
struct Shares([(u64, u64); 3]);

impl Shares {
    fn add(&mut self, form: usize, hit: bool, w: u64) {
        self.0[form].0 += w * u64::from(hit);
        self.0[form].1 += w;
    }
    fn ceiling(self) -> Ceiling {
        let v = |(hits, total): (u64, u64)| {
            if total == 0 {
                f64::NAN
            } else {
                hits as f64 / total as f64
            }
        };
        Ceiling {
            leave_one_out: v(self.0[0]),
            per_vote: v(self.0[1]),
            per_vote_no_ties: v(self.0[2]),
        }
    }
}

fn ceiling_of(p: &Patterns, w: &[u64]) -> Ceiling {
    let (k, tie) = (p.k(), p.labels.tie_index());
    let mut s = Shares::default();
    for ((item, _), &w) in p.rows.iter().zip(w) {
        if w == 0 {
            continue;
        }
        for (r, vote) in item.iter().enumerate() {
            let Some(v) = *vote else { continue };
            let others = item
                .iter()
                .enumerate()
                .filter(|(o, _)| *o != r)
                .filter_map(|(_, o)| *o);
            if let Some(mode) = unique_mode(others, k) {
                s.add(0, v == mode, w);
            }
            for u in item[r + 1..].iter().flatten() {
                s.add(1, v == *u, w);
                if tie.is_none_or(|t| v != t && *u != t) {
                    s.add(2, v == *u, w);
                }
            }
        }
    }
    s.ceiling()
}

/// The annotators' ceiling.
pub fn ceiling(votes: &Votes) -> Ceiling {
    let p = Patterns::of(votes, None);
    ceiling_of(&p, &p.counts)
}

fn judge_ceiling_of(p: &Patterns, w: &[u64]) -> Ceiling {
    let (k, tie) = (p.k(), p.labels.tie_index());
    let mut s = Shares::default();
    for ((item, j), &w) in p.rows.iter().zip(w) {
        let Some(j) = *j else { continue };
        if w == 0 {
            continue;
        }
        if let Some(mode) = unique_mode(item.iter().flatten().copied(), k) {
            s.add(0, j == mode, w);
        }
        for v in item.iter().flatten() {
            s.add(1, j == *v, w);
            if tie.is_none_or(|t| j != t && *v != t) {
                s.add(2, j == *v, w);
            }
        }
    }
    s.ceiling()
}

/// A judge measured as the ceiling measures annotators: against the unique mode of all
/// annotators (leave-one-out's form), and against every annotator's vote (per-vote).
pub fn judge_ceiling(votes: &Votes, judge: &[Option<usize>]) -> Ceiling {
    let p = Patterns::of(votes, Some(judge));
    judge_ceiling_of(&p, &p.counts)
}

/// Everything measured among the annotators.
#[derive(Debug, Clone, PartialEq)]
pub struct AnnotatorStats {
    pub pairwise_kappa: Vec<Vec<f64>>,
    pub fleiss_kappa: f64,
    pub krippendorff_alpha_nominal: f64,
    pub krippendorff_alpha_ordinal: f64,
    pub gwet_ac1: f64,
    pub ceiling: Ceiling,
}

impl AnnotatorStats {
    pub fn of(votes: &Votes) -> Self {
        let p = Patterns::of(votes, None);
        Self::weighted(&p, &p.counts)
    }

    fn weighted(p: &Patterns, w: &[u64]) -> Self {
        Self {
            pairwise_kappa: pairwise_of(p, w),
            fleiss_kappa: fleiss_of(p, w),
            krippendorff_alpha_nominal: krippendorff_of(p, w, false),
            krippendorff_alpha_ordinal: krippendorff_of(p, w, true),
            gwet_ac1: gwet_of(p, w),
            ceiling: ceiling_of(p, w),
        }
    }

    /// The scalar statistics, named as in the JSON output.
    pub fn scalars(&self) -> [(&'static str, f64); 7] {
        [
            ("fleiss_kappa", self.fleiss_kappa),
            (
                "krippendorff_alpha_nominal",
                self.krippendorff_alpha_nominal,
            ),
            (
                "krippendorff_alpha_ordinal",
                self.krippendorff_alpha_ordinal,
            ),
            ("gwet_ac1", self.gwet_ac1),
            ("leave_one_out", self.ceiling.leave_one_out),
            ("per_vote", self.ceiling.per_vote),
            ("per_vote_no_ties", self.ceiling.per_vote_no_ties),
        ]
    }
}

/// A judge measured against the annotators.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeStats {
    pub ceiling: Ceiling,
    /// Cohen's kappa of the judge with each annotator (items both rated).
    pub kappa_per_annotator: Vec<f64>,
}

impl JudgeStats {
    pub fn of(votes: &Votes, judge: &[Option<usize>]) -> Self {
        let p = Patterns::of(votes, Some(judge));
        Self::weighted(&p, &p.counts)
    }

    fn weighted(p: &Patterns, w: &[u64]) -> Self {
        Self {
            ceiling: judge_ceiling_of(p, w),
            kappa_per_annotator: (0..p.raters)
                .map(|a| {
                    kappa_of(
                        &p.labels,
                        p.rows
                            .iter()
                            .zip(w)
                            .filter_map(|((v, j), &w)| Some(((*j)?, v[a]?, w))),
                    )
                })
                .collect(),
        }
    }
}

/// The annotators, and a judge beside them when there is one.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    pub humans: AnnotatorStats,
    pub judge: Option<JudgeStats>,
}

impl Panel {
    pub fn of(votes: &Votes, judge: Option<&[Option<usize>]>) -> Self {
        let p = Patterns::of(votes, judge);
        Self::weighted(&p, &p.counts, judge.is_some())
    }

    fn weighted(p: &Patterns, w: &[u64], judged: bool) -> Self {
        Self {
            humans: AnnotatorStats::weighted(p, w),
            judge: judged.then(|| JudgeStats::weighted(p, w)),
        }
    }

    /// Every figure in one list: the 7 scalars, the r×r pairwise kappas row by row, then
    /// (with a judge) its leave-one-out, per-vote and per-vote-without-ties agreement and its
    /// kappa with each annotator. [`bootstrap_panel`]'s intervals come in this order.
    pub fn flat(&self) -> Vec<f64> {
        let mut out: Vec<f64> = self.humans.scalars().iter().map(|(_, v)| *v).collect();
        out.extend(self.humans.pairwise_kappa.iter().flatten());
        if let Some(j) = &self.judge {
            out.extend([
                j.ceiling.leave_one_out,
                j.ceiling.per_vote,
                j.ceiling.per_vote_no_ties,
            ]);
            out.extend(&j.kappa_per_annotator);
        }
        out
    }
}

/// Percentile-bootstrap intervals (at `r.level`) of every figure of [`Panel::flat`],
/// resampling items with replacement (a multinomial draw over the item patterns, from the
/// stream `(r.seed, Ceiling, 0)`).
pub fn bootstrap_panel(
    votes: &Votes,
    judge: Option<&[Option<usize>]>,
    r: Resampling,
) -> Vec<(f64, f64)> {
    let (resamples, seed) = (r.resamples, r.seed);
    let p = Patterns::of(votes, judge);
    let width = Panel::weighted(&p, &p.counts, judge.is_some()).flat().len();
    if votes.items.is_empty() || resamples == 0 {
        return vec![(f64::NAN, f64::NAN); width];
    }
    let mut rng = stream(seed, Purpose::Ceiling, 0);
    redraws(&p.counts, resamples, width, &mut rng, |w| {
        Panel::weighted(&p, w, judge.is_some()).flat()
    })
    .iter_mut()
    .map(|d| r.interval(d))
    .collect()
}
