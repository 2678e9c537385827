//! The runs in the runs directory as MCP resources: `franz://runs/NAME/report` (the HTML
//! report of `franz report`, built on each read) and `franz://runs/NAME/turns` (its
//! `turns.jsonl`), so a client can read what a task did.
//!
//! Only what lies inside the runs directory is served: a run directory, or a file in it, that
//! is a link to somewhere else (`turns.jsonl -> /etc/passwd`) is refused, also with
//! `--read-only`.

use franz_core::runlog::{self, TURNS_FILE};
use rmcp::ErrorData as McpError;
use rmcp::model::{
    ListResourcesResult, ReadResourceResponse, ReadResourceResult, Resource, ResourceContents,
};
use std::path::{Path, PathBuf};

const PREFIX: &str = "franz://runs/";

/// The runs (directories with a `turns.jsonl`), two resources each, in name order.
pub fn list(runs_dir: &Path) -> Result<ListResourcesResult, McpError> {
    let mut names: Vec<String> = match std::fs::read_dir(runs_dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok())
            .filter(|e| e.path().join(TURNS_FILE).is_file())
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .collect(),
        // no runs yet
        Err(_) => Vec::new(),
    };
    names.sort();
    let items = names
        .iter()
        .flat_map(|n| {
            [
                Resource::new(format!("{PREFIX}{n}/report"), format!("{n} report"))
                    .with_mime_type("text/html")
                    .with_description(format!("The HTML report of run {n}")),
                Resource::new(format!("{PREFIX}{n}/turns"), format!("{n} turns"))
                    .with_mime_type("application/jsonl")
                    .with_description(format!("The turns of run {n}, one JSON record a line")),
            ]
        })
        .collect();
    Ok(ListResourcesResult::with_all_items(items))
}

/// What `uri` names: the run's name and `report` or `turns`.
fn parse(uri: &str) -> Option<(&str, &str)> {
    let rest = uri.strip_prefix(PREFIX)?;
    let (name, what) = rest.split_once('/')?;
    let safe = !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\']);
    (safe && matches!(what, "report" | "turns")).then_some((name, what))
}

/// `dir` resolved, when it is a directory of `runs_dir` and every link in it (and in its turn
/// directories) stays inside it; else the refusal.
fn inside(runs_dir: &Path, dir: &Path) -> Result<PathBuf, McpError> {
    let refuse = |what: &Path| {
        McpError::invalid_params(
            format!(
                "{} leads outside the runs directory {}: franz serves only the runs themselves",
                what.display(),
                runs_dir.display()
            ),
            None,
        )
    };
    let io = |e: std::io::Error| McpError::internal_error(e.to_string(), None);
    let runs = runs_dir.canonicalize().map_err(io)?;
    let real = dir.canonicalize().map_err(io)?;
    if real.parent() != Some(runs.as_path()) {
        return Err(refuse(dir));
    }
    let mut todo = vec![(real.clone(), 0)];
    while let Some((d, depth)) = todo.pop() {
        for entry in std::fs::read_dir(&d).map_err(io)?.filter_map(Result::ok) {
            let path = entry.path();
            let resolved = path.canonicalize().map_err(|_| refuse(&path))?;
            if !resolved.starts_with(&real) {
                return Err(refuse(&path));
            }
            if depth == 0 && resolved.is_dir() {
                todo.push((resolved, 1));
            }
        }
    }
    Ok(real)
}

/// Reads one resource.
pub fn read(runs_dir: &Path, uri: &str) -> Result<ReadResourceResponse, McpError> {
    let Some((name, what)) = parse(uri) else {
        return Err(McpError::invalid_params(
            format!(
                "{uri:?} is not a franz resource: use franz://runs/NAME/report or franz://runs/NAME/turns (resources/list names them)"
            ),
            None,
        ));
    };
    let dir = runs_dir.join(name);
    if !dir.join(TURNS_FILE).is_file() {
        return Err(McpError::resource_not_found(
            format!("there is no run {name:?} in {}", runs_dir.display()),
            None,
        ));
    }
    let dir = inside(runs_dir, &dir)?;
    let (text, mime) = match what {
        "report" => {
            let log = runlog::read_run(&dir)
                .map_err(|e| McpError::internal_error(e.to_string(), None))?;
            (franz_core::report::build(&log), "text/html")
        }
        _ => (
            franz_core::files::read_text(
                &dir.join(TURNS_FILE),
                "one file of a run directory",
                franz_core::files::RUN_FILE_CAP,
            )
            .map_err(|e| {
                McpError::internal_error(
                    format!("cannot read {name}'s turns: {}", e.problem()),
                    None,
                )
            })?,
            "application/jsonl",
        ),
    };
    let contents = ResourceContents::text(text, uri).with_mime_type(mime);
    Ok(ReadResourceResult::new(vec![contents]).into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_only_runs_inside_the_runs_directory() {
        assert_eq!(
            parse("franz://runs/run_0001/report"),
            Some(("run_0001", "report"))
        );
        assert_eq!(
            parse("franz://runs/run_0001/turns"),
            Some(("run_0001", "turns"))
        );
        for bad in [
            "franz://runs/../report",
            "franz://runs/a/b/turns",
            "franz://runs//turns",
            "franz://runs/run_0001/config",
            "file:///etc/passwd",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }
}
