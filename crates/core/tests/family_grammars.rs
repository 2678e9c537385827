//! Every strategy in every family grammar (strategy/grammar), in-process on a fake desktop with
//! the scripted model server: the request the server receives carries the family's prompt
//! section or tool schema (not franz's own), and a reply written in that grammar is executed:
//! the fake desktop records the click on its target pixel.

use franz_core::agent::Agent;
use franz_core::config::Settings;
use franz_core::engine::RunSummary;
use franz_core::event::Outcome;
use franz_core::executor::ExecConfig;
use franz_core::model::{ClientConfig, ModelClient, Script, ScriptedReply, ScriptedServer};
use franz_core::observe::ObserveConfig;
use franz_core::parser::Dialect;
use franz_core::strategy::ReadOptions;
use franz_desktop::fake::{FakeDesktop, Sent};
use franz_desktop::{Button, Press};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

const W: u32 = 640;
const H: u32 = 480;
/// The target: (320, 144) on the 640x480 screen, which is also the image sent; 0..1000:
/// (500, 300).
const TARGET: (i32, i32) = (320, 144);

/// One family's grammar: how the test answers in it and what its requests must carry.
struct Family {
    dialect: Dialect,
    /// Pixels of the image (else 0..1000).
    pixels: bool,
    /// The function a tool-calling strategy is sent and called back with, and its arguments.
    call: Option<(&'static str, Value)>,
    /// The reply written in the text.
    text: &'static str,
    /// What the system prompt of a text strategy holds.
    prompt_marks: &'static [&'static str],
}

fn families() -> Vec<Family> {
    vec![
        Family {
            dialect: Dialect::Qwen,
            pixels: false,
            call: Some((
                "computer_use",
                json!({"action": "left_click", "coordinate": [500, 300]}),
            )),
            text: "I click the button.\n<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"left_click\", \"coordinate\": [500, 300]}}\n</tool_call>",
            prompt_marks: &[
                "<tools>",
                "\"computer_use\"",
                "left_click_drag",
                "hscroll",
                "<tool_call>",
                "resolution is 1000x1000",
            ],
        },
        Family {
            dialect: Dialect::Uitars,
            pixels: true,
            call: None,
            text: "Thought: I click the button.\nAction: click(start_box='(320,144)')",
            prompt_marks: &[
                "## Action Space",
                "left_double(start_box=",
                "right_single(",
                "finished(content=",
                "call_user()",
                "Thought: ...",
            ],
        },
        Family {
            dialect: Dialect::Anthropic,
            pixels: true,
            call: Some((
                "computer",
                json!({"action": "left_click", "coordinate": [320, 144]}),
            )),
            text: "I click the button.\n<tool_call>\n{\"name\": \"computer\", \"arguments\": {\"action\": \"left_click\", \"coordinate\": [320, 144]}}\n</tool_call>",
            prompt_marks: &[
                "\"computer\"",
                "start_coordinate",
                "scroll_direction",
                "left_mouse_down",
            ],
        },
        Family {
            dialect: Dialect::Openai,
            pixels: true,
            call: Some((
                "computer_use_preview",
                json!({"type": "click", "button": "left", "x": 320, "y": 144}),
            )),
            text: "I click the button.\n{\"type\": \"click\", \"button\": \"left\", \"x\": 320, \"y\": 144}",
            prompt_marks: &["\"type\": \"double_click\"", "\"keypress\"", "\"scroll_y\""],
        },
    ]
}

/// The server's answer: the leader (commander) briefs the operator; every other request gets
/// the family's reply, as a tool call when `as_call` and the family has one.
fn script(reply: ScriptedReply) -> Script {
    Script::func(move |r| {
        if r.body.contains("spawn_operator") {
            ScriptedReply::text("")
                .tool_call(
                    "spawn_operator",
                    json!({"operator_instructions": "OBJ-1: click the button"}),
                )
                .into()
        } else {
            reply.clone().into()
        }
    })
}

