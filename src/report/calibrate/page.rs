//! A calibrate run's `report.html` (written by `media::html`). The summary tables are `summary::summary`'s, the
//! plots `plots`'s, and the item browser takes the run's texts (`report DIR`: items.jsonl's)
//! and reads completions.jsonl, so `calibrate` and `report DIR` write the same page. All data is
//! escaped by the template engine (HTML) or embedded as JSON and shown with `textContent`.

use crate::evaluation::Outcome;
use crate::report::calibrate::plots;
use crate::report::calibrate::section::{Figure, Place, View};
use crate::report::calibrate::sections::tables_at;
use crate::report::calibrate::summary::summary;
use crate::report::media::html::{
    page, plot, script_json, scripts, write_parts, Browser, Page, Plot,
};
use crate::report::media::table::Table;
use crate::run::lines::{each_line, read_lines, ItemTexts};
use crate::run::record::Run;
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;

/// A line of completions.jsonl, as the browser shows it.
#[derive(Deserialize, Serialize)]
struct Answer {
    #[serde(default, skip_serializing)]
    config: String,
    #[serde(default, skip_serializing)]
    id: String,
    sample: u32,
    text: Option<String>,
    verdict: Option<i64>,
    grade: Option<f64>,
    side: Option<u8>,
    span: Option<[usize; 2]>,
    problem: Option<String>,
    /// The judge's thinking, shown collapsed above the answer: what the server returned apart,
    /// or a `<think>` block moved out of the text (`set_thinking_apart`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reasoning: Option<String>,
}

impl Answer {
    /// Moves a `<think>` block at the start of the text into `reasoning` (the span, in
    /// characters, follows the answer).
    fn set_thinking_apart(mut self) -> Self {
        let Some(text) = self.text.take() else {
            return self;
        };
        let (kept, thinking, shift) = match crate::verdicts::thinking::answer(&text, None) {
            crate::verdicts::thinking::Answer::Text {
                answer,
                offset,
                thinking: Some(thinking),
            } => (
                answer.to_string(),
                thinking.to_string(),
                text[..offset].chars().count(),
            ),
            _ => {
                self.text = Some(text);
                return self;
            }
        };
        self.span = self
            .span
            .map(|[a, b]| [a.saturating_sub(shift), b.saturating_sub(shift)]);
        self.reasoning = Some(match self.reasoning.take() {
            Some(apart) => format!("{apart}\n{thinking}"),
            None => thinking,
        });
        self.text = Some(kept);
        self
    }
}

/// An item's texts as shown, from the run or from items.jsonl.
struct Shown<'a> {
    prompt: &'a str,
    r1: &'a str,
    r2: &'a str,
    turns: &'a [crate::dataset::conversation::Turn],
}

/// An item as the browser shows it: its texts (as indices into `BrowserData::texts`) and each
/// configuration's (rating, status).
#[derive(Serialize)]
struct BrowserItem<'a> {
    id: &'a str,
    pair: &'a str,
    subset: &'a str,
    order: &'a str,
    /// `None` (null): the item has no gold label.
    gold: Option<i64>,
    prompt: usize,
    r1: usize,
    r2: usize,
    /// The models that wrote response 1 and 2, when the data says.
    #[serde(skip_serializing_if = "Option::is_none")]
    models: Option<&'a [String; 2]>,
    /// A conversation's turns before the prompt.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    turns: &'a [crate::dataset::conversation::Turn],
    ratings: Vec<(Option<i64>, &'static str)>,
}

#[derive(Serialize)]
struct BrowserData<'a> {
    /// Every distinct prompt and response once (the items name them by index): a prompt is
    /// shared by its pairs, a response by every pair it is in (RM-Bench's nine pairs per
    /// prompt show 7 texts, not 27).
    texts: Vec<&'a str>,
    configs: Vec<&'a str>,
    /// Per configuration: a jury's members (configuration indices), else null.
    juries: Vec<Option<&'a [usize]>>,
    items: Vec<BrowserItem<'a>>,
    /// Per configuration, per item: its answers.
    completions: Vec<Vec<Vec<Answer>>>,
    /// Items from this index on have no answers in the page (over `ANSWER_BYTES`, in MB).
    #[serde(skip_serializing_if = "Option::is_none")]
    answers_cut: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    answers_mb: Option<usize>,
}

