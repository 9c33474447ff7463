//! The terminal's width, and text fitted to it. Output to a terminal fits its width; output to
//! a pipe or a file keeps every line whole (full width), unless `COLUMNS` asks for a width.

/// The width to fit: `COLUMNS` when set (20 or more), else the terminal's when stdout is one,
/// else none (pipes and files keep full lines).
pub fn width() -> Option<usize> {
    let columns = std::env::var("COLUMNS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&c| c >= 20);
    columns.or_else(|| {
        let term = console::Term::stdout();
        term.is_term().then(|| usize::from(term.size().1))
    })
}

/// Stdout for a command's output, in 64 KiB writes (Rust's own stdout writes each line
/// apart: a pretty `--json` document of 17,000 lines was 17,000 system calls). Dropping it
/// writes what is left; an emitter flushes it to hear of a failed write.
pub fn stdout() -> std::io::BufWriter<std::io::StdoutLock<'static>> {
    std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock())
}

/// Whether stdout is a terminal (a person reading): the detailed tables then wait for
/// `--details`; a pipe or a file gets everything.
pub fn on_terminal() -> bool {
    console::Term::stdout().is_term()
}

/// How wide `text` shows (characters, wide ones counted twice).
pub fn shown_width(text: &str) -> usize {
    console::measure_text_width(text)
}

/// `text` wrapped at word boundaries to `width` (each line starting with `indent`; a word
/// longer than a line stands alone); unchanged but for the indent without a width.
pub fn wrap(text: &str, width: Option<usize>, indent: &str) -> String {
    let Some(width) = width else {
        return format!("{indent}{text}");
    };
    let room = width.saturating_sub(shown_width(indent)).max(20);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let needed = shown_width(&line) + usize::from(!line.is_empty()) + shown_width(word);
        if !line.is_empty() && needed > room {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines.push(line);
    lines
        .iter()
        .map(|l| format!("{indent}{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_wraps_at_the_width_and_keeps_every_word() {
        let text =
            "the metrics disagree on the best configuration: quadratic kappa ranks one first";
        let wrapped = wrap(text, Some(30), "  ");
        assert!(wrapped.lines().all(|l| shown_width(l) <= 30), "{wrapped}");
        assert!(wrapped.lines().all(|l| l.starts_with("  ")));
        let words: Vec<&str> = wrapped.split_whitespace().collect();
        assert_eq!(words, text.split_whitespace().collect::<Vec<_>>());
        assert_eq!(wrap(text, None, "  "), format!("  {text}"));
        // A word longer than a line stands alone rather than being cut.
        let long = format!("short {} end", "x".repeat(50));
        assert_eq!(wrap(&long, Some(30), "").lines().count(), 3);
    }
}
