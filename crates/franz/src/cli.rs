//! The command line: global flags (CONTRACTS.md) and subcommands, parsed by clap.
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
    /// Capture the screen to a PNG file.
    Screenshot(ScreenshotArgs),
    /// Measure parts of franz.
    #[command(subcommand)]
    Bench(BenchCommand),
    /// Parse one model reply from stdin and print its actions as JSON.
    Parse(ParseArgs),
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
}

#[derive(Debug, Args)]
pub struct BenchObserveArgs {
    /// How many turns to run.
    #[arg(long, default_value_t = 50)]
    pub turns: usize,
}