/// Runs one turn of `strategy` in `f`'s grammar; returns the acting request's JSON and the
/// inputs the desktop got.
fn one_turn(strategy: &str, f: &Family, as_call: bool) -> (Value, Vec<Sent>) {
    let reply = match (&f.call, as_call) {
        (Some((name, args)), true) => {
            ScriptedReply::text("I click the button.").tool_call(*name, args.clone())
        }
        _ => ScriptedReply::text(f.text),
    };
    let (acting, sent, summary) = run_turn(strategy, f, reply);
    assert_eq!(summary.turns, 1, "{strategy} {}: {summary:?}", f.dialect);
    (acting, sent)
}

/// Runs one turn of `strategy` in `f`'s grammar with the model answering `reply`; returns the
/// acting request's JSON, the inputs the desktop got and the run's summary.
fn run_turn(strategy: &str, f: &Family, reply: ScriptedReply) -> (Value, Vec<Sent>, RunSummary) {
    run_task(strategy, f, reply, "click the button")
}

/// [`run_turn`] on `task`.
fn run_task(
    strategy: &str,
    f: &Family,
    reply: ScriptedReply,
    task: &str,
) -> (Value, Vec<Sent>, RunSummary) {
    let server = ScriptedServer::start(script(reply)).unwrap();
    let desktop = FakeDesktop::new(W, H);
    let log = desktop.log();
    let mut client = ClientConfig::new(server.url());
    client.api_key = None;
    let read = ReadOptions {
        dialect: Some(f.dialect),
        pixel_coords: f.pixels,
        ..ReadOptions::default()
    };
    let model = Arc::new(ModelClient::new(client).unwrap());
    let (_handle, events) = Agent::builder(&Settings::defaults(), task)
        .desktop(Box::new(desktop))
        .model(model)
        .strategy(strategy.parse().unwrap())
        .observing(|o| {
            *o = ObserveConfig {
                cursor: false,
                ..ObserveConfig::default()
            }
        })
        .overlay(None)
        .executor(|e| *e = ExecConfig::with_profile(franz_core::executor::MotionProfile::Fast))
        .reading(|r| *r = read)
        .options(|o| {
            (o.model, o.temperature, o.top_p, o.max_tokens) = ("scripted".into(), 0.0, 1.0, 100);
            (o.stream, o.early_exec, o.feedback) = (false, false, false);
            (o.max_steps, o.max_time, o.max_empty_turns) = (1, None, 1);
            o.step_delay = Duration::ZERO;
        })
        .spawn()
        .unwrap();
    let summary = events.finish().unwrap();
    let acting = server
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .filter_map(|r| r.json)
        .rfind(|j| !j.to_string().contains("spawn_operator"))
        .expect("the acting request");
    (acting, log.sent(), summary)
}

/// The click landed on the target: the last pointer move before a left press.
fn clicked_at_target(sent: &[Sent]) -> bool {
    let press = sent
        .iter()
        .position(|s| matches!(s, Sent::Button(Button::Left, Press::Down | Press::Click)));
    let Some(press) = press else { return false };
    let last_move = sent[..press].iter().rev().find_map(|s| match s {
        Sent::Move(p) => Some((p.x, p.y)),
        _ => None,
    });
    last_move.is_some_and(|(x, y)| (x - TARGET.0).abs() <= 1 && (y - TARGET.1).abs() <= 1)
}

fn system_text(req: &Value) -> String {
    req["messages"][0]["content"].to_string()
}

