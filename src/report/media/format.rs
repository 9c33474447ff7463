//! The small formatting helpers every report file shares: numbers (fixed, p-values,
//! intervals, thousands), names as shown (configurations, statistics, confusion rows) and
//! warnings. It uses no other report file.

use crate::metrics::{Agreement, Contingency, Interval, Statistic};
use std::sync::{Arc, RwLock};

/// A value with four decimals, or "n/a" when undefined.
pub fn fixed(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.4}")
    } else {
        "n/a".to_string()
    }
}

/// A p-value: four decimals, scientific below 1e-4.
pub fn p_value(p: f64) -> String {
    if !p.is_finite() {
        "n/a".to_string()
    } else if p != 0.0 && p < 1e-4 {
        format!("{p:.2e}")
    } else {
        format!("{p:.4}")
    }
}

pub fn interval(i: Option<Interval>) -> String {
    match i {
        Some(i) if i.lo.is_finite() && i.hi.is_finite() => format!("[{:.4}, {:.4}]", i.lo, i.hi),
        Some(_) => "n/a".to_string(),
        None => String::new(),
    }
}

/// A value followed by its interval when there is one: `0.7600 [0.7100, 0.8100]`; an
/// undefined value is `n/a` alone (its interval is undefined too).
pub fn with_interval(a: &Agreement, s: Statistic) -> String {
    let ci = a.intervals.as_ref().map(|i| i.get(s));
    match ci {
        Some(_) if a.get(s).is_finite() => format!("{} {}", fixed(a.get(s)), interval(ci)),
        _ => fixed(a.get(s)),
    }
}

pub fn statistic_name(s: Statistic) -> &'static str {
    match s {
        Statistic::Accuracy => "accuracy",
        Statistic::Kappa => "Cohen's kappa",
        Statistic::KappaLinear => "kappa (linear)",
        Statistic::KappaQuadratic => "kappa (quadratic)",
        Statistic::Spearman => "Spearman's rho",
        Statistic::KendallTauB => "Kendall's tau-b",
        Statistic::TieRateGold => "tie rate (gold)",
        Statistic::TieRateRating => "tie rate (rating)",
    }
}

/// Row and column names of the confusion matrix: the notebook's Gold_1/Gold_Tie/Gold_2 ×
/// Model_1/Model_Tie/Model_2 for pairwise labels, else Gold_<label> × Model_<label>.
pub fn confusion_names(table: &Contingency) -> (Vec<String>, Vec<String>) {
    let name = |side: &str, label: i64| {
        if table.labels().is_pairwise() {
            match label {
                -1 => format!("{side}_1"),
                0 => format!("{side}_Tie"),
                _ => format!("{side}_2"),
            }
        } else {
            format!("{side}_{label}")
        }
    };
    let labels = table.labels().as_slice();
    (
        labels.iter().map(|&l| name("Gold", l)).collect(),
        labels.iter().map(|&l| name("Model", l)).collect(),
    )
}

/// `text` on one line, cut to `max` characters with an ellipsis.
pub fn shorten(text: &str, max: usize) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= max {
        return one_line;
    }
    let cut: String = one_line.chars().take(max.saturating_sub(1)).collect();
    format!("{cut}…")
}

pub fn with_ci(v: f64, (lo, hi): (f64, f64)) -> String {
    if v.is_nan() {
        "n/a".into()
    } else if lo.is_finite() {
        format!("{v:.3} [{lo:.3}, {hi:.3}]")
    } else {
        format!("{v:.3}")
    }
}

/// A configuration's name as shown in tables and plots: simulated ones are marked.
pub fn shown_name(c: &crate::evaluation::ConfigRecord) -> String {
    marked_name(&c.name, c.simulated)
}

/// A configuration's name, "(sim)" after it when the simulated judge gave its ratings.
pub fn marked_name(name: &str, simulated: bool) -> String {
    if simulated {
        format!("{name} (sim)")
    } else {
        name.to_string()
    }
}

/// Where text for stderr goes instead of the process's stderr (the Python module sends it
/// to `sys.stderr`, which a notebook shows).
pub type Sink = Arc<dyn Fn(&str) + Send + Sync>;

