//! What each form shows, from its own files: pairs (`mod.rs`'s terminal, `document.rs`,
//! `run_dir/`) and RewardBench 2 rows (`rewardbench2/`, `run_dir/rewardbench2.rs`).

use super::shown::Shown;
use crate::run::record::Rb2Run;
use crate::run::record::Run;
use anyhow::Result;
use serde_json::Value;
use std::io::Write;

impl Shown for Run {
    fn write_dir(&self) -> Result<()> {
        crate::report::calibrate::run_dir::write(self)
    }
    fn write_terminal(&self, w: &mut dyn Write, details: bool) -> Result<()> {
        crate::report::calibrate::write_terminal(self, w, details)
    }
    fn to_json(&self) -> Value {
        crate::report::calibrate::document::to_json(self)
    }
}

impl Shown for Rb2Run {
    fn write_dir(&self) -> Result<()> {
        crate::report::calibrate::run_dir::rewardbench2::write(self)
    }
    fn write_terminal(&self, w: &mut dyn Write, details: bool) -> Result<()> {
        crate::report::calibrate::rewardbench2::write_terminal(self, w, details)
    }
    fn to_json(&self) -> Value {
        crate::report::calibrate::rewardbench2::to_json(self)
    }
}
