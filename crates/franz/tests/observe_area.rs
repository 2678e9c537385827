//! `observe_area` end to end on a private Xvfb (docs/coordinates.md, "The observed area"):
//! with `window` the model is sent the focused window (a witness window at an offset, smaller
//! than the screen) at the profile's size, told so, and a click it writes in the image's
//! coordinates lands exactly on the window's pixel, in a 0..1000 profile and a pixel one; when
//! the focus moves between turns the next turn maps through the new window, while `touched`
//! stays on the window the last click touched. `screen` sends the whole screen, as before.

#![cfg(target_os = "linux")]

use crate::common;

use franz_core::model::responder::{self, Intent, Style};
use franz_core::model::{ScriptedServer, scripted_server::Script};
use franz_desktop::PixelRect;
use franz_desktop::witness::{Witness, WitnessKind};
use serde_json::Value;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const SCREEN: (u32, u32) = (1280, 800);
/// The window the run starts focused on, and the one the focus may move to.
const FIRST: PixelRect = PixelRect::new(200, 150, 640, 480);
const SECOND: PixelRect = PixelRect::new(900, 260, 320, 420);

/// The model's clicks, turn by turn, as fractions of the image it is sent.
const CLICKS: [(f64, f64); 2] = [(0.3, 0.6), (0.75, 0.2)];

/// The screen pixel a value `v` of a space of extent `s` lands on, on an axis at `p0` of `len`
/// pixels (docs/coordinates.md, "Exact targets"): `p0 + min(len - 1, round(v * len / s))`.
fn exact_pixel(v: f64, s: f64, p0: i32, len: u32) -> i32 {
    let at = (v * f64::from(len) / s + 0.5 + 1e-7).floor() as i32;
    p0 + at.min(len as i32 - 1)
}

/// The size of the image each request with an image carried, in order.
fn image_sizes(server: &ScriptedServer) -> Vec<(u32, u32)> {
    server
        .requests()
        .iter()
        .flat_map(|r| common::data_url_pngs(&r.body).into_iter().last())
        .map(|png| image::load_from_memory(&png).map(|i| (i.width(), i.height())))
        .map(|r| r.expect("a PNG that decodes"))
        .collect()
}

/// Every observation event's `area` in `dir`'s event log.
fn observed_areas(dir: &Path) -> Vec<Value> {
    common::events_in(dir)
        .into_iter()
        .filter(|e| e["event"] == "observation")
        .map(|e| e["area"].clone())
        .collect()
}

fn rect_of(area: &Value) -> PixelRect {
    let n = |k: &str| area["rect"][k].as_i64().unwrap_or(-1);
    PixelRect::new(
        n("x") as i32,
        n("y") as i32,
        n("width") as u32,
        n("height") as u32,
    )
}

/// The only run directory under `runs`.
fn run_dir(runs: &Path) -> std::path::PathBuf {
    let dirs: Vec<_> = std::fs::read_dir(runs)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs[0].clone()
}

/// A script that plays `plan` as the responder does and calls `before_reply` with each
/// request's number (1-based) before answering it: a test moves the focus there, after the
/// turn observed and before it acts.
fn hooked(plan: Vec<Intent>, before_reply: impl Fn(usize) + Send + Sync + 'static) -> Script {
    let next = Mutex::new(0usize);
    Script::func(move |req| {
        let mut n = next.lock().unwrap();
        *n += 1;
        before_reply(*n);
        let intent = plan.get(*n - 1).or(plan.last()).unwrap();
        responder::answer(req.json.as_ref().unwrap(), intent, Style::Asked).into()
    })
}

