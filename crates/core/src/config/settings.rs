//! The table of settings: key, type, default, the designs' environment names (docs/designs.md), and
//! help.

use super::choice::{Choice, Coords};
use super::{ConfigError, Resolved, Source};
use crate::executor::MotionProfile;
use crate::parser::Dialect;
use crate::runlog::{Layout, LogImages};
use crate::strategy::StrategyName;

/// The type of a setting's value, and its bounds.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    Str,
    /// Non-empty string.
    NonEmpty,
    Float {
        min: f64,
        max: f64,
    },
    Int {
        min: u64,
        max: u64,
    },
    /// Seconds, as a number or with a unit: `90`, `90s`, `30m`, `2h`. Stored as seconds.
    Duration {
        max: f64,
    },
    Bool,
    Choice(&'static [&'static str]),
    /// `WxH`, or empty for "not set".
    Size,
    /// `x1,y1,x2,y2`.
    Crop,
    /// A percentage, with or without `%`: `50`, `50%`.
    Percent {
        max: f64,
    },
    /// Environment variable names: `A,B` on a flag or in the environment, a list of strings
    /// (`["A", "B"]`) in a file. Stored as a list.
    Names,
}

/// Which commands take a setting's flag: `franz run` and `franz config` take every group;
/// other commands take only the groups they use (see the CLI's `settings` module).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// Global flags, accepted before or after any subcommand: the desktop and the image.
    Global,
    /// The model server and the request.
    Model,
    /// The run's loop: strategy, limits, the run directory, how replies are read.
    Run,
    /// How input is performed (also `franz act`).
    Input,
    /// What is drawn onto the screenshots.
    Image,
    /// The tools strategy's history.
    History,
    /// The commander strategy.
    Commander,
}

impl Group {
    pub const ALL: [Group; 7] = [
        Group::Global,
        Group::Model,
        Group::Run,
        Group::Input,
        Group::Image,
        Group::History,
        Group::Commander,
    ];

    pub const fn bit(self) -> u8 {
        1 << self as u8
    }

    /// A heading for the documentation.
    pub fn title(self) -> &'static str {
        match self {
            Group::Global => "Desktop and image (global flags)",
            Group::Model => "Model server",
            Group::Run => "Run",
            Group::Input => "Input",
            Group::Image => "Annotation",
            Group::History => "History (tools strategy)",
            Group::Commander => "Commander strategy",
        }
    }
}

/// How a setting is given on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Flag {
    /// `--long VALUE`.
    Value { long: String },
    /// `--long` alone sets the setting to `value` (`--stream` is true, `--no-feedback` false).
    Switch { long: String, value: &'static str },
}

impl Flag {
    pub fn long(&self) -> &str {
        match self {
            Flag::Value { long } | Flag::Switch { long, .. } => long,
        }
    }
}

/// One setting.
#[derive(Debug, Clone, Copy)]
pub struct Setting {
    pub group: Group,
    pub key: &'static str,
    pub kind: Kind,
    /// The default, written as a user would write it.
    pub default: &'static str,
    /// The designs' environment names (docs/designs.md) that also set it.
    pub seed_env: &'static [&'static str],
    pub secret: bool,
    pub help: &'static str,
    /// What the value must also be beyond its kind (a mask's boxes, a URL, a key that can be
    /// sent as a header): checked here, when the configuration is resolved, so every command
    /// refuses it with the same message (`franz config` as `franz run`).
    pub check: Option<Check>,
}

/// A setting's own check: the value (as text), or why it is refused.
pub type Check = fn(&str) -> Result<(), String>;

const fn s(
    group: Group,
    key: &'static str,
    kind: Kind,
    default: &'static str,
    help: &'static str,
) -> Setting {
    Setting {
        group,
        key,
        kind,
        default,
        seed_env: &[],
        secret: false,
        help,
        check: None,
    }
}

const fn checked(mut x: Setting, check: Check) -> Setting {
    x.check = Some(check);
    x
}

const fn seed(mut x: Setting, names: &'static [&'static str]) -> Setting {
    x.seed_env = names;
    x
}

