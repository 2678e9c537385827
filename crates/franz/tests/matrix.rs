//! The matrix: every strategy x every built-in profile, run as users run franz: the model id
//! they type, `--profile auto` (the default), a real xterm on a 1920x1080 or 1600x900 sandbox.
//!
//! The scripted model (crates/core/src/model/responder) answers each request in the format
//! that request asks for: it reads the prompt and tool schema, fills in the example of the
//! action it needs, and computes the point from the image the request carries, in the space
//! the prompt names. Each cell clicks into a terminal placed away from the pointer, types a
//! word and finishes; the goal is the word in the file the terminal's program writes.
//!
//! A second pass answers in the designs' formats (narrative call lines, the vision JSON,
//! franz's tool calls) under every profile. It reaches the goal exactly where the designs'
//! space (0..1000) is the profile's space, and nowhere else: under a pixel profile a 0..1000
//! point is ambiguous and must not be acted on (docs/coordinates.md). The exception is a
//! family whose own format franz reads but writes no prompt of (Holo, UI-Venus, Gemini, the
//! grounding answers): its runs are prompted in the designs' formats worded in the profile's
//! space, so a reply in those formats means that space; under a pixel profile (GTA1,
//! Holo1.5) the design's 0..1000 point is read as the pixels the prompt asked for and acted
//! on.

#![cfg(target_os = "linux")]

use crate::common;

use common::{model_id, poll};
use franz_core::model::responder::{self, DesignFormat, Intent, Space, Style, Transcript};
use franz_core::model::{Script, ScriptedReply, ScriptedServer};
use franz_core::parser::Dialect;
use franz_core::profile::{self, Coords};
use franz_desktop::sandbox::{Sandbox, SandboxOptions};
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const STRATEGIES: [&str; 4] = ["narrative", "vision", "tools", "commander"];

/// The screens the cells run on, by profile (each profile's cells share one sandbox).
const SCREENS: [(u32, u32); 2] = [(1920, 1080), (1600, 900)];

/// Where each strategy's terminal goes, as fractions of the screen: apart from each other and
/// from the screen's centre, where the pointer starts.
const PLACES: [(f64, f64); 4] = [(0.08, 0.62), (0.58, 0.12), (0.62, 0.66), (0.06, 0.10)];

const T: Duration = Duration::from_secs(20);

/// What one cell did.
struct Cell {
    profile: String,
    strategy: &'static str,
    screen: (u32, u32),
    reached: bool,
    /// The first reply, as the model wrote it (content and tool calls).
    first_reply: String,
    /// The space the first request with a screenshot asked for.
    space: Option<Space>,
    output: Output,
}

/// The window titled `title`: (x, y, width, height) in root pixels.
fn window(display: &str, title: &str) -> Option<(i64, i64, i64, i64)> {
    let out = Command::new("xwininfo")
        .args(["-name", title])
        .env("DISPLAY", display)
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |name: &str| -> Option<i64> {
        let line = text.lines().find(|l| l.trim_start().starts_with(name))?;
        line.rsplit(':').next()?.trim().parse().ok()
    };
    // placed and shown (a window not yet mapped may still be at 0,0)
    text.contains("Map State: IsViewable").then_some(())?;
    let w = field("Width")?;
    Some((
        field("Absolute upper-left X")?,
        field("Absolute upper-left Y")?,
        w,
        field("Height")?,
    ))
}

/// `franz run` as a user starts it: the model id, no `--profile`.
fn franz_run(display: &str, strategy: &str, model: &str, url: &str, runs: &Path) -> Output {
    let mut cmd = Command::new("timeout");
    cmd.arg("180").arg(env!("CARGO_BIN_EXE_franz"));
    for (k, _) in std::env::vars() {
        if k.starts_with("FRANZ_") {
            cmd.env_remove(k);
        }
    }
    cmd.env("DISPLAY", display)
        .args([
            "run",
            "Click into the terminal window and type the word it waits for.",
        ])
        .args(["--model", model, "--strategy", strategy, "--api-url", url])
        .args(["--runs-dir", &runs.display().to_string()])
        .args(["--step-delay", "0", "--motion", "fast", "--max-steps", "8"]);
    cmd.output().expect("run franz")
}

