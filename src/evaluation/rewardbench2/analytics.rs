//! RewardBench 2 beyond the peers: where a judge's picks fall among the four slots against
//! where the correct completion was drawn, accuracy by the correct completion's slot, how often
//! grades force a tie at the top and how well they separate correct from incorrect completions
//! (AUC), and paired comparisons between configurations on the same rows.

use super::{filled, result, ties_score, Scored, TiesRow, SUBSETS};
use crate::dataset::rewardbench2::{Shown, TIES};
use crate::evaluation::paired::{adjust_holm, MetricTest};
use crate::metrics::random::{stream, Purpose};
use crate::raters::rewardbench2::{Protocol, RowOutcome};
use crate::raters::Missing;
use rand::Rng;
use statrs::distribution::{ChiSquared, ContinuousCDF};
use std::collections::BTreeMap;

/// Slots the position analytics look at (RewardBench 2's best-of-4).
pub const SLOTS: usize = 4;

/// What a configuration's answers held, on a row or on all: (missing, out of) for picks,
/// pairwise verdicts and grades, each where the protocol has them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Read {
    pub picks: Option<(usize, usize)>,
    pub verdicts: Option<(usize, usize)>,
    pub grades: Option<(usize, usize)>,
}

impl Read {
    fn plus(self, other: Read) -> Read {
        let add = |a: Option<(usize, usize)>, b: Option<(usize, usize)>| match (a, b) {
            (Some(x), Some(y)) => Some((x.0 + y.0, x.1 + y.1)),
            _ => a.or(b),
        };
        Read {
            picks: add(self.picks, other.picks),
            verdicts: add(self.verdicts, other.verdicts),
            grades: add(self.grades, other.grades),
        }
    }

    /// Everything not read.
    pub fn missing(&self) -> usize {
        [self.picks, self.verdicts, self.grades]
            .iter()
            .flatten()
            .map(|m| m.0)
            .sum()
    }

    /// Of a configuration's own answers, (read, asked): a jury has no answers of its own, so
    /// only the grades its members left count (its rows without a vote are told apart).
    pub fn own(&self, jury: bool) -> (usize, usize) {
        let parts = if jury {
            vec![self.grades]
        } else {
            vec![self.picks, self.verdicts, self.grades]
        };
        let (missing, of) = parts
            .into_iter()
            .flatten()
            .fold((0, 0), |(m, o), (a, b)| (m + a, o + b));
        (of - missing, of)
    }
}

/// (missing, out of) in some values read.
fn unread<T>(of: &[Option<T>]) -> (usize, usize) {
    (of.iter().filter(|x| x.is_none()).count(), of.len())
}

/// What was read on one row under `protocol`: its pick (a ranking row outside Ties, decided by
/// it), its pairs' verdicts, its grades.
pub fn read_row(protocol: Protocol, o: Option<&RowOutcome>, scored: Option<&Scored>) -> Read {
    let decided = scored.is_some_and(|s| s.decided.is_some());
    Read {
        picks: (protocol == Protocol::Ranking).then(|| {
            (
                usize::from(decided && o.is_some_and(|o| o.pick.is_none())),
                usize::from(decided),
            )
        }),
        verdicts: (protocol == Protocol::Pairwise).then(|| o.map_or((0, 0), |o| unread(&o.wins))),
        grades: scored
            .filter(|s| s.decided.is_none())
            .map(|s| unread(&s.scores)),
    }
}

/// What was read on every row.
pub fn read(protocol: Protocol, outcomes: &[RowOutcome], scored: &[Scored]) -> Read {
    (0..scored.len()).fold(Read::default(), |all, k| {
        all.plus(read_row(protocol, outcomes.get(k), scored.get(k)))
    })
}

/// Each row's result under a missing-score rule: None for Ties rows (scored as a whole) and
/// for rows left out (drop).
pub fn results(rows: &[Scored], missing: Missing) -> Vec<Option<f64>> {
    rows.iter()
        .map(|r| (r.subset != TIES).then(|| result(r, missing)).flatten())
        .collect()
}

