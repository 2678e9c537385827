//! Progress for long work on stderr: `franz run` (turn n of the step limit, time elapsed) and
//! `franz bench tasks` (task n of N, successes so far, time left). On a terminal a bar
//! (indicatif) is drawn at the bottom and redrawn in place, with the command's own lines
//! printed above it; anywhere else (a pipe, a file, `TERM=dumb`) the same facts are plain
//! lines and no escape code is written. `NO_COLOR` (no-color.org) keeps the bar but drops its
//! colours.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal as _;
use std::time::Duration;

/// Whether stderr is a terminal that can redraw a line (`TERM=dumb` cannot).
pub fn stderr_redraws() -> bool {
    let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
    std::io::stderr().is_terminal() && !dumb
}

/// Colour codes only for a person at a terminal: never into a pipe or a file, and never with
/// `NO_COLOR` set to anything but the empty string (no-color.org).
pub fn colour_on_stderr() -> bool {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    !no_color && std::io::stderr().is_terminal()
}

/// A bar of `len` steps on stderr, drawn with `template` (indicatif's keys; `{bar}` is the
/// bar itself, coloured only when colours are on; `{wide_msg}` starts as `message`) and
/// redrawn every second, so that the elapsed time moves while a step takes long.
pub fn bar(len: u64, template: &str, message: &str) -> ProgressBar {
    let bar_key = if colour_on_stderr() {
        "{bar:24.cyan/blue}"
    } else {
        "{bar:24}"
    };
    let style = ProgressStyle::with_template(&template.replace("{bar}", bar_key))
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    bar.set_style(style);
    bar.set_message(message.to_string());
    bar.enable_steady_tick(Duration::from_secs(1));
    bar
}

/// A duration as `1h02m03s`, `2m03s` or `3s`.
pub fn clock(d: Duration) -> String {
    let s = d.as_secs_f64().round() as u64;
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m{s:02}s"),
        (h, m, s) => format!("{h}h{m:02}m{s:02}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_reads_like_a_person_writes_it() {
        assert_eq!(clock(Duration::from_millis(400)), "0s");
        assert_eq!(clock(Duration::from_secs(59)), "59s");
        assert_eq!(clock(Duration::from_secs(125)), "2m05s");
        assert_eq!(clock(Duration::from_secs(3723)), "1h02m03s");
    }

    #[test]
    fn a_bar_template_with_a_bad_key_still_makes_a_bar() {
        let b = bar(3, "{bar} {nonsense:}} {pos}", "");
        b.set_position(2);
        assert_eq!(b.position(), 2);
        b.finish_and_clear();
    }
}
