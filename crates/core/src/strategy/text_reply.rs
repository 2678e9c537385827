//! A reply without structured tool calls, as the tools and commander strategies read it: an
//! action written into the text, a final answer, or a problem for the model.
//!
//! - The text is parsed with every dialect the parser reads (the strategy's forced dialect, else
//!   detection): servers such as LM Studio leave a `<tool_call>` block or a function-call line
//!   like `click(500, 300)` in the content when their own tool parser misses it. An action
//!   found there runs (one per turn, like a tool call).
//! - A reply cut off at `max_tokens` (`finish_reason: length`) or an empty one is never an
//!   answer and runs nothing: it is a problem sent back to the model.
//! - Text that looks like an action the parser could not read (a `<tool_call>` block, a known
//!   function name, a UI-TARS `Action:` line, JSON with `"actions"`) is a problem too, and so
//!   is text that does not read as prose (`prose.rs`: a broken or cut call, markup, an error
//!   dump, a code block, symbols): it is sent back exactly as an unreadable `<tool_call>` is.
//! - Anything else is a final answer when the reply ended on its own: `finish_reason` `stop`
//!   (or the same meaning under another server's name: `eos`, `eos_token`, `end_turn`,
//!   `stop_sequence`), or no `finish_reason` at all: servers that omit it give no sign of a
//!   cut, and the engine marks injected and edited replies `stop`. Any other value
//!   (`content_filter`, `tool_calls` without a readable call) is a problem. Whether such an
//!   answer ends the run is `finish.rs`'s rule (it must not restate the task, and it needs an
//!   action performed first on a task that asks for one).

use super::{ReadOptions, TurnContext};
use crate::action::Action;
use crate::model::Reply;
use crate::parser::{Dialect, detect, strip_think};

/// What a reply without structured tool calls holds.
#[derive(Debug, Clone, PartialEq)]
pub enum PlainReply {
    /// An action written in the text, the text around it, and problems (e.g. extra actions).
    Action {
        action: Box<Action>,
        text: String,
        errors: Vec<String>,
    },
    /// A final answer: the text without `<think>`.
    Answer(String),
    /// Nothing usable: the text (for the log) and what to tell the model.
    Unusable { text: String, errors: Vec<String> },
}

/// `finish_reason` values that mean the model ended the reply itself.
const NATURAL_ENDS: [&str; 5] = ["stop", "eos", "eos_token", "end_turn", "stop_sequence"];

/// Reads a reply that has no structured tool calls. `what_to_do` ends each problem: how the
/// strategy wants the model to act or to finish.
pub fn read_plain(
    reply: &Reply,
    options: &ReadOptions,
    ctx: &TurnContext<'_>,
    what_to_do: &str,
) -> PlainReply {
    let text = strip_think(&reply.content).trim().to_string();
    let unusable = |text: String, problem: String| PlainReply::Unusable {
        text,
        errors: vec![format!("{problem}: {what_to_do}")],
    };
    if reply.truncated() {
        return unusable(text, super::finish::cut_off_problem());
    }
    if text.is_empty() {
        let only = if reply
            .reasoning
            .as_deref()
            .is_some_and(|r| !r.trim().is_empty())
        {
            " (only reasoning)"
        } else {
            ""
        };
        return unusable(
            text,
            format!("your reply was empty{only}: no text and no tool call"),
        );
    }
    let parsed = super::parse(reply, options, ctx);
    let mut actions = parsed.actions;
    if !actions.is_empty() {
        let mut errors = parsed.errors;
        let given = super::keep_one(&mut actions);
        if given > 1 {
            errors.push(format!(
                "{}; one is performed per turn: only the first was performed",
                super::caps::actions_given(given)
            ));
        }
        return PlainReply::Action {
            action: Box::new(actions.remove(0)),
            text: parsed.text.trim().to_string(),
            errors,
        };
    }
    let seen = detect(&text);
    if looks_like_an_action(seen, &text) {
        let mut problem = format!(
            "your reply looks like a {seen} action, but no action could be read in it, so it was neither performed nor taken as a final answer"
        );
        if !parsed.errors.is_empty() {
            problem.push_str(&format!(" ({})", parsed.errors.join("; ")));
        }
        return unusable(text, problem);
    }
    if let Some(what) = super::prose::not_prose(&text) {
        let mut problem = format!(
            "your reply is not a final answer: it looks like {what}, so it was neither performed nor taken as the answer"
        );
        if !parsed.errors.is_empty() && !text.is_empty() {
            problem.push_str(&format!(" ({})", parsed.errors.join("; ")));
        }
        return unusable(text, problem);
    }
    match reply.finish_reason.as_deref().map(str::trim) {
        None | Some("") => PlainReply::Answer(text),
        Some(r) if NATURAL_ENDS.iter().any(|n| r.eq_ignore_ascii_case(n)) => {
            PlainReply::Answer(text)
        }
        Some(r) => unusable(
            text,
            format!(
                "your reply ended with finish_reason {r:?}, not \"stop\", and holds no action, so it is not taken as a final answer"
            ),
        ),
    }
}

