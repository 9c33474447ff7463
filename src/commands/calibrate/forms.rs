//! The commands' side of the forms' seam. The loader chooses the form (`run::data::Rows`, and
//! `run::file::RunFile` for a run directory); this file alone turns its choice into what the
//! commands ask of any form ([`Loaded`], [`Saved`]), each answered by the form's own file
//! (`pairs.rs`, `rewardbench2.rs`). `calibrate`, `report DIR` and `data summary` name no form.

use crate::report::calibrate::Shown;
use crate::run::data::{Dataset, Rb2Set, Rows};
use crate::run::file::{PairsRunFile, Rb2RunFile, RunFile};
use crate::run::record::Made;
use crate::run::settings::{CalibrateSettings, ReportSettings};
use anyhow::Result;

/// A form's run: what it says of itself and what it shows.
pub trait Calibration: Made + Shown {
    /// The run as it shows itself.
    fn shown(&self) -> &dyn Shown;
    /// The run as it says of itself.
    fn made(&self) -> &dyn Made;
}

impl<T: Made + Shown> Calibration for T {
    fn shown(&self) -> &dyn Shown {
        self
    }
    fn made(&self) -> &dyn Made {
        self
    }
}

/// What `calibrate` or `report DIR` made, whatever the form.
pub type Calibrated = Box<dyn Calibration>;

/// Data of one form, as the commands use it.
pub trait Loaded {
    /// `calibrate` over it.
    fn calibrate(self: Box<Self>, args: &CalibrateSettings) -> Result<Calibrated>;
    /// `data summary` of it.
    fn summary(&self, bootstrap: usize) -> Result<()>;
}

/// The loaded data as a form.
pub fn loaded(rows: Rows) -> Box<dyn Loaded> {
    match rows {
        Rows::Pairs(dataset) => Box::new(dataset),
        Rows::RewardBench2(set) => Box::new(set),
    }
}

impl Loaded for Dataset {
    fn calibrate(self: Box<Self>, args: &CalibrateSettings) -> Result<Calibrated> {
        Ok(Box::new(super::pairs::run(args, *self)?))
    }
    fn summary(&self, bootstrap: usize) -> Result<()> {
        let annotators = crate::run::data::annotator_report(self, bootstrap);
        crate::report::data::emit_summary(self, annotators.as_ref())
    }
}

impl Loaded for Rb2Set {
    fn calibrate(self: Box<Self>, args: &CalibrateSettings) -> Result<Calibrated> {
        Ok(Box::new(super::rewardbench2::run(args, *self)?))
    }
    fn summary(&self, _bootstrap: usize) -> Result<()> {
        crate::report::data::emit_rewardbench2(self)
    }
}

/// A run directory's run file of one form, as `report DIR` uses it.
pub trait Saved {
    /// The run read back from its directory and evaluated again.
    fn reread(self: Box<Self>, args: &ReportSettings) -> Result<Calibrated>;
}

/// The read run file as a form's.
pub fn saved(file: RunFile) -> Box<dyn Saved> {
    match file {
        RunFile::Pairs(file) => Box::new(file),
        RunFile::RewardBench2(file) => Box::new(file),
    }
}

impl Saved for PairsRunFile {
    fn reread(self: Box<Self>, args: &ReportSettings) -> Result<Calibrated> {
        Ok(Box::new(super::pairs::reread(args, &self)?))
    }
}

impl Saved for Rb2RunFile {
    fn reread(self: Box<Self>, args: &ReportSettings) -> Result<Calibrated> {
        Ok(Box::new(super::rewardbench2::reread(args, *self)?))
    }
}
