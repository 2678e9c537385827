//! Every request franz sends, rendered through real chat templates with a real Jinja engine
//! (minijinja, with Python's string methods from minijinja-contrib's pycompat), the way servers
//! render them before the model sees a token.
//!
//! The requests come from the real strategies run by the engine on the fake desktop with the
//! in-memory model: every strategy (the commander's leader and operator included) under every
//! built-in profile, over several turns with tool calls and their results, several calls in one
//! reply, text replies that hold an action, unreadable replies, an injected reply, history
//! pruning (one screenshot kept, a small history budget) and a finish.
//!
//! Each request is handed to each template (tests/fixtures/templates, README.md there) the way a
//! server hands it over:
//! - llama-cpp-python's `mtmd` chat handler (`llama_chat_format.py`, `MTMDChatHandler`): an
//!   `image_url` part becomes a text part holding the media marker, everything else as sent;
//!   only templates that read a list of parts can take it;
//! - llama.cpp's server (`tools/server/server-common.cpp`, `common/chat.cpp`): an `image_url` part
//!   becomes a media marker, content with a marker is joined into one string (parts separated by
//!   newlines, none around a marker), other parts stay a list, and content is made a string or a
//!   list as the template reads it;
//! - the templates' own image convention (`{"type": "image"}` parts), as transformers and vLLM
//!   hand them over, for templates that read a list of parts.
//!
//! A request is shaped as the client's `message_shape = auto` would: sent as built, and on the
//! template's refusal in the shape the refusal asks for (`franz_core::model::shape::learn`). No
//! template may refuse the shaped request, nor the request in the strictest shape (`strict`). Gemma 3's template refuses the tools strategy's
//! request as the strategy builds it: the test would fail without the shaping.

use franz_core::agent::Agent;
use franz_core::config::ConfigBuilder;
use franz_core::config::Settings;
use franz_core::engine::{Op, RunOptions, SessionHandle};
use franz_core::executor::{ExecConfig, MotionProfile};
use franz_core::model::{Canned, CannedModel, ChatRequest, Reply, Shape, ToolCall, shape};
use franz_core::observe::ObserveConfig;
use franz_core::profile::{self, Profile};
use franz_core::strategy::ReadOptions;
use franz_desktop::fake::FakeDesktop;
use minijinja::{Environment, Error, ErrorKind, Value as J};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

const W: u32 = 320;
const H: u32 = 200;
const MARKER: &str = "<__media__>";

/// Seven turns at most, at temperature 0, without pauses.
fn options(o: &mut RunOptions) {
    (o.temperature, o.top_p, o.max_tokens) = (0.0, 1.0, 256);
    (o.stream, o.early_exec, o.feedback) = (false, false, true);
    (o.max_steps, o.max_time) = (7, Some(Duration::from_secs(60)));
    (o.step_delay, o.max_empty_turns) = (Duration::ZERO, 7);
}

fn call(name: &str, args: Value) -> ToolCall {
    ToolCall::new(name, Value::String(args.to_string()))
}

fn calls(list: Vec<ToolCall>) -> Canned {
    Canned::Reply(Reply {
        tool_calls: list,
        finish_reason: Some("tool_calls".into()),
        ..Reply::default()
    })
}

