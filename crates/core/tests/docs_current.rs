//! The docs keep up with the code: every event kind, action kind and dialect the code knows has
//! its entry in `docs/`, with every field it serializes; no entry names one the code does not
//! know; and the examples in `docs/actions.md` (actions, results, dialect replies, key names)
//! are what the code does with them.

use crate::common::docs::{backquoted_after, doc, section};
use franz_core::NormBox;
use franz_core::action::{ACTION_NAMES, Action, ActionKind, ActionResult, ProgressStatus};
use franz_core::event::{EVENT_NAMES, Event, EventKind, Outcome};
use franz_core::model::Reply;
use franz_core::observe::StageTimings;
use franz_core::parser::{self, CoordMode, Dialect, ParseOptions};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

/// The fenced blocks of one language in `text`, in order.
fn fenced(text: &str, lang: &str) -> Vec<String> {
    let open = format!("```{lang}\n");
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(s) = rest.find(&open) {
        let body = &rest[s + open.len()..];
        let e = body.find("\n```").expect("an unclosed code fence");
        out.push(body[..e].to_string());
        rest = &body[e + 4..];
    }
    out
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|n| n.to_string()).collect()
}

#[test]
fn every_event_kind_has_its_section() {
    let text = doc("events.md");
    let kinds = section(&text, "Event kinds");
    assert_eq!(
        backquoted_after(kinds, "### "),
        set(EVENT_NAMES),
        "docs/events.md: one \"### `kind`\" section per event kind of crates/core/src/event.rs"
    );
}

#[test]
fn every_action_kind_has_its_row() {
    let text = doc("actions.md");
    let kinds = section(&text, "Action kinds");
    assert_eq!(
        backquoted_after(kinds, "| "),
        set(ACTION_NAMES),
        "docs/actions.md: one \"| `type` |\" row per action kind of crates/core/src/action.rs"
    );
}

