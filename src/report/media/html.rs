//! HTML pages: one self-contained page (HTML, CSS, inline SVG as data URIs and a little
//! vanilla JavaScript; no network) from the template (`templates/report.html`), with an item
//! browser's data spliced in. All data is escaped by the template engine (HTML) or embedded
//! as JSON that is safe in a `<script>` element and shown with `textContent`.

use crate::report::media::table::Table;
use anyhow::{Context, Result};
use base64::Engine;
use minijinja::{context, Environment};
use serde::Serialize;
use std::io::Write;
use std::path::Path;

const TEMPLATE: &str = include_str!("templates/report.html");
/// The item browser's frame (`browse`), every form's part follows it.
const BROWSER: &str = include_str!("templates/browser.js");

/// Each form's part of the item browser's script (what `browse` is given).
pub mod scripts {
    pub const PAIRS: &str = include_str!("templates/browser_pairs.js");
    pub const REWARDBENCH2: &str = include_str!("templates/browser_rewardbench2.js");
}

#[derive(Debug, Serialize)]
pub struct Plot {
    title: String,
    data: String,
}

pub fn plot(title: impl Into<String>, svg: impl AsRef<[u8]>) -> Plot {
    Plot {
        title: title.into(),
        data: base64::engine::general_purpose::STANDARD.encode(svg),
    }
}

/// Writes JSON that is safe inside a `<script>` element: no `<`, `>` or `&` is left raw (each
/// becomes a `\u` escape, which JSON reads back as the same character; outside strings JSON
/// has none), so no text can close, comment or open an element there.
struct ScriptSafe<'a>(&'a mut Vec<u8>);

impl std::io::Write for ScriptSafe<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut start = 0;
        for i in memchr::memchr3_iter(b'<', b'>', b'&', buf) {
            let escaped: &[u8] = match buf[i] {
                b'<' => b"\\u003c",
                b'>' => b"\\u003e",
                _ => b"\\u0026",
            };
            self.0.extend_from_slice(&buf[start..i]);
            self.0.extend_from_slice(escaped);
            start = i + 1;
        }
        self.0.extend_from_slice(&buf[start..]);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `value` as JSON that is safe inside a `<script>` element (see `ScriptSafe`).
pub fn script_json(value: &impl Serialize) -> Result<String> {
    let mut out = Vec::new();
    serde_json::to_writer(ScriptSafe(&mut out), value)?;
    Ok(String::from_utf8(out)?)
}

/// What a page shows: a title and header lines, the command, summary tables, plots, and the
/// item browser's data (script-safe JSON) when there are items to browse.
#[derive(Debug)]
pub struct Page {
    pub title: String,
    pub header: Vec<String>,
    /// The answer, first: the lines the terminal prints before any table.
    pub answer: Vec<String>,
    pub command: String,
    pub simulated: bool,
    pub tables: Vec<Table>,
    pub plots: Vec<Plot>,
    /// The item browser, when there are items to browse.
    pub browser: Option<Browser>,
}

/// A page's item browser: its data (script-safe JSON) and what its form shows of it.
#[derive(Debug)]
pub struct Browser {
    pub data: String,
    /// Its heading: "Items", "Rows".
    pub title: &'static str,
    /// The filter's options, [value, label], "all" first.
    pub filters: Vec<[&'static str; 2]>,
    /// The list's columns before the configurations'.
    pub columns: Vec<&'static str>,
    /// What the detail panel says before a row is selected.
    pub hint: &'static str,
    /// The form's part of the script (`scripts::PAIRS`, `scripts::REWARDBENCH2`).
    pub script: &'static str,
}

/// Where the browser's data goes: the template renders this, and the data (tens of megabytes
/// for a large run) is spliced in rather than copied through the template engine.
const DATA_SLOT: &str = r#"id="data">DATA-SLOT"#;

/// The page in three parts: the text before the browser's data, the data, the text after.
pub fn page(p: Page) -> Result<[String; 3]> {
    let mut env = Environment::new();
    env.add_template("report.html", TEMPLATE)?;
    let text = env.get_template("report.html")?.render(context! {
        title => p.title,
        header => p.header,
        answer => p.answer,
        command => p.command,
        version => env!("CARGO_PKG_VERSION"),
        simulated => p.simulated,
        tables => p.tables,
        plots => p.plots,
        browser => p.browser.as_ref().map(|b| context! {
            title => b.title,
            filters => b.filters,
            columns => b.columns,
            hint => b.hint,
        }),
        script => p.browser.as_ref().map(|b| format!("{BROWSER}{}", b.script)),
    })?;
    Ok(match (p.browser.map(|b| b.data), text.find(DATA_SLOT)) {
        (Some(data), Some(at)) => {
            let cut = at + DATA_SLOT.len() - "DATA-SLOT".len();
            [
                text[..cut].to_string(),
                data,
                text[at + DATA_SLOT.len()..].to_string(),
            ]
        }
        _ => [text, String::new(), String::new()],
    })
}

/// Writes a page to `path`.
pub fn write_page(p: Page, path: &Path) -> Result<()> {
    write_parts(page(p)?, path)
}

/// Writes the parts of a page to `path`.
pub fn write_parts(parts: [String; 3], path: &Path) -> Result<()> {
    let mut out = std::io::BufWriter::new(
        std::fs::File::create(path).with_context(|| format!("writing '{}'", path.display()))?,
    );
    for part in &parts {
        out.write_all(part.as_bytes())
            .with_context(|| format!("writing '{}'", path.display()))?;
    }
    out.flush()
        .with_context(|| format!("writing '{}'", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_json_has_no_markup_and_reads_back_the_same() {
        let hostile = "</script><!-- <script>alert(1)</script> & &amp; <\\/ \u{2028} é 😀";
        let text =
            script_json(&serde_json::json!({"t": hostile, "<k>": [1, "&"]})).expect("serialized");
        assert!(!text.contains(['<', '>', '&']), "{text}");
        let back: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
        assert_eq!(back["t"], hostile);
        assert_eq!(back["<k>"][1], "&");
    }
}
