//! The profile commands and settings through the real binary: `franz profiles`, `franz
//! profiles show`, `--profile` (flag, `FRANZ_PROFILE`, the config file, a profile file),
//! `--pixel-budget`, explicit `--coords`/`--dialect` over the profile's, and `--size` checked
//! against the family's resize rule.

use crate::common;

use serde_json::{Value, json};
use std::process::Output;

fn franz(args: &[&str], env: &[(&str, &str)], stdin: &str) -> Output {
    let mut cmd = common::franz_command();
    common::no_franz_env(&mut cmd);
    common::output_with_stdin(cmd.envs(env.iter().copied()).args(args), stdin)
}

fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const UITARS: &str = "Thought: t\nAction: click(start_box='(641,361)')";

#[test]
fn profiles_lists_and_shows() {
    let out = franz(&["profiles"], &[], "");
    let list = String::from_utf8_lossy(&out.stdout);
    for name in [
        "franz",
        "qwen3-vl",
        "qwen2.5-vl",
        "ui-tars-1.5",
        "glm-4.5v",
        "openai-computer",
        "anthropic-computer",
        "pyautogui",
    ] {
        assert!(list.lines().any(|l| l.starts_with(name)), "{name}: {list}");
    }
    let v = json_of(&franz(
        &["profiles", "show", "qwen3-vl", "--screen", "1920x1080"],
        &[],
        "",
    ));
    assert_eq!(v["name"], "qwen3-vl");
    assert_eq!(v["coords"], "norm1000");
    assert_eq!(v["dialect"], "qwen");
    // smart_resize(1080, 1920, factor 32) within 1920 * 1080 pixels
    assert_eq!(v["image"], json!({"width": 1920, "height": 1056}));
    let v = json_of(&franz(
        &[
            "profiles",
            "show",
            "ui-tars-1.5",
            "--screen",
            "1366x768",
            "--crop",
            "0,0,500,1000",
        ],
        &[],
        "",
    ));
    assert_eq!(v["image"], json!({"width": 672, "height": 756}));
    assert_eq!(v["keep_last_screenshots"], 5);
    // a smaller budget, a smaller fixed point
    let v = json_of(&franz(
        &[
            "--pixel-budget",
            "500000",
            "profiles",
            "show",
            "qwen3-vl",
            "--screen",
            "1920x1080",
        ],
        &[],
        "",
    ));
    assert_eq!(v["image"], json!({"width": 928, "height": 512}));
    // franz's own: fit inside 1536x864
    let v = json_of(&franz(&["profiles", "show", "franz"], &[], ""));
    assert_eq!(v["image"], json!({"width": 1536, "height": 864}));
    assert_eq!(v["coords"], "franz");
}

