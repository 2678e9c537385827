//! `franz bench observe`: the observation pipeline's stages over many turns (docs/bench.md),
//! the unchanged-frame path, the element collection with `--grounding`, and the bytes, image
//! tokens and encode time of each image format and of each observed area.

use crate::cli::{BenchObserveArgs, GlobalArgs};
use crate::settings::resolve;
use crate::setup;
use crate::stats::stats;
use crate::terminal::outln;
use franz_core::observe::{
    ImageFormat, ObserveArea, ObserveConfig, Pipeline, RgbaImage, StageTimings,
};
use franz_core::overlay::Overlay;
use std::process::ExitCode;
use std::time::Instant;

pub fn bench(g: &GlobalArgs, args: &BenchObserveArgs) -> anyhow::Result<ExitCode> {
    // the configuration every command resolves: crop, image size and cursor as a run has them
    let settings = crate::settings::typed(resolve(g, &[], None)?.0)?;
    let c = settings.config();
    let config = ObserveConfig {
        crop: settings.crop,
        size: settings.size,
        cursor: c.cursor,
        format: settings.image_format(),
        ..ObserveConfig::default()
    };
    let mut session = setup::open_desktop(g)?;
    let mut pipeline = franz_core::agent::Agent::acting(&settings)
        .observing(|o| *o = config)
        .build_pipeline();
    let turns = args.turns.max(1);
    let mut grounded = Grounded::open(c, &args.grounding, &pipeline, session.desktop.as_ref())?;
    pipeline.observe(session.desktop.as_mut(), |_| {})?; // warm-up: SHM segment, scratch buffers
    let mut runs: Vec<StageTimings> = Vec::with_capacity(turns);
    let mut payload = 0;
    let mut size = None;
    for _ in 0..turns {
        if setup::interrupted() {
            return Err(setup::interrupted_error());
        }
        let marks = grounded.as_mut().map(Grounded::collect).transpose()?;
        let obs = pipeline.observe(session.desktop.as_mut(), |img| {
            if let (Some(g), Some(marks)) = (&grounded, &marks) {
                g.draw(img, marks);
            }
        })?;
        payload = obs.data_url.len();
        size = Some(obs.size);
        runs.push(obs.timings);
        pipeline.recycle(obs);
    }
    outln!(
        "{} ({}), {} turns",
        session.desktop.describe(),
        size.map(|s| s.to_string()).unwrap_or_default(),
        turns
    )?;
    let names = StageTimings::default().stages().map(|(n, _)| n);
    let mut last = (0.0, 0.0, 0.0);
    for (i, name) in names.iter().enumerate() {
        let mut v: Vec<f64> = runs.iter().map(|t| t.stages()[i].1).collect();
        last = stats(&mut v);
        if *name != "total" {
            outln!(
                "  {name:<8} median {:>7.3} ms  min {:>7.3}  max {:>7.3}",
                last.0,
                last.1,
                last.2
            )?;
        }
    }
    outln!(
        "observe: median {:.2} ms, min {:.2} ms, max {:.2} ms, payload {payload} bytes",
        last.0,
        last.1,
        last.2
    )?;
    if let Some(g) = grounded.as_mut() {
        let (median, min, max) = stats(&mut g.ms);
        outln!(
            "elements: median {median:.2} ms, min {min:.2} ms, max {max:.2} ms, {} marks, {} skipped (budget {} ms)",
            g.marks,
            g.skipped,
            g.budget.as_millis()
        )?;
    }
    unchanged(&mut pipeline, session.desktop.as_mut(), turns)?;
    let base = pipeline.config().clone();
    each_format(&settings, &base, session.desktop.as_mut(), turns)?;
    each_area(&settings, &base, session.desktop.as_mut(), turns)?;
    Ok(ExitCode::SUCCESS)
}

