//! The command line: global flags (docs/architecture.md) and subcommands, parsed by clap.
//!
//! Global flags are accepted before or after the subcommand (`global = true`). What the user
//! typed is validated here; turning it into real objects is `setup`'s job.

use clap::{Args, Parser, Subcommand};
use franz_core::{Crop, ImageSize};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "franz",
    version,
    about = "A fast, exact computer-use agent driven by a vision-language model"
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Args, Default)]
pub struct GlobalArgs {
    /// A TOML configuration file.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Run on a private Xvfb desktop (default 1920x1080), stopped afterwards.
    #[arg(long, global = true, value_name = "WxH", num_args = 0..=1, default_missing_value = "1920x1080", require_equals = true)]
    pub sandbox: Option<ImageSize>,
    /// Start a program on the display before the command (repeatable); it is stopped afterwards.
    #[arg(long, global = true, value_name = "CMD")]
    pub launch: Vec<String>,
    /// Which monitor to use (default: the primary).
    #[arg(long, global = true, value_name = "N")]
    pub monitor: Option<usize>,
    /// The working area, x1,y1,x2,y2 in 0..1000 of the screen.
    #[arg(long, global = true, value_name = "x1,y1,x2,y2")]
    pub crop: Option<Crop>,
    /// The exact size of the image sent to the model.
    #[arg(long, global = true, value_name = "WxH", conflicts_with = "scale")]
    pub size: Option<ImageSize>,
    /// Scale the working area uniformly, in percent.
    #[arg(long, global = true, value_name = "PCT", value_parser = parse_scale)]
    pub scale: Option<f64>,
    /// Decide everything, execute nothing.
    #[arg(long, global = true)]
    pub dry_run: bool,
    /// Do not draw the mouse cursor into the screenshot.
    #[arg(long, global = true)]
    pub no_cursor: bool,
}

fn parse_scale(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim_end_matches('%')
        .parse()
        .map_err(|_| format!("{s:?} is not a number"))?;
    if !(1.0..=400.0).contains(&v) {
        return Err(format!(
            "{v} is out of range: give a percentage from 1 to 400"
        ));
    }
    Ok(v)
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the agent on a task.
    Run(Box<RunArgs>),
    /// Run a complete scripted loop on a sandboxed desktop (no GPU or model needed).
    Demo(DemoArgs),
    /// Print the effective configuration and where each value came from.
    Config(Box<RunArgs>),
    /// Check the display, capture, input injection and the model server; say what to fix.
    Doctor(Box<RunArgs>),
    /// List the scenarios in a folder.
    Scenarios(ScenariosArgs),
    /// Capture the screen to a PNG file.
    Screenshot(ScreenshotArgs),
    /// Measure parts of franz.
    #[command(subcommand)]
    Bench(BenchCommand),
    /// Execute actions (canonical JSON) on the desktop, printing each result as JSON.
    Act(crate::commands::act::ActArgs),
    /// Write a self-contained HTML report of a run directory.
    Report(ReportArgs),
    /// Print a run's turns; with --execute, perform its actions again.
    Replay(ReplayArgs),
    /// Parse one model reply from stdin and print its actions as JSON.
    Parse(ParseArgs),
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The run directory (e.g. runs/run_0001).
    pub run_dir: PathBuf,
    /// Where to write the HTML (default: RUN_DIR/report.html).
    #[arg(short = 'o', long = "output", value_name = "FILE.html")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The run directory (e.g. runs/run_0001).
    pub run_dir: PathBuf,
    /// Perform the actions the run executed, on the current desktop, with the run's crop and
    /// motion (without it: only report them).
    #[arg(long)]
    pub execute: bool,
    /// With --execute on a screen of another size than the run's: replay the normalized
    /// coordinates on this screen instead of refusing.
    #[arg(long, requires = "execute")]
    pub rescale: bool,
    /// First turn to replay.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub from: Option<u32>,
    /// Last turn to replay.
    #[arg(long, value_name = "M", value_parser = clap::value_parser!(u32).range(1..))]
    pub to: Option<u32>,
}

#[derive(Debug, Args)]
pub struct ParseArgs {
    /// The reply's dialect, or auto to detect it.
    #[arg(long, default_value = "auto", value_parser = ["auto", "json", "calls", "tools", "qwen", "uitars", "anthropic", "openai"])]
    pub dialect: String,
    /// How the model gives coordinates: 0..1000 (norm) or pixels of the image.
    #[arg(long, value_enum, default_value_t = CoordsArg::Norm)]
    pub coords: CoordsArg,
    /// The size of the image the model saw, for --coords pixels.
    #[arg(long, value_name = "WxH")]
    pub image_size: Option<ImageSize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CoordsArg {
    Norm,
    Pixels,
}

#[derive(Debug, Args)]
pub struct ScreenshotArgs {
    /// Where to write the PNG.
    #[arg(default_value = "screenshot.png")]
    pub out: PathBuf,
    /// Width to resize to (with HEIGHT).
    #[arg(requires = "height")]
    pub width: Option<u32>,
    /// Height to resize to.
    pub height: Option<u32>,
}

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Run the observation pipeline N times and print per-stage medians.
    Observe(BenchObserveArgs),
    /// Time from a click action to the event arriving at the witness window.
    Act(crate::commands::act::BenchActArgs),
    /// Draw the overlays N times on a 1536x864 frame and print the median.
    Overlay(BenchOverlayArgs),
    /// Write N turns through the run-directory writer and print the per-turn cost.
    Runlog(BenchRunlogArgs),
    /// Time from a stop to `run_finished` in a hung model call, a wait, a type and a drag.
    Stop(crate::commands::bench_stop::BenchStopArgs),
}

