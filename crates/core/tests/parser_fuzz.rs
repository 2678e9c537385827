//! Fuzzing the reply parser: 100,000+ random and mutated replies (the corpus cut, spliced and
//! salted with the tokens that matter to the dialects, random tool calls, random bytes).
//! Properties: no panic, every action read is valid, and no action has a coordinate outside
//! the model's space (docs/coordinates.md, "Out-of-range values": a point just past an edge is
//! taken for the edge, one further out refused), under every coordinate mode `franz parse`
//! reads with.
//!
//! The generator is a tiny xorshift so the test is fast and reproducible; a failure prints the
//! iteration and its input.

use franz_core::ImageSize;
use franz_core::action::{Action, ActionKind};
use franz_core::exact_target::Num;
use franz_core::model::{Reply, ToolCall};
use franz_core::parser::{self, CoordMode, Dialect, ParseOptions};
use serde_json::{Value, json};
use std::path::Path;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    "\"",
    "'",
    ",",
    ":",
    "=",
    "\\",
    "\n",
    " ",
    "-1",
    "1e308",
    "-99999999999",
    "1001",
    "NaN",
    "null",
    "true",
    "<think>",
    "</think>",
    "<tool_call>",
    "</tool_call>",
    "<function=computer_use>",
    "<parameter=action>",
    "</parameter>",
    "Action: ",
    "Action：",
    "Thought: ",
    "left_click(",
    "drag(",
    "type(\"",
    "press_key(\"",
    "scroll(",
    "click(start_box='",
    "<|box_start|>",
    "<point>",
    "</point>",
    "<bbox>",
    "\"coordinate\": [",
    "\"box\": [[",
    "\"actions\": [",
    "\"name\": \"click\"",
    "\"x1\": ",
    "\"action\": \"key\"",
    "\"keys\": [\"keys=['ctrl'\", \"'c']\"]",
    "\"type\": \"scroll\"",
    "\"scroll_y\": -1e9",
    "\"pixels\": 4294967296",
    "```json",
    "```",
    "é",
    "你好",
    "\u{0}",
    "🙂",
    "\"arguments\": \"{\\\"box\\\": [1,",
    "computer_use",
    "1.5",
    "999999999999999999999",
    "0",
    "-0",
    "[-1,-1]",
    "[]",
    "{}",
    "1004",
    "1020",
    "-20",
    "5000",
    "1e-308",
    "x",
    "x1",
    "(x1,y1)",
    "[x, y]",
    "\"text\"",
];

const TOOL_NAMES: &[&str] = &[
    "click_element",
    "type_text",
    "press_key",
    "scroll_at_position",
    "drag_element",
    "move_mouse",
    "click_mouse",
    "computer_use",
    "mobile_use",
    "computer",
    "computer_use_preview",
    "report_progress",
    "scroll_down",
    "observe_screen",
    "nonsense",
    "",
];

fn boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn mutate(rng: &mut Rng, seed: &str, corpus: &[String]) -> String {
    let mut s = seed.to_string();
    for _ in 0..1 + rng.below(6) {
        let at = boundary(&s, rng.below(s.len() + 1));
        match rng.below(7) {
            0 | 1 => s.insert_str(at, rng.pick::<&str>(TOKENS)),
            2 => {
                let end = boundary(&s, at + rng.below(16));
                s.replace_range(at..end, "");
            }
            3 => s.truncate(at),
            4 => {
                let other = rng.pick(corpus);
                let from = boundary(other, rng.below(other.len() + 1));
                let to = boundary(other, from + rng.below(200));
                s.insert_str(at, &other[from..to]);
            }
            5 => {
                // replace a digit run with an extreme number
                if let Some(p) = s[at..].find(|c: char| c.is_ascii_digit()) {
                    let p = at + p;
                    let end = s[p..]
                        .find(|c: char| !c.is_ascii_digit())
                        .map_or(s.len(), |e| p + e);
                    s.replace_range(
                        p..end,
                        rng.pick::<&str>(
                            &["-1", "100000", "1e99", "-5000", "1001", "2147483648"][..],
                        ),
                    );
                }
            }
            _ => {
                let n = rng.below(12);
                let junk: String = (0..n)
                    .map(|_| char::from(32 + rng.below(95) as u8))
                    .collect();
                s.insert_str(at, &junk);
            }
        }
    }
    s
}

