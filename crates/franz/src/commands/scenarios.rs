//! `franz scenarios [DIR]`: lists the scenarios in a folder.

use crate::cli::ScenariosArgs;
use crate::terminal::outln;
use franz_core::config::Config;
use franz_core::scenario::Scenario;
use std::process::ExitCode;

pub fn run(args: &ScenariosArgs) -> anyhow::Result<ExitCode> {
    let list = Scenario::list(&args.dir)
        .map_err(|e| crate::exit::Exit(crate::exit::USAGE, e.to_string()))?;
    for item in list {
        match item {
            Ok(s) => {
                let strategy = s
                    .config
                    .get("strategy")
                    .and_then(|v| v.as_str())
                    .unwrap_or(Config::defaults().strategy.as_str());
                outln!("{:<22} {:<10} {}", s.name, strategy, s.path.display())?;
                if !s.description.is_empty() {
                    outln!("{:<22} {}", "", s.description)?;
                }
            }
            Err(e) => outln!("(unreadable) {e}")?,
        }
    }
    Ok(ExitCode::SUCCESS)
}
