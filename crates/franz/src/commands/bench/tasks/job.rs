//! One task run: a fresh Xvfb sandbox (its own display), the task's setup on it (stdout of
//! each command kept in `work/setup_<i>.out`), the local page server when the task uses
//! `${PAGES}`, the scripted model for `--model scripted`, then `franz run` as a child process
//! on that display with its own runs folder, the checkers, and the run's report.
//!
//! The folder of a task run (`OUT/runs/<id>/`): `task.toml` (the scenario franz ran: the
//! task file without its setup, which ran here), `work/` (`${WORK}` of the task),
//! `runs/run_0001/` (franz's run directory with `report.html`), `franz.out`, `franz.err`.

use super::plan::Job;
use super::{baseline, check, miniwob, pages, scripted};
use crate::commands::bench::board::Row;
use anyhow::Context;
use franz_core::bench_task::Suite;
use franz_desktop::sandbox::{Sandbox, SandboxOptions};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long setup may take to show its windows.
const SETUP_TIMEOUT: Duration = Duration::from_secs(40);

/// Runs `job`; whatever goes wrong is the row's error.
pub fn run(job: &Job) -> Row {
    let start = Instant::now();
    let mut row = Row {
        task: job.task.name().to_string(),
        model: job.model.clone(),
        strategy: job.strategy.clone(),
        profile: job.profile.clone(),
        repeat: job.repeat,
        seed: job.seed,
        reward: None,
        success: false,
        steps: 0,
        wall_s: 0.0,
        model_s: 0.0,
        tokens: 0,
        error: String::new(),
        dir: job.rel_dir.clone(),
        report: None,
        display: String::new(),
        display_ms: [0, 0],
        started_ms: franz_core::event::unix_ms(),
        ended_ms: 0,
    };
    match attempt(job, start) {
        Ok(outcome) => {
            row.display = outcome.display.clone();
            row.display_ms = outcome.display_ms;
            row.reward = outcome.reward;
            row.success = outcome.failures.is_empty();
            row.error = outcome.failures.join("; ");
            if let Some(run_dir) = &outcome.run_dir {
                fill_from_run(&mut row, run_dir);
                let verdict = franz_core::runlog::CheckerVerdict {
                    task: row.task.clone(),
                    score: row.reward.unwrap_or(if row.success { 1.0 } else { 0.0 }),
                    failures: outcome.failures.clone(),
                };
                if let Err(e) = franz_core::runlog::write_verdict(run_dir, &verdict) {
                    row.success = false;
                    let sep = if row.error.is_empty() { "" } else { "; " };
                    row.error = format!("{}{sep}{e}", row.error);
                }
                let report = run_dir.join("report.html");
                if crate::report_file::write_report(run_dir, &report).is_ok()
                    && let Ok(rel) = report.strip_prefix(&job.dir)
                {
                    row.report = Some(format!("{}/{}", job.rel_dir, rel.display()));
                }
            }
        }
        Err(e) => row.error = format!("{e:#}"),
    }
    row.wall_s = (start.elapsed().as_secs_f64() * 10.0).round() / 10.0;
    row.ended_ms = franz_core::event::unix_ms();
    row
}

/// What a finished run left: the checkers that failed, and the franz run directory.
struct Outcome {
    failures: Vec<String>,
    run_dir: Option<PathBuf>,
    display: String,
    /// When the sandbox held the display (Unix ms).
    display_ms: [u64; 2],
    /// The page's reward (MiniWoB++ tasks).
    reward: Option<f64>,
}