/// The model's answers for a strategy's run, and the reply injected on its first turn.
fn script(strategy: &str) -> (String, Vec<Canned>) {
    let click = || call("click_element", json!({"label": "File", "box": [40, 20]}));
    match strategy {
        "tools" => (
            "left_click(500, 300)".into(),
            vec![
                calls(vec![click()]),
                calls(vec![call("press_key", json!({"key": "ctrl+s"})), click()]),
                Canned::text("<tool_call>{\"name\": \"type_text\", \"arguments\": {broken</tool_call>"),
                Canned::text("<think>typing</think>type(\"notes.txt\")"),
                calls(vec![call("press_key", json!({"key": "enter"}))]),
                Canned::text("The document is saved as notes.txt."),
            ],
        ),
        "commander" => {
            let brief = |o: &str| call("spawn_operator", json!({"operator_instructions": o, "rationale": "one step at a time"}));
            let op = |name: &str, mut args: Value| {
                args["justification"] = json!("the menu is there");
                call(name, args)
            };
            (
                "left_click(40, 20)".into(),
                vec![
                    calls(vec![brief("OBJ-1: open the File menu")]),
                    calls(vec![op("click_element", json!({"label": "File", "position": [40, 20]}))]),
                    calls(vec![call("report_progress", json!({"objective_id": "OBJ-1", "status": "DONE", "evidence": "the menu is open"}))]),
                    calls(vec![brief("OBJ-2: save as notes.txt")]),
                    Canned::text("OBJ: OBJ-2\nOBS: a dialog\nACT: typing"),
                    calls(vec![op("type_text", json!({"text": "notes.txt"}))]),
                    calls(vec![call("report_completion", json!({"evidence": "The title bar now reads notes.txt and the save dialog has closed, so the document was saved under the asked name."}))]),
                ],
            )
        }
        "vision" => (
            "{\"observation\": \"a desktop\", \"actions\": [{\"name\": \"click\", \"x1\": 40, \"y1\": 20}]}".into(),
            vec![
                Canned::text("{\"observation\": \"the menu\", \"bboxes\": [{\"x1\": 0, \"y1\": 0, \"x2\": 90, \"y2\": 40}], \"actions\": [{\"name\": \"type\", \"text\": \"notes.txt\"}, {\"name\": \"key\", \"keys\": \"enter\"}]}"),
                Canned::text("I am not sure what to do."),
                Canned::text("{\"observation\": \"saved\", \"actions\": [{\"name\": \"done\", \"text\": \"saved as notes.txt\"}]}"),
            ],
        ),
        _ => (
            "left_click(40, 20)\nI opened the File menu.".into(),
            vec![
                Canned::text("type(\"notes.txt\")\nI typed the name."),
                Canned::text("I am not sure what to do."),
                Canned::text("press_key(\"enter\")\nSaved, I think."),
                Canned::text("done(\"saved as notes.txt\")\nThe document is saved."),
            ],
        ),
    }
}

/// The requests one strategy sends under one profile.
fn run(strategy_name: &str, profile: &Profile) -> Vec<ChatRequest> {
    let mut eff = ConfigBuilder::new().build().unwrap();
    let applied = franz_core::config::apply_profile(profile, &mut eff);
    // pruning: one screenshot kept, and a budget that drops the oldest turns
    eff.config.keep_last_screenshots = 1;
    eff.config.history_max_chars = 9000;
    let read = ReadOptions {
        dialect: eff.config.dialect,
        pixel_coords: applied.pixel_coords,
        exact_space: applied.exact_space,
        ..eff.config.read_options(None)
    };
    let (injected, answers) = script(strategy_name);
    let model = Arc::new(CannedModel::new(answers));
    let handle = SessionHandle::new(Default::default());
    handle.submit(Op::Inject(injected)).unwrap();
    let task = "open the file menu and save the document as notes.txt";
    let (_, stream) = Agent::builder(&Settings::defaults(), task)
        .desktop(Box::new(FakeDesktop::new(W, H)))
        .model(model.clone())
        .handle(handle)
        .strategy(strategy_name.parse().unwrap())
        .observing(|o| {
            *o = ObserveConfig {
                cursor: false,
                ..ObserveConfig::default()
            }
        })
        .overlay(None)
        .executor(|e| *e = ExecConfig::with_profile(MotionProfile::Fast))
        .reading(|r| *r = read)
        .options(options)
        .spawn()
        .unwrap();
    stream.finish().unwrap();
    model.requests()
}

/// Every request of the matrix, named `strategy/profile #n`.
fn matrix() -> Vec<(String, ChatRequest)> {
    let mut out = Vec::new();
    for p in profile::builtin() {
        for s in ["narrative", "vision", "tools", "commander"] {
            let requests = run(s, &p);
            assert!(
                requests.len() >= 2,
                "{s}/{}: {} requests",
                p.name,
                requests.len()
            );
            for (i, r) in requests.into_iter().enumerate() {
                out.push((format!("{s}/{} #{}", p.name, i + 1), r));
            }
        }
    }
    out
}

fn templates() -> BTreeMap<String, String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/templates");
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "jinja") {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            out.insert(name, std::fs::read_to_string(&path).unwrap());
        }
    }
    out
}

/// The environment servers render in: Jinja2's `trim_blocks` and `lstrip_blocks`, loop
/// controls, `raise_exception`, `strftime_now`, and Python's string and dict methods.
fn environment(templates: &BTreeMap<String, String>) -> Environment<'_> {
    let mut env = Environment::new();
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
    env.add_function("raise_exception", |msg: String| -> Result<J, Error> {
        Err(Error::new(ErrorKind::InvalidOperation, msg))
    });
    env.add_function("strftime_now", |_format: String| "26 Nov 2026".to_string());
    env.add_filter("tojson", tojson);
    for (name, text) in templates {
        env.add_template(name, text).unwrap();
    }
    env
}

