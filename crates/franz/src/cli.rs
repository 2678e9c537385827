//! The command line: global flags (docs/architecture.md) and subcommands, parsed by clap.
//!
//! Global flags are accepted before or after the subcommand (`global = true`). The setting
//! flags come from the settings table (`flags.rs`); each command takes the groups it uses.
//! Turning what the user typed into real objects is `settings`' and `setup`'s job.

use crate::flags::{GlobalSettings, InputSettings, ModelSettings, RunSettings};
use clap::builder::PossibleValuesParser;
use clap::{Args, Parser, Subcommand};
use franz_core::ImageSize;
use franz_core::config::{Choice, Coords};
use franz_core::parser::Dialect;
use franz_core::strategy::StrategyName;
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "franz",
    // the version, the commit and the build target (build.rs)
    version = env!("FRANZ_VERSION_LINE"),
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
    /// A TOML file with the safety policy (the keys of `[policy]`, docs/config.md).
    #[arg(long, global = true, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// Run on a private Xvfb desktop (default 1920x1080), stopped afterwards.
    #[arg(long, global = true, value_name = "WxH", num_args = 0..=1, default_missing_value = "1920x1080", require_equals = true)]
    pub sandbox: Option<ImageSize>,
    /// Start a program on the display before the command (repeatable); it is stopped afterwards.
    #[arg(long, global = true, value_name = "CMD")]
    pub launch: Vec<String>,
    /// With --sandbox: run a small EWMH window manager (openbox, ...) before the programs, so
    /// that focus and stacking behave as on a desktop. On by default in a sandbox when
    /// grounding (--grounding marks|list) or window tools are used.
    #[arg(long, global = true)]
    pub wm: bool,
    /// With --sandbox: no window manager, also where grounding or window tools would start one.
    #[arg(long, global = true, conflicts_with = "wm")]
    pub no_wm: bool,
    /// Which monitor to use (default: the primary).
    #[arg(long, global = true, value_name = "N")]
    pub monitor: Option<usize>,
    /// The global settings: crop, size, scale, cursor, dry run (`flags.rs`).
    #[command(flatten)]
    pub settings: GlobalSettings,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the agent on a task.
    Run(Box<RunArgs>),
    /// Run a complete scripted loop on a sandboxed desktop (no GPU or model needed).
    Demo(DemoArgs),
    /// Print the effective configuration and where each value came from.
    Config(Box<ConfigArgs>),
    /// Check the display, capture, input injection and the model server; say what to fix.
    Doctor(DoctorArgs),
    /// List the scenarios in a folder.
    Scenarios(ScenariosArgs),
    /// Capture the screen to a PNG file.
    Screenshot(ScreenshotArgs),
    /// Measure parts of franz.
    #[command(subcommand)]
    Bench(BenchCommand),
    /// Execute actions (canonical JSON) on the desktop, printing each result as JSON.
    Act(ActArgs),
    /// Write a self-contained HTML report of a run directory.
    Report(ReportArgs),
    /// Print a run's turns; with --execute, perform its actions again.
    Replay(ReplayArgs),
    /// Parse one model reply from stdin and print its actions as JSON.
    Parse(ParseArgs),
    /// Write a run directory as an OSWorld trajectory or flat per-step JSON lines.
    Export(ExportArgs),
    /// List the model profiles, or show one (`franz profiles show NAME`).
    Profiles(ProfilesArgs),
    /// The safety policy: `franz policy check ACTION...` says what it would do.
    #[command(subcommand)]
    Policy(PolicyCommand),
    /// Click a grid of targets on a full-screen test window and say how far each click
    /// landed from its target, per monitor (exit 0 when all are within 1 px).
    Calibrate(CalibrateArgs),
    /// Serve franz's eyes and hands (and whole tasks) to MCP clients, over stdio or HTTP.
    ///
    /// Here `--coords` is the tools' coordinate space: norm1000 (0..1000 across the
    /// screenshot, the default; `norm` says the same) or pixels (of the last screenshot, with
    /// its image_id). run_task's model reads its own `coords` from the config file or the
    /// environment. The README's "Use from an MCP client" shows the client configuration.
    Mcp(Box<McpArgs>),
    /// Print the interactive elements of the accessibility tree (what grounding numbers), one
    /// JSON object per line.
    Elements(ElementsArgs),
}