#[test]
fn bad_profiles_and_sizes_are_usage_errors_that_say_what_to_do() {
    let out = franz(&["profiles", "show", "qwen4"], &[], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown profile \"qwen4\""),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("ui-tars-1.5"), "{}", stderr(&out));
    let out = franz(&["parse", "--profile", "nope"], &[], UITARS);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // a size the family's processor would resize names the nearest one it keeps
    let out = franz(
        &["--size", "1366x768", "parse", "--profile", "qwen2.5-vl"],
        &[],
        UITARS,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("use --size 1372x756"),
        "{}",
        stderr(&out)
    );
    let out = franz(
        &["--size", "1372x756", "parse", "--profile", "qwen2.5-vl"],
        &[],
        "left_click(1, 2)",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = franz(
        &["--scale", "50", "profiles", "show", "ui-tars-1.5"],
        &[],
        "",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--pixel-budget"), "{}", stderr(&out));
}

#[test]
fn the_profile_comes_from_the_flag_the_environment_the_config_file_or_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("franz.toml");
    std::fs::write(&config, "profile = \"ui-tars-1.5\"\n").unwrap();
    let mine = dir.path().join("mine.toml");
    std::fs::write(
        &mine,
        "name = \"mine\"\ncoords = \"pixels\"\ndialect = \"uitars\"\n[image]\nrule = \"smart_resize\"\nfactor = 28\nmin_pixels = 3136\nmax_pixels = 12845056\n",
    )
    .unwrap();
    let screen = ["--screen", "1366x768"];
    type Env<'a> = Vec<(&'a str, &'a str)>;
    let cases: [(Vec<&str>, Env); 4] = [
        (vec!["parse", "--profile", "ui-tars-1.5"], vec![]),
        (vec!["parse"], vec![("FRANZ_PROFILE", "ui-tars-1.5")]),
        (vec!["--config", config.to_str().unwrap(), "parse"], vec![]),
        (vec!["parse", "--profile", mine.to_str().unwrap()], vec![]),
    ];
    for (mut args, env) in cases {
        args.extend_from_slice(&screen);
        let v = json_of(&franz(&args, &env, UITARS));
        assert_eq!(v["dialect"], "uitars", "{args:?}");
        // 1366x768 is sent as 1372x756; (641, 361) of it is pixel (638, 367) of the screen
        assert_eq!(
            v["image"],
            json!({"width": 1372, "height": 756}),
            "{args:?}"
        );
        let a = &v["actions"][0];
        assert_eq!(
            a["exact"],
            json!({"at": [641, 361], "of": [1372, 756]}),
            "{args:?}"
        );
        assert_eq!(a["screen"], json!([638, 367]), "{args:?}");
    }
    // without a profile: franz's own, today's output
    let v = json_of(&franz(&["parse"], &[], "left_click(500, 500)"));
    assert_eq!(
        v,
        json!({"dialect": "calls", "actions": [{"type": "click", "x": 500, "y": 500}], "text": "", "errors": [], "norm_max": 1000})
    );
}

#[test]
fn explicit_coords_and_dialect_win_over_the_profile() {
    // qwen3-vl reads 0..1000; --coords pixels makes it read pixels of the image
    let reply = r#"<tool_call>
{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [1919, 0]}}
</tool_call>"#;
    let v = json_of(&franz(
        &["parse", "--profile", "qwen3-vl", "--screen", "1920x1080"],
        &[],
        reply,
    ));
    // 1919 is far outside 0..1000: refused as the model's error, the likely cause named
    assert_eq!(v["actions"], json!([]), "{v}");
    let e = v["errors"][0].as_str().unwrap();
    assert!(
        e.contains("(1919, 0) is outside 0..1000") && e.contains("--coords pixels"),
        "{v}"
    );
    let v = json_of(&franz(
        &[
            "parse",
            "--profile",
            "qwen3-vl",
            "--coords",
            "pixels",
            "--screen",
            "1920x1080",
        ],
        &[],
        reply,
    ));
    assert_eq!(v["errors"], json!([]));
    assert_eq!(v["actions"][0]["exact"]["of"], json!([1920, 1056]));
    assert_eq!(v["actions"][0]["screen"], json!([1919, 0]));
    // --dialect over the profile's
    let v = json_of(&franz(
        &[
            "parse",
            "--profile",
            "ui-tars-1.5",
            "--dialect",
            "json",
            "--screen",
            "800x600",
        ],
        &[],
        UITARS,
    ));
    // json is asked, and the UI-TARS reply is read again in its own dialect, with the reminder
    assert_eq!(v["actions"][0]["read_in"], "uitars", "{v}");
    assert!(
        v["errors"][0]
            .as_str()
            .unwrap()
            .contains("not as franz's vision JSON"),
        "{v}"
    );
    // relative coordinates under franz's own profile
    let v = json_of(&franz(
        &["parse", "--coords", "relative", "--screen", "1000x500"],
        &[],
        "left_click(0.5, 1)",
    ));
    assert_eq!(v["actions"][0]["screen"], json!([500, 499]));
}
