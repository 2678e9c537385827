//! Two sessions at once in one process, each on its own Xvfb sandbox with its own witness
//! window, in-memory model and run directory: each witness sees exactly its own session's
//! click and nothing of the other's, and each run directory is complete and holds only its
//! own run.
//!
//! The desktops are the production X11 desktop (`franz_desktop::open` with a display name):
//! capture and input each open their own connection to that display. `DISPLAY` is set to
//! garbage before anything starts, so a capture or an input that read it after start-up
//! could not reach either sandbox.

#![cfg(target_os = "linux")]

use crate::common;

use common::{TIMEOUT, sandbox};
use franz_core::agent::Agent;
use franz_core::config::Settings;
use franz_core::engine::{Decision, Modes, Op, RunOptions, SessionHandle};
use franz_core::event::{Event, EventKind, Outcome};
use franz_core::executor::{ExecConfig, MotionProfile};
use franz_core::model::CannedModel;
use franz_core::observe::ObserveConfig;
use franz_core::runlog::{Layout, RunWriter, read_run};
use franz_core::strategy::{ReadOptions, StrategyName};
use franz_core::{ActionKind, ActionResult};
use franz_desktop::witness::{Witness, WitnessEvent, WitnessKind};
use franz_desktop::{DesktopOptions, PixelPoint, PixelRect};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Barrier};
use std::thread::JoinHandle;
use std::time::Duration;

const W: u32 = 640;
const H: u32 = 400;

/// What one session's thread saw: its events and its run directory.
struct Finished {
    events: Vec<Event>,
    outcome: Outcome,
    run_dir: PathBuf,
}

/// Five turns of the memory model at most, without pauses or markers.
fn options(o: &mut RunOptions) {
    (o.model, o.temperature, o.top_p, o.max_tokens) = ("memory".into(), 0.0, 1.0, 100);
    (o.stream, o.early_exec, o.feedback) = (false, false, false);
    (o.max_steps, o.max_time, o.max_empty_turns) = (5, Some(TIMEOUT), 1);
    o.step_delay = Duration::ZERO;
}

/// Starts a session on `display` that clicks normalized `(x, y)` and then is done, logging to
/// a new run directory under `runs`. Both sessions wait at their first approval until the
/// other one is there too (`both`), so they are surely running at the same time.
fn start(
    display: &str,
    task: &str,
    (x, y): (i32, i32),
    runs: &Path,
    both: Arc<Barrier>,
) -> JoinHandle<Finished> {
    let desktop = franz_desktop::open(&DesktopOptions {
        display: Some(display.to_string()),
        monitor: None,
    })
    .unwrap();
    let writer = RunWriter::create(runs, Layout::Flat).unwrap();
    let run_dir = writer.dir().to_path_buf();
    let model = Arc::new(CannedModel::texts([
        format!("click({x}, {y})\nclicking"),
        "done(\"clicked\")\ndone".to_string(),
    ]));
    let handle = SessionHandle::new(Modes {
        approve: true,
        ..Modes::default()
    });
    let (_, mut stream) = Agent::builder(&Settings::defaults(), task)
        .desktop(desktop)
        .model(model)
        .writer(writer)
        .handle(handle.clone())
        .strategy(StrategyName::Narrative)
        .observing(|o| *o = ObserveConfig::default())
        .overlay(None)
        .executor(|e| *e = ExecConfig::with_profile(MotionProfile::Fast))
        .reading(|r| *r = ReadOptions::default())
        .options(options)
        .spawn()
        .unwrap();
    std::thread::spawn(move || {
        let mut events = Vec::new();
        let mut first = true;
        while let Some(e) = stream.next_timeout(TIMEOUT).expect("a session went silent") {
            if let EventKind::AwaitingApproval { .. } = e.kind {
                if std::mem::take(&mut first) {
                    both.wait();
                }
                let decision = Decision::Approve;
                handle
                    .submit(Op::Approve {
                        seq: e.turn,
                        decision,
                    })
                    .unwrap();
            }
            events.push(e);
        }
        let outcome = stream.finish().unwrap().outcome;
        Finished {
            events,
            outcome,
            run_dir,
        }
    })
}

fn presses(events: &[WitnessEvent]) -> Vec<PixelPoint> {
    events
        .iter()
        .filter(|e| e.is(WitnessKind::ButtonPress))
        .map(|e| e.at)
        .collect()
}