/// At most this much of answers (as the page's JSON) goes into a page (a browser holds the
/// page whole): the items past it show where their answers are instead.
const ANSWER_BYTES: usize = 32 << 20;

fn status(o: Outcome) -> &'static str {
    match o {
        Outcome::Rated(_) => "rated",
        Outcome::NoVerdict => "no verdict",
        Outcome::CutOff => "cut off while thinking",
        Outcome::CallFailed => "call failed",
        Outcome::NotAsked => "not asked",
    }
}

/// The length of a value's JSON, counted as it is written (no buffer).
fn json_len(value: &impl Serialize) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        Err(_) => 0,
    }
}

/// The item browser's data as script-safe JSON: items with texts and ratings, and each
/// configuration's answers; `None` without items.jsonl (a run from an older raterlab).
pub fn browser_data(run: &Run, dir: &Path) -> Result<Option<String>> {
    let rec = &run.record;
    // The texts: a fresh run's own (items.jsonl may still be being written beside the page),
    // else items.jsonl's (`report DIR`); the same texts either way, so both write one page.
    let read: HashMap<String, ItemTexts>;
    let texts: Vec<Option<Shown>> = match &run.texts {
        Some(texts) => texts
            .iter()
            .enumerate()
            .map(|(i, [prompt, r1, r2])| {
                let turns = run.histories.as_ref().and_then(|h| h.get(i));
                Some(Shown {
                    prompt,
                    r1,
                    r2,
                    turns: turns.map_or(&[][..], |t| &t[..]),
                })
            })
            .collect(),
        None => {
            read = read_lines::<ItemTexts>(&dir.join("items.jsonl"))
                .into_iter()
                .map(|t| (t.id.clone(), t))
                .collect();
            if read.is_empty() {
                return Ok(None);
            }
            rec.items
                .iter()
                .map(|it| {
                    read.get(it.id).map(|t| Shown {
                        prompt: &t.prompt,
                        r1: &t.response1,
                        r2: &t.response2,
                        turns: &t.turns,
                    })
                })
                .collect()
        }
    };
    let index: HashMap<&str, usize> = rec
        .items
        .iter()
        .enumerate()
        .map(|(i, it)| (it.id, i))
        .collect();
    let config_index: HashMap<&str, usize> = rec
        .configs
        .iter()
        .enumerate()
        .map(|(k, c)| (c.name.as_str(), k))
        .collect();
    // The page keeps the answers of as many items (from the first) as fit in ANSWER_BYTES,
    // for every configuration: completions.jsonl is read a line at a time, once when all its
    // answers fit (they are kept as they come), twice when they do not (the first read finds
    // where they stop fitting).
    let path = dir.join("completions.jsonl");
    let configs = rec.configs.len();
    let empty = || -> Vec<Vec<Vec<Answer>>> {
        (0..configs)
            .map(|_| (0..rec.items.len()).map(|_| Vec::new()).collect())
            .collect()
    };
    let mut bytes = vec![0usize; rec.items.len()];
    let (mut total, mut kept) = (0usize, Some(empty()));
    each_line(&path, |answer: Answer| {
        if let Some(&i) = index.get(answer.id.as_str()) {
            let size = json_len(&answer);
            bytes[i] += size;
            total += size;
            if total > ANSWER_BYTES {
                kept = None;
            } else if let (Some(kept), Some(&k)) =
                (kept.as_mut(), config_index.get(answer.config.as_str()))
            {
                kept[k][i].push(answer.set_thinking_apart());
            }
        }
    });
    let shown = fitting(&bytes, ANSWER_BYTES);
    let completions = kept.unwrap_or_else(|| {
        let mut completions = empty();
        each_line(&path, |answer: Answer| {
            if let (Some(&k), Some(&i)) = (
                config_index.get(answer.config.as_str()),
                index.get(answer.id.as_str()),
            ) {
                if i < shown {
                    completions[k][i].push(answer.set_thinking_apart());
                }
            }
        });
        completions
    });
    let mut distinct = Distinct::default();
    let items = rec
        .items
        .iter()
        .enumerate()
        .map(|(i, it)| {
            let (prompt, r1, r2, turns) = texts[i]
                .as_ref()
                .map_or(("", "", "", &[][..]), |t| (t.prompt, t.r1, t.r2, t.turns));
            BrowserItem {
                id: it.id,
                pair: it.pair_id,
                subset: it.subset,
                order: it.order.key(),
                gold: it.gold,
                prompt: distinct.index(prompt),
                r1: distinct.index(r1),
                r2: distinct.index(r2),
                models: rec.generators.as_ref().map(|g| &g.of_item[i]),
                turns,
                ratings: rec
                    .configs
                    .iter()
                    .map(|c| (c.outcomes[i].rating(), status(c.outcomes[i])))
                    .collect(),
            }
        })
        .collect();
    let data = BrowserData {
        texts: distinct.texts,
        configs: rec.configs.iter().map(|c| c.name.as_str()).collect(),
        juries: rec
            .configs
            .iter()
            .map(|c| c.jury.as_ref().map(|j| &j.members[..]))
            .collect(),
        items,
        completions,
        answers_cut: (shown < rec.items.len()).then_some(shown),
        answers_mb: (shown < rec.items.len()).then_some(ANSWER_BYTES >> 20),
    };
    script_json(&data).map(Some)
}

