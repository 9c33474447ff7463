//! Gold from a label store (`--labels STORE`): each item's labels from the people who
//! labelled it on `raterlab label`'s page, matched by content id, so a renamed or reshaped
//! file keeps them.

use crate::label::store::Store;
use crate::label::Gold;
use crate::run::data::Dataset;
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

/// Puts the store's gold on the dataset's items: where the file has none, or everywhere with
/// `overrides`. The store's annotators become the data's (their votes feed the human ceiling
/// and the judge-against-annotators figures) unless the file's own annotators are kept.
pub fn apply(dataset: &mut Dataset, path: &Path, overrides: bool) -> Result<GoldSources> {
    let store = Store::open(path, false)?;
    let gold = Gold::of(&store.current()?);
    let mut sources = GoldSources {
        annotators: gold.annotators.len(),
        ..GoldSources::default()
    };
    // One annotator is no panel: the votes feed the analytics of several only from two on.
    let take_votes = gold.annotators.len() >= 2 && (dataset.annotators.is_empty() || overrides);
    for e in &mut dataset.examples {
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
    if take_votes {
        dataset.annotators = gold.annotators;
        dataset.no_majority = sources.contested;
    }
    dataset.source = format!(
        "{} · gold: {} items from the label store '{}' ({} annotator{}{}), {} from the file",
        dataset.source,
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
    Ok(sources)
}
