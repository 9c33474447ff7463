//! When a run's calls are sent and when its ratings are handed over. The items are cut into
//! chunks across the configurations (parts), and a chunk's calls are sent while fewer calls
//! than the concurrency are outstanding, so every slot of the budget is busy while calls are
//! left: there is no barrier, and one slow call holds one slot, never every slot. Each item is
//! rated as soon as its calls are answered and handed over in its part's order. Once the caller
//! stops the run, no call is sent that is not already; once it drops a part, none of its.
//!
//! Two calls that are the same are sent once: a pointwise grade several items share (counted
//! once, the later uses `shared`), and, in one chunk, identical calls to a judge whose answers
//! are kept (two configurations asking the same thing: the later ones take the answer as a
//! cache hit, as they would have one after the other).

use super::calls::{example_calls, rating, without_call, Answers, ExampleCalls, Flow, Part, Shown};
use super::counted::{Counted, Sharing};
use super::pointwise::Graded;
use super::{Config, Rating};
use crate::dataset::examples::Example;
use crate::judge::execute::{Budget, Executor, Job, Observer};
use crate::judge::{Call, CallError, Completion};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// Calls per chunk (at least 64 per slot of the concurrency budget): a chunk is read from the
/// cache at once (`Judge::prefetch`) and its identical calls sent once, so chunks are long
/// enough for that to pay, and short enough that every configuration is asked early (a chunk
/// holds items of every configuration) and that the messages held stay few.
const CHUNK_CALLS: usize = 1024;

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
    let counted = Counted::of(&parts);
    rate_parts(&parts, counted, budget, observer, answers, Blocks::Large);
}

/// How large a chunk of calls is: the items are cut into chunks across the parts, and a chunk's
/// calls are sent while fewer than the concurrency are outstanding (no barrier between them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blocks {
    /// About `CHUNK_CALLS`, and at least 64 per concurrency slot.
    Large,
    /// No more calls than the concurrency: a stop or a drop costs at most the calls already
    /// out, under two chunks (`calibrate --sequential`).
    Concurrency,
}

/// `rate` with each configuration's own items, counted by `Counted::of(parts)`; `answers` gets
/// (part, item index, rating).
pub fn rate_parts(
    parts: &[Part<'_>],
    counted: Counted,
    budget: Budget,
    observer: Arc<dyn Observer>,
    answers: &mut Answers<'_>,
    blocks: Blocks,
) {
    let cut = match blocks {
        Blocks::Large => Cut::Fixed(CHUNK_CALLS.max(budget.concurrency.saturating_mul(64))),
        Blocks::Concurrency => Cut::Paced(budget.concurrency.max(1)),
    };
    schedule(parts, counted, budget, observer, answers, cut);
}

/// `rate`, every rating kept: one list per configuration, in example order.
pub fn rate_all(
    configs: &[Config],
    examples: &[Example],
    budget: Budget,
    observer: Arc<dyn Observer>,
) -> Vec<Vec<Rating>> {
    let mut all: Vec<Vec<Rating>> = configs.iter().map(|_| Vec::new()).collect();
    rate(configs, examples, budget, observer, &mut |k, _, r| {
        all[k].push(r);
        Flow::Go
    });
    all
}

/// How the parts' items are cut into chunks of about so many calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cut {
    /// Into a number of chunks fixed up front, each part's items in (nearly) equal runs.
    Fixed(usize),
    /// Chunk by chunk, the same number of next items of every part, as many as the parts
    /// still asked fill: a dropped part's calls go to the others.
    Paced(usize),
}

