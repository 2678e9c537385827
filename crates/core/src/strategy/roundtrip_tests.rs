//! Prompt and parser agree, as a property: for every strategy, every built-in profile and every
//! `--coords` (`Config::read_options`, as a run builds its options), the request's prompt
//! states the space the parser reads, no example it shows holds a real value, each example
//! repeated as it stands acts nowhere, and each example with values in place of its
//! placeholders (`placeholder::fill`) reads back, under the run's parser (`strategy::parse`
//! with the strategy's options; a tool call through `parse_one_call`), as the action it shows. Likewise every tool of the request's tool schema, called with values. The
//! lists come from the real builders (`profile::builtin`, `StrategyName::ALL`, the strategies'
//! prompts and schemas): a new grammar, example or profile that breaks the agreement fails here.

use super::{ReadOptions, Strategy, StrategyName, TurnContext};
use crate::action::{Action, ActionKind};
use crate::geometry::ImageSize;
use crate::model::{Reply, Tool, ToolCall};
use crate::parser::{CoordMode, Dialect};
use crate::placeholder;
use serde_json::{Value, json};

/// A run's configuration: the strategy, the profile, `--coords` and the options built from them.
struct Combo {
    strategy: StrategyName,
    what: String,
    options: ReadOptions,
}

/// Every (strategy, built-in profile, coords) as `franz run` builds its read options.
fn combos() -> Vec<Combo> {
    let mut out = Vec::new();
    for profile in crate::profile::builtin() {
        for coords in [None, Some("norm"), Some("pixels"), Some("relative")] {
            let mut b = crate::config::ConfigBuilder::new();
            if let Some(c) = coords {
                b = b.flag("coords", "--coords", c);
            }
            let mut effective = b.build().expect("a configuration");
            let applied = crate::config::apply_profile(&profile, &mut effective);
            let options = effective.config.read_options(Some(&applied));
            for strategy in StrategyName::ALL {
                out.push(Combo {
                    strategy,
                    what: format!("{strategy} {} coords={coords:?}", profile.name),
                    options: options.clone(),
                });
            }
        }
    }
    out
}

/// The values an example is filled with, in the space `coords` reads: a point and a drag's
/// start and end, as the model writes them.
struct Values {
    coords: CoordMode,
    p: [f64; 2],
    p1: [f64; 2],
    p2: [f64; 2],
}

impl Values {
    fn new(coords: CoordMode) -> Values {
        let (w, h) = match coords {
            CoordMode::Norm => (1000.0, 1000.0),
            CoordMode::Pixels(s) => ((s.width - 1) as f64, (s.height - 1) as f64),
            CoordMode::Exact(s) => (s.width as f64, s.height as f64),
        };
        let at = |fx: f64, fy: f64| {
            let r = |v: f64| if w > 1.0 { v.round() } else { v };
            [r(fx * w), r(fy * h)]
        };
        Values {
            coords,
            p: at(0.4, 0.3),
            p1: at(0.25, 0.6),
            p2: at(0.7, 0.65),
        }
    }

    /// The value written in place of the placeholder `name`.
    fn of(&self, name: &str) -> Option<String> {
        let n = |v: f64| crate::exact_target::Num(v).to_string();
        Some(match name.to_ascii_lowercase().as_str() {
            "x" => n(self.p[0]),
            "y" => n(self.p[1]),
            "x1" => n(self.p1[0]),
            "y1" => n(self.p1[1]),
            "x2" | "x3" => n(self.p2[0]),
            "y2" | "y3" => n(self.p2[1]),
            "text" | "xxx" => "hello world".into(),
            "keys" => "ctrl+s".into(),
            "direction" => "down".into(),
            "amount" => "2".into(),
            "seconds" => "1".into(),
            "scroll_x" => "0".into(),
            "scroll_y" => "300".into(),
            "result" | "reason" => EVIDENCE.into(),
            _ => return None,
        })
    }

    /// The 0..1000 point (and the model's values, in an exact space) a value `v` reads as.
    fn read(&self, v: [f64; 2]) -> ((i32, i32), Option<[f64; 2]>) {
        let px = |p: f64, len: u32| ((p * 1000.0 / (len.max(2) - 1) as f64) + 0.5).floor() as i32;
        match self.coords {
            CoordMode::Norm => ((v[0] as i32, v[1] as i32), None),
            CoordMode::Pixels(s) => ((px(v[0], s.width), px(v[1], s.height)), None),
            CoordMode::Exact(s) => {
                let n = crate::exact_target::norm_point(v, s);
                ((n.x, n.y), Some(v))
            }
        }
    }
}

/// An answer long enough for any completion rule.
const EVIDENCE: &str = "the file hello.txt is saved: its name shows in the title bar of the editor, and the status line says written, so the task is complete";