/// One cell on `sb`: a terminal at the strategy's place, the scripted model in `style`.
/// `reaches`: whether the cell is expected to reach the goal (the word is waited for only
/// then; otherwise the run has ended and nothing was typed into the terminal).
fn cell(
    sb: &mut Sandbox,
    screen: (u32, u32),
    (profile, strategy): (&str, &'static str),
    style: Style,
    reaches: bool,
    dir: &Path,
) -> Cell {
    let word = format!("w-{strategy}-{}", profile.replace('.', ""));
    let out = dir.join(format!("{strategy}.txt"));
    let title = format!("target-{strategy}");
    let i = STRATEGIES.iter().position(|s| *s == strategy).unwrap_or(0);
    let (px, py) = PLACES[i];
    let (x, y) = ((px * screen.0 as f64) as u32, (py * screen.1 as f64) as u32);
    sb.launch(&format!(
        "xterm -T {title} -geometry 28x4+{x}+{y} -e sh -c 'stty raw -echo; head -c {} > {}'",
        word.len(),
        out.display()
    ))
    .unwrap();
    let (wx, wy, ww, wh) = poll("the terminal to map", T, || window(sb.display(), &title));
    let fx = (wx as f64 + ww as f64 / 2.0) / screen.0 as f64;
    let fy = (wy as f64 + wh as f64 / 2.0) / screen.1 as f64;
    let plan = vec![
        Intent::Click { fx, fy },
        Intent::Type(word.clone()),
        Intent::Finish(format!("typed {word}")),
    ];
    let (script, transcript) = responder::script(plan, style);
    let server = ScriptedServer::start(script).unwrap();
    let output = franz_run(
        sb.display(),
        strategy,
        model_id(profile),
        &server.url(),
        &dir.join("runs"),
    );
    let read = || {
        std::fs::read_to_string(&out)
            .ok()
            .filter(|s| s.len() >= word.len())
    };
    let deadline = Instant::now() + if reaches { T } else { Duration::ZERO };
    let mut got = read();
    while got.is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
        got = read();
    }
    let space = server
        .requests()
        .iter()
        .filter_map(|r| r.json.as_ref())
        .find(|j| responder::image_size(j).is_some())
        .map(responder::read_space);
    Cell {
        profile: profile.to_string(),
        strategy,
        screen,
        reached: got.as_deref() == Some(word.as_str()),
        first_reply: first_reply(&transcript),
        space,
        output,
    }
}

fn first_reply(t: &Transcript) -> String {
    let replies = t.lock().map(|r| r.clone()).unwrap_or_default();
    let Some(r) = replies
        .iter()
        .find(|r| !r.tool_calls.iter().any(|(n, _)| n == "spawn_operator"))
    else {
        return "(none)".into();
    };
    let calls: Vec<String> = r
        .tool_calls
        .iter()
        .map(|(n, a)| format!("{n}({a})"))
        .collect();
    let text: String = r
        .content
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join(" | ");
    format!(
        "{} {}",
        text.chars().take(140).collect::<String>(),
        calls.join(" ")
    )
}

/// Every built-in profile's cells, `style` chosen per strategy; `reaches`: whether a
/// profile's cells are expected to reach the goal.
fn run_matrix(style: impl Fn(&str) -> Style, reaches: impl Fn(&str) -> bool) -> Vec<Cell> {
    let mut cells = Vec::new();
    for (i, p) in profile::builtin().iter().enumerate() {
        let screen = SCREENS[i % SCREENS.len()];
        let mut sb = Sandbox::start(&SandboxOptions {
            width: screen.0,
            height: screen.1,
            launch: vec![],
        })
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        for strategy in STRATEGIES {
            cells.push(cell(
                &mut sb,
                screen,
                (&p.name, strategy),
                style(strategy),
                reaches(&p.name),
                dir.path(),
            ));
        }
    }
    cells
}

