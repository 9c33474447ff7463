//! Running many calls: one concurrency budget shared by every configuration of a run, an
//! optional requests-per-minute limit, retries by each judge's policy, each answer handed back
//! as soon as it is in (`Flowing`; no barrier, so a slow call holds one slot, never every
//! slot), or every answer in input order (`run`).
//!
//! The budget shrinks when calls time out. A server that answers one request at a time
//! (llama.cpp, Ollama by default) queues the rest, and a queued request can time out before it
//! starts; its retry then queues behind requests the server still works on for callers that
//! gave up. So each timeout of a call started under the current limit halves the limit (down
//! to 1), once per round of calls, and a call waiting to retry holds no slot.

use super::{Call, CallError, Completion, Judge, SampleOutcome};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Semaphore;
use tokio::time::Instant;

/// One call to make: which judge, and which group (configuration) it counts for.
#[derive(Clone)]
pub struct Job {
    pub group: usize,
    pub judge: Arc<dyn Judge>,
    pub call: Call,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job")
            .field("group", &self.group)
            .field("judge", &self.judge.describe())
            .finish()
    }
}

/// The shared limits.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub concurrency: usize,
    pub requests_per_minute: Option<f64>,
}

/// Told about every finished call (progress bars live in `report/`).
pub trait Observer: Send + Sync {
    /// A call of `group` is sent for the first time (retries are not told).
    fn started(&self, _group: usize) {}
    fn finished(&self, group: usize, outcome: &Result<Completion, CallError>);
    /// Calls timed out, so at most `to` calls are now in flight (from `from`).
    fn concurrency_lowered(&self, _from: usize, _to: usize) {}
}

/// Observes nothing.
#[derive(Debug, Default)]
pub struct Silent;

impl Observer for Silent {
    fn finished(&self, _: usize, _: &Result<Completion, CallError>) {}
}

/// The concurrency budget, able to shrink while calls are in flight.
struct Throttle {
    semaphore: Arc<Semaphore>,
    /// Slots in existence, taken or free.
    issued: AtomicUsize,
    /// What `issued` shrinks to as slots come back.
    limit: AtomicUsize,
    /// Bumped at each lowering: a timeout of a call started before it says nothing new.
    round: AtomicU64,
}

/// A slot of the budget; given back on drop, or retired while the budget is over its limit.
struct Slot {
    throttle: Arc<Throttle>,
    permit: Option<tokio::sync::OwnedSemaphorePermit>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let limit = self.throttle.limit.load(Ordering::SeqCst);
        let retired = self
            .throttle
            .issued
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n > limit).then(|| n - 1)
            })
            .is_ok();
        if let (true, Some(permit)) = (retired, self.permit.take()) {
            permit.forget();
        }
    }
}

impl Throttle {
    fn new(concurrency: usize) -> Arc<Self> {
        let n = concurrency.max(1);
        Arc::new(Self {
            semaphore: Arc::new(Semaphore::new(n)),
            issued: AtomicUsize::new(n),
            limit: AtomicUsize::new(n),
            round: AtomicU64::new(0),
        })
    }

    /// A slot and the round it was taken in.
    async fn acquire(self: &Arc<Self>) -> Option<(Slot, u64)> {
        let permit = self.semaphore.clone().acquire_owned().await.ok()?;
        let slot = Slot {
            throttle: self.clone(),
            permit: Some(permit),
        };
        Some((slot, self.round.load(Ordering::SeqCst)))
    }

    /// After a timeout of a call taken in `round`: halves the limit, once per round.
    /// Returns (from, to) when it lowered it.
    fn timed_out(&self, round: u64) -> Option<(usize, usize)> {
        self.round
            .compare_exchange(round, round + 1, Ordering::SeqCst, Ordering::SeqCst)
            .ok()?;
        let from = self
            .limit
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |l| {
                (l > 1).then(|| (l / 2).max(1))
            })
            .ok()?;
        Some((from, (from / 2).max(1)))
    }
}

/// Spaces request starts evenly to stay under a requests-per-minute limit.
struct Pace {
    interval: Duration,
    next: Mutex<Option<Instant>>,
}

