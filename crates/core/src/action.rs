//! The action vocabulary: what every parser and strategy produces and the executor performs.
//!
//! The canonical JSON is documented in docs/actions.md: an object tagged by `"type"`, coordinates
//! in 0..1000 of the working area, and an optional `"note"` on every action. The run log and
//! `franz parse` use this same JSON.

use crate::keys;
use franz_desktop::{Button, ScrollDirection};
use serde::{Deserialize, Serialize};

/// One action and the model's note on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Action {
    #[serde(flatten)]
    pub kind: ActionKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The model's own values of the target, when a family profile read them
    /// (docs/coordinates.md, "Exact targets"): the executor maps these, not `x`/`y`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact: Option<crate::exact_target::Exact>,
    /// A grounding mark of this turn (`element=7`) in place of the point: the executor acts at
    /// its box's centre (`type` clicks it first). Only on clicks, `move` and `type`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<u32>,
    /// The parser took a point the model gave just past the edge of its space for the edge
    /// (docs/coordinates.md, "Out-of-range values"): what it gave and where it acts. The
    /// executor passes it on in the action's result, as a `clamped` warning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clamped: Option<String>,
    /// The dialect the parser read the action in when it is not the one the run asks for
    /// (docs/actions.md, "Replies in another dialect"); the engine says so in a `note` event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_in: Option<String>,
    /// Where `element` was when the action ran (its box centre, 0..1000 of the working area),
    /// written by the engine into the run log so that `franz replay` shows it and `replay
    /// --execute` acts there (docs/actions.md). Never read from a model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element_at: Option<[i32; 2]>,
    /// The target in the planner's words (`click(target="the Save button")`) in place of the
    /// point, when a grounding model is configured (docs/grounding.md): the engine asks the
    /// grounder for the point and writes it into `exact` and `x`/`y` before the action runs.
    /// Only on clicks and `move`. An action whose target was not grounded is never performed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
}

impl From<ActionKind> for Action {
    fn from(kind: ActionKind) -> Self {
        Action {
            kind,
            note: None,
            exact: None,
            element: None,
            clamped: None,
            read_in: None,
            element_at: None,
            target: None,
        }
    }
}

/// What to do. Coordinates are 0..1000 in the working area; `None` means "at the pointer".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ActionKind {
    /// A move needs its point, or an element (`Action::element`) in its place.
    Move {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        x: Option<i32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        y: Option<i32>,
    },
    Click {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        x: Option<i32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        y: Option<i32>,
    },
    RightClick {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        x: Option<i32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        y: Option<i32>,
    },
    MiddleClick {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        x: Option<i32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        y: Option<i32>,
    },
    DoubleClick {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        x: Option<i32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        y: Option<i32>,
    },
    TripleClick {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        x: Option<i32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        y: Option<i32>,
    },
    MouseDown {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        x: Option<i32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        y: Option<i32>,
        #[serde(default = "left")]
        button: Button,
    },
    MouseUp {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        x: Option<i32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        y: Option<i32>,
        #[serde(default = "left")]
        button: Button,
    },
    /// Press the left button, hold it `seconds`, release it: one action, so that no button
    /// stays down whatever happens in between (see the executor's held input).
    LongPress {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        x: Option<i32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        y: Option<i32>,
        #[serde(default = "one")]
        seconds: f64,
    },
    Drag {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        x: Option<i32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        y: Option<i32>,
        x2: i32,
        y2: i32,
    },
    Scroll {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        x: Option<i32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        y: Option<i32>,
        direction: ScrollDirection,
        #[serde(default = "three")]
        amount: u32,
    },
    Type {
        text: String,
    },
    Key {
        keys: String,
    },
    /// Press a combo, hold it `seconds`, release it (in reverse order): one action.
    HoldKey {
        keys: String,
        #[serde(default = "one")]
        seconds: f64,
    },
    Wait {
        seconds: f64,
    },
    Observe,
    Done {
        #[serde(default)]
        text: String,
    },
    Fail {
        #[serde(default)]
        text: String,
    },
    AskUser {
        #[serde(default)]
        text: String,
    },
    ReportProgress {
        #[serde(default)]
        objective_id: String,
        status: ProgressStatus,
        #[serde(default)]
        evidence: String,
    },
    ReportCompletion {
        #[serde(default)]
        evidence: String,
    },
    /// Lists the top-level windows (title, application, bounds, focused) in the result.
    ListWindows,
    /// Brings the window named by `window` (a title or application pattern, or an id from
    /// `list_windows`) to the front with the focus.
    FocusWindow {
        #[serde(default)]
        window: String,
    },
}

