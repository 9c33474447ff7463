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
        let file_gold = e.gold.filter(|_| !overrides);
        match (file_gold, from_store) {
            (Some(_), _) => sources.file += 1,
            (None, Some((_, Some(g)))) => {
                e.gold = Some(e.shown(g));
                sources.store += 1;
            }
            (None, Some((_, None))) => {
                e.gold = None;
                sources.contested += 1;
            }
            (None, None) => e.gold = None,
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
