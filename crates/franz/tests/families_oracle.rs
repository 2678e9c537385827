//! The late-2026 families' profiles against each family's own mapping code (docs/coordinates.md,
//! "Where each family's convention comes from"), driving the real `franz` binary on random
//! screens from 800x600 to 3840x2160 and random crops:
//!
//! - the image each family is sent (`franz profiles show`, `franz parse --screen`) is one the
//!   family's own resize leaves unchanged (tests/oracle/families.py runs the copied code);
//! - each reply, in the family's own action format, parses to the intended actions, and each
//!   point lands exactly on `P0 + min(L - 1, round(v * L / S))` (S: 999, 1000, 1 or the
//!   image's side; a grounding model's reply is one point, OS-Atlas's a box around it), which is within half a pixel of the source's `v * L / S` (one pixel at the last
//!   pixel, where franz keeps the point on the screen) and within the source's own rounding of
//!   the pixel its code computes (`int()` truncates: one pixel; hud's GLM tool maps onto
//!   `L - 1`: two);
//! - the fixture replies copied from each source (tests/fixtures/families/README.md) parse to
//!   the actions their sources meant.

use crate::common;

use common::oracle::{Combo, Rng, Seen, combos, show_and_parse};
use serde_json::{Value, json};

/// The space a family's replies write points in.
#[derive(Clone, Copy)]
enum Space {
    /// 0..=S on each axis (1000 or 999).
    Norm(u32),
    /// Pixels of the image sent.
    Pixels,
    /// Fractions 0..1, written with four decimals (k / 10000).
    Relative,
}

