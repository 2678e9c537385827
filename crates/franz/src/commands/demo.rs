//! `franz demo`: a complete loop on a sandboxed desktop with a real application and a
//! scripted model (no GPU, no model server): capture, annotation, actions on the app, the run
//! directory and the report. It says plainly that the model is scripted.

use crate::cli::{DemoArgs, GlobalArgs, RunArgs};
use crate::exit::{self, Exit};
use crate::flags::RunSettings;
use crate::setup;
use crate::terminal::{errln, outln};
use anyhow::Context;
use franz_core::event::Outcome;
use franz_core::model::responder::{self, Intent, Style};
use franz_core::model::scripted_server::ScriptedServer;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// What the scripted model does, turn by turn. It writes each reply in the format the run's
/// request asks for (the profile of the model id users run by default), so the demo shows
/// the family's own replies (crates/core/src/model/responder).
fn demo_plan() -> Vec<Intent> {
    vec![
        // the terminal's middle, as fractions of the screen the model is shown
        Intent::Click { fx: 0.2, fy: 0.2 },
        Intent::Type("Hello from franz!".into()),
        Intent::Key("enter".into()),
        Intent::Finish("typed the greeting into the terminal and pressed Enter".into()),
    ]
}

pub const DEMO_TASK: &str = "Click into the terminal, type 'Hello from franz!' and press Enter.";

pub fn run(g: &GlobalArgs, args: &DemoArgs) -> anyhow::Result<ExitCode> {
    let (effective, _) = crate::settings::resolve(g, &[], None)?;
    let what = "shows franz typing into a real terminal and checks what arrived";
    crate::input_commands::refuse_dry_run(&effective, "demo", what)?;
    errln!(
        "franz demo: the MODEL IS SCRIPTED here (a local fake server answers with a fixed plan,"
    );
    errln!(
        "written in the format franz asks the default model for), so you can watch every other part work:"
    );
    errln!("sandbox, capture, annotation, input, run log, report.");
    let note = std::env::temp_dir().join(format!("franz-demo-{}.txt", std::process::id()));
    let _ = std::fs::remove_file(&note);
    let mut global = g.clone();
    if global.sandbox.is_none() {
        global.sandbox = Some(franz_core::geometry::ImageSize::new(1280, 800));
    }
    global.launch.push(format!(
        "xterm -geometry 60x16+40+40 -e sh -c 'cat > {}'",
        note.display()
    ));
    let session = setup::open_desktop(&global)?;

    let (script, _) = responder::script(demo_plan(), Style::Asked);
    let server = ScriptedServer::start(script).context("cannot start the scripted model server")?;
    // the model id users run by default, its profile chosen as theirs is (`--profile auto`)
    let model = franz_core::config::Config::defaults().model.clone();
    let run_args = RunArgs {
        settings: RunSettings::default()
            .with("api_url", server.url())
            .with("model", model)
            .with("profile", "auto")
            .with("runs_dir", args.runs_dir.display().to_string())
            .with("max_steps", "8")
            .with("step_delay", "0.2"),
        ..RunArgs::default()
    };
    let (effective, _) = crate::settings::resolve_run(&global, &run_args)?;
    let (summary, _sandbox) =
        crate::session_clients::run_engine(session, &effective, DEMO_TASK.into(), &run_args)?;

    // the run directory is the newest one in runs_dir
    let run_dir = newest_run(&args.runs_dir)?;
    let report = run_dir.join("report.html");
    crate::report_file::write_report(&run_dir, &report)?;
    // cat writes the line when Enter arrives; give it a moment to reach the file
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut typed = String::new();
    while Instant::now() < deadline {
        typed = franz_core::files::read_settings(&note).unwrap_or_default();
        if typed.ends_with('\n') {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = std::fs::remove_file(&note);
    outln!("run directory: {}", run_dir.display())?;
    outln!("report: {}", report.display())?;
    outln!("the terminal received: {:?}", typed.trim_end())?;
    if summary.outcome != Outcome::Done {
        return Err(Exit(
            summary.exit_code(),
            format!("the demo did not finish: {}", summary.reason),
        )
        .into());
    }
    if typed.trim_end() != "Hello from franz!" {
        return Err(Exit(
            exit::FAILED,
            format!("the terminal received {typed:?} instead of the greeting"),
        )
        .into());
    }
    Ok(ExitCode::SUCCESS)
}

fn newest_run(root: &std::path::Path) -> anyhow::Result<std::path::PathBuf> {
    let mut runs: Vec<_> = std::fs::read_dir(root)
        .with_context(|| format!("cannot read {}", root.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("run_"))
        })
        .collect();
    runs.sort();
    runs.pop()
        .ok_or_else(|| anyhow::anyhow!("no run directory in {}", root.display()))
}
