//! Gold from a label store (`--labels STORE`): each item's labels from the people who
//! labelled it on `raterlab label`'s page, matched by content id, so a renamed or reshaped
//! file keeps them.

use crate::dataset::examples::Example;
use crate::error::input_error;
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

/// `analyze --labels STORE`: the settings that read the store's labels as the gold of the
/// input's rows (joined on the id column), and what the header says of the gold's sources.
/// One annotator's labels become the gold column; from two on, each annotator's labels are a
/// column of their own and the gold their majority, as `--annotators` reads it (an item they
/// split has none). A row's id may carry `rate`'s `#ab`/`#ba` suffix, and a row whose `order`
/// column says `swapped` has its store label flipped to the order shown. When the input has a
/// gold column of its own, it wins unless `--labels-override`: then the note says the store
/// was not used.
pub fn analyze_gold(
    settings: &crate::run::settings::AnalyzeSettings,
) -> Result<(crate::run::settings::AnalyzeSettings, String)> {
    use crate::dataset::frame::Values;
    use crate::run::settings::{AnalyzeInput, Table};
    let Some((path, overrides)) = &settings.store else {
        return Ok((settings.clone(), String::new()));
    };
    let AnalyzeInput::One(_) = &settings.input else {
        return Err(input_error(
            "--labels STORE gives the gold: give the ratings with --input FILE, not --gold/--ratings",
        ));
    };
    if settings.annotators.is_some() {
        return Err(input_error(
            "--labels STORE gives the annotators: drop --annotators",
        ));
    }
    let tables = crate::run::ratings::Tables::read(&settings.input)?;
    let Some(input) = tables.one() else {
        return Err(input_error("--labels STORE reads one --input file"));
    };
    let labels = Store::open(path, false)?.current()?;
    let mut out = settings.clone();
    out.store = None;
    let gold_col = &settings.columns.gold;
    if input.column_names().contains(gold_col) && !overrides {
        return Ok((
            out,
            format!(
                "gold: from the file's column '{gold_col}'; the label store '{}' ({} labels) not used (--labels-override takes its gold)",
                path.display(),
                labels.len()
            ),
        ));
    }
    let id_col = settings.columns.id.clone().unwrap_or_else(|| "id".into());
    if id_col.contains(',') {
        return Err(input_error(format!(
            "--labels STORE joins on one id column; --id-col {id_col} names several"
        )));
    }
    let ids = input.text(&id_col, "--id-col", "item id")?;
    let orders = if input.column_names().iter().any(|c| c == "order") {
        input.optional_text("order", "order", "order")?
    } else {
        vec![None; ids.len()]
    };
    let gold = crate::label::Gold::of(&labels);
    let k = gold.annotators.len();
    let mut columns: Vec<Vec<Option<i64>>> = vec![Vec::with_capacity(ids.len()); k + 1];
    let (mut given, mut contested) = (0usize, 0usize);
    for (id, order) in ids.iter().zip(&orders) {
        let base = id
            .strip_suffix("#ab")
            .or_else(|| id.strip_suffix("#ba"))
            .unwrap_or(id);
        let sign = if order.as_deref() == Some("swapped") {
            -1
        } else {
            1
        };
        let (votes, most) = match gold.of_item(base) {
            Some((votes, most)) => {
                match most {
                    Some(_) => given += 1,
                    None => contested += 1,
                }
                (votes.to_vec(), most)
            }
            None => (vec![None; k], None),
        };
        columns[0].push(most.map(|g| sign * g));
        for (a, v) in votes.iter().enumerate() {
            columns[a + 1].push(v.map(|v| sign * v));
        }
    }
    if given + contested == 0 {
        return Err(input_error(format!(
            "--labels '{}': none of the {} rows of {} has a label in the store; the store keys items by content id (the ids `rate` and a run's ratings.csv give an item of a file without an id column), check --id-col",
            path.display(),
            ids.len(),
            settings.input.describe()
        )));
    }
    let names: Vec<String> = gold
        .annotators
        .iter()
        .map(|a| format!("label:{a}"))
        .collect();
    let mut added = vec![(gold_col.clone(), Values::Int(columns.remove(0)))];
    if k >= 2 {
        added.extend(
            names
                .iter()
                .cloned()
                .zip(columns.into_iter().map(Values::Int)),
        );
        out.annotators = Some((names, crate::dataset::labels::NoMajority::Drop));
    }
    out.input = AnalyzeInput::One(Table::Values(input.with_columns(added)?));
    Ok((
        out,
        format!(
            "gold: {given} items from the label store '{}' ({k} annotator{}{}), 0 from the file",
            path.display(),
            if k == 1 { "" } else { "s" },
            match contested {
                0 => String::new(),
                n => format!(", {n} contested"),
            }
        ),
    ))
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