fn left() -> Button {
    Button::Left
}
fn three() -> u32 {
    3
}
fn one() -> f64 {
    1.0
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ProgressStatus {
    Done,
    Blocked,
    InProgress,
}

/// The longest `wait`, `long_press` or `hold_key` a model may ask for, in seconds.
pub const MAX_WAIT_SECONDS: f64 = 60.0;

/// The largest scroll, in notches, one action may ask for (a model, `franz act`, `replay`
/// or an MCP client): each notch is an input event, and a billion of them hold the desktop.
pub const MAX_SCROLL_NOTCHES: u32 = 100;

/// The most characters one `type` action types (about a minute and a half at the human
/// cadence): a longer text is split over several actions.
pub const MAX_TYPE_CHARS: usize = 10_000;

impl ActionKind {
    /// Whether an action is a pointer action (it resets the typed text).
    pub fn is_pointer(&self) -> bool {
        matches!(
            self,
            ActionKind::Move { .. }
                | ActionKind::Click { .. }
                | ActionKind::RightClick { .. }
                | ActionKind::MiddleClick { .. }
                | ActionKind::DoubleClick { .. }
                | ActionKind::TripleClick { .. }
                | ActionKind::MouseDown { .. }
                | ActionKind::MouseUp { .. }
                | ActionKind::LongPress { .. }
                | ActionKind::Drag { .. }
                | ActionKind::Scroll { .. }
        )
    }

    /// Whether an action only speaks to franz or the person (waiting, looking, finishing,
    /// asking, reporting): it touches no window, no pointer and no key.
    pub fn is_bookkeeping(&self) -> bool {
        matches!(
            self,
            ActionKind::Wait { .. }
                | ActionKind::Observe
                | ActionKind::Done { .. }
                | ActionKind::Fail { .. }
                | ActionKind::AskUser { .. }
                | ActionKind::ReportProgress { .. }
                | ActionKind::ReportCompletion { .. }
        )
    }

    /// Whether an action is a click of any button or count (not a press or a release).
    pub fn is_click(&self) -> bool {
        matches!(
            self,
            ActionKind::Click { .. }
                | ActionKind::RightClick { .. }
                | ActionKind::MiddleClick { .. }
                | ActionKind::DoubleClick { .. }
                | ActionKind::TripleClick { .. }
        )
    }

    /// The `"type"` tag.
    pub fn name(&self) -> &'static str {
        match self {
            ActionKind::Move { .. } => "move",
            ActionKind::Click { .. } => "click",
            ActionKind::RightClick { .. } => "right_click",
            ActionKind::MiddleClick { .. } => "middle_click",
            ActionKind::DoubleClick { .. } => "double_click",
            ActionKind::TripleClick { .. } => "triple_click",
            ActionKind::MouseDown { .. } => "mouse_down",
            ActionKind::MouseUp { .. } => "mouse_up",
            ActionKind::LongPress { .. } => "long_press",
            ActionKind::Drag { .. } => "drag",
            ActionKind::Scroll { .. } => "scroll",
            ActionKind::Type { .. } => "type",
            ActionKind::Key { .. } => "key",
            ActionKind::HoldKey { .. } => "hold_key",
            ActionKind::Wait { .. } => "wait",
            ActionKind::Observe => "observe",
            ActionKind::Done { .. } => "done",
            ActionKind::Fail { .. } => "fail",
            ActionKind::AskUser { .. } => "ask_user",
            ActionKind::ReportProgress { .. } => "report_progress",
            ActionKind::ReportCompletion { .. } => "report_completion",
            ActionKind::ListWindows => "list_windows",
            ActionKind::FocusWindow { .. } => "focus_window",
        }
    }

    /// The point the action acts at, if it names one.
    pub fn point(&self) -> Option<(i32, i32)> {
        use ActionKind::*;
        match *self {
            Move {
                x: Some(x),
                y: Some(y),
            } => Some((x, y)),
            Click {
                x: Some(x),
                y: Some(y),
            }
            | RightClick {
                x: Some(x),
                y: Some(y),
            }
            | MiddleClick {
                x: Some(x),
                y: Some(y),
            }
            | DoubleClick {
                x: Some(x),
                y: Some(y),
            }
            | TripleClick {
                x: Some(x),
                y: Some(y),
            }
            | MouseDown {
                x: Some(x),
                y: Some(y),
                ..
            }
            | MouseUp {
                x: Some(x),
                y: Some(y),
                ..
            }
            | LongPress {
                x: Some(x),
                y: Some(y),
                ..
            }
            | Drag {
                x: Some(x),
                y: Some(y),
                ..
            }
            | Scroll {
                x: Some(x),
                y: Some(y),
                ..
            } => Some((x, y)),
            _ => None,
        }
    }

    /// Whether the action ends the run (done, fail, ask_user, report_completion).
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            ActionKind::Done { .. }
                | ActionKind::Fail { .. }
                | ActionKind::AskUser { .. }
                | ActionKind::ReportCompletion { .. }
        )
    }

    /// Checks what can be checked without a screen. Out-of-range coordinates are not errors
    /// here: the executor's `work_area` rule refuses them (crates/core/src/executor/fence.rs).
    pub fn validate(&self) -> Result<(), ActionError> {
        use ActionKind::*;
        let half = |x: &Option<i32>, y: &Option<i32>| -> Result<(), ActionError> {
            match (x, y) {
                (Some(_), None) | (None, Some(_)) => Err(ActionError::new(
                    ErrorKind::InvalidCoordinate,
                    format!(
                        "{}: give both x and y, or neither to act at the pointer",
                        self.name()
                    ),
                )),
                (Some(-1), Some(-1)) => Err(no_target(self.name())),
                _ => Ok(()),
            }
        };
        match self {
            Move { x: None, y: None } => Err(ActionError::new(
                ErrorKind::InvalidCoordinate,
                "move: give x and y (or an element from this turn's list)",
            )),
            Move { x, y } => half(x, y),
            Click { x, y }
            | RightClick { x, y }
            | MiddleClick { x, y }
            | DoubleClick { x, y }
            | TripleClick { x, y }
            | MouseDown { x, y, .. }
            | MouseUp { x, y, .. } => half(x, y),
            LongPress { x, y, seconds } => {
                half(x, y)?;
                seconds_in_range(self.name(), *seconds)
            }
            Scroll { x, y, amount, .. } => {
                scroll_amount_in_range(*amount)?;
                half(x, y)
            }
            Drag { x, y, x2, y2 } => {
                half(x, y)?;
                if (*x2, *y2) == (-1, -1) {
                    return Err(no_target("drag end"));
                }
                Ok(())
            }
            Type { text } => type_text_in_range(text),
            Key { keys } => keys::parse_combo(keys)
                .map(|_| ())
                .map_err(|e| ActionError::new(ErrorKind::InvalidKey, e.to_string())),
            HoldKey { keys, seconds } => {
                keys::parse_combo(keys)
                    .map_err(|e| ActionError::new(ErrorKind::InvalidKey, e.to_string()))?;
                seconds_in_range(self.name(), *seconds)
            }
            Wait { seconds } => seconds_in_range(self.name(), *seconds),
            FocusWindow { window } if window.trim().is_empty() => Err(ActionError::new(
                ErrorKind::MissingField,
                "focus_window: give the window's title (or part of it) or its id from list_windows",
            )),
            ReportCompletion { evidence } | ReportProgress { evidence, .. }
                if evidence.trim().is_empty() =>
            {
                Err(ActionError::new(
                    ErrorKind::MissingField,
                    format!("{}: evidence is empty", self.name()),
                ))
            }
            _ => Ok(()),
        }
    }
}