#[derive(Debug, Args)]
pub struct ProfilesArgs {
    #[command(subcommand)]
    pub command: Option<ProfilesCommand>,
}

#[derive(Debug, Subcommand)]
pub enum ProfilesCommand {
    /// Print one profile as JSON, with the image size franz would send for a screen and crop.
    Show {
        /// A profile's name, or a profile file (*.toml).
        name: String,
        /// The screen (default 1920x1080).
        #[arg(long, value_name = "WxH", default_value = "1920x1080")]
        screen: ImageSize,
    },
}

#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// Targets per side of the grid (corners included).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(2..=50))]
    pub grid: u32,
    /// Test only: shift every click by DX,DY pixels (a deliberately wrong mapping).
    #[arg(long, hide = true, value_name = "DX,DY")]
    pub test_offset: Option<String>,
    #[command(flatten)]
    pub settings: InputSettings,
}

#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// Say what the policy in force would do with each action (canonical JSON), without
    /// running it: one JSON line each (allow, deny or confirm, and the rule).
    Check(PolicyCheckArgs),
}

#[derive(Debug, Args)]
pub struct PolicyCheckArgs {
    /// Actions as canonical JSON, e.g. '{"type":"key","keys":"alt+f4"}'.
    #[arg(required = true)]
    pub actions: Vec<String>,
}

/// Flags of `franz mcp`; the setting flags configure the executor, the screenshots and
/// `run_task`'s model. `--coords` is the coordinate space of the tools (`norm1000`, the
/// default, or `pixels` of the last screenshot); `run_task`'s model reads its own `coords`
/// from the config file or the environment.
#[derive(Debug, Clone, Args, Default)]
pub struct McpArgs {
    /// Serve streamable HTTP on this address (e.g. 127.0.0.1:8765) instead of stdio; prints
    /// the URL and the bearer token on stderr.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// Allow --http on a non-loopback address and requests from any Origin (anyone with the
    /// token can then drive this desktop).
    #[arg(long, requires = "http")]
    pub allow_remote: bool,
    /// Expose only screenshot, cursor_position and the runs (no input at all).
    #[arg(long)]
    pub read_only: bool,
    /// Every setting's flag (`flags.rs`).
    #[command(flatten)]
    pub settings: RunSettings,
}

#[derive(Debug, Args)]
pub struct ElementsArgs {
    /// The time budget of the collection, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 150)]
    pub budget_ms: u64,
    /// Retry for up to this many seconds until some element shows (applications register with
    /// the accessibility bus a moment after their window shows).
    #[arg(long, value_name = "SECONDS", default_value_t = 0.0)]
    pub wait: f64,
    /// Also write a screenshot of the working area with the numbered marks drawn (PNG).
    #[arg(long, value_name = "OUT")]
    pub png: Option<std::path::PathBuf>,
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
    /// Read the reply as a run of this strategy does: its dialect when the profile's is auto
    /// (narrative: function-call lines, vision: JSON; tools and commander detect it), then
    /// every other dialect (default: the `strategy` setting, as `franz run`).
    #[arg(long, value_parser = PossibleValuesParser::new(StrategyName::NAMES))]
    pub strategy: Option<String>,
    /// The reply's dialect, or auto to detect it (default: the profile's).
    #[arg(long, value_parser = PossibleValuesParser::new(<Option<Dialect> as Choice>::NAMES))]
    pub dialect: Option<String>,
    /// How the model gives coordinates: 0..1000 (norm), pixels of the image, or relative 0..1
    /// (default: the profile's).
    #[arg(long, value_parser = PossibleValuesParser::new(Coords::NAMES))]
    pub coords: Option<String>,
    /// The size of the image the model saw, for --coords pixels.
    #[arg(long, value_name = "WxH")]
    pub image_size: Option<ImageSize>,
    /// The screen the actions would act on: adds each pointer action's exact screen pixel
    /// ("screen", and "screen_to" for a drag's end), the image size taken from the profile.
    #[arg(long, value_name = "WxH")]
    pub screen: Option<ImageSize>,
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
    Act(BenchActArgs),
    /// Draw the overlays N times on a 1536x864 frame and print the median.
    Overlay(BenchOverlayArgs),
    /// Write N turns through the run-directory writer and print the per-turn cost.
    Runlog(BenchRunlogArgs),
    /// Time from a stop to `run_finished` in a hung model call, a wait, a type and a drag.
    Stop(BenchStopArgs),
    /// Run the task suite (tasks/) over models x strategies x profiles (`--profile P`,
    /// repeatable; default: none), each task in its own sandbox; write results.jsonl and an
    /// index.html leaderboard.
    Tasks(Box<BenchTasksArgs>),
    /// Merge the results of several `bench tasks` output folders (e.g. shards) into one.
    Merge(BenchMergeArgs),
    /// Time N `screenshot` calls to `franz mcp` over stdio, as a client sees them, and print
    /// the median and the server's memory after call 10 and the last call.
    Mcp(BenchMcpArgs),
    /// The whole engine loop on an X display against the in-memory model: the median and
    /// p95 of a turn outside the model, by stage.
    Turn(BenchTurnArgs),
    /// Many turns of the engine loop (log_images none): RSS, request size and disk per turn.
    Soak(BenchSoakArgs),
    /// The parser's time per MB on hostile replies (unclosed braces, quotes, parentheses,
    /// long tokens, ...) of 1, 4 and 16 MB, for every dialect and the stream reader.
    Parse(BenchParseArgs),
}

