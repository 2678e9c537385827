//! The baselines of the leaderboard (docs/bench.md): models that look at nothing, served by a
//! scripted model server per task run, so a user sees what chance gives on each task.
//! `baseline-nothing` says done at its first turn; `baseline-random` clicks a uniformly random
//! point of the screen every turn (seeded by the task run, so a rerun clicks the same points)
//! until the run's step limit. Both answer in the grammar and coordinate space of the strategy
//! and profile under test (crates/core/src/bench_task/render.rs); the task scores them.

use super::plan::Job;
use anyhow::Context;
use franz_core::action::ActionKind;
use franz_core::bench_task::renderer_for;
use franz_core::model::scripted_server::{RecordedRequest, Script, ScriptedServer, Step};
use rand::{Rng, SeedableRng};
use std::sync::Mutex;

pub const NOTHING: &str = "baseline-nothing";
pub const RANDOM: &str = "baseline-random";

pub fn is_baseline(model: &str) -> bool {
    model == NOTHING || model == RANDOM
}

/// The baseline's server for `job`, or `None` when the job's model is not a baseline.
pub fn start(job: &Job) -> anyhow::Result<Option<ScriptedServer>> {
    if !is_baseline(&job.model) {
        return Ok(None);
    }
    let profile = (!job.profile.is_empty()).then_some(job.profile.as_str());
    let renderer =
        renderer_for(&job.strategy, profile, job.task.screen).map_err(anyhow::Error::msg)?;
    let seed = job.seed.unwrap_or(0) ^ fnv(job.task.name()) ^ u64::from(job.repeat);
    let rng = Mutex::new(rand::rngs::StdRng::seed_from_u64(seed));
    let random = job.model == RANDOM;
    let script = Script::func(move |req: &RecordedRequest| {
        let kind = if !random || !req.path.ends_with("/chat/completions") {
            ActionKind::Done {
                text: "the baseline does nothing".into(),
            }
        } else {
            let mut rng = rng.lock().unwrap_or_else(|e| e.into_inner());
            ActionKind::Click {
                x: Some(rng.random_range(0..=1000)),
                y: Some(rng.random_range(0..=1000)),
            }
        };
        Step::from(renderer.render(&kind.into()))
    });
    ScriptedServer::start(script)
        .map(Some)
        .context("cannot start the baseline's model server")
}

/// FNV-1a of a name: a seed that differs per task and is the same on every machine.
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