/// A scroll's notches, 1 to [`MAX_SCROLL_NOTCHES`].
fn scroll_amount_in_range(amount: u32) -> Result<(), ActionError> {
    if amount == 0 {
        return Err(ActionError::new(
            ErrorKind::InvalidValue,
            format!("scroll: amount is 0 notches; give 1 to {MAX_SCROLL_NOTCHES}"),
        ));
    }
    if amount > MAX_SCROLL_NOTCHES {
        return Err(ActionError::new(
            ErrorKind::InvalidValue,
            format!(
                "scroll: {amount} notches is too many for one action; give 1 to {MAX_SCROLL_NOTCHES}"
            ),
        ));
    }
    Ok(())
}

/// A text to type: not empty, at most [`MAX_TYPE_CHARS`] characters.
fn type_text_in_range(text: &str) -> Result<(), ActionError> {
    if text.is_empty() {
        return Err(ActionError::new(
            ErrorKind::EmptyText,
            "type: the text is empty; give the text to type",
        ));
    }
    if text.chars().nth(MAX_TYPE_CHARS).is_some() {
        return Err(ActionError::new(
            ErrorKind::InvalidValue,
            format!(
                "type: {} characters is too many for one action; give at most {MAX_TYPE_CHARS} (split the text over several actions)",
                text.chars().count()
            ),
        ));
    }
    Ok(())
}

