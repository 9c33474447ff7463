//! What `raterlab label` and `raterlab labels` show: the labelling page (from its template,
//! with the Content-Security-Policy that lets only its own script and style run), the lines
//! the server prints, the exported labels and the store's statistics.

use crate::dataset::frame::{write_as, Format};
use crate::evaluation::labelling::LabelStats;
use crate::label::server::{Page, Stopped};
use crate::label::{Event, Label};
use crate::report::media::format::{civil, p_value, stderr_line, with_ci};
use crate::report::media::table::{self, Table};
use crate::report::media::term::{width, wrap};
use anyhow::Result;
use base64::Engine;
use minijinja::{context, Environment};
use polars::prelude::*;
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::Path;

const TEMPLATE: &str = include_str!("media/templates/label.html");
const SCRIPT: &str = include_str!("media/templates/label.js");
const STYLE: &str = include_str!("media/templates/label.css");

fn sha256_source(text: &str) -> String {
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(Sha256::digest(text.as_bytes()))
    )
}

/// The page: no data in it (the script asks the server for each item and shows every text
/// with `textContent`); the policy allows exactly its own inline script and style, requests to
/// its own server, and nothing else (no image, frame, form target or other origin).
pub fn page(title: &str) -> Result<Page> {
    let mut env = Environment::new();
    env.add_template("label.html", TEMPLATE)?;
    let html = env.get_template("label.html")?.render(context! {
        title => title,
        script => SCRIPT,
        style => STYLE,
    })?;
    let csp = format!(
        "default-src 'none'; script-src {}; style-src {}; connect-src 'self'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        sha256_source(SCRIPT),
        sha256_source(STYLE)
    );
    Ok(Page { html, csp })
}

/// The server's first stdout line, its address with the token, then what it serves.
pub fn ready(url: &str, lines: &[String]) -> Result<()> {
    let mut out = crate::report::media::term::stdout();
    writeln!(out, "raterlab label: {url}")?;
    out.flush()?;
    // A reader that took the address and left (`| head -1`) does not stop the server.
    for line in lines {
        let _ = writeln!(out, "{line}");
    }
    let _ = out.flush();
    Ok(())
}

/// What the server says when it stops (stderr).
pub fn stopped(s: &Stopped, store: &Path) {
    stderr_line(&format!(
        "raterlab label: stopped; {} labels in force in '{}' (the store is closed)",
        s.labels,
        store.display()
    ));
}

/// A time in milliseconds since the epoch as RFC 3339, UTC, to the millisecond.
pub fn rfc3339(ms: i64) -> String {
    let [y, m, d, h, mi, s] = civil(ms.div_euclid(1000));
    format!(
        "{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{:03}Z",
        ms.rem_euclid(1000)
    )
}

/// The current labels, one row each: item_id, annotator, label, shown_first, seconds,
/// labelled_at, note.
pub fn labels_frame(labels: &[Label]) -> Result<DataFrame> {
    let text = |name: &str, f: &dyn Fn(&Label) -> String| {
        Column::new(name.into(), labels.iter().map(f).collect::<Vec<String>>())
    };
    Ok(DataFrame::new_infer_height(vec![
        text("item_id", &|l| l.item_id.clone()),
        text("annotator", &|l| l.annotator.clone()),
        Column::new(
            "label".into(),
            labels.iter().map(|l| l.label).collect::<Vec<i64>>(),
        ),
        text("shown_first", &|l| l.shown_first.key().to_string()),
        Column::new(
            "seconds".into(),
            labels.iter().map(|l| l.seconds).collect::<Vec<f64>>(),
        ),
        text("labelled_at", &|l| rfc3339(l.at_ms)),
        Column::new(
            "note".into(),
            labels
                .iter()
                .map(|l| l.note.clone())
                .collect::<Vec<Option<String>>>(),
        ),
    ])?)
}

/// Every event, in commit order: id, kind, item_id, annotator, label, shown_first, seconds,
/// at, note, undoes.
pub fn history_frame(events: &[Event]) -> Result<DataFrame> {
    Ok(DataFrame::new_infer_height(vec![
        Column::new("id".into(), events.iter().map(|e| e.id).collect::<Vec<_>>()),
        Column::new(
            "kind".into(),
            events.iter().map(|e| e.kind.key()).collect::<Vec<_>>(),
        ),
        Column::new(
            "item_id".into(),
            events
                .iter()
                .map(|e| e.item_id.as_str())
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "annotator".into(),
            events
                .iter()
                .map(|e| e.annotator.as_str())
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "label".into(),
            events.iter().map(|e| e.label).collect::<Vec<_>>(),
        ),
        Column::new(
            "shown_first".into(),
            events
                .iter()
                .map(|e| e.shown_first.map(|s| s.key()))
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "seconds".into(),
            events.iter().map(|e| e.seconds).collect::<Vec<_>>(),
        ),
        Column::new(
            "at".into(),
            events.iter().map(|e| rfc3339(e.at_ms)).collect::<Vec<_>>(),
        ),
        Column::new(
            "note".into(),
            events.iter().map(|e| e.note.as_deref()).collect::<Vec<_>>(),
        ),
        Column::new(
            "undoes".into(),
            events.iter().map(|e| e.undoes).collect::<Vec<_>>(),
        ),
    ])?)
}

