//! `franz doctor`: checks what a run needs and says what to fix.
//!
//! - the display, or the sandbox (`--sandbox`); on a Wayland session, what works there
//!   (XWayland applications only, or `--sandbox`);
//! - screen capture, and whether it uses MIT-SHM (`Desktop::describe`);
//! - input injection: a click through the desktop's input into a witness window, which must
//!   see the press and the release;
//! - the model server: `/models` answers, the model is listed (without `--model`, the model
//!   is chosen as `franz run` chooses it: `profiles::served`), a request with a one-pixel image
//!   is accepted, the message shape the server's chat template needs (docs/config.md, "Message
//!   shapes"), and the model's context length (where the server says it, or llama-cpp-python's
//!   refusal of a longer prompt says it; unknown is not a failure);
//! - the model sees images (`doctor/vision.rs`), one turn fits the context at the profile's
//!   image size (`doctor/turn_fit.rs`), and the server honours `max_tokens`, `stop` and
//!   `temperature` (`doctor/sampling.rs`), each with the fix in the server's own words;
//! - the profile, with a warning where the model id names none.
//!
//! It honours the global flags and the run configuration (`--api-url`, `--model`, environment,
//! config file). Exit 0 when every check passes (warnings do not fail), 1 otherwise.

use crate::cli::{DoctorArgs, GlobalArgs};
use crate::setup;
use crate::terminal::outln;
use franz_core::config::Config;
use franz_core::model::{
    ChatRequest, ClientConfig, Message, ModelClient, ToolCall, context_probe, data_url,
};
use franz_core::observe::{ImageFormat, RgbaImage, encode_image};
use std::process::ExitCode;
use std::time::Duration;

mod check;
mod sampling;
mod turn_fit;
mod vision;

use check::Check;

pub fn run(g: &GlobalArgs, a: &DoctorArgs) -> anyhow::Result<ExitCode> {
    let (mut effective, _) = crate::settings::resolve(g, &a.settings.given, None)?;
    let what = "checks that input reaches the screen and where clicks land";
    crate::input_commands::refuse_dry_run(&effective, "doctor", what)?;
    let (mut checks, screen) = desktop_checks(g);
    checks.extend(server_checks(&mut effective, screen));
    for c in &checks {
        c.print()?;
    }
    let failed = checks.iter().filter(|c| !c.ok).count();
    if failed == 0 {
        outln!("all {} checks passed", checks.len())?;
        Ok(ExitCode::SUCCESS)
    } else {
        outln!("{failed} of {} checks failed", checks.len())?;
        Ok(ExitCode::from(crate::exit::FAILED))
    }
}

/// The checks of the display, capture, input and calibration; with the monitor's rectangle
/// when a desktop opened.
fn desktop_checks(g: &GlobalArgs) -> (Vec<Check>, Option<franz_desktop::PixelRect>) {
    let what = if g.sandbox.is_some() {
        "sandbox"
    } else {
        "display"
    };
    // Taken before opening, so the note is a line of the report rather than a stderr note.
    let wayland_note = setup::take_wayland_note(g);
    let mut session = match setup::open_desktop(g) {
        Ok(s) => s,
        Err(e) => {
            let fix = if g.sandbox.is_some() {
                "install Xvfb (apt-get install xvfb), or drop --sandbox to use your display"
            } else if franz_desktop::wayland_session() {
                "on Wayland franz works with XWayland applications only: set DISPLAY to XWayland's display (e.g. DISPLAY=:0), or pass --sandbox to work on a private Xvfb desktop"
            } else {
                "set DISPLAY to a running X server, or pass --sandbox to run on a virtual one"
            };
            let checks = vec![
                Check::fail(what, format!("{e:#}"), fix),
                Check::fail("capture", "skipped: no desktop", "fix the display first"),
                Check::fail("input", "skipped: no desktop", "fix the display first"),
            ];
            return (checks, None);
        }
    };
    let describe = session.desktop.describe();
    let mut out = vec![Check::pass(what, describe.clone())];
    if let Some(note) = wayland_note {
        out.push(Check::pass("session", note));
    }
    out.push(match session.desktop.capture() {
        Err(e) => Check::fail(
            "capture",
            e.to_string(),
            "the screen cannot be read: check that the X server allows this client (xhost, XAUTHORITY)",
        ),
        Ok(f) if describe.contains("GetImage") => Check::fail(
            "capture",
            format!("{}x{} through {}", f.width, f.height, capture_path(&describe)),
            "MIT-SHM is not usable, so capture is slow: run the X server on this machine (not over ssh -X), share /dev/shm with containers (--ipc=host), or use --sandbox",
        ),
        Ok(f) => Check::pass(
            "capture",
            format!("{}x{} through {}", f.width, f.height, capture_path(&describe)),
        ),
    });
    out.push(input_check(&mut session));
    out.push(calibration_check(&mut session, g));
    (out, Some(session.desktop.monitor().rect))
}

