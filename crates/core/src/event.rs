//! The engine's events (docs/events.md): one serde type, `Event`, whose JSON is
//! `{"event": "<kind>", "turn": N, "t_ms": <unix ms>, ...fields}`.
//!
//! The engine emits them; the run log (`events.jsonl`), the terminal printer and the panel's SSE
//! stream all carry these same records, so every consumer reads one shape.

use crate::action::{Action, ActionResult};
use crate::geometry::NormBox;
use crate::model::ImageCost;
use crate::observe::StageTimings;
use serde::{Deserialize, Serialize};
use std::time::{SystemTime, UNIX_EPOCH};

/// One event: the turn it belongs to (0 before the first turn), when it happened, and what.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub turn: u32,
    /// Milliseconds since the Unix epoch.
    pub t_ms: u64,
    #[serde(flatten)]
    pub kind: EventKind,
}

impl Event {
    /// An event stamped with the current time.
    pub fn now(turn: u32, kind: EventKind) -> Self {
        Self {
            turn,
            t_ms: unix_ms(),
            kind,
        }
    }

    /// The `"event"` tag, e.g. `action_result`.
    pub fn name(&self) -> &'static str {
        self.kind.name()
    }

    /// One line for `franz.log`: the event's name and what a person reads first in it.
    pub fn summary(&self) -> String {
        let detail = match &self.kind {
            EventKind::RunStarted {
                task,
                strategy,
                model,
                ..
            } => format!("{strategy} with {model}: {task}"),
            EventKind::Observation { width, height, .. } => format!("{width}x{height}"),
            EventKind::ModelRequest {
                attempt, reason, ..
            } => match reason {
                Some(r) => format!("attempt {attempt}: {r}"),
                None => format!("attempt {attempt}"),
            },
            EventKind::ModelReply { ms, actions, .. } => {
                format!("{} action(s) after {ms:.0} ms", actions.len())
            }
            EventKind::ActionResult { index, result, .. } => match result {
                ActionResult::Ok { .. } => format!("[{index}] ok"),
                ActionResult::Error(e) => format!("[{index}] error: {e}"),
            },
            EventKind::Note { text } => text.clone(),
            EventKind::Error { message, fatal } => {
                format!("{message}{}", if *fatal { " (fatal)" } else { "" })
            }
            EventKind::RunFinished {
                outcome, reason, ..
            } => format!("{}: {reason}", outcome.as_str()),
            EventKind::Paused { reason } => reason.clone(),
            EventKind::LoopDetected {
                action,
                turns,
                stop,
                ..
            } => format!(
                "{action} on turns {turns:?}{}",
                if *stop { " (stop)" } else { "" }
            ),
            EventKind::Refined {
                action,
                from,
                to,
                error,
                ..
            } => match error {
                Some(e) => format!("{action} at {from:?}: {e}"),
                None => format!("{action} from {from:?} to {to:?}"),
            },
            EventKind::Grounded {
                target,
                model,
                screen,
                ms,
                ..
            } => format!(
                "{target:?} at ({}, {}) by {model} after {ms:.0} ms",
                screen[0], screen[1]
            ),
            _ => String::new(),
        };
        if detail.is_empty() {
            self.name().to_string()
        } else {
            format!("{}: {detail}", self.name())
        }
    }

    /// One JSON line, without the newline.
    pub fn to_json_line(&self) -> String {
        // Serializing this type cannot fail: every field is a plain value or a string map.
        serde_json::to_string(self).unwrap_or_else(|e| {
            format!(
                r#"{{"event":"error","turn":{},"t_ms":{},"message":"cannot serialize event: {e}","fatal":false}}"#,
                self.turn, self.t_ms
            )
        })
    }
}

