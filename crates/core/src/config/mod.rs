//! Configuration: every setting, its default, and where its value came from.
//!
//! One table (`settings.rs`, [`SETTINGS`]) defines each setting: group, key, type, default,
//! environment names, secret or not, help. Everything else derives from it: the environment
//! reader and the TOML reader here, `franz config` ([`Effective::explain`]), the CLI's flags
//! ([`Setting::flag`], built into clap by `crates/franz/src/flags.rs`), docs/config.md
//! ([`markdown`]) and the other structs' defaults ([`Config::defaults`]). Enum-like settings are
//! Rust enums parsed once, each from one list of names (`choice.rs`).
//!
//! Precedence (docs/architecture.md): flags > environment > scenario file > config file > defaults.
//! Every setting has an environment name `FRANZ_<KEY>`; the designs' names work too
//! (`LMSTUDIO_*`, `AGENT_*`). A bad value is an error that names the key, its source and the
//! value. The API key is a secret: it is shown and written only as `***`. The `[overlay]` table
//! of the config file or a scenario sets [`OverlayConfig`].

mod checks;
mod choice;
mod doc;
mod parts;
mod resolved;
mod settings;

pub use choice::{Choice, Coords, by_name};
pub use doc::markdown;
pub use parts::context;
pub use resolved::{Chosen, Settings, SettingsError, apply_profile, model_ids};
pub use settings::{Flag, Group, Kind, SETTINGS, Setting};

use crate::executor::MotionProfile;
use crate::overlay::OverlayConfig;
use crate::parser::Dialect;
use crate::runlog::{Layout, LogImages};
use crate::strategy::StrategyName;

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// Where a value came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Source {
    Default,
    ConfigFile(PathBuf),
    Scenario(PathBuf),
    Env(String),
    Flag(String),
    /// Not given: the value of setting `key`, which was given (from `from`).
    Follows {
        key: String,
        from: Box<Source>,
    },
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Default => f.write_str("default"),
            Source::ConfigFile(p) => write!(f, "config file {}", p.display()),
            Source::Scenario(p) => write!(f, "scenario {}", p.display()),
            Source::Env(n) => write!(f, "environment {n}"),
            Source::Flag(n) => write!(f, "flag {n}"),
            Source::Follows { key, from } => write!(f, "{key}'s value ({from})"),
        }
    }
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ConfigError {
    #[error("bad value for {key} from {from}: {value:?} ({problem})")]
    BadValue {
        key: String,
        from: Source,
        value: String,
        problem: String,
    },
    #[error("unknown setting {key:?} in {from}: known settings are listed by `franz config`")]
    UnknownKey { key: String, from: Source },
    #[error("cannot read {path}: {problem}")]
    File { path: PathBuf, problem: String },
}

