//! Durations as the dialects give them: a number of seconds, or a string holding one. A value
//! given that is not a finite number (`wait(NaN)`, `"Infinity"`, `"soon"`) is an error sent
//! back to the model, never a default wait; a missing one is the dialect's default. The range
//! (0 to `MAX_WAIT_SECONDS`) is the action's own check (docs/actions.md).

use super::coords::{Ctx, number};
use crate::action::MAX_WAIT_SECONDS;
use serde_json::Value;

impl Ctx<'_> {
    /// The seconds `given` says, `default` when nothing is given; `None` (with an error) when
    /// it is not a finite number.
    pub fn seconds(&mut self, what: &str, given: Option<&Value>, default: f64) -> Option<f64> {
        let Some(v) = given.filter(|v| !v.is_null()) else {
            return Some(default);
        };
        match number(v) {
            Some(s) => Some(s),
            None => self.fail(format!(
                "{what}: {} is not a number of seconds; give 0 to {MAX_WAIT_SECONDS}",
                crate::model::body::snippet(&v.to_string())
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::action::ActionKind;
    use crate::parser::{Dialect, ParseOptions, parse_text};

    /// The actions and errors of `reply` in `dialect`.
    fn read(reply: &str, dialect: Dialect) -> (Vec<ActionKind>, Vec<String>) {
        let opts = ParseOptions {
            dialect: Some(dialect),
            ..ParseOptions::default()
        };
        let p = parse_text(reply, &opts);
        (p.actions.into_iter().map(|a| a.kind).collect(), p.errors)
    }

    #[test]
    fn a_wait_of_nan_or_infinity_is_an_error_in_every_dialect_not_one_second() {
        for (reply, dialect) in [
            ("wait(NaN)", Dialect::Calls),
            ("wait(\"Infinity\")", Dialect::Calls),
            (
                "{\"actions\": [{\"name\": \"wait\", \"seconds\": \"NaN\"}]}",
                Dialect::Json,
            ),
            (
                "<tool_call>{\"name\": \"computer_use\", \"arguments\": {\"action\": \"wait\", \"time\": \"Infinity\"}}</tool_call>",
                Dialect::Qwen,
            ),
            (
                "<tool_call>{\"name\": \"computer_use\", \"arguments\": {\"action\": \"long_press\", \"coordinate\": [5, 5], \"time\": \"nan\"}}</tool_call>",
                Dialect::Qwen,
            ),
            (
                "{\"action\": \"wait\", \"duration\": \"-inf\"}",
                Dialect::Anthropic,
            ),
            (
                "{\"type\": \"wait\", \"seconds\": \"soon\"}",
                Dialect::Openai,
            ),
        ] {
            let (actions, errors) = read(reply, dialect);
            assert!(actions.is_empty(), "{dialect} {reply}: {actions:?}");
            assert!(
                // a bare NaN reads as a name (an echoed placeholder) in the calls dialect:
                // refused either way, never a second's wait
                errors
                    .iter()
                    .any(|e| e.contains("is not a number of seconds")
                        || e.contains("is a name, not a value")),
                "{dialect} {reply}: {errors:?}"
            );
        }
        // given nothing, the dialect's default
        let (actions, errors) = read("wait()", Dialect::Calls);
        assert_eq!(
            actions,
            vec![ActionKind::Wait { seconds: 1.0 }],
            "{errors:?}"
        );
    }
}
