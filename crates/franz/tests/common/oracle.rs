//! The profile oracle tests' helpers: the test venv's Python (the families' reference code),
//! `franz profiles show` and `franz parse --profile` on random screens and crops, and a
//! seeded random source so every run checks the same cases.

#![allow(dead_code)]

use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::Command;

/// The test venv's interpreter: `$FRANZ_TEST_PYTHON`, else `.venv-test/bin/python`.
pub fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("FRANZ_TEST_PYTHON") {
        return p.into();
    }
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.venv-test/bin/python");
    assert!(
        p.exists(),
        "{} is missing: run scripts/deps.sh to create the test oracles' venv (or set FRANZ_TEST_PYTHON)",
        p.display()
    );
    p
}

/// Runs `cmd` with `stdin`, which must succeed, and reads its stdout as JSON.
pub fn run(cmd: &mut Command, stdin: &str) -> Value {
    let out = crate::common::output_with_stdin(
        cmd.env_remove("FRANZ_LOG")
            .env_remove("FRANZ_PROFILE")
            .env_remove("FRANZ_MODEL"),
        stdin,
    );
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// `franz ARGS` with `stdin`, its stdout as JSON.
pub fn franz(args: &[&str], stdin: &str) -> Value {
    run(Command::new(env!("CARGO_BIN_EXE_franz")).args(args), stdin)
}

/// `tests/oracle/SCRIPT` in the test venv, given `req` on stdin; its stdout as JSON.
pub fn oracle(script: &str, req: &Value) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/oracle")
        .join(script);
    run(Command::new(python()).arg(path), &req.to_string())
}

/// xorshift64*: the same cases on every run.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// lo..=hi
    pub fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + (self.next() % (hi - lo + 1) as u64) as u32
    }
    /// A value in 0..=s, the ends often.
    pub fn value(&mut self, s: u32) -> u32 {
        match self.range(0, 9) {
            0 => 0,
            1 => s,
            _ => self.range(0, s),
        }
    }
}

/// A screen and a crop (`--crop`, 0..1000 of the screen).
#[derive(Clone, Debug)]
pub struct Combo {
    pub screen: (u32, u32),
    pub crop: String,
}

/// `n` random screens from 800x600 to 3840x2160, every third uncropped.
pub fn combos(n: usize, seed: u64) -> Vec<Combo> {
    let mut rng = Rng(seed);
    (0..n)
        .map(|i| {
            let screen = (rng.range(800, 3840), rng.range(600, 2160));
            let crop = if i % 3 == 0 {
                "0,0,1000,1000".to_string()
            } else {
                let (x1, y1) = (rng.range(0, 400), rng.range(0, 400));
                let (x2, y2) = (rng.range(x1 + 300, 1000), rng.range(y1 + 300, 1000));
                format!("{x1},{y1},{x2},{y2}")
            };
            Combo { screen, crop }
        })
        .collect()
}

/// What franz printed for one case: the image it would send, the working area, the actions
/// and the whole parse output.
pub struct Seen {
    pub image: (u32, u32),
    /// x, y, width, height
    pub area: [i64; 4],
    pub actions: Vec<Value>,
    pub parsed: Value,
}

/// `franz profiles show FAMILY` for the combo's screen and crop, and with a `reply`, `franz
/// parse --profile FAMILY` of it (which must parse without errors and send the same image).
pub fn show_and_parse(family: &str, combo: &Combo, reply: Option<&str>) -> Seen {
    let screen = format!("{}x{}", combo.screen.0, combo.screen.1);
    let args = ["--crop", &combo.crop, "--screen", &screen];
    let mut show_args = vec!["profiles", "show", family];
    show_args.extend_from_slice(&args);
    let shown = franz(&show_args, "");
    let wa = &shown["work_area"];
    let area = [&wa["x"], &wa["y"], &wa["width"], &wa["height"]].map(|v| v.as_i64().unwrap());
    let image = (
        shown["image"]["width"].as_u64().unwrap() as u32,
        shown["image"]["height"].as_u64().unwrap() as u32,
    );
    let Some(r) = reply else {
        return Seen {
            image,
            area,
            actions: Vec::new(),
            parsed: Value::Null,
        };
    };
    let mut parse_args = vec!["parse", "--profile", family];
    parse_args.extend_from_slice(&args);
    let parsed = franz(&parse_args, r);
    assert_eq!(
        parsed["errors"],
        json!([]),
        "{family} {screen} {}: {r}",
        combo.crop
    );
    let img = &parsed["image"];
    assert_eq!(
        (
            img["width"].as_u64().unwrap() as u32,
            img["height"].as_u64().unwrap() as u32
        ),
        image,
        "parse and profiles show send the same image"
    );
    Seen {
        image,
        area,
        actions: parsed["actions"].as_array().unwrap().clone(),
        parsed,
    }
}

/// Asserts that every image franz sends is one its family's own resize leaves unchanged:
/// `fixed` is the oracle's answer (one bool a case, in order), `cases` each case's family,
/// screen and crop, and the image franz sends.
pub fn assert_fixed_points<'a>(
    fixed: &Value,
    cases: impl IntoIterator<Item = (&'a str, &'a Combo, (u32, u32))>,
) {
    let answers = fixed.as_array().expect("the oracle's \"fixed\" list");
    let mut n = 0;
    for ((family, combo, image), ok) in cases.into_iter().zip(answers) {
        assert_eq!(
            ok,
            &json!(true),
            "{family}: {}x{} for screen {:?} crop {} is not an image the family's own resize keeps",
            image.0,
            image.1,
            combo.screen,
            combo.crop
        );
        n += 1;
    }
    assert_eq!(n, answers.len(), "one answer a case");
}
