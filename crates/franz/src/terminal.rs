//! What franz prints to a terminal. Text from a model, a server, a file or a client is shown
//! with its control characters escaped ([`clean`]): a reply cannot write the user's clipboard
//! (OSC 52), retitle the terminal (OSC 0), move the cursor, rewrite a line or hide text.
//! franz's own colour codes are added after cleaning, and only on a terminal.
//!
//! Lines for stdout go through [`outln!`], which cleans them and returns the write's error:
//! a command passes it up with `?`, and `main` ends quietly with success when the reader went
//! away (`franz config | head -1`), as ripgrep does.

use std::borrow::Cow;
use std::io::Write;

/// Whether `c` can steer a terminal: C0 controls but tab and newline, DEL, C1 controls, and
/// the bidirectional overrides and isolates that reorder what is shown.
fn steers(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `s` with every character that can steer a terminal written as an escape (`\x1b`,
/// `\u{9d}`): what it says stays readable, and nothing in it acts on the terminal.
pub fn clean(s: &str) -> Cow<'_, str> {
    if !s.chars().any(steers) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            c if !steers(c) => out.push(c),
            c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    Cow::Owned(out)
}

/// Writes `text`, cleaned, to stdout (no newline added).
pub fn print_out(text: &str) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(clean(text).as_bytes())?;
    stdout.flush()
}

/// Writes `text`, cleaned, and a newline to stdout.
pub fn print_out_line(text: &str) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(clean(text).as_bytes())?;
    stdout.write_all(b"\n")?;
    stdout.flush()
}

/// Writes `text`, cleaned, to stderr (a prompt: no newline added); a closed stderr is ignored
/// (nobody is left to tell).
pub fn print_err(text: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr
        .write_all(clean(text).as_bytes())
        .and_then(|()| stderr.flush());
}

/// Writes `text`, cleaned, and a newline to stderr; a closed stderr is ignored.
pub fn print_err_line(text: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr
        .write_all(clean(text).as_bytes())
        .and_then(|()| stderr.write_all(b"\n"));
}

/// Whether `err` is, or was caused by, a write to a pipe whose reader went away.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// `println!` for stdout, cleaned; returns the write's `io::Result` for `?`.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::terminal::print_out_line(&format!($($arg)*))
    };
}

/// `print!` for stdout, cleaned; returns the write's `io::Result` for `?`.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::terminal::print_out(&format!($($arg)*))
    };
}

/// `eprintln!`, cleaned; a closed stderr is ignored.
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::terminal::print_err_line(&format!($($arg)*))
    };
}

/// `eprint!`, cleaned (a prompt); a closed stderr is ignored.
macro_rules! errs {
    ($($arg:tt)*) => {
        $crate::terminal::print_err(&format!($($arg)*))
    };
}

pub(crate) use {errln, errs, out, outln};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_are_shown_not_obeyed() {
        let osc52 = "copied \x1b]52;c;cm0gLXJmIH4=\x07 and \x1b]0;pwned\x1b\\ \u{9d}0;x\u{9c}";
        let shown = clean(osc52);
        assert!(!shown.chars().any(steers), "{shown:?}");
        assert_eq!(
            shown,
            "copied \\x1b]52;c;cm0gLXJmIH4=\\x07 and \\x1b]0;pwned\\x1b\\ \\u{9d}0;x\\u{9c}"
        );
        assert_eq!(clean("a\rb\u{8}c\u{202e}d"), "a\\x0db\\x08c\\u{202e}d");
        assert!(matches!(clean("plain\ttext\nlines ü"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_broken_pipe_is_found_down_the_chain() {
        let pipe = std::io::Error::from(std::io::ErrorKind::BrokenPipe);
        let err = anyhow::Error::from(pipe).context("cannot print");
        assert!(is_broken_pipe(&err));
        assert!(!is_broken_pipe(&anyhow::anyhow!("other")));
    }
}
