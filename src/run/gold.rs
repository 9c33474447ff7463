//! Gold from a label store (`--labels STORE`): each item's labels from the people who
//! labelled it on `raterlab label`'s page, matched by content id, so a renamed or reshaped
//! file keeps them.

use crate::dataset::examples::Example;
use crate::label::store::Store;
use crate::label::Gold;
use anyhow::Result;
use std::path::Path;

/// How many items each source gave their gold.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GoldSources {
    /// Items whose gold is the store's.
    pub store: usize,
    /// Items whose gold is the file's.
    pub file: usize,
    /// Items the store has labels of, with no single most common one (no gold from it).
    pub contested: usize,
    pub annotators: usize,
}

/// Puts the store's gold on the items: where the file has none, or everywhere with
/// `overrides`. From two annotators on, their votes go on the items too (they feed the human
/// ceiling and the judge-against-annotators figures) unless `file_annotators` are kept; then
/// the store's annotators are returned, for the data to name. `source` gains what each
/// source gave.
pub fn apply(
    examples: &mut [Example],
    (source, file_annotators): (&mut String, bool),
    path: &Path,
    overrides: bool,
) -> Result<(GoldSources, Option<Vec<String>>)> {
    let store = Store::open(path, false)?;
    let gold = Gold::of(&store.current()?);
    let mut sources = GoldSources {
        annotators: gold.annotators.len(),
        ..GoldSources::default()
    };
    // One annotator is no panel: the votes feed the analytics of several only from two on.
    let take_votes = gold.annotators.len() >= 2 && (!file_annotators || overrides);
    for e in examples.iter_mut() {
        let from_store = gold.of_item(&e.content_id());
        // The store's gold where it has the item and the file has none (or is overridden);
        // the file's everywhere else.
        let store_decides = from_store.is_some() && (e.gold.is_none() || overrides);
        match (store_decides, from_store, e.gold) {
            (true, Some((_, Some(g))), _) => {
                e.gold = Some(e.shown(g));
                sources.store += 1;
            }
            (true, _, _) => {
                e.gold = None;
                sources.contested += 1;
            }
            (false, _, Some(_)) => sources.file += 1,
            (false, _, None) => {}
        }
        if take_votes {
            e.votes = match from_store {
                Some((votes, _)) => votes.iter().map(|v| v.map(|v| e.shown(v))).collect(),
                None => vec![None; gold.annotators.len()],
            };
        }
    }
    *source = format!(
        "{} · gold: {} items from the label store '{}' ({} annotator{}{}), {} from the file",
        source,
        sources.store,
        path.display(),
        sources.annotators,
        if sources.annotators == 1 { "" } else { "s" },
        match sources.contested {
            0 => String::new(),
            n => format!(", {n} contested"),
        },
        sources.file
    );
    Ok((sources, take_votes.then_some(gold.annotators)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::label::store::{NewLabel, Store};
    use crate::label::ShownFirst;

    #[test]
    fn each_item_takes_the_store_or_the_file_by_the_rule() {
        let pairs: Vec<crate::dataset::pairs::Pair> = (0..4)
            .map(|k| crate::dataset::pairs::Pair {
                id: format!("p{k}"),
                subset: "data".into(),
                prompt: format!("q{k}"),
                first: "a".into(),
                second: "b".into(),
                // p0, p1 have the file's gold; p2, p3 none.
                gold: (k < 2).then_some(-1),
                reference: None,
                randomize: true,
                votes: vec![],
                vote_order: Vec::new(),
                generators: None,
                history: vec![],
            })
            .collect();
        let examples = crate::dataset::examples::build(pairs, 3, false);
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("l.sqlite");
        let store = Store::open(&path, true).expect("store");
        // The store: p1 (1), p2 (1, then contested by bob's 0), p3 (0); p0 not labelled.
        for (k, who, label) in [(1, "ann", 1), (2, "ann", 1), (2, "bob", 0), (3, "ann", 0)] {
            store
                .label(&NewLabel {
                    item_id: &examples[k].content_id(),
                    annotator: who,
                    label,
                    shown_first: ShownFirst::Response1,
                    seconds: 1.0,
                    note: None,
                })
                .expect("label");
        }
        let gold_of = |overrides: bool| {
            let mut ex = examples.clone();
            let mut source = String::from("f");
            let (sources, names) =
                apply(&mut ex, (&mut source, false), &path, overrides).expect("apply");
            // Golds in the data's order.
            let golds: Vec<Option<i64>> = ex.iter().map(|e| e.gold.map(|g| e.shown(g))).collect();
            (golds, sources, names, source)
        };
        let (golds, s, names, source) = gold_of(false);
        assert_eq!(golds, [Some(-1), Some(-1), None, Some(0)]);
        assert_eq!((s.store, s.file, s.contested), (1, 2, 1));
        assert_eq!(names, Some(vec!["ann".to_string(), "bob".to_string()]));
        assert!(
            source.ends_with("(2 annotators, 1 contested), 2 from the file"),
            "{source}"
        );
        let (golds, s, _, _) = gold_of(true);
        assert_eq!(
            golds,
            [Some(-1), Some(1), None, Some(0)],
            "p0 keeps the file's"
        );
        assert_eq!((s.store, s.file, s.contested), (2, 1, 1));
    }
}