#[derive(Debug, Args)]
pub struct BenchParseArgs {
    /// The reply sizes, in MB.
    #[arg(long, value_delimiter = ',', default_value = "1,4,16")]
    pub sizes: Vec<usize>,
    /// How many reads to time per reader, class and size.
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Only this class of hostile reply (e.g. braces, quotes, lines).
    #[arg(long, value_name = "NAME")]
    pub class: Option<String>,
}

#[derive(Debug, Args)]
pub struct BenchMcpArgs {
    /// How many screenshot calls to time.
    #[arg(long, default_value_t = 100)]
    pub calls: usize,
    /// Arguments for the `franz mcp` it starts, after `--` (e.g. `-- --sandbox`).
    #[arg(last = true, value_name = "MCP_ARGS")]
    pub server_args: Vec<String>,
}

#[derive(Debug, Args)]
pub struct BenchTurnArgs {
    /// How many turns to run (the first two are warm-up); default 200, with --api-url 8 a
    /// strategy.
    #[arg(long)]
    pub turns: Option<usize>,
    /// Against this model server instead (OpenAI-compatible): per turn and strategy, the
    /// prompt tokens the server had to evaluate (its `timings.prompt_n` or `cached_tokens`
    /// when it reports them, else estimated from the first byte that differs from the last
    /// request), and their median.
    #[arg(long, value_name = "URL", conflicts_with = "stream")]
    pub api_url: Option<String>,
    /// With --api-url: the model to ask (default: the configuration's).
    #[arg(long, value_name = "M", requires = "api_url")]
    pub model: Option<String>,
    /// With --api-url: a strategy to measure (repeatable; default: narrative, vision, tools,
    /// commander).
    #[arg(long = "strategy", value_name = "S", requires = "api_url")]
    pub strategies: Vec<String>,
    /// With --api-url: the most tokens a reply may have (the leader's and operator's too).
    #[arg(long, value_name = "N", default_value_t = 64, requires = "api_url")]
    pub max_tokens: u32,
    /// With --api-url: run the strategies with this franz binary's `franz run` instead of this
    /// one's (e.g. an older build, to compare its request arrangement).
    #[arg(long, value_name = "PATH", requires = "api_url")]
    pub franz: Option<PathBuf>,
    /// Copy each raw screenshot into a fresh buffer instead of a pooled one (what franz did
    /// before the pool), to compare.
    #[arg(long)]
    pub fresh_buffers: bool,
    /// Where to create the scratch runs folder (default: the system temp folder); removed after.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Early execution instead: the scripted HTTP server streams each reply (its action line,
    /// then a story of about 80 words) and the time from request to first input is measured
    /// with and without early execution, 5 turns each way.
    #[arg(long)]
    pub stream: bool,
    /// With --stream: how fast the scripted server streams, in tokens per second.
    #[arg(long, value_name = "RATE", default_value_t = 30.0)]
    pub tokens_per_s: f64,
}

