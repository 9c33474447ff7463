//! The calls of a run and their scheduling: which calls each configuration makes, in the order
//! they are sent, run a batch of items at a time under one budget, and the outcomes turned into
//! ratings as each batch ends. A run holds one batch's messages and answers at a time; the
//! answers' texts go to the caller's `Answers` as ratings are made.

use super::aggregate::{aggregate, baseline};
use super::pointwise::{aggregate_pointwise, Graded};
use super::{Config, Rating, Status};
use crate::dataset::examples::Example;
use crate::judge::execute::{Budget, Executor, Job, Observer};
use crate::judge::{Call, CallError, Completion, ItemView, Message};
use crate::prompts::{Mode, Template};
use std::collections::HashMap;
use std::sync::Arc;

/// Calls per batch (at least 64 per slot of the concurrency budget): a batch's last calls run
/// with fewer in flight, so batches are long enough for that to cost little, and short enough
/// that their messages and answers stay small.
const BATCH_CALLS: usize = 4096;

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
        _ => template.render(asked, &example.response1, &example.response2),
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

/// Where an item's call is answered: a job of this batch, or a shared pointwise call answered
/// in an earlier batch.
enum Source {
    Job(usize),
    Earlier(Shown),
}

/// Receives each rating as it is made, in order (configuration, then item): the caller keeps
/// what it needs (a run directory writes the answers out and keeps a `RatingRow`).
pub type Answers<'a> = dyn FnMut(usize, Rating) + 'a;

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
    rate_parts(&parts, budget, observer, answers);
}

/// `rate` with each configuration's own items; `answers` gets (part, rating).
pub fn rate_parts(
    parts: &[Part<'_>],
    budget: Budget,
    observer: Arc<dyn Observer>,
    answers: &mut Answers<'_>,
) {
    let batch = BATCH_CALLS.max(budget.concurrency.saturating_mul(64));
    rate_parts_in_batches(parts, budget, observer, answers, batch);
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
        all[k].push(r)
    });
    all
}

