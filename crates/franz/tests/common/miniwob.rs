//! The MiniWoB++ oracle model of tests/bench_miniwob.rs: a scripted OpenAI-compatible server
//! that solves deterministic MiniWoB++ tasks by reading the task page's DOM over Chromium's
//! DevTools protocol (the browser `franz bench tasks --suite miniwob` started for the episode),
//! and answers as a model family would: in the family's grammar (the profile's dialect,
//! crates/core/src/bench_task/render.rs) and in its coordinate space (the profile's `coords`)
//! of the image franz sent, with franz's crop. It knows nothing of franz's own mapping: the
//! target is the element's centre in screen pixels, turned into the image's space as the
//! family reads images (docs/coordinates.md).

#![allow(dead_code)]

use franz_core::action::{Action, ActionKind};
use franz_core::bench_task::render::{Grammar, Renderer, Space};
use franz_core::model::scripted_server::{RecordedRequest, Script, ScriptedServer, Step};
use franz_core::profile::Coords;
use serde_json::{Value, json};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The deterministic tasks the oracle solves (its page script, `miniwob_oracle.js`).
pub const TASKS: [&str; 17] = [
    "click-button",
    "click-button-sequence",
    "click-checkboxes",
    "click-collapsible",
    "click-dialog",
    "click-link",
    "click-option",
    "click-tab",
    "click-test",
    "click-test-2",
    "drag-box",
    "enter-password",
    "enter-text",
    "enter-text-dynamic",
    "focus-text",
    "login-user",
    "use-slider",
];

pub use super::oracle::python;

/// The `miniwob` package in the test venv (scripts/requirements-test.txt pins it).
pub fn package() -> PathBuf {
    let out = std::process::Command::new(python())
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['purelib'])",
        ])
        .output()
        .expect("run the test venv's python");
    let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).join("miniwob");
    assert!(
        dir.join("html/miniwob/click-button.html").is_file(),
        "{} has no MiniWoB++ pages: run scripts/deps.sh (scripts/requirements-test.txt pins miniwob)",
        dir.display()
    );
    dir
}

/// What the oracle did, for the test's messages: one line per action it aimed, with the
/// element's box and where the page saw the previous click land, both in screen pixels.
#[derive(Default)]
pub struct Log {
    pub lines: Vec<String>,
    /// Every size of image franz sent.
    pub images: Vec<(u32, u32)>,
}

pub struct Oracle {
    pub server: ScriptedServer,
    pub log: Arc<Mutex<Log>>,
}

/// Starts the oracle for the bench writing into `out`, answering as `profile` would, for a
/// run with `crop` (x1, y1, x2, y2 in 0..1000 of the screen).
pub fn start(out: &Path, profile: &str, crop: [u32; 4]) -> Oracle {
    let p = franz_core::profile::by_name(profile).expect("a built-in profile");
    let grammar = match p.dialect().expect("the profile's dialect") {
        Some(franz_core::parser::Dialect::Qwen) => Grammar::Qwen,
        Some(franz_core::parser::Dialect::Uitars) => Grammar::Uitars,
        None => Grammar::Calls,
        Some(d) => panic!("the oracle writes no grammar for profile {profile} (dialect {d:?})"),
    };
    let log = Arc::new(Mutex::new(Log::default()));
    let (out, profile, shared) = (out.to_path_buf(), profile.to_string(), log.clone());
    let coords = p.coords;
    let script = Script::func(move |req: &RecordedRequest| {
        if req.method != "POST" || !req.path.ends_with("/chat/completions") {
            return Step::from(franz_core::model::ScriptedReply::text(
                "(not a chat request)",
            ));
        }
        let mut log = shared.lock().unwrap_or_else(|e| e.into_inner());
        let action = answer(req, &out, &profile, coords, crop, &mut log);
        let renderer = Renderer {
            grammar,
            space: Space::Norm,
        };
        Step::from(renderer.render(&action))
    });
    Oracle {
        server: ScriptedServer::start(script).expect("start the oracle"),
        log,
    }
}

