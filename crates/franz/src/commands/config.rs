//! `franz config`: the effective configuration and where each value came from, without
//! running anything; with `--markdown`, docs/config.md.

use crate::cli::{ConfigArgs, GlobalArgs};
use crate::settings::resolve_run;
use std::process::ExitCode;

/// `franz config`.
pub fn run(g: &GlobalArgs, a: &ConfigArgs) -> anyhow::Result<ExitCode> {
    if a.markdown {
        print!("{}", franz_core::config::markdown());
        return Ok(ExitCode::SUCCESS);
    }
    let (effective, _) = resolve_run(g, &a.run)?;
    print!("{}", effective.explain());
    Ok(ExitCode::SUCCESS)
}
