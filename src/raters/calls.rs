//! The calls of a run: which calls each configuration makes, in the order they are sent, and
//! the answers turned into ratings; `schedule.rs` sends them under one budget and hands each
//! rating over as it is made. The caller may stop the run after any rating. A run holds the
//! messages and answers of the calls out at a time; the answers' texts go to the caller's
//! `Answers` as ratings are made.

use super::aggregate::aggregate;
use super::pointwise::{aggregate_pointwise, Graded};
use super::{Config, Rating, Status};
use crate::dataset::examples::Example;
use crate::judge::{Call, ItemView, Message};
use crate::prompts::{Mode, Template};
use std::sync::Arc;

fn view(example: &Example, template: &Template, graded: Option<u8>) -> ItemView {
    ItemView {
        prompt: example.prompt.clone(),
        response1: example.response1.clone(),
        response2: example.response2.clone(),
        gold: example.gold,
        parser: template.parser.clone(),
        allows_tie: template.allows_tie,
        graded,
        pair_id: example.pair_id.clone(),
        swapped: example.order == crate::dataset::examples::Order::Swapped,
        history: example.history.clone(),
    }
}

/// The messages a template sends for an example (pointwise: for the graded response).
pub fn messages(template: &Template, example: &Example, graded: Option<u8>) -> Vec<Message> {
    let mut out = Vec::with_capacity(2);
    if let Some(system) = &template.system {
        out.push(Message::system(system.clone()));
    }
    let conversation = crate::dataset::conversation::layout(&example.history, &example.prompt);
    let asked = crate::prompts::Asked {
        conversation: &conversation,
        question: &example.prompt,
        turns: &example.history,
    };
    let text = match (template.mode, graded) {
        (Mode::Pointwise, Some(side)) => template.render_pointwise(
            asked,
            if side == 1 {
                &example.response1
            } else {
                &example.response2
            },
            example.reference.as_deref().unwrap_or(""),
        ),
        (Mode::Ranking, _) => {
            let more = |k: usize| example.more.get(k).map_or("", String::as_str);
            template.render_ranking(
                asked,
                [&example.response1, &example.response2, more(0), more(1)],
            )
        }
        _ => template.render_with_reference(
            asked,
            &example.response1,
            &example.response2,
            example.reference.as_deref().unwrap_or(""),
        ),
    };
    out.push(Message::user(text));
    out
}

/// One configuration's calls of one example made one at a time, in `example_calls`' order
/// (side, then sample), each only when it is sent: a pointwise grade that an earlier item
/// asked is never made again (its messages rendered, its texts copied). A side's messages are
/// rendered and its item view made once, for its first call made.
pub(super) struct ExampleCalls<'a> {
    config: &'a Config,
    example: &'a Example,
    made: Option<(Option<u8>, Vec<Message>, Arc<ItemView>)>,
}

impl<'a> ExampleCalls<'a> {
    pub(super) fn new(config: &'a Config, example: &'a Example) -> Self {
        Self {
            config,
            example,
            made: None,
        }
    }

    /// Each call's side and sample, in the order they are sent (none when the template rates
    /// the item without a call).
    pub(super) fn each(&self) -> impl Iterator<Item = (Option<u8>, u32)> + 'static {
        let samples = self.config.rater.samples();
        let sides = if skips(self.config, self.example) {
            &[][..]
        } else {
            sides(self.config)
        };
        sides
            .iter()
            .flat_map(move |&side| (0..samples).map(move |sample| (side, sample)))
    }

    /// The call of `side` and `sample`. A side's last sample takes its messages and view
    /// themselves; the others copy them.
    pub(super) fn make(&mut self, side: Option<u8>, sample: u32) -> Call {
        let (config, example) = (self.config, self.example);
        let (messages, item) = match self.made.take() {
            Some((made_for, kept, shown)) if made_for == side => (kept, shown),
            _ => (
                messages(&config.template, example, side),
                Arc::new(view(example, &config.template, side)),
            ),
        };
        let (messages, item) = if sample + 1 == config.rater.samples() {
            (messages, item)
        } else {
            let copies = (messages.clone(), item.clone());
            self.made = Some((side, messages, item));
            copies
        };
        Call {
            messages,
            params: config.params.clone(),
            sample,
            item,
        }
    }
}

/// One configuration's calls for one example, in the order they are sent: (pointwise: each
/// response in turn) each sample.
pub(super) fn example_calls(config: &Config, example: &Example, mut f: impl FnMut(Call)) {
    let mut calls = ExampleCalls::new(config, example);
    for (side, sample) in calls.each() {
        f(calls.make(side, sample));
    }
}

/// The calls a configuration makes of an example: one, or (pointwise) one per response.
fn sides(config: &Config) -> &'static [Option<u8>] {
    match config.template.mode {
        Mode::Pairwise | Mode::Ranking => &[None],
        Mode::Pointwise => &[Some(1), Some(2)],
    }
}

/// The identities of `example_calls`'s calls, in its order, without making them (no item
/// view, no copy of the messages): what counting the pointwise calls needs.
pub(super) fn example_identities(config: &Config, example: &Example, mut f: impl FnMut(Shown)) {
    if skips(config, example) {
        return;
    }
    for &side in sides(config) {
        let messages = messages(&config.template, example, side);
        for sample in 0..config.rater.samples() {
            f(crate::judge::identity(&config.params, sample, &messages));
        }
    }
}