/// Texts kept once each, in the order first seen: a text's index.
#[derive(Default)]
struct Distinct<'a> {
    texts: Vec<&'a str>,
    at: HashMap<&'a str, usize, xxhash_rust::xxh3::Xxh3DefaultBuilder>,
}

impl<'a> Distinct<'a> {
    fn index(&mut self, text: &'a str) -> usize {
        *self.at.entry(text).or_insert_with(|| {
            self.texts.push(text);
            self.texts.len() - 1
        })
    }
}

/// How many items, from the first, have answers (`bytes` each) that fit in `budget` together.
fn fitting(bytes: &[usize], budget: usize) -> usize {
    let mut total = 0usize;
    bytes
        .iter()
        .position(|b| {
            total += b;
            total > budget
        })
        .unwrap_or(bytes.len())
}

fn unique(values: impl Iterator<Item = String>) -> String {
    let mut seen: Vec<String> = Vec::new();
    for v in values {
        if !seen.contains(&v) {
            seen.push(v);
        }
    }
    seen.join(", ")
}

/// The run's page as text (what `write` puts in report.html), its figures drawn here.
pub fn render(run: &Run, dir: &Path) -> Result<String> {
    let evaluated = run.view();
    let order = crate::report::calibrate::ranking::order(&evaluated);
    let sections = crate::report::calibrate::sections::figures(&evaluated, &order)?;
    let own = plots::draw(run)?;
    Ok(run_page(run, &own, &sections, browser_data(run, dir)?)?.concat())
}

