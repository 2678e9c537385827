//! `franz report`: one self-contained HTML file for a run directory, readable offline.
//!
//! It shows the task and settings, totals (turns, actions, errors, model time against agent
//! time), a player that watches the run back turn by turn (player.rs), and the turns (the
//! screenshot the model saw with the turn's actions drawn over it (marks.rs), its observation
//! or story, the actions and what became of them, timings). Screenshots are inlined as data
//! URLs. It works on a run that is still going or crashed: it shows what `runlog::read_run`
//! could read, with its warnings. `animation.rs` makes the same frames into a GIF.
//!
//! A small script at the end counts the images that decoded and writes the count into
//! `<body data-images=".." data-decoded="..">` and `#decoded`, so a headless browser test (or a
//! reader) can see that every screenshot is intact.

mod animation;
mod marks;
mod player;
mod tokens;

pub use animation::{AnimationError, Frame, frames, write_gif};

use crate::action::ActionResult;
use crate::event::EventKind;
use crate::runlog::{RunLog, TurnView};
use base64::Engine as _;
use std::fmt::Write as _;

/// Totals over a run.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Totals {
    pub turns: usize,
    pub actions: usize,
    /// Failed actions, turn-level errors and error events.
    pub errors: usize,
    pub model_ms: f64,
    pub agent_ms: f64,
}

impl Totals {
    pub fn of(log: &RunLog) -> Self {
        let mut t = Totals {
            turns: log.turns.len(),
            ..Default::default()
        };
        for turn in &log.turns {
            let r = &turn.raw;
            t.actions += r.actions.len();
            t.errors += r.results.iter().filter(|x| !x.is_ok()).count();
            t.errors += usize::from(r.error.is_some());
            t.model_ms += r.timings.model_ms.unwrap_or(0.0);
            t.agent_ms += r.timings.agent_ms();
        }
        t.errors += log
            .events
            .iter()
            .filter(|e| matches!(e.kind, EventKind::Error { .. }))
            .count();
        t
    }
}

