//! Test support: starts a sandbox with the programs given as arguments, prints
//! `ready DISPLAY XVFB_PID APP_PID...` and waits until stdin closes (or a signal kills it).
//! The sandbox tests use it to check that nothing survives an exit or a SIGINT.

#[cfg(not(target_os = "linux"))]
fn main() {
    eprintln!("sandbox_hold is Linux test support (the sandbox is Xvfb)");
    std::process::exit(2);
}

#[cfg(target_os = "linux")]
fn main() {
    use franz_desktop::sandbox::{Sandbox, SandboxOptions};
    use std::io::Read;

    let launch: Vec<String> = std::env::args().skip(1).collect();
    let fail = launch.iter().any(|a| a == "--fail");
    let launch = launch.into_iter().filter(|a| a != "--fail").collect();
    let sandbox = match Sandbox::start(&SandboxOptions {
        width: 640,
        height: 480,
        launch,
    }) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let pids: Vec<String> = sandbox.app_pids().iter().map(u32::to_string).collect();
    println!(
        "ready {} {} {}",
        sandbox.display(),
        sandbox.xvfb_pid(),
        pids.join(" ")
    );
    if fail {
        // an error path: the sandbox is dropped while the error propagates
        drop(sandbox);
        std::process::exit(1);
    }
    let mut buf = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut buf);
}
