//! On a Wayland session franz says what works there instead of a bare connection error:
//! without an X display, only XWayland applications (with DISPLAY set) or `--sandbox`; with
//! one (XWayland), that only XWayland applications are seen and driven. Wayland is simulated
//! by its environment (WAYLAND_DISPLAY, XDG_SESSION_TYPE); XWayland by a private Xvfb.

#![cfg(target_os = "linux")]

use crate::common;
use franz_core::model::ScriptedReply;
use franz_core::model::scripted_server::{Script, ScriptedServer};
use std::process::{Command, Output, Stdio};

/// Runs franz in a Wayland session's environment, with `display` as DISPLAY (or none).
fn franz(display: Option<&str>, wayland_display: bool, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_franz"));
    cmd.args(args)
        .env_remove("FRANZ_LOG")
        .env("XDG_SESSION_TYPE", "wayland")
        .stdin(Stdio::null());
    if wayland_display {
        cmd.env("WAYLAND_DISPLAY", "wayland-0");
    } else {
        cmd.env_remove("WAYLAND_DISPLAY");
    }
    match display {
        Some(d) => cmd.env("DISPLAY", d),
        None => cmd.env_remove("DISPLAY"),
    };
    cmd.output().unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn closed_port_url() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://127.0.0.1:{}/v1", l.local_addr().unwrap().port())
}

#[test]
fn without_an_x_display_commands_say_xwayland_apps_only_or_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("shot.png");
    let png = png.to_str().unwrap();
    // WAYLAND_DISPLAY set, or only XDG_SESSION_TYPE=wayland: the same message
    for wayland_display in [true, false] {
        let out = franz(None, wayland_display, &["screenshot", png]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("this is a Wayland session without an X display")
                && err.contains("XWayland applications only")
                && err.contains("Set DISPLAY to XWayland's display")
                && err.contains("--sandbox"),
            "{err}"
        );
    }
    // --launch, which needs the display first, says the same
    let out = franz(None, true, &["--launch", "xterm", "screenshot", png]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("XWayland applications only"),
        "{}",
        text(&out)
    );
    let out = franz(None, true, &["doctor", "--api-url", &closed_port_url()]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(1), "{shown}");
    assert!(shown.contains("FAIL display"), "{shown}");
    assert!(
        shown.contains(
            "fix: on Wayland franz works with XWayland applications only: set DISPLAY to XWayland's display"
        ) && shown.contains("or pass --sandbox"),
        "{shown}"
    );
}

#[test]
fn with_xwayland_commands_say_only_xwayland_apps_are_seen() {
    let sb = common::xvfb(640, 480);
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("shot.png");
    let out = franz(
        Some(sb.display()),
        true,
        &["screenshot", png.to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("franz: note: this is a Wayland session")
            && err.contains("only XWayland (X11) applications")
            && err.contains("--sandbox"),
        "{err}"
    );
    let server = ScriptedServer::start(Script::repeat(ScriptedReply::text("OK"))).unwrap();
    let out = franz(
        Some(sb.display()),
        true,
        &[
            "doctor",
            "--api-url",
            &server.url(),
            "--model",
            "scripted-model",
        ],
    );
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(0), "{shown}");
    assert!(
        shown.contains("ok   session: this is a Wayland session")
            && shown.contains("only XWayland (X11) applications"),
        "{shown}"
    );
    // said once, as a line of the report
    assert_eq!(shown.matches("only XWayland (X11)").count(), 1, "{shown}");
    // --sandbox is a desktop of its own: no note
    let out = franz(
        None,
        true,
        &["--sandbox=320x240", "screenshot", png.to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(!text(&out).contains("Wayland"), "{}", text(&out));
}