/// The verbs of every grammar, as the kind of action each stands for. A new verb in a prompt
/// or schema must be added here (the test fails naming it).
fn kind_of(verb: &str) -> Option<&'static str> {
    Some(match verb.to_ascii_lowercase().as_str() {
        "left_click" | "click" | "left_single" | "click_element" | "click_mouse" => "click",
        "right_click" | "right_single" | "rightclick" | "right_click_element" => "right_click",
        "double_left_click"
        | "double_click"
        | "left_double"
        | "doubleclick"
        | "double_click_element" => "double_click",
        "middle_click" => "middle_click",
        "triple_click" => "triple_click",
        "move" | "moveto" | "mouse_move" | "move_mouse" => "move",
        "drag" | "dragto" | "left_click_drag" | "drag_element" => "drag",
        "scroll" | "hscroll" | "scroll_at_position" | "scroll_down" | "scroll_up" => "scroll",
        "type" | "write" | "type_text" => "type",
        "press_key" | "hotkey" | "key" | "keypress" | "press" => "key",
        "hold_key" => "hold_key",
        "left_mouse_down" => "mouse_down",
        "left_mouse_up" => "mouse_up",
        "wait" => "wait",
        "done" | "finished" | "answer" | "terminate" => "done",
        "fail" => "fail",
        "screenshot" | "cursor_position" | "observe_screen" => "observe",
        "report_progress" => "report_progress",
        "report_completion" => "report_completion",
        "list_windows" => "list_windows",
        "focus_window" => "focus_window",
        _ => return None,
    })
}

/// The verb an example shows: a call's name (without its module), or its JSON's `action`,
/// else `type`, else `name`.
fn verb_of(example: &str) -> String {
    for key in ["\"action\": \"", "\"type\": \"", "\"name\": \""] {
        if let Some(at) = example.find(key) {
            let rest = &example[at + key.len()..];
            return rest[..rest.find('"').unwrap_or(0)].to_string();
        }
    }
    let name = &example[..example.find('(').unwrap_or(0)];
    name.rsplit('.').next().unwrap_or_default().to_string()
}

fn screenshot(size: ImageSize) -> crate::observe::Screenshot {
    let mut shot = super::test_support::screenshot();
    shot.size = size;
    shot
}

/// Every text of a request's messages.
fn texts(messages: &[crate::model::Message]) -> String {
    let v = serde_json::to_value(messages).unwrap_or_default();
    let mut out = String::new();
    collect_texts(&v, &mut out);
    out
}

fn collect_texts(v: &Value, out: &mut String) {
    match v {
        Value::String(s) if !s.starts_with("data:") => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(items) => items.iter().for_each(|i| collect_texts(i, out)),
        Value::Object(m) => m.values().for_each(|i| collect_texts(i, out)),
        _ => {}
    }
}

/// The sentence the prompt must give for the space the parser reads under `coords`.
fn wording(coords: CoordMode) -> String {
    use super::grammar::Space;
    let space = match coords {
        CoordMode::Norm => Space::Norm1000,
        // a 0..999 profile's prompts word its space as 0..1000, as EvoCUA's own prompt does
        // ("The screen's resolution is 1000x1000."; docs/coordinates.md, "Exact targets")
        CoordMode::Exact(s) if crate::exact_target::norm_max_of(s).is_some() => Space::Norm1000,
        CoordMode::Exact(s) if s == ImageSize::new(1, 1) => Space::Relative,
        CoordMode::Pixels(s) | CoordMode::Exact(s) => Space::Pixels(s),
    };
    space.wording()
}

/// The first request of a fresh strategy of `c`.
fn asked(c: &Combo, ctx: &TurnContext<'_>) -> super::Prompt {
    let mut s: Box<dyn Strategy> = c.strategy.create(c.options.clone());
    s.prompt(ctx)
}

/// A reply that ended on its own.
fn stopped(text: String) -> Reply {
    Reply {
        finish_reason: Some("stop".into()),
        ..Reply::text(text)
    }
}

/// The example as a whole reply of the asked dialect: UI-TARS's calls stand on an Action line.
fn as_reply(example: &str, dialect: Option<Dialect>) -> String {
    match dialect {
        Some(Dialect::Uitars) => format!("Thought: I act.\nAction: {example}"),
        _ => example.to_string(),
    }
}

