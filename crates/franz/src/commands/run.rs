//! `franz run`: resolves the configuration (flags > environment > scenario > config file >
//! defaults), opens the desktop, and runs the engine with the chosen strategy (`session_clients`).

use crate::cli::{GlobalArgs, RunArgs};
use crate::exit::usage;
use crate::session_clients::run_engine;
use crate::settings::resolve_run;
use crate::setup;
use crate::terminal::{errln, errs};
use anyhow::Context;
use std::io::IsTerminal;
use std::process::ExitCode;

fn ask_for_task() -> anyhow::Result<String> {
    if !std::io::stdin().is_terminal() {
        return Err(usage(
            "no task: give one (franz run \"open the calculator\") or pass --scenario FILE.toml",
        ));
    }
    errs!("What should franz do? ");
    let mut line = String::new();
    std::io::stdin()
        .read_line(&mut line)
        .context("cannot read the task")?;
    let task = line.trim().to_string();
    if task.is_empty() {
        return Err(usage("no task given"));
    }
    Ok(task)
}

pub fn run(g: &GlobalArgs, a: &RunArgs) -> anyhow::Result<ExitCode> {
    let (effective, scenario) = resolve_run(g, a)?;
    let task = match (&a.task, &scenario) {
        (Some(t), _) => t.clone(),
        (None, Some(s)) => s.task.clone(),
        (None, None) => ask_for_task()?,
    };
    let mut global = g.clone();
    if let Some(s) = &scenario {
        global.launch.extend(s.setup.iter().cloned());
    }
    let global = setup::with_default_wm(&global, setup::wm_wanted_by(&effective.config).as_deref());
    let session = setup::open_desktop(&global)?;
    let (summary, _sandbox) = run_engine(session, &effective, task, a)?;
    if summary.outcome == franz_core::event::Outcome::Unreachable {
        errln!(
            "franz: start your model server or pass --api-url (tried {})",
            effective.config.api_url
        );
    }
    Ok(ExitCode::from(summary.exit_code()))
}