/// The effective configuration: one typed field per row of the table (a row without its field,
/// or a field without its row, fails every build: `deny_unknown_fields` and serde's missing
/// field).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub api_url: String,
    pub model: String,
    /// Empty when none; never printed.
    pub api_key: String,
    /// Empty: no grounding model (docs/grounding.md).
    pub grounder_model: String,
    /// Empty: the planner's `api_url`.
    pub grounder_api_url: String,
    pub grounder_profile: String,
    /// Empty: the planner's `api_key`; never printed.
    pub grounder_api_key: String,
    pub temperature: f64,
    pub top_p: f64,
    pub max_tokens: u64,
    pub timeout: f64,
    pub connect_timeout: f64,
    pub retries: u64,
    pub retry_backoff: f64,
    pub max_response_bytes: u64,
    pub stream: bool,
    pub early_exec: bool,
    /// 0: ask the server.
    pub context_tokens: u64,
    #[serde(with = "by_name")]
    pub message_shape: crate::model::MessageShape,
    #[serde(with = "by_name")]
    pub constrain: crate::model::Constrain,
    #[serde(with = "by_name")]
    pub strategy: StrategyName,
    pub max_steps: u64,
    pub max_time: f64,
    pub step_delay: f64,
    #[serde(with = "by_name")]
    pub motion: MotionProfile,
    pub max_actions: u64,
    pub max_empty_turns: u64,
    /// Seconds the terminal prompt waits for an answer to `ask_user`; 0 waits forever.
    pub ask_timeout: f64,
    pub failsafe: bool,
    pub dry_run: bool,
    pub runs_dir: PathBuf,
    #[serde(with = "by_name")]
    pub log_layout: Layout,
    /// Which screenshots the run directory keeps (runlog::LogImages).
    #[serde(with = "by_name")]
    pub log_images: LogImages,
    pub crop: String,
    pub size: String,
    pub scale: f64,
    pub cursor: bool,
    /// The model image's encoder (observe::ImageCodec), JPEG at `image_quality`.
    #[serde(with = "by_name")]
    pub image_format: crate::observe::ImageCodec,
    pub image_quality: u64,
    /// What each observation shows (observe::ObserveArea).
    #[serde(with = "by_name")]
    pub observe_area: crate::observe::ObserveArea,
    pub feedback: bool,
    #[serde(with = "by_name")]
    pub coords: Coords,
    /// `None` is `auto`.
    #[serde(with = "by_name")]
    pub dialect: Option<Dialect>,
    pub keep_last_screenshots: u64,
    pub keep_last_thinks: u64,
    pub history_max_chars: u64,
    pub review_interval: u64,
    pub compression_threshold: u64,
    pub leader_temperature: f64,
    pub leader_max_tokens: u64,
    pub operator_temperature: f64,
    pub operator_max_tokens: u64,
    pub loop_recovery: bool,
    pub loop_recovery_cooldown: u64,
    pub min_evidence: u64,
    pub snapshot_summary_chars: u64,
    pub snapshot_loop_chars: u64,
    /// `auto`, a built-in profile's name or a profile file (crates/core/src/profile/).
    pub profile: String,
    /// Most pixels of a resize-rule profile's image; 0: the profile's own budget.
    pub pixel_budget: u64,
    /// Boxes blacked out in every screenshot: `x1,y1,x2,y2;...` (`observe::mask::parse`).
    pub mask_regions: String,
    /// The environment variables `{secret:NAME}` may type, besides `FRANZ_SECRET_*`
    /// (executor/secret.rs).
    pub secrets: Vec<String>,
    /// Run directories kept (0: all).
    pub keep_runs: u64,
    pub action_delay: f64,
    pub settle_delay: f64,
    pub drag_steps: u64,
    pub drag_step_delay: f64,
    pub typing_cadence: f64,
    pub typing_jitter: f64,
    pub loop_warn: u64,
    pub loop_stop: u64,
    pub unchanged_note: bool,
    #[serde(with = "by_name")]
    pub grounding: crate::grounding::Grounding,
    pub grounding_budget_ms: u64,
    #[serde(with = "by_name")]
    pub refine: crate::refine::Refine,
    /// The crop's side as a fraction, as given (`crate::refine::parse_crop` reads it).
    pub refine_crop: String,
    /// The `[overlay]` table of the config file (or a scenario): colours, sizes and trails of
    /// what is drawn onto the screenshots.
    #[serde(default)]
    pub overlay: OverlayConfig,
    /// The `[policy]` table of the config file, a scenario or the file `--policy` names: the
    /// safety policy (crates/core/src/policy.rs).
    #[serde(default)]
    pub policy: crate::policy::PolicyConfig,
}

impl Config {
    /// Every setting at its default (the table's), without the environment or any file.
    pub fn defaults() -> &'static Config {
        static DEFAULTS: std::sync::LazyLock<Config> = std::sync::LazyLock::new(|| {
            ConfigBuilder::new()
                .build()
                .map(|e| e.config)
                .unwrap_or_else(|e| panic!("the settings table's defaults are invalid: {e}"))
        });
        &DEFAULTS
    }
}

/// A resolved value and its source.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub value: toml::Value,
    pub source: Source,
}

/// Collects layers and resolves them.
#[derive(Debug, Default)]
pub struct ConfigBuilder {
    file: Option<(PathBuf, toml::Table)>,
    scenario: Option<(PathBuf, toml::Table)>,
    flags: Vec<(String, String, String)>,
    env: BTreeMap<String, String>,
    /// The file `--policy` names, as a table: the policy's keys at its top or in `[policy]`.
    policy_file: Option<(PathBuf, toml::Table)>,
}

