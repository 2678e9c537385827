//! What the commands that act share (`franz act`, `franz replay --execute`, `franz bench
//! act`): their configuration and the executor built from it.

use crate::cli::GlobalArgs;
use crate::exit::{self, Exit};
use crate::flags::Given;
use crate::settings::resolve;
use crate::setup;
use franz_core::agent::{Agent, AgentBuilder};
use franz_core::config::Settings;
use franz_core::executor::{ExecError, Executor};

/// The configuration a command that acts resolves, the same way `franz run` does (flags >
/// environment > config file > defaults), so `dry_run`, `crop`, `motion` and `failsafe` apply
/// to it as they do to a run. `given` are the command's own setting flags.
pub fn config(g: &GlobalArgs, given: &[Given]) -> anyhow::Result<Settings> {
    crate::settings::typed(resolve(g, given, None)?.0)
}

/// [`config`] for a command whose result is what its input did (`franz calibrate`, `franz
/// bench act`, `franz bench turn`): a dry run sends no input, so it is refused with a usage
/// error that says why (`what` is what the command measures) and where `dry_run` came from.
pub fn config_that_acts(
    g: &GlobalArgs,
    given: &[Given],
    command: &str,
    what: &str,
) -> anyhow::Result<Settings> {
    let (effective, _) = resolve(g, given, None)?;
    refuse_dry_run(&effective, command, what)?;
    crate::settings::typed(effective)
}

/// A usage error when `effective` is a dry run: `franz COMMAND` measures `what`, which a dry
/// run never sends.
pub fn refuse_dry_run(
    effective: &franz_core::config::Effective,
    command: &str,
    what: &str,
) -> anyhow::Result<()> {
    if !effective.config.dry_run {
        return Ok(());
    }
    let from = effective
        .values
        .get("dry_run")
        .map(|r| r.source.to_string())
        .unwrap_or_else(|| "the configuration".into());
    Err(exit::usage(format!(
        "franz {command} cannot run dry: it {what}, and a dry run sends no input (dry_run is on from {from}); drop it"
    )))
}

/// The core's builder of the parts that act ([`Agent::acting`]) with what a command line adds:
/// every action given is performed (a command line is not a model turn: no per-turn cap),
/// Ctrl+C stops it, and a `confirm` rule asks at the terminal.
pub fn agent(s: &Settings) -> AgentBuilder {
    Agent::acting(s)
        .executor(|e| e.max_actions_per_turn = usize::MAX)
        .cancel(setup::interrupt_flag())
        .confirmer(Box::new(crate::approve::confirm))
}

/// The executor of a command line ([`agent`]) on the desktop's monitor; a working area the
/// screen cannot hold is a usage error.
pub fn executor(s: &Settings, desktop_rect: franz_desktop::PixelRect) -> anyhow::Result<Executor> {
    agent(s)
        .build_executor(desktop_rect)
        .map_err(|e| Exit(exit::USAGE, e.to_string()).into())
}

/// Prints one JSON result line on stdout, flushed at once.
pub fn print_line(line: &serde_json::Value) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    // A closed pipe is not an error of ours.
    let _ = writeln!(out, "{line}").and_then(|()| out.flush());
}

pub fn fatal(e: ExecError) -> anyhow::Error {
    match e {
        ExecError::Failsafe(t) => Exit(exit::SAFETY, t.to_string()).into(),
        e @ ExecError::Policy { .. } => Exit(exit::SAFETY, e.to_string()).into(),
        other => anyhow::Error::new(other),
    }
}
