//! One module per subcommand; `run` dispatches. A command imports shared modules (`exit`,
//! `settings`, `setup`, `input_commands`, `session_clients`, `report_file`, `click_grid`,
//! `stats`), never another command (`tests/module_cycles.rs`).

mod act;
mod bench;
mod calibrate;
mod config;
mod demo;
mod doctor;
mod elements;
mod export;
mod mcp;
mod parse;
mod policy;
mod profiles;
mod replay;
mod report;
mod run;
mod scenarios;
mod screenshot;

use crate::cli::{Cli, Command};
use std::process::ExitCode;

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    refuse_unused_globals(&cli)?;
    match &cli.command {
        Command::Screenshot(args) => screenshot::run(&cli.global, args),
        Command::Bench(cmd) => bench::run(&cli.global, cmd),
        Command::Report(args) => report::run(args),
        Command::Replay(args) => replay::run(&cli.global, args),
        Command::Act(args) => act::run(&cli.global, args),
        Command::Run(args) => run::run(&cli.global, args),
        Command::Config(args) => config::run(&cli.global, args),
        Command::Demo(args) => demo::run(&cli.global, args),
        Command::Doctor(args) => doctor::run(&cli.global, args),
        Command::Scenarios(args) => scenarios::run(args),
        Command::Parse(args) => parse::run(&cli.global, args),
        Command::Export(args) => export::run(args),
        Command::Profiles(args) => profiles::run(&cli.global, args),
        Command::Policy(cmd) => policy::run(&cli.global, cmd),
        Command::Calibrate(args) => calibrate::run(&cli.global, args),
        Command::Mcp(args) => mcp::run(&cli.global, args),
        Command::Elements(args) => elements::run(&cli.global, args),
    }
}

/// `report`, `scenarios` and `replay` without `--execute` read files only: a desktop or
/// configuration flag given to them would be silently ignored, so it is a usage error.
fn refuse_unused_globals(cli: &Cli) -> anyhow::Result<()> {
    let name = match &cli.command {
        Command::Report(_) => "report",
        Command::Scenarios(_) => "scenarios",
        Command::Export(_) => "export",
        Command::Replay(a) if !a.execute => "replay (without --execute)",
        _ => return Ok(()),
    };
    let g = &cli.global;
    let mut given: Vec<String> = g.settings.given.iter().map(|x| x.flag.clone()).collect();
    let desktop = [
        (g.config.is_some(), "--config"),
        (g.policy.is_some(), "--policy"),
        (g.sandbox.is_some(), "--sandbox"),
        (!g.launch.is_empty(), "--launch"),
        (g.monitor.is_some(), "--monitor"),
        (g.wm, "--wm"),
        (g.no_wm, "--no-wm"),
    ];
    given.extend(
        desktop
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, f)| f.to_string()),
    );
    if given.is_empty() {
        return Ok(());
    }
    Err(crate::exit::usage(format!(
        "franz {name} does not use {}: it only reads files; drop it",
        given.join(", ")
    )))
}
