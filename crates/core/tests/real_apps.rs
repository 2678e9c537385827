//! The executor on real X11 applications: xmessage's buttons and exact Unicode typing into
//! an xterm running `cat > FILE`.

#![cfg(target_os = "linux")]

use crate::common;

use common::{InputDesktop, TIMEOUT, poll, sandbox};
use franz_core::executor::{ExecConfig, Executor, MotionProfile};
use franz_core::{Action, Crop, WorkArea};
use franz_desktop::{PixelPoint, PixelRect};
use serde_json::json;
use std::io::Read;
use std::process::Command;

fn act(v: serde_json::Value) -> Action {
    serde_json::from_value(v).unwrap()
}

/// Child windows of the tree under root, as (width, height, abs x, abs y).
fn windows(display: &str) -> Vec<(i32, i32, i32, i32)> {
    let out = Command::new("xwininfo")
        .args(["-root", "-tree"])
        .env("DISPLAY", display)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let mut v = Vec::new();
    for line in text.lines() {
        // `0x200033 (has no name): ()  22x17+39+29  +140+130`
        let f: Vec<&str> = line.split_whitespace().collect();
        let (Some(geom), Some(abs)) = (f.iter().rev().nth(1), f.last()) else {
            continue;
        };
        let Some((wh, _)) = geom.split_once('+') else {
            continue;
        };
        let Some((w, h)) = wh.split_once('x') else {
            continue;
        };
        let abs: Vec<&str> = abs.trim_start_matches('+').split('+').collect();
        if let (Ok(w), Ok(h), [ax, ay]) = (w.parse(), h.parse(), &abs[..])
            && let (Ok(ax), Ok(ay)) = (ax.parse(), ay.parse())
        {
            v.push((w, h, ax, ay));
        }
    }
    v
}

/// The model point of a pixel (the inverse formula), for clicking what we located.
fn norm_of(area: &WorkArea, p: PixelPoint) -> (i32, i32) {
    let n = area.to_norm(p);
    (n.x, n.y)
}

#[test]
fn clicking_no_in_xmessage_prints_no() {
    let (w, h) = (800, 600);
    let mut sb = sandbox(w, h);
    let mut child = sb
        .launch_piped(
            "xmessage -print -buttons Yes,No -geometry +200+150 'Go ahead with the test?'",
        )
        .unwrap();
    // The buttons are the two small windows on xmessage's bottom row; "No" is the right one.
    let no = poll("xmessage's buttons", TIMEOUT, || {
        let small: Vec<_> = windows(sb.display())
            .into_iter()
            .filter(|&(bw, bh, ax, ay)| bw < 100 && bh < 40 && ax >= 200 && ay >= 150)
            .collect();
        let bottom = small.iter().map(|b| b.3).max()?;
        let row: Vec<_> = small.iter().filter(|b| b.3 == bottom).collect();
        (row.len() == 2).then(|| **row.iter().max_by_key(|b| b.2).unwrap())
    });
    let centre = PixelPoint::new(no.2 + no.0 / 2, no.3 + no.1 / 2);
    let area = Crop::FULL.work_area(PixelRect::new(0, 0, w, h)).unwrap();
    let (x, y) = norm_of(&area, centre);
    let mut desktop = InputDesktop::open(&sb, w, h);
    let mut ex = Executor::new(area, ExecConfig::with_profile(MotionProfile::Human), false);
    let res = ex
        .execute(
            &mut desktop,
            &[act(json!({"type": "click", "x": x, "y": y}))],
        )
        .unwrap();
    assert!(res[0].is_ok(), "{res:?}");
    // xmessage prints the button's name and exits.
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert_eq!(out, "No\n");
    let _ = child.wait();
}