impl ConfigBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads the TOML config file.
    pub fn config_file(mut self, path: &Path) -> Result<Self, ConfigError> {
        self.file = Some((path.to_path_buf(), read_table(path)?));
        Ok(self)
    }

    /// The settings a scenario file carries (its config keys only; the caller takes out the
    /// scenario's own fields first).
    pub fn scenario(mut self, path: &Path, table: toml::Table) -> Self {
        self.scenario = Some((path.to_path_buf(), table));
        self
    }

    /// A policy file (`--policy FILE`): its keys replace those of the config file's and the
    /// scenario's `[policy]` tables.
    pub fn policy_file(mut self, path: &Path) -> Result<Self, ConfigError> {
        let mut table = read_table(path)?;
        if let Some(toml::Value::Table(inner)) = table.remove(POLICY) {
            table.extend(inner);
        }
        self.policy_file = Some((path.to_path_buf(), table));
        Ok(self)
    }

    /// The process environment (or any map, for tests).
    pub fn env(mut self, env: impl IntoIterator<Item = (String, String)>) -> Self {
        self.env = env.into_iter().collect();
        self
    }

    /// A value given by a flag: `key` is the setting, `flag` its spelling (`--max-steps`).
    pub fn flag(mut self, key: &str, flag: &str, value: impl Into<String>) -> Self {
        self.flags
            .push((key.to_string(), flag.to_string(), value.into()));
        self
    }

    /// Resolves every setting.
    pub fn build(self) -> Result<Effective, ConfigError> {
        for (source, table) in [
            self.file
                .as_ref()
                .map(|(p, t)| (Source::ConfigFile(p.clone()), t)),
            self.scenario
                .as_ref()
                .map(|(p, t)| (Source::Scenario(p.clone()), t)),
        ]
        .into_iter()
        .flatten()
        {
            if let Some(key) = table.keys().find(|k| {
                Setting::find(k).is_none() && k.as_str() != OVERLAY && k.as_str() != POLICY
            }) {
                return Err(ConfigError::UnknownKey {
                    key: key.clone(),
                    from: source,
                });
            }
        }
        let mut values = BTreeMap::new();
        for s in SETTINGS {
            let resolved = self.resolve(s)?;
            values.insert(s.key, resolved);
        }
        follow(&mut values);
        values.insert(OVERLAY, self.overlay()?);
        values.insert(POLICY, self.policy()?);
        let table: toml::Table = values
            .iter()
            .map(|(k, r)| (k.to_string(), r.value.clone()))
            .collect();
        let config: Config =
            toml::Value::Table(table)
                .try_into()
                .map_err(|e: toml::de::Error| ConfigError::BadValue {
                    key: "?".into(),
                    from: Source::Default,
                    value: String::new(),
                    problem: e.to_string(),
                })?;
        Ok(Effective { config, values })
    }

    fn resolve(&self, s: &Setting) -> Result<Resolved, ConfigError> {
        if let Some((_, flag, v)) = self.flags.iter().rev().find(|(k, _, _)| k == s.key) {
            return s.parse_str(v, Source::Flag(flag.clone()));
        }
        if let Some(r) = self.env_value(s)? {
            return Ok(r);
        }
        for (path, table, mk) in [(self.scenario.as_ref(), 0), (self.file.as_ref(), 1)]
            .into_iter()
            .filter_map(|(x, i)| x.map(|(p, t)| (p, t, i)))
        {
            if let Some(v) = table.get(s.key) {
                let source = if mk == 0 {
                    Source::Scenario(path.clone())
                } else {
                    Source::ConfigFile(path.clone())
                };
                return s.parse_toml(v, source);
            }
        }
        Ok(Resolved {
            value: s.default_value(),
            source: Source::Default,
        })
    }

    /// The `[overlay]` table: the defaults, then the config file's table, then the scenario's
    /// (each replaces the keys it gives). A key the overlay does not have is an error.
    fn overlay(&self) -> Result<Resolved, ConfigError> {
        let defaults = overlay_defaults();
        let mut merged = defaults.clone();
        let mut source = Source::Default;
        for (path, table, scenario) in [(self.file.as_ref(), false), (self.scenario.as_ref(), true)]
            .into_iter()
            .filter_map(|(x, sc)| x.map(|(p, t)| (p, t, sc)))
        {
            let Some(given) = table.get(OVERLAY) else {
                continue;
            };
            source = if scenario {
                Source::Scenario(path.clone())
            } else {
                Source::ConfigFile(path.clone())
            };
            let bad = |problem: String| ConfigError::BadValue {
                key: OVERLAY.into(),
                from: source.clone(),
                value: given.to_string(),
                problem,
            };
            let toml::Value::Table(given) = given else {
                return Err(bad(
                    "expected a table: [overlay] with keys such as marks.left = \"#ff00ff\"".into(),
                ));
            };
            if let Some(path) = unknown_key(&defaults, given, OVERLAY) {
                return Err(bad(format!(
                    "{path} is not an overlay setting: docs/config.md lists them"
                )));
            }
            merge(&mut merged, given);
            let checked: OverlayConfig = toml::Value::Table(merged.clone())
                .try_into()
                .map_err(|e: toml::de::Error| bad(e.message().to_string()))?;
            checked.check().map_err(bad)?;
            // as the overlay reads it: colours as rgba(..)
            merged = overlay_table(&checked);
        }
        Ok(Resolved {
            value: toml::Value::Table(merged),
            source,
        })
    }

    /// The `[policy]` table: the config file's, then the scenario's, then the policy file's
    /// keys (each replaces the keys it gives), checked by compiling it.
    fn policy(&self) -> Result<Resolved, ConfigError> {
        let mut merged = toml::Table::new();
        let mut source = Source::Default;
        let layers = [
            self.file
                .as_ref()
                .map(|(p, t)| (Source::ConfigFile(p.clone()), t.get(POLICY))),
            self.scenario
                .as_ref()
                .map(|(p, t)| (Source::Scenario(p.clone()), t.get(POLICY))),
            self.policy_file
                .as_ref()
                .map(|(p, _)| (Source::Flag(format!("--policy {}", p.display())), None)),
        ];
        for (layer, given) in layers.into_iter().flatten() {
            let given = match (&layer, given) {
                (Source::Flag(_), _) => self.policy_file.as_ref().map(|(_, t)| t),
                (_, Some(toml::Value::Table(t))) => Some(t),
                (_, None) => None,
                (_, Some(other)) => {
                    return Err(ConfigError::BadValue {
                        key: POLICY.into(),
                        from: layer,
                        value: other.to_string(),
                        problem:
                            "expected a table: [policy] with keys such as deny_keys = [\"alt+f4\"]"
                                .into(),
                    });
                }
            };
            if let Some(t) = given {
                merged.extend(t.clone());
                source = layer;
            }
        }
        let bad = |problem: String| ConfigError::BadValue {
            key: POLICY.into(),
            from: source.clone(),
            value: toml::Value::Table(merged.clone()).to_string(),
            problem,
        };
        let config: crate::policy::PolicyConfig = toml::Value::Table(merged.clone())
            .try_into()
            .map_err(|e: toml::de::Error| {
                bad(format!(
                    "{} (docs/config.md lists the policy's keys)",
                    e.message()
                ))
            })?;
        crate::policy::Policy::new(&config).map_err(|e| bad(e.0))?;
        let value = toml::Value::try_from(&config).map_err(|e| bad(e.to_string()))?;
        Ok(Resolved { value, source })
    }

    fn env_value(&self, s: &Setting) -> Result<Option<Resolved>, ConfigError> {
        for name in s.env_names() {
            if let Some(v) = self.env.get(&name) {
                return s.parse_str(v, Source::Env(name)).map(Some);
            }
        }
        // the designs (docs/designs.md) give the image size as two variables
        if s.key == "size" {
            match (self.env.get("AGENT_IMAGE_W"), self.env.get("AGENT_IMAGE_H")) {
                (Some(w), Some(h)) => {
                    return s
                        .parse_str(
                            &format!("{w}x{h}"),
                            Source::Env("AGENT_IMAGE_W/AGENT_IMAGE_H".into()),
                        )
                        .map(Some);
                }
                (Some(v), None) | (None, Some(v)) => {
                    return Err(ConfigError::BadValue {
                        key: "size".into(),
                        from: Source::Env("AGENT_IMAGE_W/AGENT_IMAGE_H".into()),
                        value: v.clone(),
                        problem: "set both AGENT_IMAGE_W and AGENT_IMAGE_H, or FRANZ_SIZE=WxH"
                            .into(),
                    });
                }
                (None, None) => {}
            }
        }
        Ok(None)
    }
}