/// A family's reply writer: (verb, x, y, image size) -> the reply and the action it means.
type Writer = fn(usize, u32, u32, (u32, u32)) -> (String, &'static str);

/// One family: its profile, its space, how far its own code may lie from franz's pixel, how
/// its replies write a pointer action, and how many actions one reply holds (a grounding
/// model answers one point).
struct Family {
    profile: &'static str,
    space: Space,
    tolerance: f64,
    write: Writer,
    per_reply: usize,
}

fn qwen_call(verb: usize, x: u32, y: u32, _: (u32, u32)) -> (String, &'static str) {
    let (name, kind) = [
        ("left_click", "click"),
        ("right_click", "right_click"),
        ("double_click", "double_click"),
        ("mouse_move", "move"),
    ][verb % 4];
    let call = json!({"name": "computer_use", "arguments": {"action": name, "coordinate": [x, y]}});
    (format!("<tool_call>\n{call}\n</tool_call>"), kind)
}

/// MAI-UI's `mobile_use` (src/prompt.py: click, long_press).
fn mobile_call(_verb: usize, x: u32, y: u32, _: (u32, u32)) -> (String, &'static str) {
    let call =
        json!({"name": "mobile_use", "arguments": {"action": "click", "coordinate": [x, y]}});
    (
        format!("<thinking>\nthe target\n</thinking>\n<tool_call>\n{call}\n</tool_call>"),
        "click",
    )
}

/// GLM's PC actions (zai-org/GLM-V examples/gui-agent/glm-45v/agent.md).
fn glm_call(verb: usize, x: u32, y: u32, _: (u32, u32)) -> (String, &'static str) {
    let (name, kind) = [
        ("left_click", "click"),
        ("right_click", "right_click"),
        ("left_double_click", "double_click"),
        ("hover", "move"),
    ][verb % 4];
    (
        format!("{name}(start_box='[{x},{y}]', element_info='')"),
        kind,
    )
}

/// OpenCUA's pyautogui lines (its agent keeps the lines starting with `pyautogui.`).
fn pyautogui_call(verb: usize, x: u32, y: u32, _: (u32, u32)) -> (String, &'static str) {
    let (name, kind) = [
        ("click", "click"),
        ("rightClick", "right_click"),
        ("doubleClick", "double_click"),
        ("moveTo", "move"),
    ][verb % 4];
    (format!("pyautogui.{name}(x={x}, y={y})"), kind)
}

/// Holo3's structured output (H Company's agent-loop docs): one object a step.
fn holo3_call(verb: usize, x: u32, y: u32, _: (u32, u32)) -> (String, &'static str) {
    let (name, kind) = [
        ("click", "click"),
        ("right_click", "right_click"),
        ("double_click", "double_click"),
        ("hover", "move"),
    ][verb % 4];
    let step = json!({"note": null, "thought": "the target", "tool_call": {"tool_name": name, "element": "the target", "x": x, "y": y}});
    (step.to_string(), kind)
}

/// Holo1.5's grounding answer (trycua/cua loops/holo.py's schema).
fn holo15_answer(_verb: usize, x: u32, y: u32, _: (u32, u32)) -> (String, &'static str) {
    let answer = json!({"action": "click_absolute", "x": x, "y": y});
    (answer.to_string(), "click")
}

/// UI-Venus-1.5's action (models/navigation/utils.py's action space, its Output Format).
fn venus_call(verb: usize, x: u32, y: u32, _: (u32, u32)) -> (String, &'static str) {
    let (name, kind) = [
        ("Click", "click"),
        ("DoubleClick", "double_click"),
        ("Hover", "move"),
        ("LongPress", "long_press"),
    ][verb % 4];
    (
        format!(
            "<think>the target</think>\n<action>{name}(box=({x},{y}))</action>\n<conclusion>done</conclusion>"
        ),
        kind,
    )
}

/// GTA1's and UGround's answer: `(x,y)` / `(x, y)`.
fn paren_point(verb: usize, x: u32, y: u32, _: (u32, u32)) -> (String, &'static str) {
    let gap = if verb.is_multiple_of(2) { "" } else { " " };
    (format!("({x},{gap}{y})"), "click")
}

/// OS-Atlas's box, centred on the point (README.md's answer form).
fn atlas_box(_verb: usize, x: u32, y: u32, s: (u32, u32)) -> (String, &'static str) {
    let d = x.min(y).min(s.0 - x).min(s.1 - y).min(7);
    if d == 0 {
        // at an edge no box is centred on the point: its point form ("a center point")
        return (format!("<|box_start|>({x},{y})<|box_end|>"), "click");
    }
    let (x1, y1, x2, y2) = (x - d, y - d, x + d, y + d);
    (
        format!(
            "<|object_ref_start|>the target<|object_ref_end|><|box_start|>({x1},{y1}),({x2},{y2})<|box_end|><|im_end|>"
        ),
        "click",
    )
}

/// ShowUI's fractions (QUICK_START.md: `[0.73, 0.21]`).
fn showui_point(_verb: usize, x: u32, y: u32, _: (u32, u32)) -> (String, &'static str) {
    let f = |k: u32| format!("{}", k as f64 / 10000.0);
    (format!("[{}, {}]", f(x), f(y)), "click")
}

/// OpenCUA-A3B's and -Qwen2's pyautogui lines, fractions of the screen.
fn pyautogui_fraction(verb: usize, x: u32, y: u32, _: (u32, u32)) -> (String, &'static str) {
    let (name, kind) = [("click", "click"), ("doubleClick", "double_click")][verb % 2];
    let f = |k: u32| format!("{}", k as f64 / 10000.0);
    (format!("pyautogui.{name}(x={}, y={})", f(x), f(y)), kind)
}

/// MAI-UI's grounding answer (src/prompt.py, MAI_MOBILE_SYS_PROMPT_GROUNDING).
fn mai_grounding(_verb: usize, x: u32, y: u32, _: (u32, u32)) -> (String, &'static str) {
    (
        format!(
            "<grounding_think>the target</grounding_think>\n<answer>\n{{\"coordinate\": [{x},{y}]}}\n</answer>"
        ),
        "click",
    )
}

/// Gemini's computer-use function calls, as a Hermes-style server writes them into text.
fn gemini_call(verb: usize, x: u32, y: u32, _: (u32, u32)) -> (String, &'static str) {
    let (name, kind) = [("click_at", "click"), ("hover_at", "move")][verb % 2];
    let call = json!({"name": name, "arguments": {"x": x, "y": y}});
    (format!("<tool_call>\n{call}\n</tool_call>"), kind)
}

const fn family(
    profile: &'static str,
    space: Space,
    tolerance: f64,
    write: Writer,
    per_reply: usize,
) -> Family {
    Family {
        profile,
        space,
        tolerance,
        write,
        per_reply,
    }
}

const FAMILIES: [Family; 16] = [
    family("gui-owl-1.5", Space::Norm(1000), 1.0, qwen_call, 6),
    family("evocua", Space::Norm(999), 1.0, qwen_call, 6),
    family("mai-ui", Space::Norm(999), 1.0, mobile_call, 6),
    family("glm-4.6v", Space::Norm(999), 2.0, glm_call, 6),
    family("fara-7b", Space::Pixels, 1.0, qwen_call, 6),
    family("opencua", Space::Pixels, 1.0, pyautogui_call, 6),
    family("holo3", Space::Norm(1000), 1.0, holo3_call, 6),
    family("ui-venus-1.5", Space::Norm(1000), 1.0, venus_call, 6),
    family("gta1", Space::Pixels, 1.0, paren_point, 1),
    family("holo1.5", Space::Pixels, 1.0, holo15_answer, 6),
    family("os-atlas", Space::Norm(1000), 1.0, atlas_box, 1),
    family("uground", Space::Norm(1000), 1.0, paren_point, 1),
    family("showui", Space::Relative, 1.0, showui_point, 1),
    family("gemini-computer", Space::Norm(1000), 1.0, gemini_call, 6),
    family(
        "opencua-relative",
        Space::Relative,
        1.0,
        pyautogui_fraction,
        6,
    ),
    family("mai-ui", Space::Norm(999), 1.0, mai_grounding, 1),
];

/// One case: a family's reply on one screen and crop, and the points it writes.
struct Case {
    family: &'static Family,
    combo: Combo,
    reply: String,
    expect: Vec<(&'static str, [u32; 2])>,
}

/// The extent of a family's space for an image: the value `S` its numbers are divided by.
fn extent(space: Space, image: (u32, u32)) -> (u32, u32) {
    match space {
        Space::Norm(m) => (m, m),
        Space::Pixels => image,
        Space::Relative => (10000, 10000),
    }
}

fn case(rng: &mut Rng, family: &'static Family, combo: &Combo, image: (u32, u32)) -> Case {
    let space = extent(family.space, image);
    let mut lines = Vec::new();
    let mut expect = Vec::new();
    for verb in 0..family.per_reply {
        let (x, y) = (rng.value(space.0), rng.value(space.1));
        let (line, kind) = (family.write)(verb, x, y, space);
        lines.push(line);
        expect.push((kind, [x, y]));
    }
    Case {
        family,
        combo: combo.clone(),
        reply: lines.join("\n"),
        expect,
    }
}

/// franz's rule on one axis: `P0 + min(L - 1, round(v * L / S))`, half-up, in integers.
fn franz_axis(v: u32, s: u32, p0: i64, len: i64) -> i64 {
    let t = (2 * v as i64 * len + s as i64) / (2 * s as i64);
    p0 + t.min(len - 1)
}

/// Every case's action points: franz's pixel, exactly; within half a pixel of `v * L / S` (a
/// pixel at the last one); within the family's tolerance of its own code's pixel `source`.
fn check(c: &Case, s: &Seen, sources: &mut std::slice::Iter<'_, Value>) -> usize {
    assert_eq!(
        s.actions.len(),
        c.expect.len(),
        "{}: {:?}",
        c.reply,
        s.actions
    );
    let of = extent(c.family.space, s.image);
    for (action, (kind, v)) in s.actions.iter().zip(&c.expect) {
        let what = format!(
            "{} {:?} crop {} {action}",
            c.family.profile, c.combo.screen, c.combo.crop
        );
        assert_eq!(action["type"], json!(kind), "{what}");
        let got = [0, 1].map(|i| action["screen"][i].as_i64().unwrap());
        let src = sources.next().unwrap();
        for i in 0..2 {
            let (p0, len, side) = (s.area[i], s.area[i + 2], [of.0, of.1][i]);
            assert_eq!(got[i], franz_axis(v[i], side, p0, len), "{what}");
            let real = p0 as f64 + v[i] as f64 * len as f64 / side as f64;
            let near = if real > (p0 + len) as f64 - 1.0 {
                1.0
            } else {
                0.5
            };
            assert!(
                (got[i] as f64 - real).abs() <= near + 1e-6,
                "{what}: {real}"
            );
            let own = p0 as f64 + src[i].as_f64().unwrap();
            assert!(
                (got[i] as f64 - own).abs() <= c.family.tolerance + 1e-6,
                "{what}: the family's own code gives {own}"
            );
        }
    }
    c.expect.len()
}

fn in_threads<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    std::thread::scope(|sc| {
        let f = &f;
        let handles: Vec<_> = items
            .chunks(items.len().div_ceil(4).max(1))
            .map(|chunk| sc.spawn(move || chunk.iter().map(f).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    })
}

#[test]
fn new_profiles_match_their_families_own_mapping_code() {
    let started = std::time::Instant::now();
    let combos = combos(24, 0x5eed_fa31_11e5_2026);
    let pairs: Vec<(&'static Family, Combo)> = combos
        .iter()
        .flat_map(|c| FAMILIES.iter().map(move |f| (f, c.clone())))
        .collect();
    let images = in_threads(&pairs, |(f, c)| show_and_parse(f.profile, c, None).image);
    let mut rng = Rng(0x0dd_f00d_2026);
    let cases: Vec<Case> = pairs
        .iter()
        .zip(&images)
        .map(|((f, c), image)| case(&mut rng, f, c, *image))
        .collect();
    let seen = in_threads(&cases, |c| {
        show_and_parse(c.family.profile, &c.combo, Some(&c.reply))
    });
    let sizes: Vec<Value> = cases
        .iter()
        .zip(&seen)
        .map(|(c, s)| json!([c.family.profile, s.image.0, s.image.1]))
        .collect();
    let points: Vec<Value> = cases
        .iter()
        .zip(&seen)
        .flat_map(|(c, s)| {
            c.expect.iter().map(move |(_, v)| {
                json!([
                    c.family.profile,
                    v[0],
                    v[1],
                    s.area[2],
                    s.area[3],
                    s.image.0,
                    s.image.1
                ])
            })
        })
        .collect();
    let answer = common::oracle::oracle("families.py", &json!({"sizes": sizes, "points": points}));
    common::oracle::assert_fixed_points(
        &answer["fixed"],
        cases
            .iter()
            .zip(&seen)
            .map(|(c, s)| (c.family.profile, &c.combo, s.image)),
    );
    let mut sources = answer["points"].as_array().unwrap().iter();
    let checked: usize = cases
        .iter()
        .zip(&seen)
        .map(|(c, s)| check(c, s, &mut sources))
        .sum();
    assert!(sources.next().is_none());
    assert!(checked >= 1400, "only {checked} points");
    eprintln!("{checked} points in {:?}", started.elapsed());
}

/// `franz parse` of a fixture file under `args`.
fn parse_fixture(file: &str, args: &[&str]) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/families")
        .join(file);
    let reply = std::fs::read_to_string(&path).unwrap();
    let mut all = vec!["parse"];
    all.extend_from_slice(args);
    let v = common::oracle::franz(&all, &reply);
    assert_eq!(v["errors"], json!([]), "{file}: {v}");
    v
}

#[test]
fn replies_copied_from_each_source_parse_to_the_actions_they_meant() {
    // MAI-UI's own test history (tests/output_messages/...single_history.json): a click at the
    // centre of its 0..999 space
    let v = parse_fixture(
        "mai-ui.txt",
        &["--profile", "mai-ui", "--screen", "1920x1080"],
    );
    assert_eq!(v["norm_max"], 999);
    assert_eq!(v["actions"][0]["type"], "click");
    assert_eq!(
        v["actions"][0]["exact"],
        json!({"at": [499, 499], "of": [999, 999]})
    );
    assert_eq!(v["actions"][0]["screen"], json!([959, 539]));
    // GLM-V's agent docs: an explanation, then left_click(start_box='[376,465]')
    let v = parse_fixture(
        "glm-4.6v.txt",
        &["--profile", "glm-4.6v", "--screen", "1920x1080"],
    );
    assert_eq!(v["norm_max"], 999);
    assert_eq!(v["actions"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["actions"][0]["type"], "click");
    assert_eq!(
        v["actions"][0]["exact"],
        json!({"at": [376, 465], "of": [999, 999]})
    );
    assert!(
        v["text"]
            .as_str()
            .unwrap()
            .contains("Google Shopping homepage"),
        "{v}"
    );
    // Fara-7B's README log: left_click [1074, 37] on its 1440x900 browser, which it reports
    // as "I clicked at coordinates (1083.0252100840337, 37.16517857142858)"
    let v = parse_fixture(
        "fara-7b.txt",
        &["--profile", "fara-7b", "--screen", "1440x900"],
    );
    assert_eq!(v["image"], json!({"width": 1428, "height": 896}));
    assert_eq!(v["norm_max"], Value::Null);
    assert_eq!(v["actions"][0]["type"], "click");
    assert_eq!(v["actions"][0]["screen"], json!([1083, 37]));
    // OpenCUA's AgentNet trajectory (data/cot-generate/gen_cot_example/raw_example.jsonl),
    // fractions 0..1 as its Qwen2 and A3B variants write them: --coords relative
    let v = parse_fixture(
        "opencua-relative.txt",
        &[
            "--profile",
            "opencua",
            "--coords",
            "relative",
            "--screen",
            "1920x1080",
        ],
    );
    assert_eq!(v["norm_max"], 1);
    assert_eq!(v["actions"][0]["type"], "click");
    assert_eq!(
        v["actions"][0]["exact"],
        json!({"at": [0.9722, 0.9701], "of": [1, 1]})
    );
    assert_eq!(v["actions"][0]["screen"], json!([1867, 1048]));
    // the same under the variants' own profile, picked from their ids
    let v = parse_fixture(
        "opencua-relative.txt",
        &["--profile", "opencua-relative", "--screen", "1920x1080"],
    );
    assert_eq!(v["norm_max"], 1);
    assert_eq!(v["actions"][0]["screen"], json!([1867, 1048]));
    // Holo3's agent-loop docs: the step's note and thought are its words, the flat tool_call
    // a click at (932, 880) of 0..1000
    let v = parse_fixture(
        "holo3.txt",
        &["--profile", "holo3", "--screen", "1920x1080"],
    );
    assert_eq!(v["actions"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["actions"][0]["type"], "click");
    assert_eq!(
        v["actions"][0]["exact"],
        json!({"at": [932, 880], "of": [1000, 1000]})
    );
    assert_eq!(v["actions"][0]["screen"], json!([1789, 950]));
    assert!(v["text"].as_str().unwrap().contains("/orders/8421"), "{v}");
    // UI-Venus-1.5's Output Format with the box its policy cites
    let v = parse_fixture(
        "ui-venus-1.5.txt",
        &["--profile", "ui-venus-1.5", "--screen", "1920x1080"],
    );
    assert_eq!(v["actions"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["actions"][0]["type"], "click");
    assert_eq!(
        v["actions"][0]["exact"],
        json!({"at": [868, 487], "of": [1000, 1000]})
    );
    assert_eq!(v["actions"][0]["screen"], json!([1667, 526]));
    // OS-Atlas's README: the box (576,12),(592,42) of 0..1000, clicked at its centre
    let v = parse_fixture(
        "os-atlas.txt",
        &["--profile", "os-atlas", "--screen", "1920x1080"],
    );
    assert_eq!(v["actions"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["actions"][0]["type"], "click");
    assert_eq!(
        v["actions"][0]["exact"],
        json!({"at": [584, 27], "of": [1000, 1000]})
    );
    assert_eq!(v["actions"][0]["screen"], json!([1121, 29]));
    // ShowUI's QUICK_START: [0.73, 0.21], fractions of the screenshot
    let v = parse_fixture(
        "showui.txt",
        &["--profile", "showui", "--screen", "1920x1080"],
    );
    assert_eq!(v["norm_max"], 1);
    assert_eq!(v["actions"][0]["type"], "click");
    assert_eq!(
        v["actions"][0]["exact"],
        json!({"at": [0.73, 0.21], "of": [1, 1]})
    );
    assert_eq!(v["actions"][0]["screen"], json!([1402, 227]));
}

#[test]
fn profiles_show_and_parse_print_the_normalized_maximum() {
    for (name, max) in [
        ("evocua", json!(999)),
        ("mai-ui", json!(999)),
        ("glm-4.6v", json!(999)),
        ("gui-owl-1.5", json!(1000)),
        ("qwen3-vl", json!(1000)),
        ("fara-7b", Value::Null),
        ("franz", Value::Null),
    ] {
        let shown = common::oracle::franz(&["profiles", "show", name], "");
        assert_eq!(shown["norm_max"], max, "{name}: {shown}");
        let parsed =
            common::oracle::franz(&["parse", "--profile", name, "--screen", "1920x1080"], "");
        let want = if name == "franz" { json!(1000) } else { max };
        assert_eq!(parsed["norm_max"], want, "{name}: {parsed}");
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_franz"))
        .arg("profiles")
        .output()
        .unwrap();
    let list = String::from_utf8_lossy(&out.stdout);
    let line = list.lines().find(|l| l.starts_with("evocua ")).unwrap();
    assert!(line.contains("norm1000 0..999"), "{list}");
}
