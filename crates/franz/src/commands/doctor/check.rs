//! One `franz doctor` check's outcome and how it prints: `ok`, `warn` (passes, with something
//! to look at) or `FAIL`, each with its fix.

use crate::terminal::outln;

/// One check's outcome.
pub(super) struct Check {
    pub(super) name: &'static str,
    pub(super) ok: bool,
    /// Passed, with something to look at (it does not fail doctor).
    warn: bool,
    detail: String,
    /// What to do about a failure or a warning.
    fix: String,
}

impl Check {
    pub(super) fn pass(name: &'static str, detail: impl Into<String>) -> Check {
        Check {
            name,
            ok: true,
            warn: false,
            detail: detail.into(),
            fix: String::new(),
        }
    }
    pub(super) fn warn(
        name: &'static str,
        detail: impl Into<String>,
        fix: impl Into<String>,
    ) -> Check {
        Check {
            name,
            ok: true,
            warn: true,
            detail: detail.into(),
            fix: fix.into(),
        }
    }
    pub(super) fn fail(
        name: &'static str,
        detail: impl Into<String>,
        fix: impl Into<String>,
    ) -> Check {
        Check {
            name,
            ok: false,
            warn: false,
            detail: detail.into(),
            fix: fix.into(),
        }
    }
    pub(super) fn print(&self) -> std::io::Result<()> {
        let mark = match (self.ok, self.warn) {
            (false, _) => "FAIL",
            (true, true) => "warn",
            (true, false) => "ok  ",
        };
        outln!("{mark} {}: {}", self.name, self.detail)?;
        if !self.ok || self.warn {
            outln!("     fix: {}", self.fix)?;
        }
        Ok(())
    }
}