/// Settings that take another setting's value when they are not given themselves and the
/// other one is (docs/config.md): the commander's two requests follow `max_tokens`, so that
/// `--max-tokens` bounds every request of a run.
pub const FOLLOWS: [(&str, &str); 2] = [
    ("leader_max_tokens", "max_tokens"),
    ("operator_max_tokens", "max_tokens"),
];

/// Applies [`FOLLOWS`] to resolved values.
fn follow(values: &mut BTreeMap<&'static str, Resolved>) {
    for (key, leader) in FOLLOWS {
        let Some(given) = values.get(leader).filter(|r| r.source != Source::Default) else {
            continue;
        };
        let value = Resolved {
            value: given.value.clone(),
            source: Source::Follows {
                key: leader.to_string(),
                from: Box::new(given.source.clone()),
            },
        };
        if let Some(r) = values.get_mut(key).filter(|r| r.source == Source::Default) {
            *r = value;
        }
    }
}

/// The key of the overlay's table.
pub const OVERLAY: &str = "overlay";

/// The key of the safety policy's table.
pub const POLICY: &str = "policy";

/// What the `[policy]` table is, for `franz config` and docs/config.md.
pub const POLICY_HELP: &str = "the [policy] table: the safety policy checked before every action (docs/config.md lists its keys); built in: the work_area deny rule (no pointer action lands outside the working area, --crop; it counts toward policy_violations_max)";