/// One line per image format ([`per_turn`]): PNG, and JPEG at `image_quality`, each in a
/// pipeline of the settings with `base`'s observation in that format.
fn each_format(
    settings: &franz_core::config::Settings,
    base: &ObserveConfig,
    desktop: &mut dyn franz_desktop::Desktop,
    turns: usize,
) -> anyhow::Result<()> {
    let quality = settings.config().image_quality.clamp(1, 100) as u8;
    let rule = token_rule(settings);
    for format in [ImageFormat::Png, ImageFormat::Jpeg { quality }] {
        let config = ObserveConfig {
            format,
            ..base.clone()
        };
        let m = per_turn(settings, config, rule.1, desktop, turns)?;
        let name = match format {
            ImageFormat::Png => "png".to_string(),
            ImageFormat::Jpeg { quality } => format!("jpeg q{quality}"),
        };
        outln!("format {name:<8} {}", m.line(&rule.0))?;
    }
    Ok(())
}

/// One line per observed area (`observe_area`, docs/coordinates.md, "The observed area"): the
/// whole working area and the focused window, each at the settings' size and format, saying
/// what it showed (a window, or why the whole working area stood in for it).
fn each_area(
    settings: &franz_core::config::Settings,
    base: &ObserveConfig,
    desktop: &mut dyn franz_desktop::Desktop,
    turns: usize,
) -> anyhow::Result<()> {
    let rule = token_rule(settings);
    for (name, area) in [
        ("screen", ObserveArea::Screen),
        ("window", ObserveArea::Window),
    ] {
        let config = ObserveConfig {
            area,
            ..base.clone()
        };
        let m = per_turn(settings, config, rule.1, desktop, turns)?;
        let r = m.area.rect;
        let shown = match (&m.area.window, &m.area.fallback) {
            (Some(w), _) => format!("window {:?} {}x{} px", w.title, r.width, r.height),
            (None, Some(why)) => format!("the working area {}x{} px ({why})", r.width, r.height),
            (None, None) => format!("the working area {}x{} px", r.width, r.height),
        };
        outln!(
            "area {name:<6} {shown}: {}x{} image, {}",
            m.size.width,
            m.size.height,
            m.line(&rule.0)
        )?;
    }
    Ok(())
}

/// The profile whose rule estimates image tokens (the model id's, `profile = auto`; `franz`
/// where none matches) and that rule. The images keep this bench's size (no profile's size
/// rule).
fn token_rule(settings: &franz_core::config::Settings) -> (String, franz_core::model::ImageTokens) {
    let profile = franz_core::profile::for_model(&settings.config().model).map(|(p, _)| p);
    let tokens = franz_core::config::context(profile.as_ref(), None).image_tokens;
    (
        profile.map_or_else(|| "franz".to_string(), |p| p.name),
        tokens,
    )
}

/// What [`per_turn`] measured.
struct PerTurn {
    /// Median bytes sent a turn.
    bytes: f64,
    /// The image tokens the profile's rule estimates for the image.
    tokens: u64,
    /// The encoder's median, min and max, in ms.
    encode: (f64, f64, f64),
    size: franz_core::geometry::ImageSize,
    /// What the last observation showed.
    area: franz_core::observe::ObservedArea,
}

impl PerTurn {
    fn line(&self, profile: &str) -> String {
        let (e, emin, emax) = self.encode;
        format!(
            "median {:.0} bytes per turn, {} image tokens ({profile} profile's estimate), encode median {e:.2} ms (min {emin:.2}, max {emax:.2})",
            self.bytes, self.tokens
        )
    }
}

/// Over `turns` observations by the settings' pipeline observing as `config` says, each a
/// fresh frame (the unchanged-frame reuse would skip the encoder): the bytes sent, the image
/// tokens `tokens` estimates, the encode time, and what was shown.
fn per_turn(
    settings: &franz_core::config::Settings,
    config: ObserveConfig,
    tokens: franz_core::model::ImageTokens,
    desktop: &mut dyn franz_desktop::Desktop,
    turns: usize,
) -> anyhow::Result<PerTurn> {
    let mut pipeline = franz_core::agent::Agent::acting(settings)
        .observing(|o| *o = config)
        .build_pipeline();
    pipeline.observe(desktop, |_| {})?; // warm-up
    let (mut bytes, mut encode) = (Vec::with_capacity(turns), Vec::with_capacity(turns));
    let mut last = None;
    for _ in 0..turns {
        if setup::interrupted() {
            return Err(setup::interrupted_error());
        }
        let obs = pipeline.observe(desktop, |_| {})?;
        bytes.push(obs.encoded.len() as f64);
        encode.push(obs.timings.encode);
        last = Some((obs.size, obs.area.clone()));
        pipeline.recycle(obs);
    }
    let (size, area) = last.ok_or_else(|| anyhow::anyhow!("no observation was made"))?;
    Ok(PerTurn {
        bytes: stats(&mut bytes).0,
        tokens: tokens.tokens(size.width, size.height),
        encode: stats(&mut encode),
        size,
        area,
    })
}