fn tool_names(req: &Value) -> Vec<String> {
    req["tools"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|t| t["function"]["name"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// The coordinate sentence of the family's space.
fn coords_mark(f: &Family) -> &'static str {
    if f.pixels {
        "640x480 pixels"
    } else {
        "from 0 to 1000"
    }
}

/// Narrative and vision: the action section of the system prompt is the family's; the reply in
/// its grammar clicks the target.
fn text_strategy(strategy: &str) {
    for f in families() {
        let (req, sent) = one_turn(strategy, &f, false);
        let system = system_text(&req);
        for mark in f.prompt_marks.iter().chain([&coords_mark(&f)]) {
            let mark = serde_json::to_string(mark).unwrap();
            let mark = mark.trim_matches('"');
            assert!(
                system.contains(mark),
                "{strategy} {}: {mark} not in {system}",
                f.dialect
            );
        }
        assert!(
            !system.contains("double_left_click(x, y)") && !system.contains("\\\"x1\\\": 0"),
            "{strategy} {}: franz's own grammar in {system}",
            f.dialect
        );
        assert!(req.get("tools").is_none(), "{req}");
        assert!(
            clicked_at_target(&sent),
            "{strategy} {}: {sent:?}",
            f.dialect
        );
    }
}

#[test]
fn narrative_speaks_each_family_grammar() {
    text_strategy("narrative");
}

#[test]
fn vision_speaks_each_family_grammar() {
    text_strategy("vision");
}

/// Tools and the commander's operator: the family's function is sent instead of franz's tools
/// (UI-TARS: none, its grammar is in the prompt), and a call of it clicks the target.
fn tool_strategy(strategy: &str, keeps: &[&str]) {
    for f in families() {
        let (req, sent) = one_turn(strategy, &f, true);
        let names = tool_names(&req);
        assert!(
            !names.iter().any(|n| n == "click_element"),
            "{strategy} {}: {names:?}",
            f.dialect
        );
        for k in keeps {
            assert!(
                names.iter().any(|n| n == k),
                "{strategy} {}: {k} not in {names:?}",
                f.dialect
            );
        }
        let system = system_text(&req);
        match &f.call {
            Some((name, _)) => assert!(
                names.iter().any(|n| n == name),
                "{strategy} {}: {names:?}",
                f.dialect
            ),
            None => {
                for mark in f.prompt_marks {
                    assert!(
                        system.contains(mark),
                        "{strategy} {}: {mark} not in {system}",
                        f.dialect
                    );
                }
            }
        }
        assert!(
            system.contains(coords_mark(&f)),
            "{strategy} {}: {system}",
            f.dialect
        );
        assert!(
            clicked_at_target(&sent),
            "{strategy} {}: {sent:?}",
            f.dialect
        );
    }
}

#[test]
fn tools_sends_each_family_schema() {
    tool_strategy("tools", &[]);
}

#[test]
fn the_commanders_operator_sends_each_family_schema() {
    tool_strategy("commander", &["report_progress", "report_completion"]);
}

/// The tool grammars written as text (a server that leaves the call in the content) are read
/// by the tools strategy in the family's dialect too, as its prompt says.
#[test]
fn tools_reads_a_family_call_written_in_the_text() {
    for f in families() {
        let (req, sent) = one_turn("tools", &f, false);
        // the prompt says how to write the call when the server takes no function calls
        let system = system_text(&req);
        let mark = match f.call {
            Some(_) => "If you cannot call functions",
            None => "## Output Format",
        };
        assert!(system.contains(mark), "{}: {system}", f.dialect);
        assert!(clicked_at_target(&sent), "{}: {sent:?}", f.dialect);
    }
}

/// Anthropic's and OpenAI's grammars have no action to finish: as in their own loops, a plain
/// answer without an action ends a narrative or vision run as done, and their prompts say so.
/// (The task asks a question, so the answer needs no action before it: docs/actions.md, "How
/// a run finishes".)
#[test]
fn a_plain_answer_finishes_in_the_grammars_without_a_finish_action() {
    for f in families()
        .into_iter()
        .filter(|f| matches!(f.dialect, Dialect::Anthropic | Dialect::Openai))
    {
        for strategy in ["narrative", "vision"] {
            let reply = ScriptedReply::text("The dialog says: the task is complete.");
            let task = "What does the dialog say?";
            let (req, sent, summary) = run_task(strategy, &f, reply, task);
            assert_eq!(
                summary.outcome,
                Outcome::Done,
                "{strategy} {}: {summary:?}",
                f.dialect
            );
            assert!(
                summary.reason.contains("the task is complete"),
                "{summary:?}"
            );
            assert!(sent.is_empty(), "{sent:?}");
            let system = system_text(&req);
            assert!(
                system.contains("answer in plain text without an action"),
                "{system}"
            );
        }
    }
}