/// The overlay's defaults as a TOML table.
pub fn overlay_defaults() -> toml::Table {
    overlay_table(&OverlayConfig::default())
}

/// An overlay configuration as a TOML table, floats written as their `f32` (0.55, not
/// 0.550000011920929).
fn overlay_table(o: &OverlayConfig) -> toml::Table {
    match toml::Value::try_from(o) {
        Ok(toml::Value::Table(t)) => tidy_floats(t),
        _ => toml::Table::new(),
    }
}

fn tidy_floats(t: toml::Table) -> toml::Table {
    fn tidy(v: toml::Value) -> toml::Value {
        match v {
            toml::Value::Float(f) => {
                toml::Value::Float((f as f32).to_string().parse().unwrap_or(f))
            }
            toml::Value::Array(a) => toml::Value::Array(a.into_iter().map(tidy).collect()),
            toml::Value::Table(t) => toml::Value::Table(tidy_floats(t)),
            other => other,
        }
    }
    t.into_iter().map(|(k, v)| (k, tidy(v))).collect()
}

/// The first key of `given` (as `overlay.marks.left`) that `known` does not have.
fn unknown_key(known: &toml::Table, given: &toml::Table, at: &str) -> Option<String> {
    given.iter().find_map(|(k, v)| {
        let path = format!("{at}.{k}");
        match (known.get(k), v) {
            (None, _) => Some(path),
            (Some(toml::Value::Table(kt)), toml::Value::Table(gt)) => unknown_key(kt, gt, &path),
            _ => None,
        }
    })
}

/// `given`'s keys replace `base`'s, table by table.
fn merge(base: &mut toml::Table, given: &toml::Table) {
    for (k, v) in given {
        match (base.get_mut(k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(g)) => merge(b, g),
            _ => {
                base.insert(k.clone(), v.clone());
            }
        }
    }
}

fn read_table(path: &Path) -> Result<toml::Table, ConfigError> {
    let text = crate::files::read_settings(path).map_err(|e| ConfigError::File {
        path: path.to_path_buf(),
        problem: e.problem(),
    })?;
    text.parse::<toml::Table>().map_err(|e| ConfigError::File {
        path: path.to_path_buf(),
        problem: e.to_string(),
    })
}

/// The effective configuration and where each value came from.
#[derive(Debug, Clone)]
pub struct Effective {
    pub config: Config,
    pub values: BTreeMap<&'static str, Resolved>,
}

/// What the `[overlay]` table is, for `franz config` and docs/config.md.
pub const OVERLAY_HELP: &str = "the [overlay] table: colours, sizes and trails of what is drawn onto the screenshots (docs/config.md lists its keys)";

/// What a secret is shown as.
pub const MASK: &str = "***";

impl Effective {
    /// The configuration as TOML with secrets masked, for `franz config`.
    pub fn masked_toml(&self) -> String {
        toml::to_string(&self.masked_table())
            .unwrap_or_else(|e| format!("# the configuration cannot be written as TOML: {e}\n"))
    }

    /// The configuration with secrets masked, for the run directory's `config.toml`.
    pub fn masked_table(&self) -> toml::Table {
        let mut table = toml::Table::new();
        for (k, r) in &self.values {
            let v = match Setting::find(k) {
                Some(s) if s.secret => match &r.value {
                    toml::Value::String(x) if !x.is_empty() => toml::Value::String(MASK.into()),
                    other => other.clone(),
                },
                _ => r.value.clone(),
            };
            table.insert(k.to_string(), v);
        }
        table
    }

    /// `key = value  # source: help` lines, secrets masked. The help says what the value
    /// means, e.g. that 0 makes a limit unbounded.
    pub fn explain(&self) -> String {
        let mut out = String::new();
        for (k, r) in &self.values {
            let setting = Setting::find(k);
            let secret = setting.is_some_and(|s| s.secret);
            let shown = match &r.value {
                toml::Value::String(x) if secret && !x.is_empty() => format!("\"{MASK}\""),
                v => v.to_string(),
            };
            let help = match setting {
                Some(s) => format!(": {}", s.help),
                None if *k == OVERLAY => format!(": {OVERLAY_HELP}"),
                None if *k == POLICY => format!(": {POLICY_HELP}"),
                None => String::new(),
            };
            out.push_str(&format!("{k} = {shown}  # {}{help}\n", r.source));
        }
        out
    }
}

#[cfg(test)]
mod tests;