/// `rate_parts` with batches of about `batch` calls (whole items: an item's calls share a
/// batch).
fn rate_parts_in_batches(
    parts: &[Part<'_>],
    budget: Budget,
    observer: Arc<dyn Observer>,
    answers: &mut Answers<'_>,
    batch: usize,
) {
    let executor = Executor::new(budget, observer);
    for (group, &(config, examples)) in parts.iter().enumerate() {
        if config.rater.is_baseline() {
            for example in examples {
                let r = Rating {
                    id: example.id.clone(),
                    rating: Some(baseline(config.rater, example)),
                    status: Status::Rated,
                    used: 0,
                    samples: vec![],
                    grades: None,
                    p_response2: None,
                    p_problem: None,
                    expected_grades: None,
                };
                answers(group, r);
            }
            continue;
        }
        let mut sharing = Sharing::count(config, examples);
        let mut start = 0;
        while start < examples.len() {
            let mut jobs: Vec<Job> = Vec::new();
            let mut sources: Vec<Vec<(Source, bool)>> = Vec::new();
            let mut in_batch: HashMap<Shown, usize> = HashMap::new();
            let mut end = start;
            while end < examples.len() && (end == start || jobs.len() < batch) {
                let mut item = Vec::new();
                example_calls(config, &examples[end], |call| {
                    let key = shown(config, &call);
                    item.push(match key {
                        Some(key) => sharing.source(key, &mut in_batch, jobs.len()),
                        None => (Source::Job(jobs.len()), false),
                    });
                    if let (Source::Job(k), false) = item[item.len() - 1] {
                        debug_assert_eq!(k, jobs.len());
                        jobs.push(Job {
                            group,
                            judge: config.judge.clone(),
                            call,
                        });
                    }
                });
                sources.push(item);
                end += 1;
            }
            let outcomes = executor.run(jobs);
            for (example, item) in examples[start..end].iter().zip(sources) {
                let taken: Vec<Graded> = item
                    .into_iter()
                    .map(|(source, shared)| (sharing.outcome(&source, &outcomes), shared))
                    .collect();
                answers(group, rating(config, example, taken));
            }
            sharing.keep(in_batch, &outcomes);
            start = end;
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
        id: example.id.clone(),
        rating: Some(0),
        status: Status::Rated,
        used: 0,
        samples: vec![],
        grades: None,
        p_response2: Some(0.5),
        p_problem: None,
        expected_grades: None,
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

/// The pointwise calls several items share, across batches: how many uses each has left, and
/// the answers of those answered in an earlier batch that later items still need.
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
        in_batch: &mut HashMap<Shown, usize>,
        next: usize,
    ) -> (Source, bool) {
        if let Some(n) = self.left.get_mut(&key) {
            *n -= 1;
        }
        if self.kept.contains_key(&key) {
            return (Source::Earlier(key), true);
        }
        match in_batch.get(&key) {
            Some(&k) => (Source::Job(k), true),
            None => {
                in_batch.insert(key, next);
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

    /// After a batch: forgets the answers no later item uses, and keeps this batch's answers
    /// that later items do.
    fn keep(
        &mut self,
        in_batch: HashMap<Shown, usize>,
        outcomes: &[Result<Completion, CallError>],
    ) {
        let left = &self.left;
        self.kept
            .retain(|key, _| left.get(key).is_some_and(|n| *n > 0));
        for (key, k) in in_batch {
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
mod tests {
    use super::super::tests::both_orders;
    use super::super::{PointwiseRule, RaterKind};
    use super::*;
    use crate::judge::Params;

    fn config(name: &str, prompt: &str, rater: &str) -> Config {
        Config {
            name: name.into(),
            template: crate::prompts::resolve(prompt).expect("built-in"),
            rater: RaterKind::parse(rater, 0).expect("rater"),
            judge: Arc::new(crate::judge::sim::Sim::default()),
            params: Arc::new(Params {
                model: "m".into(),
                temperature: 1.0,
                max_tokens: 8,
                seed: None,
                top_logprobs: None,
                reasoning_effort: None,
                request: None,
            }),
            pointwise: PointwiseRule::default(),
        }
    }

    #[test]
    fn a_pairs_samples_and_orders_are_sent_back_to_back() {
        let examples = both_orders(3, "s-");
        let mut sent: Vec<(usize, String, u32)> = Vec::new();
        let configs = [
            config("a", "simple_with_tie", "sc:3"),
            config("b", "simple_with_tie", "basic"),
        ];
        for_each_call(&configs, &examples, |group, _, call| {
            sent.push((group, call.messages[0].content.clone(), call.sample));
        });
        assert_eq!(sent.len(), 6 * 3 + 6);
        // Configuration, then pair (both orders), then sample: each prompt's samples are
        // consecutive, and a pair's two orders follow each other.
        let firsts: Vec<&(usize, String, u32)> = sent.iter().filter(|s| s.2 == 0).collect();
        for (k, chunk) in sent[..18].chunks(3).enumerate() {
            assert!(chunk.iter().all(|c| c.1 == chunk[0].1 && c.0 == 0), "{k}");
            assert_eq!(chunk.iter().map(|c| c.2).collect::<Vec<_>>(), [0, 1, 2]);
        }
        let questions: Vec<usize> = firsts[..6]
            .iter()
            .map(|f| {
                (0..3)
                    .position(|i| f.1.contains(&format!("question {i}")))
                    .expect("question")
            })
            .collect();
        assert_eq!(questions, [0, 0, 1, 1, 2, 2]);
        assert!(sent[18..].iter().all(|s| s.0 == 1));
    }

    /// Ratings made a few items at a time are the ratings made all at once: the same calls,
    /// each pointwise grade shared by the items that show the response (across batches too)
    /// and counted once, and the answers handed over in order.
    #[test]
    fn batches_change_nothing() {
        let examples = both_orders(7, "b-");
        let configs = [
            config("pair", "simple_with_tie", "sc:3"),
            config("point", "reference_1-5", "sc:2"),
            config("base", "simple_with_tie", "longer"),
        ];
        let budget = Budget {
            concurrency: 2,
            requests_per_minute: None,
        };
        let run = |batch: usize| {
            let mut seen: Vec<(usize, String)> = Vec::new();
            let mut ratings: Vec<Vec<Rating>> = vec![Vec::new(); 3];
            let parts: Vec<Part<'_>> = configs.iter().map(|c| (c, &examples[..])).collect();
            rate_parts_in_batches(
                &parts,
                budget,
                Arc::new(crate::judge::execute::Silent),
                &mut |group, r| {
                    seen.push((group, r.id.clone()));
                    ratings[group].push(r);
                },
                batch,
            );
            (ratings, seen)
        };
        let (whole, order) = run(usize::MAX);
        let expected: Vec<(usize, String)> = (0..3)
            .flat_map(|g| examples.iter().map(move |e| (g, e.id.clone())))
            .collect();
        assert_eq!(order, expected);
        let calls = calls_per_config(&configs, &examples);
        // The pointwise configuration grades each of the 7 pairs' 2 responses twice, once
        // whatever the order they are shown in.
        assert_eq!(calls, [14 * 3, 7 * 2 * 2, 0]);
        for batch in [1, 2, 5] {
            let (batched, _) = run(batch);
            assert_eq!(batched, whole, "batches of {batch}");
            let used: Vec<u64> = batched
                .iter()
                .map(|r| super::super::usage(r).calls)
                .collect();
            assert_eq!(used, calls, "batches of {batch}");
        }
        assert!(whole[1].iter().all(|r| r.status == Status::Rated));
        assert!(whole[1].iter().flat_map(|r| &r.samples).any(|s| s.shared));
    }
}
