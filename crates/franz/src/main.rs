//! The `franz` binary: parses the command line, runs one command, maps errors to the exit
//! codes of docs/events.md and prints them cleanly.

// Functions do one thing: none is over 80 lines (crates/core/tests/function_length.rs).
#![deny(clippy::too_many_lines)]

mod approve;
mod assemble;
mod cli;
mod click_grid;
mod commands;
mod exit;
mod flags;
mod input_commands;
mod panel;
mod printer;
mod profiles;
mod progress;
mod report_file;
mod session_clients;
mod settings;
mod setup;
mod stats;
mod terminal;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    // Physical pixels everywhere (Windows' DPI awareness): before any window, monitor or
    // coordinate is looked at.
    franz_desktop::prepare_process();
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            // clap exits 0 for --help/--version, 2 for usage errors, as docs/events.md says.
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    init_tracing();
    setup::install_interrupt_handler();
    match commands::run(cli) {
        Ok(code) => code,
        // the reader of our output went away (`franz config | head -1`): that is success
        Err(err) if terminal::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            terminal::errln!("franz: error: {err}");
            for cause in err.chain().skip(1) {
                terminal::errln!("  caused by: {cause}");
            }
            ExitCode::from(exit::exit_code_of(&err))
        }
    }
}

/// Logs go to stderr, filtered by `FRANZ_LOG` (e.g. `FRANZ_LOG=debug`; warnings by default),
/// and to each run directory's `franz.log` at info level (`franz_core::runlog::trace`).
fn init_tracing() {
    use tracing_subscriber::Layer as _;
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    let filter = tracing_subscriber::EnvFilter::try_from_env("FRANZ_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,enigo=error"));
    let stderr = tracing_subscriber::fmt::layer()
        .with_ansi(progress::colour_on_stderr())
        .with_writer(std::io::stderr)
        .with_filter(filter);
    let _ = tracing_subscriber::registry()
        .with(stderr)
        .with(franz_core::runlog::trace::layer())
        .try_init();
}
