//! `franz act ACTION...`: executes actions given on the command line, then exits. It is how a
//! user checks that clicks land where they should.
//!
//! Each result is printed as one JSON line on stdout as soon as its action is done (and
//! flushed), so a script or a test can follow along. Exit codes: 0 all ok, 1 some action
//! failed, 2 an argument is not an action, 4 the failsafe fired.
//!
//! `franz bench act` measures the time from a click action to the event arriving at the
//! witness window.

use crate::cli::{GlobalArgs, RunArgs};
use crate::commands::{Exit, exit};
use crate::setup;
#[cfg(target_os = "linux")]
use anyhow::Context;
use clap::Args;
use franz_core::config::Config;
use franz_core::executor::{ExecConfig, ExecError, Executor, MotionProfile};
use franz_core::{Action, ActionError, ActionResult, Crop, ErrorKind, WorkArea};
use std::io::Write;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ActArgs {
    /// Actions to perform, in order; each is canonical Action JSON,
    /// e.g. '{"type":"click","x":500,"y":300}'.
    #[arg(required = true, value_name = "ACTION")]
    pub actions: Vec<String>,
    /// How input moves: human (smooth paths, typing cadence) or fast (no cosmetic delays);
    /// default: the configuration's `motion` (human).
    #[arg(long, value_name = "fast|human")]
    pub motion: Option<MotionProfile>,
    /// Do not stop when the pointer is in the top-left screen corner.
    #[arg(long)]
    pub no_failsafe: bool,
}

#[derive(Debug, Args)]
pub struct BenchActArgs {
    /// How many clicks to time.
    #[arg(long, default_value_t = 100)]
    pub clicks: usize,
}

/// Reads one command-line argument: canonical Action JSON, or any reply dialect the parser
/// knows (`left_click(500,300)`, `{"name":"click","x1":..}`, a Qwen `<tool_call>`, ...), which
/// may hold several actions.
pub fn parse_action_arg(arg: &str) -> Result<Vec<Action>, ActionError> {
    let canonical = serde_json::from_str::<Action>(arg.trim());
    if let Ok(a) = canonical {
        return Ok(vec![a]);
    }
    let parsed = franz_core::parser::parse_text(arg, &franz_core::parser::ParseOptions::default());
    if !parsed.actions.is_empty() && parsed.errors.is_empty() {
        return Ok(parsed.actions);
    }
    let why = parsed
        .errors
        .first()
        .cloned()
        .unwrap_or_else(|| "no action recognised".into());
    Err(ActionError::new(
        ErrorKind::InvalidAction,
        format!(
            "{arg:?} is not an action ({why}): give canonical JSON, e.g. '{{\"type\":\"click\",\"x\":500,\"y\":300}}', or a model's reply such as 'left_click(500, 300)'"
        ),
    ))
}

/// The configuration a command that acts resolves, the same way `franz run` does (flags >
/// environment > config file > defaults), so `dry_run`, `crop`, `motion` and `failsafe` apply
/// to it as they do to a run. `motion` and `no_failsafe` are the command's own flags.
pub(crate) fn config(
    g: &GlobalArgs,
    motion: Option<MotionProfile>,
    no_failsafe: bool,
) -> anyhow::Result<Config> {
    let args = RunArgs {
        motion: motion.map(|m| match m {
            MotionProfile::Fast => "fast".to_string(),
            MotionProfile::Human => "human".to_string(),
        }),
        no_failsafe,
        ..RunArgs::default()
    };
    Ok(super::run::resolve(g, &args)?.0.config)
}

/// The executor of a configuration on the desktop's monitor. A command line is not a model
/// turn: every action given is performed (no per-turn cap).
pub(crate) fn executor(
    c: &Config,
    desktop_rect: franz_desktop::PixelRect,
) -> anyhow::Result<Executor> {
    let crop: Crop = c
        .crop
        .parse()
        .map_err(|e: franz_core::geometry::GeometryError| Exit(exit::USAGE, e.to_string()))?;
    let area: WorkArea = crop
        .work_area(desktop_rect)
        .map_err(|e| Exit(exit::USAGE, e.to_string()))?;
    let config = ExecConfig {
        max_actions_per_turn: usize::MAX,
        ..ExecConfig::from_config(c)
    };
    Ok(Executor::new(area, config, c.dry_run).with_cancel(setup::interrupt_flag()))
}

pub(crate) fn fatal(e: ExecError) -> anyhow::Error {
    match e {
        ExecError::Failsafe(t) => Exit(exit::SAFETY, t.to_string()).into(),
        other => anyhow::Error::new(other),
    }
}

pub fn run(g: &GlobalArgs, args: &ActArgs) -> anyhow::Result<ExitCode> {
    let mut actions: Vec<Action> = Vec::new();
    for a in &args.actions {
        actions.extend(parse_action_arg(a).map_err(|e| Exit(exit::USAGE, e.message))?);
    }
    let config = config(g, args.motion, args.no_failsafe)?;
    let mut session = setup::open_session(g)?;
    let mut ex = executor(&config, session.desktop.monitor().rect)?;
    let stdout = std::io::stdout();
    let results = ex
        .execute_with(session.desktop.as_mut(), &actions, |i, result| {
            let mut line = serde_json::json!({ "index": i, "action": &actions[i] });
            if let (Some(obj), Ok(serde_json::Value::Object(r))) =
                (line.as_object_mut(), serde_json::to_value(result))
            {
                obj.extend(r);
            }
            let mut out = stdout.lock();
            // A closed pipe is not an error of ours.
            let _ = writeln!(out, "{line}").and_then(|()| out.flush());
        })
        .map_err(fatal)?;
    if setup::interrupted() {
        return Err(setup::interrupted_error());
    }
    Ok(if results.iter().all(ActionResult::is_ok) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(exit::FAILED)
    })
}

/// `franz bench act`: clicks on the witness window with the fast profile and prints the
/// median time from the click action starting to the press arriving at the window.
#[cfg(target_os = "linux")]
pub fn bench(g: &GlobalArgs, args: &BenchActArgs) -> anyhow::Result<ExitCode> {
    use franz_desktop::witness::{Witness, WitnessKind};
    use std::time::{Duration, Instant};

    let config = config(g, Some(MotionProfile::Fast), false)?;
    let mut session = setup::open_session(g)?;
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
    let (lm, lmin, lmax) = super::bench::stats(&mut latency);
    let (cm, _, _) = super::bench::stats(&mut call);
    println!(
        "act click -> witness ButtonPress over {} clicks (fast profile, {}): median {lm:.3} ms (min {lmin:.3}, max {lmax:.3}); execute() returns after median {cm:.3} ms",
        latency.len(),
        session.desktop.describe()
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(not(target_os = "linux"))]
pub fn bench(_g: &GlobalArgs, _args: &BenchActArgs) -> anyhow::Result<ExitCode> {
    Err(Exit(
        exit::USAGE,
        "bench act needs X11 (the witness window)".into(),
    )
    .into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_canonical_json_and_names_bad_input() {
        let a = parse_action_arg(r#" {"type":"click","x":1,"y":2} "#).unwrap();
        assert_eq!(a[0].kind.name(), "click");
        assert_eq!(
            parse_action_arg("left_click(1, 2)\npress_key(\"enter\")")
                .unwrap()
                .len(),
            2
        );
        let e = parse_action_arg("left_klick(1,2)").unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidAction);
        assert!(e.message.contains("left_klick"));
        // validation is the executor's job: the result line names the problem
        assert!(parse_action_arg(r#"{"type":"key","keys":"ctrl+warp"}"#).is_ok());
    }
}