/// Every call of a run, one at a time and in the order they are sent, with its
/// configuration's and example's index: configuration, then item (a pair's two orders are
/// adjacent items), then sample. A local server that keeps the previous request's KV cache
/// reuses the common prefix, so a pair's samples and its two orders back to back cost less
/// prompt processing: 2.46× faster than sample-major order on llama.cpp
/// (benches/kv_prefix_order.py). Nothing is kept, so a batch export of millions of calls holds
/// one at a time. Pointwise grades shared between items come once per item.
pub fn for_each_call(configs: &[Config], examples: &[Example], f: impl FnMut(usize, usize, Call)) {
    let parts: Vec<Part<'_>> = configs.iter().map(|c| (c, examples)).collect();
    for_each_part_call(&parts, f);
}

/// `for_each_call` when each configuration rates its own items: (part, item, call).
pub fn for_each_part_call(parts: &[Part<'_>], mut f: impl FnMut(usize, usize, Call)) {
    for (group, &(config, examples)) in parts.iter().enumerate() {
        if config.rater.is_baseline() {
            continue;
        }
        for (index, example) in examples.iter().enumerate() {
            example_calls(config, example, |call| f(group, index, call));
        }
    }
}

/// What makes two pointwise calls of one configuration the same call: the call's identity
/// (model, messages, sampling, sample index; `Call::identity`).
pub(super) type Shown = u128;

/// How many calls each configuration sends (pointwise grades shared between items count
/// once).
pub fn calls_per_config(configs: &[Config], examples: &[Example]) -> Vec<u64> {
    let parts: Vec<Part<'_>> = configs.iter().map(|c| (c, examples)).collect();
    super::Counted::of(&parts).calls()
}

/// A configuration and the items it rates (RewardBench 2's protocols rate different items
/// with each configuration).
pub type Part<'a> = (&'a Config, &'a [Example]);

/// How many calls a pairwise or ranking configuration sends for `examples`: one per item it
/// asks, per sample (a pointwise one's are counted by identity, `counted::Counted`).
pub(super) fn pairwise_calls(config: &Config, examples: &[Example]) -> u64 {
    examples.iter().filter(|e| !skips(config, e)).count() as u64 * u64::from(config.rater.samples())
}

/// What the caller says after each rating: go on; send no new call of these parts (their
/// later items come back not asked); or send no new call at all. The calls already out still
/// end, and their answers are still handed over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Flow {
    Go,
    Drop(Vec<usize>),
    Stop,
}

/// Receives each rating as it is made, with its configuration (part) and item index: each
/// part's ratings come in its items' order, the parts' interleaved as their answers come. The caller keeps
/// what it needs (a run directory writes the answers out and keeps a `RatingRow`) and says
/// whether to go on.
pub type Answers<'a> = dyn FnMut(usize, usize, Rating) -> Flow + 'a;

/// A rating without a call: a baseline's verdict, or (`None`) an item not asked because the
/// caller stopped the run before its block.
pub(super) fn without_call(example: &Example, verdict: Option<i64>) -> Rating {
    Rating {
        id: example.id.clone(),
        rating: verdict,
        status: if verdict.is_some() {
            Status::Rated
        } else {
            Status::NotAsked
        },
        used: 0,
        samples: vec![],
        grades: None,
        p_response2: None,
        p_problem: None,
        expected_grades: None,
    }
}

/// One item's rating from its calls' outcomes (pointwise: response 1's, then response 2's),
/// with its probability.
pub(super) fn rating(config: &Config, example: &Example, taken: Vec<Graded>) -> Rating {
    if skips(config, example) {
        return identical(example);
    }
    let mut r = folded(config, example, taken);
    super::probability::attach(config, &mut r);
    r
}

/// Whether the template rates this item without a call: identical responses under a
/// template that says so (AlpacaEval's rule: `[probability] identical = "tie"`).
fn skips(config: &Config, example: &Example) -> bool {
    config.template.mode == Mode::Pairwise
        && config
            .template
            .probability
            .as_ref()
            .is_some_and(|p| p.identical_tie)
        && example.response1 == example.response2
}

/// Identical responses: a tie, P = ½, no call.
fn identical(example: &Example) -> Rating {
    Rating {
        p_response2: Some(0.5),
        ..without_call(example, Some(0))
    }
}

fn folded(config: &Config, example: &Example, mut taken: Vec<Graded>) -> Rating {
    match config.template.mode {
        Mode::Pairwise | Mode::Ranking => aggregate(
            &example.id,
            config.rater,
            &config.template,
            taken.into_iter().map(|t| t.0).collect(),
        ),
        Mode::Pointwise => {
            let side2 = taken.split_off(taken.len() / 2);
            aggregate_pointwise(
                &example.id,
                config.rater,
                &config.template,
                config.pointwise,
                taken,
                side2,
            )
        }
    }
}

#[cfg(test)]
#[path = "calls_tests.rs"]
mod tests;
