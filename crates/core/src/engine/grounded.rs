//! Targets in words at run time (`crate::grounder`, docs/grounding.md): before a turn's
//! actions run, each that names its target in words gets its point from the grounding model
//! (a `grounded` event each). A target that finds no point (no grounder configured, an answer
//! with no point, a failed request) is an error the planner reads next turn, with an `error`
//! event; that action and those after it are not performed. A stop while the grounder is
//! asked ends the turn at once. Each request to the grounder and its answer go to
//! `exchange.jsonl` beside the planner's, marked `"by": "grounder"`.

use super::{Engine, Stop};
use crate::event::EventKind;
use crate::grounder::{self, Asked, GroundError};
use crate::strategy::Reading;

impl Engine<'_> {
    /// Gives each action of `reading` that names a target its grounded point; on the first
    /// that finds none, drops it and those after it and records why in `reading.errors`.
    pub(super) fn ground_targets(&mut self, turn: u32, reading: &mut Reading) -> Result<(), Stop> {
        for i in 0..reading.actions.len() {
            let Some(target) = reading.actions[i].target.clone() else {
                continue;
            };
            let problem = match self.ground_one(turn, i, &target) {
                Ok(found) => {
                    reading.actions[i] = grounder::at_found(&reading.actions[i], &found);
                    continue;
                }
                Err(GroundError::Cancelled) => return Err(self.cancelled()),
                Err(e) => e.to_string(),
            };
            let dropped = reading.actions.len() - i;
            let message = format!(
                "{}(target={target:?}): {problem}; {dropped} action(s) from it on were not performed: name the target differently or give its point",
                reading.actions[i].kind.name()
            );
            reading.actions.truncate(i);
            self.emit(
                turn,
                EventKind::Error {
                    message: format!("grounding: {message}"),
                    fatal: false,
                },
            );
            reading.errors.push(message);
            break;
        }
        Ok(())
    }

    /// Asks the grounder for action `index`'s `target`; emits `grounded` when it finds it.
    fn ground_one(
        &mut self,
        turn: u32,
        index: usize,
        target: &str,
    ) -> Result<grounder::Found, GroundError> {
        let Some(g) = self.grounder.as_mut() else {
            return Err(GroundError::NoPoint {
                model: "(none)".into(),
                target: target.to_string(),
                why: "no grounding model is configured (grounder_model, --grounder-model)".into(),
                answer: String::new(),
            });
        };
        let model = g.model_id().to_string();
        let mut log = GrounderLog::new(turn, BY_GROUNDER, &model, target, self.writer.is_some());
        let found = g.ground(
            self.desktop,
            self.executor.area(),
            target,
            &self.cancel,
            &mut |asked| log.push(asked),
        );
        self.write_grounder_log(log);
        if self.cancel.is_cancelled() {
            return Err(GroundError::Cancelled);
        }
        let found = found?;
        let at = found.exact.at.map_or([0.0; 2], |p| [p[0].0, p[1].0]);
        self.emit(
            turn,
            EventKind::Grounded {
                index,
                target: target.to_string(),
                model,
                point: at,
                of: [found.exact.of[0].0, found.exact.of[1].0],
                screen: [found.screen.x, found.screen.y],
                ms: found.ms,
                prompt_tokens: found.prompt_tokens,
                completion_tokens: found.completion_tokens,
            },
        );
        Ok(found)
    }

    /// Writes `log`'s records to the run's exchange log, in order.
    pub(super) fn write_grounder_log(&mut self, log: GrounderLog<'_>) {
        for r in log.records.iter().flatten() {
            self.channel().write_exchange(log.turn, r);
        }
    }
}

/// The exchange records of requests to the grounding model, kept while it is borrowed and
/// written once it is not ([`Engine::write_grounder_log`]).
pub(super) struct GrounderLog<'a> {
    turn: u32,
    by: &'static str,
    model: String,
    target: &'a str,
    /// `None` when the run keeps no log.
    records: Option<Vec<serde_json::Value>>,
}

impl<'a> GrounderLog<'a> {
    /// The records of turn `turn`'s requests (`by`: whose) to `model` for `target`; kept only
    /// when the run keeps a log (`logging`).
    pub(super) fn new(
        turn: u32,
        by: &'static str,
        model: &str,
        target: &'a str,
        logging: bool,
    ) -> Self {
        GrounderLog {
            turn,
            by,
            model: model.to_string(),
            target,
            records: logging.then(Vec::new),
        }
    }

    /// Keeps one step of a request ([`record`]).
    pub(super) fn push(&mut self, asked: Asked<'_>) {
        if let Some(records) = &mut self.records {
            records.push(record(self.turn, self.by, &self.model, self.target, asked));
        }
    }
}

/// `exchange.jsonl`'s `by` on the grounder's records (docs/grounding.md): its request for a
/// target, and a zoom-in refinement's request to it.
pub(super) const BY_GROUNDER: &str = "grounder";
pub(super) const BY_GROUNDER_REFINEMENT: &str = "grounder refinement";

/// The `exchange.jsonl` record of one step of a request to the grounding model `model` for
/// `target` (`by`: whose request): `{"turn", "t_ms", "by", "model", "target"}` with the
/// request's body (its images sanitized, as the planner's), the answer or the error.
fn record(turn: u32, by: &str, model: &str, target: &str, asked: Asked<'_>) -> serde_json::Value {
    let mut record = serde_json::json!({"turn": turn, "t_ms": crate::event::unix_ms(),
        "by": by, "model": model, "target": target});
    match asked {
        Asked::Request(body) => record["request"] = crate::model::sanitize::sanitized(&body),
        Asked::Reply(reply) => record["response"] = super::reply_record(reply),
        Asked::Failed(e) => record["error"] = e.to_string().into(),
    }
    record
}
