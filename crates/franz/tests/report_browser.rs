//! `franz report` in a real browser: headless Chromium loads the HTML from disk (offline, no
//! server), the page's script decodes every inlined screenshot, and the dumped DOM must show
//! all N turns with N decoded images. The report's player is driven through chromedriver (the
//! scrubber, play and pause), and `franz export --format gif|mp4` writes the same frames as an
//! animation that a GIF decoder reads back.

use crate::common;
use crate::common::browser;

use franz_core::event::{Event, EventKind, Outcome};
use franz_core::runlog::{Layout, RunWriter};

fn finished_run(root: &std::path::Path, turns: u32, layout: Layout) -> std::path::PathBuf {
    let mut w = RunWriter::create(root, layout).unwrap();
    w.event(&Event::now(
        0,
        EventKind::RunStarted {
            task: "fill in the form".into(),
            strategy: "vision".into(),
            model: "scripted".into(),
            run_dir: None,
            dry_run: false,
        },
    ))
    .unwrap();
    let (overlay, mut history) = common::overlay();
    for t in 1..=turns {
        common::write_turn(&mut w, &overlay, &mut history, t);
    }
    w.event(&Event::now(
        turns,
        EventKind::RunFinished {
            outcome: Outcome::Done,
            exit_code: 0,
            reason: "the model said done".into(),
            turns,
        },
    ))
    .unwrap();
    let dir = w.dir().to_path_buf();
    w.close().unwrap();
    dir
}