/// Escapes text for HTML element content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:1em;color:#222}\
h1{font-size:1.4em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}\
.turn{border-top:2px solid #888;margin-top:1.5em;padding-top:.5em}\
.story{white-space:pre-wrap;background:#f4f4f4;padding:.5em}.err{color:#b00}.ok{color:#070}.note{color:#666}\
.warn{background:#fff3cd;padding:.5em}pre{background:#f4f4f4;padding:.5em;overflow:auto}code{font-size:13px}";

// Counted on `load`, which fires only once every image has loaded or failed: an image that
// decoded has a natural width, a broken one has none. (A `decode()` promise can still be
// pending when a headless browser dumps the page, so it is not used.) The turns' images are
// counted; the player's frame shows one of them.
const SCRIPT: &str = "<script>window.addEventListener('load',function(){var imgs=Array.prototype.slice.call(document.querySelectorAll('section.turn img'));\
var n=imgs.filter(function(i){return i.complete&&i.naturalWidth>0}).length;document.body.setAttribute('data-decoded',n);\
var d=document.getElementById('decoded');if(d){d.textContent=n+' of '+imgs.length+' images decoded'}});</script>";

/// Builds the report. Screenshots that cannot be read are shown as a note, not an error.
pub fn build(log: &RunLog) -> String {
    let name = log
        .dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| log.dir.display().to_string());
    let totals = Totals::of(log);
    let mut h = String::with_capacity(64 * 1024);
    let _ = write!(
        h,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>franz report: {}</title><style>{STYLE}{}</style></head>",
        escape(&name),
        player::STYLE
    );
    let images = log
        .turns
        .iter()
        .filter(|t| t.shown_png().and_then(|p| read_png(log, p)).is_some())
        .count();
    let _ = write!(
        h,
        "<body data-turns=\"{}\" data-images=\"{images}\" data-decoded=\"0\"><h1>franz report: {}</h1>",
        totals.turns,
        escape(&name)
    );
    header(&mut h, log);
    let _ = write!(
        h,
        "<h2>Totals</h2><table id=\"totals\"><tr><th>turns</th><td>{}</td></tr><tr><th>actions</th><td>{}</td></tr>\
         <tr><th>errors</th><td>{}</td></tr><tr><th>model time</th><td>{}</td></tr><tr><th>agent time</th><td>{}</td></tr></table>\
         <p id=\"decoded\"></p>",
        totals.turns,
        totals.actions,
        totals.errors,
        secs(totals.model_ms),
        secs(totals.agent_ms)
    );
    h.push_str(&tokens::section(&log.events));
    h.push_str("<h2>Timeline</h2>");
    h.push_str(&player::html(log.turns.len()));
    for t in &log.turns {
        turn(&mut h, log, t);
    }
    if let Some(cfg) = &log.config {
        let _ = write!(
            h,
            "<h2>Settings</h2><pre id=\"settings\">{}</pre>",
            escape(cfg)
        );
    }
    h.push_str(SCRIPT);
    h.push_str(player::SCRIPT);
    h.push_str("</body></html>\n");
    h
}

fn secs(ms: f64) -> String {
    format!("{:.2} s", ms / 1000.0)
}

fn header(h: &mut String, log: &RunLog) {
    h.push_str("<table id=\"run\">");
    let mut row = |k: &str, v: &str| {
        let _ = write!(h, "<tr><th>{k}</th><td>{}</td></tr>", escape(v));
    };
    for e in &log.events {
        if let EventKind::RunStarted {
            task,
            strategy,
            model,
            dry_run,
            ..
        } = &e.kind
        {
            row("task", task);
            row("strategy", strategy);
            row("model", model);
            if *dry_run {
                row("dry run", "yes");
            }
        }
    }
    let finished = log.events.iter().rev().find_map(|e| match &e.kind {
        EventKind::RunFinished {
            outcome,
            exit_code,
            reason,
            ..
        } => Some(format!("{} (exit {exit_code}): {reason}", outcome.as_str())),
        _ => None,
    });
    row(
        "outcome",
        finished
            .as_deref()
            .unwrap_or("not finished: the run is still going, or it was cut off"),
    );
    row("directory", &log.dir.display().to_string());
    // the loop breaker's evidence (crate::loop_breaker)
    for e in &log.events {
        if let EventKind::LoopDetected {
            action,
            turns,
            stop,
            ..
        } = &e.kind
        {
            let then = if *stop { "run stopped" } else { "model warned" };
            row(
                "loop",
                &format!(
                    "turn {}: {action} on turns {turns:?} changed nothing ({then})",
                    e.turn
                ),
            );
        }
        // zoom-in refinement (docs/refine.md): both points of each refined action
        if let Some(line) = e.kind.refined_line() {
            row("refined", &format!("turn {}: {line}", e.turn));
        }
    }
    // the grounding model's points (docs/grounding.md)
    for e in &log.events {
        if let Some(line) = grounded_line(&e.kind) {
            row("grounded", &format!("turn {}: {line}", e.turn));
        }
    }
    h.push_str("</table>");
    if !log.warnings.is_empty() {
        h.push_str("<div class=\"warn\"><b>Warnings</b><ul>");
        for w in &log.warnings {
            let _ = write!(h, "<li>{}</li>", escape(w));
        }
        h.push_str("</ul></div>");
    }
}

/// What a `grounded` event says: the target's words, the grounder, its point in its space and
/// on the screen, its time and tokens.
fn grounded_line(kind: &EventKind) -> Option<String> {
    let EventKind::Grounded {
        target,
        model,
        point,
        of,
        screen,
        ms,
        prompt_tokens,
        completion_tokens,
        ..
    } = kind
    else {
        return None;
    };
    let n = |v: f64| crate::exact_target::Num(v).to_string();
    let tokens = match (prompt_tokens, completion_tokens) {
        (Some(p), Some(c)) => format!(", {p}+{c} tokens"),
        _ => String::new(),
    };
    Some(format!(
        "{target:?} by {model}: ({}, {}) of {}x{}, screen ({}, {}), {ms:.0} ms{tokens}",
        n(point[0]),
        n(point[1]),
        n(of[0]),
        n(of[1]),
        screen[0],
        screen[1]
    ))
}

fn read_png(log: &RunLog, rel: &str) -> Option<Vec<u8>> {
    // names come from the log; refuse anything that climbs out of the run directory, by its
    // name or through a link
    if rel.split(['/', '\\']).any(|p| p == "..") || rel.starts_with('/') {
        return None;
    }
    let path = log.dir.join(rel).canonicalize().ok()?;
    let dir = log.dir.canonicalize().ok()?;
    if !path.starts_with(&dir) {
        return None;
    }
    let what = "one file of a run directory";
    crate::files::read(&path, what, crate::files::RUN_FILE_CAP).ok()
}

/// The turn's screenshot inline with its actions drawn over it, or a note why there is none.
fn screenshot(h: &mut String, log: &RunLog, t: &TurnView) {
    let Some(shown) = t.shown_png() else {
        h.push_str(
            "<p class=\"note\">no screenshot kept for this turn (the run was logged with log_images = none)</p>",
        );
        return;
    };
    match read_png(log, shown) {
        Some(bytes) => {
            let _ = write!(
                h,
                "<div class=\"shot\"><img alt=\"turn {} screenshot\" src=\"data:{};base64,{}\">",
                t.raw.turn,
                image_mime(&bytes),
                base64::engine::general_purpose::STANDARD.encode(&bytes)
            );
            // marks need the image's size; an image too broken to name it gets none
            if let Some(svg) =
                image_size(&bytes).and_then(|size| marks::svg(size, &t.raw.actions, &t.raw.results))
            {
                h.push_str(&svg);
            }
            h.push_str("</div>");
        }
        None => {
            let _ = write!(
                h,
                "<p class=\"err\">screenshot {} is missing</p>",
                escape(shown)
            );
        }
    }
}

/// The media type of a run log's image: JPEG by its magic bytes (`image_format jpeg`), else
/// PNG (older runs hold only PNGs).
fn image_mime(bytes: &[u8]) -> &'static str {
    if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        "image/jpeg"
    } else {
        "image/png"
    }
}

