//! `franz profiles`: lists the built-in model profiles; `franz profiles show NAME
//! [--screen WxH] [--crop x1,y1,x2,y2]` prints one as a JSON object with the image size franz
//! would send for that screen and crop (`name`, `family`, `coords`, `norm_max` (the largest
//! value of a normalized space: 1000, 999 or 1; null for pixels), `dialect`, `image`,
//! `image_rule`, `keep_last_screenshots`, `sampling`, `match`).

use crate::cli::{GlobalArgs, ProfilesArgs, ProfilesCommand};
use crate::exit::usage;
use crate::terminal::outln;
use franz_core::geometry::ImageSize;
use franz_core::profile::{self, Profile};
use franz_desktop::PixelRect;
use serde_json::json;
use std::process::ExitCode;

pub fn run(g: &GlobalArgs, a: &ProfilesArgs) -> anyhow::Result<ExitCode> {
    match &a.command {
        None => {
            for p in profile::builtin() {
                let space = p.space_max().map_or(p.coords.as_str().to_string(), |m| {
                    format!("{} 0..{m}", p.coords.as_str())
                });
                outln!(
                    "{:<20} {:<14} {:<10} {}",
                    p.name,
                    space,
                    p.dialect,
                    p.family
                )?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(ProfilesCommand::Show { name, screen }) => show(g, name, *screen),
    }
}

fn show(g: &GlobalArgs, name: &str, screen: ImageSize) -> anyhow::Result<ExitCode> {
    if name.trim().eq_ignore_ascii_case("auto") {
        return Err(usage(
            "franz profiles show needs a profile's name (see `franz profiles`) or a file, not auto",
        ));
    }
    let (mut effective, _) = crate::settings::resolve(g, &[], None)?;
    effective.config.profile = name.to_string();
    let (settings, chosen) = crate::profiles::choose(effective, Vec::new())?;
    let area = settings
        .crop
        .work_area(PixelRect::new(0, 0, screen.width, screen.height))
        .map_err(|e| usage(e.to_string()))?;
    let image = settings.size.resolve(area.rect.width, area.rect.height);
    outln!("{}", describe(chosen.profile(), screen, area.rect, image))?;
    Ok(ExitCode::SUCCESS)
}

fn describe(p: &Profile, screen: ImageSize, area: PixelRect, image: ImageSize) -> String {
    json!({
        "name": p.name,
        "family": p.family,
        "coords": p.coords.as_str(),
        "norm_max": p.space_max(),
        "dialect": p.dialect,
        "image": {"width": image.width, "height": image.height},
        "image_rule": p.image,
        "keep_last_screenshots": p.keep_last_screenshots,
        "sampling": p.sampling,
        "match": p.matches,
        "screen": {"width": screen.width, "height": screen.height},
        "work_area": {"x": area.x, "y": area.y, "width": area.width, "height": area.height},
    })
    .to_string()
}