/// Writes the export and says what it wrote.
pub fn write_export(
    frame: DataFrame,
    rows: usize,
    what: &str,
    out: &Path,
    format: Format,
) -> Result<()> {
    write_as(frame, out, format)?;
    let mut w = crate::report::media::term::stdout();
    writeln!(w, "wrote {rows} {what} to {}", out.display())?;
    w.flush()?;
    Ok(())
}

/// The per-annotator table of `labels stats`.
pub fn annotators_table(s: &LabelStats) -> Table {
    let level = format!("{:.0}%", 100.0 * (1.0 - s.alpha));
    let first = format!("chose the one shown first [{level} CI]");
    let mut t = Table::new(
        "Annotators",
        &[
            "annotator",
            "labels",
            "ties",
            "s/item (median)",
            &first,
            "p (exact)",
        ],
    );
    for a in &s.annotators {
        t.rows.push(vec![
            a.annotator.clone(),
            a.labels.to_string(),
            a.ties.to_string(),
            format!("{:.1} ({:.1})", a.seconds_mean, a.seconds_median),
            match (a.first_share, a.first_ci) {
                (Some(v), Some(ci)) => {
                    format!("{} of {}: {}", a.chose_first, a.decided, with_ci(v, ci))
                }
                _ => "no decided label".into(),
            },
            a.first_p.map_or_else(|| "-".into(), p_value),
        ]);
    }
    t.notes.push(format!(
        "Position bias: the share of labels (ties aside) that chose the response shown first; one half is none. The exact binomial test and the Clopper–Pearson interval agree: p ≤ {} exactly when the interval leaves out 0.5.",
        s.alpha
    ));
    t
}

/// `labels stats` on stdout: the answer first, then the tables.
pub fn emit_stats(s: &LabelStats, store: &Path) -> Result<()> {
    let mut out = crate::report::media::term::stdout();
    let labels: usize = s.annotators.iter().map(|a| a.labels).sum();
    writeln!(
        out,
        "{}",
        wrap(&format!("raterlab labels: {labels} labels of {} items by {} annotator{} in '{}'; {} items labelled by two or more, {} contested (no single most common label: no gold)",
        s.items,
        s.annotators.len(),
        if s.annotators.len() == 1 { "" } else { "s" },
        store.display(),
        s.shared,
        s.contested), width(), "")
    )?;
    // Each annotator the exact test finds biased, with the direction and the interval beside.
    let biased: Vec<String> = s
        .annotators
        .iter()
        .filter(|a| a.position_bias)
        .filter_map(|a| {
            let (share, ci) = (a.first_share?, a.first_ci?);
            Some(format!(
                "{} chose the response shown first {} than half the time ({}, p = {})",
                a.annotator,
                if share > 0.5 {
                    "more often"
                } else {
                    "less often"
                },
                with_ci(share, ci),
                p_value(a.first_p?)
            ))
        })
        .collect();
    if !biased.is_empty() {
        let text = format!(
            "Position bias (exact binomial test at α = {}): {}.",
            s.alpha,
            biased.join("; ")
        );
        writeln!(out, "{}", wrap(&text, width(), ""))?;
    }
    let t = annotators_table(s);
    writeln!(out, "\n{}\n{}", t.title, table::render(&t))?;
    for n in &t.notes {
        writeln!(out, "{}", wrap(n, width(), ""))?;
    }
    match &s.panel {
        Some(r) => {
            for t in crate::report::annotators::tables(r) {
                writeln!(out, "\n{}\n{}", t.title, table::render(&t))?;
            }
        }
        None => writeln!(
            out,
            "\n{}",
            wrap(
                "Agreement between annotators: none yet (it needs two annotators on a shared item; `label --overlap 2` asks for it)",
                width(),
                ""
            )
        )?,
    }
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_rfc3339_to_the_millisecond() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(1_795_834_209_123), "2026-11-28T02:50:09.123Z");
    }

    #[test]
    fn the_policy_names_exactly_the_pages_script_and_style() {
        let p = page("<b>x</b>").expect("page");
        assert!(
            p.html.contains("&lt;b&gt;x") && !p.html.contains("<b>"),
            "the title is escaped"
        );
        assert!(p.html.contains(SCRIPT) && p.html.contains(STYLE));
        assert!(p.csp.contains(&sha256_source(SCRIPT)));
        assert!(p.csp.starts_with("default-src 'none';"));
        assert!(!p.csp.contains("unsafe"));
    }
}