/// `franz run` on `display` with `profile`'s model and `--observe-area area`.
fn run(display: &str, server: &ScriptedServer, runs: &Path, profile: &str, area: &str) {
    let mut cmd = common::franz_run(&server.url(), runs);
    let out = common::no_franz_env(&mut cmd)
        .env("DISPLAY", display)
        .arg("Click the points the test asks for, then say you did.")
        .args(["--model", common::model_id(profile)])
        .args(["--motion", "fast", "--max-steps", "4"])
        .args(["--observe-area", area])
        .output()
        .expect("run franz");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The left presses `witness` saw, waiting for `n` of them.
fn presses(witness: &Witness, n: usize) -> Vec<(i32, i32)> {
    let (_, events) = witness.wait_for(
        |e| e.iter().filter(|e| e.is(WitnessKind::ButtonPress)).count() >= n,
        Duration::from_secs(10),
    );
    events
        .iter()
        .filter(|e| e.is(WitnessKind::ButtonPress))
        .map(|e| (e.at.x, e.at.y))
        .collect()
}

/// Where the model's click at `(fx, fy)` of an image of `size` lands through `rect`, in
/// `profile`'s space: computed from the value the responder writes (`Space::point`).
fn landing(profile: &str, (fx, fy): (f64, f64), size: (u32, u32), rect: PixelRect) -> (i32, i32) {
    let (sw, sh) = match profile {
        "qwen2.5-vl" => (f64::from(size.0), f64::from(size.1)),
        _ => (1000.0, 1000.0),
    };
    let space = match profile {
        "qwen2.5-vl" => responder::Space::Pixels(size.0, size.1),
        _ => responder::Space::Norm1000,
    };
    let (vx, vy) = space.point(fx, fy);
    (
        exact_pixel(vx, sw, rect.x, rect.width),
        exact_pixel(vy, sh, rect.y, rect.height),
    )
}

fn size_for(profile: &str, rect: PixelRect) -> (u32, u32) {
    let (p, _) = franz_core::profile::for_model(common::model_id(profile)).unwrap();
    let s = p.size_rule(0).resolve(rect.width, rect.height);
    (s.width, s.height)
}

#[test]
fn a_window_run_sends_the_window_and_its_click_lands_on_the_window_pixel() {
    let sb = common::xvfb(SCREEN.0, SCREEN.1);
    // the second first: the witness opened last has the focus
    let _second = Witness::open_window(sb.display(), SECOND).unwrap();
    let first = Witness::open_window(sb.display(), FIRST).unwrap();
    for profile in ["qwen3-vl", "qwen2.5-vl"] {
        first.clear();
        let plan = vec![
            Intent::Click {
                fx: CLICKS[0].0,
                fy: CLICKS[0].1,
            },
            Intent::Finish("I clicked the point.".into()),
        ];
        let server = ScriptedServer::start(hooked(plan, |_| {})).unwrap();
        let runs = tempfile::tempdir().unwrap();
        run(sb.display(), &server, runs.path(), profile, "window");

        let areas = observed_areas(&run_dir(runs.path()));
        let sizes = image_sizes(&server);
        let want = size_for(profile, FIRST);
        assert_eq!(
            sizes[0], want,
            "{profile}: the window at the profile's size: {areas:?}"
        );
        let body = &server.requests()[0].body;
        assert!(
            body.contains(r#"You see the window \"franz witness\" (application FranzWitness), not the whole screen."#),
            "{profile}: the model is not told what it sees"
        );
        let got = presses(&first, 1);
        let at = landing(profile, CLICKS[0], sizes[0], FIRST);
        assert_eq!(got.first(), Some(&at), "{profile}: image {:?}", sizes[0]);
        assert_eq!(rect_of(&areas[0]), FIRST, "{}", areas[0]);
        assert_eq!(areas[0]["window"]["title"], "franz witness");
    }
}

#[test]
fn screen_sends_the_whole_screen_and_says_nothing_of_windows() {
    let sb = common::xvfb(SCREEN.0, SCREEN.1);
    let first = Witness::open_window(sb.display(), FIRST).unwrap();
    let plan = vec![
        Intent::Click { fx: 0.3, fy: 0.35 },
        Intent::Finish("I clicked the point.".into()),
    ];
    let server = ScriptedServer::start(hooked(plan, |_| {})).unwrap();
    let runs = tempfile::tempdir().unwrap();
    run(sb.display(), &server, runs.path(), "qwen3-vl", "screen");
    let whole = PixelRect::new(0, 0, SCREEN.0, SCREEN.1);
    assert_eq!(image_sizes(&server)[0], size_for("qwen3-vl", whole));
    let body = &server.requests()[0].body;
    assert!(!body.contains("You see the window") && !body.contains("You see the whole screen"));
    let at = landing("qwen3-vl", (0.3, 0.35), (0, 0), whole);
    assert_eq!(presses(&first, 1).first(), Some(&at));
    let areas = observed_areas(&run_dir(runs.path()));
    assert_eq!(rect_of(&areas[0]), whole);
    assert!(areas[0].get("window").is_none(), "{}", areas[0]);
}

/// What a run with two clicks showed and did: the rectangles its turns observed, the sizes of
/// the images sent, and the clicks each witness saw.
type Seen = (
    Vec<PixelRect>,
    Vec<(u32, u32)>,
    Vec<(i32, i32)>,
    Vec<(i32, i32)>,
);

/// Two clicks, the focus moved to the second window while the model thinks about the first;
/// waits for `want` presses in the first and the second window.
fn focus_moves(area: &str, want: (usize, usize)) -> Seen {
    let sb = common::xvfb(SCREEN.0, SCREEN.1);
    let second = Arc::new(Witness::open_window(sb.display(), SECOND).unwrap());
    let first = Witness::open_window(sb.display(), FIRST).unwrap();
    let plan = vec![
        Intent::Click {
            fx: CLICKS[0].0,
            fy: CLICKS[0].1,
        },
        Intent::Click {
            fx: CLICKS[1].0,
            fy: CLICKS[1].1,
        },
        Intent::Finish("I clicked both points.".into()),
    ];
    let to_focus = second.clone();
    let server = ScriptedServer::start(hooked(plan, move |n| {
        if n == 1 {
            to_focus.focus().unwrap();
        }
    }))
    .unwrap();
    let runs = tempfile::tempdir().unwrap();
    run(sb.display(), &server, runs.path(), "qwen3-vl", area);
    let rects = observed_areas(&run_dir(runs.path()))
        .iter()
        .map(rect_of)
        .collect();
    let sizes = image_sizes(&server);
    let in_first = presses(&first, want.0);
    let in_second = presses(&second, want.1);
    (rects, sizes, in_first, in_second)
}

#[test]
fn when_the_focus_moves_the_next_turn_maps_through_the_new_window() {
    let (rects, sizes, in_first, in_second) = focus_moves("window", (1, 1));
    assert_eq!(rects[..2], [FIRST, SECOND]);
    assert_eq!(sizes[1], size_for("qwen3-vl", SECOND));
    let first_click = landing("qwen3-vl", CLICKS[0], sizes[0], FIRST);
    let second_click = landing("qwen3-vl", CLICKS[1], sizes[1], SECOND);
    assert_eq!(in_first, vec![first_click]);
    assert_eq!(in_second, vec![second_click]);
}

#[test]
fn touched_stays_on_the_window_the_last_click_touched() {
    let (rects, sizes, in_first, in_second) = focus_moves("touched", (2, 0));
    assert_eq!(
        rects[..2],
        [FIRST, FIRST],
        "the focus moved, the touch did not"
    );
    assert_eq!(sizes[1], size_for("qwen3-vl", FIRST));
    let clicks: Vec<_> = CLICKS
        .iter()
        .zip(&sizes)
        .map(|(c, s)| landing("qwen3-vl", *c, *s, FIRST))
        .collect();
    assert_eq!(in_first, clicks);
    assert!(in_second.is_empty(), "{in_second:?}");
}

/// The number before `word` in `line` (`... 300 image tokens ...`).
fn number_before(line: &str, word: &str) -> u64 {
    let head = line.split(word).next().unwrap_or_default();
    let n = head.split_whitespace().last().unwrap_or_default();
    n.parse()
        .unwrap_or_else(|_| panic!("no number before {word:?} in {line}"))
}

/// `franz bench observe` prints, for the whole screen and for the focused window (a program
/// the window manager focused), what each showed, its bytes, image tokens and encode time.
#[test]
fn bench_observe_prints_each_area() {
    let title = "bench-area-window";
    let launch = format!("xmessage -title {title} -geometry 300x200+40+60 the window");
    let stdout = common::bench_observe(&["--wm", "--launch", &launch]);
    let line = |name: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with(&format!("area {name:<6} ")))
            .unwrap_or_else(|| panic!("no {name} line in:\n{stdout}"))
            .to_string()
    };
    let (screen, window) = (line("screen"), line("window"));
    assert!(
        screen.contains("the working area 640x480 px: 640x480 image, median "),
        "{screen}"
    );
    assert!(window.contains(&format!("window {title:?} ")), "{window}");
    for l in [&screen, &window] {
        assert!(
            l.contains(" bytes per turn, ") && l.contains("encode median "),
            "{l}"
        );
    }
    // the window is a part of the screen: a smaller image, fewer image tokens
    let tokens = |l: &str| number_before(l, "image tokens");
    assert!(tokens(&window) < tokens(&screen), "{window}\n{screen}");
}

