//! The window tools: `list_windows` and `focus_window` in every franz dialect, and on a real
//! X server, where focusing the xterm behind another brings it to the front with the focus.

use crate::common;

use franz_core::executor::{ExecConfig, Executor};
use franz_core::parser::{Dialect, ParseOptions, parse_reply, parse_text};
use franz_core::{Action, ActionKind, ActionResult, ErrorKind, WorkArea};
use serde_json::json;

fn parsed(dialect: Dialect, text: &str) -> serde_json::Value {
    let opts = ParseOptions {
        dialect: Some(dialect),
        ..ParseOptions::default()
    };
    let p = parse_text(text, &opts);
    assert!(p.errors.is_empty(), "{text}: {:?}", p.errors);
    serde_json::to_value(&p.actions).unwrap()
}

#[test]
fn every_franz_dialect_reads_the_window_tools() {
    let want = json!([{"type":"list_windows"},{"type":"focus_window","window":"Notes"}]);
    assert_eq!(
        parsed(Dialect::Calls, "list_windows()\nfocus_window(\"Notes\")"),
        want
    );
    assert_eq!(
        parsed(
            Dialect::Calls,
            "list_windows()\nfocus_window(title=\"Notes\")"
        ),
        want
    );
    assert_eq!(
        parsed(
            Dialect::Json,
            r#"{"observation":"x","actions":[{"name":"list_windows"},{"name":"focus_window","window":"Notes"}]}"#
        ),
        want
    );
    use franz_core::model::types::{Reply, ToolCall};
    let reply = Reply {
        tool_calls: vec![
            ToolCall::new("list_windows", json!({})),
            ToolCall::new("focus_window", json!({"id": 4194305})),
        ],
        ..Reply::default()
    };
    let p = parse_reply(&reply, &ParseOptions::default());
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    assert_eq!(
        serde_json::to_value(&p.actions).unwrap(),
        json!([{"type":"list_windows"},{"type":"focus_window","window":"4194305"}])
    );
    // the tools strategy offers both
    let names: Vec<String> = franz_core::strategy::schema::tools_strategy(
        franz_core::strategy::grammar::Space::Norm1000,
    )
    .iter()
    .map(|t| serde_json::to_value(t).unwrap()["function"]["name"].to_string())
    .collect();
    assert!(names.contains(&"\"list_windows\"".to_string()), "{names:?}");
    assert!(names.contains(&"\"focus_window\"".to_string()), "{names:?}");
    // a focus_window without a window is refused, not guessed
    let p = parse_text(
        "focus_window()",
        &ParseOptions {
            dialect: Some(Dialect::Calls),
            ..ParseOptions::default()
        },
    );
    assert!(p.actions.is_empty() && !p.errors.is_empty(), "{p:?}");
}

/// A desktop without window tools: the actions get an error result, the run goes on, and no
/// input is sent.
#[test]
fn without_window_support_the_actions_are_errors_not_the_end() {
    let mut desktop = franz_desktop::fake::FakeDesktop::new(640, 480);
    let log = desktop.log();
    let area = WorkArea {
        rect: franz_desktop::PixelRect::new(0, 0, 640, 480),
    };
    let mut ex = Executor::new(area, ExecConfig::default(), false);
    let actions = [
        Action::from(ActionKind::ListWindows),
        Action::from(ActionKind::FocusWindow { window: "x".into() }),
    ];
    let results = ex.execute(&mut desktop, &actions).expect("not fatal");
    for r in &results {
        let ActionResult::Error(e) = r else {
            panic!("{r:?}")
        };
        assert_eq!(e.kind, ErrorKind::ExecutionFailed);
        assert!(e.message.contains("not supported"), "{e:?}");
    }
    assert!(log.sent().is_empty(), "{:?}", log.sent());
}

#[cfg(target_os = "linux")]
mod x11 {
    use super::*;
    use common::{TIMEOUT, poll};
    use franz_desktop::sandbox::{Sandbox, SandboxOptions};
    use franz_desktop::x11::{CaptureMethod, X11Desktop};
    use franz_desktop::{Desktop, PixelRect};
    use x11rb::connection::Connection;
    use x11rb::protocol::xproto::{AtomEnum, ConnectionExt, MapState};

    /// The viewable top-level windows, bottom of the stack first, and the input focus.
    fn stack_and_focus(display: &str) -> (Vec<u64>, u64) {
        let (conn, screen) = x11rb::connect(Some(display)).unwrap();
        let root = conn.setup().roots[screen].root;
        let tree = conn.query_tree(root).unwrap().reply().unwrap();
        let viewable = tree
            .children
            .into_iter()
            .filter(|w| {
                conn.get_window_attributes(*w)
                    .unwrap()
                    .reply()
                    .is_ok_and(|a| a.map_state == MapState::VIEWABLE)
            })
            .map(u64::from)
            .collect();
        let focus = conn.get_input_focus().unwrap().reply().unwrap().focus;
        (viewable, focus.into())
    }

    fn top(display: &str) -> Option<u64> {
        stack_and_focus(display).0.last().copied()
    }

    /// `_NET_ACTIVE_WINDOW` on the root, as a window manager keeps it.
    fn active_window(display: &str) -> Option<u64> {
        let (conn, screen) = x11rb::connect(Some(display)).unwrap();
        let root = conn.setup().roots[screen].root;
        let atom = conn
            .intern_atom(false, b"_NET_ACTIVE_WINDOW")
            .unwrap()
            .reply()
            .unwrap()
            .atom;
        let reply = conn
            .get_property(false, root, atom, AtomEnum::WINDOW, 0, 1)
            .unwrap()
            .reply()
            .unwrap();
        reply.value32().and_then(|mut v| v.next()).map(u64::from)
    }

