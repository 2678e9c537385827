//! One module per subcommand; `run` dispatches.

pub mod act;
mod bench;
pub mod bench_stop;
pub mod demo;
mod doctor;
mod parse;
mod replay;
pub mod report;
pub mod run;
mod scenarios;
mod screenshot;

use crate::cli::{Cli, Command};
use std::process::ExitCode;

/// Exit codes of docs/events.md.
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

/// The exit code for an error: its own if it carries one; 3 for a model server that stayed
/// unreachable after retries, 2 for a bad model URL; else 1.
pub fn exit_code_of(err: &anyhow::Error) -> u8 {
    use franz_core::model::ModelError;
    err.chain()
        .find_map(|e| {
            if let Some(x) = e.downcast_ref::<Exit>() {
                return Some(x.0);
            }
            e.downcast_ref::<ModelError>().map(|m| match m {
                m if m.is_unreachable() => exit::UNREACHABLE,
                ModelError::BadUrl { .. } => exit::USAGE,
                _ => exit::FAILED,
            })
        })
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
        Command::Parse(args) => parse::run(&cli.global, args),
    }
}
