//! `franz replay RUN_DIR [--execute [--rescale]] [--from N] [--to M]`: prints a run's turns
//! and what replaying them would do. `--execute` performs again, on the current desktop, the
//! actions the run executed (not the ones a person rejected, that were over the per-turn cap or
//! that failed), with the run's crop and motion, an action that named an element where the
//! run recorded it (`element_at`; an older run's element actions are skipped, saying so), on a screen of the run's size unless
//! `--rescale`; the configuration (flags > environment > config file > defaults) applies as
//! for every command, so a dry run executes nothing. One JSON line per action, as `franz act`
//! prints them, or saying why it was skipped.

use crate::cli::{GlobalArgs, ReplayArgs};
use crate::exit::{self, Exit};
use crate::setup;
use crate::terminal::{errln, outln};
use franz_core::action::{Action, ActionKind, ActionResult};
use franz_core::config::Settings;
use franz_core::executor::MotionProfile;
use franz_core::geometry::{ImageSize, WorkArea};
use franz_core::observe::ObservedArea;
use franz_core::runlog;
use std::process::ExitCode;

pub fn run(g: &GlobalArgs, args: &ReplayArgs) -> anyhow::Result<ExitCode> {
    if let (Some(from), Some(to)) = (args.from, args.to)
        && from > to
    {
        return Err(Exit(
            exit::USAGE,
            format!("--from {from} is after --to {to}: give a range with N <= M"),
        )
        .into());
    }
    let log = crate::report_file::read_run(&args.run_dir)?;
    let from = args.from.unwrap_or(1);
    let to = args.to.unwrap_or(u32::MAX);
    if args.execute {
        return execute(g, args, &log, from, to);
    }
    let dry_run = recorded(&log).dry_run;
    let mut shown = 0;
    let mut without_screenshot = 0;
    for t in log
        .turns
        .iter()
        .filter(|t| (from..=to).contains(&t.raw.turn))
    {
        shown += 1;
        without_screenshot += usize::from(t.shown_png().is_none());
        let r = &t.raw;
        outln!("turn {}: {}", r.turn, one_line(&r.story))?;
        if let Some(seen) = log.observed_area(r.turn).and_then(ObservedArea::line) {
            outln!("  {seen}")?;
        }
        if r.actions.is_empty() {
            outln!("  (no actions)")?;
        }
        for (i, a) in r.actions.iter().enumerate() {
            let json = serde_json::to_string(a).unwrap_or_default();
            let was = match r.results.get(i) {
                Some(res) if res.is_ok() => "ok".to_string(),
                Some(res) => serde_json::to_value(res)
                    .ok()
                    .and_then(|v| {
                        v.get("message")
                            .and_then(|m| m.as_str())
                            .map(str::to_string)
                    })
                    .map(|m| format!("failed: {m}"))
                    .unwrap_or_else(|| "failed".into()),
                None => "not performed".into(),
            };
            let then = match not_executed(t, i, dry_run) {
                None => format!("would {}", would(a)),
                Some(why) if a.element.is_some() => format!("--execute skips it: {why}"),
                Some(_) => "--execute skips it".into(),
            };
            outln!("  {}. {json} (was {was}) -> {then}", i + 1)?;
        }
    }
    if shown == 0 {
        outln!(
            "no turns in {from}..{} of {} recorded",
            fmt_to(to),
            log.turns.len()
        )?;
    }
    if without_screenshot > 0 {
        outln!(
            "note: {without_screenshot} of {shown} turns kept no screenshot (the run was logged \
             with log_images = none); their actions replay all the same"
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

fn fmt_to(to: u32) -> String {
    if to == u32::MAX {
        "end".into()
    } else {
        to.to_string()
    }
}

fn one_line(s: &str) -> String {
    let s: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if s.chars().count() > 160 {
        s.chars().take(159).chain(std::iter::once('…')).collect()
    } else {
        s
    }
}

/// The rectangle turn `turn`'s points map through on the monitor `now`: the one its
/// observation recorded (with `--rescale`, scaled from the run's screen to this one about the
/// monitor's corner), else `None` (an older run: the working area).
fn turn_area(
    log: &runlog::RunLog,
    rec: &Recorded,
    turn: u32,
    now: franz_desktop::PixelRect,
) -> Option<WorkArea> {
    let r = log.observed_area(turn)?.rect;
    let was = rec.screen.unwrap_or(ImageSize::new(now.width, now.height));
    let scale = |v: i64, to: u32, from: u32| v * i64::from(to) / i64::from(from.max(1));
    let x = scale(i64::from(r.x - now.x), now.width, was.width);
    let y = scale(i64::from(r.y - now.y), now.height, was.height);
    let w = scale(i64::from(r.width), now.width, was.width).max(1);
    let h = scale(i64::from(r.height), now.height, was.height).max(1);
    Some(WorkArea {
        rect: franz_desktop::PixelRect::new(now.x + x as i32, now.y + y as i32, w as u32, h as u32),
    })
}

/// What performing the action again would do, in words.
fn would(a: &Action) -> String {
    let k = &a.kind;
    let at = match (a.element, a.element_at) {
        (Some(n), Some([x, y])) => format!(" at ({x}, {y}), where element {n} was"),
        _ => k
            .point()
            .map(|(x, y)| format!(" at ({x}, {y})"))
            .unwrap_or_else(|| " at the pointer".into()),
    };
    if let (ActionKind::Type { text }, Some(_)) = (k, a.element_at) {
        return format!("click{at} and type {text:?}");
    }
    match k {
        ActionKind::Drag { x2, y2, .. } => format!("drag{at} to ({x2}, {y2})"),
        ActionKind::Type { text } => format!("type {text:?}"),
        ActionKind::Key { keys } => format!("press {keys}"),
        ActionKind::Wait { seconds } => format!("wait {seconds} s"),
        ActionKind::Scroll {
            direction, amount, ..
        } => format!("scroll {direction:?} {amount} notches{at}").to_lowercase(),
        k if k.is_terminal() => format!("end the run ({})", k.name()),
        ActionKind::Observe | ActionKind::ReportProgress { .. } => {
            format!("nothing on screen ({})", k.name())
        }
        k => format!("{}{at}", k.name().replace('_', " ")),
    }
}

/// What replaying takes from the run itself: its crop and motion (`config.toml`), whether it
/// was a dry run, and the size of its screen (`run.json`).
struct Recorded {
    crop: Option<String>,
    motion: Option<MotionProfile>,
    dry_run: bool,
    screen: Option<ImageSize>,
}

fn recorded(log: &runlog::RunLog) -> Recorded {
    let table = match log.config.as_deref().map(str::parse::<toml::Table>) {
        Some(Ok(t)) => t,
        Some(Err(e)) => {
            errln!(
                "franz: warning: {}/{} cannot be read ({e}): replaying with the current crop and motion",
                log.dir.display(),
                runlog::CONFIG_FILE
            );
            toml::Table::new()
        }
        None => toml::Table::new(),
    };
    let text = |k: &str| table.get(k).and_then(|v| v.as_str()).map(str::to_string);
    Recorded {
        crop: text("crop"),
        motion: text("motion").and_then(|m| m.parse().ok()),
        dry_run: table
            .get("dry_run")
            .and_then(toml::Value::as_bool)
            .unwrap_or(false),
        screen: log.meta.as_ref().and_then(|m| m.screen),
    }
}

/// The configuration to replay with: the current one (flags > environment > config file >
/// defaults: dry_run, failsafe, ...) with the run's crop (unless `--crop` is given) and motion.
fn replay_config(g: &GlobalArgs, rec: &Recorded) -> anyhow::Result<Settings> {
    let mut s = crate::input_commands::config(g, &[])?;
    if let (None, Some(crop)) = (g.settings.get("crop"), &rec.crop) {
        s.crop = crop
            .parse()
            .map_err(|e: franz_core::geometry::GeometryError| crate::exit::usage(e.to_string()))?;
        s.effective.config.crop = crop.clone();
    }
    if let Some(m) = rec.motion {
        s.effective.config.motion = m;
    }
    Ok(s)
}

/// Refuses a screen of another size than the run's, unless `--rescale`.
fn check_screen(
    log: &runlog::RunLog,
    rec: &Recorded,
    now: ImageSize,
    rescale: bool,
) -> anyhow::Result<()> {
    match rec.screen {
        None => errln!(
            "franz: warning: {} does not record its screen size (it is older than run.json): replaying without the size check",
            log.dir.display()
        ),
        Some(was) if was != now && !rescale => {
            return Err(Exit(
                exit::USAGE,
                format!(
                    "the run was recorded on a {was} screen and this one is {now}, so its actions would land elsewhere: replay on a {was} screen (e.g. --sandbox={was}), or pass --rescale to replay its normalized coordinates on this {now} screen"
                ),
            )
            .into());
        }
        Some(was) if was != now => {
            errln!("franz: note: --rescale: replaying the run's {was} screen on this {now} one")
        }
        Some(_) => {}
    }
    Ok(())
}

/// Why action `i` of a turn is not replayed: only what the run executed is, and an action
/// that named an element only where the run recorded the element's point.
fn not_executed(t: &runlog::TurnView, i: usize, dry_run: bool) -> Option<String> {
    if dry_run {
        return Some("the run was a dry run: nothing was executed".into());
    }
    if let Some(a) = t.raw.actions.get(i)
        && let (Some(n), None) = (a.element, a.element_at)
    {
        return Some(format!(
            "this action named element {n}; the run did not record where (it is older than element points in the run log)"
        ));
    }
    match t.raw.results.get(i) {
        Some(r) if r.is_ok() => None,
        Some(ActionResult::Error(e)) => Some(format!("not executed in the run: {e}")),
        _ => Some("no result was recorded: the run did not perform it".into()),
    }
}

/// One mark per element the actions named, a point at the place the run recorded for it.
fn recorded_marks(actions: &[Action]) -> Vec<franz_core::grounding::Mark> {
    actions
        .iter()
        .filter_map(|a| Some((a.element?, a.element_at?)))
        .map(|(id, [x, y])| franz_core::grounding::Mark {
            id,
            role: String::new(),
            name: format!("element {id} as recorded"),
            states: Vec::new(),
            bounds: franz_desktop::PixelRect::new(0, 0, 0, 0),
            norm: [x, y, x, y],
        })
        .collect()
}

/// Performs again the actions of turns `from..=to` that the run executed, in order, with the
/// run's crop and motion, on a screen of the run's size (or any size with `--rescale`). Each
/// action gives one JSON line: its result, or why it was skipped.
fn execute(
    g: &GlobalArgs,
    args: &ReplayArgs,
    log: &runlog::RunLog,
    from: u32,
    to: u32,
) -> anyhow::Result<ExitCode> {
    let rec = recorded(log);
    let config = replay_config(g, &rec)?;
    let mut session = setup::open_desktop(g)?;
    let screen = session.desktop.monitor().rect;
    check_screen(
        log,
        &rec,
        ImageSize::new(screen.width, screen.height),
        args.rescale,
    )?;
    let mut ex = crate::input_commands::executor(&config, screen)?;
    let crop_area = ex.area();
    let mut all_ok = true;
    for t in log
        .turns
        .iter()
        .filter(|t| (from..=to).contains(&t.raw.turn))
    {
        let turn = t.raw.turn;
        let mut runnable = Vec::new();
        for (i, action) in t.raw.actions.iter().enumerate() {
            match not_executed(t, i, rec.dry_run) {
                None => runnable.push(i),
                Some(why) => crate::input_commands::print_line(
                    &serde_json::json!({ "turn": turn, "index": i, "action": action, "skipped": why }),
                ),
            }
        }
        let actions: Vec<_> = runnable.iter().map(|&i| t.raw.actions[i].clone()).collect();
        // the elements act where they were when the run performed them
        ex.set_marks(recorded_marks(&actions));
        // the points map through the turn's own observed area (docs/coordinates.md)
        ex.set_area(turn_area(log, &rec, turn, screen).unwrap_or(crop_area));
        let results = ex
            .execute_with(session.desktop.as_mut(), &actions, |j, result| {
                crate::input_commands::print_line(&serde_json::json!({ "turn": turn, "index": runnable[j], "action": &actions[j], "result": result }));
            })
            .map_err(crate::input_commands::fatal)?;
        all_ok &= results.iter().all(|r| r.is_ok());
        if setup::interrupted() {
            return Err(setup::interrupted_error());
        }
    }
    Ok(if all_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(exit::FAILED)
    })
}
