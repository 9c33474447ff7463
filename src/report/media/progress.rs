//! Progress bars (indicatif) on stderr; hidden when stderr is not a terminal. When stderr
//! is redirected (`format::redirect_stderr`, the Python module in a notebook), no bars are
//! drawn: each step's start and a calls line every few seconds go there as text.

use crate::dataset::hub::Progress;
use crate::report::media::format::{stderr_is_terminal, stderr_line, stderr_sink};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::Mutex;

/// Bars draw on stderr, or nowhere when stderr is redirected.
pub fn draw_target() -> ProgressDrawTarget {
    if stderr_sink().is_some() {
        ProgressDrawTarget::hidden()
    } else {
        ProgressDrawTarget::stderr()
    }
}

/// One bar at a time, on stderr: a bar with a total, a spinner without one.
#[derive(Debug, Default)]
struct Slot(Mutex<Option<ProgressBar>>);

impl Slot {
    fn start(&self, template: &str, spinner: &str, message: String, total: Option<u64>) {
        // The step before is cleared first, so the new one starts on a clean line.
        self.finish();
        let (bar, template) = match total {
            Some(total) => (
                ProgressBar::with_draw_target(Some(total), draw_target()),
                template,
            ),
            None => (ProgressBar::with_draw_target(None, draw_target()), spinner),
        };
        if stderr_sink().is_some() {
            stderr_line(&format!("{message}…"));
        }
        let style =
            ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar.set_message(message);
        if let Ok(mut slot) = self.0.lock() {
            *slot = Some(bar);
        }
    }

    fn advance(&self, n: u64) {
        if let Ok(slot) = self.0.lock() {
            if let Some(bar) = slot.as_ref() {
                bar.inc(n);
            }
        }
    }

    fn finish(&self) {
        if let Ok(mut slot) = self.0.lock() {
            if let Some(bar) = slot.take() {
                bar.finish_and_clear();
            }
        }
    }
}

/// A byte-count bar for downloads.
#[derive(Debug, Default)]
pub struct Download(Slot);

impl Progress for Download {
    fn start(&self, what: &str, total: Option<u64>) {
        self.0.start(
            "{msg} {bar:30} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
            "{msg} {spinner} {bytes} {bytes_per_sec}",
            format!("downloading {what}"),
            total,
        );
    }
    fn advance(&self, bytes: u64) {
        self.0.advance(bytes);
    }
    fn finish(&self) {
        self.0.finish();
    }
}

/// A count of items (requests written, result bytes read) for long steps such as a batch
/// export or ingest of millions of requests; each `start` replaces the step before.
#[derive(Debug, Default)]
pub struct Steps(Slot);

impl Progress for Steps {
    fn start(&self, what: &str, total: Option<u64>) {
        self.0.start(
            "{msg} {bar:30} {human_pos}/{human_len} eta {eta}",
            "{msg} {spinner} {human_pos}",
            what.to_string(),
            total,
        );
    }
    fn advance(&self, n: u64) {
        self.0.advance(n);
    }
    fn finish(&self) {
        self.0.finish();
    }
}

/// Per-configuration bars for judge calls: done/total, ETA, cache hits and failures.
pub struct Calls {
    bars: Vec<ProgressBar>,
    counts: Vec<[std::sync::atomic::AtomicUsize; 2]>,
    started: std::time::Instant,
    /// Seconds from the start to each configuration's first sent call and its last finished
    /// one.
    first: Mutex<Vec<Option<f64>>>,
    last: Mutex<Vec<f64>>,
    /// The concurrency before the first lowering and after the last one.
    lowered: Mutex<Option<(usize, usize)>>,
    multi: indicatif::MultiProgress,
    /// With stderr redirected (no bars drawn): when the last calls line was written.
    noted: Option<Mutex<std::time::Instant>>,
}

impl std::fmt::Debug for Calls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Calls")
            .field("bars", &self.bars.len())
            .finish()
    }
}