fn attempt(job: &Job, start: Instant) -> anyhow::Result<Outcome> {
    let deadline = start + Duration::from_secs(job.timeout_s);
    let work = job.dir.join("work");
    if job.dir.exists() {
        std::fs::remove_dir_all(&job.dir)
            .with_context(|| format!("cannot clear {}", job.dir.display()))?;
    }
    std::fs::create_dir_all(&work).with_context(|| format!("cannot create {}", work.display()))?;
    let work = work.canonicalize()?;
    let task = &job.task;
    let mut sandbox = Sandbox::start(&SandboxOptions {
        width: task.screen.width,
        height: task.screen.height,
        launch: Vec::new(),
    })
    .context("cannot start the task's sandbox")?;
    // held from here to the stop: a time taken before the start could fall while another job
    // still held this display number, and one taken after the stop after another job took it
    let display_from = franz_core::event::unix_ms();
    let display = sandbox.display().to_string();
    let (failures, reward) = match task.suite {
        Suite::Own => (own_task(job, &mut sandbox, &work, deadline)?, None),
        Suite::Miniwob => miniwob_task(job, &mut sandbox, &work, deadline)?,
    };
    let display_to = franz_core::event::unix_ms();
    sandbox.stop();
    if task.suite == Suite::Miniwob {
        // the browser profile is tens of megabytes and of no use once the run ended
        let _ = std::fs::remove_dir_all(work.join("chromium"));
    }
    Ok(Outcome {
        failures,
        run_dir: newest_run(&job.dir.join("runs")),
        display,
        display_ms: [display_from, display_to],
        reward,
    })
}

/// A task of `tasks/`: its setup, the run, its checkers; the failures.
fn own_task(
    job: &Job,
    sandbox: &mut Sandbox,
    work: &Path,
    deadline: Instant,
) -> anyhow::Result<Vec<String>> {
    let task = &job.task;
    let display = sandbox.display().to_string();
    let uses_pages = task.scenario.setup.iter().any(|c| c.contains("${PAGES}"));
    let page_dir = task.path().parent().unwrap_or(Path::new(".")).join("pages");
    let host = match uses_pages {
        true => Some(pages::PageHost::start(
            &page_dir,
            &work.join(pages::POSTED_FILE),
        )?),
        false => None,
    };
    let vars = Vars {
        work: work.display().to_string(),
        pages: host.as_ref().map(|h| h.url()).unwrap_or_default(),
    };
    for (i, cmd) in task.scenario.setup.iter().enumerate() {
        let out = work.join(format!("setup_{i}.out"));
        let line = format!("{} > '{}'", vars.expand(cmd), out.display());
        sandbox
            .launch(&line)
            .with_context(|| format!("cannot launch setup command {i}: {cmd}"))?;
    }
    if task.windows > 0 && !sandbox.wait_for_windows(task.windows, SETUP_TIMEOUT) {
        anyhow::bail!(
            "setup did not show {} window(s) within {} s",
            task.windows,
            SETUP_TIMEOUT.as_secs()
        );
    }
    let server = match job.model == scripted::MODEL {
        true => Some(scripted::start(job, &display)?),
        false => None,
    };
    let mut failures = Vec::new();
    let status = run_model(
        job,
        server.as_ref().map(|s| s.url()),
        &task.scenario.task,
        &display,
        &vars,
        deadline,
    )?;
    drop(server);
    failures.extend(status);
    let ctx = check::Context {
        display: &display,
        work,
        vars: &|s: &str| vars.expand(s),
    };
    failures.extend(check::run_all(&task.checkers, &ctx));
    drop(host);
    Ok(failures)
}

/// A MiniWoB++ page: its episode started with the job's seed, the run with the utterance as
/// its task text, the page's reward; the failures (a reward <= 0 is one) and the reward.
fn miniwob_task(
    job: &Job,
    sandbox: &mut Sandbox,
    work: &Path,
    deadline: Instant,
) -> anyhow::Result<(Vec<String>, Option<f64>)> {
    let display = sandbox.display().to_string();
    let mut episode = miniwob::start(sandbox, job, work)?;
    let server = baseline::start(job)?;
    let vars = Vars {
        work: work.display().to_string(),
        pages: String::new(),
    };
    let status = run_model(
        job,
        server.as_ref().map(|s| s.url()),
        &episode.utterance,
        &display,
        &vars,
        deadline,
    )?;
    drop(server);
    let reward = episode.reward()?;
    let mut failures: Vec<String> = status.into_iter().collect();
    if reward.raw <= 0.0 {
        failures.push(format!(
            "the page's reward is {} ({})",
            reward.raw, reward.reason
        ));
    }
    Ok((failures, Some(reward.raw)))
}

