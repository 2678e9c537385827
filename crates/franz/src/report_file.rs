//! Writing a run's HTML report, for `franz report` and `franz demo`.

use crate::exit::{self, Exit};
use crate::terminal::errln;
use anyhow::Context as _;
use franz_core::report;
use franz_core::runlog::{self, RunLogError};

/// Reads a run directory, printing its warnings; a directory that is not a run is a usage
/// error.
pub fn read_run(run_dir: &std::path::Path) -> anyhow::Result<runlog::RunLog> {
    let log = runlog::read_run(run_dir).map_err(|e| match e {
        RunLogError::NotARun(_) => anyhow::Error::new(Exit(exit::USAGE, e.to_string())),
        e => anyhow::Error::new(e),
    })?;
    for w in &log.warnings {
        errln!("franz: warning: {w}");
    }
    Ok(log)
}

/// Reads a run directory and writes its report; returns the totals.
pub fn write_report(
    run_dir: &std::path::Path,
    out: &std::path::Path,
) -> anyhow::Result<report::Totals> {
    let log = read_run(run_dir)?;
    let html = report::build(&log);
    std::fs::write(out, html).with_context(|| format!("cannot write {}", out.display()))?;
    Ok(report::Totals::of(&log))
}
