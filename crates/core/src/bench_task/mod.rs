//! Bench tasks: a scenario file (crates/core/src/scenario.rs) with the keys only
//! `franz bench tasks` reads: tags, a screen size, a time limit, checkers and a golden
//! trajectory (docs/bench.md).
//!
//! ```toml
//! name = "zenity-entry"
//! task = "Type 'Ada' into the dialog and press OK."
//! max_steps = 8
//! setup = ["zenity --entry --text=Name:"]
//! tags = { app = "zenity", difficulty = "easy" }
//! screen = "1024x768"
//! timeout = 90
//!
//! [[checker]]
//! stdout = 0            # what setup command 0 printed
//! equals = "Ada"
//!
//! [[golden]]
//! click = { class = "Zenity", x = 100, y = 80 }
//! [[golden]]
//! type = "Ada"
//! ```
//!
//! Every bad field is an error naming the file and the field.

mod golden;
pub mod miniwob;
/// Replies of the scripted model (the `scripted` feature, as the model's doubles).
#[cfg(any(test, feature = "scripted"))]
pub mod render;

pub use golden::{GoldenStep, Locator, PointKind};
#[cfg(any(test, feature = "scripted"))]
pub use render::{Renderer, renderer_for};

use crate::geometry::ImageSize;
use crate::scenario::{Scenario, ScenarioError};
use std::path::{Path, PathBuf};

/// A task as `franz bench tasks` runs it.
#[derive(Debug, Clone)]
pub struct Task {
    pub scenario: Scenario,
    pub app: String,
    pub difficulty: String,
    /// Further tags (`tags.extra = ["scroll", "drag"]`).
    pub extra_tags: Vec<String>,
    pub screen: ImageSize,
    /// Seconds the whole run may take, setup and checks included.
    pub timeout_s: u64,
    /// How many windows setup shows before the first turn (default: one per setup command).
    pub windows: usize,
    pub checkers: Vec<Checker>,
    pub golden: Vec<GoldenStep>,
    /// Which suite the task is from: franz's own task files, or a MiniWoB++ page.
    pub suite: Suite,
}

/// Where a task comes from and what scores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Suite {
    /// A task file of `tasks/`: its checkers score it.
    Own,
    /// A MiniWoB++ task page (the scenario's path, `miniwob.rs`): the page's reward scores it.
    Miniwob,
}

/// What a checked value must be.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    Equals(String),
    Contains(String),
    Regex(Pattern),
}

/// One condition for success; all of a task's checkers must hold.
#[derive(Debug, Clone, PartialEq)]
pub enum Checker {
    /// A file's content (trailing newlines ignored for `equals`).
    File { path: String, expect: Expect },
    /// What setup command `index` printed on stdout.
    Stdout { index: usize, expect: Expect },
    /// A window with this class and/or title (part of it) is on screen, or is not.
    Window {
        class: Option<String>,
        title: Option<String>,
        present: bool,
    },
    /// A field of the last form the task's local page posted back.
    Posted { field: String, expect: Expect },
    /// A shell command (`sh -c`) that exits 0 on success.
    Command { run: String },
}

#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    #[error("task {path}: field `{field}`: {problem}")]
    Field {
        path: PathBuf,
        field: String,
        problem: String,
    },
}

/// Builds the error for `field` of the task at `path`.
pub(crate) fn field_error(path: &Path, field: &str, problem: impl Into<String>) -> TaskError {
    TaskError::Field {
        path: path.to_path_buf(),
        field: field.to_string(),
        problem: problem.into(),
    }
}

impl Task {
    pub fn name(&self) -> &str {
        &self.scenario.name
    }
    pub fn path(&self) -> &Path {
        &self.scenario.path
    }
    /// Every tag: the app, the difficulty and the extra tags.
    pub fn tags(&self) -> Vec<&str> {
        let mut t = vec![self.app.as_str(), self.difficulty.as_str()];
        t.extend(self.extra_tags.iter().map(String::as_str));
        t.retain(|s| !s.is_empty());
        t
    }

