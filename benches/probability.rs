//! Probabilities' speed, side by side with references:
//!
//! - reading an answer's logprobs: parsing chat-completion bodies with a one-token verdict
//!   and its top-5 alternatives (AlpacaEval's weighted judge) and reading P(response 2), against
//!   parsing the same bodies without logprobs; the extra time per call beside a call's own
//!   latency (goal: no measurable cost per call);
//! - the calibration figures of 10^5 items with 1,000 bootstrap resamples (goal: well under a
//!   second), against sklearn's brier_score_loss, log_loss, roc_auc_score and
//!   calibration_curve on the same items without any interval (python3, when it has sklearn).
//!
//!     cargo bench --bench probability

#![allow(clippy::print_stdout)] // a benchmark reports on stdout

use raterlab::judge::openai::parse_completion;
use raterlab::metrics::calibration::{calibration, BINS};
use raterlab::verdicts::probability::{Meaning, Position, Spec, Whitespace};
use std::hint::black_box;
use std::time::Instant;

fn body(i: usize, logprobs: bool) -> String {
    let (s, f) = (
        -((i % 7) as f64) * 0.3 - 0.01,
        -((i % 5) as f64) * 0.4 - 0.02,
    );
    let lp = if logprobs {
        format!(
            r#","logprobs":{{"content":[{{"token":"M","logprob":{s},"bytes":[77],"top_logprobs":[{{"token":"M","logprob":{s},"bytes":[77]}},{{"token":"m","logprob":{f},"bytes":[109]}},{{"token":"The","logprob":-9.5,"bytes":[84,104,101]}},{{"token":"Both","logprob":-11.0,"bytes":[66]}},{{"token":"Model","logprob":-12.5,"bytes":[77]}}]}}]}}"#
        )
    } else {
        String::new()
    };
    format!(
        r#"{{"id":"chatcmpl-{i}","object":"chat.completion","created":1795589690,"model":"gpt-4-1106-preview","choices":[{{"index":0,"message":{{"role":"assistant","content":"M"}},"finish_reason":"length"{lp}}}],"usage":{{"prompt_tokens":1400,"completion_tokens":1,"total_tokens":1401}}}}"#
    )
}

fn main() {
    let n = 200_000;
    let plain: Vec<String> = (0..n).map(|i| body(i, false)).collect();
    let with: Vec<String> = (0..n).map(|i| body(i, true)).collect();
    let spec = Spec {
        position: Position::First,
        tokens: vec![
            ("m".into(), Meaning::Response(1)),
            ("M".into(), Meaning::Response(2)),
        ],
        whitespace: Whitespace::Exact,
        top: 5,
        identical_tie: false,
    };
    let time = |bodies: &[String], read: bool| {
        let start = Instant::now();
        let mut sum = 0.0;
        for b in bodies {
            let c = parse_completion(b, 0.0).expect("a valid body");
            if read {
                if let Ok(raterlab::verdicts::probability::Reading::Pair(p)) =
                    spec.read(c.logprobs.as_ref(), &c.text, None)
                {
                    sum += p;
                }
            }
            black_box(&c);
        }
        black_box(sum);
        start.elapsed().as_secs_f64() / bodies.len() as f64
    };
    // Warm up, then the best of three each, interleaved.
    time(&plain[..1000], false);
    let (mut a, mut b) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..3 {
        a = a.min(time(&plain, false));
        b = b.min(time(&with, true));
    }
    println!("reading logprobs, {n} chat-completion bodies (one token, top 5):");
    println!("  parse without logprobs      {:8.2} µs per call", a * 1e6);
    println!(
        "  parse + read P(response 2)  {:8.2} µs per call  ({:.2}× the parse alone)",
        b * 1e6,
        b / a
    );
    println!(
        "  the extra {:.2} µs is {:.5}% of a 50 ms call (a local server's fastest one-token answer): no measurable cost per call",
        (b - a) * 1e6,
        100.0 * (b - a) / 0.05
    );

    // 10^5 items: a judge's probabilities and outcomes (deterministic).
    let items = 100_000;
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let p: Vec<f64> = (0..items).map(|_| next()).collect();
    let y: Vec<bool> = p.iter().map(|&q| next() < q).collect();
    let start = Instant::now();
    let c = calibration(&y, &p, BINS, raterlab::metrics::Resampling::at95(1000, 7));
    let ours = start.elapsed().as_secs_f64();
    black_box(&c);
    println!("\ncalibration figures of {items} items:");
    println!(
        "  raterlab, 1,000 bootstrap resamples  {ours:.3} s  (brier {:.4}, log loss {:.4}, ECE {:.4}, AUC {:.4})",
        c.brier, c.log_loss, c.ece, c.auc
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("p.csv");
    let mut csv = String::from("y,p\n");
    for (t, q) in y.iter().zip(&p) {
        csv.push_str(&format!("{},{q:?}\n", u8::from(*t)));
    }
    std::fs::write(&data, csv).expect("write");
    let script = format!(
        "import time, numpy as np\nfrom sklearn.metrics import brier_score_loss, log_loss, roc_auc_score\nfrom sklearn.calibration import calibration_curve\nd = np.loadtxt({:?}, delimiter=',', skiprows=1)\ny, p = d[:, 0].astype(int), d[:, 1]\nt = time.perf_counter()\nb = brier_score_loss(y, p); l = log_loss(y, p); a = roc_auc_score(y, p); calibration_curve(y, p, n_bins=10)\nprint(time.perf_counter() - t, b, l, a)\n",
        data.display()
    );
    match std::process::Command::new("python3")
        .args(["-c", &script])
        .output()
    {
        Ok(out) if out.status.success() => {
            let text = String::from_utf8_lossy(&out.stdout);
            let f: Vec<f64> = text
                .split_whitespace()
                .filter_map(|v| v.parse().ok())
                .collect();
            if let [secs, brier, log_loss, auc] = f[..] {
                println!(
                    "  sklearn, no intervals                {secs:.3} s  (brier {brier:.4}, log loss {log_loss:.4}, AUC {auc:.4})"
                );
                println!(
                    "  raterlab with 1,000 resamples / sklearn's point figures: {:.2}×; the point figures agree to {:.1e}",
                    ours / secs,
                    (c.brier - brier)
                        .abs()
                        .max((c.log_loss - log_loss).abs())
                        .max((c.auc - auc).abs())
                );
            }
        }
        _ => println!("  (python3 with scikit-learn not found: no reference run)"),
    }
}