/// Milliseconds since the Unix epoch (0 if the clock is before it).
pub fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// One turn's element collection from the accessibility tree (`observation` event).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElementsCollected {
    /// How long the collection took.
    pub ms: f64,
    /// Elements the tree gave.
    pub collected: usize,
    /// Of those, the marks inside the working area the model was shown.
    pub marks: usize,
    /// Accessible objects not visited because the time budget ran out.
    pub skipped: usize,
    /// Why nothing could be collected, if so (the turn goes on without marks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What happened. The variant name is the `"event"` tag in snake_case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum EventKind {
    /// The run began.
    RunStarted {
        task: String,
        /// `narrative`, `vision`, `tools` or `commander`.
        strategy: String,
        model: String,
        /// The run directory, when one is written.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        run_dir: Option<String>,
        #[serde(default)]
        dry_run: bool,
    },
    /// A turn began (the event's `turn` is its number).
    TurnStarted {},
    /// A screenshot was taken and processed.
    Observation {
        width: u32,
        height: u32,
        /// Encoded image size in bytes.
        bytes: usize,
        /// Per-stage milliseconds of the observation pipeline.
        timings: StageTimings,
        /// The screen differs from the last observation's by more than a caret's blink
        /// (absent in old logs).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        changed: Option<bool>,
        /// Where it changed: the union of the changes, 0..1000 of the work area.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        region: Option<NormBox>,
        /// The frame and all drawn onto it were unchanged: the last encoding was reused (the
        /// encode and base64 timings are zero).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        reused: bool,
        /// This turn's element collection (grounding marks or list); absent without.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        elements: Option<ElementsCollected>,
        /// What the image shows (`observe_area`): its screen rectangle, the window it is, or
        /// why the working area was shown instead of a window; absent in old logs.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        area: Option<crate::observe::ObservedArea>,
    },
    /// A request is about to be sent to the model: one event per attempt, so a request the
    /// client retries shows up once with `attempt: 1` and once more for each retry.
    ModelRequest {
        model: String,
        /// 1 for the first try, 2.. for retries.
        #[serde(default = "one")]
        attempt: u32,
        /// Messages and images in the request.
        messages: usize,
        images: usize,
        /// Request body size in bytes.
        bytes: usize,
        /// Retries only: why the attempt before failed and how long the client waits, e.g.
        /// `HTTP 503 (model loading); retrying in 0.5 s`. Absent on the first attempt.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        /// The newest image's size and the tokens the family's processor makes of it (patches
        /// after merging); absent without an image of known size.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        image: Option<ImageCost>,
        /// Every image's tokens.
        #[serde(default)]
        image_tokens: u64,
        /// The whole request's tokens, estimated (`crates/core/src/model/context.rs`).
        #[serde(default)]
        estimated_tokens: u64,
        /// The context length the request was kept inside, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        context_tokens: Option<u64>,
    },
    /// The model answered.
    ModelReply {
        /// Wall time of the call, milliseconds.
        ms: f64,
        /// The reply text (the run log's `exchange.jsonl` keeps the full exchange).
        text: String,
        /// The story or observation the reply carried, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        story: Option<String>,
        #[serde(default)]
        actions: Vec<Action>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        bboxes: Vec<NormBox>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        prompt_tokens: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        completion_tokens: Option<u64>,
    },
    /// One action was performed, refused or failed.
    ActionResult {
        /// 0-based index of the action within the turn.
        index: usize,
        action: Action,
        result: ActionResult,
        /// Milliseconds spent performing it.
        #[serde(default)]
        ms: f64,
        /// Early execution (engine/early.rs): how long before the whole reply had been read
        /// this action started; absent when it ran after the reply.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        early_exec_ms_saved: Option<f64>,
    },
    /// Something worth telling a person (a skipped action, a warning). Retries are
    /// `model_request` events with a `reason`.
    Note {
        text: String,
    },
    /// An error. `fatal` errors end the run; others go back to the model.
    Error {
        message: String,
        #[serde(default)]
        fatal: bool,
    },
    /// The run ended.
    RunFinished {
        outcome: Outcome,
        /// The process exit code (docs/events.md, "Outcomes and exit codes").
        exit_code: u8,
        reason: String,
        /// Turns completed.
        turns: u32,
    },
    /// The run was paused (panel or hotkey).
    Paused {
        #[serde(default)]
        reason: String,
    },
    Resumed {},
    /// The engine waits for a person to approve these actions.
    AwaitingApproval {
        actions: Vec<Action>,
    },
    /// The engine waits for a person to annotate the screenshot.
    AwaitingAnnotation {
        #[serde(default)]
        prompt: String,
    },
    /// The model asked the person this (`ask_user`); the engine waits for the answer.
    AwaitingAnswer {
        question: String,
    },
    /// Streamed text of the model's reply since the last `model_delta` (at most about ten a
    /// second). Live only: subscribers get it, the event log does not.
    ModelDelta {
        text: String,
    },
    /// A request was made smaller to fit the model's context: one event per step.
    ContextFitted {
        /// `fewer_screenshots` (older images left out) or `smaller_image` (the newest image
        /// shrunk).
        step: String,
        /// The request's estimated tokens before and after this step.
        tokens_before: u64,
        tokens_after: u64,
        /// What the request may take: the context less the reply's `max_tokens`.
        budget: u64,
        /// Images left in the request.
        images: usize,
        /// The newest image's size after this step.
        width: u32,
        height: u32,
    },
    /// The loop breaker saw the same action repeated on a screen that did not change around
    /// its target: a warning the model is given from `loop_warn` repeats on, the
    /// end of the run (`stop`) at `loop_stop`.
    LoopDetected {
        /// The repeated action(s), JSON.
        action: String,
        /// The turns that performed it.
        turns: Vec<u32>,
        repeats: u32,
        /// True when the run ends for it.
        stop: bool,
    },
    /// Zoom-in refinement of one point of an action (docs/refine.md): the model's first point
    /// and the one acted at, in screen pixels, after one request on a crop around the first.
    Refined {
        /// The action's index in the reply.
        index: usize,
        /// The action's kind, and `drag end` for a drag's second point.
        action: String,
        from: [i32; 2],
        to: [i32; 2],
        /// Between `from` and `to`, in screen pixels.
        distance: f64,
        /// The crop, in screen pixels, and its size as sent.
        crop: franz_desktop::PixelRect,
        width: u32,
        height: u32,
        ms: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        prompt_tokens: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        completion_tokens: Option<u64>,
        /// Why the first point was kept (`to` is `from`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// The grounding model found the point of a target the planner named in words
    /// (docs/grounding.md).
    Grounded {
        /// The action's index in the turn's reply.
        index: usize,
        /// The planner's words.
        target: String,
        /// The grounding model's id.
        model: String,
        /// Its point in its own space, of the extent `of` (pixels of the image it was sent,
        /// `[1000, 1000]`, `[1, 1]`).
        point: [f64; 2],
        of: [f64; 2],
        /// The screen pixel the point maps to.
        screen: [i32; 2],
        ms: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        prompt_tokens: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        completion_tokens: Option<u64>,
    },
}