/// Every setting franz has.
pub const SETTINGS: &[Setting] = &[
    seed(
        checked(
            s(
                Group::Model,
                "api_url",
                Kind::NonEmpty,
                "http://localhost:1234/v1",
                "the model server: a base URL or the full chat/completions endpoint",
            ),
            super::checks::url,
        ),
        &["LMSTUDIO_ENDPOINT"],
    ),
    seed(
        s(
            Group::Model,
            "model",
            Kind::NonEmpty,
            "qwen3-vl-8b-instruct",
            "the model name sent with each request",
        ),
        &["LMSTUDIO_MODEL"],
    ),
    Setting {
        secret: true,
        seed_env: &["OPENAI_API_KEY"],
        check: Some(super::checks::header),
        ..s(
            Group::Model,
            "api_key",
            Kind::Str,
            "",
            "API key for hosted endpoints (FRANZ_API_KEY, else OPENAI_API_KEY)",
        )
    },
    s(
        Group::Model,
        "grounder_model",
        Kind::Str,
        "",
        "a grounding model beside the planner (docs/grounding.md): the planner names targets in words and this model finds their points; empty: none",
    ),
    checked(
        s(
            Group::Model,
            "grounder_api_url",
            Kind::Str,
            "",
            "the grounding model's server; empty: the planner's (api_url)",
        ),
        super::checks::optional_url,
    ),
    checked(
        s(
            Group::Model,
            "grounder_profile",
            Kind::NonEmpty,
            "auto",
            "the grounding model's profile: auto (by grounder_model), a name from `franz profiles`, or a TOML file",
        ),
        super::checks::profile,
    ),
    Setting {
        secret: true,
        check: Some(super::checks::header),
        ..s(
            Group::Model,
            "grounder_api_key",
            Kind::Str,
            "",
            "API key of the grounding model's server; empty: the planner's (api_key)",
        )
    },
    seed(
        s(
            Group::Model,
            "temperature",
            Kind::Float { min: 0.0, max: 2.0 },
            "0.6",
            "sampling temperature",
        ),
        &["LMSTUDIO_TEMPERATURE"],
    ),
    s(
        Group::Model,
        "top_p",
        Kind::Float { min: 0.0, max: 1.0 },
        "1.0",
        "nucleus sampling",
    ),
    seed(
        s(
            Group::Model,
            "max_tokens",
            Kind::Int {
                min: 1,
                max: 1_000_000,
            },
            "2048",
            "max completion tokens",
        ),
        &["LMSTUDIO_MAX_TOKENS"],
    ),
    seed(
        s(
            Group::Model,
            "timeout",
            Kind::Float {
                min: 0.0,
                max: 86_400.0,
            },
            "240",
            "whole-request timeout in seconds (0 = none)",
        ),
        &["LMSTUDIO_TIMEOUT"],
    ),
    s(
        Group::Model,
        "connect_timeout",
        Kind::Float {
            min: 0.1,
            max: 600.0,
        },
        "10",
        "connect timeout in seconds",
    ),
    s(
        Group::Model,
        "retries",
        Kind::Int { min: 0, max: 20 },
        "3",
        "retries on connection errors, 429 and 5xx that look transient (a chat template's or a validation's refusal is not retried)",
    ),
    s(
        Group::Model,
        "retry_backoff",
        Kind::Float {
            min: 0.0,
            max: 60.0,
        },
        "0.5",
        "seconds before the first retry of a request; each next retry waits twice as long, at most 10 s",
    ),
    s(
        Group::Model,
        "max_response_bytes",
        Kind::Int {
            min: 1024,
            max: 1 << 32,
        },
        "33554432",
        "the largest model reply body read, in bytes (32 MiB)",
    ),
    s(
        Group::Model,
        "stream",
        Kind::Bool,
        "false",
        "stream replies (SSE)",
    ),
    s(
        Group::Model,
        "early_exec",
        Kind::Bool,
        "true",
        "with stream: perform a turn's action as soon as it is complete in the streamed reply, while the rest (the story) still arrives; never with approval, a confirm rule, or for done, fail and ask_user",
    ),
    s(
        Group::Model,
        "context_tokens",
        Kind::Int {
            min: 0,
            max: 100_000_000,
        },
        "0",
        "the model's context length in tokens; each request is kept inside it less max_tokens (fewer screenshots, then a smaller image). 0: ask the server (llama.cpp /props, LM Studio, vLLM); unknown, learned from the server's first refusal of a request as too long",
    ),
    s(
        Group::Model,
        "message_shape",
        Kind::Choice(<crate::model::MessageShape as Choice>::NAMES),
        "auto",
        "how messages are fitted to the server's chat template: auto, none, alternate or strict (see Message shapes below)",
    ),
    s(
        Group::Model,
        "constrain",
        Kind::Choice(<crate::model::Constrain as Choice>::NAMES),
        "off",
        "ask the server to constrain each reply to the strategy's format: off, auto, grammar, json_schema, json_object or ollama (see Constrained output below)",
    ),
    s(
        Group::Run,
        "strategy",
        Kind::Choice(<StrategyName as Choice>::NAMES),
        "narrative",
        "how the model is asked and read",
    ),
    seed(
        s(
            Group::Run,
            "max_steps",
            Kind::Int {
                min: 0,
                max: u32::MAX as u64,
            },
            "100",
            "turns before giving up (default 100; 0 = unbounded)",
        ),
        &["AGENT_MAX_STEPS"],
    ),
    s(
        Group::Run,
        "max_time",
        Kind::Duration { max: 1e9 },
        "30m",
        "seconds (or 90s, 30m, 2h) before giving up (default 30m = 1800 s; 0 = unbounded)",
    ),
    seed(
        s(
            Group::Run,
            "step_delay",
            Kind::Float {
                min: 0.0,
                max: 3600.0,
            },
            "0.4",
            "seconds to wait after each turn's actions",
        ),
        &["AGENT_STEP_DELAY"],
    ),
    s(
        Group::Input,
        "motion",
        Kind::Choice(<MotionProfile as Choice>::NAMES),
        "human",
        "human-like cursor paths and typing, or no cosmetic delays",
    ),
    s(
        Group::Run,
        "max_actions",
        Kind::Int { min: 1, max: 100 },
        "8",
        "actions executed per turn at most",
    ),
    s(
        Group::Run,
        "ask_timeout",
        Kind::Duration { max: 1e9 },
        "300",
        "seconds (or 90s, 5m) the terminal waits for the answer to the model's question before the run ends (0 = wait forever)",
    ),
    s(
        Group::Run,
        "max_empty_turns",
        Kind::Int { min: 1, max: 1000 },
        "5",
        "consecutive turns without a valid action before the run stops",
    ),
    s(
        Group::Input,
        "failsafe",
        Kind::Bool,
        "true",
        "stop when the pointer is in the top-left corner",
    ),
    s(
        Group::Global,
        "dry_run",
        Kind::Bool,
        "false",
        "decide everything, execute nothing",
    ),
    seed(
        s(
            Group::Run,
            "runs_dir",
            Kind::NonEmpty,
            "runs",
            "where run directories are written",
        ),
        &["AGENT_DUMP_DIR"],
    ),
    s(
        Group::Run,
        "log_layout",
        Kind::Choice(<Layout as Choice>::NAMES),
        "flat",
        "run directory layout",
    ),
    s(
        Group::Run,
        "log_images",
        Kind::Choice(<LogImages as Choice>::NAMES),
        "all",
        "screenshots kept in the run directory: all (raw and annotated PNG per turn), annotated (only the image the model was sent), none (no PNGs; for long runs)",
    ),
    s(
        Group::Global,
        "crop",
        Kind::Crop,
        "0,0,1000,1000",
        "the working area, x1,y1,x2,y2 in 0..1000 of the screen",
    ),
    s(
        Group::Global,
        "size",
        Kind::Size,
        "",
        "exact model image size WxH (empty: fit inside 1536x864)",
    ),
    s(
        Group::Global,
        "scale",
        Kind::Percent { max: 400.0 },
        "0",
        "uniform image scale in percent (0: not used)",
    ),
    s(
        Group::Global,
        "cursor",
        Kind::Bool,
        "true",
        "draw the mouse cursor into the image",
    ),
    s(
        Group::Global,
        "image_format",
        Kind::Choice(<crate::observe::ImageCodec as Choice>::NAMES),
        "png",
        "how the model's image is encoded: png (lossless, text stays crisp) or jpeg (fewer bytes, at image_quality; servers accept both)",
    ),
    s(
        Group::Global,
        "image_quality",
        Kind::Int { min: 1, max: 100 },
        "85",
        "JPEG quality from 1 to 100 with image_format jpeg (higher: sharper text, more bytes); not refused with png, which is lossless and has none: `franz bench observe` reads it beside png for its JPEG line, and a config file may keep it for a later jpeg run",
    ),
    s(
        Group::Global,
        "observe_area",
        Kind::Choice(<crate::observe::ObserveArea as Choice>::NAMES),
        "screen",
        "what the model's image shows: screen (the working area), window (the focused window) or touched (the window the last pointer action touched); a window is cut to the working area, and one missing, under 64 pixels a side or mostly outside gives the working area (docs/coordinates.md)",
    ),
    s(
        Group::Image,
        "feedback",
        Kind::Bool,
        "true",
        "draw the last actions onto the next screenshot",
    ),
    s(
        Group::Run,
        "coords",
        Kind::Choice(Coords::NAMES),
        "norm",
        "how the model gives coordinates",
    ),
    checked(
        s(
            Group::Global,
            "profile",
            Kind::NonEmpty,
            "auto",
            "model profile: auto (by model id), a name from `franz profiles`, or a TOML file",
        ),
        super::checks::profile,
    ),
    s(
        Group::Global,
        "pixel_budget",
        Kind::Int {
            min: 0,
            max: 268_435_456,
        },
        "0",
        "most pixels of the image for profiles with a resize rule (0: the profile's budget)",
    ),
    s(
        Group::Run,
        "dialect",
        Kind::Choice(<Option<Dialect> as Choice>::NAMES),
        "auto",
        "reply dialect",
    ),
    seed(
        s(
            Group::History,
            "keep_last_screenshots",
            Kind::Int { min: 1, max: 100 },
            "2",
            "tools: screenshots kept in the history",
        ),
        &["AGENT_KEEP_LAST_SCREENSHOTS"],
    ),
    seed(
        s(
            Group::History,
            "keep_last_thinks",
            Kind::Int { min: 0, max: 100 },
            "2",
            "tools: assistant messages that keep their <think>",
        ),
        &["AGENT_KEEP_LAST_THINKS"],
    ),
    s(
        Group::History,
        "history_max_chars",
        Kind::Int {
            min: 1_000,
            max: 100_000_000,
        },
        // sized for a 32k-token context: see strategy/budget.rs (DEFAULT_HISTORY_MAX_CHARS)
        "96000",
        "tools: the history's size budget in characters (an image counts as its token estimate, 4 characters a token); beyond it the oldest turns are dropped, keeping the system prompt, the task and the last 3 turns",
    ),
    s(
        Group::Commander,
        "review_interval",
        Kind::Int {
            min: 1,
            max: 10_000,
        },
        "5",
        "commander: the leader reviews progress every N turns",
    ),
    s(
        Group::Commander,
        "compression_threshold",
        Kind::Int {
            min: 1,
            max: 10_000,
        },
        "8",
        "commander: active history turns that make the leader compress memory",
    ),
    s(
        Group::Commander,
        "leader_temperature",
        Kind::Float { min: 0.0, max: 2.0 },
        "0.35",
        "commander: the leader's sampling temperature",
    ),
    s(
        Group::Commander,
        "leader_max_tokens",
        Kind::Int {
            min: 1,
            max: 1_000_000,
        },
        "1200",
        "commander: the leader's max completion tokens; when not given, max_tokens's value if that is given",
    ),
    s(
        Group::Commander,
        "operator_temperature",
        Kind::Float { min: 0.0, max: 2.0 },
        "0.5",
        "commander: the operator's sampling temperature",
    ),
    s(
        Group::Commander,
        "operator_max_tokens",
        Kind::Int {
            min: 1,
            max: 1_000_000,
        },
        "1024",
        "commander: the operator's max completion tokens; when not given, max_tokens's value if that is given",
    ),
    s(
        Group::Commander,
        "loop_recovery",
        Kind::Bool,
        "true",
        "commander: break detected loops (escape, pointer to the centre)",
    ),
    s(
        Group::Commander,
        "loop_recovery_cooldown",
        Kind::Int {
            min: 0,
            max: 10_000,
        },
        "3",
        "commander: turns between two loop recoveries",
    ),
    s(
        Group::Commander,
        "min_evidence",
        Kind::Int {
            min: 0,
            max: 100_000,
        },
        "100",
        "commander: characters of evidence report_completion needs",
    ),
    s(
        Group::Commander,
        "snapshot_summary_chars",
        Kind::Int {
            min: 1,
            max: 100_000,
        },
        "180",
        "commander: length of a memory snapshot's summary",
    ),
    s(
        Group::Commander,
        "snapshot_loop_chars",
        Kind::Int {
            min: 1,
            max: 100_000,
        },
        "120",
        "commander: length of a memory snapshot's loop pattern",
    ),
    checked(
        s(
            Group::Global,
            "mask_regions",
            Kind::Str,
            "",
            "privacy: boxes x1,y1,x2,y2 in 0..1000 of the screen, separated by ;, blacked out in every screenshot before it is sent, logged or shown",
        ),
        super::checks::mask,
    ),
    s(
        Group::Input,
        "secrets",
        Kind::Names,
        "",
        "privacy: the environment variables {secret:NAME} may type (besides any named FRANZ_SECRET_*); any other name is refused and nothing is typed",
    ),
    s(
        Group::Run,
        "keep_runs",
        Kind::Int {
            min: 0,
            max: u32::MAX as u64,
        },
        "0",
        "privacy: run directories kept; the oldest beyond N are deleted when a run starts (0 = keep all)",
    ),
    // the delays of the designs (docs/designs.md): they tune the `human` motion profile; `fast`
    // stays exact and quick
    seed(
        s(
            Group::Input,
            "action_delay",
            Kind::Float {
                min: 0.0,
                max: 60.0,
            },
            "0.1",
            "human motion: seconds between two actions of a turn",
        ),
        &["ACTION_DELAY_SECONDS"],
    ),
    seed(
        s(
            Group::Input,
            "settle_delay",
            Kind::Float {
                min: 0.0,
                max: 60.0,
            },
            "0.3",
            "human motion: seconds after a turn's actions for the UI to settle, before the next screenshot",
        ),
        &["CAPTURE_DELAY"],
    ),
    seed(
        s(
            Group::Input,
            "drag_steps",
            Kind::Int {
                min: 1,
                max: 10_000,
            },
            "15",
            "human motion: moves of a drag with the button held",
        ),
        &["DRAG_DURATION_STEPS"],
    ),
    seed(
        s(
            Group::Input,
            "drag_step_delay",
            Kind::Float {
                min: 0.0,
                max: 10.0,
            },
            "0.01",
            "human motion: seconds after each move of a drag",
        ),
        &["DRAG_STEP_DELAY"],
    ),
    seed(
        s(
            Group::Input,
            "typing_cadence",
            Kind::Float {
                min: 0.0,
                max: 10.0,
            },
            "0.01",
            "human motion: seconds after each typed character",
        ),
        &["TYPING_CHAR_DELAY"],
    ),
    s(
        Group::Input,
        "typing_jitter",
        Kind::Float {
            min: 0.0,
            max: 10.0,
        },
        "0.005",
        "human motion: each typed character's delay varies at random by up to this many seconds either way",
    ),
    s(
        Group::Run,
        "loop_warn",
        Kind::Int {
            min: 0,
            max: 10_000,
        },
        "2",
        "turns in a row repeating one action on a screen unchanged around it before the model is told (0: never)",
    ),
    s(
        Group::Run,
        "loop_stop",
        Kind::Int {
            min: 0,
            max: 10_000,
        },
        "5",
        "such turns in a row before the run stops with exit 1 (0: never)",
    ),
    s(
        Group::Run,
        "unchanged_note",
        Kind::Bool,
        "false",
        "tell the model when nothing changed on screen after its last action",
    ),
    s(
        Group::Run,
        "grounding",
        Kind::Choice(<crate::grounding::Grounding as Choice>::NAMES),
        "none",
        "accessibility elements each turn: marks (numbered boxes and the list), list (the list only), none",
    ),
    s(
        Group::Run,
        "grounding_budget_ms",
        Kind::Int {
            min: 1,
            max: 10_000,
        },
        "150",
        "time budget of one element collection in milliseconds (grounding marks|list)",
    ),
    s(
        Group::Run,
        "refine",
        Kind::Choice(<crate::refine::Refine as Choice>::NAMES),
        "off",
        "zoom-in refinement (docs/refine.md): zoom asks the model once more for each pointer action's point, on a crop around it at full resolution, and acts where it points on the crop (one extra request per point; early execution is off); off acts on the first point",
    ),
    checked(
        s(
            Group::Run,
            "refine_crop",
            Kind::Str,
            "1/3",
            "refine zoom: the crop's side as a fraction of the screen's, 1/3 or 0.33 (from 0.05 to 1)",
        ),
        super::checks::refine_crop,
    ),
];

