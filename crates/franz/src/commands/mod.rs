//! One module per subcommand; `run` dispatches.

pub mod act;
mod bench;
pub mod demo;
mod doctor;
mod replay;
pub mod report;
pub mod run;
mod scenarios;
mod screenshot;

use crate::cli::{Cli, Command};
use std::process::ExitCode;

/// Exit codes of CONTRACTS.md.
#[allow(dead_code)]
pub mod exit {
    pub const DONE: u8 = 0;
    pub const FAILED: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const UNREACHABLE: u8 = 3;
    pub const SAFETY: u8 = 4;
    pub const INTERRUPTED: u8 = 130;
}

/// An error that carries its own exit code.
#[derive(Debug)]
pub struct Exit(pub u8, pub String);

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.1)
    }
}
impl std::error::Error for Exit {}

/// The exit code for an error: its own if it carries one, else 1.
pub fn exit_code_of(err: &anyhow::Error) -> u8 {
    err.chain()
        .find_map(|e| e.downcast_ref::<Exit>().map(|x| x.0))
        .unwrap_or(exit::FAILED)
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match &cli.command {
        Command::Screenshot(args) => screenshot::run(&cli.global, args),
        Command::Bench(cmd) => bench::run(&cli.global, cmd),
        Command::Report(args) => report::run(args),
        Command::Replay(args) => replay::run(&cli.global, args),
        Command::Act(args) => act::run(&cli.global, args),
        Command::Run(args) => run::run(&cli.global, args),
        Command::Config(args) => run::show_config(&cli.global, args),
        Command::Demo(args) => demo::run(&cli.global, args),
        Command::Doctor(args) => doctor::run(&cli.global, args),
        Command::Scenarios(args) => scenarios::run(args),
    }
}