/// Every event kind, as its `"event"` tag, in declaration order. Lets docs and tools list the
/// kinds; `names_list_every_kind` keeps it complete.
pub const EVENT_NAMES: &[&str] = &[
    "run_started",
    "turn_started",
    "observation",
    "model_request",
    "model_reply",
    "action_result",
    "note",
    "error",
    "run_finished",
    "paused",
    "resumed",
    "awaiting_approval",
    "awaiting_annotation",
    "awaiting_answer",
    "model_delta",
    "context_fitted",
    "loop_detected",
    "refined",
    "grounded",
];

fn one() -> u32 {
    1
}

impl EventKind {
    pub fn name(&self) -> &'static str {
        match self {
            EventKind::RunStarted { .. } => "run_started",
            EventKind::TurnStarted {} => "turn_started",
            EventKind::Observation { .. } => "observation",
            EventKind::ModelRequest { .. } => "model_request",
            EventKind::ModelReply { .. } => "model_reply",
            EventKind::ActionResult { .. } => "action_result",
            EventKind::Note { .. } => "note",
            EventKind::Error { .. } => "error",
            EventKind::RunFinished { .. } => "run_finished",
            EventKind::Paused { .. } => "paused",
            EventKind::Resumed {} => "resumed",
            EventKind::AwaitingApproval { .. } => "awaiting_approval",
            EventKind::AwaitingAnnotation { .. } => "awaiting_annotation",
            EventKind::AwaitingAnswer { .. } => "awaiting_answer",
            EventKind::ModelDelta { .. } => "model_delta",
            EventKind::ContextFitted { .. } => "context_fitted",
            EventKind::LoopDetected { .. } => "loop_detected",
            EventKind::Refined { .. } => "refined",
            EventKind::Grounded { .. } => "grounded",
        }
    }
}

impl EventKind {
    /// What a `refined` event says, in one line for people (the printer, the panel, the
    /// report); `None` for other kinds.
    pub fn refined_line(&self) -> Option<String> {
        let EventKind::Refined {
            action,
            from,
            to,
            distance,
            crop,
            width,
            height,
            ms,
            error,
            ..
        } = self
        else {
            return None;
        };
        let on = format!(
            "crop {}x{} at ({}, {}) sent as {width}x{height}, {ms:.0} ms",
            crop.width, crop.height, crop.x, crop.y
        );
        Some(match error {
            Some(e) => format!(
                "refinement of {action} at ({}, {}) failed, {e} ({on})",
                from[0], from[1]
            ),
            None => format!(
                "refined {action} from ({}, {}) to ({}, {}), {distance:.1} px ({on})",
                from[0], from[1], to[0], to[1]
            ),
        })
    }
}

