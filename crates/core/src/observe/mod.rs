//! The observation pipeline every strategy uses, once per turn:
//! capture -> crop to the working area -> resize -> draw the cursor -> (overlays) -> encode ->
//! base64 data URL. Each stage is timed.
//!
//! Pixels stay BGRA (as captured) through crop and resize; they are swizzled to RGBA once, at
//! the final size, for the overlay stage and the encoder.

pub mod area;
mod cursor;
pub mod diff;
mod encode;
pub mod mask;
mod png;
mod resize;

pub use area::{ObserveArea, ObservedArea, ShownWindow};
pub use diff::FrameChange;
pub use encode::{ImageCodec, ImageFormat, encode_image};

use crate::geometry::{Crop, GeometryError, ImageSize, SizeRule, WorkArea};
use base64::Engine as _;
use franz_desktop::{Desktop, DesktopError, FrameView};
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// How observations are made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObserveConfig {
    pub crop: Crop,
    pub size: SizeRule,
    /// Draw the mouse cursor into the image.
    pub cursor: bool,
    pub format: ImageFormat,
    /// Boxes of the screen blacked out in every screenshot (`mask_regions`, [`mask`]).
    #[serde(default)]
    pub mask: Vec<Crop>,
    /// What part of the working area each observation shows (`observe_area`, [`area`]).
    #[serde(default)]
    pub area: ObserveArea,
}

impl Default for ObserveConfig {
    fn default() -> Self {
        Self {
            crop: Crop::FULL,
            size: SizeRule::MODEL_DEFAULT,
            cursor: true,
            format: ImageFormat::Png,
            mask: Vec::new(),
            area: ObserveArea::Screen,
        }
    }
}

/// Milliseconds spent in each stage of one observation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct StageTimings {
    pub capture: f64,
    pub crop: f64,
    pub resize: f64,
    pub cursor: f64,
    pub overlay: f64,
    pub encode: f64,
    pub base64: f64,
    pub total: f64,
}

impl StageTimings {
    /// Stage names and values, in pipeline order.
    pub fn stages(&self) -> [(&'static str, f64); 8] {
        [
            ("capture", self.capture),
            ("crop", self.crop),
            ("resize", self.resize),
            ("cursor", self.cursor),
            ("overlay", self.overlay),
            ("encode", self.encode),
            ("base64", self.base64),
            ("total", self.total),
        ]
    }
}

/// An RGBA image at the size the model sees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RgbaImage {
    pub width: u32,
    pub height: u32,
    /// Tightly packed RGBA rows.
    pub data: Vec<u8>,
}

