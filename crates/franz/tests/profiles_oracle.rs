//! The model profiles against the families' own reference code ,
//! driving the real `franz` binary: random screens from 800x600 to 3840x2160, random crops and
//! random points, 2,400 action cases in all.
//!
//! - The image each family is sent (`franz profiles show`, and `franz parse --screen`) is a
//!   fixed point of that family's reference `smart_resize` (ui-tars 0.5.1 and qwen-vl-utils
//!   0.0.14, run by tests/oracle/profiles.py in the test venv: scripts/deps.sh makes it).
//! - UI-TARS-1.5 replies (click, left_double, right_single, drag, scroll, type, hotkey,
//!   finished; start_box as `(x,y)`, `(x1,y1,x2,y2)`, `<point>x y</point>`, `[x,y]` or wrapped
//!   in `<|box_start|>`/`<|box_end|>`): franz's `screen` is the reference parser's fraction
//!   times the working area, within 1 px (the reference reads no brackets and no box tokens:
//!   they are stripped for it; a box is compared by its centre).
//! - Qwen2.5-VL `computer_use` replies against `x / w * L`, Qwen3-VL against `x / 1000 * L`.

use crate::common;

use common::oracle::{Combo, Rng, Seen, combos, show_and_parse};
use serde_json::{Value, json};

