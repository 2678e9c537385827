//! `franz policy check ACTION...`: what the safety policy in force (config file, scenario,
//! `--policy FILE`) would do with each action, without running it. One JSON line per action:
//! `{"index":0,"action":{..},"verdict":"deny","rule":"deny_keys \"alt+f4\""}`. No display is
//! needed for key and text rules, nor for points (in 0..1000 of the working area, judged with
//! the configured crop on a nominal screen): the screen is opened only for what needs it, the
//! windows under the points with `allow_only_windows` and the pointer of an action at the
//! pointer, and the error says so; `--sandbox` judges on its screen.

use crate::cli::{GlobalArgs, PolicyCommand};
use crate::exit::{self, Exit};
use crate::input_commands::{config, print_line};
use crate::setup;
use franz_core::Action;
use std::process::ExitCode;

pub fn run(g: &GlobalArgs, cmd: &PolicyCommand) -> anyhow::Result<ExitCode> {
    let PolicyCommand::Check(args) = cmd;
    let mut actions: Vec<Action> = Vec::new();
    for a in &args.actions {
        let action = serde_json::from_str::<Action>(a.trim()).map_err(|e| {
            Exit(
                exit::USAGE,
                format!(
                    "{a:?} is not an action ({e}): give canonical JSON, e.g. '{{\"type\":\"key\",\"keys\":\"alt+f4\"}}'"
                ),
            )
        })?;
        actions.push(action);
    }
    let config = config(g, &[])?;
    let verdicts = match needs_the_screen(&config.policy, &actions) {
        // key and text rules, and points given in 0..1000 of the working area, are judged on
        // a nominal screen of 1000 x 1000 pixels (one pixel a unit): no display is needed
        None if g.sandbox.is_none() => {
            let mut desktop = franz_desktop::fake::FakeDesktop::new(1000, 1000);
            let rect = franz_desktop::PixelRect::new(0, 0, 1000, 1000);
            let mut ex = crate::input_commands::executor(&config, rect)?;
            ex.verdicts(&mut desktop, &actions)
        }
        why => {
            let mut session = setup::open_desktop(g).map_err(|e| match why {
                Some(why) => exit::usage(format!(
                    "franz policy check needs the screen {why} ({e:#}): set DISPLAY or pass --sandbox"
                )),
                None => e,
            })?;
            let mut ex = crate::input_commands::executor(&config, session.desktop.monitor().rect)?;
            ex.verdicts(session.desktop.as_mut(), &actions)
        }
    };
    for (i, (action, verdict)) in actions.iter().zip(verdicts).enumerate() {
        let mut line = serde_json::json!({ "index": i, "action": action });
        if let (Some(obj), Ok(serde_json::Value::Object(v))) =
            (line.as_object_mut(), serde_json::to_value(&verdict))
        {
            obj.extend(v);
        }
        print_line(&line);
    }
    Ok(ExitCode::SUCCESS)
}

/// Why judging `actions` needs the real screen: a pointer action where `allow_only_windows`
/// looks up the window under its point, or one at the pointer (which is read from the
/// screen); `None` when a nominal screen judges them the same.
fn needs_the_screen(policy: &franz_core::policy::Policy, actions: &[Action]) -> Option<String> {
    let pointer: Vec<&Action> = actions.iter().filter(|a| a.kind.is_pointer()).collect();
    if policy.needs_windows() && !pointer.is_empty() {
        return Some("to find the windows under the points (allow_only_windows)".into());
    }
    pointer
        .iter()
        .any(|a| a.kind.point().is_none() && a.element.is_none())
        .then(|| "to read where the pointer is (an action at the pointer)".into())
}