impl Cut {
    /// How many chunks a fixed cut makes of `parts` (none for a paced one, which makes them as
    /// it goes).
    pub(super) fn chunks(self, parts: &[Part<'_>]) -> usize {
        match self {
            Cut::Fixed(chunk) => chunk_count(parts, chunk),
            Cut::Paced(_) => 0,
        }
    }

    /// The items of each part in chunk `b` of `chunks` (`cursor`: each part's items handed so
    /// far; `asked`: the parts asked in it), None when every item is handed.
    pub(super) fn next(
        self,
        parts: &[Part<'_>],
        (b, chunks): (usize, usize),
        cursor: &[usize],
        asked: &[bool],
    ) -> Option<Vec<std::ops::Range<usize>>> {
        if parts.iter().zip(cursor).all(|(p, &c)| c >= p.1.len()) {
            return None;
        }
        Some(match self {
            Cut::Fixed(_) => parts
                .iter()
                .map(|p| chunk_items(p.1.len(), b, chunks))
                .collect(),
            Cut::Paced(chunk) => {
                let calls: usize = parts
                    .iter()
                    .zip(asked)
                    .filter(|(_, a)| **a)
                    .map(|(p, _)| calls_per_item(p.0))
                    .sum();
                // Nothing is asked (stopped, or only baselines): the rest in one chunk.
                let step = chunk.checked_div(calls).map_or(usize::MAX, |s| s.max(1));
                parts
                    .iter()
                    .zip(cursor)
                    .map(|(p, &c)| c.min(p.1.len())..c.saturating_add(step).min(p.1.len()))
                    .collect()
            }
        })
    }
}

/// About how many calls a part sends for an item (pointwise: each response; a shared grade
/// counted each time): what sizes the chunks.
fn calls_per_item(config: &super::Config) -> usize {
    if config.rater.is_baseline() {
        return 0;
    }
    let sides = match config.template.mode {
        crate::prompts::Mode::Pairwise | crate::prompts::Mode::Ranking => 1,
        crate::prompts::Mode::Pointwise => 2,
    };
    sides * config.rater.samples() as usize
}

/// The number of chunks for parts sending about `chunk` calls a chunk: each part's items are
/// cut into that many consecutive runs of (nearly) equal length, so every part is asked in
/// every chunk and all end together.
pub(super) fn chunk_count(parts: &[Part<'_>], chunk: usize) -> usize {
    let calls: usize = parts
        .iter()
        .map(|&(config, examples)| calls_per_item(config) * examples.len())
        .sum();
    let longest = parts.iter().map(|p| p.1.len()).max().unwrap_or(0);
    calls.div_ceil(chunk.max(1)).clamp(1, longest.max(1))
}

/// The items of a part of `len` items in chunk `b` of `n`.
fn chunk_items(len: usize, b: usize, n: usize) -> std::ops::Range<usize> {
    len * b / n..len * (b + 1) / n
}

/// One use of a call's answer by an item: the call's ticket; `shared`: a pointwise grade
/// another item asked first; `copy`: an identical call of the same chunk, answered as a cache
/// hit.
#[derive(Debug, Clone, Copy)]
struct Use {
    ticket: usize,
    shared: bool,
    copy: bool,
}

/// An item not yet handed over.
enum Waiting {
    /// Rated without a call (a baseline, or not asked).
    Ready(Rating),
    /// Its calls' uses, and how many of them are still unanswered.
    Asked { uses: Vec<Use>, missing: usize },
}

/// A call's answer, kept while items still use it.
#[derive(Default)]
struct Answer {
    outcome: Option<Result<Completion, CallError>>,
    /// Uses registered and not yet handed over.
    users: u32,
    /// A later item will use it (a shared pointwise grade).
    kept: bool,
}

/// A chunk's new calls (ticket, job), and the ticket of each call that identical ones of the
/// chunk take their answer from, by identity.
struct Sent {
    jobs: Vec<(usize, Job)>,
    first: HashMap<Shown, usize>,
}

/// An asked item's calls: made (a pairwise part's), or to be made one at a time as they are
/// sent, each with its identity as counted (a pointwise part's).
enum ItemCalls {
    Made(Vec<Call>),
    Pointwise(Vec<Shown>),
}

/// The run under way: the calls out, the answers in, the items waiting in each part's order.
struct Schedule<'p, 'a, 'b> {
    parts: &'p [Part<'p>],
    answers: &'a mut Answers<'b>,
    observer: Arc<dyn Observer>,
    sharing: Vec<Sharing>,
    /// Each part's items not yet handed over, in order, and the index of the first.
    waiting: Vec<(usize, VecDeque<Waiting>)>,
    got: HashMap<usize, Answer>,
    /// The items (part, index) each unanswered ticket's answer completes.
    waiters: HashMap<usize, Vec<(usize, usize)>>,
    tickets: usize,
    stopped: bool,
    dropped: Vec<bool>,
}

impl Schedule<'_, '_, '_> {
    /// A use of `ticket` by item (part, index); whether it is still unanswered.
    fn register(&mut self, use_: Use, part: usize, index: usize) -> bool {
        let answer = self.got.entry(use_.ticket).or_default();
        answer.users += 1;
        let unanswered = answer.outcome.is_none();
        if unanswered {
            self.waiters
                .entry(use_.ticket)
                .or_default()
                .push((part, index));
        }
        unanswered
    }

