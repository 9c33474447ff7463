//! The record's items as columns: no owned string per item. Ids are one text buffer with
//! offsets, subsets an index into their names; an item is read through `ItemRef`, a view with
//! `ItemRow`'s fields.

use crate::dataset::examples::Order;
use std::sync::Arc;

/// Names shared: each distinct name one allocation, however many items carry it.
pub fn interned<'a>(names: impl Iterator<Item = &'a str>) -> Vec<std::sync::Arc<str>> {
    let mut seen: std::collections::HashMap<&str, std::sync::Arc<str>> = Default::default();
    names
        .map(|n| seen.entry(n).or_insert_with(|| n.into()).clone())
        .collect()
}

/// Examples as the evaluation's items (each subset's name shared).
pub fn rows_of(examples: &[crate::dataset::examples::Example]) -> Vec<ItemRow> {
    let subsets = interned(examples.iter().map(|e| e.subset.as_str()));
    examples
        .iter()
        .zip(subsets)
        .map(|(e, subset)| ItemRow {
            id: e.id.as_str().into(),
            pair_id: e.pair_id.as_str().into(),
            subset,
            order: e.order,
            gold: e.gold,
            seeded: e.seeded,
        })
        .collect()
}

/// One item as the judge saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemRow {
    pub id: std::sync::Arc<str>,
    pub pair_id: std::sync::Arc<str>,
    /// Shared by the items of a subset (one allocation per name, not per item).
    pub subset: std::sync::Arc<str>,
    pub order: Order,
    /// `None`: the data gives no label. The item is rated and kept, and no agreement measure
    /// counts it (`RunRecord::labelled`).
    pub gold: Option<i64>,
    /// Whether this is the pair's seeded position (the order a one-order run shows).
    pub seeded: bool,
}

/// Many short texts in one buffer: text `k` is `text[ends[k - 1]..ends[k]]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Texts {
    text: String,
    ends: Vec<usize>,
}

impl Texts {
    pub fn push(&mut self, s: &str) {
        self.text.push_str(s);
        self.ends.push(self.text.len());
    }

    pub fn get(&self, k: usize) -> &str {
        let start = if k == 0 { 0 } else { self.ends[k - 1] };
        &self.text[start..self.ends[k]]
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The numbers `first, first + 1, ...` for each of `n` texts, as text (a file's rows).
    pub fn numbers(rows: impl ExactSizeIterator<Item = usize>) -> Self {
        let mut out = Texts {
            text: String::with_capacity(rows.len() * 8),
            ends: Vec::with_capacity(rows.len()),
        };
        let mut buffer = itoa::Buffer::new();
        for r in rows {
            out.push(buffer.format(r));
        }
        out
    }
}

/// The run's items, a column per field.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Items {
    ids: Texts,
    /// None: each item's pair id is its id (one order per pair).
    pair_ids: Option<Texts>,
    subset_names: Vec<Arc<str>>,
    subset_of: Vec<u32>,
    pub order: Vec<Order>,
    /// `None`: the data gives no label. The item is rated and kept, and no agreement measure
    /// counts it (`RunRecord::counted`).
    pub gold: Vec<Option<i64>>,
    /// Whether this is the pair's seeded position (the order a one-order run shows).
    pub seeded: Vec<bool>,
}

/// One item, as read from `Items`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemRef<'a> {
    pub id: &'a str,
    pub pair_id: &'a str,
    pub subset: &'a str,
    pub order: Order,
    pub gold: Option<i64>,
    pub seeded: bool,
}

impl Items {
    /// Items in their source's order, each its own pair (`analyze`'s rows): ids `ids`, the
    /// subset of item k `subsets.names[subsets.of_pair[k]]` (None: no subset), gold `gold`.
    pub fn as_source(
        ids: Texts,
        subsets: Option<crate::dataset::labels::Groups>,
        gold: Vec<Option<i64>>,
    ) -> Self {
        let n = gold.len();
        assert_eq!(ids.len(), n, "one id per item");
        let (subset_names, subset_of) = match subsets {
            Some(g) => (g.names, g.of_pair),
            None => (vec![Arc::from("")], vec![0; n]),
        };
        Items {
            ids,
            pair_ids: None,
            subset_names,
            subset_of,
            order: vec![Order::AsSource; n],
            gold,
            seeded: vec![true; n],
        }
    }

    pub fn len(&self) -> usize {
        self.gold.len()
    }

    pub fn is_empty(&self) -> bool {
        self.gold.is_empty()
    }

    /// Item `i`.
    pub fn get(&self, i: usize) -> ItemRef<'_> {
        ItemRef {
            id: self.ids.get(i),
            pair_id: self.pair_ids.as_ref().unwrap_or(&self.ids).get(i),
            subset: &self.subset_names[self.subset_of[i] as usize],
            order: self.order[i],
            gold: self.gold[i],
            seeded: self.seeded[i],
        }
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = ItemRef<'_>> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

impl FromIterator<ItemRow> for Items {
    fn from_iter<T: IntoIterator<Item = ItemRow>>(rows: T) -> Self {
        let mut out = Items::default();
        let mut pair_ids = Texts::default();
        let mut index: std::collections::HashMap<Arc<str>, u32> = Default::default();
        let mut distinct_pairs = false;
        for row in rows {
            out.ids.push(&row.id);
            pair_ids.push(&row.pair_id);
            distinct_pairs |= row.pair_id != row.id;
            let next = out.subset_names.len() as u32;
            let k = *index.entry(row.subset.clone()).or_insert_with(|| {
                out.subset_names.push(row.subset.clone());
                next
            });
            out.subset_of.push(k);
            out.order.push(row.order);
            out.gold.push(row.gold);
            out.seeded.push(row.seeded);
        }
        out.pair_ids = distinct_pairs.then_some(pair_ids);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_read_back_as_written() {
        let rows = vec![
            ItemRow {
                id: "a:1".into(),
                pair_id: "a".into(),
                subset: "s".into(),
                order: Order::Swapped,
                gold: Some(1),
                seeded: false,
            },
            ItemRow {
                id: "b".into(),
                pair_id: "b".into(),
                subset: "t".into(),
                order: Order::AsSource,
                gold: None,
                seeded: true,
            },
        ];
        let items: Items = rows.iter().cloned().collect();
        assert_eq!(items.len(), 2);
        let back: Vec<ItemRow> = items
            .iter()
            .map(|r| ItemRow {
                id: r.id.into(),
                pair_id: r.pair_id.into(),
                subset: r.subset.into(),
                order: r.order,
                gold: r.gold,
                seeded: r.seeded,
            })
            .collect();
        assert_eq!(back, rows);
    }

    #[test]
    fn rows_of_a_file_are_numbered_from_one() {
        let items = Items::as_source(
            Texts::numbers([1, 2, 10].into_iter()),
            None,
            vec![Some(1); 3],
        );
        let ids: Vec<&str> = items.iter().map(|i| i.id).collect();
        assert_eq!(ids, ["1", "2", "10"]);
        assert_eq!(items.get(2).pair_id, "10");
        assert_eq!(items.get(0).subset, "");
    }
}
