//! `franz config`: the effective configuration and where each value came from, without
//! running anything; with `--markdown`, docs/config.md.

use crate::cli::{ConfigArgs, GlobalArgs};
use crate::settings::resolve_run;
use crate::terminal::{out, outln};
use std::process::ExitCode;

/// `franz config`.
pub fn run(g: &GlobalArgs, a: &ConfigArgs) -> anyhow::Result<ExitCode> {
    if a.markdown {
        out!("{}", franz_core::config::markdown())?;
        return Ok(ExitCode::SUCCESS);
    }
    let (effective, _) = resolve_run(g, &a.run)?;
    out!("{}", effective.explain())?;
    // the sandbox's window manager is a global flag, not a setting: said here as one
    let wanted_by = crate::setup::wm_wanted_by(&effective.config);
    let (on, why) = crate::setup::wm_choice(g, wanted_by.as_deref());
    outln!("wm = {on}  # {why}: an EWMH window manager (openbox, ...) on the sandbox")?;
    Ok(ExitCode::SUCCESS)
}
