//! The table of settings: key, type, default, the designs' environment names (docs/seeds.md), and
//! help.

use super::{ConfigError, Resolved, Source};

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
}

/// One setting.
#[derive(Debug, Clone, Copy)]
pub struct Setting {
    pub key: &'static str,
    pub kind: Kind,
    /// The default, written as a user would write it.
    pub default: &'static str,
    /// The designs' environment names (docs/seeds.md) that also set it.
    pub seed_env: &'static [&'static str],
    pub secret: bool,
    pub help: &'static str,
}

const fn s(key: &'static str, kind: Kind, default: &'static str, help: &'static str) -> Setting {
    Setting {
        key,
        kind,
        default,
        seed_env: &[],
        secret: false,
        help,
    }
}

const fn seed(mut x: Setting, names: &'static [&'static str]) -> Setting {
    x.seed_env = names;
    x
}

/// Every setting franz has.
pub const SETTINGS: &[Setting] = &[
    seed(
        s(
            "api_url",
            Kind::NonEmpty,
            "http://localhost:1234/v1",
            "the model server: a base URL or the full chat/completions endpoint",
        ),
        &["LMSTUDIO_ENDPOINT"],
    ),
    seed(
        s(
            "model",
            Kind::NonEmpty,
            "qwen3-vl-8b-instruct",
            "the model name sent with each request",
        ),
        &["LMSTUDIO_MODEL"],
    ),
    Setting {
        secret: true,
        ..s(
            "api_key",
            Kind::Str,
            "",
            "API key for hosted endpoints (FRANZ_API_KEY, else OPENAI_API_KEY)",
        )
    },
    seed(
        s(
            "temperature",
            Kind::Float { min: 0.0, max: 2.0 },
            "0.6",
            "sampling temperature",
        ),
        &["LMSTUDIO_TEMPERATURE"],
    ),
    s(
        "top_p",
        Kind::Float { min: 0.0, max: 1.0 },
        "1.0",
        "nucleus sampling",
    ),
    seed(
        s(
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
        "connect_timeout",
        Kind::Float {
            min: 0.1,
            max: 600.0,
        },
        "10",
        "connect timeout in seconds",
    ),
    s(
        "retries",
        Kind::Int { min: 0, max: 20 },
        "3",
        "retries on connection errors, 429 and 5xx",
    ),
    s(
        "max_response_bytes",
        Kind::Int {
            min: 1024,
            max: 1 << 32,
        },
        "33554432",
        "the largest model reply body read, in bytes (32 MiB)",
    ),
    s("stream", Kind::Bool, "false", "stream replies (SSE)"),
    s(
        "strategy",
        Kind::Choice(&["narrative", "vision", "tools", "commander"]),
        "narrative",
        "how the model is asked and read",
    ),
    seed(
        s(
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
        "max_time",
        Kind::Duration { max: 1e9 },
        "30m",
        "seconds (or 90s, 30m, 2h) before giving up (default 30m = 1800 s; 0 = unbounded)",
    ),
    seed(
        s(
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
        "motion",
        Kind::Choice(&["human", "fast"]),
        "human",
        "human-like cursor paths and typing, or no cosmetic delays",
    ),
    s(
        "max_actions",
        Kind::Int { min: 1, max: 100 },
        "8",
        "actions executed per turn at most",
    ),
    s(
        "max_empty_turns",
        Kind::Int { min: 1, max: 1000 },
        "5",
        "consecutive turns without a valid action before the run stops",
    ),
    s(
        "failsafe",
        Kind::Bool,
        "true",
        "stop when the pointer is in the top-left corner",
    ),
    s(
        "dry_run",
        Kind::Bool,
        "false",
        "decide everything, execute nothing",
    ),
    seed(
        s(
            "runs_dir",
            Kind::NonEmpty,
            "runs",
            "where run directories are written",
        ),
        &["AGENT_DUMP_DIR"],
    ),
    s(
        "log_layout",
        Kind::Choice(&["flat", "turn_dirs"]),
        "flat",
        "run directory layout",
    ),
    s(
        "crop",
        Kind::Crop,
        "0,0,1000,1000",
        "the working area, x1,y1,x2,y2 in 0..1000 of the screen",
    ),
    s(
        "size",
        Kind::Size,
        "",
        "exact model image size WxH (empty: fit inside 1536x864)",
    ),
    s(
        "scale",
        Kind::Float {
            min: 0.0,
            max: 400.0,
        },
        "0",
        "uniform image scale in percent (0: not used)",
    ),
    s(
        "cursor",
        Kind::Bool,
        "true",
        "draw the mouse cursor into the image",
    ),
    s(
        "feedback",
        Kind::Bool,
        "true",
        "draw the last actions onto the next screenshot",
    ),
    s(
        "coords",
        Kind::Choice(&["norm", "pixels"]),
        "norm",
        "how the model gives coordinates",
    ),
    s(
        "dialect",
        Kind::Choice(&[
            "auto",
            "json",
            "calls",
            "tools",
            "qwen",
            "uitars",
            "anthropic",
            "openai",
        ]),
        "auto",
        "reply dialect",
    ),
    seed(
        s(
            "keep_last_screenshots",
            Kind::Int { min: 1, max: 100 },
            "2",
            "tools: screenshots kept in the history",
        ),
        &["AGENT_KEEP_LAST_SCREENSHOTS"],
    ),
    seed(
        s(
            "keep_last_thinks",
            Kind::Int { min: 0, max: 100 },
            "2",
            "tools: assistant messages that keep their <think>",
        ),
        &["AGENT_KEEP_LAST_THINKS"],
    ),
    s(
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
        "review_interval",
        Kind::Int {
            min: 1,
            max: 10_000,
        },
        "5",
        "commander: the leader reviews progress every N turns",
    ),
    s(
        "compression_threshold",
        Kind::Int {
            min: 1,
            max: 10_000,
        },
        "8",
        "commander: active history turns that make the leader compress memory",
    ),
    s(
        "leader_temperature",
        Kind::Float { min: 0.0, max: 2.0 },
        "0.35",
        "commander: the leader's sampling temperature",
    ),
    s(
        "leader_max_tokens",
        Kind::Int {
            min: 1,
            max: 1_000_000,
        },
        "1200",
        "commander: the leader's max completion tokens",
    ),
    s(
        "operator_temperature",
        Kind::Float { min: 0.0, max: 2.0 },
        "0.5",
        "commander: the operator's sampling temperature",
    ),
    s(
        "operator_max_tokens",
        Kind::Int {
            min: 1,
            max: 1_000_000,
        },
        "1024",
        "commander: the operator's max completion tokens",
    ),
    s(
        "loop_recovery",
        Kind::Bool,
        "true",
        "commander: break detected loops (escape, pointer to the centre)",
    ),
    s(
        "loop_recovery_cooldown",
        Kind::Int {
            min: 0,
            max: 10_000,
        },
        "3",
        "commander: turns between two loop recoveries",
    ),
    s(
        "min_evidence",
        Kind::Int {
            min: 0,
            max: 100_000,
        },
        "100",
        "commander: characters of evidence report_completion needs",
    ),
    s(
        "snapshot_summary_chars",
        Kind::Int {
            min: 1,
            max: 100_000,
        },
        "180",
        "commander: length of a memory snapshot's summary",
    ),
    s(
        "snapshot_loop_chars",
        Kind::Int {
            min: 1,
            max: 100_000,
        },
        "120",
        "commander: length of a memory snapshot's loop pattern",
    ),
];

impl Setting {
    pub fn find(key: &str) -> Option<&'static Setting> {
        SETTINGS.iter().find(|s| s.key == key)
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

    /// Parses a value written as text (flags, environment).
    pub fn parse_str(&self, raw: &str, source: Source) -> Result<Resolved, ConfigError> {
        let v = raw.trim();
        let value = match self.kind {
            Kind::Str => toml::Value::String(v.to_string()),
            Kind::NonEmpty if v.is_empty() => {
                return Err(self.bad(source, raw, "must not be empty"));
            }
            Kind::NonEmpty => toml::Value::String(v.to_string()),
            Kind::Float { min, max } => {
                let f: f64 = v
                    .parse()
                    .map_err(|_| self.bad(source.clone(), raw, "expected a number"))?;
                if !f.is_finite() || f < min || f > max {
                    return Err(self.bad(
                        source,
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
                        source,
                        raw,
                        format!("expected a duration from 0 to {max} seconds"),
                    ));
                }
                toml::Value::Float(secs)
            }
            Kind::Int { min, max } => {
                let n: u64 = v
                    .parse()
                    .map_err(|_| self.bad(source.clone(), raw, "expected a whole number"))?;
                if n < min || n > max {
                    return Err(self.bad(
                        source,
                        raw,
                        format!("expected a whole number from {min} to {max}"),
                    ));
                }
                toml::Value::Integer(n as i64)
            }
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
        };
        Ok(Resolved { value, source })
    }

    /// Parses a value from a TOML file, accepting numbers and booleans as such or as strings.
    pub fn parse_toml(&self, v: &toml::Value, source: Source) -> Result<Resolved, ConfigError> {
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
