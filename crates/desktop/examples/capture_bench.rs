//! Times screen capture on `$DISPLAY`: `cargo run --release -p franz-desktop --example
//! capture_bench [N] [both]`.
//!
//! Opens the desktop the way franz does (`$DISPLAY`, `FRANZ_X11_NO_SHM`), prints what it uses,
//! then the median, min and max of N captures (default 100). With `both` it also times
//! forced GetImage on the same display. The last line times a plain `memcpy` of a frame's
//! bytes, the floor for any capture that copies the pixels once.
//!
//! Measured on the 2-core dev box, `scene.sh 90` (1920x1080), release build:
//! MIT-SHM median 1.9 ms, GetImage median 11 ms, memcpy of 8 MB 0.9 ms.

use franz_desktop::DesktopOptions;
use std::time::Instant;

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.first().map(|a| a.parse()).transpose()?.unwrap_or(100);

    let mut desktop = franz_desktop::open(&DesktopOptions::default())?;
    println!("{}", desktop.describe());
    time("capture", n, || desktop.capture().map(|_| ()))?;

    #[cfg(target_os = "linux")]
    if args.iter().any(|a| a == "both") {
        use franz_desktop::Desktop;
        use franz_desktop::x11::{CaptureMethod, X11Desktop};
        let display = std::env::var("DISPLAY")?;
        let mut slow = X11Desktop::open_display(&display, None, CaptureMethod::GetImage)?;
        println!("{}", slow.describe());
        time("capture", n, || slow.capture().map(|_| ()))?;
    }

    let frame = desktop.capture()?;
    let mut copy = vec![0u8; frame.data.len()];
    time("memcpy", n, || {
        copy.copy_from_slice(&frame.data);
        std::hint::black_box(&copy);
        Ok(())
    })?;
    time("from_bgrx", n, || {
        let f = franz_desktop::Frame::from_bgrx(frame.width, frame.height, &copy, frame.stride);
        std::hint::black_box(&f);
        Ok(())
    })?;
    time("cursor", n, || desktop.cursor().map(|_| ()))?;
    println!("frame {}x{}", frame.width, frame.height);
    Ok(())
}

/// Runs `f` n times and prints `label: median X ms, min Y ms, max Z ms`.
fn time(
    label: &str,
    n: usize,
    mut f: impl FnMut() -> Result<(), franz_desktop::DesktopError>,
) -> Result<(), franz_desktop::DesktopError> {
    f()?; // warm-up: page faults, first allocation
    let mut ms = Vec::with_capacity(n);
    for _ in 0..n.max(1) {
        let t = Instant::now();
        f()?;
        ms.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    ms.sort_by(f64::total_cmp);
    println!(
        "{label}: median {:.2} ms, min {:.2} ms, max {:.2} ms over {} runs",
        ms[ms.len() / 2],
        ms[0],
        ms[ms.len() - 1],
        ms.len()
    );
    Ok(())
}
