//! Replies in the designs' own formats (docs/actions.md), whatever the request asked for:
//! narrative call lines, the vision JSON, franz's tool calls; points in 0..1000.

use super::{DesignFormat, Intent, STORY};
use crate::model::scripted_wire::ScriptedReply;
use serde_json::json;

/// The reply doing `intent` in `format`; `at` is the click's point in 0..1000. `completion`:
/// the request is the commander operator's, whose finish is `report_completion`.
pub(super) fn reply(
    format: DesignFormat,
    intent: &Intent,
    at: Option<(i64, i64)>,
    completion: bool,
) -> ScriptedReply {
    let (x, y) = at.unwrap_or((0, 0));
    match format {
        DesignFormat::Calls => ScriptedReply::text(match intent {
            Intent::Click { .. } => format!("left_click({x}, {y})\n{STORY}"),
            Intent::Type(text) => format!("type({})\n{STORY}", json!(text)),
            Intent::Key(keys) => format!("press_key({})\n{STORY}", json!(keys)),
            Intent::Finish(answer) => format!("done({})\n{STORY}", json!(answer)),
        }),
        DesignFormat::VisionJson => {
            let action = match intent {
                Intent::Click { .. } => json!({"name": "click", "x1": x, "y1": y}),
                Intent::Type(text) => json!({"name": "type", "text": text}),
                Intent::Key(keys) => json!({"name": "key", "keys": keys}),
                Intent::Finish(answer) => json!({"name": "done", "text": answer}),
            };
            let reply = json!({"observation": STORY, "bboxes": [], "actions": [action]});
            ScriptedReply::text(reply.to_string())
        }
        DesignFormat::Tools => match intent {
            Intent::Click { .. } => ScriptedReply::text(STORY).tool_call(
                "click_element",
                json!({"box": [x, y], "position": [x, y], "label": "the terminal window",
                       "justification": "the word is typed there"}),
            ),
            Intent::Type(text) => ScriptedReply::text(STORY).tool_call(
                "type_text",
                json!({"text": text, "justification": "the goal asks for the word"}),
            ),
            Intent::Key(keys) => ScriptedReply::text(STORY).tool_call(
                "press_key",
                json!({"key": keys, "justification": "the goal asks for it"}),
            ),
            Intent::Finish(answer) => {
                let evidence = format!(
                    "The goal is reached: {answer}. The terminal window took the typed word and \
                     closed, as its program does once it has read the whole word."
                );
                if completion {
                    ScriptedReply::text(STORY)
                        .tool_call("report_completion", json!({"evidence": evidence}))
                } else {
                    ScriptedReply::text(evidence)
                }
            }
        },
    }
}