/// Python's `tojson` as servers register it (llama-cpp-python's `Jinja2ChatFormatter.tojson`,
/// transformers'): `indent`, `ensure_ascii`, `separators` and `sort_keys` taken; non-ASCII kept.
fn tojson(value: J, kwargs: minijinja::value::Kwargs) -> Result<J, Error> {
    let indent: Option<usize> = kwargs.get("indent")?;
    let _: Option<bool> = kwargs.get("ensure_ascii")?;
    let _: Option<J> = kwargs.get("separators")?;
    let _: Option<bool> = kwargs.get("sort_keys")?;
    kwargs.assert_all_used()?;
    let v: Value = serde_json::to_value(&value)
        .map_err(|e| Error::new(ErrorKind::InvalidOperation, e.to_string()))?;
    let text = match indent {
        Some(_) => serde_json::to_string_pretty(&v),
        None => serde_json::to_string(&v),
    }
    .map_err(|e| Error::new(ErrorKind::InvalidOperation, e.to_string()))?;
    Ok(J::from_safe_string(text))
}

/// How a server hands messages to a template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Server {
    LlamaCppPython,
    LlamaCpp,
    OwnImages,
}

/// What content a template reads (as llama.cpp's server probes it).
#[derive(Debug, Clone, Copy)]
struct Caps {
    string: bool,
    parts: bool,
}

fn render(
    env: &Environment<'_>,
    name: &str,
    messages: &Value,
    tools: &Value,
) -> Result<String, Error> {
    let t = env.get_template(name)?;
    t.render(minijinja::context! {
        messages => J::from_serialize(messages),
        tools => J::from_serialize(tools),
        add_generation_prompt => true,
        bos_token => "<s>",
        eos_token => "</s>",
    })
}

fn caps(env: &Environment<'_>, name: &str) -> Caps {
    let needle = "NEEDLE-7f3a";
    let reads = |content: Value| {
        let msgs = json!([{"role": "user", "content": content}]);
        render(env, name, &msgs, &Value::Null).is_ok_and(|out| out.contains(needle))
    };
    Caps {
        string: reads(json!(needle)),
        parts: reads(json!([{"type": "text", "text": needle}])),
    }
}

/// The template's view of one message's content.
fn content(c: &Value, server: Server, caps: Caps) -> Value {
    let Some(parts) = c.as_array() else {
        return match (server, caps.string) {
            (Server::LlamaCpp, false) => json!([{"type": "text", "text": c}]),
            _ => c.clone(),
        };
    };
    let is_image = |p: &Value| p["type"] == "image_url";
    match server {
        Server::LlamaCppPython => parts
            .iter()
            .map(|p| {
                if is_image(p) {
                    json!({"type": "text", "text": MARKER})
                } else {
                    p.clone()
                }
            })
            .collect(),
        Server::OwnImages => parts
            .iter()
            .map(|p| {
                if is_image(p) {
                    json!({"type": "image"})
                } else {
                    p.clone()
                }
            })
            .collect(),
        Server::LlamaCpp if parts.iter().any(is_image) || !caps.parts => {
            let mut text = String::new();
            let mut after_marker = false;
            for p in parts {
                let marker = is_image(p);
                if !marker && !after_marker && !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(if marker {
                    MARKER
                } else {
                    p["text"].as_str().unwrap_or("")
                });
                after_marker = marker;
            }
            Value::String(text)
        }
        Server::LlamaCpp => c.clone(),
    }
}

/// The request's messages as `server` hands them to the template: content converted, tool-call
/// arguments as objects.
fn messages_for(request: &ChatRequest, server: Server, caps: Caps) -> Value {
    let body = request.to_body();
    let mut messages = body["messages"].clone();
    for m in messages.as_array_mut().unwrap() {
        m["content"] = content(&m["content"], server, caps);
        for c in m
            .get_mut("tool_calls")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            let args = &mut c["function"]["arguments"];
            if let Some(s) = args.as_str() {
                *args = serde_json::from_str(s).unwrap_or(json!({}));
            }
        }
    }
    messages
}