/// Where picks fall and how accuracy depends on the correct completion's slot, over rows
/// outside Ties with four completions and one correct.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Slots {
    /// Rows whose correct completion was drawn into each slot.
    pub correct_at: [usize; SLOTS],
    /// Ranking: the picks in each slot (None for other protocols).
    pub picked_at: Option<[usize; SLOTS]>,
    /// Ranking: Pearson's chi-square of the picks against the correct slots' shares (3
    /// degrees of freedom) and its p-value; NaN without picks.
    pub chi2: f64,
    pub p: f64,
    /// Its degrees of freedom: the slots where a correct completion was drawn, less one.
    pub df: usize,
    /// The mean row result of the rows whose correct completion is in each slot (NaN: none).
    pub accuracy_by_slot: [f64; SLOTS],
}

/// `Slots` for one configuration: `picks` per row (ranking) or None, `results` per row.
pub fn slots(rows: &[Shown], picks: Option<&[Option<usize>]>, results: &[Option<f64>]) -> Slots {
    let mut correct_at = [0usize; SLOTS];
    let mut picked_at = [0usize; SLOTS];
    let mut sums = [(0.0, 0usize); SLOTS];
    for (r, shown) in rows.iter().enumerate() {
        if shown.row.subset == TIES || shown.order.len() != SLOTS || shown.gold.len() != 1 {
            continue;
        }
        let gold = shown.gold[0];
        correct_at[gold] += 1;
        if let Some(p) = picks.and_then(|p| p.get(r).copied().flatten()) {
            if p < SLOTS {
                picked_at[p] += 1;
            }
        }
        if let Some(x) = results.get(r).copied().flatten() {
            sums[gold].0 += x;
            sums[gold].1 += 1;
        }
    }
    let (chi2, p) = match picks {
        Some(_) => chi_square(&picked_at, &correct_at),
        None => (f64::NAN, f64::NAN),
    };
    let df = correct_at
        .iter()
        .filter(|&&n| n > 0)
        .count()
        .saturating_sub(1);
    Slots {
        correct_at,
        picked_at: picks.map(|_| picked_at),
        chi2,
        p,
        df,
        accuracy_by_slot: sums.map(|(s, n)| if n == 0 { f64::NAN } else { s / n as f64 }),
    }
}

/// Pearson's chi-square goodness of fit of `observed` against the shares of `expected`
/// (cells expected empty are left out, with a degree of freedom each).
fn chi_square(observed: &[usize; SLOTS], expected: &[usize; SLOTS]) -> (f64, f64) {
    let n: usize = observed.iter().sum();
    let total: usize = expected.iter().sum();
    if n == 0 || total == 0 {
        return (f64::NAN, f64::NAN);
    }
    let mut chi2 = 0.0;
    let mut cells = 0;
    for (o, e) in observed.iter().zip(expected) {
        if *e == 0 {
            continue;
        }
        let e = n as f64 * *e as f64 / total as f64;
        chi2 += (*o as f64 - e).powi(2) / e;
        cells += 1;
    }
    if observed
        .iter()
        .zip(expected)
        .any(|(o, e)| *e == 0 && *o > 0)
    {
        return (f64::INFINITY, 0.0);
    }
    let p = match ChiSquared::new((cells - 1).max(1) as f64) {
        Ok(d) if cells > 1 => d.sf(chi2),
        _ => f64::NAN,
    };
    (chi2, p)
}

/// What per-completion grades (ratings, scores) say beyond the row results.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Grades {
    /// Rows outside Ties with every completion graded and one correct.
    pub rows: usize,
    /// The share of them whose correct completion shares the top grade with another (the
    /// 1/k rule's forced ties).
    #[serde(rename = "forced_tie_rate")]
    pub forced_tie: f64,
    /// Rows of any subset with every completion graded and both kinds.
    pub auc_rows: usize,
    /// The mean over those rows of the AUC of correct vs incorrect grades (a correct one
    /// above an incorrect one 1, equal 1/2).
    pub auc: f64,
}

