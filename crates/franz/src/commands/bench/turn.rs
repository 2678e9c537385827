//! `franz bench turn` and `franz bench soak`: the whole engine loop (observe, request, parse,
//! execute, run log, events) on a real X display against the in-memory model, the narrative
//! strategy and the fast motion profile (every delay zero). `turn` prints what a turn costs
//! outside the model, by stage (the engine reports it per turn, engine/overhead.rs); `soak`
//! runs many turns and checks that memory, the request size and the run log's growth per
//! turn stay flat.

use crate::cli::{BenchSoakArgs, BenchTurnArgs, GlobalArgs};
use crate::exit::{self, Exit};
use crate::flags::InputSettings;
use crate::setup;
use crate::terminal::outln;
use franz_core::agent::{Agent, AgentBuilder};
use franz_core::config::Choice;
use franz_core::engine::{RunOptions, SessionHandle, TurnOverhead};
use franz_core::event::{Event, EventKind};
use franz_core::executor::MotionProfile;
use franz_core::model::{Canned, CannedModel};
use franz_core::runlog::{Layout, LogImages, RunWriter};
use franz_core::strategy::StrategyName;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

/// The first turns warm up caches, the SHM segment and the PNG writer: left out of the figures.
const WARM_UP: usize = 2;

/// The scripted reply of turn `i`: a click on the empty desktop, alternating between two
/// points (same length, so the request's text stays the same size).
fn reply(i: usize) -> String {
    let (x, y) = if i.is_multiple_of(2) {
        (300, 400)
    } else {
        (600, 500)
    };
    format!("click({x}, {y})\nI click the empty desktop to see what happens there.")
}

/// One benchmark run: its events and each turn's time by stage.
struct Ran {
    /// Each turn's request size and its size less the screenshot, folded as they come (a
    /// list of events would itself grow the RSS a soak watches).
    requests: Requests,
    overhead: Vec<TurnOverhead>,
    /// `/proc/self/status` VmRSS in KiB and the run directory's bytes, sampled at these turns.
    rss: Vec<(u32, u64)>,
    disk_at: Vec<(u32, u64)>,
    disk: u64,
    turns: usize,
}

/// `bench turn` without `--stream` (with it: `early.rs`).
pub fn turn(g: &GlobalArgs, args: &BenchTurnArgs) -> anyhow::Result<ExitCode> {
    let turns = args.turns.unwrap_or(200).max(WARM_UP + 1);
    let ran = in_scratch(args.dir.as_deref(), "turn", |root| {
        let pool = if args.fresh_buffers { 0 } else { 4 };
        run(g, root, turns, (LogImages::All, pool), None)
    })?;
    let o: Vec<&TurnOverhead> = ran.overhead.iter().skip(WARM_UP).collect();
    outln!(
        "turn overhead outside the model: {} turns (after {WARM_UP} warm-up), narrative, in-memory model, fast motion, log_images all{}",
        o.len(),
        if args.fresh_buffers {
            ", fresh buffers"
        } else {
            ""
        }
    )?;
    for (i, (name, _)) in TurnOverhead::default().stages().iter().enumerate() {
        let mut v: Vec<f64> = o.iter().map(|t| t.stages()[i].1).collect();
        let (median, p95) = median_p95(&mut v);
        outln!("  {name:<14} median {median:7.3} ms   p95 {p95:7.3} ms")?;
    }
    let mut model: Vec<f64> = o.iter().map(|t| t.model_ms).collect();
    let (median, p95) = median_p95(&mut model);
    outln!(
        "  {:<14} median {median:7.3} ms   p95 {p95:7.3} ms (not counted)",
        "model"
    )?;
    let mut total: Vec<f64> = o.iter().map(|t| t.outside_model_ms()).collect();
    let (median, p95) = median_p95(&mut total);
    outln!("turn: median {median:.2} ms, p95 {p95:.2} ms")?;
    Ok(ExitCode::SUCCESS)
}

