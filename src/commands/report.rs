//! `raterlab report DIR`: re-evaluate and re-render a finished run, whatever its form; no
//! judge is called.

use crate::run::settings::ReportSettings;
use anyhow::Result;

/// `raterlab report DIR`: the run read back and evaluated, its directory written again, the
/// terminal or the JSON document.
pub fn report(args: &ReportSettings) -> Result<()> {
    let run = run(args)?;
    run.write_dir()?;
    crate::report::calibrate::emit(&run, args.json, args.details)
}

/// The run of DIR, of either form, read back and evaluated again.
pub fn run(args: &ReportSettings) -> Result<crate::run::record::Run> {
    crate::run::evaluated::reread(args)
}