    fn run(ex: &mut Executor, d: &mut X11Desktop, kind: ActionKind) -> ActionResult {
        ex.execute(d, &[Action::from(kind)]).unwrap().remove(0)
    }

    fn listing(r: &ActionResult) -> String {
        let ActionResult::Ok { warnings } = r else {
            panic!("{r:?}")
        };
        warnings
            .iter()
            .map(|w| format!("{}: {}", w.kind, w.message))
            .collect()
    }

    /// Without a window manager: franz raises the window and sets the input focus itself.
    #[test]
    fn focus_window_brings_the_xterm_behind_to_the_front() {
        focus_the_xterm_behind(false);
    }

    /// Under a window manager (openbox from scripts/deps.sh): the focus goes through a
    /// `_NET_ACTIVE_WINDOW` request, and the manager's `_NET_ACTIVE_WINDOW` changes. With none
    /// installed, starting one is an error that says what to install.
    #[test]
    fn focus_window_under_a_window_manager() {
        if franz_desktop::wm::find().is_none() {
            let mut sandbox = Sandbox::start(&SandboxOptions {
                width: 320,
                height: 200,
                launch: vec![],
            })
            .unwrap();
            let display = sandbox.display().to_string();
            let e = franz_desktop::wm::start(sandbox.programs(), &display).unwrap_err();
            assert!(e.to_string().contains("install openbox"), "{e}");
            eprintln!("no window manager installed: the focus through one was not tested");
            return;
        }
        focus_the_xterm_behind(true);
    }

    fn focus_the_xterm_behind(wm: bool) {
        let mut sandbox = Sandbox::start(&SandboxOptions {
            width: 800,
            height: 600,
            launch: vec![],
        })
        .unwrap();
        let display = sandbox.display().to_string();
        if wm {
            franz_desktop::wm::start(sandbox.programs(), &display).unwrap();
        }
        sandbox
            .launch("xterm -title behind -geometry 60x20+10+10")
            .unwrap();
        let mut desktop = X11Desktop::open_display(&display, None, CaptureMethod::Auto).unwrap();
        // the second xterm starts once the first shows, so that it maps on top of it
        poll("the first xterm", TIMEOUT, || {
            (desktop.windows().unwrap().len() == 1).then_some(())
        });
        sandbox
            .launch("xterm -title front -geometry 60x20+10+10")
            .unwrap();
        let windows = poll("two xterms", TIMEOUT, || {
            let w = desktop.windows().unwrap();
            let front_focused = !wm || w.iter().any(|w| w.title == "front" && w.focused);
            (w.len() == 2 && w.iter().all(|w| !w.title.is_empty()) && front_focused).then_some(w)
        });
        let behind = windows
            .iter()
            .find(|w| w.title == "behind")
            .unwrap()
            .clone();
        let front = windows.iter().find(|w| w.title == "front").unwrap().clone();
        assert_eq!(behind.application, "XTerm");
        assert!(
            behind.bounds.width > 100 && behind.bounds.x >= 10,
            "{behind:?}"
        );
        if !wm {
            assert_eq!(top(&display), Some(front.id));
        }

        let area = WorkArea {
            rect: PixelRect::new(0, 0, 800, 600),
        };
        let mut ex = Executor::new(area, ExecConfig::default(), false);
        let listed = listing(&run(&mut ex, &mut desktop, ActionKind::ListWindows));
        let first = listed.lines().next().unwrap();
        assert!(first.contains("\"front\""), "topmost first: {listed}");
        let behind_line = format!("{:#x} XTerm \"behind\" [", behind.id);
        assert!(listed.contains(&behind_line), "{listed}");

        // no match: an error that lists the titles, and nothing changes
        let none = ActionKind::FocusWindow {
            window: "calculator".into(),
        };
        let r = run(&mut ex, &mut desktop, none);
        let ActionResult::Error(e) = &r else {
            panic!("{r:?}")
        };
        assert_eq!(e.kind, ErrorKind::ExecutionFailed);
        assert!(e.message.contains("\"behind\""), "{e:?}");
        if !wm {
            assert_eq!(top(&display), Some(front.id));
        }
        let active_before = active_window(&display);

        let focus = ActionKind::FocusWindow {
            window: "BEHIND".into(),
        };
        let r = run(&mut ex, &mut desktop, focus);
        assert!(listing(&r).starts_with("focused: "), "{r:?}");
        if wm {
            assert_ne!(active_before, Some(behind.id));
            // the window manager acts on the request in its own time
            poll("_NET_ACTIVE_WINDOW to change", TIMEOUT, || {
                (active_window(&display) == Some(behind.id)).then_some(())
            });
        } else {
            let (stack, focus) = stack_and_focus(&display);
            assert_eq!(stack.last(), Some(&behind.id), "raised");
            assert_eq!(focus, behind.id, "focused");
        }
        let now = desktop.windows().unwrap();
        assert!(
            now.iter().any(|w| w.id == behind.id && w.focused),
            "{now:?}"
        );
        assert!(
            now.iter().any(|w| w.id == front.id && !w.focused),
            "{now:?}"
        );
    }
}