impl Setting {
    pub fn find(key: &str) -> Option<&'static Setting> {
        SETTINGS.iter().find(|s| s.key == key)
    }

    /// Its flag: `--max-steps VALUE`; a boolean is a switch that turns its default around
    /// (`--stream`, `--no-feedback`). A secret has none (it would show in `ps`).
    pub fn flag(&self) -> Option<Flag> {
        if self.secret {
            return None;
        }
        let dashed = self.key.replace('_', "-");
        Some(match (self.kind, self.default) {
            (Kind::Bool, "true") => Flag::Switch {
                long: format!("no-{dashed}"),
                value: "false",
            },
            (Kind::Bool, _) => Flag::Switch {
                long: dashed,
                value: "true",
            },
            _ => Flag::Value { long: dashed },
        })
    }

    /// Its environment names, in the order they are read: `FRANZ_<KEY>`, then the designs'
    /// (docs/designs.md).
    pub fn env_names(&self) -> Vec<String> {
        std::iter::once(format!("FRANZ_{}", self.key.to_uppercase()))
            .chain(self.seed_env.iter().map(|n| n.to_string()))
            .collect()
    }

    /// How a value is written: `WxH`, `x1,y1,x2,y2`, one of the names, ...
    pub fn value_name(&self) -> String {
        match self.kind {
            Kind::Str | Kind::NonEmpty => "TEXT".into(),
            Kind::Float { .. } => "NUMBER".into(),
            Kind::Int { .. } => "N".into(),
            Kind::Duration { .. } => "SECS".into(),
            Kind::Bool => "BOOL".into(),
            Kind::Choice(names) => names.join("|"),
            Kind::Size => "WxH".into(),
            Kind::Crop => "x1,y1,x2,y2".into(),
            Kind::Percent { .. } => "PCT".into(),
            Kind::Names => "NAME,...".into(),
        }
    }

    /// The default as a typed value.
    pub fn default_value(&self) -> toml::Value {
        self.parse_str(self.default, Source::Default)
            .map(|r| r.value)
            .unwrap_or_else(|_| toml::Value::String(self.default.to_string()))
    }

    fn bad(&self, source: Source, value: &str, problem: impl Into<String>) -> ConfigError {
        ConfigError::BadValue {
            key: self.key.to_string(),
            from: source,
            value: if self.secret {
                super::MASK.to_string()
            } else {
                value.to_string()
            },
            problem: problem.into(),
        }
    }

    /// A numeric kind's value (percent, float, duration, whole number), checked against its
    /// range.
    fn number(&self, v: &str, raw: &str, source: &Source) -> Result<toml::Value, ConfigError> {
        Ok(match self.kind {
            Kind::Percent { max } => {
                let f: f64 = v.trim_end_matches('%').trim().parse().map_err(|_| {
                    self.bad(source.clone(), raw, "expected a percentage, e.g. 50 or 50%")
                })?;
                if !f.is_finite() || !(0.0..=max).contains(&f) {
                    return Err(self.bad(
                        source.clone(),
                        raw,
                        format!("expected a percentage from 0 to {max} (0: not used)"),
                    ));
                }
                toml::Value::Float(f)
            }
            Kind::Float { min, max } => {
                let f: f64 = v
                    .parse()
                    .map_err(|_| self.bad(source.clone(), raw, "expected a number"))?;
                if !f.is_finite() || f < min || f > max {
                    return Err(self.bad(
                        source.clone(),
                        raw,
                        format!("expected a number from {min} to {max}"),
                    ));
                }
                toml::Value::Float(f)
            }
            Kind::Duration { max } => {
                let secs = parse_duration(v).ok_or_else(|| {
                    self.bad(
                        source.clone(),
                        raw,
                        "expected seconds, or a number with s, m or h (e.g. 30m)",
                    )
                })?;
                if !secs.is_finite() || !(0.0..=max).contains(&secs) {
                    return Err(self.bad(
                        source.clone(),
                        raw,
                        format!("expected a duration from 0 to {max} seconds"),
                    ));
                }
                toml::Value::Float(secs)
            }
            Kind::Int { min, max } => {
                let range = || format!("expected a whole number from {min} to {max}");
                let n: u64 = v
                    .parse()
                    .map_err(|_| self.bad(source.clone(), raw, range()))?;
                if n < min || n > max {
                    return Err(self.bad(source.clone(), raw, range()));
                }
                toml::Value::Integer(n as i64)
            }
            _ => {
                return Err(self.bad(
                    source.clone(),
                    raw,
                    "expected a value of this setting's kind",
                ));
            }
        })
    }

    /// Parses a value written as text (flags, environment).
    pub fn parse_str(&self, raw: &str, source: Source) -> Result<Resolved, ConfigError> {
        let v = raw.trim();
        let value = match self.kind {
            Kind::Str => toml::Value::String(v.to_string()),
            Kind::NonEmpty if v.is_empty() => {
                return Err(self.bad(source, raw, "must not be empty"));
            }
            Kind::NonEmpty => toml::Value::String(v.to_string()),
            Kind::Percent { .. }
            | Kind::Float { .. }
            | Kind::Duration { .. }
            | Kind::Int { .. } => self.number(v, raw, &source)?,
            Kind::Bool => match v.to_ascii_lowercase().as_str() {
                "1" | "true" | "yes" | "on" => toml::Value::Boolean(true),
                "0" | "false" | "no" | "off" => toml::Value::Boolean(false),
                _ => return Err(self.bad(source, raw, "expected true or false")),
            },
            Kind::Choice(options) => {
                let lower = v.to_ascii_lowercase();
                if !options.contains(&lower.as_str()) {
                    return Err(self.bad(
                        source,
                        raw,
                        format!("expected one of: {}", options.join(", ")),
                    ));
                }
                toml::Value::String(lower)
            }
            Kind::Size => {
                if !v.is_empty() {
                    v.parse::<crate::geometry::ImageSize>()
                        .map_err(|e| self.bad(source.clone(), raw, e.to_string()))?;
                }
                toml::Value::String(v.to_string())
            }
            Kind::Crop => {
                v.parse::<crate::geometry::Crop>()
                    .map_err(|e| self.bad(source.clone(), raw, e.to_string()))?;
                toml::Value::String(v.to_string())
            }
            Kind::Names => self.names(v, raw, source.clone())?,
        };
        if let (Some(check), toml::Value::String(text)) = (self.check, &value) {
            check(text).map_err(|problem| self.bad(source.clone(), raw, problem))?;
        }
        Ok(Resolved { value, source })
    }

    /// `A,B` as a list of environment variable names; each must be one.
    fn names(&self, v: &str, raw: &str, source: Source) -> Result<toml::Value, ConfigError> {
        let mut names = Vec::new();
        for name in v.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let mut chars = name.chars();
            let valid = chars
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid {
                return Err(self.bad(
                    source,
                    raw,
                    format!(
                        "{name:?} is not an environment variable name: letters, digits and _, not starting with a digit"
                    ),
                ));
            }
            names.push(toml::Value::String(name.to_string()));
        }
        Ok(toml::Value::Array(names))
    }

    /// Parses a value from a TOML file, accepting numbers and booleans as such or as strings.
    pub fn parse_toml(&self, v: &toml::Value, source: Source) -> Result<Resolved, ConfigError> {
        if let (Kind::Names, toml::Value::Array(items)) = (self.kind, v) {
            let names: Option<Vec<&str>> = items.iter().map(toml::Value::as_str).collect();
            let Some(names) = names else {
                return Err(self.bad(source, &v.to_string(), "expected a list of names"));
            };
            return self.parse_str(&names.join(","), source);
        }
        let text = match v {
            toml::Value::String(s) => s.clone(),
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Float(f) => f.to_string(),
            toml::Value::Boolean(b) => b.to_string(),
            other => return Err(self.bad(source, &other.to_string(), "expected a single value")),
        };
        self.parse_str(&text, source)
    }
}

/// `90`, `90s`, `30m` or `2h` as seconds.
fn parse_duration(v: &str) -> Option<f64> {
    let (number, unit) = match v.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&v[..i], c.to_ascii_lowercase()),
        _ => (v, 's'),
    };
    let n: f64 = number.trim().parse().ok()?;
    match unit {
        's' => Some(n),
        'm' => Some(n * 60.0),
        'h' => Some(n * 3600.0),
        _ => None,
    }
}
