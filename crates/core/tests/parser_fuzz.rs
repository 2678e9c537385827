//! Fuzzing the reply parser: 100,000+ random and mutated replies (the corpus cut, spliced and
//! salted with the tokens that matter to the dialects, random tool calls, random bytes).
//! Properties: no panic, and every action coordinate lies in 0..=1000.
//!
//! The generator is a tiny xorshift so the test is fast and reproducible; a failure prints the
//! iteration and its input.

use franz_core::ImageSize;
use franz_core::action::{Action, ActionKind};
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

fn check(actions: &[Action]) -> Result<(), String> {
    let ok = |v: i32| (0..=1000).contains(&v);
    for a in actions {
        if let Some((x, y)) = a.kind.point()
            && !(ok(x) && ok(y))
        {
            return Err(format!("point outside 0..1000: {a:?}"));
        }
        if let ActionKind::Drag { x2, y2, .. } = a.kind
            && !(ok(x2) && ok(y2))
        {
            return Err(format!("drag end outside 0..1000: {a:?}"));
        }
        a.validate()
            .map_err(|e| format!("invalid action {a:?}: {e}"))?;
    }
    Ok(())
}

#[test]
fn hundred_thousand_replies_never_panic_and_stay_in_range() {
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
    // the generator must exercise the action paths, not only the error paths
    assert!(
        with_actions > N / 10,
        "only {with_actions} replies gave actions"
    );
}