/// Checks that `a` is the action `verb` shows with `values` in place of its placeholders
/// (`source`: the example or the call's arguments, as filled).
fn illustrates(a: &Action, verb: &str, source: &str, values: &Values) -> Result<(), String> {
    let want = kind_of(verb).ok_or_else(|| format!("unknown verb {verb:?}: add it to kind_of"))?;
    if a.kind.name() != want {
        return Err(format!("{verb} read as {}", a.kind.name()));
    }
    let point = |v: [f64; 2]| values.read(v);
    let ok = match &a.kind {
        ActionKind::Drag { x, y, x2, y2 } => {
            let from = x.zip(*y);
            let end = (*x2, *y2);
            let (p1, _) = point(values.p1);
            let ((p2, _), (p, _)) = (point(values.p2), point(values.p));
            (from == Some(p1) && end == p2) || (from.is_none() && (end == p || end == p2))
        }
        ActionKind::Type { text } => text == "hello world",
        ActionKind::Key { keys } => keys == "ctrl+s",
        ActionKind::Done { text } | ActionKind::Fail { text } => {
            text == EVIDENCE || !source.contains(EVIDENCE)
        }
        k => match k.point() {
            // a point is x, y (or x1, y1 where the grammar names its point so)
            Some(at) => [values.p, values.p1].into_iter().any(|v| {
                let (want, exact) = point(v);
                at == want
                    && exact.is_none_or(|e| {
                        a.exact
                            .and_then(|x| x.at)
                            .is_some_and(|v| [v[0].0, v[1].0] == e)
                    })
            }),
            None => true,
        },
    };
    ok.then_some(())
        .ok_or_else(|| format!("{verb} read as {a:?}"))
}

/// The options the strategy of `c` parses with: its dialect, and the profile's space.
fn parsing(c: &Combo) -> ReadOptions {
    ReadOptions {
        dialect: c.strategy.dialect(c.options.dialect),
        ..c.options.clone()
    }
}

/// One example of a request: repeated, it acts nowhere; filled, it is its action.
fn check_example(c: &Combo, ctx: &TurnContext<'_>, example: &str) -> Result<(), String> {
    let opts = parsing(c);
    let values = Values::new(opts.coord_mode(ctx.screenshot.size));
    let echo = super::parse(&stopped(as_reply(example, opts.dialect)), &opts, ctx);
    if !echo.actions.is_empty() || !echo.errors.iter().any(|e| e.contains(placeholder::ECHO)) {
        return Err(format!("repeated, {example:?} gave {echo:?}"));
    }
    let filled = placeholder::fill(example, |n| values.of(n));
    let r = super::parse(&stopped(as_reply(&filled, opts.dialect)), &opts, ctx);
    match r.actions.first() {
        Some(a) if r.errors.is_empty() => illustrates(a, &verb_of(&filled), &filled, &values),
        _ => Err(format!("filled, {filled:?} gave {r:?}")),
    }
}

/// What one request held: examples and tool calls checked, and what failed.
#[derive(Default)]
struct Checked {
    examples: usize,
    calls: usize,
    failed: Vec<String>,
}

/// The request of `c`: its prompt states the parser's space, shows examples, none with a
/// real value; each example and each tool round-trips.
fn check_combo(c: &Combo, size: ImageSize) -> Checked {
    let shot = screenshot(size);
    let ctx = super::test_support::first_turn(&shot);
    let prompt = asked(c, &ctx);
    let text = texts(&prompt.messages);
    let mut failed = Vec::new();
    let want = wording(c.options.coord_mode(size));
    if !text.contains(&want) {
        failed.push(format!("the prompt does not say {want:?}"));
    }
    let examples = placeholder::examples(&text);
    if !examples.iter().any(|e| !e.placeholders.is_empty()) && prompt.tools.is_empty() {
        failed.push("the prompt shows no example".into());
    }
    for e in &examples {
        if !e.numbers.is_empty() {
            failed.push(format!("{:?} shows real values {:?}", e.text, e.numbers));
        } else if !e.names.is_empty() {
            failed.push(format!(
                "{:?} shows names that are no placeholder {:?}",
                e.text, e.names
            ));
        } else if let Err(why) = check_example(c, &ctx, &e.text) {
            failed.push(why);
        }
    }
    for tool in &prompt.tools {
        let schema = serde_json::to_string(tool).unwrap_or_default();
        if placeholder::examples(&schema)
            .iter()
            .any(|e| !e.numbers.is_empty())
        {
            failed.push(format!("the tool schema shows real values: {schema}"));
        }
    }
    let mut calls = 0;
    for tool in &prompt.tools {
        let (n, f) = check_tool(c, &ctx, tool);
        calls += n;
        failed.extend(f);
    }
    let failed = (failed.into_iter())
        .map(|f| format!("{} {size}: {f}", c.what))
        .collect();
    Checked {
        examples: examples.len(),
        calls,
        failed,
    }
}

