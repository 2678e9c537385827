//! Progress on the terminal: one updating line (done/total, successes, ETA) on a tty, one
//! plain line per finished task run otherwise.

use crate::commands::bench::board::Row;
use std::io::{IsTerminal, Write};
use std::time::Instant;

pub struct Progress {
    total: usize,
    done: usize,
    ok: usize,
    start: Instant,
    tty: bool,
}

impl Progress {
    pub fn new(total: usize) -> Progress {
        Progress {
            total,
            done: 0,
            ok: 0,
            start: Instant::now(),
            tty: std::io::stderr().is_terminal(),
        }
    }

    pub fn finished(&mut self, row: &Row) {
        self.done += 1;
        self.ok += row.success as usize;
        let elapsed = self.start.elapsed().as_secs_f64();
        let eta = elapsed / self.done as f64 * (self.total - self.done) as f64;
        let head = format!(
            "[{}/{}] {} ok, ETA {}",
            self.done,
            self.total,
            self.ok,
            clock(eta)
        );
        let mut err = std::io::stderr().lock();
        if self.tty {
            let last = crate::terminal::clean(&row.task);
            let _ = write!(err, "\r\x1b[2K{head}  last: {last} {}", mark(row));
        } else {
            let line = format!(
                "{head}  {} {} {} {}: {} ({:.1} s){}",
                row.task,
                row.model,
                row.strategy,
                row.profile,
                mark(row),
                row.wall_s,
                if row.error.is_empty() {
                    String::new()
                } else {
                    format!(": {}", row.error)
                }
            );
            let _ = writeln!(err, "{}", crate::terminal::clean(&line));
        }
        let _ = err.flush();
    }

    pub fn end(&mut self) {
        if self.tty && self.done > 0 {
            let _ = writeln!(std::io::stderr());
        }
    }
}

fn mark(row: &Row) -> &'static str {
    if row.success { "pass" } else { "FAIL" }
}

fn clock(s: f64) -> String {
    let s = s.round() as u64;
    format!("{}m{:02}s", s / 60, s % 60)
}