impl Calls {
    /// One bar per configuration, `calls[i]` long.
    pub fn new(configs: &[crate::raters::Config], calls: &[u64]) -> std::sync::Arc<Self> {
        let multi = indicatif::MultiProgress::with_draw_target(draw_target());
        let style =
            ProgressStyle::with_template("{prefix:<32} {bar:25} {pos}/{len} eta {eta} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar());
        let bars = configs
            .iter()
            .zip(calls)
            .map(|(c, &n)| {
                // A configuration that makes no call (a baseline, a jury) shows no empty bar.
                let bar = if n == 0 {
                    ProgressBar::with_draw_target(Some(0), indicatif::ProgressDrawTarget::hidden())
                } else {
                    multi.add(ProgressBar::new(n))
                };
                bar.set_style(style.clone());
                bar.set_prefix(c.name.clone());
                bar
            })
            .collect();
        let counts = configs.iter().map(|_| Default::default()).collect();
        std::sync::Arc::new(Self {
            first: Mutex::new(vec![None; configs.len()]),
            last: Mutex::new(vec![0.0; configs.len()]),
            bars,
            counts,
            started: std::time::Instant::now(),
            lowered: Mutex::new(None),
            multi,
            noted: stderr_sink().map(|_| Mutex::new(std::time::Instant::now())),
        })
    }

    /// Wall time of a configuration: from its first call to its last answer (the
    /// configurations of a run share the time, one after another or overlapping).
    pub fn wall_seconds(&self, group: usize) -> f64 {
        let first = self
            .first
            .lock()
            .ok()
            .and_then(|f| f.get(group).copied().flatten());
        let last = self.last.lock().ok().and_then(|l| l.get(group).copied());
        match (first, last) {
            (Some(first), Some(last)) => (last - first).max(0.0),
            _ => 0.0,
        }
    }

    /// Clears the bars; when stderr is not a terminal (no bars were drawn), prints one summary
    /// line per configuration instead.
    pub fn finish(&self) {
        use std::sync::atomic::Ordering::Relaxed;
        // Finishing a bar moves it to its end: the calls made are read first (a run that
        // stopped early made fewer than planned).
        let made: Vec<u64> = self.bars.iter().map(ProgressBar::position).collect();
        for bar in &self.bars {
            bar.finish_and_clear();
        }
        if let Some((from, to)) = self.lowered.lock().ok().and_then(|l| *l) {
            crate::report::media::format::warn(&format!(
                "calls timed out, so at most {to} ran at once by the end (not {from}): the server answers fewer requests at once than --concurrency allows, and queued ones time out. Next time pass --concurrency {to}, or a longer --timeout"
            ));
        }
        if stderr_is_terminal() {
            return;
        }
        for (group, bar) in self.bars.iter().enumerate() {
            if bar.length() == Some(0) {
                continue;
            }
            let counts = &self.counts[group];
            let line = format!(
                "{}: {}/{} calls, {} from cache, {} failed, {:.1} s",
                bar.prefix(),
                made[group],
                bar.length().unwrap_or(0),
                counts[0].load(Relaxed),
                counts[1].load(Relaxed),
                self.wall_seconds(group)
            );
            stderr_line(&line);
        }
    }

    /// With stderr redirected: every 5 seconds, one line of calls done over all configurations.
    fn note_progress(&self) {
        use std::sync::atomic::Ordering::Relaxed;
        let Some(Ok(mut noted)) = self.noted.as_ref().map(Mutex::lock) else {
            return;
        };
        if noted.elapsed().as_secs_f64() < 5.0 {
            return;
        }
        *noted = std::time::Instant::now();
        let done: u64 = self.bars.iter().map(ProgressBar::position).sum();
        let total: u64 = self.bars.iter().filter_map(ProgressBar::length).sum();
        let (cached, failed) = self.counts.iter().fold((0, 0), |(c, f), n| {
            (c + n[0].load(Relaxed), f + n[1].load(Relaxed))
        });
        stderr_line(&format!(
            "{done}/{total} calls, {cached} from cache, {failed} failed, {:.0} s",
            self.started.elapsed().as_secs_f64()
        ));
    }
}

impl crate::judge::execute::Observer for Calls {
    fn started(&self, group: usize) {
        if let Ok(mut first) = self.first.lock() {
            if let Some(slot) = first.get_mut(group) {
                slot.get_or_insert(self.started.elapsed().as_secs_f64());
            }
        }
    }

    fn concurrency_lowered(&self, from: usize, to: usize) {
        if let Ok(mut lowered) = self.lowered.lock() {
            let first = lowered.map_or(from, |l| l.0);
            *lowered = Some((first, to));
        }
        let line = format!("calls are timing out: at most {to} in flight from now on (was {from})");
        if stderr_is_terminal() {
            let _ = self.multi.println(line);
        } else {
            crate::report::media::format::warn(&line);
        }
    }

    fn finished(
        &self,
        group: usize,
        outcome: &Result<crate::judge::Completion, crate::judge::CallError>,
    ) {
        use std::sync::atomic::Ordering::Relaxed;
        let Some(bar) = self.bars.get(group) else {
            return;
        };
        let counts = &self.counts[group];
        match outcome {
            Ok(c) if c.cached => {
                counts[0].fetch_add(1, Relaxed);
            }
            Err(_) => {
                counts[1].fetch_add(1, Relaxed);
            }
            Ok(_) => {}
        }
        if let Ok(mut last) = self.last.lock() {
            last[group] = self.started.elapsed().as_secs_f64();
        }
        bar.set_message(format!(
            "cached {} failed {}",
            counts[0].load(Relaxed),
            counts[1].load(Relaxed)
        ));
        bar.inc(1);
        self.note_progress();
    }
}