/// The width and height a PNG's or JPEG's header gives.
fn image_size(bytes: &[u8]) -> Option<crate::geometry::ImageSize> {
    let reader = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .ok()?;
    let (w, h) = reader.into_dimensions().ok()?;
    (w > 0 && h > 0).then(|| crate::geometry::ImageSize::new(w, h))
}

fn turn(h: &mut String, log: &RunLog, t: &TurnView) {
    let r = &t.raw;
    let _ = write!(
        h,
        "<section class=\"turn\" id=\"turn-{0}\" data-turn=\"{0}\"><h3>Turn {0}</h3>",
        r.turn
    );
    if let Some(line) = log.observed_area(r.turn).and_then(|a| a.line()) {
        let _ = write!(h, "<p class=\"area\">{}</p>", escape(&line));
    }
    screenshot(h, log, t);
    let _ = write!(h, "<div class=\"story\">{}</div>", escape(&r.story));
    if let Some(e) = &r.error {
        let _ = write!(h, "<p class=\"err\">error: {}</p>", escape(e));
    }
    if !r.actions.is_empty() {
        h.push_str("<ol class=\"actions\">");
        for (i, a) in r.actions.iter().enumerate() {
            let json = serde_json::to_string(a).unwrap_or_default();
            let result = match r.results.get(i) {
                Some(ActionResult::Ok { warnings }) if warnings.is_empty() => {
                    "<span class=\"ok\">ok</span>".to_string()
                }
                Some(ActionResult::Ok { warnings }) => format!(
                    "<span class=\"ok\">ok</span>, {}",
                    escape(
                        &warnings
                            .iter()
                            .map(|w| w.message.as_str())
                            .collect::<Vec<_>>()
                            .join("; ")
                    )
                ),
                Some(ActionResult::Error(e)) => {
                    format!("<span class=\"err\">{}</span>", escape(&e.to_string()))
                }
                None => "not performed".into(),
            };
            let _ = write!(h, "<li><code>{}</code> → {result}</li>", escape(&json));
        }
        h.push_str("</ol>");
    }
    let tm = &r.timings;
    let mut parts: Vec<String> = Vec::new();
    if let Some(m) = tm.model_ms {
        parts.push(format!("model {m:.0} ms"));
    }
    if let Some(a) = tm.act_ms {
        parts.push(format!("act {a:.0} ms"));
    }
    if let Some(o) = tm.observe {
        let stages: Vec<String> = o
            .stages()
            .iter()
            .filter(|(_, v)| *v > 0.0)
            .map(|(n, v)| format!("{n} {v:.1}"))
            .collect();
        parts.push(format!("observe ({} ms)", stages.join(", ")));
    }
    if let Some(t) = tm.turn_ms {
        parts.push(format!("turn {t:.0} ms"));
    }
    if !parts.is_empty() {
        let _ = write!(h, "<p class=\"timings\">{}</p>", escape(&parts.join(" · ")));
    }
    h.push_str("</section>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::{ActionError, ActionKind, ErrorKind};
    use crate::runlog::{Layout, RunWriter, TurnEntry, TurnImage, TurnTimings, read_run};

    #[test]
    fn report_escapes_and_counts() {
        let root = tempfile::tempdir().unwrap();
        let mut w = RunWriter::create(root.path(), Layout::Flat).unwrap();
        let png = crate::observe::encode_image(
            &crate::observe::RgbaImage {
                width: 2,
                height: 2,
                data: vec![255; 16],
            },
            crate::observe::ImageFormat::Png,
        )
        .unwrap();
        w.write_turn(
            TurnEntry {
                turn: 1,
                story: "<script>alert(1)</script>".into(),
                actions: vec![
                    ActionKind::Click {
                        x: Some(1),
                        y: Some(2),
                    }
                    .into(),
                    ActionKind::Type {
                        text: String::new(),
                    }
                    .into(),
                ],
                results: vec![
                    ActionResult::ok(),
                    ActionResult::Error(ActionError::new(ErrorKind::EmptyText, "empty")),
                ],
                timings: TurnTimings {
                    model_ms: Some(1500.0),
                    turn_ms: Some(2000.0),
                    ..Default::default()
                },
                ..Default::default()
            },
            TurnImage::Png(png),
            None,
        )
        .unwrap();
        let log = read_run(w.dir()).unwrap();
        let t = Totals::of(&log);
        assert_eq!((t.turns, t.actions, t.errors), (1, 2, 1));
        assert_eq!((t.model_ms, t.agent_ms), (1500.0, 500.0));
        let html = build(&log);
        assert!(!html.contains("<script>alert"));
        assert!(html.contains("&lt;script&gt;alert(1)"));
        assert!(html.contains("data-turns=\"1\" data-images=\"1\""));
        assert!(html.contains("data:image/png;base64,"));
        assert!(html.contains("not finished"));
    }

    #[test]
    fn the_loop_breakers_evidence_is_in_the_report() {
        let root = tempfile::tempdir().unwrap();
        let mut w = RunWriter::create(root.path(), Layout::Flat).unwrap();
        let kind = EventKind::LoopDetected {
            action: "{\"type\":\"click\",\"x\":400,\"y\":408}".into(),
            turns: vec![1, 2],
            repeats: 2,
            stop: false,
        };
        w.event(&crate::event::Event::now(3, kind)).unwrap();
        let dir = w.dir().to_path_buf();
        w.close().unwrap();
        let html = build(&read_run(&dir).unwrap());
        assert!(html.contains("<th>loop</th>"), "{html}");
        assert!(
            html.contains("turn 3: {&quot;type&quot;:&quot;click&quot;,&quot;x&quot;:400,&quot;y&quot;:408} on turns [1, 2] changed nothing (model warned)"),
            "{html}"
        );
    }

    #[test]
    fn the_grounders_points_are_in_the_report() {
        let root = tempfile::tempdir().unwrap();
        let mut w = RunWriter::create(root.path(), Layout::Flat).unwrap();
        let kind = EventKind::sample_grounded();
        w.event(&crate::event::Event::now(2, kind)).unwrap();
        let dir = w.dir().to_path_buf();
        w.close().unwrap();
        let html = build(&read_run(&dir).unwrap());
        assert!(html.contains("<th>grounded</th>"), "{html}");
        assert!(
            html.contains("turn 2: &quot;the Save button&quot; by gta1-7b: (640, 360) of 1288x728, screen (954, 534), 212 ms, 1300+7 tokens"),
            "{html}"
        );
    }
}
