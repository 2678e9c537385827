//! `franz bench ...`: measurements that print medians. Never used as test assertions.

mod board;
mod early;
mod evaluated;
mod mcp;
mod observe;
mod parse;
mod stop;
mod tasks;
mod turn;

use crate::cli::{BenchActArgs, BenchCommand, BenchOverlayArgs, BenchRunlogArgs, GlobalArgs};
use crate::exit::{self, Exit};
use crate::setup;
use crate::stats::stats;
use crate::terminal::outln;
use franz_core::action::{Action, ActionKind, ActionResult};
use franz_core::event::{Event, EventKind};
use franz_core::geometry::NormBox;
use franz_core::observe::{ImageFormat, RgbaImage, encode_image};
use franz_core::overlay::{FeedbackHistory, Overlay, OverlayConfig, TurnFeedback};
use franz_core::runlog::{Layout, RunWriter, TurnEntry, TurnImage};
use std::process::ExitCode;
use std::time::Instant;

/// A usage error where the X11 tools a bench needs do not exist (`what` names it and why).
fn needs_x11(what: &str) -> anyhow::Result<()> {
    franz_desktop::needs_x11(what).map_err(|e| Exit(exit::USAGE, e.to_string()).into())
}

pub fn run(g: &GlobalArgs, cmd: &BenchCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        BenchCommand::Observe(args) => observe::bench(g, args),
        BenchCommand::Overlay(args) => overlay(args),
        BenchCommand::Runlog(args) => runlog(args),
        BenchCommand::Act(args) => act(g, args),
        BenchCommand::Stop(args) => stop::bench(args),
        BenchCommand::Tasks(args) => {
            needs_x11("bench tasks (each task runs on its own Xvfb sandbox)")?;
            tasks::run(g, args)
        }
        BenchCommand::Merge(args) => board::merge(args),
        BenchCommand::Mcp(args) => mcp::bench(g, args),
        BenchCommand::Turn(args) if args.stream => {
            needs_x11("bench turn --stream (the witness window sees the input)")?;
            early::bench(g, args)
        }
        BenchCommand::Turn(args) if args.api_url.is_some() => evaluated::bench(g, args),
        BenchCommand::Turn(args) => turn::turn(g, args),
        BenchCommand::Soak(args) => turn::soak(g, args),
        BenchCommand::Parse(args) => parse::bench(args),
    }
}

/// A 1536x864 desktop-like frame: a gradient backdrop with a light window.
fn synthetic_frame() -> RgbaImage {
    let (w, h) = (1536u32, 864u32);
    let mut data = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h {
        for x in 0..w {
            let inside = (100..1400).contains(&x) && (80..800).contains(&y);
            let c = if inside {
                let v = 230 - ((x / 7 + y / 11) % 3) as u8 * 10;
                [v, v, v, 255]
            } else {
                [30, (60 + y / 8) as u8, 110, 255]
            };
            data.extend_from_slice(&c);
        }
    }
    RgbaImage {
        width: w,
        height: h,
        data,
    }
}

/// Four turns of typical actions, with boxes on the newest.
fn busy_history(overlay: &Overlay) -> FeedbackHistory {
    let click = |x, y| {
        Action::from(ActionKind::Click {
            x: Some(x),
            y: Some(y),
        })
    };
    let mut history = overlay.history();
    history.push(TurnFeedback {
        actions: vec![click(150, 400)],
        bboxes: vec![],
    });
    history.push(TurnFeedback {
        actions: vec![
            ActionKind::Drag {
                x: Some(300),
                y: Some(250),
                x2: 550,
                y2: 250,
            }
            .into(),
        ],
        bboxes: vec![],
    });
    history.push(TurnFeedback {
        actions: vec![
            click(650, 450),
            ActionKind::Type {
                text: "hello world".into(),
            }
            .into(),
        ],
        bboxes: vec![],
    });
    history.push(TurnFeedback {
        actions: vec![
            click(850, 750),
            ActionKind::RightClick {
                x: Some(200),
                y: Some(800),
            }
            .into(),
            ActionKind::Key {
                keys: "ctrl+s".into(),
            }
            .into(),
        ],
        bboxes: vec![
            NormBox::from_corners(600, 250, 900, 500),
            NormBox::from_corners(90, 650, 340, 800),
        ],
    });
    history
}

fn overlay(args: &BenchOverlayArgs) -> anyhow::Result<ExitCode> {
    let overlay = Overlay::new(OverlayConfig::default())?;
    let history = busy_history(&overlay);
    let base = synthetic_frame();
    let n = args.iterations.max(1);
    let mut img = base.clone();
    overlay.draw_image(&mut img, &history)?; // warm-up
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        img.data.copy_from_slice(&base.data);
        let s = Instant::now();
        overlay.draw_image(&mut img, &history)?;
        v.push(s.elapsed().as_secs_f64() * 1000.0);
    }
    let (median, min, max) = stats(&mut v);
    outln!(
        "overlay 1536x864, 4-turn trail, 7 actions, 2 boxes, {n} draws: median {median:.3} ms, min {min:.3} ms, max {max:.3} ms"
    )?;
    Ok(ExitCode::SUCCESS)
}