/// The short calibration: a 3x3 grid on the monitor in use (`franz calibrate` runs 5x5 on
/// every monitor).
fn calibration_check(session: &mut setup::OpenDesktop, g: &GlobalArgs) -> Check {
    const NAME: &str = "calibration";
    if let Some(unchecked) = not_checked_here(NAME) {
        return unchecked;
    }
    let Some(display) = session.display() else {
        return Check::fail(NAME, "no X display", "set DISPLAY or pass --sandbox");
    };
    let config = match crate::input_commands::config(g, &[]) {
        Ok(c) => c,
        Err(e) => return Check::fail(NAME, format!("{e:#}"), "fix the configuration"),
    };
    let m = session.desktop.monitor().clone();
    let zero = franz_desktop::PixelPoint::new(0, 0);
    match crate::click_grid::measure(
        session.desktop.as_mut(),
        Some(&display),
        &config,
        &m,
        3,
        zero,
    ) {
        Ok(r) if r.passed() => Check::pass(
            NAME,
            format!(
                "9 clicks on a 3x3 grid landed within {:.1} px of their targets (franz calibrate runs the full test)",
                r.max_error()
            ),
        ),
        Ok(r) => Check::fail(
            NAME,
            format!(
                "a click missed its target: {}",
                r.worst()
                    .map(crate::click_grid::describe)
                    .unwrap_or_default()
            ),
            "run franz calibrate for every target; check the display scaling and --crop",
        ),
        Err(e) => Check::fail(
            NAME,
            format!("{e:#}"),
            "check that X clients can connect to the display",
        ),
    }
}

/// A pass that says `name` is not checked, on a system without the X11 witness window.
fn not_checked_here(name: &'static str) -> Option<Check> {
    (!franz_desktop::HAS_X11)
        .then(|| Check::pass(name, "not checked on this OS (no witness window)"))
}

fn capture_path(describe: &str) -> &str {
    describe
        .split("capture: ")
        .nth(1)
        .unwrap_or("the backend's own capture")
}

fn input_check(session: &mut setup::OpenDesktop) -> Check {
    use franz_desktop::witness::{Witness, WitnessKind};
    use franz_desktop::{Button, PixelPoint, PixelRect, Press};
    if let Some(unchecked) = not_checked_here("input") {
        return unchecked;
    }
    let Some(display) = session.display() else {
        return Check::fail(
            "input",
            "no X display to open a witness window on",
            "set DISPLAY or pass --sandbox",
        );
    };
    let m = session.desktop.monitor().rect;
    let rect = PixelRect {
        x: m.x + m.width as i32 / 2 - 100,
        y: m.y + m.height as i32 / 2 - 60,
        width: 200,
        height: 120,
    };
    let witness = match Witness::open(&display, rect) {
        Ok(w) => w,
        Err(e) => {
            return Check::fail(
                "input",
                format!("cannot open the witness window: {e}"),
                "check that X clients can connect to the display",
            );
        }
    };
    let centre = PixelPoint::new(rect.x + 100, rect.y + 60);
    let input = session.desktop.input();
    let sent = input
        .move_to(centre)
        .and_then(|_| input.button(Button::Left, Press::Down))
        .and_then(|_| input.button(Button::Left, Press::Up))
        .and_then(|_| input.sync());
    if let Err(e) = sent {
        return Check::fail(
            "input",
            format!("cannot inject input: {e}"),
            "enable the XTEST extension (Xvfb and Xorg have it unless started with -extension XTEST)",
        );
    }
    let (seen, events) = witness.wait_for(
        |ev| {
            ev.iter().any(|e| e.is(WitnessKind::ButtonPress))
                && ev.iter().any(|e| e.is(WitnessKind::ButtonRelease))
        },
        Duration::from_secs(5),
    );
    if seen {
        Check::pass(
            "input",
            format!(
                "a click at ({}, {}) reached a test window (press and release)",
                centre.x, centre.y
            ),
        )
    } else {
        Check::fail(
            "input",
            format!(
                "a click at ({}, {}) did not reach the test window within 5 s ({} events seen)",
                centre.x,
                centre.y,
                events.len()
            ),
            "another program may grab the pointer, or a window covers the screen centre; on Wayland, run franz in an X session or with --sandbox",
        )
    }
}

