//! The window under a point (`Desktop::window_at`, crates/desktop/src/x11/window_at.rs) on a
//! private Xvfb without a window manager: an xterm's WM_CLASS and title where it is, nothing
//! over the bare root.

#![cfg(target_os = "linux")]

use franz_desktop::sandbox::{Sandbox, SandboxOptions};
use franz_desktop::{DesktopOptions, PixelPoint};
use std::time::{Duration, Instant};

#[test]
fn the_window_under_a_point_is_found_by_class_and_title() {
    let sandbox = Sandbox::start(&SandboxOptions {
        width: 800,
        height: 600,
        launch: vec![
            "xterm -geometry 40x10+0+0 -T policy-probe -e sh -c 'exec sleep 100000'".into(),
        ],
    })
    .unwrap();
    let mut desktop = franz_desktop::open(&DesktopOptions {
        display: Some(sandbox.display().to_string()),
        monitor: None,
    })
    .unwrap();
    // the xterm maps when it is ready: wait for it (bounded), not a fixed time
    let deadline = Instant::now() + Duration::from_secs(20);
    let found = loop {
        if let Some(w) = desktop.window_at(PixelPoint::new(20, 20)).unwrap() {
            break w;
        }
        assert!(Instant::now() < deadline, "the xterm never mapped");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(found.class, "XTerm", "{found:?}");
    assert_eq!(found.instance, "xterm", "{found:?}");
    assert_eq!(found.title, "policy-probe", "{found:?}");
    assert_eq!(desktop.window_at(PixelPoint::new(700, 500)).unwrap(), None);
}

/// A reparenting window manager puts each client in a frame that has no WM_CLASS: the lookup
/// goes down through the frame to the client. The frame is made here, as a window manager
/// would make it.
#[test]
fn a_window_inside_a_frame_is_found_through_the_frame() {
    use x11rb::connection::Connection;
    use x11rb::protocol::xproto::{
        AtomEnum, ConnectionExt, CreateWindowAux, PropMode, WindowClass,
    };
    use x11rb::wrapper::ConnectionExt as _;
    let sandbox = Sandbox::start(&SandboxOptions {
        width: 800,
        height: 600,
        launch: vec![],
    })
    .unwrap();
    let (conn, screen) = x11rb::connect(Some(sandbox.display())).unwrap();
    let root = conn.setup().roots[screen].root;
    let frame = conn.generate_id().unwrap();
    let client = conn.generate_id().unwrap();
    let aux = CreateWindowAux::new().background_pixel(0);
    conn.create_window(
        0,
        frame,
        root,
        400,
        100,
        300,
        300,
        0,
        WindowClass::INPUT_OUTPUT,
        0,
        &aux,
    )
    .unwrap();
    conn.create_window(
        0,
        client,
        frame,
        10,
        30,
        280,
        260,
        0,
        WindowClass::INPUT_OUTPUT,
        0,
        &aux,
    )
    .unwrap();
    conn.change_property8(
        PropMode::REPLACE,
        client,
        AtomEnum::WM_CLASS,
        AtomEnum::STRING,
        b"probe\0Probe\0",
    )
    .unwrap();
    conn.change_property8(
        PropMode::REPLACE,
        client,
        AtomEnum::WM_NAME,
        AtomEnum::STRING,
        b"framed",
    )
    .unwrap();
    conn.map_window(client).unwrap();
    conn.map_window(frame).unwrap();
    // a round trip: the server has done all of the above before the lookup below
    conn.get_input_focus().unwrap().reply().unwrap();
    let mut desktop = franz_desktop::open(&DesktopOptions {
        display: Some(sandbox.display().to_string()),
        monitor: None,
    })
    .unwrap();
    let inside = desktop
        .window_at(PixelPoint::new(500, 200))
        .unwrap()
        .unwrap();
    assert_eq!(
        (inside.class.as_str(), inside.title.as_str()),
        ("Probe", "framed")
    );
    assert_eq!(inside.id, client as u64);
    // the frame's title bar (no client under it): the frame, without a class
    let bar = desktop
        .window_at(PixelPoint::new(500, 110))
        .unwrap()
        .unwrap();
    assert_eq!((bar.id, bar.class.as_str()), (frame as u64, ""));
}
