//! `franz elements`: the interactive elements of the accessibility tree inside the working
//! area, numbered as the model would see them, one JSON object per line on stdout
//! (`{"id", "role", "name", "states", "bounds" (screen pixels), "box" (0..1000)}`), and a
//! summary on stderr (how many, how long, whether the budget cut the walk short).

use crate::cli::{ElementsArgs, GlobalArgs};
use crate::setup;
use crate::terminal::{errln, outln};
use anyhow::Context;
use franz_core::grounding;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// A native-size screenshot of the working area with the marks drawn, as PNG at `out`.
fn write_png(
    session: &mut setup::OpenDesktop,
    settings: &franz_core::config::Settings,
    marks: &[grounding::Mark],
    out: &std::path::Path,
) -> anyhow::Result<()> {
    use franz_core::observe::ImageFormat;
    use franz_core::overlay::{Overlay, OverlayConfig};
    let overlay = Overlay::new(OverlayConfig::default())?;
    // the run's pipeline (crop, masks) at native size, without the cursor
    let mut pipeline = franz_core::agent::Agent::acting(settings)
        .observing(|o| {
            o.size = franz_core::geometry::SizeRule::Native;
            o.cursor = false;
            o.format = ImageFormat::Png;
        })
        .build_pipeline();
    let mut drawn = Ok(());
    let shot = pipeline.observe(session.desktop.as_mut(), |img| {
        drawn = overlay.draw_marks(img.width, img.height, &mut img.data, marks);
    })?;
    drawn?;
    std::fs::write(out, &shot.encoded)
        .with_context(|| format!("cannot write {}", out.display()))?;
    errln!("{} {}x{}", out.display(), shot.size.width, shot.size.height);
    Ok(())
}

pub fn run(g: &GlobalArgs, args: &ElementsArgs) -> anyhow::Result<ExitCode> {
    if !args.wait.is_finite() || !(0.0..=600.0).contains(&args.wait) {
        let msg = format!("--wait {}: give 0 to 600 seconds", args.wait);
        return Err(crate::exit::Exit(crate::exit::USAGE, msg).into());
    }
    let settings = crate::settings::typed(crate::settings::resolve(g, &[], None)?.0)?;
    let crop = settings.crop;
    let g = &setup::with_default_wm(g, Some("franz elements (grounding)"));
    let mut session = setup::open_desktop(g)?;
    let area = crop
        .work_area(session.desktop.monitor().rect)
        .map_err(|e| crate::exit::Exit(crate::exit::USAGE, e.to_string()))?;
    let mut source = franz_desktop::elements::open().context("cannot read the elements")?;
    let budget = Duration::from_millis(args.budget_ms);
    let deadline = Instant::now() + Duration::from_secs_f64(args.wait);
    let (found, marks) = loop {
        let found = source.collect(budget)?;
        let marks = grounding::marks(&found.elements, area);
        if !marks.is_empty() || Instant::now() >= deadline || setup::interrupted() {
            break (found, marks);
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    for m in &marks {
        outln!("{}", serde_json::to_string(m)?)?;
    }
    if let Some(out) = &args.png {
        write_png(&mut session, &settings, &marks, out)?;
    }
    let cut = if found.truncated {
        format!(", the budget ran out: {} objects skipped", found.skipped)
    } else {
        String::new()
    };
    errln!("{} elements in {} ms{cut}", marks.len(), found.elapsed_ms);
    if setup::interrupted() {
        return Err(setup::interrupted_error());
    }
    Ok(ExitCode::SUCCESS)
}