/// 200 characters with accents, CJK, symbols, uppercase and ASCII punctuation.
fn line_200() -> String {
    let head = "Grüße, naïve café, 你好, ½ ± ";
    let filler =
        "The QUICK brown fox: jumps over 13 lazy dogs! (a+b)*c=[d]; {e}|f~g `h' \"i\" <j> ?#$%^&_ ";
    let s: String = head
        .chars()
        .chain(filler.chars().cycle())
        .take(200)
        .collect();
    assert_eq!(s.chars().count(), 200);
    s
}

#[test]
fn typing_unicode_into_xterm_is_exact_20_times_in_a_row() {
    let (w, h) = (1024, 768);
    let mut sb = sandbox(w, h);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("typed.txt");
    sb.launch(&format!(
        "env LC_ALL=C.UTF-8 xterm -u8 -geometry 120x20+0+0 -e sh -c 'cat > {}'",
        file.display()
    ))
    .unwrap();
    // The shell creates FILE just before cat reads the terminal.
    poll("xterm running cat", TIMEOUT, || file.exists().then_some(()));
    assert!(sb.wait_for_windows(1, TIMEOUT), "xterm never mapped");

    let area = Crop::FULL.work_area(PixelRect::new(0, 0, w, h)).unwrap();
    let mut desktop = InputDesktop::open(&sb, w, h);
    let mut ex = Executor::new(area, ExecConfig::with_profile(MotionProfile::Fast), false);
    // Put the pointer (and so the keyboard focus, with no window manager) on the xterm.
    let res = ex
        .execute(
            &mut desktop,
            &[act(json!({"type": "click", "x": 200, "y": 100}))],
        )
        .unwrap();
    assert!(res[0].is_ok(), "{res:?}");

    let line = line_200();
    let mut want = String::new();
    for round in 1..=20 {
        let script = [
            act(json!({"type": "type", "text": line})),
            act(json!({"type": "key", "keys": "enter"})),
        ];
        let res = ex.execute(&mut desktop, &script).unwrap();
        assert!(res.iter().all(|r| r.is_ok()), "{res:?}");
        want.push_str(&line);
        want.push('\n');
        let got = poll(&format!("line {round} in the file"), TIMEOUT, || {
            let got = std::fs::read_to_string(&file).ok()?;
            (got.len() >= want.len()).then_some(got)
        });
        assert_eq!(got, want, "round {round}");
    }
}

#[test]
fn more_distinct_characters_than_spare_keycodes_still_type_exactly() {
    let (w, h) = (800, 600);
    let mut sb = sandbox(w, h);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cjk.txt");
    sb.launch(&format!(
        "env LC_ALL=C.UTF-8 xterm -u8 -geometry 100x10+0+0 -e sh -c 'cat > {}'",
        file.display()
    ))
    .unwrap();
    poll("xterm running cat", TIMEOUT, || file.exists().then_some(()));
    assert!(sb.wait_for_windows(1, TIMEOUT), "xterm never mapped");
    let area = Crop::FULL.work_area(PixelRect::new(0, 0, w, h)).unwrap();
    let mut desktop = InputDesktop::open(&sb, w, h);
    let mut ex = Executor::new(area, ExecConfig::with_profile(MotionProfile::Fast), false);
    // 60 distinct CJK characters: a stock Xvfb map has ~19 empty keycodes, so the binder
    // must rebind keycodes between segments (the slow, guarded path).
    let text: String = (0x4e00u32..0x4e00 + 60)
        .filter_map(char::from_u32)
        .collect();
    let script = [
        act(json!({"type": "click", "x": 300, "y": 100})),
        act(json!({"type": "type", "text": text})),
        act(json!({"type": "key", "keys": "enter"})),
    ];
    let res = ex.execute(&mut desktop, &script).unwrap();
    assert!(res.iter().all(|r| r.is_ok()), "{res:?}");
    let want = format!("{text}\n");
    let got = poll("the line in the file", TIMEOUT, || {
        let got = std::fs::read_to_string(&file).ok()?;
        (got.len() >= want.len()).then_some(got)
    });
    assert_eq!(got, want);
}
