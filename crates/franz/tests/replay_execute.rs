//! `franz replay --execute` performs a recorded run again: the demo's run, replayed into a
//! fresh terminal, types the same line.

use std::process::Command;
use std::time::{Duration, Instant};

fn franz() -> Command {
    Command::new(env!("CARGO_BIN_EXE_franz"))
}

#[test]
fn replaying_the_demo_types_the_line_again() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let out = franz()
        .args(["demo", "--runs-dir"])
        .arg(&runs)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "demo failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = runs.join("run_0001");

    let note = dir.path().join("again.txt");
    let launch = format!(
        "xterm -geometry 60x16+40+40 -e sh -c 'cat > {}'",
        note.display()
    );
    let out = franz()
        .args([
            "--sandbox=1280x800",
            "--launch",
            &launch,
            "replay",
            "--execute",
        ])
        .arg(&run)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "replay failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    assert!(
        lines.iter().all(|l| l["result"]["status"] == "ok"),
        "{stdout}"
    );
    // the sandbox is gone once replay returns, so the line must already be in the file
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut text = String::new();
    while Instant::now() < deadline && !text.ends_with('\n') {
        text = std::fs::read_to_string(&note).unwrap_or_default();
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(text, "Hello from franz!\n");

    // without --execute nothing is performed, only described
    let out = franz().args(["replay"]).arg(&run).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("would type \"Hello from franz!\""));
}

// ---- replay replays what happened ----

use crate::common;

use common::sandbox;
use franz_core::action::{Action, ActionError, ActionKind, ActionResult, ErrorKind};
use franz_core::geometry::ImageSize;
use franz_core::runlog::{Layout, RunMeta, RunWriter, TurnEntry, TurnImage};
use franz_desktop::PixelPoint;
use franz_desktop::witness::{Witness, WitnessEvent, WitnessKind as K};
use std::path::{Path, PathBuf};
use std::process::Output;

const T: Duration = Duration::from_secs(20);

fn click(x: i32, y: i32) -> Action {
    ActionKind::Click {
        x: Some(x),
        y: Some(y),
    }
    .into()
}

fn failed(kind: ErrorKind, message: &str) -> ActionResult {
    ActionResult::Error(ActionError::new(kind, message))
}

/// A run directory as `franz run` writes it: `config.toml` (`config`), `run.json` with the
/// screen size (unless `None`) and the turns' actions and results.
fn write_run(
    root: &Path,
    config: &str,
    screen: Option<ImageSize>,
    turns: Vec<(Vec<Action>, Vec<ActionResult>)>,
) -> PathBuf {
    let mut w = RunWriter::create(root, Layout::Flat).unwrap();
    let table: toml::Table = config.parse().unwrap();
    w.write_config(&table).unwrap();
    if let Some(s) = screen {
        w.write_meta(&RunMeta { screen: Some(s) }).unwrap();
    }
    for (i, (actions, results)) in turns.into_iter().enumerate() {
        let turn = i as u32 + 1;
        let entry = TurnEntry {
            turn,
            story: format!("turn {turn}"),
            actions,
            results,
            ..TurnEntry::default()
        };
        let image = TurnImage::Rgba(common::screen(turn, 32, 18));
        w.write_turn(entry, image, None).unwrap();
    }
    let dir = w.dir().to_path_buf();
    w.close().unwrap();
    dir
}

/// A run of one executed click at `(x, y)` on a `screen`, with the whole screen as its crop
/// and fast motion.
fn one_click_run(root: &Path, screen: ImageSize, x: i32, y: i32) -> PathBuf {
    write_run(
        root,
        "crop = \"0,0,1000,1000\"\nmotion = \"fast\"\n",
        Some(screen),
        vec![(vec![click(x, y)], vec![ActionResult::ok()])],
    )
}

/// Runs franz on `display` with `env` added; FRANZ_* settings of the caller are removed.
fn franz_on(display: &str, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut cmd = franz();
    common::no_franz_env(&mut cmd);
    cmd.env("DISPLAY", display).envs(env.iter().copied());
    cmd.args(args).output().unwrap()
}

fn presses(ev: &[WitnessEvent]) -> Vec<PixelPoint> {
    ev.iter()
        .filter(|e| e.is(K::ButtonPress))
        .map(|e| e.at)
        .collect()
}

