//! A RewardBench 2 run as the one record every analytic reads: each row's pairs (its first
//! correct completion against each other completion, `items::pairs`, in both orders with
//! `--both-orders`) are the record's items, and every configuration's outcome on a pair comes
//! from what it made of the row: two grades compared (ratings, scores, and every protocol's
//! Ties rows), the pair's own verdict (pairwise), or nothing (a four-way pick orders one
//! completion above the rest and is scored by its slot, not as pairs). The rows themselves,
//! with what each configuration made of them, are the RewardBench 2 analytic's input
//! (`Rb2Rows` in `record.inputs`), which scores them as reward-bench does.

use crate::dataset::rewardbench2::items::{pairs, Showing};
use crate::dataset::rewardbench2::{Shown, TIES};
use crate::evaluation::{tally, ConfigRecord, Cost, Outcome, PointwiseRecord, RunRecord};
use crate::raters::rewardbench2::{Protocol, Rb2Made, RowOutcome};
use crate::raters::Missing;

/// The RewardBench 2 analytic's input: the rows as shown, what each configuration of the record
/// made of them (in the record's order), and the missing-score rule (`--pointwise-missing`).
#[derive(Debug, Clone, PartialEq)]
pub struct Rb2Rows {
    pub rows: Vec<Shown>,
    pub made: Vec<Rb2Made>,
    pub missing: Missing,
}

/// Why a pair has no outcome of its own.
const NO_GRADE: &str = "a completion of the pair has no grade";
const NO_VERDICT: &str = "no verdict read";

/// The run's record: the rows' pairs as items, each configuration's outcomes on them (and its
/// grades, for a configuration that grades), the rows in `inputs` for the RewardBench 2
/// analytic. `calibrate` and `report DIR` both make it here.
pub fn record(
    rows: Vec<Shown>,
    made: Vec<Rb2Made>,
    missing: Missing,
    both_orders: bool,
) -> RunRecord {
    let all: Vec<usize> = (0..rows.len()).collect();
    let items = pairs(&rows, &all, both_orders);
    // Each item's place among its row's pairs: a pairwise configuration's verdicts are kept
    // per row in this order (the order it rated them in).
    let mut within = Vec::with_capacity(items.of.len());
    for (k, &(r, _)) in items.of.iter().enumerate() {
        let same = k > 0 && items.of[k - 1].0 == r;
        within.push(if same { within[k - 1] + 1 } else { 0 });
    }
    let seeded: Vec<bool> = items.examples.iter().map(|e| e.seeded).collect();
    let configs = made
        .iter()
        .map(|m| config(m, &rows, &items.of, (&within, &seeded)))
        .collect();
    let shapes = crate::evaluation::Shape::of_examples(&items.examples);
    let mut inputs = crate::evaluation::analytic::Inputs::default();
    inputs.put(Box::new(Rb2Rows {
        rows,
        made,
        missing,
    }));
    RunRecord {
        labels: crate::metrics::Labels::pairwise(),
        inputs,
        items: crate::evaluation::items::rows_of(&items.examples)
            .into_iter()
            .collect(),
        configs,
        both_orders,
        annotators: None,
        shapes,
        generators: None,
    }
}

