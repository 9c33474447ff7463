//! RewardBench 2's rows as the items a judge rates: one four-way item per row (ranking), or
//! pairs of a row's completions (pairwise, and the pointwise ratings, which grade each
//! completion of those pairs once). Each item says which row, and which completions, it shows.

use super::{slot_letter, Shown};
use crate::dataset::examples::{Example, Order};

/// What an item shows of its row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Showing {
    /// The row's four completions, in their slots.
    Four,
    /// Completions `first` and `second` (indices in the row's completions) as response 1
    /// and 2.
    Two { first: usize, second: usize },
}

/// Items made from rows, with the row (an index into the rows given) each came from.
#[derive(Debug, Clone, Default)]
pub struct RowItems {
    pub examples: Vec<Example>,
    pub of: Vec<(usize, Showing)>,
}

fn item(shown: &Shown, id: String, order: Order, responses: Vec<String>, gold: i64) -> Example {
    let mut responses = responses.into_iter();
    Example {
        id: id.clone(),
        pair_id: id,
        subset: shown.row.subset.clone(),
        prompt: shown.row.prompt.clone(),
        response1: responses.next().unwrap_or_default(),
        response2: responses.next().unwrap_or_default(),
        more: responses.collect(),
        gold: Some(gold),
        order,
        reference: None,
        seeded: true,
        votes: Vec::new(),
        vote_order: Vec::new(),
        generators: None,
        history: Vec::new().into(),
    }
}

/// One four-way item per row (rows of four completions; the caller checks): the completions
/// in their slots, gold the first correct completion's slot.
pub fn four_way(rows: &[Shown], which: &[usize]) -> RowItems {
    let mut out = RowItems::default();
    for &r in which {
        let shown = &rows[r];
        let responses = (0..shown.order.len())
            .map(|slot| shown.at(slot).to_string())
            .collect();
        let gold = shown.gold.first().map_or(0, |&s| s as i64);
        out.examples.push(item(
            shown,
            shown.row.id.clone(),
            Order::AsSource,
            responses,
            gold,
        ));
        out.of.push((r, Showing::Four));
    }
    out
}

/// Per row, the first correct completion against each other completion, shown in their slots'
/// order (and the other way round too with `both_orders`): for a row with one correct
/// completion, the correct one against each incorrect one; every completion appears, so the
/// pairs' pointwise grades cover the row. Gold: -1/1 where the correct one is shown
/// first/second, 0 between two correct ones. Ids: `{row}/AC` (slots), `#ab`/`#ba` with both
/// orders.
pub fn pairs(rows: &[Shown], which: &[usize], both_orders: bool) -> RowItems {
    let mut out = RowItems::default();
    for &r in which {
        let shown = &rows[r];
        let slot = |k: usize| shown.order.iter().position(|&i| i == k).unwrap_or(0);
        for other in 1..shown.row.completions.len() {
            let (a, b) = if slot(0) < slot(other) {
                (0, other)
            } else {
                (other, 0)
            };
            let correct = |k: usize| k < shown.row.correct;
            let gold = match (correct(a), correct(b)) {
                (true, false) => -1,
                (false, true) => 1,
                _ => 0,
            };
            let base = format!(
                "{}/{}{}",
                shown.row.id,
                slot_letter(slot(a)),
                slot_letter(slot(b))
            );
            let text = |k: usize| shown.row.completions[k].clone();
            let orders: &[(Order, &str)] = if both_orders {
                &[(Order::AsSource, "#ab"), (Order::Swapped, "#ba")]
            } else {
                &[(Order::AsSource, "")]
            };
            for &(order, suffix) in orders {
                let (first, second, g) = match order {
                    Order::AsSource => (a, b, gold),
                    Order::Swapped => (b, a, -gold),
                };
                let mut e = item(
                    shown,
                    format!("{base}{suffix}"),
                    order,
                    vec![text(first), text(second)],
                    g,
                );
                e.pair_id = base.clone();
                e.seeded = order == Order::AsSource;
                out.examples.push(e);
                out.of.push((r, Showing::Two { first, second }));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::rewardbench2::{show, Rb2Row};

    fn row(id: &str, n: usize, correct: usize) -> Rb2Row {
        Rb2Row {
            id: id.into(),
            subset: "Math".into(),
            prompt: "p".into(),
            completions: (0..n).map(|k| format!("c{k}")).collect(),
            correct,
        }
    }

    #[test]
    fn four_way_items_show_the_slots() {
        let rows = show(vec![row("Math-1", 4, 1), row("Math-2", 4, 1)], 3);
        let items = four_way(&rows, &[1]);
        assert_eq!(items.of, [(1, Showing::Four)]);
        let e = &items.examples[0];
        let shown: Vec<&str> = [&e.response1, &e.response2, &e.more[0], &e.more[1]]
            .iter()
            .map(|s| s.as_str())
            .collect();
        assert_eq!(shown, (0..4).map(|s| rows[1].at(s)).collect::<Vec<_>>());
        let gold = usize::try_from(e.gold.expect("a ranking item has gold")).expect("a slot");
        assert_eq!(shown[gold], "c0");
    }

    #[test]
    fn pairs_cover_every_completion_in_slot_order() {
        let rows = show(vec![row("Ties-tied:1", 5, 2)], 9);
        let items = pairs(&rows, &[0], true);
        assert_eq!(items.examples.len(), 8);
        for (e, (_, showing)) in items.examples.iter().zip(&items.of) {
            let Showing::Two { first, second } = *showing else {
                panic!("a pair")
            };
            assert_eq!(e.response1, format!("c{first}"));
            assert_eq!(e.response2, format!("c{second}"));
            let expected = match (first < 2, second < 2) {
                (true, false) => -1,
                (false, true) => 1,
                _ => 0,
            };
            assert_eq!(e.gold, Some(expected), "{}", e.id);
        }
        let seeded: Vec<&Example> = items.examples.iter().filter(|e| e.seeded).collect();
        assert_eq!(seeded.len(), 4);
        for e in seeded {
            let slot = |t: &str| (0..5).position(|s| rows[0].at(s) == t);
            assert!(slot(&e.response1) < slot(&e.response2), "{}", e.id);
        }
    }
}
