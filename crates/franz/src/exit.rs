//! Exit codes (docs/events.md) and the error that carries one; every command returns its
//! failures through these.

/// Exit codes of docs/events.md.
#[allow(dead_code)]
pub const DONE: u8 = 0;
pub const FAILED: u8 = 1;
pub const USAGE: u8 = 2;
pub const UNREACHABLE: u8 = 3;
pub const SAFETY: u8 = 4;
pub const INTERRUPTED: u8 = 130;

/// An error that carries its own exit code.
#[derive(Debug)]
pub struct Exit(pub u8, pub String);

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.1)
    }
}
impl std::error::Error for Exit {}

/// A usage error (exit 2) that says what to do.
pub fn usage(msg: impl Into<String>) -> anyhow::Error {
    Exit(USAGE, msg.into()).into()
}

/// The exit code for an error: its own if it carries one; 3 for a model server that stayed
/// unreachable after retries, 2 for a bad model URL; else 1.
pub fn exit_code_of(err: &anyhow::Error) -> u8 {
    use franz_core::model::ModelError;
    err.chain()
        .find_map(|e| {
            if let Some(x) = e.downcast_ref::<Exit>() {
                return Some(x.0);
            }
            e.downcast_ref::<ModelError>().map(|m| match m {
                m if m.is_unreachable() => UNREACHABLE,
                ModelError::BadUrl { .. } | ModelError::BadHeader { .. } => USAGE,
                _ => FAILED,
            })
        })
        .unwrap_or(FAILED)
}