/// Whether text in dialect `d` (as detected) was meant as an action.
fn looks_like_an_action(d: Dialect, text: &str) -> bool {
    match d {
        Dialect::None => false,
        // any JSON object is detected as design 000's; only one with "actions" was meant as one
        Dialect::Json => text.contains("\"actions\""),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::ActionKind;

    use crate::action::ActionResult;
    use crate::strategy::test_support::{click_at, finished, screenshot};

    fn read(reply: &Reply) -> PlainReply {
        let obs = screenshot();
        let ctx = TurnContext {
            task: "t",
            turn: 1,
            screenshot: &obs,
        };
        read_plain(reply, &ReadOptions::default(), &ctx, "do better")
    }

    fn problem(r: PlainReply) -> String {
        match r {
            PlainReply::Unusable { errors, .. } => errors.join("\n"),
            other => panic!("expected a problem, got {other:?}"),
        }
    }

    #[test]
    fn a_plain_answer_that_stopped_is_the_answer() {
        for reason in [Some("stop"), Some("EOS"), None] {
            let r = read(&finished("<think>hm</think> The file is saved. ", reason));
            assert_eq!(
                r,
                PlainReply::Answer("The file is saved.".into()),
                "{reason:?}"
            );
        }
        for answer in [
            "The task is complete. The file hi.txt was created (size 3 bytes).",
            "Done! I typed the text and pressed Enter.",
            "The value is {\"a\": 1}.",
        ] {
            assert_eq!(
                read(&finished(answer, Some("stop"))),
                PlainReply::Answer(answer.into())
            );
        }
    }

    #[test]
    fn truncated_empty_and_odd_endings_are_problems_not_answers() {
        let p = problem(read(&finished("The file is sa", Some("length"))));
        assert!(
            p.contains("cut off at max_tokens") && p.ends_with("do better"),
            "{p}"
        );
        let p = problem(read(&finished("left_click(500, 300)", Some("length"))));
        assert!(p.contains("cut off"), "a cut reply runs nothing: {p}");
        let p = problem(read(&finished("  <think>only this</think> ", Some("stop"))));
        assert!(p.contains("empty"), "{p}");
        let p = problem(read(&finished("Done.", Some("content_filter"))));
        assert!(p.contains("content_filter"), "{p}");
    }

    #[test]
    fn actions_in_the_text_are_read_in_any_dialect() {
        let tagged = "I will click.\n<tool_call>\n{\"name\": \"click_element\", \"arguments\": {\"label\": \"OK\", \"box\": [500, 300]}}\n</tool_call>";
        let line = "Clicking OK now.\nclick(500, 300)";
        for text in [tagged, line] {
            match read(&finished(text, Some("stop"))) {
                PlainReply::Action { action, errors, .. } => {
                    assert_eq!(action.kind, click_at(500, 300), "{text}");
                    assert!(errors.is_empty(), "{errors:?}");
                }
                other => panic!("{text}: {other:?}"),
            }
        }
        match read(&finished("click(1, 2)\nclick(3, 4)", None)) {
            PlainReply::Action { action, errors, .. } => {
                assert!(matches!(action.kind, ActionKind::Click { x: Some(1), .. }));
                assert!(errors[0].contains("only the first"), "{errors:?}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_unreadable_action_is_not_an_answer() {
        let p = problem(read(&finished(
            "<tool_call>{\"name\": \"click_element\", \"arguments\": {broken</tool_call>",
            Some("stop"),
        )));
        assert!(p.contains("looks like a"), "{p}");
        let p = problem(read(&finished(
            "{\"actions\": [{\"name\": \"clik\"}]}",
            None,
        )));
        assert!(p.contains("looks like a json action"), "{p}");
    }

    #[test]
    fn a_cut_reply_never_completes_a_narrative_or_vision_run() {
        let obs = screenshot();
        let ctx = TurnContext {
            task: "t",
            turn: 1,
            screenshot: &obs,
        };
        for (strategy, text) in [
            ("narrative", "done(\"finished\")\nThe story was cut sho"),
            (
                "vision",
                "{\"observation\": \"ok\", \"actions\": [{\"name\": \"done\", \"text\": \"finished\"}]}",
            ),
        ] {
            let mut s = crate::strategy::create(strategy, ReadOptions::default()).unwrap();
            s.prompt(&ctx);
            let r = s.read(&finished(text, Some("stop")), &ctx);
            assert_eq!(r.actions.len(), 1, "{strategy}: whole, it is done");
            let r = s.read(&finished(text, Some("length")), &ctx);
            assert!(r.actions.is_empty(), "{strategy}: {r:?}");
            assert!(r.errors.iter().any(|e| e.contains("cut off")), "{r:?}");
            s.record(&r, &Vec::<ActionResult>::new());
        }
    }
}