#[derive(Debug, Args)]
pub struct BenchOverlayArgs {
    /// How many draws to time.
    #[arg(long, default_value_t = 200)]
    pub iterations: usize,
}

#[derive(Debug, Args)]
pub struct BenchRunlogArgs {
    /// How many turns to write.
    #[arg(long, default_value_t = 30)]
    pub turns: usize,
    /// Where to create the scratch runs folder (default: the system temp folder); removed after.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct BenchObserveArgs {
    /// How many turns to run.
    #[arg(long, default_value_t = 50)]
    pub turns: usize,
}

/// Flags of `franz run` (and `franz config`, which shows what they resolve to).
#[derive(Debug, Clone, Args, Default)]
pub struct RunArgs {
    /// The task. Without it (and without --scenario) franz asks for one on a terminal.
    pub task: Option<String>,
    /// A scenario file: task, strategy, limits and programs to launch.
    #[arg(long, value_name = "FILE.toml")]
    pub scenario: Option<PathBuf>,
    /// narrative (default), vision, tools or commander.
    #[arg(long)]
    pub strategy: Option<String>,
    /// The model server: base URL (http://localhost:1234/v1) or full endpoint.
    #[arg(long, value_name = "URL")]
    pub api_url: Option<String>,
    #[arg(long)]
    pub model: Option<String>,
    #[arg(long)]
    pub temperature: Option<String>,
    #[arg(long)]
    pub top_p: Option<String>,
    #[arg(long)]
    pub max_tokens: Option<String>,
    /// Whole-request timeout in seconds (0 = none).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<String>,
    /// Stream replies (SSE).
    #[arg(long)]
    pub stream: bool,
    /// Turns before giving up (default 100; 0 = unbounded).
    #[arg(long, value_name = "N")]
    pub max_steps: Option<String>,
    /// Time before giving up: seconds, or 90s, 30m, 2h (default 30m; 0 = unbounded).
    #[arg(long, value_name = "SECS")]
    pub max_time: Option<String>,
    /// Seconds to wait after each turn's actions.
    #[arg(long, value_name = "SECS")]
    pub step_delay: Option<String>,
    /// human (default) or fast.
    #[arg(long)]
    pub motion: Option<String>,
    /// Where run directories go.
    #[arg(long, value_name = "DIR")]
    pub runs_dir: Option<String>,
    /// flat (default) or turn_dirs.
    #[arg(long)]
    pub log_layout: Option<String>,
    /// norm (0..1000, default) or pixels (of the image sent).
    #[arg(long)]
    pub coords: Option<String>,
    /// Force a reply dialect (auto, json, calls, tools, qwen, uitars, anthropic, openai).
    #[arg(long)]
    pub dialect: Option<String>,
    /// Do not draw the last actions onto the next screenshot.
    #[arg(long)]
    pub no_feedback: bool,
    /// Do not stop when the pointer is in the top-left corner.
    #[arg(long)]
    pub no_failsafe: bool,
    /// Replace the strategy's system prompt with this file's text.
    #[arg(long, value_name = "FILE")]
    pub system_prompt: Option<PathBuf>,
    /// vision: a reply to use on turn 1 instead of asking the model (docs/seeds.md: boot reply).
    #[arg(long, value_name = "TEXT")]
    pub boot_reply: Option<String>,
    /// Serve the live panel (default 127.0.0.1 on a free port); prints its URL with a token.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:0", require_equals = true)]
    pub panel: Option<String>,
    /// Allow --panel on a non-loopback address (anyone with the token can steer the run).
    #[arg(long, requires = "panel")]
    pub panel_allow_remote: bool,
    /// Each turn's actions wait for approval (in the panel, else y/n/edit on the terminal).
    #[arg(long)]
    pub approve: bool,
    /// The panel draws the overlays and the engine waits for its annotated image each turn.
    #[arg(long, requires = "panel")]
    pub annotate_in_panel: bool,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Where the run directory goes.
    #[arg(long, default_value = "runs")]
    pub runs_dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct ScenariosArgs {
    /// The folder to list.
    #[arg(default_value = "scenarios")]
    pub dir: PathBuf,
}
