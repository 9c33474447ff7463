//! The calls of a run and their scheduling: which calls each configuration makes, in the order
//! they are sent, run a block of items at a time across the configurations under one budget,
//! and the outcomes turned into ratings as each block ends; the caller may stop the run after
//! any rating. A run holds one block's messages and answers at a time; the answers' texts go
//! to the caller's `Answers` as ratings are made.

use super::aggregate::{aggregate, baseline};
use super::pointwise::{aggregate_pointwise, Graded};
use super::{Config, Rating, Status};
use crate::dataset::examples::Example;
use crate::judge::execute::{Budget, Executor, Job, Observer};
use crate::judge::{Call, CallError, Completion, ItemView, Message};
use crate::prompts::{Mode, Template};
use std::collections::HashMap;
use std::sync::Arc;

/// Calls per block (at least 64 per slot of the concurrency budget): a block's last calls run
/// with fewer in flight, so blocks are long enough for that to cost little, and short enough
/// that every configuration is asked early (a block holds items of every configuration) and
/// that their messages and answers stay small.
const BLOCK_CALLS: usize = 1024;

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

/// One configuration's calls for one example, in the order they are sent: (pointwise: each
/// response in turn) each sample.
fn example_calls(config: &Config, example: &Example, mut f: impl FnMut(Call)) {
    if skips(config, example) {
        return;
    }
    let sides: &[Option<u8>] = match config.template.mode {
        Mode::Pairwise | Mode::Ranking => &[None],
        Mode::Pointwise => &[Some(1), Some(2)],
    };
    for &side in sides {
        let item = Arc::new(view(example, &config.template, side));
        let messages = messages(&config.template, example, side);
        for sample in 0..config.rater.samples() {
            f(Call {
                messages: messages.clone(),
                params: config.params.clone(),
                sample,
                item: item.clone(),
            });
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

/// What makes two pointwise calls of one configuration the same call: the cache key (model,
/// messages, sampling, sample index).
type Shown = [u8; 32];

/// A pointwise configuration grades each response on its own, and a response shown in both
/// orders (or in several pairs) with the same prompt is graded once: the first item to use the
/// call counts it, later ones share it.
fn shown(config: &Config, call: &Call) -> Option<Shown> {
    (config.template.mode == Mode::Pointwise).then(|| crate::judge::cache::key_digest(call))
}

/// How many calls each configuration sends (pointwise grades shared between items count
/// once).
pub fn calls_per_config(configs: &[Config], examples: &[Example]) -> Vec<u64> {
    let parts: Vec<Part<'_>> = configs.iter().map(|c| (c, examples)).collect();
    calls_per_part(&parts)
}

/// A configuration and the items it rates (RewardBench 2's protocols rate different items
/// with each configuration).
pub type Part<'a> = (&'a Config, &'a [Example]);

/// `calls_per_config` for parts.
pub fn calls_per_part(parts: &[Part<'_>]) -> Vec<u64> {
    parts
        .iter()
        .map(|&(config, examples)| match config.template.mode {
            Mode::Pairwise | Mode::Ranking => {
                examples.iter().filter(|e| !skips(config, e)).count() as u64
                    * u64::from(config.rater.samples())
            }
            Mode::Pointwise => {
                let mut seen: std::collections::HashSet<Shown> = Default::default();
                for example in examples {
                    example_calls(config, example, |call| {
                        seen.extend(shown(config, &call));
                    });
                }
                seen.len() as u64
            }
        })
        .collect()
}

/// Where an item's call is answered: a job of this block, or a shared pointwise call answered
/// in an earlier block.
enum Source {
    Job(usize),
    Earlier(Shown),
}

/// What the caller says after each rating: go on; send no new call of these parts (their
/// later items come back not asked); or send no new call at all. The block under way still
/// ends, and its answers are still handed over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Flow {
    Go,
    Drop(Vec<usize>),
    Stop,
}

/// Receives each rating as it is made, with its configuration (part): each part's ratings
/// come in its items' order, a block of items at a time across the parts. The caller keeps
/// what it needs (a run directory writes the answers out and keeps a `RatingRow`) and says
/// whether to go on.
pub type Answers<'a> = dyn FnMut(usize, Rating) -> Flow + 'a;

/// Rates every example with every configuration; one concurrency budget covers all calls.
/// `answers` gets each rating as it is made.
pub fn rate(
    configs: &[Config],
    examples: &[Example],
    budget: Budget,
    observer: Arc<dyn Observer>,
    answers: &mut Answers<'_>,
) {
    let parts: Vec<Part<'_>> = configs.iter().map(|c| (c, examples)).collect();
    rate_parts(&parts, budget, observer, answers, Blocks::Large);
}

/// How large a block of calls is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blocks {
    /// About `BLOCK_CALLS`, and at least 64 per concurrency slot: the executor stays busy.
    Large,
    /// No more calls than the concurrency: a stop or a drop costs at most two blocks of
    /// calls (`calibrate --sequential`).
    Concurrency,
}

/// `rate` with each configuration's own items; `answers` gets (part, rating).
pub fn rate_parts(
    parts: &[Part<'_>],
    budget: Budget,
    observer: Arc<dyn Observer>,
    answers: &mut Answers<'_>,
    blocks: Blocks,
) {
    let cut = match blocks {
        Blocks::Large => Cut::Fixed(BLOCK_CALLS.max(budget.concurrency.saturating_mul(64))),
        Blocks::Concurrency => Cut::Paced(budget.concurrency.max(1)),
    };
    rate_parts_in_blocks(parts, budget, observer, answers, cut);
}

/// How the parts' items are cut into blocks of about so many calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cut {
    /// Into a number of blocks fixed up front, each part's items in (nearly) equal runs.
    Fixed(usize),
    /// Block by block, the same number of next items of every part, as many as the parts
    /// still asked fill: a dropped part's calls go to the others.
    Paced(usize),
}

impl Cut {
    /// How many blocks a fixed cut makes of `parts` (none for a paced one, which makes them as
    /// it goes).
    fn blocks(self, parts: &[Part<'_>]) -> usize {
        match self {
            Cut::Fixed(block) => block_count(parts, block),
            Cut::Paced(_) => 0,
        }
    }

    /// The items of each part in block `b` of `blocks` (`cursor`: each part's items handed so
    /// far; `asked`: the parts asked in it), None when every item is handed.
    fn next(
        self,
        parts: &[Part<'_>],
        (b, blocks): (usize, usize),
        cursor: &[usize],
        asked: &[bool],
    ) -> Option<Vec<std::ops::Range<usize>>> {
        if parts.iter().zip(cursor).all(|(p, &c)| c >= p.1.len()) {
            return None;
        }
        Some(match self {
            Cut::Fixed(_) => parts
                .iter()
                .map(|p| block_items(p.1.len(), b, blocks))
                .collect(),
            Cut::Paced(block) => {
                let calls: usize = parts
                    .iter()
                    .zip(asked)
                    .filter(|(_, a)| **a)
                    .map(|(p, _)| calls_per_item(p.0))
                    .sum();
                // Nothing is asked (stopped, or only baselines): the rest in one block.
                let step = block.checked_div(calls).map_or(usize::MAX, |s| s.max(1));
                parts
                    .iter()
                    .zip(cursor)
                    .map(|(p, &c)| c.min(p.1.len())..c.saturating_add(step).min(p.1.len()))
                    .collect()
            }
        })
    }
}

/// `rate`, every rating kept: one list per configuration, in example order.
pub fn rate_all(
    configs: &[Config],
    examples: &[Example],
    budget: Budget,
    observer: Arc<dyn Observer>,
) -> Vec<Vec<Rating>> {
    let mut all: Vec<Vec<Rating>> = configs.iter().map(|_| Vec::new()).collect();
    rate(configs, examples, budget, observer, &mut |k, r| {
        all[k].push(r);
        Flow::Go
    });
    all
}

/// About how many calls a part sends for an item (pointwise: each response; a shared grade
/// counted each time): what sizes the blocks.
fn calls_per_item(config: &Config) -> usize {
    if config.rater.is_baseline() {
        return 0;
    }
    let sides = match config.template.mode {
        Mode::Pairwise | Mode::Ranking => 1,
        Mode::Pointwise => 2,
    };
    sides * config.rater.samples() as usize
}

/// The number of blocks for parts sending about `block` calls a block: each part's items are
/// cut into that many consecutive runs of (nearly) equal length, so every part is asked in
/// every block and all end together.
fn block_count(parts: &[Part<'_>], block: usize) -> usize {
    let calls: usize = parts
        .iter()
        .map(|&(config, examples)| calls_per_item(config) * examples.len())
        .sum();
    let longest = parts.iter().map(|p| p.1.len()).max().unwrap_or(0);
    calls.div_ceil(block.max(1)).clamp(1, longest.max(1))
}

/// The items of a part of `len` items in block `b` of `n`.
fn block_items(len: usize, b: usize, n: usize) -> std::ops::Range<usize> {
    len * b / n..len * (b + 1) / n
}

/// A rating without a call: a baseline's verdict, or (`None`) an item not asked because the
/// caller stopped the run before its block.
fn without_call(example: &Example, verdict: Option<i64>) -> Rating {
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

/// One part's calls in a block: where each of its items' calls is answered (per item, per
/// call: the source and whether it is shared), and the block's pointwise calls by key.
#[derive(Default)]
struct PartBlock {
    sources: Vec<Vec<(Source, bool)>>,
    in_block: HashMap<Shown, usize>,
}

/// `rate_parts` a block at a time: each block sends the calls of its items of every part
/// (inside a block: part, then item, then sample, as `for_each_part_call` orders them) and
/// hands each part's ratings over when its answers are in. Once `answers` says stop, no later
/// block's call is sent and their items come back not asked; once it drops a part, the same
/// for that part's calls.
fn rate_parts_in_blocks(
    parts: &[Part<'_>],
    budget: Budget,
    observer: Arc<dyn Observer>,
    answers: &mut Answers<'_>,
    cut: Cut,
) {
    let executor = Executor::new(budget, observer);
    let mut sharing: Vec<Sharing> = parts.iter().map(|&(c, e)| Sharing::count(c, e)).collect();
    let mut stopped = false;
    let mut dropped = vec![false; parts.len()];
    let mut cursor = vec![0; parts.len()];
    let blocks = cut.blocks(parts);
    for b in 0.. {
        // The parts asked in this block: none once stopped, and no dropped one.
        let asked: Vec<bool> = dropped.iter().map(|d| !stopped && !d).collect();
        let Some(ranges) = cut.next(parts, (b, blocks), &cursor, &asked) else {
            break;
        };
        for (c, r) in cursor.iter_mut().zip(&ranges) {
            *c = r.end;
        }
        let items = |group: usize| ranges[group].clone();
        let mut jobs: Vec<Job> = Vec::new();
        let mut blocks: Vec<PartBlock> = Vec::with_capacity(parts.len());
        for (group, &(config, examples)) in parts.iter().enumerate() {
            let mut part = PartBlock::default();
            if asked[group] && !config.rater.is_baseline() {
                for example in &examples[items(group)] {
                    let mut item = Vec::new();
                    example_calls(config, example, |call| {
                        let source = match shown(config, &call) {
                            Some(key) => sharing[group].source(key, &mut part.in_block, jobs.len()),
                            None => (Source::Job(jobs.len()), false),
                        };
                        if let (Source::Job(k), false) = source {
                            debug_assert_eq!(k, jobs.len());
                            jobs.push(Job {
                                group,
                                judge: config.judge.clone(),
                                call,
                            });
                        }
                        item.push(source);
                    });
                    part.sources.push(item);
                }
            }
            blocks.push(part);
        }
        let outcomes = if jobs.is_empty() {
            Vec::new()
        } else {
            executor.run(jobs)
        };
        let mut hand = |group: usize, rating: Rating| match answers(group, rating) {
            Flow::Go => {}
            Flow::Drop(parts) => parts.into_iter().for_each(|k| dropped[k] = true),
            Flow::Stop => stopped = true,
        };
        for (group, (&(config, examples), part)) in parts.iter().zip(blocks).enumerate() {
            let examples = &examples[items(group)];
            if !asked[group] {
                for example in examples {
                    hand(group, without_call(example, None));
                }
            } else if config.rater.is_baseline() {
                for example in examples {
                    hand(
                        group,
                        without_call(example, Some(baseline(config.rater, example))),
                    );
                }
            } else {
                for (example, item) in examples.iter().zip(part.sources) {
                    let taken: Vec<Graded> = item
                        .into_iter()
                        .map(|(source, shared)| {
                            (sharing[group].outcome(&source, &outcomes), shared)
                        })
                        .collect();
                    hand(group, rating(config, example, taken));
                }
                sharing[group].keep(part.in_block, &outcomes);
            }
        }
    }
}

/// One item's rating from its calls' outcomes (pointwise: response 1's, then response 2's),
/// with its probability.
fn rating(config: &Config, example: &Example, taken: Vec<Graded>) -> Rating {
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

/// The pointwise calls several items share, across blocks: how many uses each has left, and
/// the answers of those answered in an earlier block that later items still need.
struct Sharing {
    left: HashMap<Shown, u32>,
    kept: HashMap<Shown, Result<Completion, CallError>>,
}

impl Sharing {
    /// Counts the uses of each pointwise call of `config` (none for a pairwise one), keeping
    /// only those used more than once.
    fn count(config: &Config, examples: &[Example]) -> Self {
        let mut left: HashMap<Shown, u32> = HashMap::new();
        if config.template.mode == Mode::Pointwise {
            for example in examples {
                example_calls(config, example, |call| {
                    if let Some(key) = shown(config, &call) {
                        *left.entry(key).or_default() += 1;
                    }
                });
            }
            left.retain(|_, n| *n > 1);
        }
        Self {
            left,
            kept: HashMap::new(),
        }
    }

    /// Where a use of the pointwise call `key` is answered, and whether it is shared (not the
    /// first use); `next` is the job index a new call would get.
    fn source(
        &mut self,
        key: Shown,
        in_block: &mut HashMap<Shown, usize>,
        next: usize,
    ) -> (Source, bool) {
        if let Some(n) = self.left.get_mut(&key) {
            *n -= 1;
        }
        if self.kept.contains_key(&key) {
            return (Source::Earlier(key), true);
        }
        match in_block.get(&key) {
            Some(&k) => (Source::Job(k), true),
            None => {
                in_block.insert(key, next);
                (Source::Job(next), false)
            }
        }
    }

    fn outcome(
        &self,
        source: &Source,
        outcomes: &[Result<Completion, CallError>],
    ) -> Result<Completion, CallError> {
        let missing = || {
            Err(CallError::Connection(
                "the shared call's answer is gone".into(),
            ))
        };
        match source {
            Source::Job(k) => outcomes.get(*k).cloned().unwrap_or_else(missing),
            Source::Earlier(key) => self.kept.get(key).cloned().unwrap_or_else(missing),
        }
    }

    /// After a block: forgets the answers no later item uses, and keeps this block's answers
    /// that later items do.
    fn keep(
        &mut self,
        in_block: HashMap<Shown, usize>,
        outcomes: &[Result<Completion, CallError>],
    ) {
        let left = &self.left;
        self.kept
            .retain(|key, _| left.get(key).is_some_and(|n| *n > 0));
        for (key, k) in in_block {
            if self.left.get(&key).is_some_and(|n| *n > 0) {
                if let Some(outcome) = outcomes.get(k) {
                    self.kept.insert(key, outcome.clone());
                }
            }
        }
        self.left.retain(|_, n| *n > 0);
    }
}

#[cfg(test)]
#[path = "calls_tests.rs"]
mod tests;