#[test]
fn canonical_examples_and_results_read() {
    let text = doc("actions.md");
    let examples = fenced(section(&text, "Canonical Action JSON"), "json");
    assert_eq!(examples.len(), 1);
    let mut seen = BTreeSet::new();
    for line in examples[0].lines() {
        let a = Action::from_json(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        seen.insert(a.kind.name());
    }
    assert!(seen.len() >= 10, "{seen:?}");
    let results = fenced(section(&text, "Action kinds"), "json");
    assert_eq!(results.len(), 1);
    for line in results[0].lines() {
        let r: ActionResult = serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(serde_json::to_value(&r).unwrap()["status"], {
            let v: Value = serde_json::from_str(line).unwrap();
            v["status"].clone()
        });
    }
}

#[test]
fn every_dialect_has_a_section_with_an_example_that_parses() {
    let text = doc("actions.md");
    let dialects = section(&text, "Dialects");
    let names: Vec<&str> = Dialect::ALL.iter().map(Dialect::as_str).collect();
    assert_eq!(
        backquoted_after(dialects, "### "),
        set(&names),
        "docs/actions.md: one \"### `dialect`\" section per dialect of crates/core/src/parser"
    );
    for d in Dialect::ALL {
        let head = format!("### `{d}`\n");
        let start = dialects.find(&head).unwrap() + head.len();
        let body = &dialects[start..];
        let body = &body[..body.find("\n### ").unwrap_or(body.len())];
        let reply = fenced(body, "text");
        let expected = fenced(body, "json");
        assert_eq!(
            (reply.len(), expected.len()),
            (1, 1),
            "{d}: one ```text reply and one ```json list of actions"
        );
        let opts = ParseOptions {
            dialect: Some(d),
            coords: CoordMode::Norm,
        };
        let parsed = parser::parse_reply(&Reply::from_any_text(&reply[0]), &opts);
        assert_eq!(parsed.dialect, d);
        assert!(parsed.errors.is_empty(), "{d}: {:?}", parsed.errors);
        let expected: Value = serde_json::from_str(&expected[0]).unwrap();
        assert_eq!(
            serde_json::to_value(&parsed.actions).unwrap(),
            expected,
            "{d}: the example in docs/actions.md"
        );
    }
}

#[test]
fn documented_key_aliases_are_what_the_code_does() {
    let text = doc("actions.md");
    let keys = section(&text, "Keys");
    // the rows of the "written | canonical" table: every written form gives its canonical text
    let mut checked = 0;
    for line in keys.lines() {
        let cells: Vec<&str> = line.split(" | ").collect();
        if cells.len() != 2 || !line.starts_with("| `") {
            continue;
        }
        let names = |cell: &str| -> Vec<String> {
            cell.split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect()
        };
        let (written, canonical) = (names(cells[0]), names(cells[1]));
        for (i, w) in written.iter().enumerate() {
            // "a / b | x / y" pairs by position; "a, b | x" maps every name to x
            let want = if canonical.len() == written.len() {
                &canonical[i]
            } else {
                &canonical[0]
            };
            let got = franz_core::keys::normalize_combo(w)
                .unwrap_or_else(|e| panic!("docs/actions.md says {w:?} is a key: {e}"));
            assert_eq!(&got, want, "docs/actions.md: {w:?}");
            checked += 1;
        }
    }
    assert!(checked >= 40, "only {checked} key names checked");
}

/// One of each event kind with every field set, so that each serializes all its keys. A new
/// kind or field fails to compile or fails `every_event_field_is_documented` until it is added
/// here and to docs/events.md.
fn event_samples() -> Vec<EventKind> {
    let click: Action = ActionKind::Click {
        x: Some(1),
        y: Some(2),
    }
    .into();
    vec![
        EventKind::RunStarted {
            task: "t".into(),
            strategy: "narrative".into(),
            model: "m".into(),
            run_dir: Some("runs/run_0001".into()),
            dry_run: true,
        },
        EventKind::TurnStarted {},
        EventKind::Observation {
            width: 1,
            height: 1,
            bytes: 1,
            timings: StageTimings::default(),
            changed: Some(true),
            region: Some(NormBox::from_corners(1, 2, 3, 4)),
            reused: true,
            elements: None,
            area: Some(franz_core::observe::ObservedArea {
                rect: franz_desktop::PixelRect::new(1, 2, 3, 4),
                window: Some(franz_core::observe::ShownWindow {
                    id: 1,
                    title: "t".into(),
                    application: "a".into(),
                }),
                fallback: Some("why".into()),
            }),
        },
        EventKind::ModelRequest {
            model: "m".into(),
            attempt: 2,
            messages: 1,
            images: 1,
            bytes: 1,
            reason: Some("HTTP 503".into()),
            image: Some(franz_core::model::ImageCost {
                width: 28,
                height: 28,
                tokens: 1,
            }),
            image_tokens: 1,
            estimated_tokens: 10,
            context_tokens: Some(4096),
        },
        EventKind::ModelReply {
            ms: 1.0,
            text: "t".into(),
            story: Some("s".into()),
            actions: vec![click.clone()],
            bboxes: vec![NormBox::from_corners(1, 2, 3, 4)],
            prompt_tokens: Some(1),
            completion_tokens: Some(1),
        },
        EventKind::ActionResult {
            index: 0,
            action: click.clone(),
            result: ActionResult::ok(),
            ms: 1.0,
            early_exec_ms_saved: Some(250.0),
        },
        EventKind::Note { text: "n".into() },
        EventKind::Error {
            message: "e".into(),
            fatal: true,
        },
        EventKind::RunFinished {
            outcome: Outcome::Done,
            exit_code: 0,
            reason: "r".into(),
            turns: 1,
        },
        EventKind::Paused { reason: "r".into() },
        EventKind::Resumed {},
        EventKind::AwaitingApproval {
            actions: vec![click],
        },
        EventKind::AwaitingAnnotation { prompt: "p".into() },
        EventKind::AwaitingAnswer {
            question: "q".into(),
        },
        EventKind::ModelDelta { text: "t".into() },
        EventKind::ContextFitted {
            step: "fewer_screenshots".into(),
            tokens_before: 2,
            tokens_after: 1,
            budget: 1,
            images: 1,
            width: 1,
            height: 1,
        },
        EventKind::LoopDetected {
            action: "a".into(),
            turns: vec![1, 2],
            repeats: 2,
            stop: true,
        },
        EventKind::Refined {
            index: 0,
            action: "click".into(),
            from: [1, 2],
            to: [3, 4],
            distance: 2.8,
            crop: franz_desktop::PixelRect::new(0, 0, 640, 360),
            width: 640,
            height: 360,
            ms: 1.0,
            prompt_tokens: Some(1),
            completion_tokens: Some(1),
            error: Some("kept the first point: no pointer action in the reply".into()),
        },
        EventKind::Grounded {
            index: 0,
            target: "the Save button".into(),
            model: "gta1-7b".into(),
            point: [1.0, 2.0],
            of: [3.0, 4.0],
            screen: [5, 6],
            ms: 1.0,
            prompt_tokens: Some(1),
            completion_tokens: Some(1),
        },
    ]
}

/// The text of the `### \`name\`` subsection, up to the next heading.
fn subsection<'a>(text: &'a str, name: &str) -> &'a str {
    let head = format!("### `{name}`\n");
    let start = text
        .find(&head)
        .unwrap_or_else(|| panic!("no \"### `{name}`\""))
        + head.len();
    let end = text[start..].find("\n#").map_or(text.len(), |e| start + e);
    &text[start..end]
}

