//! What a run shows, whatever its form: its run directory, its terminal and its `--json`
//! document, each from the form's own files (pairs: `mod.rs`'s terminal, `document.rs`,
//! `run_dir/`; RewardBench 2 rows: `rewardbench2/`, `run_dir/rewardbench2.rs`), and the one way a
//! command prints it. `calibrate`, `report DIR` and the Python module reach a run only here.

use crate::run::record::Form;
use crate::run::record::Run;
use anyhow::Result;
use serde_json::Value;
use std::io::Write;

impl Run {
    /// Writes the run directory (all but completions.jsonl, written while the run rated).
    pub fn write_dir(&self) -> Result<()> {
        match self.meta.form {
            Form::Pairs => crate::report::calibrate::run_dir::write(self),
            Form::RewardBench2 => crate::report::calibrate::run_dir::rewardbench2::write(self),
        }
    }

    /// What of the run directory needs no evaluation, written before it is done (a run over
    /// pairs: its record's files and the item browser's data; None: the form writes all of
    /// its directory from the evaluated run, as RewardBench 2's rows file holds their scores).
    pub fn write_early(&self) -> Result<Option<crate::run::record::Early>> {
        match self.meta.form {
            Form::Pairs => crate::report::calibrate::run_dir::write_early(self).map(Some),
            Form::RewardBench2 => Ok(None),
        }
    }

    /// The terminal's answer and tables (every table with `details`).
    pub fn write_terminal(&self, w: &mut dyn Write, details: bool) -> Result<()> {
        match self.meta.form {
            Form::Pairs => crate::report::calibrate::write_terminal(self, w, details),
            Form::RewardBench2 => {
                crate::report::calibrate::rewardbench2::write_terminal(self, w, details)
            }
        }
    }

    /// The `--json` document.
    pub fn to_json(&self) -> Value {
        match self.meta.form {
            Form::Pairs => crate::report::calibrate::document::to_json(self),
            Form::RewardBench2 => crate::report::calibrate::rewardbench2::to_json(self),
        }
    }
}

/// The terminal tables, or with `json` the document, of a run.
pub fn emit(run: &Run, json: bool, details: bool) -> Result<()> {
    // The detailed tables: asked for, or always when stdout is not a terminal.
    let details = details || !crate::report::media::term::on_terminal();
    crate::report::media::json::emit_either(
        json,
        || run.to_json(),
        |w| run.write_terminal(w, details),
    )
}