/// How a run ended, each with its exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The task is complete (exit 0).
    Done,
    /// Failed or gave up: max steps, max time, the model said fail (exit 1).
    Failed,
    /// A usage or configuration error (exit 2).
    UsageError,
    /// The model server stayed unreachable after retries (exit 3).
    Unreachable,
    /// Stopped by the failsafe or a safety rule (exit 4).
    Stopped,
    /// Interrupted by Ctrl+C (exit 130).
    Interrupted,
}

impl Outcome {
    pub fn exit_code(self) -> u8 {
        match self {
            Outcome::Done => 0,
            Outcome::Failed => 1,
            Outcome::UsageError => 2,
            Outcome::Unreachable => 3,
            Outcome::Stopped => 4,
            Outcome::Interrupted => 130,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Done => "done",
            Outcome::Failed => "failed",
            Outcome::UsageError => "usage_error",
            Outcome::Unreachable => "unreachable",
            Outcome::Stopped => "stopped",
            Outcome::Interrupted => "interrupted",
        }
    }
}

/// Test doubles' samples (the `scripted` feature), written once for the tests of the event
/// log, the report and the panel.
#[cfg(feature = "scripted")]
impl EventKind {
    /// A grounding model's point (docs/grounding.md): "the Save button" found by gta1-7b at
    /// (640, 360) of a 1288x728 image, screen (954, 534).
    pub fn sample_grounded() -> EventKind {
        EventKind::Grounded {
            index: 0,
            target: "the Save button".into(),
            model: "gta1-7b".into(),
            point: [640.0, 360.0],
            of: [1288.0, 728.0],
            screen: [954, 534],
            ms: 212.0,
            prompt_tokens: Some(1300),
            completion_tokens: Some(7),
        }
    }
}

#[cfg(test)]
mod names_tests {
    use super::*;

