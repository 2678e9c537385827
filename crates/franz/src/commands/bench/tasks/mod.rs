//! `franz bench tasks`: runs the task suite (`tasks/`, crates/core/src/bench_task/) over the
//! cross product of models, strategies and profiles, `--repeat` times, each task run as its own
//! `franz run` process on its own fresh Xvfb sandbox (`job.rs`), `--jobs` at a time. Results
//! go to `OUT/results.jsonl`, `OUT/index.html` and `OUT/runs/<id>/` (docs/bench.md).

mod baseline;
mod check;
mod devtools;
mod job;
mod miniwob;
mod pages;
mod plan;
mod progress;
mod scripted;

use super::board::{self, RUNS_DIR, Row};
use crate::cli::{BenchTasksArgs, GlobalArgs};
use crate::exit::usage;
use crate::terminal::outln;
use anyhow::Context;
use franz_core::bench_task::Task;
use plan::Job;
use std::collections::VecDeque;
use std::path::Path;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

pub fn run(g: &GlobalArgs, args: &BenchTasksArgs) -> anyhow::Result<ExitCode> {
    refuse_desktop_flags(g)?;
    let tasks = select(args)?;
    let jobs = plan(g, args, &tasks)?;
    if jobs.is_empty() {
        return Err(usage(
            "this shard has no task runs: use fewer shards than task runs",
        ));
    }
    std::fs::create_dir_all(args.out.join(RUNS_DIR))
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let workers = args
        .jobs
        .map(|j| j as usize)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .min(jobs.len());
    let (mut rows, interrupted) = run_pool(jobs, workers, &args.out)?;
    board::write_all(&args.out, &mut rows)?;
    if interrupted {
        return Err(crate::setup::interrupted_error());
    }
    let ok = rows.iter().filter(|r| r.success).count();
    outln!(
        "{ok}/{} task runs succeeded; leaderboard: {}",
        rows.len(),
        args.out.join(board::INDEX_FILE).display()
    )?;
    Ok(if ok == rows.len() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(crate::exit::FAILED)
    })
}

/// Each task run makes its own sandbox, and its `franz run` child resolves its own settings
/// (the task's, then `--config`): desktop and setting flags given here would be ignored.
fn refuse_desktop_flags(g: &GlobalArgs) -> anyhow::Result<()> {
    let mut given: Vec<String> = g
        .settings
        .given
        .iter()
        .filter(|x| x.key != crate::flags::REPEATABLE)
        .map(|x| x.flag.clone())
        .collect();
    for (on, flag) in [
        (g.sandbox.is_some(), "--sandbox"),
        (!g.launch.is_empty(), "--launch"),
        (g.monitor.is_some(), "--monitor"),
    ] {
        if on {
            given.push(flag.to_string());
        }
    }
    if given.is_empty() {
        return Ok(());
    }
    Err(usage(format!(
        "franz bench tasks runs each task on its own sandbox with the task's settings: drop {} (put settings in the task files or in --config FILE)",
        given.join(", ")
    )))
}

/// Every task of the suite.
fn suite(args: &BenchTasksArgs) -> anyhow::Result<(Vec<Task>, String)> {
    if args.suite != "miniwob" {
        let all = Task::list(&args.tasks_dir).map_err(|e| usage(e.to_string()))?;
        return Ok((all, args.tasks_dir.display().to_string()));
    }
    let pages = miniwob::pages(args.miniwob_dir.as_deref())?;
    let timeout = args.timeout.unwrap_or(MINIWOB_TIMEOUT_S);
    let all = franz_core::bench_task::miniwob::list(&pages, args.miniwob_screen, timeout)
        .map_err(|e| usage(e.to_string()))?;
    Ok((all, pages.display().to_string()))
}

/// The time limit of a MiniWoB++ task run (also its episode's, `miniwob.rs`).
const MINIWOB_TIMEOUT_S: u64 = 120;

