//! Judge-client speed against an OpenAI-compatible mock on 127.0.0.1 (in a child process, so
//! the client's CPU time is measured alone), side by side with its references:
//!
//! - 2,000 calls at concurrency 64 with 50 ms server latency vs the ideal (calls × latency /
//!   concurrency); goal: within 1.3×;
//! - the notebook-style sequential baseline (concurrency 1) on the same latency;
//! - client CPU per call; goal: under 0.5 ms;
//! - a fully cached re-run of 10,000 calls; goal: under 1 s;
//! - answers that stream: `calibrate --sequential`'s scheduling (chunks the size of the
//!   concurrency) of 640 calls at concurrency 8, every 40th call to reach the server taking 2 s
//!   and the rest 20 ms, beside the same calls sent a block of 8 at a time with a barrier after
//!   each (what it did before), runs taking turns, and the ideal (the work over the slots).
//!
//!     cargo bench --bench judge

#![allow(clippy::print_stdout)] // a benchmark reports on stdout

#[path = "../tests/integration/mock_http.rs"]
mod mock_http;

use raterlab::judge::cache::{Cache, Cached};
use raterlab::judge::execute::{execute, Budget, Job, Silent};
use raterlab::judge::openai::{OpenAi, OpenAiConfig};
use raterlab::judge::{Call, ItemView, Judge, Message, Params};
use raterlab::verdicts::Parser;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

const REPLY: &str = r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"Response 1 is better. <winner>1</winner>"}}],"usage":{"prompt_tokens":120,"completion_tokens":9}}"#;

/// Serves with `latency_ms` per request; with `slow_every`, every so many requests to arrive
/// take 2 s instead.
fn serve(latency_ms: u64, slow_every: Option<usize>) -> ! {
    let count = std::sync::atomic::AtomicUsize::new(0);
    let server = mock_http::MockServer::start(move |_| {
        let reply = mock_http::Reply::Full {
            status: 200,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: REPLY.as_bytes().to_vec(),
        };
        let n = count.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        let wait = match slow_every {
            Some(k) if n % k == 0 => 2000,
            _ => latency_ms,
        };
        if wait == 0 {
            reply
        } else {
            mock_http::Reply::Delayed(Duration::from_millis(wait), Box::new(reply))
        }
    });
    println!("{}", server.url);
    // Serve until the parent closes our stdin.
    let mut line = String::new();
    let _ = std::io::stdin().read_line(&mut line);
    std::process::exit(0)
}

struct Server {
    child: std::process::Child,
    url: String,
}

impl Server {
    fn start(latency_ms: u64) -> Self {
        Self::start_with(latency_ms, None)
    }

