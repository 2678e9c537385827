//! `franz bench stop`: how long a session takes to end after `Op::Stop`, in each of the places
//! a run can be busy: a hung model call, a 60 s `wait`, a long human-paced `type` and a stepped
//! drag. The in-memory model and the fake desktop stand in for the server and the screen, so
//! what is measured is the engine's own latency. Prints the median, min and max per case.

use crate::cli::BenchStopArgs;
use crate::terminal::outln;
use franz_core::agent::Agent;
use franz_core::config::Settings;
use franz_core::engine::{Op, RunOptions};
use franz_core::event::EventKind;
use franz_core::model::{Canned, CannedModel};
use franz_core::strategy::StrategyName;
use franz_desktop::fake::FakeDesktop;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The cases: a name and the model's answer to the first request.
const CASES: [(&str, &str); 4] = [
    ("hung model call", ""),
    ("60 s wait", "wait(60)\nwaiting"),
    ("long human-paced type", ""),
    ("stepped drag", "drag(100, 100, 900, 900)\ndragging"),
];

pub fn bench(args: &BenchStopArgs) -> anyhow::Result<ExitCode> {
    let runs = args.runs.max(1);
    let long_text = format!("type(\"{}\")\ntyping", "word ".repeat(400));
    outln!("stop latency: from Op::Stop to run_finished, {runs} runs per case")?;
    for (name, reply) in CASES {
        let answer = match name {
            "hung model call" => Canned::Hang,
            "long human-paced type" => Canned::text(long_text.clone()),
            _ => Canned::text(reply),
        };
        let mut ms = Vec::with_capacity(runs);
        for _ in 0..runs {
            ms.push(once(answer.clone())?.as_secs_f64() * 1000.0);
        }
        let (median, min, max) = crate::stats::stats(&mut ms);
        outln!("  {name:<22} median {median:7.2} ms   min {min:7.2} ms   max {max:7.2} ms")?;
    }
    Ok(ExitCode::SUCCESS)
}

/// One session that gets `answer`, stopped 100 ms after it got busy with it.
fn once(answer: Canned) -> anyhow::Result<Duration> {
    let hangs = answer == Canned::Hang;
    let model = Arc::new(CannedModel::new([answer]));
    // human typing, and a drag of 3000 steps of 10 ms: each is busy far longer than measured
    let (handle, mut events) = Agent::builder(&Settings::defaults(), "benchmark")
        .desktop(Box::new(FakeDesktop::new(1000, 1000)))
        .model(model.clone())
        .strategy(StrategyName::Narrative)
        .observing(|o| o.cursor = false)
        .overlay(None)
        .executor(|e| {
            (e.motion.drag_steps, e.motion.drag_step_delay_ms) = (3000, 10);
            e.failsafe = false;
        })
        .options(options)
        .spawn()?;
    // busy: the model call has begun, or the reply was read and its action begun
    if hangs {
        model.wait_requests(1, Duration::from_secs(10));
    } else {
        for e in events.by_ref() {
            if let EventKind::ModelReply { .. } = e.kind {
                break;
            }
        }
    }
    std::thread::sleep(Duration::from_millis(100));
    let start = Instant::now();
    handle.submit(Op::Stop("stopped by the benchmark".into()))?;
    for e in events.by_ref() {
        if let EventKind::RunFinished { .. } = e.kind {
            break;
        }
    }
    let took = start.elapsed();
    let summary = events.finish()?;
    if summary.outcome != franz_core::event::Outcome::Interrupted {
        anyhow::bail!(
            "the run ended before the stop ({}): nothing was measured",
            summary.reason
        );
    }
    Ok(took)
}

/// One turn of the memory model, no pause, nothing drawn.
fn options(o: &mut RunOptions) {
    (o.model, o.temperature, o.top_p, o.max_tokens) = ("memory".into(), 0.0, 1.0, 100);
    (o.stream, o.early_exec, o.feedback) = (false, false, false);
    (o.max_steps, o.max_time) = (1, None);
    (o.step_delay, o.max_empty_turns) = (Duration::ZERO, 1);
    o.context = Default::default();
    o.loop_breaker = Default::default();
}
