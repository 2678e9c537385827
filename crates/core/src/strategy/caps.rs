//! Caps on what a model can make franz keep, log and send back every turn (docs/actions.md,
//! "Limits"): the text of a reading (the narrative's story, the vision notes, a thought) and the
//! texts of `done`, `fail`, `ask_user` and the reports. A longer text is cut at
//! [`MAX_TEXT_CHARS`] with a marker that says so, and the model is told in the turn's problems;
//! a 10 MB story is neither sent back whole every turn nor written whole to the run log.

use super::Reading;
use crate::action::ActionKind;

/// The most characters of one text franz keeps.
pub const MAX_TEXT_CHARS: usize = 16_000;

/// The fewest actions a reader of the parser stops at (tool calls in text: 32; calls and JSON
/// objects: 64): a reply with that many may hold more than were read.
const READ_CAP: usize = 32;

/// "N actions given", true even where the parser stopped reading at its cap ("at least N").
pub fn actions_given(n: usize) -> String {
    if n >= READ_CAP {
        format!("at least {n} actions given")
    } else {
        format!("{n} actions given")
    }
}

/// Cuts `text` to [`MAX_TEXT_CHARS`] with a marker; the problem to tell the model when it was
/// cut (`what` names the text: "the story").
pub fn cap_text(text: &mut String, what: &str) -> Option<String> {
    let (cut, _) = text.char_indices().nth(MAX_TEXT_CHARS)?;
    let total = MAX_TEXT_CHARS + text[cut..].chars().count();
    text.truncate(cut);
    text.push_str(&format!(
        " […cut: {total} characters given, franz keeps {MAX_TEXT_CHARS}]"
    ));
    Some(format!(
        "{what} was {total} characters long: only the first {MAX_TEXT_CHARS} were kept; keep it under {MAX_TEXT_CHARS}"
    ))
}

/// Caps the reading's text and its actions' texts (see the module doc).
pub fn cap_reading(reading: &mut Reading) {
    let mut problems: Vec<String> = cap_text(&mut reading.text, "the text with the actions")
        .into_iter()
        .collect();
    for action in &mut reading.actions {
        let (field, what) = match &mut action.kind {
            ActionKind::Done { text } => (text, "done's text"),
            ActionKind::Fail { text } => (text, "fail's text"),
            ActionKind::AskUser { text } => (text, "ask_user's question"),
            ActionKind::ReportProgress { evidence, .. } => (evidence, "report_progress's evidence"),
            ActionKind::ReportCompletion { evidence } => (evidence, "report_completion's evidence"),
            _ => continue,
        };
        problems.extend(cap_text(field, what));
    }
    reading.errors.extend(problems);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_story_and_answer_are_cut_with_a_marker_and_the_model_is_told() {
        let mut reading = Reading {
            text: "é".repeat(5_000_000),
            actions: vec![
                ActionKind::Done {
                    text: "a".repeat(MAX_TEXT_CHARS + 1),
                }
                .into(),
            ],
            ..Reading::default()
        };
        cap_reading(&mut reading);
        assert!(reading.text.chars().count() < MAX_TEXT_CHARS + 100);
        assert!(
            reading
                .text
                .ends_with("[…cut: 5000000 characters given, franz keeps 16000]")
        );
        assert_eq!(reading.errors.len(), 2, "{:?}", reading.errors);
        assert!(reading.errors[0].contains("5000000 characters long"));
        let mut short = Reading {
            text: "the dialog is open".into(),
            ..Reading::default()
        };
        cap_reading(&mut short);
        assert_eq!(short.text, "the dialog is open");
        assert!(short.errors.is_empty());
        assert_eq!(actions_given(3), "3 actions given");
        assert_eq!(actions_given(64), "at least 64 actions given");
    }
}