    pub fn load(path: &Path) -> Result<Task, TaskError> {
        let scenario = Scenario::load(path)?;
        Task::from_scenario(scenario)
    }

    pub fn from_scenario(scenario: Scenario) -> Result<Task, TaskError> {
        let path = scenario.path.clone();
        let b = &scenario.bench;
        let err = |field: &str, problem: &str| field_error(&path, field, problem);
        let tags = match b.get("tags") {
            Some(toml::Value::Table(t)) => t.clone(),
            Some(_) => {
                return Err(err(
                    "tags",
                    "must be a table: tags = { app = \"zenity\", difficulty = \"easy\" }",
                ));
            }
            None => {
                return Err(err(
                    "tags",
                    "missing: add tags = { app = \"zenity\", difficulty = \"easy\" }",
                ));
            }
        };
        let tag = |k: &str| -> Result<String, TaskError> {
            match tags.get(k) {
                Some(toml::Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
                _ => Err(err(&format!("tags.{k}"), "must be a non-empty string")),
            }
        };
        let app = tag("app")?;
        let difficulty = tag("difficulty")?;
        if !["easy", "medium", "hard"].contains(&difficulty.as_str()) {
            return Err(err("tags.difficulty", "must be easy, medium or hard"));
        }
        let extra_tags = match tags.get("extra") {
            None => Vec::new(),
            Some(toml::Value::Array(a)) => a
                .iter()
                .map(|v| v.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| err("tags.extra", "must be a list of strings"))?,
            Some(_) => return Err(err("tags.extra", "must be a list of strings")),
        };
        let screen = match b.get("screen") {
            None => ImageSize::new(1024, 768),
            Some(toml::Value::String(s)) => s
                .parse()
                .map_err(|_| err("screen", "must be WIDTHxHEIGHT, e.g. \"1024x768\""))?,
            Some(_) => return Err(err("screen", "must be WIDTHxHEIGHT, e.g. \"1024x768\"")),
        };
        let timeout_s = positive(b.get("timeout"), 120)
            .ok_or_else(|| err("timeout", "must be a positive number of seconds"))?;
        let windows = positive(b.get("windows"), scenario.setup.len() as u64)
            .ok_or_else(|| err("windows", "must be a whole number"))?
            as usize;
        let checkers = checkers(&path, b.get("checker"))?;
        let golden = golden::parse_all(&path, b.get("golden"))?;
        Ok(Task {
            app,
            difficulty,
            extra_tags,
            screen,
            timeout_s,
            windows,
            checkers,
            golden,
            scenario,
            suite: Suite::Own,
        })
    }

    /// Every task file (`*.toml`) in `dir`, sorted by name.
    pub fn list(dir: &Path) -> Result<Vec<Task>, TaskError> {
        let entries = Scenario::list(dir)?;
        entries
            .into_iter()
            .map(|s| Task::from_scenario(s?))
            .collect()
    }
}

/// A whole number >= 0 (or the default when absent); `None` when not one.
fn positive(v: Option<&toml::Value>, default: u64) -> Option<u64> {
    match v {
        None => Some(default),
        Some(toml::Value::Integer(i)) if *i >= 0 => Some(*i as u64),
        _ => None,
    }
}

fn checkers(path: &Path, v: Option<&toml::Value>) -> Result<Vec<Checker>, TaskError> {
    let Some(v) = v else {
        return Err(field_error(
            path,
            "checker",
            "missing: a task needs at least one [[checker]]",
        ));
    };
    let items = v
        .as_array()
        .filter(|a| !a.is_empty())
        .ok_or_else(|| field_error(path, "checker", "must be a list of tables ([[checker]])"))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| checker(path, &format!("checker[{i}]"), item))
        .collect()
}