pub fn grades(rows: &[Scored]) -> Grades {
    let (mut n, mut forced) = (0usize, 0usize);
    let (mut auc_rows, mut auc_sum) = (0usize, 0.0);
    for r in rows.iter().filter(|r| r.decided.is_none()) {
        let Some(s) = r.scores.iter().copied().collect::<Option<Vec<f64>>>() else {
            continue;
        };
        let (correct, incorrect) = s.split_at(r.correct.min(s.len()));
        if r.subset != TIES && correct.len() == 1 {
            n += 1;
            let top = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            forced += usize::from(correct[0] == top && s.iter().filter(|&&x| x == top).count() > 1);
        }
        if !correct.is_empty() && !incorrect.is_empty() {
            let mut wins = 0.0;
            for c in correct {
                for i in incorrect {
                    wins += if c > i {
                        1.0
                    } else if c == i {
                        0.5
                    } else {
                        0.0
                    };
                }
            }
            auc_sum += wins / (correct.len() * incorrect.len()) as f64;
            auc_rows += 1;
        }
    }
    let share = |a: f64, b: usize| if b == 0 { f64::NAN } else { a / b as f64 };
    Grades {
        rows: n,
        forced_tie: share(forced as f64, n),
        auc_rows,
        auc: share(auc_sum, auc_rows),
    }
}

/// The overall score the comparisons test: the mean of the subset scores present (the
/// leaderboard when all six are).
fn overall(subsets: &BTreeMap<&str, f64>) -> f64 {
    let present: Vec<f64> = SUBSETS
        .iter()
        .filter_map(|s| subsets.get(s).copied())
        .filter(|v| !v.is_nan())
        .collect();
    if present.is_empty() {
        f64::NAN
    } else {
        present.iter().sum::<f64>() / present.len() as f64
    }
}

/// The score the comparisons test, of a configuration's board: the mean of its subset scores
/// (the leaderboard when all six are there).
pub fn overall_of(board: &super::Board) -> f64 {
    overall(
        &board
            .subsets
            .iter()
            .map(|s| (s.name.as_str(), s.score))
            .collect(),
    )
}

/// One configuration's score on some draw of the rows: `picked[k]` lists the rows drawn for
/// subset k (with repeats; Ties rows carry their drawn question's number).
fn score_on(
    rows: &[Scored],
    results: &[Option<f64>],
    missing: Missing,
    drawn: &BTreeMap<&str, Vec<(usize, u64)>>,
) -> f64 {
    let mut subsets: BTreeMap<&str, f64> = BTreeMap::new();
    for (&name, members) in drawn {
        if name == TIES {
            let ties: Vec<TiesRow> = members
                .iter()
                .filter_map(|&(k, q)| {
                    let r = &rows[k];
                    filled(r, missing).map(|scores| TiesRow {
                        question: q,
                        tied: r.question.is_some_and(|x| x.1),
                        scores,
                        correct: r.correct,
                    })
                })
                .collect();
            subsets.insert(name, ties_score(&ties).score);
        } else {
            let counted: Vec<f64> = members.iter().filter_map(|&(k, _)| results[k]).collect();
            subsets.insert(
                name,
                if counted.is_empty() {
                    f64::NAN
                } else {
                    counted.iter().sum::<f64>() / counted.len() as f64
                },
            );
        }
    }
    overall(&subsets)
}

/// The rows by subset (Ties: by question, its rows together).
fn strata(rows: &[Scored]) -> BTreeMap<&str, Vec<Vec<usize>>> {
    let mut out: BTreeMap<&str, BTreeMap<u64, Vec<usize>>> = BTreeMap::new();
    for (k, r) in rows.iter().enumerate() {
        let group = if r.subset == TIES {
            r.question.map_or(u64::MAX, |q| q.0)
        } else {
            k as u64
        };
        out.entry(r.subset.as_str())
            .or_default()
            .entry(group)
            .or_default()
            .push(k);
    }
    out.into_iter()
        .map(|(s, groups)| (s, groups.into_values().collect()))
        .collect()
}

/// Configuration B against A on the same rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Paired {
    pub a: usize,
    pub b: usize,
    /// B − A on the mean of the subset scores (the leaderboard with all six), its paired
    /// bootstrap CI and two-sided p (Holm over every pair).
    pub test: MetricTest,
}

/// Every configuration's score (the mean of the subset scores) on the rows, and on each
/// redraw of one paired bootstrap shared by all of them.
#[derive(Debug, Clone, Default)]
pub struct Redrawn {
    pub points: Vec<f64>,
    /// `draws[k][r]`: configuration k on redraw r.
    pub draws: Vec<Vec<f64>>,
    pub resamples: usize,
}