#[test]
fn every_event_field_is_documented() {
    let samples = event_samples();
    let names: Vec<&str> = samples.iter().map(EventKind::name).collect();
    assert_eq!(
        names, EVENT_NAMES,
        "event_samples: one sample per event kind"
    );
    let text = doc("events.md");
    let kinds = section(&text, "Event kinds");
    for kind in samples {
        let name = kind.name();
        let v = serde_json::to_value(Event {
            turn: 1,
            t_ms: 1,
            kind,
        })
        .unwrap();
        let body = subsection(kinds, name);
        for key in v.as_object().unwrap().keys() {
            if ["event", "turn", "t_ms"].contains(&key.as_str()) {
                continue;
            }
            assert!(
                body.contains(&format!("`{key}`")),
                "docs/events.md: the `{name}` section does not document its field `{key}`"
            );
        }
    }
}

/// One of each action kind with every field set.
fn action_samples() -> Vec<ActionKind> {
    use franz_desktop::{Button, ScrollDirection};
    let (x, y) = (Some(1), Some(2));
    vec![
        ActionKind::Move {
            x: Some(1),
            y: Some(2),
        },
        ActionKind::Click { x, y },
        ActionKind::RightClick { x, y },
        ActionKind::MiddleClick { x, y },
        ActionKind::DoubleClick { x, y },
        ActionKind::TripleClick { x, y },
        ActionKind::MouseDown {
            x,
            y,
            button: Button::Left,
        },
        ActionKind::MouseUp {
            x,
            y,
            button: Button::Left,
        },
        ActionKind::LongPress { x, y, seconds: 1.0 },
        ActionKind::Drag { x, y, x2: 3, y2: 4 },
        ActionKind::Scroll {
            x,
            y,
            direction: ScrollDirection::Down,
            amount: 3,
        },
        ActionKind::Type { text: "t".into() },
        ActionKind::Key { keys: "a".into() },
        ActionKind::HoldKey {
            keys: "shift".into(),
            seconds: 1.0,
        },
        ActionKind::Wait { seconds: 1.0 },
        ActionKind::Observe,
        ActionKind::Done { text: "t".into() },
        ActionKind::Fail { text: "t".into() },
        ActionKind::AskUser { text: "t".into() },
        ActionKind::ReportProgress {
            objective_id: "1".into(),
            status: ProgressStatus::Done,
            evidence: "e".into(),
        },
        ActionKind::ReportCompletion {
            evidence: "e".into(),
        },
        ActionKind::ListWindows,
        ActionKind::FocusWindow { window: "w".into() },
    ]
}

