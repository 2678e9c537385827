//! The checkers of a task (crates/core/src/bench_task/mod.rs, `Checker`), run after the franz
//! run ends. Each is retried for a short while: a program may still be writing its file or
//! closing its window when the run finishes.

use franz_core::bench_task::{Checker, Expect};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long a checker may take to hold.
const SETTLE: Duration = Duration::from_secs(3);

pub struct Context<'a> {
    pub display: &'a str,
    pub work: &'a Path,
    /// `${WORK}` and `${PAGES}` expanded.
    pub vars: &'a dyn Fn(&str) -> String,
}

/// The failures, one line each; empty when every checker holds.
pub fn run_all(checkers: &[Checker], ctx: &Context) -> Vec<String> {
    let deadline = Instant::now() + SETTLE;
    checkers
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            let mut last;
            loop {
                last = check(c, ctx);
                if last.is_ok() || Instant::now() >= deadline {
                    break;
                }
                std::thread::sleep(Duration::from_millis(150));
            }
            last.err().map(|e| format!("checker {i}: {e}"))
        })
        .collect()
}

fn expect(what: &str, value: &str, e: &Expect) -> Result<(), String> {
    if e.holds(value) {
        Ok(())
    } else {
        let mut shown: String = value.chars().take(120).collect();
        if shown.len() < value.len() {
            shown.push('…');
        }
        Err(format!("{what} is {shown:?}, expected {}", e.describe()))
    }
}

fn check(c: &Checker, ctx: &Context) -> Result<(), String> {
    match c {
        Checker::File { path, expect: e } => {
            let p = (ctx.vars)(path);
            let text = franz_core::files::read_settings(std::path::Path::new(&p))
                .map_err(|err| err.to_string())?;
            expect(&format!("file {p}"), &text, e)
        }
        Checker::Stdout { index, expect: e } => {
            let p = ctx.work.join(format!("setup_{index}.out"));
            let text = franz_core::files::read_settings(&p).unwrap_or_default();
            expect(&format!("the output of setup command {index}"), &text, e)
        }
        Checker::Window {
            class,
            title,
            present,
        } => {
            let windows = franz_desktop::top_windows(ctx.display).map_err(|e| e.to_string())?;
            let found = windows
                .iter()
                .any(|w| w.matches(class.as_deref(), title.as_deref()));
            let what = format!(
                "a window{}{}",
                class
                    .as_ref()
                    .map(|c| format!(" of class {c:?}"))
                    .unwrap_or_default(),
                title
                    .as_ref()
                    .map(|t| format!(" titled {t:?}"))
                    .unwrap_or_default()
            );
            match (found, *present) {
                (true, true) | (false, false) => Ok(()),
                (false, true) => Err(format!("{what} is not on screen")),
                (true, false) => Err(format!("{what} is still on screen")),
            }
        }
        Checker::Posted { field, expect: e } => {
            let form = super::pages::last_form(&ctx.work.join(super::pages::POSTED_FILE))
                .ok_or_else(|| "the page posted nothing back".to_string())?;
            let value = form
                .get(field)
                .ok_or_else(|| format!("the page's last post has no field {field:?}"))?;
            expect(&format!("posted field {field:?}"), value, e)
        }
        Checker::Command { run } => {
            let status = Command::new("sh")
                .arg("-c")
                .arg((ctx.vars)(run))
                .env("DISPLAY", ctx.display)
                .env("WORK", ctx.work)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .map_err(|e| format!("cannot run {run:?}: {e}"))?;
            if status.success() {
                Ok(())
            } else {
                Err(format!("command {run:?} exited with {status}"))
            }
        }
    }
}