impl Pace {
    async fn wait(&self) {
        let slot = {
            let Ok(mut next) = self.next.lock() else {
                return;
            };
            let now = Instant::now();
            let slot = next.map_or(now, |n| n.max(now));
            *next = Some(slot + self.interval);
            slot
        };
        tokio::time::sleep_until(slot).await;
    }
}

/// Runs every job and returns the outcomes in the jobs' order.
pub fn execute(
    jobs: Vec<Job>,
    budget: Budget,
    observer: Arc<dyn Observer>,
) -> Vec<Result<Completion, CallError>> {
    Executor::new(budget, observer).run(jobs)
}

/// Runs calls under one budget: the runtime, the concurrency limit (lowered by timeouts) and
/// the pace are shared by every call sent through it, so a run whose calls are sent as it goes
/// behaves as one.
pub struct Executor {
    runtime: Result<tokio::runtime::Runtime, CallError>,
    throttle: Arc<Throttle>,
    pace: Option<Arc<Pace>>,
    observer: Arc<dyn Observer>,
}

impl std::fmt::Debug for Executor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Executor")
            .field("limit", &self.limit())
            .finish()
    }
}

impl Executor {
    pub fn new(budget: Budget, observer: Arc<dyn Observer>) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| CallError::Connection(format!("cannot start the async runtime: {e}")));
        let pace = budget.requests_per_minute.filter(|r| *r > 0.0).map(|rpm| {
            Arc::new(Pace {
                interval: Duration::from_secs_f64(60.0 / rpm),
                next: Mutex::new(None),
            })
        });
        Self {
            runtime,
            throttle: Throttle::new(budget.concurrency),
            pace,
            observer,
        }
    }

    /// The concurrency limit now (lowered by timeouts).
    pub fn limit(&self) -> usize {
        self.throttle.limit.load(Ordering::SeqCst)
    }

    /// Runs `jobs` and returns their outcomes in order.
    pub fn run(&self, jobs: Vec<Job>) -> Vec<Result<Completion, CallError>> {
        let total = jobs.len();
        let mut flow = self.flow();
        flow.send(jobs.into_iter().enumerate().collect());
        let mut out: Vec<Option<Result<Completion, CallError>>> =
            (0..total).map(|_| None).collect();
        while let Some((ticket, outcome)) = flow.answer() {
            if let Some(slot) = out.get_mut(ticket) {
                *slot = Some(outcome);
            }
        }
        out.into_iter().map(|o| o.unwrap_or_else(lost)).collect()
    }

    /// Calls that stream: each is started as it is sent and its answer handed back as soon
    /// as it is in, whatever the others do (no barrier: a slow call holds one slot, not every
    /// slot).
    pub fn flow(&self) -> Flowing<'_> {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        Flowing {
            executor: self,
            tx,
            rx,
            outstanding: 0,
        }
    }
}

/// The outcome of a call whose task ended without one.
fn lost() -> Result<Completion, CallError> {
    Err(CallError::Connection("the call's task failed".into()))
}

/// Calls under way, each known by the caller's ticket: sent with `send`, answered through
/// `answer` in the order they finish.
pub struct Flowing<'e> {
    executor: &'e Executor,
    tx: tokio::sync::mpsc::UnboundedSender<(usize, Result<Completion, CallError>)>,
    rx: tokio::sync::mpsc::UnboundedReceiver<(usize, Result<Completion, CallError>)>,
    /// Sent and not yet handed back by `answer`.
    outstanding: usize,
}

impl std::fmt::Debug for Flowing<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Flowing")
            .field("outstanding", &self.outstanding)
            .finish()
    }
}

