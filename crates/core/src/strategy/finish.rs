//! How a turn ends a run: one rule for every strategy and every way a reply is written
//! (structured tool calls, `<tool_call>` text, plain text). docs/actions.md, "How a run
//! finishes", says the same for users.
//!
//! - A reply cut off at max_tokens (`finish_reason: length`) performs nothing ([`cut_off`]):
//!   its actions are dropped and the model is told. An action performed early, while the
//!   reply streamed, stands, and the model is told that too (`engine/early.rs`).
//! - A finish action ends the run in the turn it comes ([`Finish::check`]):
//!   - under a grammar whose finish form carries no answer (`Grammar::bare_finish`: Qwen's
//!     `terminate` with its status, pyautogui's `DONE`), that form is complete as the prompt
//!     shows it; the text of the reply around it (the story, thought, notes or SITREP)
//!     becomes its answer;
//!   - any other `done` or `report_completion` with an empty answer is sent back once, then
//!     accepted with a warning (design 004's "completion needs evidence", docs/designs.md).
//! - A plain answer (text without an action, where the prompt says that ends the task) is
//!   first read by `read_plain`, which sends back text that is not prose (`prose.rs`): a
//!   broken call, markup, an error dump. [`Finish::answer`] then sends back an answer that
//!   restates the task or copies the prompt (every time: it is no answer), and, once, an
//!   answer in a run that has performed no action yet on a task that asks for one; the second
//!   such answer is accepted with a warning, as a second empty `done` is.

use super::{ReadOptions, Reading, TurnContext, grammar, prose};
use crate::action::{Action, ActionKind, ActionResult};
use crate::model::{Content, ContentPart, Message, Reply, Role};
use crate::parser::ParsedReply;

/// The start of the problem sent back for a reply cut off at max_tokens.
pub const CUT_OFF: &str = "your reply was cut off at max_tokens (finish_reason: length)";

/// The problem sent back for a reply cut off at max_tokens.
pub fn cut_off_problem() -> String {
    format!(
        "{CUT_OFF}, so nothing in it was performed and it is not a final answer; write less (or raise max_tokens)"
    )
}

/// A reply cut off at max_tokens performs nothing: its actions are dropped, and the parser's
/// problems (artifacts of the cut) give way to one problem that says so.
pub fn cut_off(reply: &Reply, actions: &mut Vec<Action>, errors: &mut Vec<String>) {
    if !reply.truncated() {
        return;
    }
    actions.clear();
    errors.clear();
    errors.push(cut_off_problem());
}

/// The problem sent back for a first empty `done`.
pub const EMPTY_DONE: &str = "done: the answer is empty; say what on the screen shows the task is complete (or the answer asked for), or keep working";

/// The warning on a second empty `done`, accepted.
pub const EMPTY_DONE_ACCEPTED: &str =
    "warning: done without an answer or evidence, accepted (an empty one was refused once)";

/// The problem sent back for a plain answer that restates the task or copies the prompt.
pub const RESTATED: &str = "your reply only repeats the task or the prompt, so it was not taken as a final answer and nothing was performed; act, or once the task is done answer with what on the screen shows it (or the answer asked for)";

/// The problem sent back for a first plain answer before anything was performed.
pub const NOTHING_DONE: &str = "your reply would end the task, but nothing has been performed in this run yet and the task asks for something to be done; if the screen already shows the task is done, answer again saying what on it shows that, else act";

/// The warning on a second plain answer before anything was performed, accepted.
pub const NOTHING_DONE_ACCEPTED: &str = "warning: a final answer with no action performed in the run, accepted (the first one was sent back)";

/// A strategy's state of the rule: what was refused once, whether anything was performed,
/// and the texts of the last request.
#[derive(Debug, Clone, Default)]
pub struct Finish {
    empty_refused: bool,
    idle_refused: bool,
    acted: bool,
    prompts: Vec<String>,
}

/// Whether the run's grammar finishes with a form that carries no answer.
pub fn bare(options: &ReadOptions) -> bool {
    grammar::of(options.dialect).is_some_and(|g| g.bare_finish)
}

