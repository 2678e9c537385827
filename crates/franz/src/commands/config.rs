//! `franz config`: the effective configuration and where each value came from, without
//! running anything.

use crate::cli::{GlobalArgs, RunArgs};
use crate::settings::resolve;
use std::process::ExitCode;

/// `franz config`.
pub fn run(g: &GlobalArgs, a: &RunArgs) -> anyhow::Result<ExitCode> {
    let (effective, _) = resolve(g, a)?;
    print!("{}", effective.explain());
    Ok(ExitCode::SUCCESS)
}
