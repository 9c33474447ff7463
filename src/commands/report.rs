//! `raterlab report DIR`: re-evaluate and re-render a finished run, whatever its form; no
//! judge is called.

use crate::run::read;
use crate::run::settings::ReportSettings;
use anyhow::Result;

/// `raterlab report DIR`: the run read back and evaluated, its directory written again, the
/// terminal or the JSON document.
pub fn report(args: &ReportSettings) -> Result<()> {
    let run = run(args)?;
    run.write_dir()?;
    crate::report::calibrate::emit(&run, args.json, args.details)
}

/// The run of DIR, evaluated again by its form (`calibrate::forms::Saved`).
pub fn run(args: &ReportSettings) -> Result<crate::run::record::Run> {
    super::calibrate::forms::saved(read::run_file(&args.dir)?).reread(args)
}