/// Runs franz against the model server (`local`: one this process started) with `task` as
/// the task text; `Some` says it was stopped for the time limit.
fn run_model(
    job: &Job,
    local: Option<String>,
    task: &str,
    display: &str,
    vars: &Vars,
    deadline: Instant,
) -> anyhow::Result<Option<String>> {
    let api_url = local.unwrap_or_else(|| job.api_url.clone().unwrap_or_default());
    let scenario = write_scenario(job, task)?;
    let runs = job.dir.join("runs");
    run_franz(job, &scenario, &runs, &api_url, display, vars, deadline)
}

/// `${WORK}` and `${PAGES}` in setup commands and checkers.
pub struct Vars {
    work: String,
    pages: String,
}

impl Vars {
    pub fn expand(&self, s: &str) -> String {
        s.replace("${WORK}", &self.work)
            .replace("${PAGES}", &self.pages)
    }
}

/// The task as a scenario without its setup (it ran here already), with `task` as its task
/// text: `task.toml`.
fn write_scenario(job: &Job, task: &str) -> anyhow::Result<PathBuf> {
    let s = &job.task.scenario;
    let mut t = s.config.clone();
    t.insert("name".into(), s.name.clone().into());
    t.insert("task".into(), task.into());
    if !s.description.is_empty() {
        t.insert("description".into(), s.description.clone().into());
    }
    let path = job.dir.join("task.toml");
    std::fs::write(&path, toml::to_string(&t)?)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

/// Runs `franz run` on the sandbox's display until it ends or the deadline passes; `Some`
/// says it was stopped for the time limit.
fn run_franz(
    job: &Job,
    scenario: &Path,
    runs: &Path,
    api_url: &str,
    display: &str,
    vars: &Vars,
    deadline: Instant,
) -> anyhow::Result<Option<String>> {
    let exe = std::env::current_exe().context("cannot find the franz executable")?;
    let mut cmd = Command::new(exe);
    cmd.arg("run")
        .arg("--scenario")
        .arg(scenario)
        .args(["--runs-dir", &runs.display().to_string()])
        .args(["--api-url", api_url, "--model", &job.model])
        .args(["--strategy", &job.strategy]);
    if !job.profile.is_empty() {
        cmd.args(["--profile", &job.profile]);
    }
    if let Some(config) = &job.config {
        cmd.arg("--config").arg(config);
    }
    if job.model == scripted::MODEL || baseline::is_baseline(&job.model) {
        cmd.args(["--step-delay", "0.3"]);
    }
    let out = std::fs::File::create(job.dir.join("franz.out"))?;
    let err = std::fs::File::create(job.dir.join("franz.err"))?;
    let mut child = cmd
        .env("DISPLAY", display)
        .env("WORK", &vars.work)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .context("cannot start franz run")?;
    loop {
        if child.try_wait()?.is_some() {
            return Ok(None);
        }
        if Instant::now() >= deadline || crate::setup::interrupted() {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(Some(format!(
                "stopped at the time limit ({} s)",
                job.timeout_s
            )));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The newest `run_*` folder under `runs`.
fn newest_run(runs: &Path) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(runs)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("run_"))
        })
        .collect();
    dirs.sort();
    dirs.pop()
}

/// Steps, model time and tokens from the run's events.
fn fill_from_run(row: &mut Row, run_dir: &Path) {
    use franz_core::event::{Event, EventKind};
    let Ok((events, _)) =
        franz_core::runlog::read_jsonl::<Event>(&run_dir.join(franz_core::runlog::EVENTS_FILE))
    else {
        return;
    };
    let mut model_ms = 0.0;
    for e in &events {
        match &e.kind {
            EventKind::ModelReply {
                ms,
                prompt_tokens,
                completion_tokens,
                ..
            } => {
                model_ms += ms;
                row.tokens += prompt_tokens.unwrap_or(0) + completion_tokens.unwrap_or(0);
            }
            EventKind::RunFinished { turns, .. } => row.steps = *turns,
            _ => {}
        }
    }
    row.model_s = (model_ms / 100.0).round() / 10.0;
}