fn checker(path: &Path, at: &str, v: &toml::Value) -> Result<Checker, TaskError> {
    let t = v
        .as_table()
        .ok_or_else(|| field_error(path, at, "must be a table"))?;
    let s = |k: &str| t.get(k).and_then(|v| v.as_str()).map(str::to_string);
    let expect = || expect(path, at, t);
    if let Some(p) = s("file") {
        return Ok(Checker::File {
            path: p,
            expect: expect()?,
        });
    }
    if let Some(i) = t.get("stdout") {
        let index = i.as_integer().filter(|i| *i >= 0).ok_or_else(|| {
            field_error(
                path,
                &format!("{at}.stdout"),
                "must be the index of a setup command",
            )
        })?;
        return Ok(Checker::Stdout {
            index: index as usize,
            expect: expect()?,
        });
    }
    if let Some(w) = t.get("window") {
        let w = w.as_table().ok_or_else(|| {
            field_error(
                path,
                &format!("{at}.window"),
                "must be a table: window = { class = \"XTerm\", title = \"...\" }",
            )
        })?;
        let get = |k: &str| w.get(k).and_then(|v| v.as_str()).map(str::to_string);
        let (class, title) = (get("class"), get("title"));
        if class.is_none() && title.is_none() {
            return Err(field_error(
                path,
                &format!("{at}.window"),
                "needs a class or a title",
            ));
        }
        let present = match t.get("present") {
            None => true,
            Some(toml::Value::Boolean(b)) => *b,
            Some(_) => {
                return Err(field_error(
                    path,
                    &format!("{at}.present"),
                    "must be true or false",
                ));
            }
        };
        return Ok(Checker::Window {
            class,
            title,
            present,
        });
    }
    if let Some(f) = s("posted") {
        return Ok(Checker::Posted {
            field: f,
            expect: expect()?,
        });
    }
    if let Some(run) = s("command") {
        return Ok(Checker::Command { run });
    }
    Err(field_error(
        path,
        at,
        "needs one of file = \"PATH\", stdout = N, window = {...}, posted = \"FIELD\", command = \"CMD\"",
    ))
}

fn expect(path: &Path, at: &str, t: &toml::Table) -> Result<Expect, TaskError> {
    let s = |k: &str| t.get(k).and_then(|v| v.as_str()).map(str::to_string);
    if let Some(e) = s("equals") {
        return Ok(Expect::Equals(e));
    }
    if let Some(c) = s("contains") {
        return Ok(Expect::Contains(c));
    }
    if let Some(r) = s("regex") {
        return Pattern::new(&r)
            .map(Expect::Regex)
            .map_err(|e| field_error(path, &format!("{at}.regex"), e));
    }
    Err(field_error(
        path,
        at,
        "needs equals = \"...\", contains = \"...\" or regex = \"...\"",
    ))
}

impl Expect {
    /// Whether `value` is as expected (`equals` ignores trailing newlines).
    pub fn holds(&self, value: &str) -> bool {
        match self {
            Expect::Equals(e) => value.trim_end_matches(['\n', '\r']) == e,
            Expect::Contains(c) => value.contains(c.as_str()),
            Expect::Regex(r) => r.is_match(value),
        }
    }
    pub fn describe(&self) -> String {
        match self {
            Expect::Equals(e) => format!("equal to {e:?}"),
            Expect::Contains(c) => format!("containing {c:?}"),
            Expect::Regex(r) => format!("matching /{}/", r.as_str()),
        }
    }
}

/// A compiled regular expression (`regex` syntax), compared by its source.
#[derive(Debug, Clone)]
pub struct Pattern(regex::Regex);

impl Pattern {
    pub fn new(source: &str) -> Result<Pattern, String> {
        regex::Regex::new(source)
            .map(Pattern)
            .map_err(|e| format!("not a valid regular expression: {e}"))
    }
    pub fn is_match(&self, s: &str) -> bool {
        self.0.is_match(s)
    }
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

#[cfg(test)]
mod tests;