impl Redrawn {
    /// a − b on the rows, and on each redraw.
    pub fn paired(&self, a: usize, b: usize) -> (f64, Vec<f64>) {
        let diffs = self.draws[a]
            .iter()
            .zip(&self.draws[b])
            .map(|(x, y)| x - y)
            .collect();
        (self.points[a] - self.points[b], diffs)
    }
}

/// The configurations' scores (rows in the same order for each) on the rows and on
/// `resamples` redraws: each redraw draws rows within each subset (Ties by question) once for
/// all configurations.
pub fn redrawn(configs: &[&[Scored]], missing: Missing, resamples: usize, seed: u64) -> Redrawn {
    let Some(first) = configs.first() else {
        return Redrawn::default();
    };
    let results: Vec<Vec<Option<f64>>> = configs.iter().map(|c| results(c, missing)).collect();
    let strata = strata(first);
    let whole: BTreeMap<&str, Vec<(usize, u64)>> = strata
        .iter()
        .map(|(&s, groups)| {
            let rows = groups
                .iter()
                .enumerate()
                .flat_map(|(j, g)| g.iter().map(move |&k| (k, j as u64)))
                .collect();
            (s, rows)
        })
        .collect();
    let points: Vec<f64> = configs
        .iter()
        .zip(&results)
        .map(|(c, r)| score_on(c, r, missing, &whole))
        .collect();
    let mut rng = stream(seed, Purpose::Rb2Redrawn, 0);
    let mut draws: Vec<Vec<f64>> = vec![Vec::with_capacity(resamples); configs.len()];
    for _ in 0..resamples {
        let drawn: BTreeMap<&str, Vec<(usize, u64)>> = strata
            .iter()
            .map(|(&s, groups)| {
                let mut rows = Vec::new();
                for j in 0..groups.len() {
                    let g = &groups[rng.random_range(0..groups.len())];
                    rows.extend(g.iter().map(|&k| (k, j as u64)));
                }
                (s, rows)
            })
            .collect();
        for (k, c) in configs.iter().enumerate() {
            draws[k].push(score_on(c, &results[k], missing, &drawn));
        }
    }
    Redrawn {
        points,
        draws,
        resamples,
    }
}

/// Every pair of configurations on their redrawn scores, Holm over every pair.
pub fn compare(r: &Redrawn, alpha: f64) -> Vec<Paired> {
    let k = r.points.len();
    let mut out = Vec::new();
    for a in 0..k {
        for b in a + 1..k {
            let (diff, diffs) = r.paired(b, a);
            out.push(Paired {
                a,
                b,
                test: if r.resamples == 0 {
                    MetricTest::untested(diff)
                } else {
                    MetricTest::from_draws(diff, &diffs)
                },
            });
        }
    }
    adjust_holm(out.iter_mut().map(|x| &mut x.test), alpha);
    out
}

/// Where a RewardBench 2 run's configurations stand, decided by the one rule of "the best"
/// (`ranking::pick`) on the score the comparisons test: the order, the best, the runner-up,
/// those that cannot be ranked, and the group no comparison finds worse than the best.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    /// Every configuration, best first by the compared score (undefined last).
    pub order: Vec<usize>,
    pub picked: crate::evaluation::ranking::Picked,
    /// The best, then the configurations no paired comparison finds worse than it.
    pub group: Vec<usize>,
}

