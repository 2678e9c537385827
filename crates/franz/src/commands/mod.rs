//! One module per subcommand; `run` dispatches. A command imports shared modules (`exit`,
//! `settings`, `setup`, `acting`, `runner`, `reporting`, `stats`), never another command
//! (`tests/module_cycles.rs`).

mod act;
mod bench;
mod config;
mod demo;
mod doctor;
mod parse;
mod replay;
mod report;
mod run;
mod scenarios;
mod screenshot;

use crate::cli::{Cli, Command};
use std::process::ExitCode;

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
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
    }
}