pub fn soak(g: &GlobalArgs, args: &BenchSoakArgs) -> anyhow::Result<ExitCode> {
    let turns = args.turns.max(20);
    let every = (turns / 20).clamp(1, 500);
    let ran = in_scratch(args.dir.as_deref(), "soak", |root| {
        run(g, root, turns, (LogImages::None, 4), Some(every))
    })?;
    outln!(
        "soak: {} turns, narrative, in-memory model, fast motion, log_images none",
        ran.turns
    )?;
    let rss_ok = report_rss(&ran.rss)?;
    let size_ok = report_requests(&ran.requests)?;
    outln!(
        "disk use: {} bytes per turn ({} bytes in all)",
        ran.disk / ran.turns.max(1) as u64,
        ran.disk
    )?;
    let disk_ok = report_disk(&ran.disk_at)?;
    if ran.turns < turns {
        anyhow::bail!("the run ended after {} of {turns} turns", ran.turns);
    }
    Ok(if rss_ok && size_ok && disk_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The turn whose reading the last is compared with: turn 1,000 (by then the allocator, the
/// run log's buffers and the caches have settled), or a tenth of a shorter soak.
const SETTLED_TURN: u32 = 1_000;

/// The sample taken at [`SETTLED_TURN`] (or at a tenth of a shorter soak), else the first.
fn settled(samples: &[(u32, u64)]) -> Option<(u32, u64)> {
    let last = samples.last()?.0;
    let at = SETTLED_TURN.min(last / 10);
    samples.iter().find(|(t, _)| *t >= at).copied()
}

/// Prints the RSS samples; whether the last is within 10% of the one at turn 1,000.
fn report_rss(rss: &[(u32, u64)]) -> std::io::Result<bool> {
    let (Some((from_turn, from)), Some(&(last_turn, last))) = (settled(rss), rss.last()) else {
        outln!("RSS: not measured (no /proc/self/status here)")?;
        return Ok(true);
    };
    let line: Vec<String> = rss.iter().map(|(t, kb)| format!("{t}:{kb}")).collect();
    outln!("RSS (turn:KiB): {}", line.join(" "))?;
    let drift = (last as f64 - from as f64) / from.max(1) as f64 * 100.0;
    let ok = drift.abs() <= 10.0;
    outln!(
        "RSS: {last} KiB at turn {last_turn}, {drift:+.2}% from {from} KiB at turn {from_turn}: {}",
        if ok { "within 10%" } else { "NOT within 10%" }
    )?;
    Ok(ok)
}

/// Prints the run log's growth per turn between samples; whether the last stretch's is within
/// 10% of the stretch's after turn 1,000 (bounded: with `log_images none` a turn logs its
/// events and exchange records, a few KiB that do not grow with the run).
fn report_disk(disk: &[(u32, u64)]) -> std::io::Result<bool> {
    let per_turn: Vec<(u32, u64)> = disk
        .windows(2)
        .map(|w| {
            (
                w[1].0,
                (w[1].1 - w[0].1.min(w[1].1)) / u64::from((w[1].0 - w[0].0).max(1)),
            )
        })
        .collect();
    let (Some((from_turn, from)), Some(&(last_turn, last))) = (settled(&per_turn), per_turn.last())
    else {
        return Ok(true);
    };
    let line: Vec<String> = per_turn.iter().map(|(t, b)| format!("{t}:{b}")).collect();
    outln!("disk per turn (turn:bytes): {}", line.join(" "))?;
    let ok = last as f64 <= from as f64 * 1.1;
    outln!(
        "disk: {last} bytes per turn up to turn {last_turn}, {from} up to turn {from_turn}: {}",
        if ok {
            "bounded"
        } else {
            "NOT bounded (grows with the run)"
        }
    )?;
    Ok(ok)
}

/// Prints the request size per turn, and its text (the request less its screenshot), which
/// must stay the same after the first turn; whether it did.
fn report_requests(r: &Requests) -> std::io::Result<bool> {
    let ((min, max), (tmin, tmax)) = (r.bytes, r.text);
    let constant = tmin == tmax;
    outln!(
        "request size per turn: {min}..{max} bytes; without the screenshot {tmin}..{tmax} bytes: {}",
        if constant { "constant" } else { "NOT constant" }
    )?;
    Ok(constant)
}

/// The smallest and largest request, whole and less its screenshot, after the first turn.
#[derive(Debug, Clone, Copy)]
struct Requests {
    image: usize,
    bytes: (usize, usize),
    text: (usize, usize),
}

impl Default for Requests {
    fn default() -> Self {
        Self {
            image: 0,
            bytes: (usize::MAX, 0),
            text: (usize::MAX, 0),
        }
    }
}

impl Requests {
    fn add(&mut self, e: &Event) {
        let widen = |(a, b): (usize, usize), x: usize| (a.min(x), b.max(x));
        match &e.kind {
            EventKind::Observation { bytes, .. } => self.image = bytes.div_ceil(3) * 4,
            EventKind::ModelRequest { bytes, attempt, .. } if *attempt == 1 && e.turn > 1 => {
                self.bytes = widen(self.bytes, *bytes);
                self.text = widen(self.text, bytes.saturating_sub(self.image));
            }
            _ => {}
        }
    }
}

/// Runs `f` on a scratch runs folder under `dir` (default the system temp folder), removed after.
pub(super) fn in_scratch<T>(
    dir: Option<&Path>,
    what: &str,
    f: impl FnOnce(&Path) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    let parent = dir
        .map(Path::to_path_buf)
        .unwrap_or_else(std::env::temp_dir);
    let root = parent.join(format!("franz-bench-{what}-{}", std::process::id()));
    let result = f(&root);
    let _ = std::fs::remove_dir_all(&root);
    result
}

/// Runs `turns` turns; samples the RSS every `every` turns when asked.
fn run(
    g: &GlobalArgs,
    root: &Path,
    turns: usize,
    (images, pool): (LogImages, usize),
    every: Option<usize>,
) -> anyhow::Result<Ran> {
    let fast = InputSettings::default().with("motion", MotionProfile::Fast.name());
    let what = "measures turns that act on the screen";
    let c = crate::input_commands::config_that_acts(g, &fast.given, "bench turn / soak", what)?;
    let session = setup::open_desktop(g)?;
    if session.display().is_none() {
        return Err(Exit(
            exit::USAGE,
            "this benchmark needs an X display: set DISPLAY or pass --sandbox".into(),
        )
        .into());
    }
    let writer = RunWriter::create(root, Layout::Flat)?
        .with_log_images(images)
        .with_image_pool(pool);
    let dir: PathBuf = writer.dir().to_path_buf();
    let model = CannedModel::new((0..turns).map(|i| Canned::text(reply(i)))).forgetting();
    let handle = SessionHandle::new(Default::default());
    let (tx, rx) = mpsc::channel();
    // a soak does not ask: unread reports would grow the RSS it watches
    if every.is_none() {
        handle.report_overhead_to(tx);
    }
    let (desktop, _keep) = session.into_parts();
    let agent = Agent::builder(&c, "benchmark: click the empty desktop")
        .desktop(desktop)
        .model(Arc::new(model))
        .writer(writer)
        .handle(handle.clone());
    let (_, mut stream) = acts(agent, turns).spawn()?;
    let interrupt = setup::interrupt_flag();
    let mut requests = Requests::default();
    let (mut rss, mut disk_at) = (Vec::new(), Vec::new());
    for e in stream.by_ref() {
        if interrupt.is_cancelled() {
            handle.submit(franz_core::engine::Op::Stop("interrupted".into()))?;
        }
        let sample = every.is_some_and(|n| (e.turn as usize).is_multiple_of(n));
        if let (EventKind::TurnStarted {}, true) = (&e.kind, sample) {
            rss.extend(rss_kb().map(|kb| (e.turn, kb)));
            disk_at.push((e.turn, disk_use(&dir)));
        }
        requests.add(&e);
    }
    let summary = stream.finish()?;
    Ok(Ran {
        requests,
        overhead: rx.try_iter().collect(),
        rss,
        disk_at,
        disk: disk_use(&dir),
        turns: summary.turns as usize,
    })
}

/// A bench's agent of `turns` narrative turns that act as `franz act` does: every action of a
/// reply performed, the input stopped by Ctrl+C, a `confirm` rule asked on the terminal.
pub(super) fn acts(agent: AgentBuilder, turns: usize) -> AgentBuilder {
    agent
        .strategy(StrategyName::Narrative)
        .executor(|e| e.max_actions_per_turn = usize::MAX)
        .cancel(setup::interrupt_flag())
        .confirmer(Box::new(crate::approve::confirm))
        .options(|o| options(o, turns))
}

/// A bench's run options: `turns` turns of the memory model, no pause between them.
pub(super) fn options(o: &mut RunOptions, turns: usize) {
    (o.model, o.temperature, o.top_p, o.max_tokens) = ("memory".into(), 0.0, 1.0, 100);
    (o.stream, o.early_exec, o.feedback) = (false, false, true);
    (o.max_steps, o.max_time) = (turns as u64, None);
    (o.step_delay, o.max_empty_turns) = (Duration::ZERO, turns as u64);
    o.context = Default::default();
    // the clicks repeat on purpose: no loop breaker, no unchanged-screen note
    o.loop_breaker.loops = franz_core::loop_breaker::LoopSettings { warn: 0, stop: 0 };
    o.loop_breaker.unchanged_note = false;
}

/// Median and 95th percentile (nearest rank) of a sample (sorted in place).
pub(super) fn median_p95(v: &mut [f64]) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    let (median, _, _) = crate::stats::stats(v);
    let rank = ((v.len() as f64) * 0.95).ceil() as usize;
    (median, v[rank.clamp(1, v.len()) - 1])
}

/// This process's resident memory in KiB (Linux), or None.
fn rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Bytes of the files under `dir`.
fn disk_use(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => disk_use(&e.path()),
            _ => e.metadata().map(|m| m.len()).unwrap_or(0),
        })
        .sum()
}
