//! `execute`'s tests: where a judge's calls are answered.

use super::*;
use crate::judge::{CallFuture, ItemView, Message, Params};
use std::thread::ThreadId;

/// A judge that answers its sample index and notes the thread each call ran on.
struct Noting {
    at_once: bool,
    threads: Mutex<Vec<ThreadId>>,
}

impl Judge for Noting {
    fn describe(&self) -> String {
        "noting".into()
    }
    fn answers_at_once(&self, _call: &Call) -> bool {
        self.at_once
    }
    fn complete<'a>(&'a self, call: &'a Call) -> CallFuture<'a> {
        Box::pin(async move {
            if let Ok(mut t) = self.threads.lock() {
                t.push(std::thread::current().id());
            }
            Ok(Completion::free(call.sample.to_string()))
        })
    }
}

fn jobs(judge: &Arc<Noting>, n: u32) -> Vec<Job> {
    let item = Arc::new(ItemView::blank());
    let params = Arc::new(Params {
        model: "m".into(),
        temperature: 0.0,
        max_tokens: 8,
        seed: None,
        top_logprobs: None,
        reasoning_effort: None,
        request: None,
    });
    (0..n)
        .map(|sample| Job {
            group: 0,
            judge: judge.clone(),
            call: Call {
                // Different messages: different calls, never one request.
                messages: vec![Message::user(format!("call {sample}"))],
                params: params.clone(),
                sample,
                item: item.clone(),
            },
        })
        .collect()
}

/// A judge that answers from memory is answered on the caller's thread, one that waits on
/// the runtime's threads; both hand every answer back under its own ticket.
#[test]
fn a_judge_answering_at_once_is_answered_where_its_calls_are_sent() {
    let budget = Budget {
        concurrency: 4,
        requests_per_minute: None,
    };
    let here = std::thread::current().id();
    for at_once in [true, false] {
        let judge = Arc::new(Noting {
            at_once,
            threads: Mutex::new(Vec::new()),
        });
        let out = execute(jobs(&judge, 40), budget, Arc::new(Silent));
        let texts: Vec<String> = out
            .into_iter()
            .map(|o| o.map(|c| c.text).unwrap_or_default())
            .collect();
        let expected: Vec<String> = (0..40).map(|k| k.to_string()).collect();
        assert_eq!(texts, expected, "at once: {at_once}");
        let threads = judge.threads.lock().map(|t| t.clone()).unwrap_or_default();
        assert_eq!(threads.len(), 40);
        assert_eq!(
            threads.iter().all(|&t| t == here),
            at_once,
            "at once: {at_once}, ran on the caller's thread: {}",
            threads.iter().filter(|&&t| t == here).count()
        );
    }
}

/// Notes the thread each finished call is told on.
#[derive(Default)]
struct Told(Mutex<Vec<ThreadId>>);

impl Observer for Told {
    fn finished(&self, _: usize, _: &Result<Completion, CallError>) {
        if let Ok(mut t) = self.0.lock() {
            t.push(std::thread::current().id());
        }
    }
}

/// Behind the response cache: a miss waits on the runtime's threads; a call whose stored
/// answer was prefetched, and any call offline (a miss is an error at once), is answered on
/// the caller's thread.
#[test]
fn the_cache_answers_at_once_what_it_holds_and_everything_offline() {
    use crate::judge::cache::{Cache, Cached};
    let dir = tempfile::tempdir().expect("tempdir");
    let budget = Budget {
        concurrency: 4,
        requests_per_minute: None,
    };
    let here = std::thread::current().id();
    let inner = Arc::new(Noting {
        at_once: false,
        threads: Mutex::new(Vec::new()),
    });
    let run = |offline: bool, n: u32| {
        let cache = Arc::new(Cache::open(dir.path(), &crate::dataset::hub::Quiet).expect("cache"));
        let cached: Arc<dyn Judge> = Arc::new(Cached::new(inner.clone(), cache, offline));
        let told = Arc::new(Told::default());
        let jobs: Vec<Job> = jobs(&inner, n)
            .into_iter()
            .map(|job| Job {
                judge: cached.clone(),
                ..job
            })
            .collect();
        let out = execute(jobs, budget, told.clone());
        let threads = told.0.lock().map(|t| t.clone()).unwrap_or_default();
        (out, threads)
    };
    // The first run asks the judge: every call waits on the runtime.
    let (out, threads) = run(false, 10);
    assert!(out.iter().all(|o| o.as_ref().is_ok_and(|c| !c.cached)));
    assert!(threads.len() == 10 && threads.iter().all(|&t| t != here));
    // Again, online: every answer is stored, prefetched and given at once.
    let (out, threads) = run(false, 10);
    assert!(out.iter().all(|o| o.as_ref().is_ok_and(|c| c.cached)));
    assert!(threads.len() == 10 && threads.iter().all(|&t| t == here));
    // Offline with two calls more: the stored ten and the two misses, all at once.
    let (out, threads) = run(true, 12);
    assert_eq!(out.iter().filter(|o| o.is_ok()).count(), 10);
    assert!(matches!(out[11], Err(CallError::CacheMiss)));
    assert!(threads.len() == 12 && threads.iter().all(|&t| t == here));
    // The judge was asked only by the first run.
    assert_eq!(inner.threads.lock().map(|t| t.len()).unwrap_or(0), 10);
}

/// `--rpm` paces the requests that go out, not the answers given from memory: at 600 a
/// minute (one start every 0.1 s), 50 calls answered at once are not held for 4.9 s, while
/// three calls of a judge that waits start 0.1 s apart.
#[test]
fn answers_from_memory_are_not_paced() {
    let budget = Budget {
        concurrency: 4,
        requests_per_minute: Some(600.0),
    };
    for (at_once, n) in [(true, 50), (false, 3)] {
        let judge = Arc::new(Noting {
            at_once,
            threads: Mutex::new(Vec::new()),
        });
        let start = std::time::Instant::now();
        let out = execute(jobs(&judge, n), budget, Arc::new(Silent));
        let took = start.elapsed().as_secs_f64();
        assert!(out.iter().all(Result::is_ok));
        if at_once {
            assert!(took < 2.0, "answered at once, yet paced: {took:.2} s");
        } else {
            assert!(took >= 0.2, "three requests at 0.1 s apart in {took:.2} s");
        }
    }
}
