//! Every screen a user has, with every built-in profile's image, end to end: at each screen
//! size of `COMMON_SCREENS` (one Xvfb per size), `franz screenshot` at each profile's image
//! size, and a `franz run` as users start it (the model id they type, `--profile auto`) whose
//! scripted model clicks a point it computes from the image it was sent and then finishes.
//! The run must send the profile's image size and the click must land on that point's
//! screen pixel (the witness window sees it).

#![cfg(target_os = "linux")]

use crate::common;

use franz_core::geometry::COMMON_SCREENS;
use franz_core::model::ScriptedServer;
use franz_core::model::responder::{self, Intent, Style};
use franz_core::profile::{self, Profile};
use franz_desktop::witness::{Witness, WitnessKind};
use std::path::Path;
use std::process::{Command, Output};
use std::sync::Mutex;
use std::time::Duration;

/// `franz screenshot out.png W H` on `display`.
fn screenshot(display: &str, out: &Path, (w, h): (u32, u32)) -> Output {
    Command::new(env!("CARGO_BIN_EXE_franz"))
        .env("DISPLAY", display)
        .arg("screenshot")
        .arg(out)
        .args([w.to_string(), h.to_string()])
        .output()
        .expect("run franz screenshot")
}

/// `franz run` as a user starts it: the model id, no `--profile`, the default strategy.
fn run(display: &str, model: &str, url: &str, runs: &Path) -> Output {
    let mut cmd = common::franz_run(url, runs);
    common::no_franz_env(&mut cmd)
        .env("DISPLAY", display)
        .arg("Click the point the test asks for, then say you did.")
        .args(["--model", model, "--motion", "fast", "--max-steps", "4"])
        .output()
        .expect("run franz")
}

/// One profile on one screen: the screenshot, then the run; returns what went wrong.
fn check(
    display: &str,
    witness: &Witness,
    screen: (u32, u32),
    p: &Profile,
    i: usize,
) -> Vec<String> {
    let mut wrong = Vec::new();
    let want = p.size_rule(0).resolve(screen.0, screen.1);
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("shot.png");
    let out = screenshot(display, &png, (want.width, want.height));
    match image::image_dimensions(&png) {
        Ok(got) if out.status.success() && got == (want.width, want.height) => {}
        got => wrong.push(format!(
            "screenshot {want}: {got:?}, {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )),
    }
    // a point away from the pointer's last place, different for each profile (15 places on a
    // diagonal, inside the screen however many profiles there are)
    let step = (i % 15) as f64;
    let (fx, fy) = (0.1 + 0.055 * step, 0.85 - 0.05 * step);
    let plan = vec![
        Intent::Click { fx, fy },
        Intent::Finish("I clicked the point.".into()),
    ];
    let (script, _) = responder::script(plan, Style::Asked);
    let server = ScriptedServer::start(script).unwrap();
    witness.clear();
    let out = run(
        display,
        common::model_id(&p.name),
        &server.url(),
        dir.path(),
    );
    let sent = server
        .requests()
        .iter()
        .find_map(|r| r.json.as_ref().and_then(responder::image_size));
    if !out.status.success() || sent != Some((want.width, want.height)) {
        wrong.push(format!(
            "run sent {sent:?}, want {want} (exit {:?}): {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
        return wrong;
    }
    let target = (fx * f64::from(screen.0), fy * f64::from(screen.1));
    // one step of the model's space (an image pixel or a thousandth) in screen pixels, and one
    let tol = f64::from(screen.0) / f64::from(want.width.min(1000)) + 1.0;
    let (_, events) = witness.wait_for(
        |e| e.iter().any(|e| e.is(WitnessKind::ButtonPress)),
        Duration::from_secs(5),
    );
    match events.iter().find(|e| e.is(WitnessKind::ButtonPress)) {
        Some(e)
            if (f64::from(e.at.x) - target.0).abs() <= tol
                && (f64::from(e.at.y) - target.1).abs() <= tol => {}
        press => wrong.push(format!(
            "clicked {:?}, want {target:?} ± {tol}",
            press.map(|e| e.at)
        )),
    }
    wrong
}

/// Every profile on one screen.
fn check_screen(screen: (u32, u32), profiles: &[Profile]) -> Vec<String> {
    let (sb, witness) = common::sandbox(screen.0, screen.1);
    let mut wrong = Vec::new();
    for (i, p) in profiles.iter().enumerate() {
        for w in check(sb.display(), &witness, screen, p, i) {
            wrong.push(format!("{}x{} {}: {w}", screen.0, screen.1, p.name));
        }
    }
    wrong
}

#[test]
fn screenshot_and_a_run_work_at_every_screen_with_every_profile() {
    let profiles = profile::builtin();
    // two screens at a time: a run mostly waits on its model and its X server
    let next = Mutex::new(COMMON_SCREENS.iter());
    let wrong: Vec<String> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut wrong = Vec::new();
                    while let Some(&screen) = next.lock().unwrap().next() {
                        wrong.extend(check_screen(screen, &profiles));
                    }
                    wrong
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
