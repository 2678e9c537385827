//! Scenarios: TOML files with a name, the task prompt, optional strategy and limits (any
//! configuration key), and programs to launch and wait for before the first turn.
//!
//! ```toml
//! name = "xterm-echo"
//! task = "Type 'echo hello' into the terminal and press Enter."
//! strategy = "narrative"
//! max_steps = 10
//! setup = ["xterm -geometry 80x24+0+0"]
//! ```

use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    pub path: PathBuf,
    pub name: String,
    pub task: String,
    pub description: String,
    /// Programs to launch (as `--launch`) before the first turn.
    pub setup: Vec<String>,
    /// The configuration keys the scenario sets (strategy, limits, ...).
    pub config: toml::Table,
    /// The keys only `franz bench tasks` reads (`BENCH_KEYS`: checker, tags, golden, ...),
    /// kept apart so `franz run --scenario` runs a task file as it runs any scenario.
    pub bench: toml::Table,
}

/// The keys of a bench task (crates/core/src/bench_task.rs) that are not configuration keys.
pub const BENCH_KEYS: [&str; 6] = ["checker", "tags", "golden", "screen", "timeout", "windows"];

#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error("cannot read scenario {path}: {problem}")]
    Read { path: PathBuf, problem: String },
    #[error("scenario {path}: {problem}")]
    Invalid { path: PathBuf, problem: String },
}

impl Scenario {
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        let read = |problem: String| ScenarioError::Read {
            path: path.to_path_buf(),
            problem,
        };
        let text = crate::files::read_settings(path).map_err(|e| read(e.problem()))?;
        let mut table: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| read(e.to_string()))?;
        let invalid = |problem: &str| ScenarioError::Invalid {
            path: path.to_path_buf(),
            problem: problem.to_string(),
        };
        let mut take_str = |key: &str| -> Result<Option<String>, ScenarioError> {
            match table.remove(key) {
                None => Ok(None),
                Some(toml::Value::String(s)) => Ok(Some(s)),
                Some(_) => Err(invalid(&format!("{key} must be a string"))),
            }
        };
        let name = take_str("name")?;
        let task = take_str("task")?.or(take_str("prompt")?);
        let description = take_str("description")?.unwrap_or_default();
        let task = task
            .filter(|t| !t.trim().is_empty())
            .ok_or_else(|| invalid("it needs a task = \"...\""))?;
        let setup = match table.remove("setup") {
            None => Vec::new(),
            Some(toml::Value::Array(items)) => items
                .into_iter()
                .map(|v| match v {
                    toml::Value::String(s) => Ok(s),
                    _ => Err(invalid("setup must be a list of command strings")),
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(invalid("setup must be a list of command strings")),
        };
        let bench: toml::Table = BENCH_KEYS
            .iter()
            .filter_map(|k| table.remove(*k).map(|v| (k.to_string(), v)))
            .collect();
        let name = name.unwrap_or_else(|| {
            path.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        });
        Ok(Scenario {
            path: path.to_path_buf(),
            name,
            task,
            description,
            setup,
            config: table,
            bench,
        })
    }

    /// Every `*.toml` scenario in a folder, sorted by file name; unreadable ones as errors.
    pub fn list(dir: &Path) -> Result<Vec<Result<Scenario, ScenarioError>>, ScenarioError> {
        let entries = std::fs::read_dir(dir).map_err(|e| ScenarioError::Read {
            path: dir.to_path_buf(),
            problem: e.to_string(),
        })?;
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        paths.sort();
        Ok(paths.iter().map(|p| Scenario::load(p)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_fields_and_keeps_config_keys() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("demo.toml");
        std::fs::write(&p, "name = \"d\"\ntask = \"do it\"\nstrategy = \"vision\"\nmax_steps = 4\nsetup = [\"xterm\"]\n").unwrap();
        let s = Scenario::load(&p).unwrap();
        assert_eq!((s.name.as_str(), s.task.as_str()), ("d", "do it"));
        assert_eq!(s.setup, vec!["xterm".to_string()]);
        assert_eq!(
            s.config.get("strategy").and_then(|v| v.as_str()),
            Some("vision")
        );
        assert!(!s.config.contains_key("name"));
        std::fs::write(&p, "name = \"x\"\n").unwrap();
        assert!(Scenario::load(&p).unwrap_err().to_string().contains("task"));
    }
}