static STDERR: RwLock<Option<Sink>> = RwLock::new(None);

/// Sends stderr text to `sink` from now on (`None`: the process's stderr again).
pub fn redirect_stderr(sink: Option<Sink>) {
    if let Ok(mut current) = STDERR.write() {
        *current = sink;
    }
}

/// The sink stderr text goes to, when it was redirected.
pub fn stderr_sink() -> Option<Sink> {
    STDERR.read().ok().and_then(|s| s.clone())
}

/// True when stderr is a terminal that shows progress bars (not when redirected).
pub fn stderr_is_terminal() -> bool {
    use std::io::IsTerminal;
    stderr_sink().is_none() && std::io::stderr().is_terminal()
}

/// One line on stderr (or its sink).
#[allow(clippy::print_stderr)]
pub fn stderr_line(line: &str) {
    match stderr_sink() {
        Some(sink) => sink(&format!("{line}\n")),
        None => eprintln!("{line}"),
    }
}

/// A warning on stderr.
pub fn warn(message: &str) {
    stderr_line(&format!("warning: {message}"));
}

/// The error line a failed command ends with: `error: ` and the whole chain.
pub fn error(err: &anyhow::Error) {
    stderr_line(&format!("error: {err:#}"));
}

/// 1900 → "1,900".
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// The headline value of a statistic for plots and the LaTeX table.
pub fn value(a: &Agreement, statistic: Statistic) -> (f64, Option<(f64, f64)>) {
    let ci = a.intervals.as_ref().map(|i| {
        let b = i.get(statistic);
        (b.lo, b.hi)
    });
    (a.get(statistic), ci)
}

/// The UTC calendar date and time of a Unix time: [year, month, day, hour, minute, second]
/// (Howard Hinnant's civil-from-days algorithm).
pub fn civil(unix: i64) -> [i64; 6] {
    let days = unix.div_euclid(86_400);
    let secs = unix.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    [y, m, d, secs / 3600, secs / 60 % 60, secs % 60]
}

/// A Unix time as `2026-11-24 17:20 UTC`.
pub fn utc(unix: i64) -> String {
    let [y, m, d, h, mi, _] = civil(unix);
    format!("{y:04}-{m:02}-{d:02} {h:02}:{mi:02} UTC")
}

/// A byte count in B, KB, MB or GB (powers of 1000, one decimal).
pub fn bytes(n: u64) -> String {
    match n {
        0..1_000 => format!("{n} B"),
        1_000..1_000_000 => format!("{:.1} KB", n as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1} MB", n as f64 / 1e6),
        _ => format!("{:.1} GB", n as f64 / 1e9),
    }
}

/// A confidence level as a percentage, to one decimal unless it is whole (two where one would
/// round to 100): "95%", "99.4%", "99.99%".
pub fn level(l: f64) -> String {
    let pct = 100.0 * l;
    if (pct - pct.round()).abs() < 1e-9 {
        format!("{pct:.0}%")
    } else if format!("{pct:.1}") == "100.0" {
        format!("{pct:.2}%")
    } else {
        format!("{pct:.1}%")
    }
}

/// The level of a run's intervals, 1 − α, as a percentage ("95%", "80%").
pub fn ci_level(run: &crate::evaluation::Evaluated) -> String {
    level(1.0 - run.evaluation.tested.alpha)
}

/// A paired test's interval as printed beside its verdict: "[+0.100, +0.300]", then its
/// level when it is not 1 − α ("[+0.100, +0.300] at 99.4%", the level of the Holm step that
/// decided it), or "unadjusted" for a test without a verdict. Empty without one.
pub fn interval_of(t: &crate::evaluation::MetricTest, digits: usize) -> String {
    let (lo, hi) = t.ci;
    if !(lo.is_finite() && hi.is_finite()) {
        return String::new();
    }
    let bounds = format!("[{lo:+.digits$}, {hi:+.digits$}]");
    if !t.judged() {
        format!("{bounds} unadjusted")
    } else if (t.level - (1.0 - t.alpha)).abs() > 1e-12 {
        format!("{bounds} at {}", level(t.level))
    } else {
        bounds
    }
}