#[test]
fn report_shows_every_turn_and_every_image_decodes_in_chromium() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = finished_run(&tmp.path().join("runs"), 5, Layout::Flat);
    assert!(dir.ends_with("run_0001"));
    let out = common::franz(&["report", dir.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = dir.join("report.html");
    let dom = common::chromium_dom(&html);
    assert_eq!(
        common::body_attr(&dom, "data-turns").as_deref(),
        Some("5"),
        "{}",
        &dom[..dom.len().min(2000)]
    );
    assert_eq!(common::body_attr(&dom, "data-images").as_deref(), Some("5"));
    assert_eq!(
        common::body_attr(&dom, "data-decoded").as_deref(),
        Some("5"),
        "images did not decode"
    );
    assert!(dom.contains("5 of 5 images decoded"));
    assert_eq!(dom.matches("class=\"turn\"").count(), 5);
    assert!(dom.contains("fill in the form") && dom.contains("done (exit 0)"));
    assert!(dom.contains("&lt;right&gt;"), "the story is escaped text");
}

#[test]
fn a_corrupt_screenshot_is_counted_as_not_decoded() {
    // the decode check can fail: garble one PNG's header and the page reports 1 of 2
    // (Chromium still shows a merely truncated PNG, partially)
    let tmp = tempfile::tempdir().unwrap();
    let dir = finished_run(&tmp.path().join("runs"), 2, Layout::TurnDirs);
    let png = dir.join("turn_0002/screenshot_annotated.png");
    let mut bytes = std::fs::read(&png).unwrap();
    bytes[..16].copy_from_slice(b"this is no PNG..");
    std::fs::write(&png, &bytes).unwrap();
    let html = tmp.path().join("r.html");
    let out = common::franz(&[
        "report",
        dir.to_str().unwrap(),
        "-o",
        html.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let dom = common::chromium_dom(&html);
    assert_eq!(common::body_attr(&dom, "data-images").as_deref(), Some("2"));
    assert_eq!(
        common::body_attr(&dom, "data-decoded").as_deref(),
        Some("1")
    );
}

#[test]
fn report_and_replay_refuse_a_folder_that_is_not_a_run() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_str().unwrap();
    for args in [vec!["report", d], vec!["replay", d]] {
        let out = common::franz(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("not a run directory"));
    }
}

#[test]
fn replay_prints_turns_and_checks_its_range() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = finished_run(&tmp.path().join("runs"), 3, Layout::Flat);
    let d = dir.to_str().unwrap();
    let out = common::franz(&["replay", d, "--to", "2"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("turn 1: Story after turn 1"), "{stdout}");
    assert!(stdout.contains("would click at (100, 500)"), "{stdout}");
    // a failed action is shown with what happened; `--execute` would not run it again
    assert!(
        stdout.contains("(was failed: no window) -> --execute skips it"),
        "{stdout}"
    );
    assert!(!stdout.contains("turn 3:"), "{stdout}");
    let out = common::franz(&["replay", d, "--from", "3", "--to", "1"]);
    assert_eq!(out.status.code(), Some(2));
    // `--execute` is covered by tests/replay_execute.rs
}

/// What the player shows now: the frame's number, a hash of its image's src, its story, the
/// number of marks drawn over it, and the playing flag.
fn player_state(b: &browser::Browser) -> (String, String, String, u64, String) {
    let v = b.js(
        "var s=document.getElementById('frame').getAttribute('src')||'',h=0;\
         for(var i=0;i<s.length;i++){h=(h*31+s.charCodeAt(i))|0}\
         return [document.body.dataset.frame||'',String(h)+':'+s.length,\
         document.getElementById('frame-story').textContent,\
         document.querySelectorAll('#frame-marks g.mark').length,\
         document.body.dataset.playing||'']",
    );
    let a = v.as_array().unwrap();
    let text = |i: usize| a[i].as_str().unwrap_or("").to_string();
    (
        text(0),
        text(1),
        text(2),
        a[3].as_u64().unwrap_or(0),
        text(4),
    )
}

#[test]
fn the_report_player_scrubs_and_plays_through_the_turns_in_chromium() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = finished_run(&tmp.path().join("runs"), 4, Layout::Flat);
    let out = common::franz(&["report", dir.to_str().unwrap()]);
    assert!(out.status.success());
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    // one offline file: nothing is fetched from anywhere
    for outside in ["src=\"http", "href=\"http", "@import", "url(http"] {
        assert!(!html.contains(outside), "{outside}");
    }
    let b = browser::Browser::start();
    b.goto(&format!("file://{}", dir.join("report.html").display()));
    b.wait_body("frame", |v| v == "1");
    let first = player_state(&b);
    assert!(first.2.contains("Story after turn 1"), "{first:?}");
    assert!(first.3 >= 1, "turn 1's click is drawn: {first:?}");
    assert_eq!(first.4, "false");
    // the scrubber moves the frame: another image, another story
    b.js("var s=document.getElementById('scrubber');s.value='3';\
          s.dispatchEvent(new Event('input'))");
    b.wait_body("frame", |v| v == "3");
    let third = player_state(&b);
    assert_ne!(third.1, first.1, "the frame's image did not change");
    assert!(third.2.contains("Story after turn 3"), "{third:?}");
    assert!(third.3 >= 2, "turn 3's click and drag are drawn: {third:?}");
    // the story is text, not markup
    assert!(third.2.contains("<right>"), "{third:?}");
    let label = b.js("return document.getElementById('frame-label').textContent");
    assert_eq!(label.as_str(), Some("turn 3 (3 of 4)"));
    // play advances to the last frame on its own, then pauses
    b.click("#play");
    assert_eq!(b.body("playing"), "true");
    b.wait_body("frame", |v| v == "4");
    b.wait_body("playing", |v| v == "false");
    let last = player_state(&b);
    assert!(last.2.contains("Story after turn 4"), "{last:?}");
    assert_ne!(last.1, third.1);
    // play at the end starts over; pause stops where it is
    b.click("#play");
    b.wait_body("frame", |v| v == "1" || v == "2");
    b.click("#play");
    assert_eq!(b.body("playing"), "false");
    let stopped = b.body("frame");
    b.js("var s=document.getElementById('scrubber');s.value='2';\
          s.dispatchEvent(new Event('input'))");
    b.wait_body("frame", |v| v == "2");
    assert!(stopped == "1" || stopped == "2", "{stopped}");
}

/// The frames of an animated GIF, decoded: (width, height, frames as RGBA).
fn decode_gif(path: &std::path::Path) -> (u16, u16, Vec<Vec<u8>>) {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut d = options
        .read_info(std::fs::File::open(path).unwrap())
        .unwrap();
    let (w, h) = (d.width(), d.height());
    let mut frames = Vec::new();
    while let Some(f) = d.read_next_frame().unwrap() {
        assert_eq!((f.width, f.height), (w, h));
        assert_eq!(f.delay, 40, "400 ms a frame");
        frames.push(f.buffer.to_vec());
    }
    (w, h, frames)
}

#[test]
fn export_gif_writes_one_decodable_frame_per_turn() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = finished_run(&tmp.path().join("runs"), 5, Layout::TurnDirs);
    let gif = tmp.path().join("run.gif");
    let out = common::franz(&[
        "export",
        dir.to_str().unwrap(),
        "--format",
        "gif",
        "--out",
        gif.to_str().unwrap(),
        "--frame-ms",
        "400",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (w, h, frames) = decode_gif(&gif);
    assert_eq!(frames.len(), 5);
    // the screenshots are 320x180; the caption strip is added below
    assert_eq!(w, 320);
    assert!(h > 180 && h < 240, "{h}");
    assert!(
        stdout.contains(&format!("5 frames of 320x{h}, 400 ms each")),
        "{stdout}"
    );
    for pair in frames.windows(2) {
        assert_ne!(pair[0], pair[1], "consecutive turns give different frames");
    }
    // the default file is in the run directory, and --max-width scales the frames down
    let out = common::franz(&[
        "export",
        dir.to_str().unwrap(),
        "--format",
        "gif",
        "--max-width",
        "160",
        "--frame-ms",
        "400",
    ]);
    assert!(out.status.success());
    let (w, _, frames) = decode_gif(&dir.join("run.gif"));
    assert_eq!((w, frames.len()), (160, 5));
}

#[test]
fn export_mp4_needs_ffmpeg_and_feeds_it_every_frame() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = finished_run(&tmp.path().join("runs"), 3, Layout::Flat);
    let d = dir.to_str().unwrap();
    let mp4 = tmp.path().join("run.mp4");
    let bin = tmp.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let run = |path: &std::path::Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_franz"))
            .args([
                "export",
                d,
                "--format",
                "mp4",
                "--out",
                mp4.to_str().unwrap(),
            ])
            .env("PATH", path)
            .output()
            .unwrap()
    };
    // without ffmpeg: a usage error that says what to do, and nothing written
    let out = run(&bin);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("needs ffmpeg on PATH") && err.contains("--format gif"),
        "{err}"
    );
    assert!(!mp4.exists());
    // an ffmpeg that records what franz gives it (the real one is no test dependency): the
    // raw frames' size on its command line and every byte of every frame on stdin
    let fake = bin.join("ffmpeg");
    std::fs::write(
        &fake,
        "#!/bin/sh\nfor last; do :; done\nbytes=$(/usr/bin/wc -c)\necho \"$* $bytes\" >\"$last\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = run(&bin);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let size = stdout
        .split("frames of ")
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap();
    let (w, h) = size.split_once('x').unwrap();
    let (w, h): (usize, usize) = (w.parse().unwrap(), h.parse().unwrap());
    let got = std::fs::read_to_string(&mp4).unwrap();
    assert!(
        got.contains(&format!("-pix_fmt rgba -s {w}x{h} -r 1000/1000 -i -")),
        "{got}"
    );
    assert!(
        got.trim_end().ends_with(&format!(" {}", 3 * w * h * 4)),
        "{got}"
    );
}

#[test]
fn export_gif_refuses_a_run_without_screenshots() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = finished_run(&tmp.path().join("runs"), 2, Layout::TurnDirs);
    for t in ["turn_0001", "turn_0002"] {
        std::fs::remove_dir_all(dir.join(t)).unwrap();
    }
    let out = common::franz(&["export", dir.to_str().unwrap(), "--format", "gif"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("nothing to animate"), "{err}");
    // the folder formats still need their folder
    let out = common::franz(&["export", dir.to_str().unwrap(), "--format", "jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("give it with --out DIR"), "{err}");
}