#[derive(Debug, Args)]
pub struct BenchSoakArgs {
    /// How many turns to run; RSS is sampled every turns/20 (at most every 500).
    #[arg(long, default_value_t = 10000)]
    pub turns: usize,
    /// Where to create the scratch runs folder (default: the system temp folder); removed after.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct BenchTasksArgs {
    /// Which tasks: a glob on the file name (`zenity-*`) or a tag (an app, a difficulty, an
    /// extra tag, or a task's name); comma-separated for several.
    #[arg(long, value_name = "GLOB|TAG")]
    pub tasks: Option<String>,
    /// The folder of task files.
    #[arg(long, value_name = "DIR", default_value = "tasks")]
    pub tasks_dir: PathBuf,
    /// A strategy to run (repeatable; default: narrative).
    #[arg(long = "strategy", value_name = "S")]
    pub strategies: Vec<String>,
    /// A model to run (repeatable); `scripted` answers with each task's golden trajectory.
    #[arg(long = "model", value_name = "M", required = true)]
    pub models: Vec<String>,
    /// The model server for every model but `scripted`.
    #[arg(long, value_name = "URL")]
    pub api_url: Option<String>,
    /// How many tasks run at once (default: the number of cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub jobs: Option<u32>,
    /// How many times each combination runs (with --suite miniwob: episodes with seeds
    /// 0..K-1, unless --seeds gives them).
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
    /// Which suite: `own` (the task files of --tasks-dir) or `miniwob` (MiniWoB++'s task pages,
    /// scored by the pages' own rewards, docs/bench.md).
    #[arg(long, value_name = "SUITE", default_value = "own", value_parser = PossibleValuesParser::new(["own", "miniwob"]))]
    pub suite: String,
    /// --suite miniwob: the installed `miniwob` package (or its html folder); default: found
    /// in ./.venv-test, ./.venv, $VIRTUAL_ENV or `python3`'s packages.
    #[arg(long, value_name = "DIR")]
    pub miniwob_dir: Option<PathBuf>,
    /// --suite miniwob: the seeds of each task's episodes, comma-separated, or a range A..B
    /// (B excluded); replaces --repeat.
    #[arg(long, value_name = "LIST")]
    pub seeds: Option<String>,
    /// --suite miniwob: the sandbox's screen size.
    #[arg(long, value_name = "WxH", default_value = "1280x800")]
    pub miniwob_screen: ImageSize,
    /// --suite miniwob: Chromium's device scale factor, which makes the 160x210 task area
    /// readable (2: 320x420 pixels on screen).
    #[arg(long, value_name = "F", default_value_t = 2.0, value_parser = scale_factor)]
    pub miniwob_scale: f64,
    /// Run only shard I of N (0-based: I in 0..N) of the task runs.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Override every task's time limit, in seconds.
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<u64>,
    /// Where results.jsonl, index.html and the run directories go.
    #[arg(long, value_name = "DIR", default_value = "bench-out")]
    pub out: PathBuf,
}

#[derive(Debug, Args)]
pub struct BenchMergeArgs {
    /// Output folders of `franz bench tasks` (e.g. one per shard).
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Where the merged results.jsonl, index.html and run directories go.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The run directory (e.g. runs/run_0001).
    pub run_dir: PathBuf,
    /// osworld: traj.jsonl + result.txt with screenshots copied; jsonl: one flat record per
    /// step (screenshot, instruction, model reply, canonical action); gif: the run as an
    /// animation, one frame per turn (the screenshot, its actions drawn, the story below);
    /// mp4: the same through ffmpeg, which must be on PATH.
    #[arg(long, value_parser = PossibleValuesParser::new(["osworld", "jsonl", "gif", "mp4"]))]
    pub format: String,
    /// The folder to write (osworld, jsonl); the file to write for gif and mp4 (default
    /// RUN_DIR/run.gif or RUN_DIR/run.mp4).
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// gif, mp4: how long each turn shows, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 1000, value_parser = clap::value_parser!(u32).range(20..=60000))]
    pub frame_ms: u32,
    /// gif, mp4: frames wider than this are scaled down to it (0: never).
    #[arg(long, value_name = "PX", default_value_t = 1280)]
    pub max_width: u32,
}

