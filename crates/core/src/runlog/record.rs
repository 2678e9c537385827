//! The records of `turns.jsonl` (docs/events.md): two per turn, tagged by `stage`.
//!
//! ```text
//! {"stage":"raw","turn":1,"t_ms":..,"observation":"..","bboxes":[..],"actions":[..],"results":[..],"timings":{..},"raw_png":"turn_0001_raw.png"}
//! {"stage":"annotated","turn":1,"annotated_png":"turn_0001_annotated.png"}
//! ```
//! `observation` holds the model's observation or, for the narrative strategy, its story.
//! `actions` are canonical Action JSON; `results[i]` is what became of `actions[i]`.

use crate::action::{Action, ActionResult};
use crate::geometry::NormBox;
use crate::observe::StageTimings;
use serde::{Deserialize, Serialize};

/// One line of `turns.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "stage", rename_all = "snake_case")]
pub enum Record {
    Raw(Box<RawRecord>),
    Annotated(AnnotatedRecord),
}

/// The turn's content and its raw screenshot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RawRecord {
    pub turn: u32,
    /// When the record was written, Unix milliseconds.
    #[serde(default)]
    pub t_ms: u64,
    /// The model's own text of the turn: the narrative strategy's story, the vision strategy's
    /// notes. Its JSON name stays `observation` (run logs of every version read alike).
    #[serde(default, rename = "observation")]
    pub story: String,
    #[serde(default)]
    pub bboxes: Vec<NormBox>,
    #[serde(default)]
    pub actions: Vec<Action>,
    #[serde(default)]
    pub results: Vec<ActionResult>,
    #[serde(default)]
    pub timings: TurnTimings,
    /// The raw screenshot, relative to the run directory; absent when the run did not keep it
    /// (`log_images` `none`, or `annotated` with feedback on): a record names only files that
    /// exist.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_png: Option<String>,
    /// A turn-level error (the reply could not be parsed, the model call failed, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The screenshot the model was sent, with the overlays.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnnotatedRecord {
    pub turn: u32,
    /// Relative to the run directory. Equals the raw png when feedback is off; absent when the
    /// run kept no screenshot of the turn (`log_images` `none`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotated_png: Option<String>,
}

/// Where a turn's time went, in milliseconds. Everything but `model_ms` is agent time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct TurnTimings {
    /// The observation pipeline, per stage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observe: Option<StageTimings>,
    /// Waiting for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_ms: Option<f64>,
    /// Performing the actions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub act_ms: Option<f64>,
    /// The whole turn, model included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_ms: Option<f64>,
    /// Early execution (engine/early.rs): how long before the whole reply had been read the
    /// turn's action started. `None`: it ran after the reply, as usual.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub early_exec_ms_saved: Option<f64>,
}

impl TurnTimings {
    /// Time spent by franz itself: the whole turn less the model, or, without a turn total,
    /// acting plus observing.
    pub fn agent_ms(&self) -> f64 {
        match self.turn_ms {
            Some(t) => (t - self.model_ms.unwrap_or(0.0)).max(0.0),
            None => self.act_ms.unwrap_or(0.0) + self.observe.map(|o| o.total).unwrap_or(0.0),
        }
    }
}

/// What the engine hands the writer for one turn; the writer adds the image names and time.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TurnEntry {
    pub turn: u32,
    /// The model's own text of the turn (story or notes), `observation` in turns.jsonl.
    pub story: String,
    pub bboxes: Vec<NormBox>,
    pub actions: Vec<Action>,
    pub results: Vec<ActionResult>,
    pub timings: TurnTimings,
    pub error: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn records_use_seed_000_keys() {
        let raw = Record::Raw(Box::new(RawRecord {
            turn: 1,
            t_ms: 0,
            story: "story".into(),
            bboxes: vec![],
            actions: vec![],
            results: vec![],
            timings: TurnTimings::default(),
            raw_png: Some("turn_0001_raw.png".into()),
            error: None,
        }));
        let v = serde_json::to_value(&raw).unwrap();
        assert_eq!(v["stage"], "raw");
        assert_eq!(v["raw_png"], "turn_0001_raw.png");
        let ann: Record = serde_json::from_value(
            json!({"turn":1,"stage":"annotated","annotated_png":"turn_0001_annotated.png"}),
        )
        .unwrap();
        assert!(matches!(ann, Record::Annotated(a) if a.turn == 1));
        // the vision loop's own example line reads (docs/events.md)
        let seed: Record = serde_json::from_str(
            r#"{"turn":1,"stage":"raw","observation":"...","bboxes":[],"actions":[],"raw_png":"turn_0001_raw.png"}"#,
        )
        .unwrap();
        assert!(matches!(seed, Record::Raw(r) if r.story == "..."));
    }

    #[test]
    fn a_turn_without_kept_screenshots_names_none() {
        let raw = Record::Raw(Box::new(RawRecord {
            turn: 1,
            t_ms: 0,
            story: String::new(),
            bboxes: vec![],
            actions: vec![],
            results: vec![],
            timings: TurnTimings::default(),
            raw_png: None,
            error: None,
        }));
        let v = serde_json::to_value(&raw).unwrap();
        assert!(v.get("raw_png").is_none(), "{v}");
        let ann = Record::Annotated(AnnotatedRecord {
            turn: 1,
            annotated_png: None,
        });
        let v = serde_json::to_value(&ann).unwrap();
        assert_eq!(v, json!({"stage": "annotated", "turn": 1}));
        let back: Record = serde_json::from_value(v).unwrap();
        assert_eq!(back, ann);
    }

    #[test]
    fn agent_time_excludes_the_model() {
        let t = TurnTimings {
            model_ms: Some(700.0),
            turn_ms: Some(1000.0),
            ..Default::default()
        };
        assert_eq!(t.agent_ms(), 300.0);
        let t = TurnTimings {
            act_ms: Some(5.0),
            ..Default::default()
        };
        assert_eq!(t.agent_ms(), 5.0);
    }
}
