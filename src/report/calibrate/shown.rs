//! The report's side of the forms' seam: what a form's run shows (its run directory, its
//! terminal, its `--json` document), and the one way a command prints it.

use anyhow::Result;
use serde_json::Value;
use std::io::Write;

/// What a form's run shows: its run directory, its terminal and its `--json` document. Each
/// form implements it in `forms.rs` from its own files; `calibrate`, `report DIR` and the
/// Python module reach a run only through it.
pub trait Shown {
    /// Writes the run directory.
    fn write_dir(&self) -> Result<()>;
    /// The terminal's answer and tables (every table with `details`).
    fn write_terminal(&self, w: &mut dyn Write, details: bool) -> Result<()>;
    /// The `--json` document.
    fn to_json(&self) -> Value;
}

/// The terminal tables, or with `json` the document, of a run.
pub fn emit(run: &dyn Shown, json: bool, details: bool) -> Result<()> {
    // The detailed tables: asked for, or always when stdout is not a terminal.
    let details = details || !crate::report::media::term::on_terminal();
    crate::report::media::json::emit_either(
        json,
        || run.to_json(),
        |w| run.write_terminal(w, details),
    )
}
