//! `franz bench ...`: measurements that print medians. Never used as test assertions.

use crate::cli::{BenchCommand, BenchObserveArgs, GlobalArgs};
use crate::setup;
use franz_core::observe::{Pipeline, StageTimings};
use std::process::ExitCode;

pub fn run(g: &GlobalArgs, cmd: &BenchCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        BenchCommand::Observe(args) => observe(g, args),
        BenchCommand::Act(args) => super::act::bench(g, args),
    }
}

/// Median, min and max of a sample (sorted in place).
pub(crate) fn stats(v: &mut [f64]) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    };
    (median, v[0], v[n - 1])
}

fn observe(g: &GlobalArgs, args: &BenchObserveArgs) -> anyhow::Result<ExitCode> {
    let mut session = setup::open_session(g)?;
    let mut pipeline = Pipeline::new(setup::observe_config(g));
    let turns = args.turns.max(1);
    pipeline.observe(session.desktop.as_mut(), |_| {})?; // warm-up: SHM segment, scratch buffers
    let mut runs: Vec<StageTimings> = Vec::with_capacity(turns);
    let mut payload = 0;
    let mut size = None;
    for _ in 0..turns {
        if setup::interrupted() {
            return Err(setup::interrupted_error());
        }
        let obs = pipeline.observe(session.desktop.as_mut(), |_| {})?;
        payload = obs.data_url.len();
        size = Some(obs.size);
        runs.push(obs.timings);
    }
    println!(
        "{} ({}), {} turns",
        session.desktop.describe(),
        size.map(|s| s.to_string()).unwrap_or_default(),
        turns
    );
    let names = StageTimings::default().stages().map(|(n, _)| n);
    let mut last = (0.0, 0.0, 0.0);
    for (i, name) in names.iter().enumerate() {
        let mut v: Vec<f64> = runs.iter().map(|t| t.stages()[i].1).collect();
        last = stats(&mut v);
        if *name != "total" {
            println!(
                "  {name:<8} median {:>7.3} ms  min {:>7.3}  max {:>7.3}",
                last.0, last.1, last.2
            );
        }
    }
    println!(
        "observe: median {:.2} ms, min {:.2} ms, max {:.2} ms, payload {payload} bytes",
        last.0, last.1, last.2
    );
    Ok(ExitCode::SUCCESS)
}