/// Renders `request` as `message_shape = auto` sends it: as built, then in the shape each
/// refusal asks for. The shape it rendered in, or the refusal no shape answers.
fn render_auto(
    env: &Environment<'_>,
    name: &str,
    request: &ChatRequest,
    server: Server,
    caps: Caps,
) -> Result<Shape, String> {
    let mut shape = Shape::None;
    loop {
        let shaped = shape::apply(request, shape);
        let tools = serde_json::to_value(&shaped.tools).unwrap();
        let tools = if shaped.tools.is_empty() {
            Value::Null
        } else {
            tools
        };
        match render(env, name, &messages_for(&shaped, server, caps), &tools) {
            Ok(_) => return Ok(shape),
            Err(e) => {
                let said = e.to_string();
                shape = shape::learn(shape, &said).ok_or(said)?;
            }
        }
    }
}

#[test]
fn every_request_renders_under_every_template_once_shaped() {
    let started = std::time::Instant::now();
    let requests = matrix();
    let templates = templates();
    let env = environment(&templates);
    assert!(templates.len() >= 10, "{} templates", templates.len());
    let mut rendered = 0;
    let mut needed: BTreeMap<(String, Shape), usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for name in templates.keys() {
        let caps = caps(&env, name);
        assert!(caps.string || caps.parts, "{name} reads no content at all");
        for server in [Server::LlamaCppPython, Server::LlamaCpp, Server::OwnImages] {
            if server != Server::LlamaCpp && !caps.parts {
                continue;
            }
            for (label, request) in &requests {
                // the strictest shape, for users who set it, renders under every template
                let strict = shape::apply(request, Shape::Strict);
                let tools = if strict.tools.is_empty() {
                    Value::Null
                } else {
                    serde_json::to_value(&strict.tools).unwrap()
                };
                if let Err(e) = render(&env, name, &messages_for(&strict, server, caps), &tools) {
                    failures.push(format!(
                        "{name} ({server:?}) refuses {label} (strict): {e:#}"
                    ));
                }
                match render_auto(&env, name, request, server, caps) {
                    Ok(shape) => {
                        rendered += 1;
                        *needed.entry((name.clone(), shape)).or_default() += 1;
                    }
                    Err(e) => failures.push(format!("{name} ({server:?}) refuses {label}: {e}")),
                }
            }
        }
    }
    eprintln!(
        "rendered {rendered} (template, server, request) triples: {} templates x {} requests, in {:.1} s",
        templates.len(),
        requests.len(),
        started.elapsed().as_secs_f64()
    );
    for ((name, shape), n) in &needed {
        if *shape != Shape::None {
            eprintln!("  {name}: {n} rendered in shape {}", shape.name());
        }
    }
    let mut kinds: Vec<String> = failures
        .iter()
        .map(|f| {
            let (who, why) = f.split_once(" refuses ").unwrap_or((f, ""));
            let why = why.split_once(": ").map_or(why, |(_, w)| w);
            format!("{who}: {}", why.lines().next().unwrap_or(""))
        })
        .collect();
    kinds.sort();
    kinds.dedup();
    assert!(
        failures.is_empty(),
        "{} refusals, of these kinds:\n{}",
        failures.len(),
        kinds.join("\n")
    );
}

/// The tools strategy's first request, as it builds it.
fn tools_request() -> ChatRequest {
    let franz = profile::by_name("franz").unwrap();
    run("tools", &franz).remove(0)
}

#[test]
fn gemma_3_refuses_the_tools_strategys_messages_unshaped_and_takes_them_shaped() {
    let templates = templates();
    let env = environment(&templates);
    let name = "google-gemma-3-it";
    let caps = caps(&env, name);
    let request = tools_request();
    let raw = messages_for(&request, Server::LlamaCppPython, caps);
    let roles: Vec<&str> = raw
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles[..3],
        ["system", "user", "user"],
        "the task, then the screen"
    );
    let refusal = render(&env, name, &raw, &Value::Null).unwrap_err();
    assert!(
        format!("{refusal:#}").contains("Conversation roles must alternate"),
        "{refusal:#}"
    );
    assert_eq!(
        render_auto(&env, name, &request, Server::LlamaCppPython, caps),
        Ok(Shape::Alternate)
    );
    // a tool message is refused too, whatever comes before it
    let tool = json!([
        {"role": "user", "content": "TASK: t"},
        {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "click_element", "arguments": {"box": [1, 2]}}}]},
        {"role": "tool", "content": "{\"ok\": true}", "tool_call_id": "call_1", "name": "click_element"},
    ]);
    let refusal = render(&env, name, &tool, &Value::Null).unwrap_err();
    assert!(
        format!("{refusal:#}").contains("Conversation roles must alternate"),
        "{refusal:#}"
    );
}