/// The table of cells, for the log.
fn table(cells: &[Cell]) -> String {
    cells
        .iter()
        .map(|c| {
            format!(
                "{:<19} {:<10} {}x{} {:<8} {:?}: {}",
                c.profile,
                c.strategy,
                c.screen.0,
                c.screen.1,
                if c.reached { "reached" } else { "MISSED" },
                c.space,
                c.first_reply
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn failure(c: &Cell) -> String {
    let stderr = String::from_utf8_lossy(&c.output.stderr);
    let tail: Vec<&str> = stderr.lines().rev().take(12).collect();
    format!(
        "{} x {} (exit {:?}): {}\n  {}",
        c.profile,
        c.strategy,
        c.output.status.code(),
        c.first_reply,
        tail.into_iter().rev().collect::<Vec<_>>().join("\n  ")
    )
}

/// The space a profile's answers are in, as the responder reads prompts.
fn profile_is_norm(name: &str) -> bool {
    let p = profile::by_name(name).unwrap();
    matches!(p.coords, Coords::Franz | Coords::Norm1000)
}

/// Whether a profile's runs ask for the designs' formats in pixels: its dialect is one franz
/// reads but writes no prompt of, and its space is pixels (see the module's doc).
fn prompted_in_design_formats_in_pixels(name: &str) -> bool {
    let p = profile::by_name(name).unwrap();
    let own_prompt_missing = matches!(
        p.dialect(),
        Ok(Some(
            Dialect::Holo | Dialect::Venus | Dialect::Gemini | Dialect::Point
        ))
    );
    own_prompt_missing && p.coords == Coords::Pixels
}

#[test]
fn every_strategy_with_every_profile_reaches_the_goal_answering_as_asked() {
    let cells = run_matrix(|_| Style::Asked, |_| true);
    eprintln!("{}", table(&cells));
    let failed: Vec<String> = cells.iter().filter(|c| !c.reached).map(failure).collect();
    assert!(
        failed.is_empty(),
        "{} cells missed:\n{}",
        failed.len(),
        failed.join("\n")
    );
    // the prompt names the profile's own space
    for c in &cells {
        assert_eq!(
            matches!(c.space, Some(Space::Norm1000)),
            profile_is_norm(&c.profile),
            "{} x {}: the prompt asked for {:?}",
            c.profile,
            c.strategy,
            c.space
        );
    }
}

#[test]
fn the_designs_formats_reach_the_goal_where_their_space_is_the_profiles() {
    let design = |strategy: &str| {
        Style::Design(match strategy {
            "vision" => DesignFormat::VisionJson,
            "narrative" => DesignFormat::Calls,
            _ => DesignFormat::Tools,
        })
    };
    let cells = run_matrix(design, profile_is_norm);
    eprintln!("{}", table(&cells));
    // where the spaces differ, the click was refused with the setting that decides named;
    // where the prompt asked for these formats in pixels, it was performed at those pixels
    let refused = |c: &Cell| {
        let stderr = String::from_utf8_lossy(&c.output.stderr);
        stderr.contains("nothing was performed") && stderr.contains("--profile")
    };
    // (whether that point happens to fall on the terminal depends on where it was placed, so
    // those cells assert only that the click was performed, mapped as the image's pixels)
    let performed_as_pixels = |c: &Cell| {
        let stderr = String::from_utf8_lossy(&c.output.stderr);
        !stderr.contains("nothing was performed") && stderr.contains(r#""exact":{"at":["#)
    };
    let wrong: Vec<String> = cells
        .iter()
        .filter(|c| {
            if prompted_in_design_formats_in_pixels(&c.profile) {
                !performed_as_pixels(c)
            } else {
                c.reached != profile_is_norm(&c.profile) || (!c.reached && !refused(c))
            }
        })
        .map(|c| {
            format!(
                "expected reached={}: {}",
                profile_is_norm(&c.profile),
                failure(c)
            )
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{} cells wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// `franz run` with a planner (in `strategy`) and a grounding model beside it
/// (docs/grounding.md), each on its own scripted server; returns the run's output and the
/// servers' chat requests (planner, grounder) as JSON text.
fn grounded_run(
    sb: &Sandbox,
    (strategy, planner): (&str, Vec<ScriptedReply>),
    grounder: Script,
    runs: &Path,
) -> (Output, Vec<String>, Vec<String>) {
    let planner = ScriptedServer::start(Script::list(planner)).unwrap();
    let grounder = ScriptedServer::start(grounder).unwrap();
    let mut cmd = Command::new("timeout");
    cmd.arg("180").arg(env!("CARGO_BIN_EXE_franz"));
    for (k, _) in std::env::vars() {
        if k.starts_with("FRANZ_") {
            cmd.env_remove(k);
        }
    }
    cmd.env("DISPLAY", sb.display())
        .args([
            "run",
            "Click into the terminal window and type the word it waits for.",
        ])
        .args(["--model", model_id("qwen3-vl"), "--strategy", strategy])
        .args(["--api-url", &planner.url()])
        .args(["--grounder-model", model_id("gta1")])
        .args(["--grounder-api-url", &grounder.url()])
        .args(["--runs-dir", &runs.display().to_string()])
        .args(["--step-delay", "0", "--motion", "fast", "--max-steps", "6"]);
    let output = cmd.output().expect("run franz");
    let chats = |s: &ScriptedServer| -> Vec<String> {
        s.requests()
            .iter()
            .filter(|r| r.path.ends_with("chat/completions"))
            .map(|r| r.body.clone())
            .collect()
    };
    (output, chats(&planner), chats(&grounder))
}

/// The planner writes the target in words (Qwen3-VL, whose space is 0..1000, never gives a
/// point here); a grounder of another family and space (GTA1: pixels of its own smart_resize
/// of the screen) answers in its own format to its own prompt; the click lands in the
/// terminal, which then takes the typed word (the witness).
#[test]
fn a_planner_in_words_and_a_grounder_of_another_family_reach_the_goal() {
    let screen = (1600, 900);
    let mut sb = Sandbox::start(&SandboxOptions {
        width: screen.0,
        height: screen.1,
        launch: vec![],
    })
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (word, title) = ("w-grounded", "target-grounded");
    let out = dir.path().join("grounded.txt");
    let (x, y) = (
        (0.62 * screen.0 as f64) as u32,
        (0.66 * screen.1 as f64) as u32,
    );
    sb.launch(&format!(
        "xterm -T {title} -geometry 28x4+{x}+{y} -e sh -c 'stty raw -echo; head -c {} > {}'",
        word.len(),
        out.display()
    ))
    .unwrap();
    let (wx, wy, ww, wh) = poll("the terminal to map", T, || window(sb.display(), title));
    let fx = (wx as f64 + ww as f64 / 2.0) / screen.0 as f64;
    let fy = (wy as f64 + wh as f64 / 2.0) / screen.1 as f64;
    let target = format!("the terminal window titled {title}");
    let planner = vec![
        format!("click(target=\"{target}\")\nI click into the terminal."),
        format!("type(\"{word}\")\nI type the word."),
        "done(\"typed the word\")\nThe word is typed.".to_string(),
    ];
    let (grounder, _) = responder::script(vec![Intent::Click { fx, fy }], Style::Asked);
    let runs = dir.path().join("runs");
    let planner = (
        "narrative",
        planner.into_iter().map(ScriptedReply::text).collect(),
    );
    let (output, planned, grounded) = grounded_run(&sb, planner, grounder, &runs);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let got = poll("the word in the terminal's file", T, || {
        std::fs::read_to_string(&out)
            .ok()
            .filter(|s| s.len() >= word.len())
    });
    assert_eq!(got, word, "{stderr}");
    // the planner was told of the words form; the grounder was asked once, in GTA1's prompt
    assert!(planned[0].contains("TARGETS IN WORDS"), "{}", planned[0]);
    assert_eq!(grounded.len(), 1, "{stderr}");
    assert!(
        grounded[0].contains("Output the coordinate pair exactly"),
        "{}",
        grounded[0]
    );
    assert!(grounded[0].contains(&target), "{}", grounded[0]);
    assert!(stderr.contains("profile gta1"), "{stderr}");
    let said = format!("grounded {target:?} with {}", model_id("gta1"));
    assert!(stderr.contains(&said), "{stderr}");
    // the run directory's exchange log holds the grounder's request (its own prompt and
    // image) and its answer, marked as the grounder's, beside the planner's
    let (asked, answered) = grounder_exchange(&runs, &target);
    assert!(
        asked.contains("Output the coordinate pair exactly"),
        "{asked}"
    );
    assert!(asked.contains("<image sha256="), "{asked}");
    assert!(!asked.contains("TARGETS IN WORDS"), "{asked}");
    // the logged answer is the one the run read: it holds the grounded point
    let [px, py] = grounded_point(&runs);
    assert!(
        answered.contains(&px.to_string()) && answered.contains(&py.to_string()),
        "{answered} vs ({px}, {py})"
    );
}

/// The grounder's request body and its answer's text in the one run under `runs`'s
/// `exchange.jsonl`, for `target` (the records marked `"by": "grounder"`); the planner's
/// records are there too, unmarked.
fn grounder_exchange(runs: &Path, target: &str) -> (String, String) {
    let exchange = common::exchange_in(&common::run_dir(runs));
    let by = |r: &&serde_json::Value| r["by"] == "grounder";
    let mine: Vec<&serde_json::Value> = exchange.iter().filter(by).collect();
    assert_eq!(mine.len(), 2, "a request and its answer: {exchange:?}");
    assert!(
        mine.iter()
            .all(|r| r["target"] == target && r["model"] == model_id("gta1"))
    );
    assert!(
        exchange
            .iter()
            .any(|r| r.get("by").is_none() && r.get("request").is_some()),
        "the planner's requests: {exchange:?}"
    );
    let asked = mine[0]["request"].to_string();
    let answered = mine[1]["response"]["content"].as_str().unwrap_or_default();
    (asked, answered.to_string())
}

/// The grounder's point in its own space, as the run's `grounded` event gives it, in whole
/// numbers (GTA1 answers in pixels of its image).
fn grounded_point(runs: &Path) -> [i64; 2] {
    let events = common::events_in(&common::run_dir(runs));
    let g = events
        .iter()
        .find(|e| e["event"] == "grounded")
        .unwrap_or_else(|| panic!("no grounded event: {events:?}"));
    let at = |i: usize| g["point"][i].as_f64().unwrap_or(f64::NAN).round() as i64;
    [at(0), at(1)]
}

/// A grounder that answers garbage, in each form a planner names a target in (the narrative's
/// call lines, the vision loop's JSON, a tool call): the click is not performed (the terminal
/// never gets the focus, so it never takes the typed word), the run says why, and the planner
/// reads it.
#[test]
fn a_grounder_answering_garbage_performs_nothing() {
    let mut sb = Sandbox::start(&SandboxOptions {
        width: 1280,
        height: 800,
        launch: vec![],
    })
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (i, strategy) in ["narrative", "vision", "tools"].into_iter().enumerate() {
        let (word, title) = (
            format!("w-garbage-{i}"),
            format!("target-garbage-{strategy}"),
        );
        let out = dir.path().join(format!("garbage-{strategy}.txt"));
        sb.launch(&format!(
            "xterm -T {title} -geometry 28x4+{}+500 -e sh -c 'stty raw -echo; head -c {} > {}'",
            100 + 380 * i,
            word.len(),
            out.display()
        ))
        .unwrap();
        poll("the terminal to map", T, || window(sb.display(), &title));
        let target = format!("the terminal window titled {title}");
        let planner = (strategy, garbage_planner(strategy, &target, &word));
        let garbage = Script::repeat(ScriptedReply::text("I am not sure where that is."));
        let runs = dir.path().join(format!("runs-{strategy}"));
        let (output, planned, grounded) = grounded_run(&sb, planner, garbage, &runs);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let said = format!("{strategy}: {stderr}");
        assert_eq!(grounded.len(), 1, "{said}");
        // the garbage is in the exchange log as the grounder answered it
        let (asked, answered) = grounder_exchange(&runs, &target);
        assert!(
            asked.contains("Output the coordinate pair exactly"),
            "{asked}"
        );
        assert_eq!(answered, "I am not sure where that is.");
        assert!(stderr.contains("(target="), "{said}");
        assert!(stderr.contains("gave no point"), "{said}");
        assert!(
            planned.len() >= 2 && planned[1].contains("gave no point"),
            "{said}"
        );
        // no click: the terminal never had the focus, so the typed word went elsewhere
        let read = std::fs::read_to_string(&out).unwrap_or_default();
        assert!(read.is_empty(), "the terminal took {read:?}: {said}");
    }
}

/// A planner in `strategy` that names the terminal in words (`target`), then types `word`,
/// then gives up: each in the strategy's own form.
fn garbage_planner(strategy: &str, target: &str, word: &str) -> Vec<ScriptedReply> {
    match strategy {
        "narrative" => vec![
            ScriptedReply::text(format!("click(target={target:?})\nI click into it.")),
            ScriptedReply::text(format!("type({word:?})\nI type the word.")),
            ScriptedReply::text("fail(\"the terminal could not be found\")\nI give up."),
        ],
        "vision" => {
            let turn = |actions: serde_json::Value| {
                ScriptedReply::text(
                    serde_json::json!({"observation": "a terminal", "actions": actions})
                        .to_string(),
                )
            };
            vec![
                turn(serde_json::json!([{"name": "click", "target": target}])),
                turn(serde_json::json!([{"name": "type", "text": word}])),
                turn(
                    serde_json::json!([{"name": "fail", "text": "the terminal could not be found"}]),
                ),
            ]
        }
        _ => vec![
            ScriptedReply::text("I click into the terminal.")
                .tool_call("click_element", serde_json::json!({"target": target})),
            ScriptedReply::text("I type the word.")
                .tool_call("type_text", serde_json::json!({"text": word})),
            ScriptedReply::text("The terminal could not be found, so the word was not typed."),
        ],
    }
}
