//! Where the engine consults its session's controls ([`super::Remote`]): the turn boundary
//! (pause, step, stop), the observation (panel annotation) and the parsed actions (approve
//! mode). Kept apart from the turn itself so that `mod.rs` only calls `gate`, `annotate` and
//! `approval`. Every wait sleeps on the controls' condition variable, which a stop or a cancel
//! wakes at once.

use super::{Engine, Stop};
use crate::action::{ActionKind, ActionResult, Warning};
use crate::engine::{Decision, Gate};
use crate::event::{EventKind, Outcome};
use crate::model::Reply;
use crate::observe::Screenshot;
use crate::strategy::{Reading, TurnContext};
use std::time::Duration;

/// The note on an answered `ask_user`'s result that carries the person's answer.
pub const USER_ANSWER: &str = "user_answer";

/// A reply not from the model (injected from the panel, an approver's edit, the configured
/// boot reply), read by the strategy exactly like a model's. It counts as one that ended on
/// its own (`finish_reason: stop`): a person's text is never cut off at max_tokens, so a plain
/// answer in it can end a tools run as done.
pub(super) fn given_reply(text: String) -> Reply {
    Reply {
        finish_reason: Some("stop".into()),
        ..Reply::text(text)
    }
}

/// How long one wait on the controls lasts; a stop or a cancel ends it at once.
const WAIT: Duration = Duration::from_secs(3600);