fn random_value(rng: &mut Rng, depth: usize) -> Value {
    match rng.below(if depth > 2 { 4 } else { 7 }) {
        0 => json!(rng.below(3000) as i64 - 1000),
        1 => json!(*rng.pick(
            &[
                "left_click",
                "key",
                "scroll",
                "down",
                "ctrl+c",
                "[5, 6]",
                "(1,2)",
                "",
                "DONE"
            ][..]
        )),
        2 => json!(f64::from_bits(rng.next()).clamp(-1e12, 1e12)),
        3 => Value::Null,
        4 | 5 => {
            let keys = [
                "action",
                "coordinate",
                "box",
                "text",
                "keys",
                "pixels",
                "x",
                "y",
                "start",
                "end",
                "type",
                "scroll_y",
                "path",
                "status",
                "evidence",
                "label",
                "coordinate2",
                "position",
                "key",
            ];
            let mut m = serde_json::Map::new();
            for _ in 0..rng.below(5) {
                m.insert(
                    rng.pick(&keys[..]).to_string(),
                    random_value(rng, depth + 1),
                );
            }
            Value::Object(m)
        }
        _ => Value::Array(
            (0..rng.below(5))
                .map(|_| random_value(rng, depth + 1))
                .collect(),
        ),
    }
}

/// Every action is valid and inside the model's space: its points in 0..1000, and its exact
/// target (the model's own values) in 0..S of its extent.
fn check(actions: &[Action]) -> Result<(), String> {
    let inside = |v: i32| (0..=1000).contains(&v);
    for a in actions {
        a.validate()
            .map_err(|e| format!("invalid action {a:?}: {e}"))?;
        let end = match a.kind {
            ActionKind::Drag { x2, y2, .. } => Some((x2, y2)),
            _ => None,
        };
        for (x, y) in a.kind.point().into_iter().chain(end) {
            if !(inside(x) && inside(y)) {
                return Err(format!("a point outside 0..1000: {a:?}"));
            }
        }
        if let Some(e) = &a.exact {
            let within = |p: &[Num; 2]| (0..2).all(|i| p[i].0 >= 0.0 && p[i].0 <= e.of[i].0);
            if !e.at.iter().chain(e.to.iter()).all(within) {
                return Err(format!("an exact target outside its space: {a:?}"));
            }
        }
    }
    Ok(())
}

#[test]
fn hundred_thousand_replies_never_panic_and_stay_inside_the_models_space() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/replies");
    let corpus: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    assert!(corpus.len() >= 80);
    let modes = [
        CoordMode::Norm,
        CoordMode::Pixels(ImageSize::new(1280, 720)),
        CoordMode::Pixels(ImageSize::new(1, 1)),
        CoordMode::Exact(ImageSize::new(1000, 1000)),
        CoordMode::Exact(ImageSize::new(1288, 728)),
        CoordMode::Exact(ImageSize::new(1, 1)),
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut with_actions = 0usize;
    const N: usize = 100_000;
    for i in 0..N {
        let reply = match rng.below(10) {
            0..=6 => {
                let seed = rng.pick(&corpus).clone();
                Reply::from_any_text(&mutate(&mut rng, &seed, &corpus))
            }
            7 | 8 => {
                let mut r = Reply::default();
                for _ in 0..1 + rng.below(3) {
                    let args = if rng.below(2) == 0 {
                        random_value(&mut rng, 0)
                    } else {
                        let seed = random_value(&mut rng, 0).to_string();
                        Value::String(mutate(&mut rng, &seed, &corpus))
                    };
                    r.tool_calls
                        .push(ToolCall::new(*rng.pick(TOOL_NAMES), args));
                }
                if rng.below(4) == 0 {
                    r.finish_reason = Some("length".into());
                }
                r
            }
            _ => {
                let n = rng.below(300);
                let text: String = (0..n)
                    .map(|_| {
                        if rng.below(3) == 0 {
                            rng.pick(TOKENS).to_string()
                        } else {
                            char::from(rng.below(128) as u8).to_string()
                        }
                    })
                    .collect();
                Reply::text(text)
            }
        };
        let dialect = if rng.below(4) == 0 {
            Some(*rng.pick(&Dialect::ALL))
        } else {
            None
        };
        let opts = ParseOptions {
            dialect,
            coords: *rng.pick(&modes),
        };
        let parsed = parser::parse_reply(&reply, &opts);
        if let Err(e) = check(&parsed.actions) {
            panic!("iteration {i}: {e}\nreply: {reply:?}\nopts: {opts:?}");
        }
        if !parsed.actions.is_empty() {
            with_actions += 1;
        }
    }
    // the generator must exercise the action paths, not only the error paths (about one in
    // ten replies; since auto-detection reads a function call only on its own line, calls
    // spliced into prose by the mutations no longer count)
    assert!(
        with_actions > N / 12,
        "only {with_actions} replies gave actions"
    );
}