/// The page in its three parts, with the figures already drawn and the item browser's data
/// (`browser_data`) made.
fn run_page(
    run: &Run,
    own: &plots::Own,
    sections: &[Figure],
    browser: Option<String>,
) -> Result<[String; 3]> {
    let order = crate::report::calibrate::ranking::order(&run.view());
    let tables = page_tables(run, &order);
    let figures = page_figures(run, own, sections)?;
    let rec = &run.record;
    let m = &run.meta;
    let n = rec.configs.len();
    let mut header = vec![
        format!(
            "data {} · {} items · seed {} · {} · {n} configuration{} · bootstrap {}",
            m.head.source,
            rec.items.len(),
            m.head.seed,
            if m.head.both_orders {
                "both orders"
            } else {
                "one order per pair (seeded)"
            },
            if n == 1 { "" } else { "s" },
            m.head.bootstrap
        ),
        format!(
            "models: {} · judges: {}",
            unique(m.configs.iter().map(|c| c.model.clone())),
            unique(m.configs.iter().map(|c| c.judge.clone()))
        ),
    ];
    if m.no_majority > 0 {
        let kept = rec.annotators.as_ref().is_some_and(|a| a.policy == "tie");
        header.push(format!(
            "{} pairs {}: their annotators had no majority",
            m.no_majority,
            if kept { "kept as ties" } else { "left out" }
        ));
    }
    page(Page {
        answer: crate::report::calibrate::answer::answer(run),
        title: m.head.name.clone(),
        header,
        command: m.head.command.join(" "),
        simulated: rec.configs.iter().any(|c| c.simulated),
        tables,
        plots: figures,
        browser: browser.map(|data| Browser {
            data,
            title: "Items",
            filters: vec![
                ["all", "all items"],
                ["wrong", "wrong (any configuration)"],
                ["none", "no verdict (any configuration)"],
                ["disagree", "configurations disagree"],
                ["inconsistent", "position-inconsistent"],
            ],
            columns: vec!["id", "subset", "order", "gold"],
            hint: "Select an item to see the prompt, both responses and every answer, with the part read as the verdict highlighted.",
            script: scripts::PAIRS,
        }),
    })
}

/// The page's tables, in the terminal's order with `--details`.
fn page_tables(run: &Run, order: &[usize]) -> Vec<Table> {
    let evaluated = run.view();
    let s = summary(&evaluated);
    let at = |place| tables_at(&evaluated, order, place, View::Full);
    std::iter::once(s.configurations)
        .chain(at(Place::Lead))
        .chain(std::iter::once(s.parse_failures))
        .chain([s.position, s.pointwise, s.sections].into_iter().flatten())
        .chain(at(Place::Scopes))
        .chain(s.comparisons)
        .chain(at(Place::After))
        .collect()
}

/// The page's figures: the run's, then each configuration's.
fn page_figures(run: &Run, own: &plots::Own, sections: &[Figure]) -> Result<Vec<Plot>> {
    let shown = |f: &Figure| plot(f.title.clone(), &f.svg);
    let mut figures = vec![shown(&own.metrics)];
    figures.push(plot(
        "accuracy per subset × configuration (columns in the order of the first table)",
        plots::subsets_svg(run)?,
    ));
    if !run.evaluation.comparisons.is_empty() {
        figures.push(plot(
            "paired differences of accuracy",
            plots::forest_svg(run)?,
        ));
    }
    figures.extend(sections.iter().map(shown));
    for (confusion, grades) in &own.configs {
        figures.extend(std::iter::once(confusion).chain(grades).map(shown));
    }
    Ok(figures)
}

/// Writes `report.html` into the run directory, with the figures already drawn and the item
/// browser's data made (`run_dir::write` makes it on a thread of its own).
pub fn write(
    run: &Run,
    dir: &Path,
    (own, sections): (&plots::Own, &[Figure]),
    browser: Option<String>,
) -> Result<()> {
    write_parts(
        run_page(run, own, sections, browser)?,
        &dir.join("report.html"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_keeps_the_answers_of_the_first_items_that_fit() {
        assert_eq!(fitting(&[10, 20, 30], 60), 3);
        assert_eq!(fitting(&[10, 20, 30], 59), 2);
        assert_eq!(fitting(&[10, 20, 30], 30), 2);
        assert_eq!(fitting(&[10, 20, 30], 29), 1);
        assert_eq!(fitting(&[70, 0, 0], 64), 0);
        assert_eq!(fitting(&[], 0), 0);
    }
}