impl Flowing<'_> {
    /// Calls sent and not yet handed back.
    pub fn outstanding(&self) -> usize {
        self.outstanding
    }

    /// Starts `jobs` (ticket, job), all different calls: each judge is told its calls first
    /// (a cache reads them together), and consecutive samples of one call go in one request
    /// where the judge takes them.
    pub fn send(&mut self, jobs: Vec<(usize, Job)>) {
        if jobs.is_empty() {
            return;
        }
        self.outstanding += jobs.len();
        let runtime = match &self.executor.runtime {
            Ok(rt) => rt,
            Err(error) => {
                for (ticket, _) in jobs {
                    let _ = self.tx.send((ticket, Err(error.clone())));
                }
                return;
            }
        };
        let mut judges: Vec<(&Arc<dyn Judge>, Vec<&Call>)> = Vec::new();
        for (_, job) in &jobs {
            match judges.iter_mut().find(|(j, _)| Arc::ptr_eq(j, &job.judge)) {
                Some((_, calls)) => calls.push(&job.call),
                None => judges.push((&job.judge, vec![&job.call])),
            }
        }
        for (judge, calls) in &judges {
            judge.prefetch(calls);
        }
        drop(judges);
        let bundles = bundles(&jobs);
        let mut jobs = jobs.into_iter();
        for (_, len) in bundles {
            let (tickets, bundle): (Vec<usize>, Vec<Job>) = jobs.by_ref().take(len).unzip();
            // Answered from memory: no request goes out, so `--rpm` does not pace it.
            let at_once = bundle
                .iter()
                .all(|job| job.judge.answers_at_once(&job.call));
            let run = Running {
                throttle: self.executor.throttle.clone(),
                pace: self.executor.pace.clone().filter(|_| !at_once),
                observer: self.executor.observer.clone(),
            };
            let mut owed = Owed {
                tickets,
                tx: self.tx.clone(),
            };
            // A judge that answers from memory is answered here, in order: a task and a
            // wake-up per call would cost more than the call (one context switch each).
            if at_once {
                owed.pay(runtime.block_on(run.bundle(&bundle)));
                continue;
            }
            runtime.spawn(async move {
                let outcomes = run.bundle(&bundle).await;
                owed.pay(outcomes);
            });
        }
    }

    /// The next call to finish, with its ticket, waiting for it; None once every call sent
    /// is handed back. A call whose task failed is handed back as failed.
    pub fn answer(&mut self) -> Option<(usize, Result<Completion, CallError>)> {
        if self.outstanding == 0 {
            return None;
        }
        // Every task holds a sender and sends each of its tickets before it ends; the
        // receiver's own sender keeps the channel open.
        let got = self.rx.blocking_recv();
        self.outstanding -= 1;
        got
    }
}

/// A task's tickets not yet answered: answered as failed if the task ends without them (a
/// panic), so `Flowing::answer` never waits for an answer that cannot come.
struct Owed {
    tickets: Vec<usize>,
    tx: tokio::sync::mpsc::UnboundedSender<(usize, Result<Completion, CallError>)>,
}

impl Owed {
    fn pay(&mut self, outcomes: Vec<Result<Completion, CallError>>) {
        let mut outcomes = outcomes.into_iter();
        for ticket in self.tickets.drain(..) {
            let _ = self.tx.send((ticket, outcomes.next().unwrap_or_else(lost)));
        }
    }
}

impl Drop for Owed {
    fn drop(&mut self) {
        for ticket in self.tickets.drain(..) {
            let _ = self.tx.send((ticket, lost()));
        }
    }
}

/// The jobs sent together, as (first, length): consecutive samples of one call (the same
/// judge, item and parameters, sample indices one after another: a configuration's item and
/// parameters make its messages, so they are not compared), as many as the judge takes in one
/// request; every other job alone.
fn bundles(jobs: &[(usize, Job)]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (i, (_, job)) in jobs.iter().enumerate() {
        if let Some((first, len)) = out.last_mut() {
            let head = &jobs[*first].1;
            let previous = &jobs[i - 1].1.call;
            let joins = job.group == head.group
                && Arc::ptr_eq(&job.judge, &head.judge)
                && Arc::ptr_eq(&job.call.item, &head.call.item)
                && Arc::ptr_eq(&job.call.params, &head.call.params)
                && job.call.sample == previous.sample + 1
                && (*len as u64) < u64::from(head.judge.samples_per_request(&head.call.params));
            if joins {
                *len += 1;
                continue;
            }
        }
        out.push((i, 1));
    }
    out
}

/// What a task needs of the executor to send its calls.
struct Running {
    throttle: Arc<Throttle>,
    pace: Option<Arc<Pace>>,
    observer: Arc<dyn Observer>,
}