/// A window manager is ready once it answers a request, not once it announces itself: openbox
/// sets `_NET_SUPPORTING_WM_CHECK` before its event loop runs, and a program mapped in between
/// was never focused (the bench above then measured the whole screen). A manager that
/// announces itself as EWMH says, listing `_NET_REQUEST_FRAME_EXTENTS`, but never answers it
/// (`fixtures/wm/silent_wm.py`, as `openbox` on `PATH`) makes `--wm` an error that names it.
#[test]
fn a_window_manager_that_announces_itself_but_never_answers_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let silent = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wm/silent_wm.py");
    let fake = dir.path().join("openbox");
    let python = common::oracle::python();
    let script = format!(
        "#!/bin/sh\nexec '{}' '{}'\n",
        python.display(),
        silent.display()
    );
    std::fs::write(&fake, script).unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        dir.path().display(),
        std::env::var("PATH").unwrap()
    );
    let mut cmd = common::franz_command();
    common::no_franz_env(&mut cmd);
    let out = cmd
        .env_remove("DISPLAY")
        .env("PATH", path)
        .args([
            "--sandbox=320x200",
            "--wm",
            "bench",
            "observe",
            "--turns",
            "1",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("cannot start the window manager")
            && stderr.contains("openbox announced itself but did not answer"),
        "{stderr}"
    );
}
