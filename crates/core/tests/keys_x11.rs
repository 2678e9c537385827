//! The whole key vocabulary of docs/actions.md arrives: every canonical key name, by the keysym
//! the witness window receives on a private Xvfb, combos with each modifier, and under a German
//! and a French keyboard layout (`setxkbmap de`, `fr`): `ctrl+z`, `ctrl+a`, `ctrl+s` arrive as
//! those combos and Unicode text typed into an xterm arrives exactly.

#![cfg(target_os = "linux")]

use crate::common;

use common::{InputDesktop, TIMEOUT, poll, sandbox};
use franz_core::executor::{ExecConfig, Executor, MotionProfile};
use franz_core::{Action, Crop};
use franz_desktop::PixelRect;
use franz_desktop::witness::{Witness, WitnessEvent, WitnessKind as K, state};
use serde_json::json;

const W: u32 = 640;
const H: u32 = 480;

/// X11's Mod4 bit (the `win` key, Super).
const MOD4: u16 = 0x40;

fn act(v: serde_json::Value) -> Action {
    serde_json::from_value(v).unwrap()
}

struct Rig {
    sandbox: franz_desktop::sandbox::Sandbox,
    witness: Witness,
    desktop: InputDesktop,
    ex: Executor,
}

fn rig() -> Rig {
    let sb = sandbox(W, H);
    let screen = PixelRect::new(0, 0, W, H);
    let witness = Witness::open(sb.display(), screen).unwrap();
    let desktop = InputDesktop::open(&sb, W, H);
    let ex = Executor::new(
        Crop::FULL.work_area(screen).unwrap(),
        ExecConfig::with_profile(MotionProfile::Fast),
        false,
    );
    let mut r = Rig {
        sandbox: sb,
        witness,
        desktop,
        ex,
    };
    // the witness has the focus; keep the pointer over it too
    r.act(json!({"type": "move", "x": 500, "y": 500}));
    r
}

impl Rig {
    fn act(&mut self, a: serde_json::Value) {
        let r = self
            .ex
            .execute(&mut self.desktop, &[act(a.clone())])
            .unwrap();
        assert!(r[0].is_ok(), "{a}: {r:?}");
    }

    /// Presses `keys` and returns the witness's key events once `releases` keys went up.
    fn press(&mut self, keys: &str, releases: usize) -> Vec<(K, u32, u16)> {
        self.witness.clear();
        self.act(json!({"type": "key", "keys": keys}));
        let done =
            |e: &[WitnessEvent]| e.iter().filter(|e| e.is(K::KeyRelease)).count() >= releases;
        let (ok, ev) = self.witness.wait_for(done, TIMEOUT);
        assert!(ok, "{keys}: {ev:?}");
        ev.iter()
            .filter(|e| matches!(e.kind, K::KeyPress | K::KeyRelease))
            .map(|e| (e.kind, e.keysym, e.state & 0xff))
            .collect()
    }

    /// Sets the keyboard layout of the sandbox's display.
    fn layout(&self, name: &str) {
        let ok = std::process::Command::new("setxkbmap")
            .args(["-display", self.sandbox.display(), name])
            .status()
            .unwrap()
            .success();
        assert!(ok, "setxkbmap {name}");
    }
}

/// Every canonical name that is not a character, and its X keysym.
fn named() -> Vec<(String, u32)> {
    let mut v: Vec<(String, u32)> = [
        ("up", 0xff52),
        ("down", 0xff54),
        ("left", 0xff51),
        ("right", 0xff53),
        ("home", 0xff50),
        ("end", 0xff57),
        ("pageup", 0xff55),
        ("pagedown", 0xff56),
        ("insert", 0xff63),
        ("delete", 0xffff),
        ("backspace", 0xff08),
        ("enter", 0xff0d),
        ("tab", 0xff09),
        ("esc", 0xff1b),
        ("space", 0x20),
        ("ctrl", 0xffe3),
        ("alt", 0xffe9),
        ("shift", 0xffe1),
        ("win", 0xffeb),
        ("menu", 0xff67),
        ("printscreen", 0xff61),
    ]
    .iter()
    .map(|(n, s)| (n.to_string(), *s))
    .collect();
    // F1 is 0xffbe, and the rest follow
    v.extend((1..=24u32).map(|n| (format!("f{n}"), 0xffbe + n - 1)));
    v
}

#[test]
fn every_named_key_arrives_by_its_keysym() {
    let mut r = rig();
    for (name, sym) in named() {
        let ev = r.press(&name, 1);
        // (a modifier's release carries its own bit in the state before the event)
        let kinds: Vec<(K, u32)> = ev.iter().map(|e| (e.0, e.1)).collect();
        assert_eq!(
            kinds,
            vec![(K::KeyPress, sym), (K::KeyRelease, sym)],
            "{name}"
        );
        assert_eq!(ev[0].2, 0, "{name}: pressed alone");
    }
    // capslock toggles: pressed twice, it leaves the lock as it was
    let ev = r.press("capslock", 1);
    assert_eq!(ev[0], (K::KeyPress, 0xffe5, 0), "{ev:?}");
    r.press("capslock", 1);
}

