//! `franz screenshot [OUT.png] [W H]`: one capture to a file, at native size unless given a
//! size, through the same pipeline the model's images take (crop, resize, cursor, PNG).
//!
//! It resolves the same configuration as `franz run` (flags > environment > config file >
//! defaults), so `crop`, `cursor` and a configured `size` or `scale` apply here too; `W H`
//! beat them and take the same bounds as `--size` (1 to 16384 each).

use crate::cli::{GlobalArgs, ScreenshotArgs};
use crate::setup;
use crate::terminal::outln;
use anyhow::Context;
use franz_core::agent::Agent;
use franz_core::geometry::{GeometryError, ImageSize, SizeRule};
use franz_core::observe::ImageFormat;
use std::process::ExitCode;

fn usage(msg: impl Into<String>) -> anyhow::Error {
    crate::exit::Exit(crate::exit::USAGE, msg.into()).into()
}

pub fn run(g: &GlobalArgs, args: &ScreenshotArgs) -> anyhow::Result<ExitCode> {
    let settings = crate::settings::typed(crate::settings::resolve(g, &[], None)?.0)?;
    let size = match (args.width, args.height) {
        // the bounds of `--size` (ImageSize's parser), said the same way
        (Some(w), Some(h)) => SizeRule::Exact(
            format!("{w}x{h}")
                .parse::<ImageSize>()
                .map_err(|e: GeometryError| usage(e.to_string()))?,
        ),
        _ => settings.size_given.unwrap_or(SizeRule::Native),
    };
    let format = match args.out.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("jpg") || e.eq_ignore_ascii_case("jpeg") => {
            ImageFormat::Jpeg { quality: 90 }
        }
        _ => ImageFormat::Png,
    };
    let mut session = setup::open_desktop(g)?;
    // the run's pipeline (crop, cursor, masks) at the size and format asked
    let mut pipeline = Agent::acting(&settings)
        .observing(|o| {
            o.size = size;
            o.format = format;
        })
        .build_pipeline();
    let obs = pipeline.observe(session.desktop.as_mut(), |_| {})?;
    std::fs::write(&args.out, &obs.encoded)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    outln!(
        "{} {}x{} ({} bytes)",
        args.out.display(),
        obs.size.width,
        obs.size.height,
        obs.encoded.len()
    )?;
    if setup::interrupted() {
        return Err(setup::interrupted_error());
    }
    Ok(ExitCode::SUCCESS)
}