    #[test]
    fn names_list_every_kind() {
        // serde's "unknown variant" message lists every tag it knows
        let e = serde_json::from_str::<EventKind>(r#"{"event":"no_such_kind"}"#).unwrap_err();
        let msg = e.to_string();
        let list = msg.split("expected one of ").nth(1).expect(&msg);
        let tags: Vec<&str> = list.split('`').skip(1).step_by(2).collect();
        assert!(tags.len() >= 13, "{tags:?}");
        assert_eq!(tags, EVENT_NAMES, "EVENT_NAMES must list every EventKind");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::ActionKind;
    use serde_json::{Value, json};

    fn sample_area() -> crate::observe::ObservedArea {
        crate::observe::ObservedArea {
            rect: franz_desktop::PixelRect::new(100, 50, 640, 480),
            window: Some(crate::observe::ShownWindow {
                id: 0x40_0001,
                title: "notes - editor".into(),
                application: "Gedit".into(),
            }),
            fallback: None,
        }
    }

    fn all_kinds() -> Vec<EventKind> {
        let click: Action = ActionKind::Click {
            x: Some(500),
            y: Some(300),
        }
        .into();
        vec![
            EventKind::RunStarted {
                task: "open the editor".into(),
                strategy: "narrative".into(),
                model: "qwen".into(),
                run_dir: Some("runs/run_0001".into()),
                dry_run: false,
            },
            EventKind::TurnStarted {},
            EventKind::Observation {
                width: 1536,
                height: 864,
                bytes: 1234,
                timings: StageTimings::default(),
                changed: Some(true),
                region: Some(NormBox::from_corners(10, 20, 300, 400)),
                reused: false,
                elements: None,
                area: Some(sample_area()),
            },
        ]
        .into_iter()
        .chain(model_kinds(&click))
        .chain([
            EventKind::Note { text: "hi".into() },
            EventKind::Error {
                message: "boom".into(),
                fatal: true,
            },
            EventKind::RunFinished {
                outcome: Outcome::Done,
                exit_code: 0,
                reason: "the model said done".into(),
                turns: 3,
            },
            EventKind::Paused {
                reason: "panel".into(),
            },
            EventKind::Resumed {},
            EventKind::AwaitingApproval {
                actions: vec![click],
            },
            EventKind::AwaitingAnnotation {
                prompt: "circle the button".into(),
            },
            EventKind::AwaitingAnswer {
                question: "which account?".into(),
            },
            EventKind::ModelDelta {
                text: "I see a".into(),
            },
            EventKind::ContextFitted {
                step: "smaller_image".into(),
                tokens_before: 9000,
                tokens_after: 6000,
                budget: 6144,
                images: 1,
                width: 1092,
                height: 616,
            },
            EventKind::LoopDetected {
                action: "{\"name\":\"click\",\"x\":500,\"y\":500}".into(),
                turns: vec![1, 2],
                repeats: 2,
                stop: false,
            },
        ])
        .chain([refined_kind(), EventKind::sample_grounded()])
        .collect()
    }

    /// A zoom-in refinement (docs/refine.md).
    fn refined_kind() -> EventKind {
        EventKind::Refined {
            index: 0,
            action: "click".into(),
            from: [960, 540],
            to: [981, 552],
            distance: 24.2,
            crop: franz_desktop::PixelRect::new(640, 360, 640, 360),
            width: 640,
            height: 360,
            ms: 812.0,
            prompt_tokens: Some(900),
            completion_tokens: Some(20),
            error: None,
        }
    }

    /// A request, its retry, the reply and an action's result.
    fn model_kinds(click: &Action) -> Vec<EventKind> {
        vec![
            EventKind::ModelRequest {
                model: "qwen".into(),
                attempt: 1,
                messages: 2,
                images: 1,
                bytes: 9999,
                reason: None,
                image: Some(ImageCost {
                    width: 1092,
                    height: 616,
                    tokens: 858,
                }),
                image_tokens: 858,
                estimated_tokens: 2000,
                context_tokens: Some(8192),
            },
            EventKind::ModelRequest {
                model: "qwen".into(),
                attempt: 2,
                messages: 2,
                images: 1,
                bytes: 9999,
                reason: Some("HTTP 503 (loading); retrying in 0.5 s".into()),
                image: None,
                image_tokens: 0,
                estimated_tokens: 0,
                context_tokens: None,
            },
            EventKind::ModelReply {
                ms: 812.5,
                text: "left_click(500,300)".into(),
                story: Some("I click".into()),
                actions: vec![click.clone()],
                bboxes: vec![NormBox::from_corners(1, 2, 3, 4)],
                prompt_tokens: Some(10),
                completion_tokens: None,
            },
            EventKind::ActionResult {
                index: 0,
                action: click.clone(),
                result: ActionResult::ok(),
                ms: 3.0,
                early_exec_ms_saved: Some(120.0),
            },
        ]
    }

    #[test]
    fn every_kind_has_the_contract_shape_and_round_trips() {
        let mut names: Vec<&str> = all_kinds().iter().map(EventKind::name).collect();
        names.dedup();
        assert_eq!(names, EVENT_NAMES, "the samples must cover every kind");
        for (i, kind) in all_kinds().into_iter().enumerate() {
            let e = Event {
                turn: i as u32,
                t_ms: 1_700_000_000_000,
                kind,
            };
            let v: Value = serde_json::from_str(&e.to_json_line()).unwrap();
            assert_eq!(v["event"], e.name(), "{v}");
            assert_eq!(v["turn"], i as u64);
            assert_eq!(v["t_ms"], 1_700_000_000_000u64);
            let back: Event = serde_json::from_value(v).unwrap();
            assert_eq!(back, e);
        }
    }

    #[test]
    fn action_result_carries_canonical_action_json() {
        let e = Event {
            turn: 2,
            t_ms: 5,
            kind: EventKind::ActionResult {
                index: 1,
                action: ActionKind::Key {
                    keys: "ctrl+s".into(),
                }
                .into(),
                result: ActionResult::ok(),
                ms: 0.5,
                early_exec_ms_saved: None,
            },
        };
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            json!({"event":"action_result","turn":2,"t_ms":5,"index":1,
                   "action":{"type":"key","keys":"ctrl+s"},"result":{"status":"ok"},"ms":0.5})
        );
        // a minimal record from another producer still reads
        let e: Event =
            serde_json::from_str(r#"{"event":"turn_started","turn":3,"t_ms":1}"#).unwrap();
        assert_eq!(e.kind, EventKind::TurnStarted {});
    }

    #[test]
    fn outcomes_map_to_contract_exit_codes() {
        assert_eq!(Outcome::Done.exit_code(), 0);
        assert_eq!(Outcome::Failed.exit_code(), 1);
        assert_eq!(Outcome::Unreachable.exit_code(), 3);
        assert_eq!(Outcome::Stopped.exit_code(), 4);
        assert_eq!(Outcome::Interrupted.exit_code(), 130);
        assert_eq!(
            serde_json::to_value(Outcome::UsageError).unwrap(),
            "usage_error"
        );
    }
}