/// The model server's checks, on the configuration as `franz run` would make it: the model
/// chosen the same way (`profiles::served`), the profile selected and applied, then the
/// server's, the model's and the turn's checks on that.
fn server_checks(
    effective: &mut franz_core::config::Effective,
    screen: Option<franz_desktop::PixelRect>,
) -> Vec<Check> {
    let client = match model_client(&effective.config) {
        Ok(client) => client,
        Err(e) => {
            let fix = "pass a valid --api-url (e.g. http://localhost:1234/v1)";
            return vec![Check::fail("model server", e.to_string(), fix)];
        }
    };
    let given = effective.config.model.clone();
    let served = crate::profiles::served(effective, &client);
    let picked = (effective.config.model != given).then(|| effective.config.model.clone());
    let mut out = model_checks(&effective.config, &client, picked.as_deref());
    if out.iter().any(|c| c.name == "model server" && !c.ok) {
        return out;
    }
    let (context, known) = context_check(&client, &effective.config);
    out.push(context);
    let (settings, chosen) = match crate::profiles::choose(effective.clone(), served) {
        Ok(chosen) => chosen,
        Err(e) => {
            let fix = "pass --profile auto, a name from `franz profiles`, or a profile file";
            out.push(Check::fail("profile", format!("{e:#}"), fix));
            return out;
        }
    };
    let c = settings.config();
    out.push(profile_check(c, &chosen));
    let info = franz_core::model::server_info::ask(&client, &c.model);
    out.push(vision::check(&client, &c.model, &info));
    out.push(turn_fit::check(&settings, &chosen, screen, &info, known));
    out.push(sampling::check(&client, &c.model));
    out
}

/// The profile `--profile` selects, and why (with `auto`, from the model setting or the one
/// model the server serves); a warning where the model id names no profile, so that franz's
/// own 0..1000 prompt would be used.
fn profile_check(c: &Config, chosen: &franz_core::config::Chosen) -> Check {
    let s = &chosen.selection;
    let detail = format!("{} ({})", s.profile.name, s.reason);
    // profile::select says so in these words when auto matched nothing (profile/mod.rs)
    if !s.reason.starts_with("auto: no ") {
        return Check::pass("profile", detail);
    }
    // each family with the ids it is matched by (letters and digits, anywhere in the id, so
    // LM Studio's `qwen/qwen3-vl-8b` and Ollama's `qwen3-vl:8b` both match `qwen3-vl`)
    let names: Vec<String> = franz_core::profile::builtin()
        .into_iter()
        .filter(|p| p.name != s.profile.name && !p.matches.is_empty())
        .map(|p| {
            format!(
                "{} for {} (ids containing {})",
                p.name,
                p.family,
                p.matches.join(" or ")
            )
        })
        .collect();
    Check::warn(
        "profile",
        format!(
            "{detail}: the model id {:?} names no profile, so franz sends its own 0..1000 prompt",
            c.model
        ),
        format!(
            "if the model is one of these families, pick its profile with --profile NAME \
             (or profile = \"NAME\" in the config file): {}; an id matches where it holds \
             one of these in its letters and digits, in any case, so GGUF builds as LM Studio \
             and Ollama list them (holo3-35b-a3b@q4_k_m, hf.co/Hcompany/Holo3-35B-A3B-GGUF:Q4_K_M) \
             match too; `franz profiles` lists them",
            names.join(", ")
        ),
    )
}

/// The doctor's client: a short connect, no retries, and never an unbounded request.
fn model_client(c: &Config) -> Result<ModelClient, franz_core::model::ModelError> {
    let timeout = if c.timeout > 0.0 {
        c.timeout
    } else {
        Config::defaults().timeout
    };
    ModelClient::new(ClientConfig {
        connect_timeout: Duration::from_secs_f64(c.connect_timeout.min(5.0)),
        timeout: Duration::from_secs_f64(timeout),
        retries: 0,
        backoff: Duration::from_millis(200),
        ..c.client()
    })
}

/// `/models` answers, the model is listed (`picked`: chosen as the only one the server lists,
/// no `--model` given), and a request with an image is accepted.
fn model_checks(c: &Config, client: &ModelClient, picked: Option<&str>) -> Vec<Check> {
    let url = client.endpoint().models();
    let models = match client.list_models() {
        Ok(m) => m,
        Err(e) => {
            return vec![
                Check::fail(
                    "model server",
                    format!("{url} does not answer: {e}"),
                    "start your model server or pass --api-url",
                ),
                Check::fail("model", "skipped: no server", "fix the model server first"),
                Check::fail(
                    "image request",
                    "skipped: no server",
                    "fix the model server first",
                ),
            ];
        }
    };
    let mut out = vec![Check::pass(
        "model server",
        format!("{url} lists {} model(s)", models.len()),
    )];
    if let Some(id) = picked {
        let how = "no --model given: the only model the server lists, as franz run picks it";
        out.push(Check::pass("model", format!("{id} ({how})")));
    } else if models.iter().any(|m| m == &c.model) {
        out.push(Check::pass("model", format!("{} is listed", c.model)));
    } else {
        out.push(Check::fail(
            "model",
            format!(
                "{} is not listed by the server (it offers: {})",
                c.model,
                if models.is_empty() {
                    "nothing".to_string()
                } else {
                    models.join(", ")
                }
            ),
            "load the model in your server, or pass --model with one of the listed names",
        ));
    }
    out.push(image_check(client, c));
    out.push(shape_check(client, c));
    out
}