fn json_lines(out: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A click that surely reaches the witness (`franz act`, fast), after everything before it:
/// X delivers events in order, so once the witness has seen it, any input an earlier franz
/// sent has arrived too.
fn control_click(display: &str, witness: &Witness, x: i32, y: i32, presses_before: usize) {
    let action = format!(r#"{{"type":"click","x":{x},"y":{y}}}"#);
    let out = franz_on(display, &[], &["act", "--motion", "fast", &action]);
    assert!(out.status.success(), "{}", text(&out));
    let (ok, ev) = witness.wait_for(|e| presses(e).len() > presses_before, T);
    assert!(ok, "the control click never arrived: {ev:?}");
}

#[test]
fn replay_executes_only_what_the_run_executed_with_its_crop_and_motion() {
    let (sb, witness) = sandbox(800, 600);
    let dir = tempfile::tempdir().unwrap();
    // The run's work area is the bottom-right quarter: x 400..800, y 300..600.
    let run = write_run(
        dir.path(),
        "crop = \"500,500,1000,1000\"\nmotion = \"fast\"\ndry_run = false\n",
        Some(ImageSize::new(800, 600)),
        vec![
            (
                vec![click(500, 500), click(0, 0), click(1000, 1000)],
                vec![
                    ActionResult::ok(),
                    failed(ErrorKind::Rejected, "the user rejected: wrong window"),
                    failed(ErrorKind::TooManyActions, "over the per-turn cap"),
                ],
            ),
            (
                vec![click(250, 250), click(500, 0)],
                vec![
                    failed(ErrorKind::ExecutionFailed, "no window"),
                    ActionResult::ok(),
                ],
            ),
            // the run stopped before this action had a result
            (vec![click(0, 500)], vec![]),
        ],
    );
    let out = franz_on(
        sb.display(),
        &[],
        &["replay", "--execute", run.to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", text(&out));
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 6, "{}", text(&out));
    let ran: Vec<(u64, u64)> = lines
        .iter()
        .filter(|l| l["result"]["status"] == "ok")
        .map(|l| (l["turn"].as_u64().unwrap(), l["index"].as_u64().unwrap()))
        .collect();
    assert_eq!(ran, [(1, 0), (2, 1)], "{}", text(&out));
    let skipped: Vec<&str> = lines.iter().filter_map(|l| l["skipped"].as_str()).collect();
    assert_eq!(skipped.len(), 4, "{skipped:?}");
    assert!(skipped[0].contains("the user rejected"), "{skipped:?}");
    assert!(skipped[1].contains("too_many_actions"), "{skipped:?}");
    assert!(skipped[2].contains("execution_failed"), "{skipped:?}");
    assert!(skipped[3].contains("no result"), "{skipped:?}");
    // without --execute, the description says the same
    let out = franz_on(sb.display(), &[], &["replay", run.to_str().unwrap()]);
    let described = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        described.matches("-> would click").count(),
        2,
        "{described}"
    );
    assert_eq!(
        described.matches("-> --execute skips it").count(),
        4,
        "{described}"
    );

    control_click(sb.display(), &witness, 100, 100, 2);
    let ev = witness.events();
    // the run's crop: (500,500) and (500,0) of the bottom-right quarter
    assert_eq!(
        presses(&ev),
        [
            PixelPoint::new(600, 450),
            PixelPoint::new(600, 300),
            PixelPoint::new(80, 60)
        ]
    );
    // the run's motion (fast): the pointer jumps; human motion takes 20 steps to get there
    let first_press = ev.iter().position(|e| e.is(K::ButtonPress)).unwrap();
    let moves = ev[..first_press].iter().filter(|e| e.is(K::Motion)).count();
    assert!(moves <= 2, "{moves} motion events before the first click");
}

#[test]
fn a_screen_of_another_size_is_refused_unless_rescale() {
    let (sb, witness) = sandbox(800, 600);
    let dir = tempfile::tempdir().unwrap();
    let run = one_click_run(dir.path(), ImageSize::new(1024, 768), 250, 750);
    let run = run.to_str().unwrap();
    let out = franz_on(sb.display(), &[], &["replay", "--execute", run]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("recorded on a 1024x768 screen and this one is 800x600")
            && err.contains("--sandbox=1024x768")
            && err.contains("--rescale"),
        "{err}"
    );
    assert!(out.stdout.is_empty());

    let out = franz_on(
        sb.display(),
        &[],
        &["replay", "--execute", "--rescale", run],
    );
    assert!(out.status.success(), "{}", text(&out));
    // the normalized point on this screen; the refused replay sent nothing before it
    let (ok, ev) = witness.wait_for(|e| !presses(e).is_empty(), T);
    assert!(ok, "{ev:?}");
    control_click(sb.display(), &witness, 100, 100, 1);
    assert_eq!(
        presses(&witness.events()),
        [PixelPoint::new(200, 449), PixelPoint::new(80, 60)]
    );
}

#[test]
fn dry_run_from_the_environment_or_a_config_file_replays_nothing() {
    let (sb, witness) = sandbox(800, 600);
    let dir = tempfile::tempdir().unwrap();
    let run = one_click_run(dir.path(), ImageSize::new(800, 600), 250, 250);
    let run = run.to_str().unwrap();
    let config = dir.path().join("dry.toml");
    std::fs::write(&config, "dry_run = true\n").unwrap();
    let config = config.to_str().unwrap();
    for (env, args) in [
        (
            vec![("FRANZ_DRY_RUN", "1")],
            vec!["replay", "--execute", run],
        ),
        (vec![], vec!["--config", config, "replay", "--execute", run]),
    ] {
        let out = franz_on(sb.display(), &env, &args);
        assert!(out.status.success(), "{}", text(&out));
        let lines = json_lines(&out);
        assert_eq!(lines.len(), 1, "{}", text(&out));
        assert_eq!(lines[0]["result"]["status"], "ok");
    }
    // a run that was itself a dry run executed nothing, so there is nothing to replay
    let dry_run_dir = tempfile::tempdir().unwrap();
    let dry_run = write_run(
        dry_run_dir.path(),
        "motion = \"fast\"\ndry_run = true\n",
        Some(ImageSize::new(800, 600)),
        vec![(vec![click(750, 750)], vec![ActionResult::ok()])],
    );
    let out = franz_on(
        sb.display(),
        &[],
        &["replay", "--execute", dry_run.to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", text(&out));
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 1, "{}", text(&out));
    assert!(
        lines[0]["skipped"]
            .as_str()
            .is_some_and(|s| s.contains("dry run")),
        "{}",
        text(&out)
    );
    // positive control: the same replay without dry run clicks
    let out = franz_on(sb.display(), &[], &["replay", "--execute", run]);
    assert!(out.status.success(), "{}", text(&out));
    let (ok, ev) = witness.wait_for(|e| !presses(e).is_empty(), T);
    assert!(ok, "{ev:?}");
    control_click(sb.display(), &witness, 100, 100, 1);
    assert_eq!(
        presses(&witness.events()),
        [PixelPoint::new(200, 150), PixelPoint::new(80, 60)]
    );
}

#[test]
fn replay_acts_where_a_named_element_was_and_says_so_when_an_old_run_did_not_record_it() {
    let (sb, witness) = sandbox(800, 600);
    let dir = tempfile::tempdir().unwrap();
    let named = |n: u32, at: Option<[i32; 2]>| Action {
        element: Some(n),
        element_at: at,
        ..ActionKind::Click { x: None, y: None }.into()
    };
    let run = write_run(
        dir.path(),
        "crop = \"0,0,1000,1000\"\nmotion = \"fast\"\n",
        Some(ImageSize::new(800, 600)),
        vec![(
            vec![named(3, Some([250, 500])), named(4, None)],
            vec![ActionResult::ok(), ActionResult::ok()],
        )],
    );
    let out = franz_on(sb.display(), &[], &["replay", run.to_str().unwrap()]);
    let described = String::from_utf8_lossy(&out.stdout);
    assert!(
        described.contains("would click at (250, 500), where element 3 was"),
        "{described}"
    );
    assert!(
        described.contains("this action named element 4; the run did not record where"),
        "{described}"
    );
    let out = franz_on(
        sb.display(),
        &[],
        &["replay", "--execute", run.to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", text(&out));
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 2, "{}", text(&out));
    let skipped = lines.iter().find_map(|l| l["skipped"].as_str()).unwrap();
    assert!(skipped.contains("element 4"), "{skipped}");
    control_click(sb.display(), &witness, 100, 100, 1);
    // element 3 was at (250, 500) of the 800x600 screen
    assert_eq!(
        presses(&witness.events()),
        [PixelPoint::new(200, 300), PixelPoint::new(80, 60)]
    );
}
