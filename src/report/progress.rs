//! Progress bars (indicatif) on stderr; hidden when stderr is not a terminal.

use crate::dataset::hub::Progress;
use indicatif::{ProgressBar, ProgressStyle};
use std::sync::Mutex;

/// A byte-count bar for downloads.
#[derive(Debug, Default)]
pub struct Download {
    bar: Mutex<Option<ProgressBar>>,
}

impl Progress for Download {
    fn start(&self, what: &str, total: Option<u64>) {
        let bar = match total {
            Some(total) => ProgressBar::new(total),
            None => ProgressBar::new_spinner(),
        };
        let style = ProgressStyle::with_template(
            "{msg} {bar:30} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar.set_message(format!("downloading {what}"));
        if let Ok(mut slot) = self.bar.lock() {
            *slot = Some(bar);
        }
    }

    fn advance(&self, bytes: u64) {
        if let Ok(slot) = self.bar.lock() {
            if let Some(bar) = slot.as_ref() {
                bar.inc(bytes);
            }
        }
    }

    fn finish(&self) {
        if let Ok(mut slot) = self.bar.lock() {
            if let Some(bar) = slot.take() {
                bar.finish_and_clear();
            }
        }
    }
}

/// Per-configuration bars for judge calls: done/total, ETA, cache hits and failures.
pub struct Calls {
    bars: Vec<ProgressBar>,
    counts: Vec<[std::sync::atomic::AtomicUsize; 2]>,
    started: std::time::Instant,
    /// Seconds from the start to each configuration's last finished call.
    last: Mutex<Vec<f64>>,
    /// The concurrency before the first lowering and after the last one.
    lowered: Mutex<Option<(usize, usize)>>,
    multi: indicatif::MultiProgress,
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
        let multi = indicatif::MultiProgress::new();
        let style =
            ProgressStyle::with_template("{prefix:<32} {bar:25} {pos}/{len} eta {eta} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar());
        let bars = configs
            .iter()
            .zip(calls)
            .map(|(c, &n)| {
                let bar = multi.add(ProgressBar::new(n));
                bar.set_style(style.clone());
                bar.set_prefix(c.name.clone());
                bar
            })
            .collect();
        let counts = configs.iter().map(|_| Default::default()).collect();
        std::sync::Arc::new(Self {
            last: Mutex::new(vec![0.0; configs.len()]),
            bars,
            counts,
            started: std::time::Instant::now(),
            lowered: Mutex::new(None),
            multi,
        })
    }

    /// Wall time of a configuration: from the start of the run to its last answer.
    pub fn wall_seconds(&self, group: usize) -> f64 {
        self.last
            .lock()
            .ok()
            .and_then(|l| l.get(group).copied())
            .unwrap_or(0.0)
    }

    /// Clears the bars; when stderr is not a terminal (no bars were drawn), prints one summary
    /// line per configuration instead.
    pub fn finish(&self) {
        use std::io::IsTerminal;
        use std::sync::atomic::Ordering::Relaxed;
        for bar in &self.bars {
            bar.finish_and_clear();
        }
        if let Some((from, to)) = self.lowered.lock().ok().and_then(|l| *l) {
            crate::report::calibrate::warn(&format!(
                "calls timed out, so at most {to} ran at once by the end (not {from}): the server answers fewer requests at once than --concurrency allows, and queued ones time out. Next time pass --concurrency {to}, or a longer --timeout"
            ));
        }
        if std::io::stderr().is_terminal() {
            return;
        }
        for (group, bar) in self.bars.iter().enumerate() {
            let counts = &self.counts[group];
            let line = format!(
                "{}: {}/{} calls, {} from cache, {} failed, {:.1} s",
                bar.prefix(),
                bar.position(),
                bar.length().unwrap_or(0),
                counts[0].load(Relaxed),
                counts[1].load(Relaxed),
                self.wall_seconds(group)
            );
            #[allow(clippy::print_stderr)]
            {
                eprintln!("{line}");
            }
        }
    }
}

impl crate::judge::execute::Observer for Calls {
    fn concurrency_lowered(&self, from: usize, to: usize) {
        if let Ok(mut lowered) = self.lowered.lock() {
            let first = lowered.map_or(from, |l| l.0);
            *lowered = Some((first, to));
        }
        let line = format!("calls are timing out: at most {to} in flight from now on (was {from})");
        if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            let _ = self.multi.println(line);
        } else {
            crate::report::calibrate::warn(&line);
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
    }
}
