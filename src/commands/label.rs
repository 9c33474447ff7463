//! `raterlab label`: the data's pairs served as a labelling page over a label store, and
//! `raterlab labels`: the store's labels exported or summarised.

use crate::error::input_error;
use crate::label::queue::Queue;
use crate::label::server::{self, Config, Item, Turn};
use crate::label::store::{Session, Store};
use crate::run::data::{self, DataSettings};
use crate::run::labelling::LabelsRequest;
use crate::run::settings::LabelSettings;
use anyhow::{Context, Result};
use rand::Rng;
use std::collections::HashSet;

/// The items to label: each pair once (in whichever order the data shows it, the responses
/// kept in the data's order), keyed by content id.
fn items(examples: &[crate::dataset::examples::Example]) -> Vec<Item> {
    let mut seen = HashSet::new();
    examples
        .iter()
        .filter_map(|e| {
            let id = e.content_id();
            seen.insert(id.clone()).then(|| {
                let [first, second] = e.in_source_order();
                Item {
                    id,
                    pair_id: e.pair_id.clone(),
                    subset: e.subset.clone(),
                    history: e
                        .history
                        .iter()
                        .map(|t| Turn {
                            role: t.role.label().to_string(),
                            content: t.content.clone(),
                        })
                        .collect(),
                    prompt: e.prompt.clone(),
                    responses: [first.to_string(), second.to_string()],
                }
            })
        })
        .collect()
}

/// Serves the page until Ctrl-C or SIGTERM.
pub fn label(s: &LabelSettings) -> Result<()> {
    if s.data.labels.is_some() {
        return Err(input_error(
            "label writes its labels to --store; --labels reads a store as gold (calibrate, analyze, data): drop --labels here",
        ));
    }
    if !server::valid_annotator(&s.annotator) {
        return Err(input_error(format!(
            "--annotator '{}': use letters, digits and _ . @ - (at most 64 characters)",
            s.annotator
        )));
    }
    if s.overlap == 0 {
        return Err(input_error(
            "--overlap 0: each item needs at least one annotator; use 1 (the default) or more",
        ));
    }
    let guidelines = match &s.guidelines {
        Some(path) => std::fs::read_to_string(path).map_err(|e| {
            input_error(format!(
                "--guidelines '{}': {e}; name a markdown file",
                path.display()
            ))
        })?,
        None => String::new(),
    };
    let settings = DataSettings::from_options(s.data.clone())?;
    let dataset = data::load(
        &settings,
        &crate::report::media::progress::Download::default(),
    )?;
    let items = items(&dataset.examples);
    if items.is_empty() {
        return Err(input_error(format!(
            "{}: no pairs to label after selection; check --subset, --limit and the file",
            dataset.source
        )));
    }
    let store = Store::open(&s.store, true)?;
    let queue = Queue::new(
        items.iter().map(|i| i.id.clone()).collect(),
        settings.seed,
        s.overlap,
    );
    let (asks, order): (Box<dyn crate::label::queue::Asks>, String) = if s.asks.every_item() {
        (Box::new(crate::label::queue::Everything), "random".into())
    } else {
        let keys: Vec<(String, String)> = items
            .iter()
            .map(|i| (i.pair_id.clone(), i.id.clone()))
            .collect();
        let rule = crate::run::asks::Rule::new(&s.asks, &keys, &queue.ids, &store)?;
        let order = rule.record(settings.seed, &s.asks);
        (Box::new(rule), order)
    };
    store.begin(&Session {
        annotator: s.annotator.clone(),
        data: dataset.source.clone(),
        seed: settings.seed,
        overlap: s.overlap,
        items: items.len(),
        order,
    })?;
    if !s.addr.ip().is_loopback() {
        crate::report::media::format::warn(&format!(
            "--host {}: the page (unpublished data, and writes) is reachable from other machines to anyone with the token; prefer 127.0.0.1 and an SSH tunnel",
            s.addr.ip()
        ));
    }
    let token: String = {
        let bytes: [u8; 24] = rand::rng().random();
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    };
    // The page's title: the source as named, without the loader's description of its shape.
    let title = dataset.source.split(" (").next().unwrap_or(&dataset.source);
    let page = crate::report::label::page(title)?;
    let n = items.len();
    let config = Config {
        addr: s.addr,
        token: token.clone(),
        annotator: s.annotator.clone(),
        guidelines,
        page,
        asks,
    };
    let store_path = s.store.clone();
    let stopped = server::serve(config, store, items, queue, |addr| {
        let host = if addr.ip().is_unspecified() {
            "127.0.0.1".to_string()
        } else {
            addr.ip().to_string()
        };
        let host = if addr.is_ipv6() && !addr.ip().is_unspecified() {
            format!("[{host}]")
        } else {
            host
        };
        crate::report::label::ready(
            &format!("http://{host}:{}/?token={token}", addr.port()),
            &[format!(
                "{n} items from {} · annotator {} · overlap {} · store '{}' · seed {} · Ctrl-C stops",
                dataset.source,
                s.annotator,
                s.overlap,
                store_path.display(),
                settings.seed
            )],
        )
    })?;
    crate::report::label::stopped(&stopped, &s.store);
    Ok(())
}

/// `labels export` and `labels stats`.
pub fn labels(r: &LabelsRequest) -> Result<()> {
    match r {
        LabelsRequest::Export {
            store,
            format,
            out,
            history,
        } => {
            let store = Store::open(store, false)?;
            let (frame, rows, what) = if *history {
                let events = store.events()?;
                (
                    crate::report::label::history_frame(&events)?,
                    events.len(),
                    "events",
                )
            } else {
                let labels = store.current()?;
                (
                    crate::report::label::labels_frame(&labels)?,
                    labels.len(),
                    "labels",
                )
            };
            crate::report::label::write_export(frame, rows, what, out, *format)
                .with_context(|| format!("exporting to '{}'", out.display()))
        }
        LabelsRequest::Stats {
            store: path,
            bootstrap,
            alpha,
            seed,
        } => {
            let store = Store::open(path, false)?;
            let stats =
                crate::evaluation::labelling::stats(&store.current()?, *alpha, *bootstrap, *seed);
            crate::report::label::emit_stats(&stats, path)
        }
    }
}
