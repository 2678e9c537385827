//! The `franz` binary: parses the command line, runs one command, maps errors to the exit
//! codes of CONTRACTS.md and prints them cleanly.

mod cli;
mod commands;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            // clap exits 0 for --help/--version, 2 for usage errors, as CONTRACTS.md wants.
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match commands::run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("franz: error: {err}");
            for cause in err.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            ExitCode::from(commands::exit_code_of(&err))
        }
    }
}
