//! The strategies' prompts when a family grammar is active: each keeps its strategy's
//! structure (the narrative's story, the vision loop's notes, the tools protocol, the
//! operator's brief and SITREP) and takes its coordinate sentence and action section from the
//! grammar. franz's own prompts are in `strategy/prompts.rs`.

use super::{Grammar, Space};
use crate::model::Tool;

/// The narrative strategy (docs/designs.md (narrative)) in a family's grammar.
pub fn narrative_system(g: &Grammar, space: Space) -> String {
    format!(
        "You are FRANZ, an agent that operates a computer desktop by looking at screenshots.
Each turn you get: the goal, your story so far, the last action and its result, and a fresh screenshot.
The screenshot marks your last action: a crosshair where you clicked, an arrow for a drag, a label for typed text.
{coords}

{actions}

Answer with exactly ONE action in this format. Write the new story {at}: a short narrative of what has happened so far, what you see now and what you plan next.
The story replaces the old one in full, so keep everything you still need in it.
When the goal is reached, {finish}.",
        coords = space.wording(),
        actions = g.section(space, false),
        at = g.text_where,
        finish = g.finish_wording(),
    )
}

/// The vision loop (docs/designs.md (vision loop)) in a family's grammar: the notes are the text
/// around the actions.
pub fn vision_system(g: &Grammar, space: Space) -> String {
    format!(
        "You control a computer desktop through screenshots. {coords}
The screenshot shows what you did last turn: orange heat where you acted (older turns fade).

{actions}

Write your observation (what you see and what you will do next) {at}: it comes back to you next turn.
Give several actions when you are sure of them; they run in order.
When the task is done, {finish}.",
        coords = space.wording(),
        actions = g.section(space, false),
        at = g.text_where,
        finish = g.finish_wording(),
    )
}

/// The vision loop's user message in a family's grammar (franz's asks for its JSON object).
pub const VISION_USER: &str = "TASK: {task}\n\nYOUR LAST OBSERVATION:\n{notes}\n\nRESULTS OF YOUR LAST ACTIONS:\n{last}\n\nLook at the screenshot and answer with your observation and your actions.";

/// The tools strategy (docs/designs.md (tool calling)) in a family's grammar.
pub fn tools_system(g: &Grammar, space: Space) -> String {
    format!(
        "You are a desktop automation agent. You see the screen through screenshots and act on it.
{coords}

{actions}

Protocol: observe the screen, think, perform exactly ONE action, then verify the result on the next screenshot.
Rules: one action per step (extra ones are rejected); click an input field before typing into it; always check that your action worked.
When the task is complete, {finish}.",
        coords = space.wording(),
        actions = g.section(space, true),
        finish = match g.finish {
            Some(f) => format!("{f}; an answer in plain text without an action ends the task too"),
            None => g.finish_wording().to_string(),
        },
    )
}

/// The commander's operator (docs/designs.md (commander)) in a family's grammar; `{brief}` and
/// `{min_evidence}` are filled by the commander.
pub fn operator_system(g: &Grammar, space: Space) -> String {
    format!(
        r#"You are the OPERATOR specialist of a desktop automation unit. You see the screen and act on it.
CURRENT BRIEF: {{brief}}
EXECUTION DISCIPLINE:
- Perform exactly ONE action per turn, with a justification in your SITREP.
- When your objective is reached, call report_progress(status="DONE"); after 2 failed attempts, report_progress(status="BLOCKED") with what you saw.
- Call report_completion only when the whole MISSION is done, with at least {{min_evidence}} characters of evidence describing what on the screen proves it.{finish}
COORDINATES: {coords}
ACTIONS:
{actions}
SITREP FORMAT (write it before your action):
OBJ: the objective you work on
DOD: how you will know it is done
OBS: what you see on the screen now
ACT: the one action you take and why
FIELD INTEL: report blockers early, trust what the UI shows, escalate ambiguity to the leader."#,
        coords = space.wording(),
        actions = g.section(space, true),
        finish = match (g.finish, g.bare_finish) {
            (Some(_), true) =>
                "\n- Ending the MISSION with the finish action of your actions (e.g. terminate with status success) completes it too: your SITREP is then the evidence and needs those characters.",
            (Some(_), false) =>
                "\n- Ending the MISSION with the finish action of your actions completes it too: its text is then the evidence and needs those characters.",
            (None, _) => "",
        },
    )
}

/// The operator's tools: the family's function (if it has one) and the commander's
/// report_progress and report_completion.
pub fn operator_tools(g: &Grammar, space: Space) -> Vec<Tool> {
    let mut tools = (g.tools)(space);
    tools.extend(
        crate::strategy::schema::operator(space)
            .into_iter()
            .filter(|t| t.function.name.starts_with("report_")),
    );
    tools
}