fn runlog(args: &BenchRunlogArgs) -> anyhow::Result<ExitCode> {
    let parent = args.dir.clone().unwrap_or_else(std::env::temp_dir);
    let root = parent.join(format!("franz-bench-runlog-{}", std::process::id()));
    let result = runlog_in(&root, args.turns.max(1));
    let _ = std::fs::remove_dir_all(&root);
    result
}

fn runlog_in(root: &std::path::Path, turns: usize) -> anyhow::Result<ExitCode> {
    let frame = synthetic_frame();
    let png = encode_image(&frame, ImageFormat::Png)?;
    let mut w = RunWriter::create(root, Layout::Flat)?;
    let (mut submit, mut finish, mut total) = (Vec::new(), Vec::new(), Vec::new());
    for turn in 1..=turns as u32 {
        let entry = TurnEntry {
            turn,
            story: "I clicked the button and the dialog opened.".into(),
            actions: vec![
                ActionKind::Click {
                    x: Some(500),
                    y: Some(500),
                }
                .into(),
            ],
            results: vec![ActionResult::ok()],
            ..Default::default()
        };
        let s = Instant::now();
        w.submit_images(
            turn,
            TurnImage::Png(png.clone()),
            Some(TurnImage::Png(png.clone())),
        )?;
        let f = Instant::now();
        submit.push(ms(s));
        w.event(&Event::now(turn, EventKind::TurnStarted {}))?;
        w.finish_turn(entry)?;
        finish.push(ms(f));
        total.push(ms(s));
    }
    w.close()?;
    outln!(
        "runlog: {turns} turns, two {} byte PNGs each, flat layout, in {}",
        png.len(),
        root.display()
    )?;
    for (name, v) in [
        ("submit", &mut submit),
        ("finish", &mut finish),
        ("turn", &mut total),
    ] {
        let (median, min, max) = stats(v);
        outln!("  {name:<6} median {median:>7.3} ms  min {min:>7.3}  max {max:>7.3}")?;
    }
    Ok(ExitCode::SUCCESS)
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

/// `franz bench act`: clicks on the witness window with the fast profile and prints the
/// median time from the click action starting to the press arriving at the window.
fn act(g: &GlobalArgs, args: &BenchActArgs) -> anyhow::Result<ExitCode> {
    use crate::flags::InputSettings;
    use crate::input_commands::{executor, fatal};
    use anyhow::Context;
    use franz_core::config::Choice;
    use franz_core::executor::MotionProfile;
    use franz_desktop::witness::{Witness, WitnessKind};
    use std::time::Duration;

    needs_x11("bench act (the witness window)")?;
    let fast = InputSettings::default().with("motion", MotionProfile::Fast.name());
    let what = "times clicks arriving at its witness window";
    let config = crate::input_commands::config_that_acts(g, &fast.given, "bench act", what)?;
    let mut session = setup::open_desktop(g)?;
    let display = session.display().ok_or_else(|| {
        Exit(
            exit::USAGE,
            "bench act needs an X display: set DISPLAY or pass --sandbox".into(),
        )
    })?;
    let mut ex = executor(&config, session.desktop.monitor().rect)?;
    let area = ex.area();
    let witness = Witness::open(&display, area.rect).context("cannot open the witness window")?;
    let mut latency = Vec::with_capacity(args.clicks);
    let mut call = Vec::with_capacity(args.clicks);
    for i in 0..args.clicks.max(1) + 1 {
        if setup::interrupted() {
            return Err(setup::interrupted_error());
        }
        // a spread of points, never the same twice in a row
        let (x, y) = (((i * 37) % 900 + 50) as i32, ((i * 53) % 900 + 50) as i32);
        let click: Action = franz_core::ActionKind::Click {
            x: Some(x),
            y: Some(y),
        }
        .into();
        witness.clear();
        let t0 = Instant::now();
        ex.execute(session.desktop.as_mut(), &[click])
            .map_err(fatal)?;
        let returned = t0.elapsed();
        let (ok, events) = witness.wait_for(
            |e| e.iter().any(|e| e.is(WitnessKind::ButtonPress)),
            Duration::from_secs(5),
        );
        anyhow::ensure!(ok, "the witness window never saw click {i}");
        let seen = events
            .iter()
            .find(|e| e.is(WitnessKind::ButtonPress))
            .map(|e| e.seen - t0);
        if i > 0 {
            // the first click warms up connections and caches
            latency.push(seen.unwrap_or_default().as_secs_f64() * 1000.0);
            call.push(returned.as_secs_f64() * 1000.0);
        }
    }
    let (lm, lmin, lmax) = stats(&mut latency);
    let (cm, _, _) = stats(&mut call);
    outln!(
        "act click -> witness ButtonPress over {} clicks (fast profile, {}): median {lm:.3} ms (min {lmin:.3}, max {lmax:.3}); execute() returns after median {cm:.3} ms",
        latency.len(),
        session.desktop.describe()
    )?;
    Ok(ExitCode::SUCCESS)
}