    /// A use of the pointwise call `key` by part `g`: the ticket of an earlier item's use
    /// (`Some`: shared), and whether later items use it too (the ticket this use gets must
    /// then be kept for them: `keep`).
    fn share(&mut self, g: usize, key: Shown) -> (Option<usize>, bool) {
        let sharing = &mut self.sharing[g];
        let last = sharing.left.get_mut(&key).is_none_or(|n| {
            *n -= 1;
            *n == 0
        });
        if last {
            sharing.left.remove(&key);
        }
        let Some(&t) = sharing.ticket.get(&key) else {
            return (None, !last);
        };
        if last {
            sharing.ticket.remove(&key);
            if let Some(a) = self.got.get_mut(&t) {
                a.kept = false;
            }
        }
        (Some(t), false)
    }

    /// Keeps ticket `t`'s answer for the later uses of part `g`'s pointwise call `key`.
    fn keep(&mut self, g: usize, key: Shown, t: usize) {
        self.sharing[g].ticket.insert(key, t);
        self.got.entry(t).or_default().kept = true;
    }

    /// Queues the items of a chunk and returns its new calls (ticket, job).
    fn chunk(&mut self, ranges: &[std::ops::Range<usize>]) -> Vec<(usize, Job)> {
        let asked: Vec<bool> = self.dropped.iter().map(|d| !self.stopped && !d).collect();
        // Each asked item's calls, and how many calls of a kept judge share a shape: two calls
        // can be the same only with the same sample, model and message length, so the cache
        // key (a SHA-256 of the call) is computed for those alone.
        let mut calls: Vec<(usize, usize, ItemCalls)> = Vec::new();
        type Shape = (u32, usize, String);
        let parts = self.parts;
        let shape = |g: usize, call: &Call| -> Option<Shape> {
            parts[g].0.judge.keeps_answers().then(|| {
                let length = call.messages.iter().map(|m| m.content.len()).sum();
                (call.sample, length, call.params.model.clone())
            })
        };
        let mut shapes: HashMap<Shape, usize> = HashMap::new();
        for (g, &(config, examples)) in parts.iter().enumerate() {
            for index in ranges[g].clone() {
                let example = &examples[index];
                if !asked[g] {
                    self.waiting[g]
                        .1
                        .push_back(Waiting::Ready(without_call(example, None)));
                } else if config.rater.is_baseline() {
                    let verdict = super::aggregate::baseline(config.rater, example);
                    self.waiting[g]
                        .1
                        .push_back(Waiting::Ready(without_call(example, Some(verdict))));
                } else if let Some(keys) = self.sharing[g].keys(index) {
                    calls.push((g, index, ItemCalls::Pointwise(keys.to_vec())));
                } else {
                    let mut item = Vec::new();
                    example_calls(config, example, |call| item.push(call));
                    for s in item.iter().filter_map(|c| shape(g, c)) {
                        *shapes.entry(s).or_default() += 1;
                    }
                    calls.push((g, index, ItemCalls::Made(item)));
                }
            }
        }
        let mut sent = Sent {
            jobs: Vec::new(),
            first: HashMap::new(),
        };
        for (g, index, item) in calls {
            let (config, example) = (parts[g].0, &parts[g].1[index]);
            let (mut uses, mut missing) = (Vec::new(), 0);
            let mut add = |(use_, unanswered): (Use, bool)| {
                missing += usize::from(unanswered);
                uses.push(use_);
            };
            match item {
                ItemCalls::Made(item) => {
                    // A pairwise part's calls: none shared between items. A call of a kept
                    // judge whose shape another of the chunk's has may be the same call: its
                    // identity tells.
                    for call in item {
                        let copy = shape(g, &call)
                            .is_some_and(|s| shapes[&s] > 1)
                            .then(|| call.identity());
                        add(self.use_call((g, index), (None, copy), || call, &mut sent));
                    }
                }
                ItemCalls::Pointwise(keys) => {
                    // A grade is made only when no earlier item asked it; its identity (as
                    // counted) also tells identical calls of a kept judge apart.
                    let mut made = ExampleCalls::new(config, example);
                    let kept = config.judge.keeps_answers();
                    for ((side, sample), key) in made.each().zip(keys) {
                        let copy = kept.then_some(key);
                        let make = || made.make(side, sample);
                        add(self.use_call((g, index), (Some(key), copy), make, &mut sent));
                    }
                }
            }
            self.waiting[g]
                .1
                .push_back(Waiting::Asked { uses, missing });
        }
        sent.jobs
    }

