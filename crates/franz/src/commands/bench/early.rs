//! `franz bench turn --stream`: early execution's gain. The scripted HTTP server
//! streams a narrative reply at `--tokens-per-s` (its action line first, then a story of about
//! 80 words); franz runs a few turns with early execution and a few without, on a real X
//! display whose screen is the witness window, and prints the median time from each turn's
//! request (its `model_request` event) to the first input event the witness saw.

use super::turn::{acts, median_p95};
use crate::cli::{BenchTurnArgs, GlobalArgs};
use crate::exit::{self, Exit};
use crate::flags::InputSettings;
use crate::setup;
use crate::terminal::outln;
use franz_core::agent::Agent;
use franz_core::config::Choice;
use franz_core::event::EventKind;
use franz_core::executor::MotionProfile;
use franz_core::model::{
    ClientConfig, ModelClient, Script, ScriptedReply, ScriptedServer, ServerOptions,
};
use franz_desktop::witness::Witness;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Turns each way.
const TURNS: usize = 5;

/// The reply of every turn: the action line, then a story of about 80 words.
const REPLY: &str = "click(300, 400)\nI click the empty desktop to see what happens there. \
    The screen shows nothing but the desktop, so there is no window to look for first and no \
    field to type into. After the click I expect the screen to stay as it is, since the desktop \
    does not change when it is clicked. Next turn I will look at the screen again and compare \
    it with this one, then decide whether to click somewhere else or to say the task is done.";

pub fn bench(g: &GlobalArgs, args: &BenchTurnArgs) -> anyhow::Result<ExitCode> {
    let rate = args.tokens_per_s;
    if !(rate.is_finite() && rate > 0.0) {
        let msg = format!("--tokens-per-s {rate}: give a rate above 0, e.g. 30");
        return Err(Exit(exit::USAGE, msg).into());
    }
    let server = ScriptedServer::start_with(
        Script::repeat(ScriptedReply::text(REPLY)),
        ServerOptions {
            tokens_per_second: Some(rate),
            ..ServerOptions::default()
        },
    )?;
    outln!(
        "early execution: narrative, {TURNS} turns each way, scripted server streaming {rate} tokens/s, fast motion"
    )?;
    let mut medians = Vec::new();
    for early in [true, false] {
        let mut firsts = first_inputs(g, &server, early)?;
        let (median, p95) = median_p95(&mut firsts);
        let what = if early { "with" } else { "without" };
        outln!(
            "  {what:<8} early execution: request to first input median {median:7.1} ms, p95 {p95:7.1} ms ({} turns)",
            firsts.len()
        )?;
        medians.push(median);
    }
    outln!(
        "early execution: first input after {:.0} ms, without {:.0} ms",
        medians[0],
        medians[1]
    )?;
    Ok(ExitCode::SUCCESS)
}

/// Runs [`TURNS`] turns; for each, the milliseconds from its request to the first input event
/// the witness saw after it.
fn first_inputs(g: &GlobalArgs, server: &ScriptedServer, early: bool) -> anyhow::Result<Vec<f64>> {
    let fast = InputSettings::default().with("motion", MotionProfile::Fast.name());
    let what = "times early input arriving at its witness window";
    let c = crate::input_commands::config_that_acts(g, &fast.given, "bench turn --stream", what)?;
    let session = setup::open_desktop(g)?;
    let Some(display) = session.display() else {
        let msg = "this benchmark needs an X display: set DISPLAY or pass --sandbox";
        return Err(Exit(exit::USAGE, msg.into()).into());
    };
    let rect = session.desktop.monitor().rect;
    let witness = Witness::open(&display, rect)?;
    let client = ModelClient::new(ClientConfig::new(server.url()))?;
    let (desktop, _keep) = session.into_parts();
    let agent = Agent::builder(&c, "benchmark: click the empty desktop")
        .desktop(desktop)
        .model(Arc::new(client))
        .overlay(None);
    let (_handle, mut stream) = acts(agent, TURNS)
        .options(|o| (o.model, o.stream, o.early_exec) = ("scripted-model".into(), true, early))
        .spawn()?;
    let mut requests = Vec::new();
    for e in stream.by_ref() {
        if let EventKind::ModelRequest { attempt: 1, .. } = e.kind {
            requests.push(e.t_ms as f64);
        }
    }
    stream.finish()?;
    Ok(latencies(&requests, &witness))
}

/// For each request (Unix ms), the time to the first witness event after it (and before the
/// next request).
fn latencies(requests: &[f64], witness: &Witness) -> Vec<f64> {
    // the witness's clock is the monotonic one: map it onto Unix milliseconds
    let (now, unix) = (Instant::now(), SystemTime::now().duration_since(UNIX_EPOCH));
    let unix = unix.unwrap_or(Duration::ZERO).as_secs_f64() * 1000.0;
    let seen: Vec<f64> = witness
        .events()
        .iter()
        .map(|e| unix - now.duration_since(e.seen).as_secs_f64() * 1000.0)
        .collect();
    let mut out = Vec::new();
    for (i, r) in requests.iter().enumerate() {
        let next = requests.get(i + 1).copied().unwrap_or(f64::INFINITY);
        if let Some(t) = seen.iter().find(|t| **t >= *r && **t < next) {
            out.push(t - r);
        }
    }
    out
}