/// One screenshot as the model is sent it, and how it maps back to the screen.
#[derive(Debug, Clone)]
pub struct Screenshot {
    /// The screen pixels the image shows: every point of this turn maps through it.
    pub work_area: WorkArea,
    /// What the image shows: `work_area`'s rectangle and the window it is, if any.
    pub area: ObservedArea,
    /// The size of `image`.
    pub size: ImageSize,
    /// The image after cursor and overlays, before encoding.
    pub image: RgbaImage,
    /// The encoded image (PNG or JPEG bytes).
    pub encoded: Vec<u8>,
    pub format: ImageFormat,
    /// `data:image/png;base64,...`, ready for an `image_url` message part.
    pub data_url: String,
    pub timings: StageTimings,
    /// How the raw frame differs from the previous observation's.
    pub change: FrameChange,
    /// The frame and all drawn onto it were unchanged: the previous image, encoding and data
    /// URL were reused (no resize, overlay or encode this time).
    pub reused: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum ObserveError {
    #[error(transparent)]
    Desktop(#[from] DesktopError),
    #[error(transparent)]
    Geometry(#[from] GeometryError),
    #[error("cannot encode the screenshot: {0}")]
    Encode(String),
    #[error("cannot resize the screenshot: {0}")]
    Resize(String),
}

/// Threads for the parallel stages (resize and PNG bands): one per core, at most four. Past
/// four, the seams and thread starts cost more than they save on a screenshot.
fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
}

/// Runs `work` on every job at once, the first on this thread and the others on scoped
/// threads (a spawn costs tens of microseconds; a pool's idle spinning would steal the
/// cores from the X server between turns). Results come back in the jobs' order.
fn in_parallel<J: Send, R: Send>(
    jobs: Vec<J>,
    work: impl Fn(J) -> Result<R, ObserveError> + Sync,
) -> Result<Vec<R>, ObserveError> {
    let work = &work;
    let mut jobs = jobs.into_iter();
    let Some(first) = jobs.next() else {
        return Ok(Vec::new());
    };
    std::thread::scope(|s| {
        let handles: Vec<_> = jobs.map(|job| s.spawn(move || work(job))).collect();
        let mut results = vec![work(first)];
        for handle in handles {
            results.push(handle.join().unwrap_or_else(|_| {
                Err(ObserveError::Encode(
                    "a pipeline thread (resize or PNG band) panicked".into(),
                ))
            }));
        }
        results.into_iter().collect()
    })
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

/// Runs the pipeline. Holds its buffers between turns: the resizer's scratch, the encoder's
/// rows and the images handed back by [`Pipeline::recycle`]; fresh multi-megabyte buffers
/// cost a page fault per 4 KB page, which on the dev box was a third of the pipeline's time.
/// The captured frame itself is never copied: the pipeline reads it where the backend lends
/// it (see [`Desktop::capture_view`]).
#[derive(Default)]
pub struct Pipeline {
    config: ObserveConfig,
    resizer: resize::Resizer,
    spare: Option<Vec<u8>>,
    scratch: encode::Scratch,
    diff: diff::FrameDiff,
    /// What is drawn onto the next frame besides the cursor (see [`Pipeline::set_overlay_key`]).
    overlay_key: Option<u64>,
    /// `observe_area = touched`: the point the last pointer action touched, until the next
    /// observation finds the window under it ([`Pipeline::touched`]).
    touched_at: Option<franz_desktop::PixelPoint>,
    /// The window found there, which later observations follow.
    touched_window: Option<u64>,
    /// The rectangle of the last observation: the frame difference starts afresh when it moves.
    last_rect: Option<franz_desktop::PixelRect>,
    /// The last observation's outputs, for an unchanged frame.
    last: Option<Reusable>,
}

/// What an unchanged frame reuses, and what must be unchanged for it.
struct Reusable {
    key: (Option<franz_desktop::CursorImage>, u64, WorkArea, ImageSize),
    image: RgbaImage,
    encoded: Vec<u8>,
    data_url: String,
}

impl Pipeline {
    pub fn new(config: ObserveConfig) -> Self {
        Self {
            config,
            ..Self::default()
        }
    }

    /// Hands a screenshot's image buffer back for the next turn to reuse.
    pub fn recycle(&mut self, screenshot: Screenshot) {
        self.spare = Some(screenshot.image.data);
    }

    /// A key of what the next observation's overlay will draw: when it, the cursor and the
    /// captured frame are all as last time, the last image and encoding are reused. `None`
    /// (the default) always encodes afresh.
    pub fn set_overlay_key(&mut self, key: Option<u64>) {
        self.overlay_key = key;
    }

    pub fn config(&self) -> &ObserveConfig {
        &self.config
    }

    /// The working area on the desktop's monitor.
    pub fn work_area(&self, desktop: &dyn Desktop) -> Result<WorkArea, ObserveError> {
        Ok(self.config.crop.work_area(desktop.monitor().rect)?)
    }

    /// `observe_area = touched`: a pointer action touched root pixel `p`; the next observation
    /// shows the top window under it, and later ones follow that window.
    pub fn touched(&mut self, p: franz_desktop::PixelPoint) {
        self.touched_at = Some(p);
    }

    /// Whether observations follow the window the last pointer action touched
    /// (`observe_area = touched`): only then is the pointer asked for after a turn.
    pub fn follows_touch(&self) -> bool {
        self.config.area == ObserveArea::Touched
    }

    /// What the next observation shows, by `observe_area` ([`area::rule`]): the working area,
    /// or a window of it. A desktop that cannot list its windows gives the working area, and
    /// says why.
    pub fn choose(&mut self, desktop: &mut dyn Desktop) -> Result<ObservedArea, ObserveError> {
        let work = self.work_area(desktop)?;
        let kind = self.config.area;
        if kind == ObserveArea::Screen {
            return Ok(ObservedArea::whole(work));
        }
        let windows = match desktop.windows() {
            Ok(w) => w,
            Err(e) => {
                return Ok(ObservedArea {
                    fallback: Some(format!("the windows cannot be listed ({e})")),
                    ..ObservedArea::whole(work)
                });
            }
        };
        if let Some(p) = self.touched_at.take() {
            self.touched_window = area::top_at(&windows, p).map(|w| w.id);
        }
        let window = area::pick(kind, &windows, self.touched_window);
        Ok(area::rule(kind, work, window))
    }

    /// Captures and processes one observation of what [`Pipeline::choose`] picks. `overlay`
    /// draws on the RGBA image at its final size (the feedback overlays); pass `|_| {}` for
    /// none.
    pub fn observe(
        &mut self,
        desktop: &mut dyn Desktop,
        overlay: impl FnOnce(&mut RgbaImage),
    ) -> Result<Screenshot, ObserveError> {
        let area = self.choose(desktop)?;
        self.observe_in(desktop, &area, overlay)
    }

    /// Captures and processes one observation of `area` (a turn's, from [`Pipeline::choose`]).
    pub fn observe_in(
        &mut self,
        desktop: &mut dyn Desktop,
        area: &ObservedArea,
        overlay: impl FnOnce(&mut RgbaImage),
    ) -> Result<Screenshot, ObserveError> {
        let start = Instant::now();
        let mut t = StageTimings::default();
        if self.last_rect.replace(area.rect) != Some(area.rect) {
            self.diff = diff::FrameDiff::default();
        }
        // The cursor is asked for first: the capture lends its pixels only while the
        // desktop is borrowed.
        let cursor = if self.config.cursor {
            desktop.cursor().ok().flatten()
        } else {
            None
        };
        let monitor = desktop.monitor().rect;
        let origin = franz_desktop::PixelPoint::new(monitor.x, monitor.y);
        let mut overlay = Some(overlay);
        let mut observation = None;
        let capture_start = Instant::now();
        desktop.capture_view(&mut |frame| {
            t.capture = ms(capture_start);
            if let Some(overlay) = overlay.take() {
                observation =
                    Some(self.process(frame, origin, area, cursor.as_ref(), overlay, start, t));
            }
        })?;
        observation.unwrap_or_else(|| {
            Err(ObserveError::Desktop(DesktopError::Capture(
                "the desktop lent no pixels".into(),
            )))
        })
    }

    /// The stages after capture, on a frame of the whole monitor whose top-left pixel is
    /// `origin` in root coordinates.
    #[allow(clippy::too_many_arguments)]
    pub fn process(
        &mut self,
        frame: FrameView<'_>,
        origin: franz_desktop::PixelPoint,
        area: &ObservedArea,
        cursor: Option<&franz_desktop::CursorImage>,
        overlay: impl FnOnce(&mut RgbaImage),
        start: Instant,
        mut t: StageTimings,
    ) -> Result<Screenshot, ObserveError> {
        let work_area = area.work_area();
        let s = Instant::now();
        let region = crop_region(&frame, origin, work_area)?;
        let size = self.config.size.resolve(region.width, region.height);
        let change = self.diff.compare(
            frame,
            (region.x, region.y, region.width, region.height),
            cursor.map(|c| cursor_box(c, work_area)),
        );
        // the crop stage includes the frame difference (`diff`), which reads the cropped area
        t.crop = ms(s);
        let key = self
            .overlay_key
            .map(|k| (cursor.cloned(), k, work_area, size));
        if let Some(shot) = self.reuse(&change, &key, area, start, t) {
            return Ok(shot);
        }

        let s = Instant::now();
        let out = self.spare.take().unwrap_or_default();
        let changed_rows = self.diff.changed_rows();
        let mut image = self
            .resizer
            .crop_resize(frame, region, size, changed_rows, out)?;
        if !self.config.mask.is_empty() {
            let monitor =
                franz_desktop::PixelRect::new(origin.x, origin.y, frame.width, frame.height);
            mask::apply(&mut image, &self.config.mask, monitor, work_area, size);
        }
        t.resize = ms(s);

        let s = Instant::now();
        if let Some(c) = cursor {
            cursor::draw(&mut image, c, work_area, size);
        }
        t.cursor = ms(s);

        let s = Instant::now();
        overlay(&mut image);
        t.overlay = ms(s);

        let s = Instant::now();
        let encoded = self.scratch.encode_image(&image, self.config.format)?;
        t.encode = ms(s);

        let s = Instant::now();
        let data_url = data_url(self.config.format.mime(), &encoded);
        t.base64 = ms(s);
        t.total = ms(start);

        self.last = key.map(|key| Reusable {
            key,
            image: image.clone(),
            encoded: encoded.clone(),
            data_url: data_url.clone(),
        });
        Ok(Screenshot {
            work_area,
            area: area.clone(),
            size,
            image,
            encoded,
            format: self.config.format,
            data_url,
            timings: t,
            change,
            reused: false,
        })
    }

    /// The last observation again, when the frame is identical to it and so is everything
    /// drawn onto it (`key`): no resize, overlay, encode or base64.
    #[allow(clippy::type_complexity)]
    fn reuse(
        &mut self,
        change: &FrameChange,
        key: &Option<(Option<franz_desktop::CursorImage>, u64, WorkArea, ImageSize)>,
        area: &ObservedArea,
        start: Instant,
        mut t: StageTimings,
    ) -> Option<Screenshot> {
        let last = self.last.as_ref()?;
        if !change.identical || key.as_ref() != Some(&last.key) {
            return None;
        }
        let mut image = self.spare.take().unwrap_or_default();
        image.clear();
        image.extend_from_slice(&last.image.data);
        t.total = ms(start);
        Some(Screenshot {
            work_area: last.key.2,
            area: area.clone(),
            size: last.key.3,
            image: RgbaImage {
                width: last.image.width,
                height: last.image.height,
                data: image,
            },
            encoded: last.encoded.clone(),
            format: self.config.format,
            data_url: last.data_url.clone(),
            timings: t,
            change: change.clone(),
            reused: true,
        })
    }
}

/// The cursor's box in pixels of the work area, with a margin for its shadow.
fn cursor_box(c: &franz_desktop::CursorImage, work_area: WorkArea) -> diff::PixelBox {
    const MARGIN: i64 = 4;
    diff::PixelBox {
        x: c.x as i64 - c.xhot as i64 - work_area.rect.x as i64 - MARGIN,
        y: c.y as i64 - c.yhot as i64 - work_area.rect.y as i64 - MARGIN,
        width: c.width as i64 + 2 * MARGIN,
        height: c.height as i64 + 2 * MARGIN,
    }
}

/// The work area relative to the frame (the monitor's top-left is frame (0,0)); an error when
/// it does not fit the frame.
fn crop_region(
    frame: &FrameView<'_>,
    origin: franz_desktop::PixelPoint,
    work_area: WorkArea,
) -> Result<resize::Region, ObserveError> {
    let region = resize::Region {
        x: (work_area.rect.x - origin.x).max(0) as u32,
        y: (work_area.rect.y - origin.y).max(0) as u32,
        width: work_area.rect.width,
        height: work_area.rect.height,
    };
    if region.x + region.width > frame.width || region.y + region.height > frame.height {
        return Err(ObserveError::Resize(format!(
            "the working area {:?} does not fit the captured {}x{} frame",
            work_area.rect, frame.width, frame.height
        )));
    }
    Ok(region)
}

/// The `data:` URL of an encoded image.
fn data_url(mime: &str, encoded: &[u8]) -> String {
    let mut url = String::with_capacity(encoded.len() * 4 / 3 + 32);
    url.push_str("data:");
    url.push_str(mime);
    url.push_str(";base64,");
    base64::engine::general_purpose::STANDARD.encode_string(encoded, &mut url);
    url
}