/// The tasks `--tasks` picks, sorted by name.
fn select(args: &BenchTasksArgs) -> anyhow::Result<Vec<Arc<Task>>> {
    let (all, from) = suite(args)?;
    let wanted: Vec<&str> = args
        .tasks
        .as_deref()
        .map(|t| {
            t.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let mut picked: Vec<Arc<Task>> = all
        .into_iter()
        .filter(|t| wanted.is_empty() || wanted.iter().any(|w| picks(w, t)))
        .map(Arc::new)
        .collect();
    picked.sort_by(|a, b| a.name().cmp(b.name()));
    if picked.is_empty() {
        return Err(usage(format!(
            "no task in {from} matches --tasks {:?}: give a glob on the file name (zenity-*, click-*) or a tag (an app such as zenity, easy/medium/hard)",
            args.tasks.as_deref().unwrap_or("")
        )));
    }
    Ok(picked)
}

/// Whether `pattern` (a glob on the file stem or name, or a tag) picks `task`.
fn picks(pattern: &str, task: &Task) -> bool {
    if pattern.contains(['*', '?']) {
        let stem = task
            .path()
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        return glob(pattern, &stem) || glob(pattern, task.name());
    }
    task.name() == pattern || task.tags().contains(&pattern)
}

/// `*` and `?` wildcards over the whole string.
fn glob(p: &str, s: &str) -> bool {
    let (p, s): (Vec<char>, Vec<char>) = (p.chars().collect(), s.chars().collect());
    let (mut pi, mut si, mut star, mut mark) = (0, 0, None, 0);
    while si < s.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == s[si]) {
            pi += 1;
            si += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = si;
            pi += 1;
        } else if let Some(st) = star {
            pi = st + 1;
            mark += 1;
            si = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// `I/N` with `I < N`.
fn shard(spec: &str) -> anyhow::Result<(usize, usize)> {
    let bad = || {
        usage(format!(
            "--shard {spec:?}: give I/N with 0 <= I < N, e.g. --shard 0/4"
        ))
    };
    let (i, n) = spec.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

/// The cross product, in a fixed order; with `--shard I/N` every N-th from the I-th.
fn plan(g: &GlobalArgs, args: &BenchTasksArgs, tasks: &[Arc<Task>]) -> anyhow::Result<Vec<Job>> {
    let strategies = if args.strategies.is_empty() {
        vec![
            franz_core::config::Config::defaults()
                .strategy
                .as_str()
                .to_string(),
        ]
    } else {
        args.strategies.clone()
    };
    // `--profile P` (repeatable): the global flag, every value given
    let mut profiles: Vec<String> = g
        .settings
        .given
        .iter()
        .filter(|x| x.key == crate::flags::REPEATABLE)
        .map(|x| x.value.clone())
        .collect();
    if profiles.is_empty() {
        profiles.push(String::new());
    }
    check_models(args)?;
    if args
        .models
        .iter()
        .any(|m| m == scripted::MODEL || baseline::is_baseline(m))
    {
        // the screen matters only for the image size, not for whether a renderer exists
        let screen = franz_core::geometry::ImageSize::new(1920, 1080);
        for (s, p) in strategies
            .iter()
            .flat_map(|s| profiles.iter().map(move |p| (s, p)))
        {
            franz_core::bench_task::renderer_for(s, Some(p.as_str()), screen).map_err(usage)?;
        }
    }
    let (index, of) = args
        .shard
        .as_deref()
        .map(shard)
        .transpose()?
        .unwrap_or((0, 1));
    let seeds = episodes(args)?;
    let mut jobs = Vec::new();
    let mut n = 0;
    for task in tasks {
        for model in &args.models {
            for strategy in &strategies {
                for profile in &profiles {
                    for (repeat, seed) in (1..).zip(seeds.iter().copied()) {
                        n += 1;
                        if (n - 1) % of != index {
                            continue;
                        }
                        let id = job_id(task.name(), model, strategy, profile, repeat);
                        jobs.push(Job {
                            task: task.clone(),
                            model: model.clone(),
                            strategy: strategy.clone(),
                            profile: profile.clone(),
                            repeat,
                            seed,
                            scale: args.miniwob_scale,
                            api_url: args.api_url.clone(),
                            config: g.config.clone(),
                            timeout_s: args.timeout.unwrap_or(task.timeout_s),
                            dir: args.out.join(RUNS_DIR).join(&id),
                            rel_dir: format!("{RUNS_DIR}/{id}"),
                        });
                    }
                }
            }
        }
    }
    Ok(jobs)
}

/// Each task's runs: a MiniWoB++ episode's seed, or none for franz's own tasks.
fn episodes(args: &BenchTasksArgs) -> anyhow::Result<Vec<Option<u64>>> {
    match args.suite.as_str() {
        "miniwob" => Ok(miniwob::seeds(args.seeds.as_deref(), args.repeat)?
            .into_iter()
            .map(Some)
            .collect()),
        _ if args.seeds.is_some() => Err(usage(
            "--seeds is for --suite miniwob; franz's own tasks take --repeat K",
        )),
        _ => Ok(vec![None; args.repeat as usize]),
    }
}

/// Every model but the built-in ones needs a server; `scripted` needs golden trajectories,
/// which MiniWoB++ tasks have not.
fn check_models(args: &BenchTasksArgs) -> anyhow::Result<()> {
    for m in &args.models {
        let builtin = m == scripted::MODEL || baseline::is_baseline(m);
        if !builtin && args.api_url.is_none() {
            return Err(usage(format!(
                "--model {m} needs --api-url URL (the model server); only --model {}, {} and {} need none",
                scripted::MODEL,
                baseline::NOTHING,
                baseline::RANDOM
            )));
        }
        if m == scripted::MODEL && args.suite == "miniwob" {
            return Err(usage(format!(
                "--model {} replays franz's own golden trajectories; MiniWoB++ tasks have none: use --model {} or {} for baselines",
                scripted::MODEL,
                baseline::NOTHING,
                baseline::RANDOM
            )));
        }
    }
    Ok(())
}

fn job_id(task: &str, model: &str, strategy: &str, profile: &str, repeat: u32) -> String {
    let clean = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    let mut id = format!("{}.{}.{}", clean(task), clean(model), clean(strategy));
    if !profile.is_empty() {
        id.push('.');
        id.push_str(&clean(profile));
    }
    format!("{id}.r{repeat}")
}

/// Runs the jobs on `workers` threads; each thread owns its job's sandbox for the job's life
/// (the sandbox's children die with the thread that started them). Each row is appended to
/// `out/results.jsonl` as its run ends (the caller rewrites it sorted at the end); also says
/// whether Ctrl+C stopped the pool.
fn run_pool(jobs: Vec<Job>, workers: usize, out: &Path) -> anyhow::Result<(Vec<Row>, bool)> {
    let total = jobs.len();
    let partial = out.join(board::RESULTS_FILE);
    std::fs::write(&partial, "").with_context(|| format!("cannot write {}", partial.display()))?;
    let queue = Arc::new(Mutex::new(jobs.into_iter().collect::<VecDeque<_>>()));
    let progress = Arc::new(Mutex::new(progress::Progress::new(total)));
    let rows = Arc::new(Mutex::new(Vec::with_capacity(total)));
    let handles: Vec<_> = (0..workers.max(1))
        .map(|_| {
            let (queue, progress, rows) = (queue.clone(), progress.clone(), rows.clone());
            let partial = partial.clone();
            std::thread::spawn(move || {
                loop {
                    if crate::setup::interrupted() {
                        break;
                    }
                    let Some(job) = lock(&queue).pop_front() else {
                        break;
                    };
                    let row = job::run(&job);
                    lock(&progress).finished(&row);
                    let mut rows = lock(&rows);
                    append(&partial, &row);
                    rows.push(row);
                }
            })
        })
        .collect();
    for h in handles {
        if h.join().is_err() {
            anyhow::bail!("a bench worker thread panicked");
        }
    }
    lock(&progress).end();
    let rows = std::mem::take(&mut *lock(&rows));
    Ok((rows, crate::setup::interrupted()))
}

/// One row at the end of the partial results file; a failure to write it only warns (the
/// sorted file is written at the end).
fn append(path: &Path, row: &Row) {
    use std::io::Write;
    let line = serde_json::to_string(row).unwrap_or_default();
    let written = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .and_then(|mut f| writeln!(f, "{line}"));
    if let Err(e) = written {
        tracing::warn!("cannot append to {}: {e}", path.display());
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_and_shards() {
        assert!(glob("zenity-*", "zenity-entry"));
        assert!(glob("*entry", "zenity-entry"));
        assert!(glob("z?nity*", "zenity-x"));
        assert!(!glob("xterm-*", "zenity-entry"));
        assert_eq!(shard("1/3").unwrap(), (1, 3));
        assert!(shard("3/3").is_err());
        assert!(shard("x").is_err());
        assert_eq!(
            job_id("a b", "m/1", "narrative", "", 2),
            "a_b.m_1.narrative.r2"
        );
    }
}
