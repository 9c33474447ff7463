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
    fn answers_at_once(&self) -> bool {
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