    /// Item (`g`, `index`)'s use of one call: the ticket of an earlier item's use of the same
    /// pointwise grade (`pointwise`, its identity: shared), of an identical call this chunk
    /// already sends (`copy`, its identity when it may be one: a cache hit), or a new ticket,
    /// whose call is made (`make`) and sent; and whether it is still unanswered.
    fn use_call(
        &mut self,
        (g, index): (usize, usize),
        (pointwise, copy): (Option<Shown>, Option<Shown>),
        make: impl FnOnce() -> Call,
        sent: &mut Sent,
    ) -> (Use, bool) {
        let next = self.tickets;
        let (earlier, keep) = match pointwise {
            Some(key) => self.share(g, key),
            None => (None, false),
        };
        let use_ = match earlier {
            Some(ticket) => Use {
                ticket,
                shared: true,
                copy: false,
            },
            None => match copy.and_then(|k| sent.first.get(&k).copied()) {
                Some(same) => Use {
                    ticket: same,
                    shared: false,
                    copy: true,
                },
                None => {
                    sent.first.extend(copy.map(|k| (k, next)));
                    self.tickets += 1;
                    sent.jobs.push((
                        next,
                        Job {
                            group: g,
                            judge: self.parts[g].0.judge.clone(),
                            call: make(),
                        },
                    ));
                    Use {
                        ticket: next,
                        shared: false,
                        copy: false,
                    }
                }
            },
        };
        if let (Some(key), true) = (pointwise, keep) {
            self.keep(g, key, use_.ticket);
        }
        let unanswered = self.register(use_, g, index);
        (use_, unanswered)
    }

    /// A call's answer is in: the items waiting for it are one answer nearer.
    fn arrive(&mut self, ticket: usize, outcome: Result<Completion, CallError>) {
        self.got.entry(ticket).or_default().outcome = Some(outcome);
        for (g, index) in self.waiters.remove(&ticket).unwrap_or_default() {
            let (front, queue) = &mut self.waiting[g];
            if let Some(Waiting::Asked { missing, .. }) = queue.get_mut(index - *front) {
                *missing -= 1;
            }
        }
    }