#[test]
fn every_example_of_every_request_reads_back_as_the_action_it_shows() {
    let (mut failed, mut requests, mut examples, mut calls) = (Vec::new(), 0, 0, 0);
    for c in combos() {
        for size in [ImageSize::new(1288, 728), ImageSize::new(800, 600)] {
            let checked = check_combo(&c, size);
            failed.extend(checked.failed);
            (requests, examples) = (requests + 1, examples + checked.examples);
            calls += checked.calls;
        }
    }
    // every profile, strategy and space; most requests show several examples or tools
    assert!(requests >= 8 * 4 * 4 * 2, "{requests}");
    assert!(
        examples > 2 * requests && calls > 5 * requests,
        "{examples} {calls}"
    );
    assert!(
        failed.is_empty(),
        "{} disagreements:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

/// The values of a tool's arguments for the call of `verb` (the tool itself, or one value of
/// its `action` / `type` enum): each parameter the call takes, by its name and type.
fn arguments(tool: &Tool, verb: &str, values: &Values) -> Value {
    let params = &tool.function.parameters["properties"];
    let required: Vec<&str> = (tool.function.parameters["required"].as_array())
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let kind = kind_of(verb).unwrap_or_default();
    let pointer = matches!(
        kind,
        "click"
            | "right_click"
            | "double_click"
            | "middle_click"
            | "triple_click"
            | "move"
            | "drag"
            | "scroll"
    );
    let mut args = serde_json::Map::new();
    for (name, schema) in params.as_object().into_iter().flatten() {
        let only = schema["description"].as_str().unwrap_or_default();
        let for_others = only.contains("Required only by") && !only.contains(&format!("={verb}`"));
        if for_others && !required.contains(&name.as_str()) {
            continue;
        }
        if let Some(v) = argument(name, schema, kind, pointer, values) {
            args.insert(name.clone(), v);
        }
    }
    Value::Object(args)
}

/// One argument by its parameter's name; `None` for one the call leaves out.
fn argument(name: &str, schema: &Value, kind: &str, pointer: bool, v: &Values) -> Option<Value> {
    let pt = |p: [f64; 2]| json!([p[0], p[1]]);
    let xy = |p: [f64; 2]| json!({"x": p[0], "y": p[1]});
    let drag = kind == "drag";
    Some(match name {
        "coordinate" | "box" | "position" | "point" if pointer => {
            pt(if drag && name == "coordinate" {
                v.p2
            } else {
                v.p
            })
        }
        "start" | "start_coordinate" if drag => pt(v.p1),
        "end" if drag => pt(v.p2),
        "x" if pointer => json!(v.p[0]),
        "y" if pointer => json!(v.p[1]),
        "path" if drag => json!([xy(v.p1), xy(v.p2)]),
        "text" if kind == "key" => json!("ctrl+s"),
        "text" if kind == "hold_key" => json!("shift"),
        "text" if kind == "type" || kind == "done" => json!(if kind == "done" {
            EVIDENCE
        } else {
            "hello world"
        }),
        "keys" if schema["type"] == "array" => json!(["ctrl", "s"]),
        "keys" | "key" => json!("ctrl+s"),
        "pixels" | "scroll_amount" | "amount" => json!(2),
        "scroll_y" => json!(300),
        "scroll_x" => json!(0),
        "time" | "duration" => json!(1),
        "status" => schema["enum"][0].clone(),
        "scroll_direction" | "direction" => json!("down"),
        "button" => json!("left"),
        "label" | "justification" | "objective_id" => json!("the OK button"),
        "evidence" => json!(EVIDENCE),
        "window" => json!("xterm"),
        _ => return None,
    })
}

/// Every call of a tool: once, or once per value of its `action` / `type` enum; how many, and
/// what failed.
fn check_tool(c: &Combo, ctx: &TurnContext<'_>, tool: &Tool) -> (usize, Vec<String>) {
    let params = &tool.function.parameters["properties"];
    let verbs: Vec<String> = ["action", "type"]
        .iter()
        .find_map(|k| params[*k]["enum"].as_array())
        .map(|e| {
            e.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_else(|| vec![tool.function.name.clone()]);
    let values = Values::new(c.options.coord_mode(ctx.screenshot.size));
    let mut failed = Vec::new();
    let n = verbs.len();
    for verb in verbs {
        let mut args = arguments(tool, &verb, &values);
        if verb != tool.function.name {
            let key = if params["action"].is_object() {
                "action"
            } else {
                "type"
            };
            args[key] = json!(verb);
        }
        let call = ToolCall::new(&tool.function.name, args.clone());
        let reply = Reply {
            tool_calls: vec![call.clone()],
            finish_reason: Some("tool_calls".into()),
            ..Reply::default()
        };
        let r = super::parse_one_call(&reply, &call, &parsing(c), ctx);
        let result = match r.actions.first() {
            Some(a) if r.errors.is_empty() => illustrates(a, &verb, &args.to_string(), &values),
            _ => Err(format!("gave {r:?}")),
        };
        if let Err(why) = result {
            failed.push(format!("tool {} {args}: {why}", tool.function.name));
        }
    }
    (n, failed)
}