/// Asserts that the run directory holds one complete run of `task`, with a click at `click`.
fn assert_complete(f: &Finished, task: &str, click: (i32, i32)) {
    assert_eq!(f.outcome, Outcome::Done, "{task}: {:?}", f.events);
    let log = read_run(&f.run_dir).unwrap();
    assert!(log.warnings.is_empty(), "{task}: {:?}", log.warnings);
    assert_eq!(
        log.events.len(),
        f.events.len(),
        "{task}: every event is logged"
    );
    assert!(matches!(
        log.events.first().map(|e| &e.kind),
        Some(EventKind::RunStarted { task: t, .. }) if t == task
    ));
    assert!(matches!(
        log.events.last().map(|e| &e.kind),
        Some(EventKind::RunFinished { .. })
    ));
    assert_eq!(log.turns.len(), 2, "{task}: two turns");
    for t in &log.turns {
        let raw = t
            .raw
            .raw_png
            .as_deref()
            .expect("log_images all names the raw PNG");
        assert!(f.run_dir.join(raw).is_file(), "{task}: {t:?}");
    }
    // its own click, and only its own, was performed
    let clicks: Vec<_> = log
        .turns
        .iter()
        .flat_map(|t| t.raw.actions.iter().zip(&t.raw.results))
        .filter_map(|(a, r)| match a.kind {
            ActionKind::Click { x, y } => Some(((x, y), r.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(clicks.len(), 1, "{task}: {clicks:?}");
    let ((x, y), result) = &clicks[0];
    assert_eq!((*x, *y), (Some(click.0), Some(click.1)), "{task}");
    assert!(
        matches!(result, ActionResult::Ok { .. }),
        "{task}: {result:?}"
    );
}

#[test]
fn two_sessions_run_at_once_each_on_its_own_desktop() {
    if !common::alone_in_process("two_sessions::two_sessions_run_at_once_each_on_its_own_desktop") {
        return;
    }
    // Before any thread starts: nothing may read DISPLAY once the desktops are open.
    // SAFETY: no other thread of this process exists yet (this test runs alone in its process).
    unsafe { std::env::set_var("DISPLAY", "not a display") };

    let (sa, sb) = (sandbox(W, H), sandbox(W, H));
    assert_ne!(sa.display(), sb.display());
    let screen = PixelRect::new(0, 0, W, H);
    let (wa, wb) = (
        Witness::open(sa.display(), screen).unwrap(),
        Witness::open(sb.display(), screen).unwrap(),
    );
    let runs = tempfile::tempdir().unwrap();
    let (runs_a, runs_b) = (runs.path().join("a"), runs.path().join("b"));
    let both = Arc::new(Barrier::new(2));
    // normalized 0..1000 on 640x400: (250, 250) is pixel (160, 100), (750, 750) is (479, 299) (x * 639 / 1000)
    let (click_a, click_b) = ((250, 250), (750, 750));
    let a = start(sa.display(), "task A", click_a, &runs_a, both.clone());
    let b = start(sb.display(), "task B", click_b, &runs_b, both);
    let (a, b) = (a.join().unwrap(), b.join().unwrap());

    // each witness saw exactly its own session's click
    let pressed = |e: &[WitnessEvent]| !presses(e).is_empty();
    let (_, seen_a) = wa.wait_for(pressed, TIMEOUT);
    let (_, seen_b) = wb.wait_for(pressed, TIMEOUT);
    assert_eq!(presses(&seen_a), [PixelPoint::new(160, 100)], "{seen_a:?}");
    assert_eq!(presses(&seen_b), [PixelPoint::new(479, 299)], "{seen_b:?}");
    // and neither pointer went to the other session's point
    let far = |e: &WitnessEvent, p: PixelPoint| (e.at.x - p.x).abs() + (e.at.y - p.y).abs() > 50;
    assert!(seen_a.iter().all(|e| far(e, PixelPoint::new(479, 299))));
    assert!(seen_b.iter().all(|e| far(e, PixelPoint::new(160, 100))));

    // separate, complete run directories
    assert_ne!(a.run_dir, b.run_dir);
    assert!(a.run_dir.starts_with(&runs_a) && b.run_dir.starts_with(&runs_b));
    assert_complete(&a, "task A", click_a);
    assert_complete(&b, "task B", click_b);
    assert_eq!(std::env::var("DISPLAY").as_deref(), Ok("not a display"));
}