/// `wait`, `long_press` and `hold_key` last 0 to [`MAX_WAIT_SECONDS`].
fn seconds_in_range(what: &str, seconds: f64) -> Result<(), ActionError> {
    if !seconds.is_finite() || !(0.0..=MAX_WAIT_SECONDS).contains(&seconds) {
        return Err(ActionError::new(
            ErrorKind::InvalidValue,
            format!("{what}: {seconds} seconds is out of range; give 0 to {MAX_WAIT_SECONDS}"),
        ));
    }
    Ok(())
}

/// Every action kind, as its `"type"` tag, in declaration order. Lets docs and tools list the
/// vocabulary; `names_list_every_kind` keeps it complete.
pub const ACTION_NAMES: &[&str] = &[
    "move",
    "click",
    "right_click",
    "middle_click",
    "double_click",
    "triple_click",
    "mouse_down",
    "mouse_up",
    "long_press",
    "drag",
    "scroll",
    "type",
    "key",
    "hold_key",
    "wait",
    "observe",
    "done",
    "fail",
    "ask_user",
    "report_progress",
    "report_completion",
    "list_windows",
    "focus_window",
];

#[cfg(test)]
mod names_tests {
    use super::*;

    /// The tags serde knows, read from its "unknown variant" message, which lists them all.
    fn serde_tags() -> Vec<String> {
        let e = serde_json::from_str::<ActionKind>(r#"{"type":"no_such_kind"}"#).unwrap_err();
        let msg = e.to_string();
        let list = msg.split("expected one of ").nth(1).expect(&msg);
        list.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn names_list_every_kind() {
        let tags = serde_tags();
        assert!(tags.len() >= 21, "{tags:?}");
        assert_eq!(
            tags, ACTION_NAMES,
            "ACTION_NAMES must list every ActionKind"
        );
        // and each is what `name()` says for that kind
        for name in ACTION_NAMES {
            let v = serde_json::json!({"type": name, "x": 1, "y": 2, "x2": 3, "y2": 4,
                "direction": "up", "text": "t", "keys": "a", "seconds": 1.0,
                "status": "DONE", "evidence": "e"});
            let k: ActionKind = serde_json::from_value(v).unwrap();
            assert_eq!(k.name(), *name);
        }
    }
}

fn no_target(what: &str) -> ActionError {
    ActionError::new(
        ErrorKind::InvalidCoordinate,
        format!("{what}: [-1, -1] is not a place to act; give a point in 0..1000"),
    )
}

impl Action {
    pub fn validate(&self) -> Result<(), ActionError> {
        if self.exact.is_some_and(|e| !e.is_valid()) {
            return Err(ActionError::new(
                ErrorKind::InvalidCoordinate,
                format!(
                    "{}: \"exact\" needs finite numbers and an extent \"of\" above 0",
                    self.kind.name()
                ),
            ));
        }
        // a move to an element or a target has no point of its own
        if (self.element.is_some() || self.target.is_some())
            && matches!(self.kind, ActionKind::Move { x: None, y: None })
        {
            return Ok(());
        }
        self.kind.validate()
    }

    /// Reads canonical Action JSON, with a message that says what is wrong.
    pub fn from_json(text: &str) -> Result<Action, ActionError> {
        let a: Action = serde_json::from_str(text).map_err(|e| {
            ActionError::new(
                ErrorKind::InvalidAction,
                format!("not a canonical action ({e}): expected e.g. {{\"type\":\"click\",\"x\":500,\"y\":300}}"),
            )
        })?;
        a.validate()?;
        Ok(a)
    }
}

/// Why an action could not be (or was not) performed. It goes back to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    InvalidAction,
    InvalidKey,
    EmptyText,
    InvalidCoordinate,
    InvalidValue,
    MissingField,
    TooManyActions,
    TooManyToolCalls,
    Rejected,
    ExecutionFailed,
    /// Refused by the safety policy (crates/core/src/policy.rs).
    PolicyDenied,
}

impl ErrorKind {
    pub fn as_str(&self) -> &'static str {
        match self {
            ErrorKind::InvalidAction => "invalid_action",
            ErrorKind::InvalidKey => "invalid_key",
            ErrorKind::EmptyText => "empty_text",
            ErrorKind::InvalidCoordinate => "invalid_coordinate",
            ErrorKind::InvalidValue => "invalid_value",
            ErrorKind::MissingField => "missing_field",
            ErrorKind::TooManyActions => "too_many_actions",
            ErrorKind::TooManyToolCalls => "too_many_tool_calls",
            ErrorKind::Rejected => "rejected",
            ErrorKind::ExecutionFailed => "execution_failed",
            ErrorKind::PolicyDenied => "policy_denied",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{}: {message}", kind.as_str())]
pub struct ActionError {
    pub kind: ErrorKind,
    pub message: String,
}

impl ActionError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
}

/// A warning on an action that was still performed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    /// e.g. `outside_work_area`.
    pub kind: String,
    pub message: String,
}

/// What became of one action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ActionResult {
    Ok {
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        warnings: Vec<Warning>,
    },
    Error(ActionError),
}