/// The next action of the episode on screen, in the family's space.
fn answer(
    req: &RecordedRequest,
    out: &Path,
    profile: &str,
    coords: Coords,
    crop: [u32; 4],
    log: &mut Log,
) -> Action {
    let image = sent_image(req);
    log.images.push(image);
    let mut page = Page::connect(devtools_port(out));
    let step = page.eval(&format!(
        "{}\nminiwobOracle()",
        include_str!("miniwob_oracle.js")
    ));
    let m = &step["metrics"];
    let (dpr, ox, oy) = (f(&m["dpr"]), f(&m["ox"]), f(&m["oy"]));
    let screen = (f(&m["screenW"]) * dpr, f(&m["screenH"]) * dpr);
    let to_screen = |x: f64, y: f64| ((ox + x) * dpr, (oy + y) * dpr);
    let area = work_area(screen, crop);
    let at = |x: f64, y: f64| {
        let (sx, sy) = to_screen(x, y);
        space_point(coords, image, area, sx, sy)
    };
    let task = step["task"].as_str().unwrap_or("?").to_string();
    if let Some(landed) = step["landed"].as_array().filter(|l| !l.is_empty()) {
        let l = landed.last().cloned().unwrap_or(Value::Null);
        let (lx, ly) = to_screen(f(&l[0]), f(&l[1]));
        log.lines.push(format!(
            "{task} {profile}: the page saw the click at ({lx:.0}, {ly:.0})"
        ));
    }
    let b = &step["box"];
    let (x0, y0) = to_screen(f(&b[0]), f(&b[1]));
    let (x1, y1) = to_screen(f(&b[2]), f(&b[3]));
    let kind = step["kind"].as_str().unwrap_or("done");
    log.lines.push(format!(
        "{task} {profile}: {kind} aimed at the element box ({x0:.0}, {y0:.0})-({x1:.0}, {y1:.0}) in screen pixels, image {}x{}",
        image.0, image.1
    ));
    let (cx, cy) = (
        f(&b[0]) / 2.0 + f(&b[2]) / 2.0,
        f(&b[1]) / 2.0 + f(&b[3]) / 2.0,
    );
    let kind = match kind {
        "click" => {
            let (x, y) = at(cx, cy);
            ActionKind::Click {
                x: Some(x),
                y: Some(y),
            }
        }
        "drag" => {
            let (x, y) = at(cx, cy);
            let (x2, y2) = at(f(&step["to"][0]), f(&step["to"][1]));
            ActionKind::Drag {
                x: Some(x),
                y: Some(y),
                x2,
                y2,
            }
        }
        "type" => ActionKind::Type {
            text: step["text"].as_str().unwrap_or("").to_string(),
        },
        "key" => ActionKind::Key {
            keys: step["keys"].as_str().unwrap_or("").to_string(),
        },
        _ => ActionKind::Done {
            text: format!("the episode ended ({})", step["why"].as_str().unwrap_or("")),
        },
    };
    kind.into()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

/// The crop's rectangle in screen pixels: (x, y, width, height), as docs/coordinates.md
/// defines the working area.
fn work_area(screen: (f64, f64), crop: [u32; 4]) -> (f64, f64, f64, f64) {
    let (w, h) = (screen.0.round() as u32, screen.1.round() as u32);
    let c = franz_core::geometry::Crop::new(crop[0], crop[1], crop[2], crop[3]).expect("a crop");
    let r = c
        .work_area(franz_desktop::PixelRect::new(0, 0, w, h))
        .expect("a working area")
        .rect;
    (r.x as f64, r.y as f64, r.width as f64, r.height as f64)
}

/// A screen pixel as the family writes it for an image of `image` showing `area`.
fn space_point(
    coords: Coords,
    image: (u32, u32),
    area: (f64, f64, f64, f64),
    sx: f64,
    sy: f64,
) -> (i32, i32) {
    // the pixel's centre as a fraction of the image the model saw
    let fx = ((sx.floor() + 0.5 - area.0) / area.2).clamp(0.0, 1.0);
    let fy = ((sy.floor() + 0.5 - area.1) / area.3).clamp(0.0, 1.0);
    let (sw, sh) = match coords {
        Coords::Pixels => (image.0 as f64, image.1 as f64),
        Coords::Franz | Coords::Norm1000 => (1000.0, 1000.0),
        Coords::Relative => panic!("the oracle writes whole numbers, not relative coordinates"),
    };
    ((fx * sw).floor() as i32, (fy * sh).floor() as i32)
}

/// The size of the last image in the request.
fn sent_image(req: &RecordedRequest) -> (u32, u32) {
    use base64::Engine as _;
    let body = &req.body;
    let start = body
        .rfind(";base64,")
        .expect("the request carries an image")
        + 8;
    let rest = &body[start..];
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '+' || c == '/' || c == '='))
        .unwrap_or(rest.len());
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&rest[..end])
        .expect("base64");
    let reader = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .expect("an image");
    reader.into_dimensions().expect("the image's size")
}

/// The DevTools port of the one browser the bench has open (it runs one task at a time, and
/// removes each browser's profile when its run ends).
fn devtools_port(out: &Path) -> u16 {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let ports: Vec<u16> = std::fs::read_dir(out.join("runs"))
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let text =
                    std::fs::read_to_string(e.path().join("work/chromium/DevToolsActivePort"))
                        .ok()?;
                text.lines().next()?.trim().parse().ok()
            })
            .collect();
        if ports.len() == 1 {
            return ports[0];
        }
        assert!(
            Instant::now() < deadline,
            "the oracle expects one open task browser under {}, found ports {ports:?}",
            out.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A page target over DevTools (`Runtime.evaluate` only).
struct Page(tungstenite::WebSocket<TcpStream>);

impl Page {
    fn connect(port: u16) -> Page {
        let list: Value = serde_json::from_str(&http_get(port, "/json/list")).expect("targets");
        let url = list
            .as_array()
            .and_then(|a| a.iter().find(|t| t["type"] == "page"))
            .and_then(|t| t["webSocketDebuggerUrl"].as_str())
            .expect("a page target")
            .to_string();
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect to DevTools");
        let (socket, _) = tungstenite::client(url.as_str(), stream).expect("DevTools handshake");
        Page(socket)
    }

    fn eval(&mut self, expression: &str) -> Value {
        let call = json!({"id": 1, "method": "Runtime.evaluate",
            "params": {"expression": expression, "returnByValue": true}});
        self.0
            .send(tungstenite::Message::text(call.to_string()))
            .expect("send to DevTools");
        loop {
            let msg = self.0.read().expect("read from DevTools");
            let Ok(text) = msg.to_text() else { continue };
            let v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
            if v["id"] == 1 {
                assert!(
                    v["result"].get("exceptionDetails").is_none(),
                    "the oracle's page script threw: {v}"
                );
                return v["result"]["result"]["value"].clone();
            }
        }
    }
}

fn http_get(port: u16, path: &str) -> String {
    use std::io::{BufRead, Read, Write};
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect to DevTools");
    write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n").unwrap();
    let mut r = std::io::BufReader::new(s);
    let mut length = 0;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).unwrap() == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().unwrap();
        }
    }
    let mut body = vec![0; length];
    r.read_exact(&mut body).unwrap();
    String::from_utf8(body).unwrap()
}
