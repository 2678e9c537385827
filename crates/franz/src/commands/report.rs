//! `franz report RUN_DIR [-o FILE.html]`: one self-contained HTML file for a run, built by
//! `franz_core::report` from what `runlog::read_run` can read (a running or crashed run too).

use super::{Exit, exit};
use crate::cli::ReportArgs;
use anyhow::Context as _;
use franz_core::report;
use franz_core::runlog::{self, RunLogError};
use std::process::ExitCode;

pub fn run(args: &ReportArgs) -> anyhow::Result<ExitCode> {
    let out = args
        .output
        .clone()
        .unwrap_or_else(|| args.run_dir.join("report.html"));
    let t = write_report(&args.run_dir, &out)?;
    println!(
        "{}: {} turns, {} actions, {} errors",
        out.display(),
        t.turns,
        t.actions,
        t.errors
    );
    Ok(ExitCode::SUCCESS)
}

/// Reads a run directory and writes its report; returns the totals.
pub fn write_report(
    run_dir: &std::path::Path,
    out: &std::path::Path,
) -> anyhow::Result<report::Totals> {
    let log = runlog::read_run(run_dir).map_err(|e| match e {
        RunLogError::NotARun(_) => anyhow::Error::new(Exit(exit::USAGE, e.to_string())),
        e => anyhow::Error::new(e),
    })?;
    for w in &log.warnings {
        eprintln!("franz: warning: {w}");
    }
    let html = report::build(&log);
    std::fs::write(out, html).with_context(|| format!("cannot write {}", out.display()))?;
    Ok(report::Totals::of(&log))
}