impl Finish {
    /// Applies the rule to a reading's actions; `around` is the reply's text around them and
    /// `bare` whether the grammar's finish form carries no answer. Problems and warnings go
    /// to `errors`.
    pub fn check(
        &mut self,
        actions: &mut Vec<Action>,
        errors: &mut Vec<String>,
        around: &str,
        bare: bool,
    ) {
        fill_bare(actions, around, bare);
        let empty = |a: &Action| match &a.kind {
            ActionKind::Done { text } => !bare && text.trim().is_empty(),
            ActionKind::ReportCompletion { evidence } => evidence.trim().is_empty(),
            _ => false,
        };
        if !actions.iter().any(empty) {
            return;
        }
        if self.empty_refused {
            errors.push(EMPTY_DONE_ACCEPTED.into());
        } else {
            self.empty_refused = true;
            actions.retain(|a| !empty(a));
            errors.push(EMPTY_DONE.into());
        }
    }

    /// Whether a plain answer (`text`, already found to be prose) of a run on `task` ends
    /// it; the problem or the warning goes to `errors`.
    pub fn answer(&mut self, text: &str, task: &str, errors: &mut Vec<String>) -> bool {
        let prompts: Vec<&str> = self.prompts.iter().map(String::as_str).collect();
        if prose::restates(text, task, &prompts) {
            errors.push(RESTATED.into());
            return false;
        }
        if self.acted || prose::only_asks(task) {
            return true;
        }
        if self.idle_refused {
            errors.push(NOTHING_DONE_ACCEPTED.into());
            return true;
        }
        self.idle_refused = true;
        errors.push(NOTHING_DONE.into());
        false
    }

    /// Whether a plain answer on `task` may end the run now without being sent back for
    /// nothing having been performed (a constrained format offers it only then, `format.rs`).
    pub fn may_answer(&self, task: &str) -> bool {
        self.acted || self.idle_refused || prose::only_asks(task)
    }

    /// Keeps the texts of a request's messages (the system and user ones), which an answer
    /// must not merely copy.
    pub fn prompted(&mut self, messages: &[Message]) {
        self.prompts = messages
            .iter()
            .filter(|m| matches!(m.role, Role::System | Role::User))
            .flat_map(|m| match &m.content {
                Content::Text(t) => vec![t.clone()],
                Content::Parts(parts) => parts
                    .iter()
                    .filter_map(|p| match p {
                        ContentPart::Text { text } => Some(text.clone()),
                        _ => None,
                    })
                    .collect(),
            })
            .collect();
    }

    /// Notes what a turn performed: any action on the desktop counts, a finish, a report, a
    /// wait or a look does not.
    pub fn record(&mut self, actions: &[Action], results: &[ActionResult]) {
        self.acted |= actions
            .iter()
            .zip(results)
            .any(|(a, r)| r.is_ok() && acts(&a.kind));
    }
}

/// Under a grammar whose finish form carries no answer (`bare`), a `done` without one takes
/// the reply's text around it (`around`) as its answer.
pub fn fill_bare(actions: &mut [Action], around: &str, bare: bool) {
    if !bare {
        return;
    }
    for a in actions.iter_mut() {
        if let ActionKind::Done { text } = &mut a.kind
            && text.trim().is_empty()
        {
            *text = around.trim().to_string();
        }
    }
}

impl Finish {
    /// The narrative and vision strategies' reading of a parsed reply: a plain answer where
    /// the grammar finishes by one, the cut-off rule, at most `one_per_turn`'s one action (it
    /// names the strategy), then the finish rule.
    pub fn reading(
        &mut self,
        reply: &Reply,
        options: &ReadOptions,
        ctx: &TurnContext<'_>,
        parsed: ParsedReply,
        one_per_turn: Option<&str>,
    ) -> Reading {
        let (mut actions, mut errors) = (parsed.actions, parsed.errors);
        let text = parsed.text.trim().to_string();
        if actions.is_empty()
            && let Some(answer) = grammar::finish_by_answer(reply, options, ctx)
        {
            errors.clear();
            if self.answer(&answer, ctx.task, &mut errors) {
                actions.push(ActionKind::Done { text: answer }.into());
            }
        }
        cut_off(reply, &mut actions, &mut errors);
        if let Some(strategy) = one_per_turn
            && actions.len() > 1
        {
            errors.push(format!(
                "{}; the {strategy} strategy performs one per turn: only the first was performed",
                super::caps::actions_given(actions.len())
            ));
            actions.truncate(1);
        }
        self.check(&mut actions, &mut errors, &text, bare(options));
        Reading {
            actions,
            text,
            bboxes: parsed.bboxes,
            errors,
        }
    }
}