/// The message shape the server needs (docs/config.md, "Message shapes"): the tools
/// strategy's order (the task and the screen as two user messages, a tool call and its result)
/// sent as the `message_shape` setting says; with `auto`, the shape the server's refusals led to.
fn shape_check(client: &ModelClient, c: &Config) -> Check {
    const NAME: &str = "message shape";
    let mut call = ToolCall::new("press_key", serde_json::json!({"key": "enter"}));
    call.id = Some("call_1".into());
    let mut assistant = Message::assistant("");
    assistant.tool_calls = vec![call];
    let mut req = ChatRequest::new(
        c.model.clone(),
        vec![
            Message::system("You operate a computer."),
            Message::user("TASK: press enter"),
            Message::user("The screen now."),
            assistant,
            Message::tool("call_1", "press_key", "{\"ok\": true}"),
            Message::user("Reply with OK."),
        ],
    );
    req.max_tokens = Some(4);
    req.temperature = Some(0.0);
    let setting = c.message_shape.name();
    match client.chat(&req) {
        Ok(_) => {
            let shape = client.learned().shape.name();
            let how = if setting == "auto" && shape != "none" {
                format!(
                    "the server's chat template refused the messages as built; franz sends them as {shape} (message_shape auto)"
                )
            } else {
                format!(
                    "the server takes the tools strategy's messages as {shape} (message_shape {setting})"
                )
            };
            Check::pass(NAME, how)
        }
        Err(e) => Check::fail(
            NAME,
            format!(
                "the tools strategy's messages were refused as {}: {e}",
                client.learned().shape.name()
            ),
            "set message_shape (--message-shape alternate or strict; docs/config.md, \"Message shapes\")",
        ),
    }
}

/// The model's context length: the `context_tokens` setting, else where the server says it
/// (llama.cpp's `/props`, vLLM's or LM Studio's model lists), else llama-cpp-python's refusal
/// of a prompt longer than any context (`model/context_probe.rs`). Unknown is not a failure:
/// a run then learns it from the server's first refusal. Returns the length too.
fn context_check(client: &ModelClient, c: &Config) -> (Check, Option<u64>) {
    const NAME: &str = "context";
    if c.context_tokens > 0 {
        let text = format!("{} tokens (the context_tokens setting)", c.context_tokens);
        return (Check::pass(NAME, text), Some(c.context_tokens));
    }
    let said = client.context_length(&c.model);
    let info = match said.tokens {
        Some(_) => said,
        None => context_probe::context_from_refusal(client, &c.model).unwrap_or(said),
    };
    let check = match info.tokens {
        Some(n) => Check::pass(NAME, format!("{n} tokens ({})", info.source)),
        None => Check::pass(
            NAME,
            format!(
                "unknown ({}): a run learns it from the server's first refusal of a request as too long; set context_tokens (--context-tokens) to keep every request inside it",
                info.source
            ),
        ),
    };
    (check, info.tokens)
}

fn image_check(client: &ModelClient, c: &Config) -> Check {
    let pixel = RgbaImage {
        width: 1,
        height: 1,
        data: vec![255, 255, 255, 255],
    };
    let png = match encode_image(&pixel, ImageFormat::Png) {
        Ok(p) => p,
        Err(e) => return Check::fail("image request", e.to_string(), "report this as a bug"),
    };
    let mut req = ChatRequest::new(
        c.model.clone(),
        vec![Message::user_with_image(
            "Reply with OK.",
            data_url("image/png", &png),
        )],
    );
    req.max_tokens = Some(8);
    req.temperature = Some(0.0);
    match client.chat(&req) {
        Ok(_) => Check::pass(
            "image request",
            "a request with a one-pixel PNG was accepted",
        ),
        Err(e) => Check::fail(
            "image request",
            format!("a request with a one-pixel PNG failed: {e}"),
            "load a vision-language model (e.g. qwen3-vl-8b-instruct) and make sure the server accepts image_url parts",
        ),
    }
}
