//! Elements from AT-SPI2 on a sandbox running a zenity (GTK) dialog: its text entry and its OK
//! button are listed, and their boxes are right (a click at each centre activates it: the text
//! typed after clicking the entry and the click on OK come out of zenity exactly).
//!
//! The test runs itself again under `dbus-run-session` (a private session bus), and waits for
//! the accessibility bus (`org.a11y.Bus`) before it starts the dialog.

#![cfg(target_os = "linux")]

use franz_desktop::elements::{self, Element};
use franz_desktop::sandbox::{Sandbox, SandboxOptions};
use franz_desktop::{Button, EnigoInput, Input, PixelPoint, Press};
use std::io::Read;
use std::process::Command;
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(20);
const INNER: &str = "FRANZ_TEST_INSIDE_DBUS";

fn poll<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Runs this test binary's test `name` under dbus-run-session; true when this is that run.
fn inside_dbus(name: &str) -> bool {
    if std::env::var_os(INNER).is_some() {
        return true;
    }
    let out = Command::new("dbus-run-session")
        .arg("--")
        .arg(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env(INNER, "1")
        .output()
        .expect("dbus-run-session (package dbus, scripts/deps.sh)");
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "under dbus-run-session: {text}");
    assert!(
        text.contains("1 passed"),
        "the inner test did not run: {text}"
    );
    false
}

/// Waits until the accessibility bus answers on the session bus.
fn wait_for_a11y_bus() {
    poll("org.a11y.Bus", || {
        Command::new("dbus-send")
            .args([
                "--session",
                "--print-reply",
                "--dest=org.a11y.Bus",
                "/org/a11y/bus",
                "org.a11y.Bus.GetAddress",
            ])
            .output()
            .ok()
            .filter(|o| o.status.success())
    });
}

fn centre(e: &Element) -> PixelPoint {
    PixelPoint::new(
        e.bounds.x + e.bounds.width as i32 / 2,
        e.bounds.y + e.bounds.height as i32 / 2,
    )
}

#[test]
fn zenity_entry_and_ok_are_listed_where_they_are() {
    if !inside_dbus("elements::zenity_entry_and_ok_are_listed_where_they_are") {
        return;
    }
    wait_for_a11y_bus();
    let mut sandbox = Sandbox::start(&SandboxOptions {
        width: 800,
        height: 600,
        launch: vec![],
    })
    .unwrap();
    let mut zenity = sandbox
        .launch_piped("zenity --entry --title=Ask --text=Name")
        .unwrap();
    let mut source = elements::open().unwrap();
    let (entry, ok) = poll("zenity's entry and OK button", || {
        let found = source.collect(Duration::from_secs(2));
        let found = found.ok()?;
        let entry = found.elements.iter().find(|e| e.role == "text")?.clone();
        let ok = found
            .elements
            .iter()
            .find(|e| e.role == "button" && e.name.contains("OK"))?
            .clone();
        Some((entry, ok))
    });
    assert!(entry.states.contains(&"editable".to_string()), "{entry:?}");
    let found = source.collect(elements::DEFAULT_BUDGET).unwrap();
    assert!(
        !found.truncated,
        "150 ms are enough for one dialog: {found:?}"
    );
    eprintln!(
        "collected {} elements in {} ms",
        found.elements.len(),
        found.elapsed_ms
    );

    // the boxes are where the widgets are: clicks at their centres work
    let mut input = EnigoInput::with_display(Some(sandbox.display())).unwrap();
    input.move_to(centre(&entry)).unwrap();
    input.button(Button::Left, Press::Click).unwrap();
    input.sync().unwrap();
    input
        .key(
            franz_desktop::Key::Named(franz_desktop::NamedKey::End),
            Press::Click,
        )
        .unwrap();
    input.text("Ada").unwrap();
    input.sync().unwrap();
    input.move_to(centre(&ok)).unwrap();
    input.button(Button::Left, Press::Click).unwrap();
    input.sync().unwrap();
    let mut out = String::new();
    zenity
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert_eq!(out, "Ada\n");
    let _ = zenity.wait();
}