/// Whether an action does something on the desktop.
fn acts(kind: &ActionKind) -> bool {
    !matches!(
        kind,
        ActionKind::Done { .. }
            | ActionKind::Fail { .. }
            | ActionKind::AskUser { .. }
            | ActionKind::ReportProgress { .. }
            | ActionKind::ReportCompletion { .. }
            | ActionKind::Wait { .. }
            | ActionKind::Observe
            | ActionKind::ListWindows
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn done(t: &str) -> Action {
        ActionKind::Done { text: t.into() }.into()
    }

    #[test]
    fn an_empty_done_is_refused_once_then_accepted_with_a_warning() {
        let key: Action = ActionKind::Key {
            keys: "enter".into(),
        }
        .into();
        let mut rule = Finish::default();
        let (mut actions, mut errors) = (vec![done("the answer is 42")], Vec::new());
        rule.check(&mut actions, &mut errors, "", false);
        assert_eq!((actions.len(), errors.len()), (1, 0), "an answer passes");
        let (mut actions, mut errors) = (vec![key.clone(), done("  ")], Vec::new());
        rule.check(&mut actions, &mut errors, "the story", false);
        assert_eq!(
            actions,
            vec![key],
            "the empty done is dropped, the key stays"
        );
        assert_eq!(errors, vec![EMPTY_DONE.to_string()]);
        let report: Action = ActionKind::ReportCompletion {
            evidence: String::new(),
        }
        .into();
        let (mut actions, mut errors) = (vec![report], Vec::new());
        rule.check(&mut actions, &mut errors, "", false);
        assert_eq!(actions.len(), 1, "the second empty one is accepted");
        assert_eq!(errors, vec![EMPTY_DONE_ACCEPTED.to_string()]);
    }

    #[test]
    fn a_bare_finish_is_complete_and_takes_the_text_around_it() {
        let mut rule = Finish::default();
        let (mut actions, mut errors) = (vec![done("")], Vec::new());
        rule.check(&mut actions, &mut errors, " The file is saved. ", true);
        assert_eq!(actions, vec![done("The file is saved.")]);
        assert!(errors.is_empty(), "{errors:?}");
        let (mut actions, mut errors) = (vec![done("")], Vec::new());
        rule.check(&mut actions, &mut errors, "", true);
        assert_eq!(
            actions,
            vec![done("")],
            "as the prompt shows it, without text"
        );
        assert!(errors.is_empty(), "{errors:?}");
    }

    #[test]
    fn a_plain_answer_needs_an_action_first_once_and_never_restates_the_task() {
        let task = "Click the OK button";
        let mut rule = Finish::default();
        let mut errors = Vec::new();
        assert!(!rule.answer("TASK: Click the OK button", task, &mut errors));
        assert!(!rule.answer("The OK button was clicked.", task, &mut errors));
        assert_eq!(errors, vec![RESTATED, NOTHING_DONE]);
        assert!(rule.answer("The OK button was clicked.", task, &mut errors));
        assert_eq!(
            errors.last().map(String::as_str),
            Some(NOTHING_DONE_ACCEPTED)
        );
        assert!(!rule.answer("Click the OK button", task, &mut errors));
        let mut rule = Finish::default();
        let click: Action = ActionKind::Click {
            x: Some(1),
            y: Some(2),
        }
        .into();
        rule.record(&[click], &[ActionResult::ok()]);
        let mut errors = Vec::new();
        assert!(rule.answer("The dialog closed.", task, &mut errors));
        assert!(errors.is_empty());
        let mut rule = Finish::default();
        assert!(rule.answer("Untitled", "What is the window's title?", &mut errors));
    }
}