    /// The answer of a use, let go once no item uses it any more.
    fn take(&mut self, use_: Use) -> Result<Completion, CallError> {
        let gone = || Err(CallError::Connection("the call's answer is gone".into()));
        let Some(answer) = self.got.get_mut(&use_.ticket) else {
            return gone();
        };
        answer.users = answer.users.saturating_sub(1);
        let outcome = if answer.users == 0 && !answer.kept {
            self.got
                .remove(&use_.ticket)
                .and_then(|a| a.outcome)
                .unwrap_or_else(gone)
        } else {
            answer.outcome.clone().unwrap_or_else(gone)
        };
        match outcome {
            Ok(c) if use_.copy => Ok(Completion { cached: true, ..c }),
            other => other,
        }
    }

    /// Hands over every part's items that are ready, in each part's order.
    fn hand_ready(&mut self) {
        for g in 0..self.parts.len() {
            loop {
                let (front, queue) = &mut self.waiting[g];
                let ready = match queue.front() {
                    Some(Waiting::Ready(_)) => true,
                    Some(Waiting::Asked { missing, .. }) => *missing == 0,
                    None => false,
                };
                if !ready {
                    break;
                }
                let index = *front;
                *front += 1;
                let rated = match queue.pop_front() {
                    Some(Waiting::Ready(r)) => r,
                    Some(Waiting::Asked { uses, .. }) => {
                        let taken: Vec<Graded> = uses
                            .into_iter()
                            .map(|u| {
                                let outcome = self.take(u);
                                if u.copy {
                                    self.observer.started(g);
                                    self.observer.finished(g, &outcome);
                                }
                                (outcome, u.shared)
                            })
                            .collect();
                        let (config, examples) = self.parts[g];
                        rating(config, &examples[index], taken)
                    }
                    None => break,
                };
                match (self.answers)(g, index, rated) {
                    Flow::Go => {}
                    Flow::Drop(parts) => {
                        for k in parts {
                            if let Some(d) = self.dropped.get_mut(k) {
                                *d = true;
                            }
                        }
                    }
                    Flow::Stop => self.stopped = true,
                }
            }
        }
    }
}

/// Rates each part's items, chunk by chunk as `cut` says, under one budget; `answers` gets
/// (part, item index, rating), each part's items in order.
pub(super) fn schedule(
    parts: &[Part<'_>],
    Counted(sharing): Counted,
    budget: Budget,
    observer: Arc<dyn Observer>,
    answers: &mut Answers<'_>,
    cut: Cut,
) {
    let executor = Executor::new(budget, observer.clone());
    let mut flow = executor.flow();
    let mut run = Schedule {
        parts,
        answers,
        observer,
        sharing,
        waiting: parts.iter().map(|_| (0, VecDeque::new())).collect(),
        got: HashMap::new(),
        waiters: HashMap::new(),
        tickets: 0,
        stopped: false,
        dropped: vec![false; parts.len()],
    };
    let limit = budget.concurrency.max(1);
    let chunks = cut.chunks(parts);
    let mut cursor = vec![0; parts.len()];
    let mut b = 0;
    let mut left = true;
    loop {
        while left && flow.outstanding() < limit {
            let asked: Vec<bool> = run.dropped.iter().map(|d| !run.stopped && !d).collect();
            let Some(ranges) = cut.next(parts, (b, chunks), &cursor, &asked) else {
                left = false;
                break;
            };
            b += 1;
            for (c, r) in cursor.iter_mut().zip(&ranges) {
                *c = r.end;
            }
            let jobs = run.chunk(&ranges);
            flow.send(jobs);
            run.hand_ready();
        }
        match flow.answer() {
            Some((ticket, outcome)) => {
                run.arrive(ticket, outcome);
                run.hand_ready();
            }
            None if left => {}
            None => break,
        }
    }
}