/// One configuration's outcomes on the pairs, with its grades when it grades. Grades are of
/// one completion at a time, so a graded pair is counted once, in its seeded order: with
/// `--both-orders` only a pairwise verdict is had in both (and only it tells of position).
fn config(
    m: &Rb2Made,
    rows: &[Shown],
    of: &[(usize, Showing)],
    (within, seeded): (&[usize], &[bool]),
) -> ConfigRecord {
    let mut outcomes = Vec::with_capacity(of.len());
    let mut grades = Vec::with_capacity(of.len());
    let mut why = Vec::new();
    for ((&(r, showing), &j), &seeded) in of.iter().zip(within).zip(seeded) {
        let Showing::Two { first, second } = showing else {
            // `items::pairs` makes pairs only.
            outcomes.push(Outcome::NotAsked);
            grades.push((None, None));
            continue;
        };
        let o: &RowOutcome = &m.outcomes[r];
        let graded = m.protocol.grades() || rows[r].row.subset == TIES;
        let g = |k: usize| o.grades.get(k).copied().flatten();
        let pair = (g(first), g(second));
        grades.push(if graded && seeded { pair } else { (None, None) });
        let outcome = if graded && !seeded {
            Outcome::NotAsked
        } else if graded {
            match pair {
                (Some(a), Some(b)) => b
                    .partial_cmp(&a)
                    .map_or(Outcome::NoVerdict, |c| Outcome::Rated(c as i64)),
                _ => Outcome::NoVerdict,
            }
        } else if m.protocol == Protocol::Pairwise {
            match o.verdicts.get(j) {
                Some(Some(v)) => Outcome::Rated(*v),
                Some(None) => Outcome::NoVerdict,
                // A run directory written before the verdicts were kept.
                None => Outcome::NotAsked,
            }
        } else {
            Outcome::NotAsked
        };
        if outcome == Outcome::NoVerdict {
            why.push(if graded { NO_GRADE } else { NO_VERDICT });
        }
        outcomes.push(outcome);
    }
    ConfigRecord {
        name: m.name.clone(),
        // A RewardBench 2 run keeps no prompt, rater or judge per configuration (its
        // protocol says how it rated).
        prompt: String::new(),
        rater: String::new(),
        kind: None,
        judge: String::new(),
        simulated: m.simulated,
        outcomes,
        cost: Cost::of_usage(&m.tally.usage, 0.0, m.usd),
        reasons: tally(why.into_iter()),
        pointwise: m.protocol.grades().then(|| PointwiseRecord {
            grades,
            tie_margin: 0.0,
            lowest: Some(m.floor),
            order_blind: m.protocol == Protocol::Scores,
        }),
        samples: None,
        probability: None,
        jury: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::rewardbench2::{show, Rb2Row};
    use crate::raters::rewardbench2::FAILED_RATING;

    fn row(id: &str, subset: &str, n: usize, correct: usize) -> Rb2Row {
        Rb2Row {
            id: id.into(),
            subset: subset.into(),
            prompt: "p".into(),
            completions: (0..n).map(|k| format!("c{k}")).collect(),
            correct,
        }
    }

    fn made(protocol: Protocol, outcomes: Vec<RowOutcome>) -> Rb2Made {
        Rb2Made {
            name: protocol.key().into(),
            protocol,
            jury: None,
            members: Vec::new(),
            simulated: true,
            floor: FAILED_RATING,
            tally: Default::default(),
            usd: None,
            outcomes,
        }
    }

    /// Each protocol's outcome on each pair, in both orders: grades compared once (seeded
    /// order), a pairwise verdict as given in each order, a four-way pick on no pair, and Ties
    /// rows by grades under every protocol; the rows go to the analytic's input.
    #[test]
    fn each_protocol_becomes_outcomes_on_the_rows_pairs() {
        let rows = show(
            vec![row("Math-1", "Math", 4, 1), row("Ties-ref:1", TIES, 3, 1)],
            7,
        );
        let items = pairs(&rows, &[0, 1], true);
        // Math-1: 3 pairs in both orders; Ties-ref:1: 2 pairs in both orders.
        assert_eq!(items.examples.len(), 10);
        let grades = |g: [Option<f64>; 4]| RowOutcome {
            grades: g.to_vec(),
            ..RowOutcome::default()
        };
        let ties = RowOutcome {
            grades: vec![Some(9.0), Some(9.0), None],
            ..RowOutcome::default()
        };
        let ratings = made(
            Protocol::Ratings,
            vec![
                grades([Some(8.0), Some(3.0), Some(8.0), None]),
                ties.clone(),
            ],
        );
        // Pairwise: a verdict per item of the row, in `items::pairs`' order.
        let verdicts = vec![Some(-1), Some(1), None, Some(0), Some(1), Some(1)];
        let pairwise = made(
            Protocol::Pairwise,
            vec![
                RowOutcome {
                    verdicts: verdicts.clone(),
                    wins: vec![None; 6],
                    ..grades([None; 4])
                },
                ties.clone(),
            ],
        );
        let ranking = made(
            Protocol::Ranking,
            vec![
                RowOutcome {
                    pick: Some(0),
                    ..grades([None; 4])
                },
                ties,
            ],
        );
        let record = record(
            rows.clone(),
            vec![ratings.clone(), pairwise, ranking],
            Missing::Drop,
            true,
        );
        assert_eq!(record.items.len(), 10);
        let input = record
            .inputs
            .get::<Rb2Rows>()
            .expect("the rows are the analytic's");
        assert_eq!((input.rows.len(), input.made[0].clone()), (2, ratings));
        for (k, (&(r, showing), e)) in items.of.iter().zip(&items.examples).enumerate() {
            let Showing::Two { first, second } = showing else {
                panic!("a pair")
            };
            let o = |c: usize| record.configs[c].outcomes[k];
            let graded = |g: &[Option<f64>]| match (g[first], g[second]) {
                _ if !e.seeded => Outcome::NotAsked,
                (Some(a), Some(b)) => Outcome::Rated((b > a) as i64 - (a > b) as i64),
                _ => Outcome::NoVerdict,
            };
            let row_grades: &[Option<f64>] = if r == 0 {
                &[Some(8.0), Some(3.0), Some(8.0), None]
            } else {
                &[Some(9.0), Some(9.0), None]
            };
            assert_eq!(o(0), graded(row_grades), "ratings on {}", e.id);
            if r == 0 {
                let v = verdicts[k];
                let expected = v.map_or(Outcome::NoVerdict, Outcome::Rated);
                assert_eq!(o(1), expected, "pairwise on {}", e.id);
                assert_eq!(o(2), Outcome::NotAsked, "ranking on {}", e.id);
            } else {
                assert_eq!(o(1), graded(row_grades), "pairwise's Ties on {}", e.id);
                assert_eq!(o(2), graded(row_grades), "ranking's Ties on {}", e.id);
            }
        }
        // The ratings' grades are its pointwise record, seeded order only; the pairwise and
        // ranking configurations grade no pair of their own.
        let p = record.configs[0].pointwise.as_ref().expect("ratings grade");
        let math = [Some(8.0), Some(3.0), Some(8.0), None];
        for (k, (&(r, showing), e)) in items.of.iter().zip(&items.examples).enumerate() {
            let Showing::Two { first, second } = showing else {
                panic!("a pair")
            };
            let g: &[Option<f64>] = if r == 0 {
                &math
            } else {
                &[Some(9.0), Some(9.0), None]
            };
            let expected = if e.seeded {
                (g[first], g[second])
            } else {
                (None, None)
            };
            assert_eq!(p.grades[k], expected, "{}", e.id);
        }
        assert!(p.grades.iter().any(|g| g.0.is_some() && g.1.is_some()));
        assert!(record.configs[1].pointwise.is_none() && record.configs[2].pointwise.is_none());
        assert!(record.both_orders);
    }

    /// A run directory written before verdicts were kept: its pairwise pairs are not asked
    /// (nothing says which way a lost pair went), its Ties rows still graded.
    #[test]
    fn pairs_without_kept_verdicts_are_not_asked() {
        let rows = show(vec![row("Math-1", "Math", 4, 1)], 7);
        let old = made(
            Protocol::Pairwise,
            vec![RowOutcome {
                wins: vec![Some(true), Some(false), Some(true)],
                ..RowOutcome::for_rows(&rows)[0].clone()
            }],
        );
        let record = record(rows, vec![old], Missing::Drop, false);
        assert!(record.configs[0]
            .outcomes
            .iter()
            .all(|o| *o == Outcome::NotAsked));
    }
}
