//! Progress of `franz bench tasks` on stderr (crate::progress): a line per finished task run
//! (task n of N, its verdict, successes so far, time left), and on a terminal a bar below them
//! that says the same and moves while a task runs. In a pipe only the lines, never an escape
//! code.

use crate::commands::bench::board::Row;
use crate::progress::clock;
use indicatif::ProgressBar;
use std::io::Write;
use std::time::Instant;

pub struct Progress {
    total: usize,
    done: usize,
    ok: usize,
    start: Instant,
    bar: Option<ProgressBar>,
}

impl Progress {
    pub fn new(total: usize) -> Progress {
        let bar = crate::progress::stderr_redraws().then(|| {
            crate::progress::bar(
                total as u64,
                "{bar} task {pos} of {len}, {elapsed} elapsed, {wide_msg}",
                "no result yet",
            )
        });
        Progress {
            total,
            done: 0,
            ok: 0,
            start: Instant::now(),
            bar,
        }
    }

    pub fn finished(&mut self, row: &Row) {
        self.done += 1;
        self.ok += usize::from(row.success);
        let line = crate::terminal::clean(&line(self.done, self.total, row)).into_owned();
        let tally = self.tally();
        match &self.bar {
            Some(bar) => {
                bar.suspend(|| {
                    let _ = writeln!(std::io::stderr().lock(), "{line}; {tally}");
                });
                bar.set_position(self.done as u64);
                bar.set_message(tally);
            }
            None => {
                let _ = writeln!(std::io::stderr().lock(), "{line}; {tally}");
            }
        }
    }

    /// Successes so far and the time the remaining runs should take at the pace so far.
    fn tally(&self) -> String {
        let left = self
            .start
            .elapsed()
            .div_f64(self.done.max(1) as f64)
            .saturating_mul(u32::try_from(self.total - self.done).unwrap_or(u32::MAX));
        format!(
            "{} of {} passed so far, {} left",
            self.ok,
            self.done,
            if self.done == self.total {
                "nothing".to_string()
            } else {
                format!("about {}", clock(left))
            }
        )
    }

    pub fn end(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.end();
    }
}

/// `task 3 of 10: TASK MODEL STRATEGY PROFILE: pass (12.3 s)` and the error, if any.
fn line(n: usize, total: usize, row: &Row) -> String {
    let error = if row.error.is_empty() {
        String::new()
    } else {
        format!(": {}", row.error)
    };
    let what = [&row.task, &row.model, &row.strategy, &row.profile]
        .into_iter()
        .filter(|s| !s.is_empty())
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(" ");
    format!(
        "task {n} of {total}: {what}: {} ({:.1} s){error}",
        if row.success { "pass" } else { "FAIL" },
        row.wall_s
    )
}