/// franz's action type, the model's point(s) in the family's space, the reference's text.
type Expect = (&'static str, Vec<[f64; 2]>, Option<String>);

/// One family's case: the reply franz parses, and per action what to expect.
struct Case {
    family: &'static str,
    combo: Combo,
    reply: String,
    expect: Vec<Expect>,
}

const UITARS_VERBS: [(&str, &str); 8] = [
    ("click", "click"),
    ("left_double", "double_click"),
    ("right_single", "right_click"),
    ("drag", "drag"),
    ("scroll", "scroll"),
    ("type", "type"),
    ("hotkey", "key"),
    ("finished", "done"),
];

/// A start_box in one of the forms UI-TARS writes, and the point it stands for.
fn uitars_box(rng: &mut Rng, img: (u32, u32)) -> (String, [f64; 2]) {
    let (x, y) = (rng.value(img.0), rng.value(img.1));
    match rng.range(0, 4) {
        0 => (format!("({x},{y})"), [x as f64, y as f64]),
        1 => {
            let (x2, y2) = (
                (x + rng.range(0, 60)).min(img.0),
                (y + rng.range(0, 60)).min(img.1),
            );
            (
                format!("({x},{y},{x2},{y2})"),
                [(x + x2) as f64 / 2.0, (y + y2) as f64 / 2.0],
            )
        }
        2 => (format!("<point>{x} {y}</point>"), [x as f64, y as f64]),
        3 => (format!("[{x}, {y}]"), [x as f64, y as f64]),
        _ => (
            format!("<|box_start|>({x},{y})<|box_end|>"),
            [x as f64, y as f64],
        ),
    }
}

fn uitars_case(rng: &mut Rng, combo: &Combo, img: (u32, u32)) -> Case {
    let mut lines = Vec::new();
    let mut expect = Vec::new();
    for (verb, kind) in UITARS_VERBS {
        let (b1, p1) = uitars_box(rng, img);
        let line = match verb {
            "drag" => {
                let (b2, p2) = uitars_box(rng, img);
                expect.push((kind, vec![p1, p2], None));
                format!("drag(start_box='{b1}', end_box='{b2}')")
            }
            "scroll" => {
                expect.push((kind, vec![p1], None));
                format!("scroll(start_box='{b1}', direction='down')")
            }
            "type" => {
                expect.push((kind, vec![], None));
                "type(content='hello world')".to_string()
            }
            "hotkey" => {
                expect.push((kind, vec![], None));
                "hotkey(key='ctrl c')".to_string()
            }
            "finished" => {
                expect.push((kind, vec![], None));
                "finished(content='done')".to_string()
            }
            _ => {
                expect.push((kind, vec![p1], None));
                format!("{verb}(start_box='{b1}')")
            }
        };
        // the reference reads no square brackets and no box tokens
        let plain = line
            .replace("<|box_start|>", "")
            .replace("<|box_end|>", "")
            .replace('[', "(")
            .replace(']', ")");
        if let Some(e) = expect.last_mut() {
            e.2 = Some(format!("Thought: t\nAction: {plain}"));
        }
        lines.push(line);
    }
    Case {
        family: "ui-tars-1.5",
        combo: combo.clone(),
        reply: format!("Thought: t\nAction: {}", lines.join("\n\n")),
        expect,
    }
}

const QWEN_ACTIONS: [(&str, &str); 4] = [
    ("left_click", "click"),
    ("right_click", "right_click"),
    ("double_click", "double_click"),
    ("mouse_move", "move"),
];

fn qwen_case(rng: &mut Rng, family: &'static str, combo: &Combo, space: (u32, u32)) -> Case {
    let mut calls = Vec::new();
    let mut expect = Vec::new();
    for i in 0..8 {
        let (name, kind) = QWEN_ACTIONS[i % 4];
        let (x, y) = (rng.value(space.0), rng.value(space.1));
        let call =
            json!({"name": "computer_use", "arguments": {"action": name, "coordinate": [x, y]}});
        calls.push(format!("<tool_call>\n{call}\n</tool_call>"));
        expect.push((kind, vec![[x as f64, y as f64]], None));
    }
    Case {
        family,
        combo: combo.clone(),
        reply: calls.join("\n"),
        expect,
    }
}

/// `|franz - expected| <= 1` on each axis, with expected = P0 + fraction * L.
fn check_point(what: &str, got: &Value, frac: [f64; 2], area: [i64; 4]) {
    let got = [got[0].as_i64().unwrap(), got[1].as_i64().unwrap()];
    let want = [
        area[0] as f64 + frac[0] * area[2] as f64,
        area[1] as f64 + frac[1] * area[3] as f64,
    ];
    for i in 0..2 {
        assert!(
            (got[i] as f64 - want[i]).abs() <= 1.0,
            "{what}: franz {got:?}, reference {want:?} (area {area:?})"
        );
    }
}

#[test]
fn profiles_match_the_families_reference_code() {
    let started = std::time::Instant::now();
    let combos = combos(100, 0x5eed_f00d_1234_5678);
    let mut rng = Rng(0x0dd_ba11_cafe_f00d);
    // first the image sizes, which the replies' pixel values depend on
    let sizes: Vec<Vec<Seen>> = std::thread::scope(|s| {
        let handles: Vec<_> = combos
            .chunks(25)
            .map(|chunk| {
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|c| {
                            ["ui-tars-1.5", "qwen2.5-vl", "qwen3-vl"]
                                .map(|f| show_and_parse(f, c, None))
                                .into_iter()
                                .collect::<Vec<_>>()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let mut cases = Vec::new();
    for (combo, seen) in combos.iter().zip(&sizes) {
        cases.push(uitars_case(&mut rng, combo, seen[0].image));
        cases.push(qwen_case(&mut rng, "qwen2.5-vl", combo, seen[1].image));
        cases.push(qwen_case(&mut rng, "qwen3-vl", combo, (1000, 1000)));
    }
    let seen: Vec<Seen> = std::thread::scope(|s| {
        let handles: Vec<_> = cases
            .chunks(75)
            .map(|chunk| {
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|c| show_and_parse(c.family, &c.combo, Some(&c.reply)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    // one call of the reference code for every size and every UI-TARS action
    let size_req: Vec<Value> = cases
        .iter()
        .zip(&seen)
        .map(|(c, s)| json!([c.family, s.image.0, s.image.1]))
        .collect();
    let mut uitars_req = Vec::new();
    for (c, s) in cases.iter().zip(&seen) {
        for (_, _, text) in &c.expect {
            if let Some(t) = text {
                uitars_req.push(json!([t, s.image.0, s.image.1]));
            }
        }
    }
    let answer = common::oracle::oracle(
        "profiles.py",
        &json!({"sizes": size_req, "uitars": uitars_req}),
    );
    common::oracle::assert_fixed_points(
        &answer["fixed"],
        cases
            .iter()
            .zip(&seen)
            .map(|(c, s)| (c.family, &c.combo, s.image)),
    );
    let mut reference = answer["uitars"].as_array().unwrap().iter();
    let mut checked = 0;
    for (c, s) in cases.iter().zip(&seen) {
        assert_eq!(
            s.actions.len(),
            c.expect.len(),
            "{}: {:?}",
            c.reply,
            s.actions
        );
        for (action, (kind, points, text)) in s.actions.iter().zip(&c.expect) {
            assert_eq!(action["type"], json!(kind), "{}", c.reply);
            let fracs: Vec<[f64; 2]> = match text {
                Some(_) => {
                    let r = reference.next().unwrap();
                    let verb = UITARS_VERBS.iter().find(|(_, k)| k == kind).unwrap().0;
                    assert_eq!(r[0], json!(verb));
                    r[1].as_array()
                        .unwrap()
                        .iter()
                        .map(|p| [p[0].as_f64().unwrap(), p[1].as_f64().unwrap()])
                        .collect()
                }
                None => {
                    let of = if c.family == "qwen3-vl" {
                        (1000.0, 1000.0)
                    } else {
                        (s.image.0 as f64, s.image.1 as f64)
                    };
                    points.iter().map(|p| [p[0] / of.0, p[1] / of.1]).collect()
                }
            };
            let what = format!(
                "{} {:?} crop {} {action}",
                c.family,
                c.combo.screen,
                c.crop_text()
            );
            match fracs.as_slice() {
                [] => assert!(action.get("screen").is_none(), "{what}"),
                [p] => check_point(&what, &action["screen"], *p, s.area),
                [p, q] => {
                    check_point(&what, &action["screen"], *p, s.area);
                    check_point(&what, &action["screen_to"], *q, s.area);
                }
                _ => panic!("{what}: {fracs:?}"),
            }
            checked += 1;
        }
    }
    assert!(checked >= 2000, "only {checked} cases");
    assert!(reference.next().is_none());
    eprintln!("{checked} cases in {:?}", started.elapsed());
}

impl Case {
    fn crop_text(&self) -> &str {
        &self.combo.crop
    }
}
