//! `--suite miniwob` (crates/core/src/bench_task/miniwob.rs, docs/bench.md): where the
//! installed package is, the episodes' seeds, and one episode on a task run's sandbox.
//!
//! An episode starts as miniwob's own Python environment starts one (`SeleniumInstance.
//! begin_task` in the package): `Math.seedrandom(seed)`, `core.setDataMode('default')`,
//! `core.startEpisodeReal()`, then wait for `WOB_TASK_READY`; the task text is
//! `core.getUtterance()`. Two things differ, both said in docs/bench.md: the page is opened in
//! Chromium's app mode on the sandbox (not headless), and the episode's time limit
//! (`core.EPISODE_MAX_TIME`, 10 s for reinforcement-learning agents) is the task run's time
//! limit, since a local model takes seconds a turn. The reward is what the page computed when
//! its episode first ended (`WOB_RAW_REWARD_GLOBAL`, recorded as `core.endEpisode` returns,
//! since a click on the page's START cover afterwards would begin a new episode), or 0 when
//! the episode never ended, as miniwob's `force_stop` gives.

use super::devtools::{self, Page};
use super::plan::Job;
use crate::exit::usage;
use anyhow::Context;
use franz_desktop::sandbox::Sandbox;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long Chromium may take to show the page and the page to make its first problem.
const START_TIMEOUT: Duration = Duration::from_secs(40);

/// The folder of the task pages: `--miniwob-dir`, else the `miniwob` package of a venv here,
/// of `$VIRTUAL_ENV`, or of `python3`.
pub fn pages(given: Option<&Path>) -> anyhow::Result<PathBuf> {
    use franz_core::bench_task::miniwob::{VERSION, pages_dir};
    if let Some(dir) = given {
        return pages_dir(dir).ok_or_else(|| {
            usage(format!(
                "--miniwob-dir {}: no MiniWoB++ task pages there: give the installed `miniwob` package (site-packages/miniwob) or its html folder",
                dir.display()
            ))
        });
    }
    candidates()
        .iter()
        .find_map(|d| pages_dir(d))
        .ok_or_else(|| {
            usage(format!(
                "cannot find the MiniWoB++ task pages: install them with `pip install miniwob=={VERSION}` (scripts/deps.sh does, into .venv-test) or give --miniwob-dir DIR"
            ))
        })
}

/// Installed `miniwob` packages, most specific first.
fn candidates() -> Vec<PathBuf> {
    let mut venvs = vec![PathBuf::from(".venv-test"), PathBuf::from(".venv")];
    if let Some(v) = std::env::var_os("VIRTUAL_ENV") {
        venvs.push(PathBuf::from(v));
    }
    let mut found = Vec::new();
    for venv in venvs {
        for lib in ["lib", "Lib"] {
            let Ok(entries) = std::fs::read_dir(venv.join(lib)) else {
                continue;
            };
            for e in entries.flatten() {
                found.push(e.path().join("site-packages").join("miniwob"));
            }
            found.push(venv.join(lib).join("site-packages").join("miniwob"));
        }
    }
    let python = std::process::Command::new("python3")
        .args([
            "-c",
            "import miniwob, os; print(os.path.dirname(miniwob.__file__))",
        ])
        .stderr(std::process::Stdio::null())
        .output();
    if let Ok(out) = python
        && out.status.success()
    {
        found.push(PathBuf::from(
            String::from_utf8_lossy(&out.stdout).trim().to_string(),
        ));
    }
    found
}

/// `--seeds` (`1,5,9` or `0..10`), else `0..repeat`.
pub fn seeds(spec: Option<&str>, repeat: u32) -> anyhow::Result<Vec<u64>> {
    let Some(spec) = spec.map(str::trim) else {
        return Ok((0..u64::from(repeat)).collect());
    };
    let bad = || {
        usage(format!(
            "--seeds {spec:?}: give seeds as 1,5,9 or a range 0..10 (the end excluded)"
        ))
    };
    let seeds: Vec<u64> = match spec.split_once("..") {
        Some((a, b)) => {
            let (a, b): (u64, u64) = (
                a.trim().parse().map_err(|_| bad())?,
                b.trim().parse().map_err(|_| bad())?,
            );
            (a..b).collect()
        }
        None => spec
            .split(',')
            .map(|s| s.trim().parse().map_err(|_| bad()))
            .collect::<anyhow::Result<_>>()?,
    };
    if seeds.is_empty() {
        return Err(bad());
    }
    Ok(seeds)
}

/// A started episode: its page over DevTools and its task text.
pub struct Episode {
    page: Page,
    pub utterance: String,
}

/// How an episode ended, as the page scored it.
#[derive(Debug, Clone, PartialEq)]
pub struct Reward {
    /// `WOB_RAW_REWARD_GLOBAL` (-1..1, without the time penalty), 0 when it never ended.
    pub raw: f64,
    /// The page's reason, or why there is none.
    pub reason: String,
}

