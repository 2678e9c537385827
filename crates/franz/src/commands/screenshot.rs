//! `franz screenshot [OUT.png] [W H]`: one capture to a file, at native size unless given a
//! size, through the same pipeline the model's images take (crop, resize, cursor, PNG).

use crate::cli::{GlobalArgs, ScreenshotArgs};
use crate::setup;
use anyhow::Context;
use franz_core::geometry::{ImageSize, SizeRule};
use franz_core::observe::{ImageFormat, ObserveConfig, Pipeline};
use std::process::ExitCode;

pub fn run(g: &GlobalArgs, args: &ScreenshotArgs) -> anyhow::Result<ExitCode> {
    let mut session = setup::open_session(g)?;
    let size = match (args.width, args.height) {
        (Some(w), Some(h)) if w > 0 && h > 0 => SizeRule::Exact(ImageSize::new(w, h)),
        (Some(_), Some(_)) => {
            return Err(
                super::Exit(super::exit::USAGE, "the size must be at least 1x1".into()).into(),
            );
        }
        _ => setup::size_rule(g, SizeRule::Native),
    };
    let format = match args.out.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("jpg") || e.eq_ignore_ascii_case("jpeg") => {
            ImageFormat::Jpeg { quality: 90 }
        }
        _ => ImageFormat::Png,
    };
    let mut pipeline = Pipeline::new(ObserveConfig {
        crop: g.crop.unwrap_or_default(),
        size,
        cursor: !g.no_cursor,
        format,
    });
    let obs = pipeline.observe(session.desktop.as_mut(), |_| {})?;
    std::fs::write(&args.out, &obs.encoded)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    println!(
        "{} {}x{} ({} bytes)",
        args.out.display(),
        obs.size.width,
        obs.size.height,
        obs.encoded.len()
    );
    if setup::interrupted() {
        return Err(setup::interrupted_error());
    }
    Ok(ExitCode::SUCCESS)
}
