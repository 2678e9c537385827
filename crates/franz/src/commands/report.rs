//! `franz report RUN_DIR [-o FILE.html]`: one self-contained HTML file for a run, built by
//! `franz_core::report` from what `runlog::read_run` can read (a running or crashed run too).

use crate::cli::ReportArgs;
use crate::report_file::write_report;
use crate::terminal::outln;
use std::process::ExitCode;

pub fn run(args: &ReportArgs) -> anyhow::Result<ExitCode> {
    let out = args
        .output
        .clone()
        .unwrap_or_else(|| args.run_dir.join("report.html"));
    let t = write_report(&args.run_dir, &out)?;
    outln!(
        "{}: {} turns, {} actions, {} errors",
        out.display(),
        t.turns,
        t.actions,
        t.errors
    )?;
    Ok(ExitCode::SUCCESS)
}
