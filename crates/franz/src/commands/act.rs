//! `franz act ACTION...`: executes actions given on the command line, then exits. It is how a
//! user checks that clicks land where they should.
//!
//! Each result is printed as one JSON line on stdout as soon as its action is done (and
//! flushed), so a script or a test can follow along. Exit codes: 0 all ok, 1 some action
//! failed, 2 an argument is not an action, 4 the failsafe fired.

use crate::cli::{ActArgs, GlobalArgs};
use crate::exit::{self, Exit};
use crate::input_commands::{executor, fatal, print_line};
use crate::setup;
use franz_core::parser::ParseOptions;
use franz_core::{Action, ActionError, ActionResult, ErrorKind};
use std::process::ExitCode;

/// Reads one command-line argument: canonical Action JSON, or any reply dialect the parser
/// knows (`left_click(500,300)`, `{"name":"click","x1":..}`, a Qwen `<tool_call>`, ...), which
/// may hold several actions.
#[cfg(test)]
pub fn parse_action_arg(arg: &str) -> Result<Vec<Action>, ActionError> {
    parse_action_arg_with(arg, &ParseOptions::default())
}

/// [`parse_action_arg`] with a profile's parse options (its dialect and coordinates).
fn parse_action_arg_with(arg: &str, options: &ParseOptions) -> Result<Vec<Action>, ActionError> {
    let canonical = serde_json::from_str::<Action>(arg.trim());
    if let Ok(a) = canonical {
        return Ok(vec![a]);
    }
    let parsed = franz_core::parser::parse_text(arg, options);
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

/// Reads every argument with `options`.
fn parse_args(args: &ActArgs, options: &ParseOptions) -> anyhow::Result<Vec<Action>> {
    let mut actions: Vec<Action> = Vec::new();
    for a in &args.actions {
        actions
            .extend(parse_action_arg_with(a, options).map_err(|e| Exit(exit::USAGE, e.message))?);
    }
    Ok(actions)
}

pub fn run(g: &GlobalArgs, args: &ActArgs) -> anyhow::Result<ExitCode> {
    let (effective, _) = crate::settings::resolve(g, &args.settings.given, None)?;
    let (settings, chosen) = crate::profiles::choose(effective, Vec::new())?;
    let franz = chosen.applied == franz_core::profile::Applied::FRANZ;
    // franz's own rule needs no screen: bad arguments are usage errors before any display
    let early = if franz {
        Some(parse_args(args, &ParseOptions::default())?)
    } else {
        None
    };
    let mut session = setup::open_desktop(g)?;
    let mut ex = executor(&settings, session.desktop.monitor().rect)?;
    let actions = match early {
        Some(a) => a,
        None => {
            // a family's replies are read as the model would have sent them for this screen
            let area = ex.area().rect;
            let image = settings.size.resolve(area.width, area.height);
            let options = ParseOptions {
                dialect: settings.config().dialect,
                coords: chosen.applied.coord_mode(image),
            };
            parse_args(args, &options)?
        }
    };
    let results = ex
        .execute_with(session.desktop.as_mut(), &actions, |i, result| {
            let mut line = serde_json::json!({ "index": i, "action": &actions[i] });
            if let (Some(obj), Ok(serde_json::Value::Object(r))) =
                (line.as_object_mut(), serde_json::to_value(result))
            {
                obj.extend(r);
            }
            print_line(&line);
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