/// Pointer actions: those the executor runs at the pointer when they carry no point.
const POINTER_ACTIONS: &[&str] = &[
    "click",
    "right_click",
    "middle_click",
    "double_click",
    "triple_click",
    "move",
    "mouse_down",
    "mouse_up",
    "scroll",
    "long_press",
    "drag",
];

/// Fields whose numbers are never a position in any grammar franz reads (durations, amounts,
/// text, key names, statuses): numbers there may go with a click "here".
const NOT_POSITION: &[&str] = &[
    "action",
    "type",
    "text",
    "keys",
    "key",
    "button",
    "direction",
    "scroll_direction",
    "scroll_amount",
    "pixels",
    "amount",
    "scroll_x",
    "scroll_y",
    "duration",
    "time",
    "seconds",
    "status",
];

fn has_number(v: &Value) -> bool {
    match v {
        Value::Number(_) => true,
        Value::String(s) => s.chars().any(|c| c.is_ascii_digit()),
        Value::Array(items) => items.iter().any(has_number),
        Value::Object(m) => m.values().any(has_number),
        _ => false,
    }
}

/// A random action object for a pointer action: an action name from every dialect's pointer
/// vocabulary (drags from the pointer excluded: their numbers are the end point) and random
/// fields, numbers placed under position keys, unknown keys or non-position keys.
fn pointer_args(rng: &mut Rng) -> Value {
    let actions = [
        "click",
        "left_click",
        "right_click",
        "middle_click",
        "double_click",
        "triple_click",
        "mouse_move",
        "left_mouse_down",
        "left_mouse_up",
        "scroll",
        "hscroll",
        "long_press",
        "move",
        "double_left_click",
    ];
    let keys = [
        "coordinate",
        "x",
        "y",
        "point",
        "position",
        "start_box",
        "target",
        "loc",
        "at",
        "coords",
        "center",
        "pixels",
        "scroll_amount",
        "duration",
        "text",
        "scroll_direction",
        "button",
    ];
    let mut m = serde_json::Map::new();
    let action_key = if rng.below(3) == 0 { "type" } else { "action" };
    m.insert(action_key.into(), json!(*rng.pick(&actions[..])));
    if rng.below(3) == 0 {
        m.insert("scroll_direction".into(), json!("down"));
    }
    for _ in 0..rng.below(4) {
        let v = match rng.below(6) {
            0 => json!([rng.below(1000), rng.below(1000)]),
            1 => json!(rng.below(1000)),
            2 => json!(format!("({},{})", rng.below(1000), rng.below(1000))),
            3 => json!(format!(
                "<point>{} {}</point>",
                rng.below(1000),
                rng.below(1000)
            )),
            4 => json!({"x": rng.below(1000), "y": rng.below(1000)}),
            _ => json!("left"),
        };
        m.insert(rng.pick(&keys[..]).to_string(), v);
    }
    Value::Object(m)
}

/// `args` as keyword arguments of a call: strings quoted, the rest as JSON; the action's own
/// name (`action` / `type`) returned apart.
fn kwargs(args: &Value) -> (String, String) {
    let mut action = String::new();
    let mut kwargs = Vec::new();
    for (k, v) in args.as_object().into_iter().flatten() {
        match (k.as_str(), v) {
            ("action" | "type", Value::String(a)) => action = a.clone(),
            (_, Value::String(s)) => kwargs.push(format!("{k}='{s}'")),
            _ => kwargs.push(format!("{k}={v}")),
        }
    }
    (action, kwargs.join(", "))
}

