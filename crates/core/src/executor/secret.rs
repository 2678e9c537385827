//! Secret text: `{secret:NAME}` in a `type` action's text is replaced by the environment
//! variable `NAME` at the moment it is typed, and nowhere else: the action, its events, the
//! run directory and the exchange log keep the placeholder, so the value is written nowhere.
//!
//! Only declared secrets are typed: a name listed in the `secrets` setting, or one that starts
//! with `FRANZ_SECRET_`. Any other name (`FRANZ_API_KEY`, `HOME`, ...) is refused and nothing
//! of the text is typed, so a model cannot read the environment by typing it on screen. A
//! typed secret is on screen, and so in the next screenshot, unless the field masks it or
//! `mask_regions` covers it.

use crate::action::{ActionError, ErrorKind};
use std::borrow::Cow;

const OPEN: &str = "{secret:";

/// Names with this prefix are secrets without being listed.
pub const PREFIX: &str = "FRANZ_SECRET_";

/// The text with every `{secret:NAME}` replaced by `$NAME`; a name that is not declared
/// (`declared`, or the prefix) or not set is an error that names it (never the value).
pub fn resolve<'a>(text: &'a str, declared: &[String]) -> Result<Cow<'a, str>, ActionError> {
    resolve_with(text, |name| {
        let allowed = name.starts_with(PREFIX) || declared.iter().any(|d| d == name);
        allowed.then(|| std::env::var(name).ok())
    })
}

/// `lookup`: `None` when the name is not declared, `Some(None)` when it is but is not set.
fn resolve_with(
    text: &str,
    lookup: impl Fn(&str) -> Option<Option<String>>,
) -> Result<Cow<'_, str>, ActionError> {
    if !text.contains(OPEN) {
        return Ok(Cow::Borrowed(text));
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(OPEN) {
        out.push_str(&rest[..i]);
        let after = &rest[i + OPEN.len()..];
        let Some(end) = after.find('}') else {
            return Err(ActionError::new(
                ErrorKind::InvalidValue,
                "type: {secret:NAME} is not closed: write {secret:NAME} with the closing brace",
            ));
        };
        let name = &after[..end];
        let value = match lookup(name) {
            Some(Some(value)) => value,
            None => {
                return Err(ActionError::new(
                    ErrorKind::InvalidValue,
                    format!(
                        "type: {{secret:{name}}} is not a declared secret, so nothing was typed: only the secrets the user declared (the secrets setting, or variables named {PREFIX}*) can be typed"
                    ),
                ));
            }
            Some(None) => {
                return Err(ActionError::new(
                    ErrorKind::InvalidValue,
                    format!(
                        "type: the secret {name:?} is not set, so nothing was typed: set the environment variable {name} where franz runs"
                    ),
                ));
            }
        };
        out.push_str(&value);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(Cow::Owned(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_replaced_and_unset_names_are_errors() {
        let look = |n: &str| Some((n == "PW").then(|| "hunter2".to_string()));
        assert_eq!(resolve_with("plain", look).unwrap(), "plain");
        assert_eq!(
            resolve_with("u {secret:PW} and {secret:PW}!", look).unwrap(),
            "u hunter2 and hunter2!"
        );
        let e = resolve_with("{secret:NOPE}", look).unwrap_err();
        assert!(e.message.contains("NOPE") && !e.message.contains("hunter2"));
        assert!(resolve_with("{secret:PW", look).is_err());
    }

    #[test]
    fn only_declared_names_and_the_prefix_are_read() {
        // SAFETY: this test alone sets these variables
        unsafe {
            std::env::set_var("FRANZ_SECRET_H28_PIN", "4321");
            std::env::set_var("H28_LISTED", "listed");
            std::env::set_var("H28_OTHER", "other");
        }
        let declared = vec!["H28_LISTED".to_string()];
        let r = resolve(
            "{secret:FRANZ_SECRET_H28_PIN}/{secret:H28_LISTED}",
            &declared,
        );
        assert_eq!(r.unwrap(), "4321/listed");
        for name in ["H28_OTHER", "FRANZ_API_KEY", "HOME", "PATH"] {
            let e = resolve(&format!("x {{secret:{name}}}"), &declared).unwrap_err();
            assert!(e.message.contains("not a declared secret"), "{e:?}");
            assert!(!e.message.contains("other"), "{e:?}");
        }
    }
}