impl Running {
    /// A slot of the budget, then the pace's turn: `None` when the run was stopped.
    async fn turn(&self) -> Option<(Slot, u64)> {
        let taken = self.throttle.acquire().await?;
        if let Some(pace) = &self.pace {
            pace.wait().await;
        }
        Some(taken)
    }

    /// After an attempt: a timeout lowers the budget.
    fn after(&self, round: u64, timed_out: bool) {
        if timed_out {
            if let Some((from, to)) = self.throttle.timed_out(round) {
                self.observer.concurrency_lowered(from, to);
            }
        }
    }

    /// One call, retried by its judge's policy (`told`: its start was already told).
    async fn one(&self, job: &Job, told: bool) -> Result<Completion, CallError> {
        let policy = job.judge.retry_policy();
        let mut attempt = 0;
        let outcome = loop {
            let Some((slot, round)) = self.turn().await else {
                break Err(CallError::Connection("the run was stopped".into()));
            };
            if attempt == 0 && !told {
                self.observer.started(job.group);
            }
            let outcome = job.judge.complete(&job.call).await;
            drop(slot);
            self.after(round, matches!(outcome, Err(CallError::Timeout(_))));
            match outcome {
                Err(e) if e.retryable() && attempt < policy.max_retries => {
                    tokio::time::sleep(policy.backoff(attempt, &e)).await;
                    attempt += 1;
                }
                done => break done,
            }
        };
        self.observer.finished(job.group, &outcome);
        outcome
    }

    /// A bundle's calls: one request for all of them while the judge takes it, the samples a
    /// retryable failure left asked again together, and those the request did not answer
    /// (the server refused `n`, or gave fewer choices) sent one by one.
    async fn bundle(&self, jobs: &[Job]) -> Vec<Result<Completion, CallError>> {
        let [head, ..] = jobs else {
            return Vec::new();
        };
        if jobs.len() == 1 {
            return vec![self.one(head, false).await];
        }
        let policy = head.judge.retry_policy();
        let mut out: Vec<Option<Result<Completion, CallError>>> =
            jobs.iter().map(|_| None).collect();
        let mut alone: Vec<(usize, String)> = Vec::new();
        let mut pending: Vec<usize> = (0..jobs.len()).collect();
        for job in jobs {
            self.observer.started(job.group);
        }
        let mut attempt = 0;
        while !pending.is_empty() {
            let Some((slot, round)) = self.turn().await else {
                for &i in &pending {
                    out[i] = Some(Err(CallError::Connection("the run was stopped".into())));
                }
                break;
            };
            let calls: Vec<crate::judge::Call> =
                pending.iter().map(|&i| jobs[i].call.clone()).collect();
            let answered = head.judge.complete_samples(&calls).await;
            drop(slot);
            let mut again: Vec<usize> = Vec::new();
            let mut wait: Option<CallError> = None;
            for (&i, outcome) in pending.iter().zip(answered) {
                match outcome {
                    SampleOutcome::Alone(why) => alone.push((i, why)),
                    SampleOutcome::Done(Err(e))
                        if e.retryable() && attempt < policy.max_retries =>
                    {
                        wait.get_or_insert(e);
                        again.push(i);
                    }
                    SampleOutcome::Done(done) => out[i] = Some(done),
                }
            }
            self.after(round, matches!(wait, Some(CallError::Timeout(_))));
            if let Some(e) = wait {
                tokio::time::sleep(policy.backoff(attempt, &e)).await;
                attempt += 1;
            }
            pending = again;
        }
        for (i, slot) in out.iter().enumerate() {
            if let Some(outcome) = slot {
                self.observer.finished(jobs[i].group, outcome);
            }
        }
        for (i, why) in alone {
            let mut outcome = self.one(&jobs[i], true).await;
            if let Ok(c) = &mut outcome {
                c.sent_without.push(format!(
                    "one request per sample, not together with 'n' ({why})"
                ));
            }
            out[i] = Some(outcome);
        }
        out.into_iter().map(|o| o.unwrap_or_else(lost)).collect()
    }
}

#[cfg(test)]
#[path = "execute_tests.rs"]
mod tests;