/// The unchanged-frame path: with nothing drawn onto the frame, a screen that did
/// not change since the last observation reuses its encoding. Prints its time apart.
fn unchanged(
    pipeline: &mut Pipeline,
    desktop: &mut dyn franz_desktop::Desktop,
    turns: usize,
) -> anyhow::Result<()> {
    pipeline.set_overlay_key(Some(0));
    let first = pipeline.observe(desktop, |_| {})?; // encodes once, for the others to reuse
    pipeline.recycle(first);
    let mut reused = Vec::with_capacity(turns);
    for _ in 0..turns {
        if setup::interrupted() {
            return Err(setup::interrupted_error());
        }
        let obs = pipeline.observe(desktop, |_| {})?;
        if obs.reused {
            reused.push(obs.timings.total);
        }
        pipeline.recycle(obs);
    }
    pipeline.set_overlay_key(None);
    if reused.is_empty() {
        outln!("unchanged frame: the screen changed on every turn ({turns} turns), no reuse")?;
        return Ok(());
    }
    let n = reused.len();
    let (median, min, max) = stats(&mut reused);
    outln!(
        "unchanged frame (reused, not encoded): median {median:.2} ms, min {min:.2} ms, max {max:.2} ms ({n} of {turns} turns)"
    )?;
    Ok(())
}

/// `bench observe --grounding marks|list`: the element source and what its collections took.
struct Grounded {
    source: Box<dyn franz_desktop::elements::Elements + Send>,
    area: franz_core::geometry::WorkArea,
    budget: std::time::Duration,
    overlay: Option<Overlay>,
    ms: Vec<f64>,
    marks: usize,
    skipped: usize,
}

impl Grounded {
    fn open(
        c: &franz_core::config::Config,
        mode: &str,
        pipeline: &Pipeline,
        desktop: &dyn franz_desktop::Desktop,
    ) -> anyhow::Result<Option<Grounded>> {
        if mode == "none" {
            return Ok(None);
        }
        let source = franz_desktop::elements::open().map_err(|e| {
            anyhow::anyhow!(
                "--grounding {mode}: {e}: start the accessibility bus or drop --grounding"
            )
        })?;
        let overlay = match mode {
            "marks" => Some(Overlay::new(c.overlay.clone())?),
            _ => None,
        };
        Ok(Some(Grounded {
            source,
            area: pipeline.work_area(desktop)?,
            budget: std::time::Duration::from_millis(c.grounding_budget_ms),
            overlay,
            ms: Vec::new(),
            marks: 0,
            skipped: 0,
        }))
    }

    /// One collection, timed, as marks.
    fn collect(&mut self) -> anyhow::Result<Vec<franz_core::grounding::Mark>> {
        let start = Instant::now();
        let found = self.source.collect(self.budget)?;
        let marks = franz_core::grounding::marks(&found.elements, self.area);
        self.ms.push(start.elapsed().as_secs_f64() * 1000.0);
        (self.marks, self.skipped) = (marks.len(), found.skipped);
        Ok(marks)
    }

    fn draw(&self, img: &mut RgbaImage, marks: &[franz_core::grounding::Mark]) {
        if let Some(o) = &self.overlay
            && let Err(e) = o.draw_marks(img.width, img.height, &mut img.data, marks)
        {
            tracing::warn!("set-of-marks: {e}");
        }
    }
}
