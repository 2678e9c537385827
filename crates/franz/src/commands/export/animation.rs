//! `franz export RUN_DIR --format gif|mp4`: the run as an animation to share, one frame per
//! turn (`franz_core::report::frames`: the screenshot, the turn's actions drawn, the story
//! below). franz writes the GIF itself; for mp4 it hands the same frames, as raw RGBA on
//! stdin, to the `ffmpeg` found on PATH.

use crate::cli::ExportArgs;
use crate::exit::usage;
use crate::terminal::{errln, outln};
use anyhow::Context as _;
use franz_core::report::{self, AnimationError, Frame};
use franz_core::runlog::RunLog;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

pub fn write(log: &RunLog, args: &ExportArgs) -> anyhow::Result<ExitCode> {
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| args.run_dir.join(format!("run.{}", args.format)));
    // look for ffmpeg before the work, so that its absence costs nothing
    let ffmpeg = if args.format == "mp4" {
        Some(ffmpeg()?)
    } else {
        None
    };
    let (frames, warnings) = report::frames(log, args.max_width).map_err(|e| match e {
        AnimationError::NoFrames => usage(format!("{}: {e}", args.run_dir.display())),
        e => e.into(),
    })?;
    for w in &warnings {
        errln!("franz: warning: {w}");
    }
    match &ffmpeg {
        Some(ffmpeg) => mp4(ffmpeg, &frames, args.frame_ms, &out)?,
        None => {
            let file = std::fs::File::create(&out)
                .with_context(|| format!("cannot create {}", out.display()))?;
            let mut file = std::io::BufWriter::new(file);
            report::write_gif(&frames, args.frame_ms, &mut file)?;
            file.flush()
                .with_context(|| format!("cannot write {}", out.display()))?;
        }
    }
    let first = &frames[0].image;
    outln!(
        "{} frames of {}x{}, {} ms each, written to {}",
        frames.len(),
        first.width,
        first.height,
        args.frame_ms,
        out.display()
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `ffmpeg` on PATH, or a usage error that says what to do.
fn ffmpeg() -> anyhow::Result<PathBuf> {
    let name = format!("ffmpeg{}", std::env::consts::EXE_SUFFIX);
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(&name))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            usage(
                "--format mp4 needs ffmpeg on PATH (https://ffmpeg.org: `apt install ffmpeg`, \
                 `winget install ffmpeg`): install it, or export --format gif, which needs nothing",
            )
        })
}

/// Pipes the frames to ffmpeg as raw RGBA at one frame per `frame_ms`, H.264-compatible
/// (yuv420p needs even sides: the frame is padded by at most a pixel).
fn mp4(ffmpeg: &Path, frames: &[Frame], frame_ms: u32, out: &Path) -> anyhow::Result<()> {
    let first = &frames[0].image;
    let mut child = Command::new(ffmpeg)
        .args(["-hide_banner", "-loglevel", "error", "-y"])
        .args(["-f", "rawvideo", "-pix_fmt", "rgba"])
        .args(["-s", &format!("{}x{}", first.width, first.height)])
        .args(["-r", &format!("1000/{frame_ms}"), "-i", "-"])
        .args(["-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2"])
        .args(["-pix_fmt", "yuv420p", "-movflags", "+faststart"])
        .arg(out)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot start {}", ffmpeg.display()))?;
    let mut stdin = child.stdin.take().context("ffmpeg's stdin")?;
    // a write fails when ffmpeg quit early; its own message (below) says why
    let fed = frames
        .iter()
        .try_for_each(|f| stdin.write_all(&f.image.data));
    drop(stdin);
    let done = child.wait_with_output().context("waiting for ffmpeg")?;
    if !done.status.success() || fed.is_err() {
        anyhow::bail!(
            "ffmpeg could not write {} ({}): {}",
            out.display(),
            done.status,
            String::from_utf8_lossy(&done.stderr).trim()
        );
    }
    Ok(())
}