/// Opens the job's page in Chromium on `sandbox` and starts its episode.
pub fn start(sandbox: &mut Sandbox, job: &Job, work: &Path) -> anyhow::Result<Episode> {
    let deadline = Instant::now() + START_TIMEOUT;
    let profile = work.join("chromium");
    let line = chromium_line(job, &profile)?;
    sandbox
        .launch(&line)
        .with_context(|| format!("cannot start Chromium: {line}"))?;
    let port = devtools::port(&profile, deadline)?;
    let mut page = Page::connect(port, deadline)?;
    wait_for(
        &mut page,
        "typeof core === 'object' && !!core.cover_div",
        deadline,
    )
    .context("the task page did not load (is it a MiniWoB++ page?)")?;
    let seed = job.seed.unwrap_or(0);
    let episode_ms = job.timeout_s.saturating_mul(1000);
    page.eval(&format!(
        "core.EPISODE_MAX_TIME = {episode_ms}; {RECORD_END} Math.seedrandom({seed}); core.setDataMode('default'); core.startEpisodeReal(); true"
    ))
    .context("cannot start the episode")?;
    wait_for(&mut page, "WOB_TASK_READY === true", deadline)
        .context("the task did not become ready")?;
    let utterance = page
        .eval("core.getUtterance()")?
        .as_str()
        .unwrap_or("")
        .to_string();
    if utterance.is_empty() {
        anyhow::bail!("the task page shows no utterance in #query");
    }
    Ok(Episode { page, utterance })
}

/// Keeps the first ending of the episode as the page scored it.
const RECORD_END: &str = "window.__franzEnd = null; (function () { var end = core.endEpisode; core.endEpisode = function () { var id = WOB_EPISODE_ID; var r = end.apply(this, arguments); if (WOB_EPISODE_ID !== id && window.__franzEnd === null) { window.__franzEnd = {raw: WOB_RAW_REWARD_GLOBAL, reason: String(WOB_REWARD_REASON)}; } return r; }; })();";

impl Episode {
    /// The page's reward for the episode: as it ended, or 0 when it has not.
    pub fn reward(&mut self) -> anyhow::Result<Reward> {
        let v = self
            .page
            .eval("window.__franzEnd")
            .context("cannot read the page's reward")?;
        Ok(match v.get("raw").and_then(serde_json::Value::as_f64) {
            Some(raw) => Reward {
                raw,
                reason: v["reason"].as_str().unwrap_or("").to_string(),
            },
            None => Reward {
                raw: 0.0,
                reason: "the episode did not end".into(),
            },
        })
    }
}

fn wait_for(page: &mut Page, condition: &str, deadline: Instant) -> anyhow::Result<()> {
    loop {
        let last = page.eval(condition);
        if matches!(last, Ok(serde_json::Value::Bool(true))) {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return match last {
                Err(e) => Err(e),
                Ok(v) => Err(anyhow::anyhow!(
                    "{condition} is {v} after {START_TIMEOUT:?}"
                )),
            };
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Chromium in app mode on the whole screen, at the job's scale factor, with DevTools on a
/// port of its choosing, a fresh profile, and nothing that would cover the page.
fn chromium_line(job: &Job, profile: &Path) -> anyhow::Result<String> {
    let exe = chromium()?;
    let page = job.task.path();
    let page = page
        .canonicalize()
        .with_context(|| format!("cannot find the task page {}", page.display()))?;
    let url = format!("file://{}", page.display());
    // the window's size is in device-independent pixels: the screen's size over the scale
    let dip = |px: u32| (f64::from(px) / job.scale).ceil() as u32;
    let (w, h) = (dip(job.task.screen.width), dip(job.task.screen.height));
    let mut args = vec![
        format!("--app={url}"),
        format!("--user-data-dir={}", profile.display()),
        "--remote-debugging-port=0".into(),
        format!("--force-device-scale-factor={}", job.scale),
        "--window-position=0,0".into(),
        format!("--window-size={w},{h}"),
        "--test-type".into(),
    ];
    args.extend(
        [
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-translate",
            "--disable-features=Translate",
            "--password-store=basic",
            "--disable-gpu",
        ]
        .map(String::from),
    );
    if franz_desktop::running_as_root() {
        // Chromium refuses to start as root inside its own sandbox (containers, CI)
        args.push("--no-sandbox".into());
    }
    let quoted: Vec<String> = std::iter::once(exe)
        .chain(args)
        .map(|a| format!("'{}'", a.replace('\'', "'\\''")))
        .collect();
    Ok(quoted.join(" "))
}

/// The Chromium (or Chrome) on PATH.
fn chromium() -> anyhow::Result<String> {
    let names = [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ];
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        for n in names {
            if dir.join(n).is_file() {
                return Ok(dir.join(n).display().to_string());
            }
        }
    }
    Err(usage(format!(
        "--suite miniwob needs Chromium on PATH (one of {}): install it (apt install chromium)",
        names.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_are_lists_ranges_or_the_repeat_count() {
        assert_eq!(seeds(None, 3).unwrap(), [0, 1, 2]);
        assert_eq!(seeds(Some("4, 9"), 3).unwrap(), [4, 9]);
        assert_eq!(seeds(Some("2..5"), 1).unwrap(), [2, 3, 4]);
        for bad in ["", "x", "5..2", "1,,2", "-1"] {
            assert!(seeds(Some(bad), 1).is_err(), "{bad:?}");
        }
    }
}