/// The standing of configurations with these compared scores, answers read (`Read::own`:
/// read, asked) and comparisons; None without configurations. A configuration that read
/// fewer than half of its answers is not ranked (`ranking::few_readable`), as on pairs.
pub fn standing(scores: &[f64], read: &[(usize, usize)], pairs: &[Paired]) -> Option<Standing> {
    use crate::evaluation::ranking::{few_readable, pick, ranked, Candidate};
    let order = ranked(scores);
    let candidates: Vec<Candidate> = read
        .iter()
        .map(|&(read, asked)| Candidate {
            // RewardBench 2 rows take no baseline.
            baseline: false,
            unranked: few_readable(read, asked),
        })
        .collect();
    let picked = pick(&candidates, &order)?;
    let best = picked.best;
    // No group around a best without a score.
    let mut group: Vec<usize> = (!scores[best].is_nan())
        .then_some(best)
        .into_iter()
        .collect();
    for k in 0..scores.len() {
        if k == best || group.is_empty() {
            continue;
        }
        let worse = pairs.iter().any(|p| {
            use crate::evaluation::Finding::*;
            (p.a == best && p.b == k && p.test.finding() == ABetter)
                || (p.b == best && p.a == k && p.test.finding() == BBetter)
        });
        if !worse {
            group.push(k);
        }
    }
    Some(Standing {
        order,
        picked,
        group,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(subset: &str, scores: &[f64], decided: Option<f64>) -> Scored {
        Scored {
            subset: subset.into(),
            question: None,
            scores: scores.iter().map(|&s| Some(s)).collect(),
            correct: 1,
            decided,
            floor: -1.0,
            chance: 0.25,
        }
    }

    #[test]
    fn forced_ties_and_auc_by_hand() {
        let rows = [
            row("Math", &[5.0, 5.0, 1.0, 2.0], None),
            row("Math", &[5.0, 4.0, 6.0, 2.0], None),
            row("Math", &[9.0, 1.0, 1.0, 1.0], None),
        ];
        let g = grades(&rows);
        assert_eq!(g.rows, 3);
        assert!((g.forced_tie - 1.0 / 3.0).abs() < 1e-15);
        // AUCs: (0.5 + 1 + 1)/3, (1 + 0 + 1)/3, 1.
        let expected = (2.5 / 3.0 + 2.0 / 3.0 + 1.0) / 3.0;
        assert!((g.auc - expected).abs() < 1e-15, "{}", g.auc);
    }

    #[test]
    fn chi_square_by_hand() {
        // Picks 40/20/20/20 against correct slots drawn evenly: (15² + 3·5²)/25 = 12.
        let (chi2, p) = chi_square(&[40, 20, 20, 20], &[25, 25, 25, 25]);
        assert!((chi2 - 12.0).abs() < 1e-12);
        // scipy.stats.chi2.sf(12, 3)
        assert!((p - 0.007383160505359769).abs() < 1e-12, "{p}");
        let (even, p_even) = chi_square(&[10, 10, 10, 10], &[25, 25, 25, 25]);
        assert_eq!((even, p_even), (0.0, 1.0));
    }

    #[test]
    fn a_configuration_against_itself_differs_by_nothing() {
        let rows: Vec<Scored> = (0..20)
            .map(|i| row("Math", &[1.0, 0.0], Some(f64::from(u8::from(i % 3 == 0)))))
            .collect();
        let better: Vec<Scored> = (0..20)
            .map(|_| row("Math", &[1.0, 0.0], Some(1.0)))
            .collect();
        let pairs = compare(
            &redrawn(&[&rows, &rows, &better], Missing::Drop, 200, 7),
            crate::evaluation::paired::ALPHA,
        );
        assert_eq!(pairs.len(), 3);
        assert_eq!(pairs[0].test.diff, 0.0);
        assert_eq!(
            pairs[0].test.finding(),
            crate::evaluation::Finding::NoDifference
        );
        assert!((pairs[1].test.diff - 13.0 / 20.0).abs() < 1e-12);
        assert_eq!(pairs[1].test.finding(), crate::evaluation::Finding::BBetter);
        let all_read = [(4, 4); 3];
        let s = standing(&[0.35, 0.35, 1.0], &all_read, &pairs).expect("standing");
        assert_eq!((s.picked.best, s.group.as_slice()), (2, &[2][..]));
        // The highest score on 1 answer read of 4 is not ranked: the next is the best, and the
        // group forms around it.
        let s = standing(&[0.35, 0.35, 1.0], &[(4, 4), (4, 4), (1, 4)], &pairs).expect("standing");
        assert_eq!(s.order, [2, 0, 1]);
        assert_eq!((s.picked.best, s.picked.runner_up), (0, Some(1)));
        assert_eq!(
            s.picked.unranked,
            [(
                2,
                crate::evaluation::ranking::Unranked::FewReadable { read: 1, asked: 4 }
            )]
        );
        assert_eq!(s.group[0], 0);
        // Half read is enough; no configuration: no standing.
        let s = standing(&[0.35, 0.35, 1.0], &[(4, 4), (4, 4), (2, 4)], &pairs).expect("standing");
        assert_eq!(s.picked.best, 2);
        assert_eq!(standing(&[], &[], &[]), None);
    }
}