#[derive(Debug, Args)]
pub struct ActArgs {
    /// Actions to perform, in order; each is canonical Action JSON,
    /// e.g. '{"type":"click","x":500,"y":300}'.
    #[arg(required = true, value_name = "ACTION")]
    pub actions: Vec<String>,
    /// `--motion` (human: smooth paths, typing cadence; fast: no cosmetic delays) and
    /// `--no-failsafe`.
    #[command(flatten)]
    pub settings: InputSettings,
}

#[derive(Debug, Args)]
pub struct BenchStopArgs {
    /// How many stops to time per case.
    #[arg(long, default_value_t = 20)]
    pub runs: usize,
}

#[derive(Debug, Args)]
pub struct BenchActArgs {
    /// How many clicks to time.
    #[arg(long, default_value_t = 100)]
    pub clicks: usize,
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
    /// Also collect the accessibility elements each turn, as a run with `--grounding` does
    /// (marks: drawn onto the image too), and print the collection's median.
    #[arg(long, default_value = "none", value_parser = ["none", "marks", "list"])]
    pub grounding: String,
}

/// Flags of `franz run` (and `franz config`, which shows what they resolve to).
#[derive(Debug, Clone, Args, Default)]
pub struct RunArgs {
    /// The task. Without it (and without --scenario) franz asks for one on a terminal.
    pub task: Option<String>,
    /// A scenario file: task, strategy, limits and programs to launch.
    #[arg(long, value_name = "FILE.toml")]
    pub scenario: Option<PathBuf>,
    /// Every setting's flag (`flags.rs`).
    #[command(flatten)]
    pub settings: RunSettings,
    /// Replace the strategy's system prompt with this file's text.
    #[arg(long, value_name = "FILE")]
    pub system_prompt: Option<PathBuf>,
    /// A reply to use on turn 1 instead of asking the model, read by every strategy with its
    /// dialects (docs/designs.md: boot reply).
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

/// Flags of `franz config`: those of `franz run`, whose resolution it shows.
#[derive(Debug, Clone, Args, Default)]
pub struct ConfigArgs {
    /// Print docs/config.md (every setting: key, flag, environment names, default, meaning)
    /// instead of the effective configuration.
    #[arg(long)]
    pub markdown: bool,
    #[command(flatten)]
    pub run: RunArgs,
}

/// Flags of `franz doctor`: the model server's settings.
#[derive(Debug, Clone, Args, Default)]
pub struct DoctorArgs {
    #[command(flatten)]
    pub settings: ModelSettings,
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

/// A device scale factor: 1 to 4.
fn scale_factor(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(f) if (1.0..=4.0).contains(&f) => Ok(f),
        _ => Err(format!("{s:?} is not a scale factor from 1 to 4 (e.g. 2)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn each_command_takes_its_groups_of_setting_flags() {
        let parse = |args: &[&str]| {
            Cli::try_parse_from(std::iter::once("franz").chain(args.iter().copied()))
        };
        let Ok(Cli {
            command: Command::Run(run),
            global,
        }) = parse(&[
            "--crop",
            "0,0,500,500",
            "run",
            "t",
            "--max-steps",
            "3",
            "--no-feedback",
            "--size",
            "80x60",
        ])
        else {
            panic!("run takes every setting flag");
        };
        assert_eq!(run.settings.get("max_steps"), Some("3"));
        assert_eq!(run.settings.get("feedback"), Some("false"));
        // global flags, before or after the command
        assert_eq!(global.settings.get("crop"), Some("0,0,500,500"));
        assert_eq!(global.settings.get("size"), Some("80x60"));
        let Ok(Cli {
            command: Command::Doctor(doctor),
            ..
        }) = parse(&["doctor", "--model", "m", "--dry-run"])
        else {
            panic!("doctor takes the model's flags");
        };
        assert_eq!(doctor.settings.get("model"), Some("m"));
        for bad in [
            &["doctor", "--approve"][..],
            &["doctor", "--motion", "fast"][..],
            &["act", "--max-steps", "1", "{}"][..],
            &["parse", "--model", "m"][..],
        ] {
            let e = parse(bad).expect_err("a flag the command does not use");
            assert_eq!(e.kind(), clap::error::ErrorKind::UnknownArgument, "{bad:?}");
        }
    }
}