impl ActionResult {
    pub fn ok() -> Self {
        ActionResult::Ok {
            warnings: Vec::new(),
        }
    }
    pub fn is_ok(&self) -> bool {
        matches!(self, ActionResult::Ok { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_json_round_trips() {
        for v in [
            json!({"type":"click","x":500,"y":300}),
            json!({"type":"click"}),
            json!({"type":"drag","x":1,"y":2,"x2":3,"y2":4,"note":"move file"}),
            json!({"type":"scroll","direction":"down","amount":3}),
            json!({"type":"mouse_down","button":"right"}),
            json!({"type":"key","keys":"ctrl+s"}),
            json!({"type":"type","text":"Grüße 你好"}),
            json!({"type":"wait","seconds":1.5}),
            json!({"type":"long_press","x":10,"y":20,"seconds":2.0}),
            json!({"type":"long_press","seconds":0.5}),
            json!({"type":"hold_key","keys":"shift","seconds":3.0}),
            json!({"type":"observe"}),
            json!({"type":"done","text":"42"}),
            json!({"type":"report_progress","objective_id":"1","status":"IN_PROGRESS","evidence":"x"}),
            json!({"type":"report_completion","evidence":"y"}),
            json!({"type":"list_windows"}),
            json!({"type":"focus_window","window":"xterm"}),
        ] {
            let a: Action = serde_json::from_value(v.clone()).unwrap();
            assert_eq!(serde_json::to_value(&a).unwrap(), v);
        }
        let a = Action::from_json(r#"{"type":"scroll","direction":"up"}"#).unwrap();
        assert_eq!(
            a.kind,
            ActionKind::Scroll {
                x: None,
                y: None,
                direction: ScrollDirection::Up,
                amount: 3
            }
        );
    }

    #[test]
    fn a_scroll_or_a_text_beyond_its_range_is_refused_wherever_it_comes_from() {
        let err = |s: &str| Action::from_json(s).unwrap_err();
        let e = err(r#"{"type":"scroll","direction":"down","amount":1000000000}"#);
        assert_eq!(e.kind, ErrorKind::InvalidValue);
        assert!(e.message.contains("give 1 to 100"), "{}", e.message);
        assert!(Action::from_json(r#"{"type":"scroll","direction":"down","amount":100}"#).is_ok());
        let long = serde_json::json!({"type": "type", "text": "a".repeat(MAX_TYPE_CHARS + 1)});
        let e = err(&long.to_string());
        assert!(e.message.contains("at most 10000"), "{}", e.message);
        let fits = serde_json::json!({"type": "type", "text": "é".repeat(MAX_TYPE_CHARS)});
        assert!(Action::from_json(&fits.to_string()).is_ok());
    }

    #[test]
    fn validation_catches_bad_actions() {
        let kind = |s: &str| Action::from_json(s).unwrap_err().kind;
        assert_eq!(kind(r#"{"type":"type","text":""}"#), ErrorKind::EmptyText);
        assert_eq!(
            kind(r#"{"type":"key","keys":"ctrl+warp"}"#),
            ErrorKind::InvalidKey
        );
        assert_eq!(
            kind(r#"{"type":"click","x":-1,"y":-1}"#),
            ErrorKind::InvalidCoordinate
        );
        assert_eq!(
            kind(r#"{"type":"click","x":5}"#),
            ErrorKind::InvalidCoordinate
        );
        assert_eq!(
            kind(r#"{"type":"drag","x":1,"y":1}"#),
            ErrorKind::InvalidAction
        );
        assert_eq!(kind(r#"{"type":"teleport"}"#), ErrorKind::InvalidAction);
        assert_eq!(kind(r#"{"type":"focus_window"}"#), ErrorKind::MissingField);
        assert_eq!(
            kind(r#"{"type":"wait","seconds":-2}"#),
            ErrorKind::InvalidValue
        );
        assert_eq!(
            kind(r#"{"type":"long_press","x":1,"y":1,"seconds":61}"#),
            ErrorKind::InvalidValue
        );
        assert_eq!(
            kind(r#"{"type":"long_press","x":1}"#),
            ErrorKind::InvalidCoordinate
        );
        assert_eq!(
            kind(r#"{"type":"hold_key","keys":"ctrl+warp","seconds":1}"#),
            ErrorKind::InvalidKey
        );
        assert_eq!(
            kind(r#"{"type":"hold_key","keys":"shift","seconds":-1}"#),
            ErrorKind::InvalidValue
        );
        // seconds default to 1
        assert_eq!(
            Action::from_json(r#"{"type":"hold_key","keys":"shift"}"#)
                .unwrap()
                .kind,
            ActionKind::HoldKey {
                keys: "shift".into(),
                seconds: 1.0
            }
        );
        // out of range is clamped later, not refused
        assert!(Action::from_json(r#"{"type":"click","x":1200,"y":5}"#).is_ok());
    }
}