#[test]
fn every_action_field_is_documented() {
    let samples = action_samples();
    let names: Vec<&str> = samples.iter().map(ActionKind::name).collect();
    assert_eq!(
        names, ACTION_NAMES,
        "action_samples: one sample per action kind"
    );
    let text = doc("actions.md");
    let kinds = section(&text, "Action kinds");
    for kind in samples {
        let name = kind.name();
        let row = kinds
            .lines()
            .find(|l| l.starts_with(&format!("| `{name}` |")))
            .unwrap_or_else(|| panic!("no row for `{name}`"));
        let v = serde_json::to_value(Action::from(kind)).unwrap();
        for key in v.as_object().unwrap().keys() {
            if key == "type" {
                continue;
            }
            // `right_click` and friends say "as `click`" for the shared fields
            let shared = row.contains("as `click`") && ["x", "y"].contains(&key.as_str());
            assert!(
                shared || row.contains(&format!("`{key}`")),
                "docs/actions.md: the `{name}` row does not document its field `{key}`"
            );
        }
    }
}

/// Every file under `dir` with one of `exts`, recursively.
fn files_under(dir: &Path, exts: &[&str], out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for p in entries.filter_map(|e| e.ok().map(|e| e.path())) {
        if p.is_dir() {
            if !p.ends_with("fixtures") {
                files_under(&p, exts, out);
            }
        } else if p.extension().is_some_and(|e| exts.iter().any(|x| e == *x)) {
            out.push(p);
        }
    }
}

/// An issue number, the old contracts file, or a document outside the repository (the shared
/// folder beside it, the machine's work folder, the developers' brief and style notes).
const CITE: &str = r"(?i)\bissues? ?#?\d{1,3}\b|\bissue-\d|(?-i:CONTRACTS\.md)|\.\./shared/|/wor[k]/|(?-i:\bSTYL[E]\.md|\bbrie[f]\.md)";

/// The code and the docs cite `docs/` files, never an issue number or a document outside the
/// repository (docs/contracts.md's text, the project's history, excepted; its headings are not).
#[test]
fn no_source_or_doc_cites_an_issue_number() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for dir in ["crates", "docs", "scripts"] {
        files_under(&root.join(dir), &["rs", "md", "sh", "toml"], &mut files);
    }
    files.push(root.join("README.md"));
    let cite = regex::Regex::new(CITE).unwrap();
    let mut found = Vec::new();
    for f in files.iter().filter(|f| !f.ends_with("docs/contracts.md")) {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for (i, line) in text.lines().enumerate() {
            if cite.is_match(line) {
                found.push(format!("{}:{}: {line}", f.display(), i + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "cite docs/ instead:\n{}",
        found.join("\n")
    );
}

/// The headings of every document in `docs/` say what their section holds, never which issue
/// brought it ("(issue N)", "(issues N-M)", "Finishing N-M"): docs/contracts.md's too.
#[test]
fn no_doc_heading_names_an_issue() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    files_under(&root.join("docs"), &["md"], &mut files);
    assert!(files.iter().any(|f| f.ends_with("docs/contracts.md")));
    let cite = regex::Regex::new(CITE).unwrap();
    // a bare range of issue numbers, as "Finishing 17-20" had
    let range = regex::Regex::new(r"\b\d{1,2}-\d{1,2}\b|\bissues?\b").unwrap();
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for (i, line) in text.lines().enumerate() {
            if line.starts_with('#') && (cite.is_match(line) || range.is_match(line)) {
                found.push(format!("{}:{}: {line}", f.display(), i + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "give these headings titles that say what the section holds:\n{}",
        found.join("\n")
    );
}