#[test]
fn letters_digits_and_punctuation_arrive_as_themselves() {
    let mut r = rig();
    // the US layout's unshifted characters arrive on their own key, without shift
    for c in "az09-=[];'`\\,./".chars() {
        let ev = r.press(&c.to_string(), 1);
        assert_eq!(
            ev,
            vec![(K::KeyPress, c as u32, 0), (K::KeyRelease, c as u32, 0)],
            "{c:?}"
        );
    }
    // a shifted character: its key is pressed (with shift, or on a key of its own)
    for c in "!@#$%^&*()_+{}:\"<>?|~".chars() {
        let ev = r.press(&c.to_string(), 1);
        let press = ev.iter().find(|e| e.0 == K::KeyPress).copied();
        assert!(press.is_some(), "{c:?}: {ev:?}");
    }
}

#[test]
fn combos_with_each_modifier_arrive_with_its_state() {
    let mut r = rig();
    let x = 'x' as u32;
    for (modifier, sym, bit) in [
        ("ctrl", 0xffe3, state::CONTROL),
        ("alt", 0xffe9, state::MOD1_ALT),
        ("shift", 0xffe1, state::SHIFT),
        ("win", 0xffeb, MOD4),
    ] {
        let ev = r.press(&format!("{modifier}+x"), 2);
        assert_eq!(
            ev,
            vec![
                (K::KeyPress, sym, 0),
                (K::KeyPress, x, bit),
                (K::KeyRelease, x, bit),
                (K::KeyRelease, sym, bit),
            ],
            "{modifier}"
        );
    }
    // all four at once, and a modifier with a named key
    let ev = r.press("ctrl+alt+shift+win+x", 5);
    let all = state::CONTROL | state::MOD1_ALT | state::SHIFT | MOD4;
    assert!(ev.contains(&(K::KeyPress, x, all)), "{ev:?}");
    let ev = r.press("alt+f4", 2);
    assert!(
        ev.contains(&(K::KeyPress, 0xffc1, state::MOD1_ALT)),
        "{ev:?}"
    );
    let ev = r.press("ctrl+shift+tab", 3);
    assert!(
        ev.contains(&(K::KeyPress, 0xff09, state::CONTROL | state::SHIFT)),
        "{ev:?}"
    );
}

#[test]
fn shortcuts_keep_their_letters_under_german_and_french_layouts() {
    let mut r = rig();
    for layout in ["de", "fr"] {
        r.layout(layout);
        for letter in ['z', 'a', 's'] {
            let ev = r.press(&format!("ctrl+{letter}"), 2);
            assert!(
                ev.contains(&(K::KeyPress, letter as u32, state::CONTROL)),
                "{layout}: ctrl+{letter}: {ev:?}"
            );
        }
    }
}

#[test]
fn unicode_text_arrives_exactly_under_german_and_french_layouts() {
    let (w, h) = (1024, 768);
    for layout in ["de", "fr"] {
        let mut sb = sandbox(w, h);
        let ok = std::process::Command::new("setxkbmap")
            .args(["-display", sb.display(), layout])
            .status()
            .unwrap()
            .success();
        assert!(ok, "setxkbmap {layout}");
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("typed.txt");
        sb.launch(&format!(
            "env LC_ALL=C.UTF-8 xterm -u8 -geometry 120x20+0+0 -e sh -c 'cat > {}'",
            file.display()
        ))
        .unwrap();
        poll("xterm running cat", TIMEOUT, || file.exists().then_some(()));
        assert!(sb.wait_for_windows(1, TIMEOUT), "xterm never mapped");
        let area = Crop::FULL.work_area(PixelRect::new(0, 0, w, h)).unwrap();
        let mut desktop = InputDesktop::open(&sb, w, h);
        let mut ex = Executor::new(area, ExecConfig::with_profile(MotionProfile::Fast), false);
        let line =
            "Grüße aus Köln, ÄÖÜ äöü ß €; à é è ç ù œ « » @ # ~ { } [ ] | \\ QWERTZ azerty yz 09";
        let script = [
            act(json!({"type": "click", "x": 200, "y": 100})),
            act(json!({"type": "type", "text": line})),
            act(json!({"type": "key", "keys": "enter"})),
        ];
        let res = ex.execute(&mut desktop, &script).unwrap();
        assert!(res.iter().all(|r| r.is_ok()), "{layout}: {res:?}");
        let want = format!("{line}\n");
        let got = poll(&format!("{layout}: the line in the file"), TIMEOUT, || {
            let got = std::fs::read_to_string(&file).ok()?;
            (got.len() >= want.len()).then_some(got)
        });
        assert_eq!(got, want, "{layout}");
    }
}
