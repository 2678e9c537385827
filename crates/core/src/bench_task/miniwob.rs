//! MiniWoB++ (the Farama Foundation's `miniwob` package on PyPI) as a suite of
//! `franz bench tasks --suite miniwob` (docs/bench.md): each `html/miniwob/NAME.html` of the
//! installed package is a task named `NAME`, tagged `miniwob`. The page itself makes the
//! problem from a seed, shows the utterance the model gets as its task text, and computes the
//! reward; the task files are read where the package is installed, never copied.

use super::{Suite, Task, TaskError, field_error};
use crate::geometry::ImageSize;
use crate::scenario::Scenario;
use std::path::{Path, PathBuf};

/// The app tag of every MiniWoB++ task.
pub const APP: &str = "miniwob";
/// The pinned release the docs and the tests were checked against.
pub const VERSION: &str = "1.1.0";
/// Default turns a MiniWoB++ episode may take (the longest deterministic tasks, such as
/// login-user, need about five actions).
pub const MAX_STEPS: i64 = 15;

/// The folder of the task pages (`.../miniwob/html/miniwob`) under `dir`, which may be the
/// installed package (`site-packages/miniwob`), its `html` folder, or that folder itself.
pub fn pages_dir(dir: &Path) -> Option<PathBuf> {
    [
        dir.join("html").join("miniwob"),
        dir.join("miniwob"),
        dir.to_path_buf(),
    ]
    .into_iter()
    .find(|d| d.join("click-button.html").is_file() || has_core(d))
}

fn has_core(d: &Path) -> bool {
    d.parent()
        .is_some_and(|p| p.join("core").join("core.js").is_file())
        && d.read_dir().is_ok_and(|mut r| {
            r.any(|e| e.is_ok_and(|e| e.path().extension().is_some_and(|x| x == "html")))
        })
}

/// Every task page in `pages` (see [`pages_dir`]), sorted by name, each a task on a screen of
/// `screen` that may take `timeout_s` seconds.
pub fn list(pages: &Path, screen: ImageSize, timeout_s: u64) -> Result<Vec<Task>, TaskError> {
    let entries = std::fs::read_dir(pages)
        .map_err(|e| field_error(pages, "miniwob-dir", format!("cannot read it: {e}")))?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "html"))
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(field_error(
            pages,
            "miniwob-dir",
            "holds no task pages (*.html)",
        ));
    }
    Ok(paths
        .into_iter()
        .map(|p| task(&p, screen, timeout_s))
        .collect())
}

/// The task of one page; its task text is the utterance, known once an episode starts.
fn task(page: &Path, screen: ImageSize, timeout_s: u64) -> Task {
    let name = page
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut config = toml::Table::new();
    config.insert("max_steps".into(), MAX_STEPS.into());
    Task {
        scenario: Scenario {
            path: page.to_path_buf(),
            name,
            task: String::new(),
            description: format!("MiniWoB++ {VERSION} task page"),
            setup: Vec::new(),
            config,
            bench: toml::Table::new(),
        },
        app: APP.to_string(),
        difficulty: String::new(),
        extra_tags: Vec::new(),
        screen,
        timeout_s,
        windows: 1,
        checkers: Vec::new(),
        golden: Vec::new(),
        suite: Suite::Miniwob,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_found_from_the_package_the_html_folder_or_the_pages() {
        let root = tempfile::tempdir().unwrap();
        let pages = root.path().join("html").join("miniwob");
        std::fs::create_dir_all(&pages).unwrap();
        std::fs::create_dir_all(root.path().join("html").join("core")).unwrap();
        std::fs::write(root.path().join("html/core/core.js"), "").unwrap();
        std::fs::write(pages.join("click-button.html"), "<html>").unwrap();
        std::fs::write(pages.join("use-slider.html"), "<html>").unwrap();
        for d in [root.path(), &root.path().join("html"), &pages] {
            assert_eq!(pages_dir(d).as_deref(), Some(pages.as_path()), "{d:?}");
        }
        assert_eq!(pages_dir(&root.path().join("nothing")), None);
        let tasks = list(&pages, ImageSize::new(800, 600), 60).unwrap();
        let names: Vec<&str> = tasks.iter().map(Task::name).collect();
        assert_eq!(names, ["click-button", "use-slider"]);
        assert_eq!(tasks[0].suite, Suite::Miniwob);
        assert_eq!(tasks[0].tags(), ["miniwob"]);
        assert!(list(root.path(), ImageSize::new(800, 600), 60).is_err());
    }
}
