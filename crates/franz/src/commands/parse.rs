//! `franz parse`: reads one model reply from stdin (raw text, or a whole chat-completions JSON
//! response) and prints what the parser makes of it as one JSON object:
//! `{"dialect", "actions", "text", "errors", "norm_max"}` (`norm_max`: the largest value of the
//! normalized space the reply is read in, 1000, 999 or 1; null for pixels), read as a run of the `strategy` setting reads it
//! under the chosen profile (`Config::read_options` and `parse_options`, shared with
//! `franz run`). With `--screen WxH` each pointer action also
//! gets `"screen": [X, Y]` (and `"screen_to"` for a drag's end): the exact pixels the executor
//! would use, under the profile (`--profile`) and crop (`--crop`), and the object gets
//! `"image": {"width", "height"}`, the size the model was sent. Exits 0 even when nothing
//! parsed (`errors` says why); bad flags exit 2.

use crate::cli::{GlobalArgs, ParseArgs};
use crate::exit::{self, Exit, usage};
use crate::flags::Given;
use crate::profiles;
use franz_core::config::Settings;
use franz_core::executor::fence::Fence;
use franz_core::geometry::{ImageSize, WorkArea};
use franz_core::model::Reply;
use franz_core::parser::{self, CoordMode, ParseOptions};
use franz_desktop::PixelRect;
use serde_json::{Value, json};
use std::io::Write;
use std::process::ExitCode;

pub fn run(global: &GlobalArgs, args: &ParseArgs) -> anyhow::Result<ExitCode> {
    let mut given = Vec::new();
    for (key, flag, value) in [
        ("coords", "--coords", &args.coords),
        ("dialect", "--dialect", &args.dialect),
        ("strategy", "--strategy", &args.strategy),
    ] {
        if let Some(v) = value {
            given.push(Given {
                key,
                flag: flag.into(),
                value: v.clone(),
            });
        }
    }
    let (effective, _) = crate::settings::resolve(global, &given, None)?;
    let (settings, chosen) = profiles::choose(effective, Vec::new())?;
    let c = settings.config();
    let area = match args.screen {
        Some(s) => Some(
            settings
                .crop
                .work_area(PixelRect::new(0, 0, s.width, s.height))
                .map_err(|e| usage(e.to_string()))?,
        ),
        None => None,
    };
    let image = image_size(&settings, args, area.as_ref());
    // read as a run reads (strategy/mod.rs): one place builds the options of both
    let read = c.read_options(Some(&chosen.applied));
    let options = read.parse_options(c.strategy, image.unwrap_or(ImageSize::new(1, 1)));
    let coords = match (options.coords, image) {
        (CoordMode::Pixels(_) | CoordMode::Exact(_), None)
            if chosen.applied.pixel_coords
                || chosen.applied.exact_space == Some(franz_core::exact_target::Space::Pixels) =>
        {
            return Err(Exit(
                exit::USAGE,
                "--coords pixels needs --image-size WxH (the size of the image the model saw), or --screen WxH"
                    .into(),
            )
            .into());
        }
        (mode, _) => mode,
    };
    // a reply is at most what the model client accepts from a server
    let cap = franz_core::model::DEFAULT_MAX_RESPONSE_BYTES;
    let input = franz_core::files::read_capped(std::io::stdin(), "stdin", "a reply", cap)
        .map_err(|e| usage(e.to_string()))?;
    let reply = Reply::from_any_text(&String::from_utf8_lossy(&input));
    let options = ParseOptions { coords, ..options };
    let parsed = parser::parse_reply(&reply, &options);
    let mut out = std::io::stdout().lock();
    let mut value = serde_json::to_value(&parsed)?;
    if let Some(area) = area {
        add_screen_points(&mut value, &parsed.actions, area);
    }
    if let Some(obj) = value.as_object_mut() {
        obj.insert("norm_max".into(), json!(norm_max(coords)));
        if let (Some(i), Some(_)) = (image, area) {
            obj.insert(
                "image".into(),
                json!({"width": i.width, "height": i.height}),
            );
        }
    }
    serde_json::to_writer(&mut out, &value)?;
    match writeln!(out) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        r => r?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The largest value of the normalized space `coords` reads (1000, 999, or 1 for fractions);
/// `None` for pixels.
fn norm_max(coords: CoordMode) -> Option<u32> {
    match coords {
        CoordMode::Norm => Some(franz_core::geometry::NORM_MAX as u32),
        CoordMode::Pixels(_) => None,
        CoordMode::Exact(s) if s == ImageSize::new(1, 1) => Some(1),
        CoordMode::Exact(s) => franz_core::exact_target::norm_max_of(s),
    }
}

/// The size of the image the model saw: `--image-size`, else the global `--size` (checked
/// against the profile's resize rule), else with `--screen` the profile's rule for the
/// working area; `None` when none of these is given.
fn image_size(settings: &Settings, args: &ParseArgs, area: Option<&WorkArea>) -> Option<ImageSize> {
    if let Some(s) = args.image_size {
        return Some(s);
    }
    if area.is_none() && settings.config().size.is_empty() {
        return None;
    }
    let (w, h) = area.map_or((1, 1), |a| (a.rect.width, a.rect.height));
    Some(settings.size.resolve(w, h))
}

/// Adds `"screen"` (and `"screen_to"`) to each pointer action of the printed reply, or
/// `"refused"` with the `work_area` rule's reason when the executor would refuse it.
fn add_screen_points(value: &mut Value, actions: &[franz_core::Action], area: WorkArea) {
    let fence = Fence::new(area);
    let Some(list) = value.get_mut("actions").and_then(Value::as_array_mut) else {
        return;
    };
    for (v, a) in list.iter_mut().zip(actions) {
        let (at, to) = fence.targets(a);
        if let Some(obj) = v.as_object_mut() {
            if let Some(why) = fence.refusal(&a.kind, a.exact, None) {
                obj.insert("refused".into(), json!(why));
                continue;
            }
            if let Some(p) = at {
                obj.insert("screen".into(), json!([p.x, p.y]));
            }
            if let Some(p) = to {
                obj.insert("screen_to".into(), json!([p.x, p.y]));
            }
        }
    }
}