impl Engine<'_> {
    /// At a turn boundary: waits while the run is paused (`paused` / `resumed`).
    pub(super) fn gate(&mut self, turn: u32) -> Result<(), Stop> {
        let c = self.controls.clone();
        let mut paused = false;
        loop {
            if self.interrupted() {
                return Err(self.cancelled());
            }
            let wait = if paused { WAIT } else { Duration::ZERO };
            match c.gate(wait) {
                Gate::Go => break,
                Gate::Stop(reason) => return Err(Stop(Outcome::Interrupted, reason)),
                Gate::Paused if !paused => {
                    paused = true;
                    self.emit(
                        turn,
                        EventKind::Paused {
                            reason: "paused by the controller".into(),
                        },
                    );
                }
                Gate::Paused => {}
            }
        }
        if paused {
            self.emit(turn, EventKind::Resumed {});
        }
        Ok(())
    }

    /// In annotation mode: waits for the annotated image and sends it instead.
    pub(super) fn annotate(&mut self, turn: u32, obs: &mut Screenshot) -> Result<(), Stop> {
        let c = self.controls.clone();
        if !c.annotate_mode() {
            return Ok(());
        }
        // a first call without waiting registers what is awaited, so that an answer to the
        // event below is accepted however fast it comes
        let mut early = c.annotation(turn, Duration::ZERO);
        self.emit(
            turn,
            EventKind::AwaitingAnnotation {
                prompt: format!("annotate screenshot {turn} (seq {turn})"),
            },
        );
        let png = loop {
            if let Some(png) = early.take().or_else(|| c.annotation(turn, WAIT)) {
                break png;
            }
            self.gate_stop()?;
        };
        use base64::Engine as _;
        obs.data_url = format!(
            "data:image/png;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&png)
        );
        obs.encoded = png;
        obs.format = crate::observe::ImageFormat::Png;
        Ok(())
    }

    /// Approve mode: waits for a decision on the reading's actions. `Some(results)` when they
    /// were rejected (nothing runs; each result tells the model why).
    pub(super) fn approval(
        &mut self,
        turn: u32,
        reading: &mut Reading,
        ctx: &TurnContext<'_>,
    ) -> Result<Option<Vec<ActionResult>>, Stop> {
        let c = self.controls.clone();
        if !self.needs_approval(turn, reading) {
            return Ok(None);
        }
        loop {
            let mut early = c.decision(turn, Duration::ZERO);
            self.emit(
                turn,
                EventKind::AwaitingApproval {
                    actions: reading.actions.clone(),
                },
            );
            let decision = loop {
                if let Some(d) = early.take().or_else(|| c.decision(turn, WAIT)) {
                    break d;
                }
                self.gate_stop()?;
            };
            match decision {
                Decision::Approve => {
                    self.executor.set_confirmed(true);
                    return Ok(None);
                }
                Decision::Reject(reason) => {
                    let message = format!("the user rejected: {reason}");
                    self.emit(
                        turn,
                        EventKind::Note {
                            text: message.clone(),
                        },
                    );
                    let err = crate::action::ActionError::new(
                        crate::action::ErrorKind::Rejected,
                        message,
                    );
                    let result = ActionResult::Error(err);
                    for (index, action) in reading.actions.iter().enumerate() {
                        self.emit(
                            turn,
                            EventKind::ActionResult {
                                index,
                                action: action.clone(),
                                result: result.clone(),
                                ms: 0.0,
                                early_exec_ms_saved: None,
                            },
                        );
                    }
                    return Ok(Some(vec![result; reading.actions.len()]));
                }
                Decision::Replace(text) => {
                    let reply = given_reply(text);
                    *reading = self.read_reply(&reply, ctx)?;
                    self.emit_reply(turn, 0.0, &reply, reading);
                    if !self.needs_approval(turn, reading) {
                        return Ok(None);
                    }
                }
            }
        }
    }

    /// Whether the reading's actions wait for a person: in approve mode, or when a `confirm`
    /// rule of the safety policy matches one of them (said in a note), even without it, unless
    /// the executor has its own confirmer to ask.
    fn needs_approval(&mut self, turn: u32, reading: &Reading) -> bool {
        if reading.actions.is_empty() {
            return false;
        }
        if self.controls.approve_mode() {
            return true;
        }
        if !self.executor.policy().has_confirm() || self.executor.has_confirmer() {
            return false;
        }
        let rules: Vec<String> = self
            .executor
            .verdicts(self.desktop, &reading.actions)
            .into_iter()
            .filter_map(|v| match v {
                crate::policy::Verdict::Confirm { rule } => Some(rule),
                _ => None,
            })
            .collect();
        if rules.is_empty() {
            return false;
        }
        self.emit(
            turn,
            EventKind::Note {
                text: format!(
                    "the safety policy asks a person first: {}",
                    rules.join(", ")
                ),
            },
        );
        true
    }

    /// `ask_user` with someone to answer: shows the question (`awaiting_answer`), waits for
    /// the answer and gives it to the model as the action's result (a `user_answer` note on its
    /// `ok`), so the run goes on. Without anyone, nothing changes: the action ends the run.
    pub(super) fn ask_user(
        &mut self,
        turn: u32,
        reading: &Reading,
        results: &mut [ActionResult],
    ) -> Result<(), Stop> {
        if !self.controls.answering() {
            return Ok(());
        }
        for (action, result) in reading.actions.iter().zip(results.iter_mut()) {
            let ActionKind::AskUser { text } = &action.kind else {
                continue;
            };
            if !result.is_ok() {
                continue;
            }
            let c = self.controls.clone();
            let mut early = c.answered(turn, Duration::ZERO);
            let question = text.clone();
            self.emit(turn, EventKind::AwaitingAnswer { question });
            let answer = loop {
                if let Some(a) = early.take().or_else(|| c.answered(turn, WAIT)) {
                    break a;
                }
                self.gate_stop()?;
            };
            // nobody answers: the result keeps no answer and the question ends the run
            let Some(answer) = answer else {
                continue;
            };
            self.emit(
                turn,
                EventKind::Note {
                    text: format!("the user answered: {answer}"),
                },
            );
            *result = ActionResult::Ok {
                warnings: vec![Warning {
                    kind: USER_ANSWER.into(),
                    message: answer,
                }],
            };
        }
        Ok(())
    }

    /// While waiting on the controls: Ctrl+C or a stop ends the run.
    fn gate_stop(&self) -> Result<(), Stop> {
        if self.interrupted() || self.controls.stop_requested().is_some() {
            return Err(self.cancelled());
        }
        Ok(())
    }

    /// The stop of a cancelled run: the reason a stop gave, else what set the cancel token
    /// (`interrupted (SIGTERM)`).
    pub(super) fn cancelled(&self) -> Stop {
        let reason = self
            .controls
            .stop_requested()
            .unwrap_or_else(|| self.cancel.interrupted());
        Stop(Outcome::Interrupted, reason)
    }
}
