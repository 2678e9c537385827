//! The `franz` binary: parses the command line, runs one command, maps errors to the exit
//! codes of docs/events.md and prints them cleanly.

mod approve;
mod cli;
mod commands;
mod panel;
mod printer;
mod setup;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    // Physical pixels everywhere: before any window, monitor or coordinate is looked at.
    #[cfg(windows)]
    franz_desktop::win32::set_dpi_awareness();
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
        Err(err) => {
            eprintln!("franz: error: {err}");
            for cause in err.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            ExitCode::from(commands::exit_code_of(&err))
        }
    }
}

/// The run directory's `franz.log`, once a run has one.
static RUN_LOG: std::sync::Mutex<Option<franz_core::runlog::LogFile>> = std::sync::Mutex::new(None);

/// Sends the tracing output to a run's `franz.log` too (at info level and up).
pub fn set_run_log(log: franz_core::runlog::LogFile) {
    if let Ok(mut slot) = RUN_LOG.lock() {
        *slot = Some(log);
    }
}

/// Writes to the run log when there is one, else nowhere.
struct RunLogWriter;

impl std::io::Write for RunLogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match RUN_LOG.lock().ok().and_then(|g| g.clone()) {
            Some(mut f) => f.write(buf),
            None => Ok(buf.len()),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Logs go to stderr, filtered by `FRANZ_LOG` (e.g. `FRANZ_LOG=debug`; warnings by default),
/// and to the run directory's `franz.log` at info level.
fn init_tracing() {
    use tracing_subscriber::Layer as _;
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    let filter = tracing_subscriber::EnvFilter::try_from_env("FRANZ_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,enigo=error"));
    let stderr = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_filter(filter);
    let file = tracing_subscriber::fmt::layer()
        .with_ansi(false)
        .with_writer(|| RunLogWriter)
        .with_filter(tracing_subscriber::EnvFilter::new("info,enigo=error"));
    let _ = tracing_subscriber::registry()
        .with(stderr)
        .with(file)
        .try_init();
}