/// The pyautogui verb of a pointer action name.
fn pyautogui_verb(action: &str) -> &'static str {
    match action {
        "right_click" => "rightClick",
        "middle_click" => "middleClick",
        "double_click" | "double_left_click" => "doubleClick",
        "triple_click" => "tripleClick",
        "mouse_move" | "move" => "moveTo",
        "left_mouse_down" => "mouseDown",
        "left_mouse_up" => "mouseUp",
        "scroll" => "scroll",
        "hscroll" => "hscroll",
        _ => "click",
    }
}

/// The reply carrying `args` as the tool `name`: a tool call, a `<tool_call>` block, the XML
/// form (also in a `<seed:tool_call>` block), a bare object, a UI-TARS Action line, or
/// pyautogui code.
fn pointer_reply(rng: &mut Rng, name: &str, args: &Value) -> Reply {
    let call = json!({"name": name, "arguments": args}).to_string();
    match rng.below(7) {
        6 => {
            let (action, kwargs) = self::kwargs(args);
            Reply::text(format!(
                "```python\npyautogui.{}({kwargs})\n```",
                pyautogui_verb(&action)
            ))
        }
        5 => {
            let params: String = args
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, v)| {
                    let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                    format!("<parameter={k}>{v}</parameter>\n")
                })
                .collect();
            Reply::text(format!(
                "<seed:tool_call>\n<function={name}>\n{params}</function>\n</seed:tool_call>"
            ))
        }
        4 => {
            let (action, kwargs) = self::kwargs(args);
            let action = action.replace("double_click", "left_double");
            Reply::text(format!("Thought: t\nAction: {action}({kwargs})"))
        }
        0 => Reply {
            tool_calls: vec![ToolCall::new(name, args.clone())],
            ..Reply::default()
        },
        1 => Reply::text(format!("<tool_call>\n{call}\n</tool_call>")),
        2 => {
            let params: String = args
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, v)| {
                    let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                    format!("<parameter={k}>\n{v}\n</parameter>\n")
                })
                .collect();
            Reply::text(format!(
                "<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>"
            ))
        }
        _ => Reply::text(call),
    }
}

/// Numbers in an action's arguments never become a pointer action without a
/// point, in every reader (UI-TARS-2 tool calls, actions named as functions and pyautogui
/// included). Numbers only under non-position fields (amounts, durations, text) may go with a
/// click "here", which is what the grammars define for an action without a position.
#[test]
fn numbers_in_the_arguments_never_become_a_click_at_the_pointer() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let (mut guarded, mut read, mut here) = (0usize, 0usize, 0usize);
    for i in 0..30_000 {
        let args = pointer_args(&mut rng);
        let name = *rng.pick(
            &[
                "computer",
                "computer_use",
                "mobile_use",
                "computer_use_preview",
                "",
            ][..],
        );
        // "": the action is the function's own name (`<function=left_click>`, Seed's `click`)
        let own = args["action"]
            .as_str()
            .or(args["type"].as_str())
            .unwrap_or("click");
        let name = if name.is_empty() { own } else { name };
        let reply = pointer_reply(&mut rng, name, &args);
        let opts = ParseOptions::default();
        let parsed = parser::parse_reply(&reply, &opts);
        let positional = args
            .as_object()
            .into_iter()
            .flatten()
            .any(|(k, v)| !NOT_POSITION.contains(&k.as_str()) && has_number(v));
        for a in &parsed.actions {
            if !POINTER_ACTIONS.contains(&a.kind.name()) {
                continue;
            }
            match a.kind.point() {
                Some(_) => read += 1,
                None if positional => panic!(
                    "iteration {i}: a pointer action without a point from numbered arguments\nreply: {reply:?}\nparsed: {parsed:?}"
                ),
                None => here += 1,
            }
        }
        if positional {
            guarded += 1;
        }
    }
    // not vacuous: most replies carry numbers, many points are read, some clicks are "here"
    assert!(guarded > 10_000, "{guarded} {read} {here}");
    assert!(read > 1_500, "{read}");
    assert!(here > 300, "{here}");
}
