//! `franz calibrate`: clicks a grid of targets on each monitor (or the one `--monitor`
//! names) through the same path as a model's actions and prints each target's error in
//! pixels and the maximum, per monitor (`click_grid.rs`). Exit 0 when every click lands
//! within 1 px; 1 otherwise, naming the worst target (a target whose click the safety policy
//! refused, e.g. one `--test-offset` moved outside the working area, is the worst).

use crate::cli::{CalibrateArgs, GlobalArgs};
use crate::click_grid::{self, MAX_ERROR_PX};
use crate::exit::{self, Exit};
use crate::setup;
use crate::terminal::outln;
use std::process::ExitCode;

pub fn run(g: &GlobalArgs, args: &CalibrateArgs) -> anyhow::Result<ExitCode> {
    let config = crate::input_commands::config_that_acts(
        g,
        &args.settings.given,
        "calibrate",
        "measures where real clicks land",
    )?;
    let offset = parse_offset(args.test_offset.as_deref())?;
    let mut session = setup::open_desktop(g)?;
    run_on(&mut session, g, &config, args.grid, offset)
}

fn parse_offset(s: Option<&str>) -> anyhow::Result<franz_desktop::PixelPoint> {
    let Some(s) = s else {
        return Ok(franz_desktop::PixelPoint::new(0, 0));
    };
    let bad = || {
        exit::usage(format!(
            "--test-offset {s:?}: give DX,DY in pixels, e.g. 3,0"
        ))
    };
    let (x, y) = s.split_once(',').ok_or_else(bad)?;
    Ok(franz_desktop::PixelPoint::new(
        x.trim().parse().map_err(|_| bad())?,
        y.trim().parse().map_err(|_| bad())?,
    ))
}

fn run_on(
    session: &mut setup::OpenDesktop,
    g: &GlobalArgs,
    config: &franz_core::config::Settings,
    n: u32,
    offset: franz_desktop::PixelPoint,
) -> anyhow::Result<ExitCode> {
    let display = session.display();
    if franz_desktop::HAS_X11 && display.is_none() {
        return Err(exit::usage(
            "no X display to calibrate: set DISPLAY or pass --sandbox",
        ));
    }
    let monitors = match g.monitor {
        Some(_) => vec![session.desktop.monitor().clone()],
        None => session.desktop.monitors().to_vec(),
    };
    let mut failures = Vec::new();
    for m in &monitors {
        let report = click_grid::measure(
            session.desktop.as_mut(),
            display.as_deref(),
            config,
            m,
            n,
            offset,
        )?;
        let r = m.rect;
        let dpi = report.dpi.map(|d| format!(", DPI {d}")).unwrap_or_default();
        outln!(
            "monitor {} ({}x{} at {},{}{dpi}), working area {}x{} at {},{}:",
            m.index,
            r.width,
            r.height,
            r.x,
            r.y,
            report.area.rect.width,
            report.area.rect.height,
            report.area.rect.x,
            report.area.rect.y
        )?;
        for t in &report.targets {
            outln!("  {}", click_grid::describe(t))?;
        }
        let worst = report.worst().map(click_grid::describe).unwrap_or_default();
        outln!("  max error {:.1} px ({worst})", report.max_error())?;
        if report.refused() > 0 {
            outln!(
                "  refused {} of {} targets: the safety policy did not send their clicks",
                report.refused(),
                report.targets.len()
            )?;
        }
        if !report.passed() {
            failures.push(format!("monitor {}: worst {worst}", m.index));
        }
    }
    if failures.is_empty() {
        outln!("calibration passed: every click landed within {MAX_ERROR_PX} px")?;
        return Ok(ExitCode::SUCCESS);
    }
    Err(Exit(
        exit::FAILED,
        format!(
            "calibration failed (a click was refused or landed more than {MAX_ERROR_PX} px from its target): {}",
            failures.join("; ")
        ),
    )
    .into())
}