    fn start_with(latency_ms: u64, slow_every: Option<usize>) -> Self {
        let mut child = Command::new(std::env::current_exe().expect("bench binary"))
            .env("RATERLAB_BENCH_SERVE_MS", latency_ms.to_string())
            .env(
                "RATERLAB_BENCH_SLOW_EVERY",
                slow_every.map_or(String::new(), |k| k.to_string()),
            )
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("server process");
        let mut url = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut url)
            .expect("server url");
        Self {
            child,
            url: url.trim().to_string(),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// User + system CPU seconds of this process so far (/proc/self/stat, clock ticks of 10 ms).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

fn jobs(judge: Arc<dyn Judge>, n: usize) -> Vec<Job> {
    let params = Arc::new(Params {
        model: "bench".into(),
        temperature: 0.0,
        max_tokens: 16,
        seed: None,
        top_logprobs: None,
        reasoning_effort: None,
        request: None,
    });
    (0..n)
        .map(|i| {
            let item = Arc::new(ItemView {
                prompt: format!("question {i}"),
                response1: "a".repeat(400),
                response2: "b".repeat(400),
                gold: Some(-1),
                parser: Parser::WinnerTag,
                allows_tie: false,
                graded: None,
                pair_id: format!("p-{i}"),
                swapped: false,
                history: Default::default(),
            });
            Job {
                group: 0,
                judge: judge.clone(),
                call: Call {
                    messages: vec![Message::user(format!(
                        "Which is better for question {i}? {} {}",
                        item.response1, item.response2
                    ))],
                    params: params.clone(),
                    sample: 0,
                    item,
                },
            }
        })
        .collect()
}

fn client(url: &str) -> Arc<dyn Judge> {
    let mut config = OpenAiConfig::new(url);
    config.timeout = Duration::from_secs(30);
    Arc::new(OpenAi::new(config).expect("client"))
}

/// The 640 calls rated as `calibrate --sequential` sends them: seconds, and calls failed.
fn streamed(url: &str, concurrency: usize) -> (f64, usize) {
    let pairs = (0..320)
        .map(|i| raterlab::dataset::pairs::Pair {
            id: format!("p{i}"),
            subset: "s".into(),
            prompt: format!("question {i}"),
            first: "a".repeat(400),
            second: "b".repeat(400),
            gold: Some(-1),
            reference: None,
            randomize: true,
            votes: Vec::new(),
            vote_order: Vec::new(),
            generators: None,
            history: Vec::new(),
        })
        .collect();
    let examples = raterlab::dataset::examples::build(pairs, 42, true);
    let config = raterlab::raters::Config {
        name: "bench".into(),
        template: raterlab::prompts::resolve("simple_no_tie").expect("built-in"),
        rater: raterlab::raters::RaterKind::parse("basic", 0).expect("rater"),
        judge: client(url),
        params: jobs(client(url), 1)[0].call.params.clone(),
        pointwise: Default::default(),
    };
    let parts = [(&config, &examples[..])];
    let mut failed = 0;
    let start = Instant::now();
    raterlab::raters::rate_parts(
        &parts,
        raterlab::raters::Counted::of(&parts),
        Budget {
            concurrency,
            requests_per_minute: None,
        },
        Arc::new(Silent),
        &mut |_, _, r| {
            failed += usize::from(r.samples.iter().any(|s| s.completion.is_none()));
            raterlab::raters::Flow::Go
        },
        raterlab::raters::Blocks::Concurrency,
    );
    (start.elapsed().as_secs_f64(), failed)
}

/// The same number of calls a block of `concurrency` at a time, each block waiting for its
/// slowest call: seconds, and calls failed.
fn barrier(url: &str, calls: usize, concurrency: usize) -> (f64, usize) {
    let executor = raterlab::judge::execute::Executor::new(
        Budget {
            concurrency,
            requests_per_minute: None,
        },
        Arc::new(Silent),
    );
    let mut all = jobs(client(url), calls).into_iter();
    let mut failed = 0;
    let start = Instant::now();
    loop {
        let block: Vec<Job> = all.by_ref().take(concurrency).collect();
        if block.is_empty() {
            break;
        }
        failed += executor.run(block).iter().filter(|o| o.is_err()).count();
    }
    (start.elapsed().as_secs_f64(), failed)
}

fn timed(jobs: Vec<Job>, concurrency: usize) -> (f64, f64, usize) {
    let cpu = cpu_seconds();
    let start = Instant::now();
    let outcomes = execute(
        jobs,
        Budget {
            concurrency,
            requests_per_minute: None,
        },
        Arc::new(Silent),
    );
    let failed = outcomes.iter().filter(|o| o.is_err()).count();
    (start.elapsed().as_secs_f64(), cpu_seconds() - cpu, failed)
}

fn main() {
    if let Ok(ms) = std::env::var("RATERLAB_BENCH_SERVE_MS") {
        let slow = std::env::var("RATERLAB_BENCH_SLOW_EVERY").ok();
        serve(ms.parse().unwrap_or(50), slow.and_then(|k| k.parse().ok()));
    }
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let latency = 0.050;
    let server = Server::start(50);
    let (calls, concurrency) = (2000, 64);
    let (wall, cpu, failed) = timed(jobs(client(&server.url), calls), concurrency);
    let ideal = calls as f64 * latency / concurrency as f64;
    let (seq_calls, (seq_wall, _, seq_failed)) = (100, timed(jobs(client(&server.url), 100), 1));
    drop(server);

    let fast = Server::start(0);
    let dir = std::env::temp_dir().join(format!("raterlab-bench-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cache = Arc::new(Cache::open(&dir, &raterlab::dataset::hub::Quiet).expect("cache"));
    let cached: Arc<dyn Judge> = Arc::new(Cached::new(client(&fast.url), cache.clone(), false));
    let (fill_wall, _, fill_failed) = timed(jobs(cached.clone(), 10_000), 64);
    drop(fast);
    let reopened = Arc::new(Cache::open(&dir, &raterlab::dataset::hub::Quiet).expect("cache"));
    let start = Instant::now();
    let offline: Arc<dyn Judge> =
        Arc::new(Cached::new(client("http://127.0.0.1:9/v1"), reopened, true));
    let (_, _, cache_failed) = timed(jobs(offline, 10_000), 64);
    let rerun = start.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(&dir);

    println!("judge client, mock server on 127.0.0.1 (failed calls: {failed}, {seq_failed}, {fill_failed}, {cache_failed})");
    println!(
        "{:<58} {:>10} {:>12} {:>8}",
        "case", "measured", "reference", "ratio"
    );
    println!(
        "{:<58} {:>9.3}s {:>11.3}s {:>7.2}x",
        "2000 calls, concurrency 64, 50 ms (ref: ideal)",
        wall,
        ideal,
        wall / ideal
    );
    let seq_projected = seq_wall / seq_calls as f64 * calls as f64;
    println!(
        "{:<58} {:>9.3}s {:>11.3}s {:>7.1}x",
        "sequential baseline, 2000 calls projected from 100 (ref: c=64)",
        seq_projected,
        wall,
        seq_projected / wall
    );
    let per_call_ms = cpu / calls as f64 * 1000.0;
    println!(
        "{:<58} {:>8.3}ms {:>10.3}ms {:>7.2}x",
        "client CPU per call (ref: 0.5 ms budget)",
        per_call_ms,
        0.5,
        per_call_ms / 0.5
    );
    println!(
        "{:<58} {:>9.3}s {:>11.3}s {:>7.1}x",
        "10,000 calls, filling the cache (0 ms server; ref: re-run)",
        fill_wall,
        rerun,
        fill_wall / rerun
    );
    println!(
        "{:<58} {:>9.3}s {:>11.3}s {:>7.2}x",
        "fully cached re-run of 10,000 calls (ref: 1 s budget)", rerun, 1.0, rerun
    );

    // Answers that stream: 640 calls at concurrency 8, every 40th 2 s, the rest 20 ms.
    let (calls, concurrency, every) = (640, 8, 40);
    let ideal = ((calls - calls / every) as f64 * 0.020 + (calls / every) as f64 * 2.0)
        / concurrency as f64;
    for round in 1..=2 {
        let server = Server::start_with(20, Some(every));
        let (flow, flow_failed) = streamed(&server.url, concurrency);
        drop(server);
        let server = Server::start_with(20, Some(every));
        let (blocked, blocked_failed) = barrier(&server.url, calls, concurrency);
        drop(server);
        println!(
            "{:<58} {:>9.3}s {:>11.3}s {:>7.2}x",
            format!("640 calls streamed, c=8, 1/40 slow (ref: barrier) #{round}"),
            flow,
            blocked,
            flow / blocked
        );
        println!(
            "{:<58} {:>9.3}s {:>11.3}s {:>7.2}x",
            format!("  the same against the ideal (failed: {flow_failed}, {blocked_failed})"),
            flow,
            ideal,
            flow / ideal
        );
    }
}
