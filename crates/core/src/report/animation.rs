//! The run as an animation to share (`franz export RUN --format gif`, and mp4 through ffmpeg
//! from the same frames): one frame per turn that kept a screenshot. A frame is the turn's
//! screenshot (the raw one when the run kept it, else the one the model was sent) with that
//! turn's performed actions drawn by the overlay (crate::overlay: heat, marks and labels, as the
//! model saw them the turn after), and a caption strip below with the turn and its story.
//!
//! Every frame has the first frame's size, at most `max_width` wide: a run's image size can
//! change (the context fitter shrinks it), a GIF's cannot. The GIF (the `gif` crate) gives each
//! frame its own 256-colour palette, quantized with NeuQuant (color_quant) where a frame has
//! more colours, and loops forever.

use super::read_png;
use crate::geometry::ImageSize;
use crate::observe::RgbaImage;
use crate::overlay::{FeedbackHistory, Overlay, OverlayConfig, OverlayError, TurnFeedback};
use crate::runlog::{RunLog, TurnView};
use std::io::Write;

#[derive(Debug, thiserror::Error)]
pub enum AnimationError {
    #[error(
        "no turn of the run has a readable screenshot (a run logged with log_images = none keeps none): there is nothing to animate; run with --log-images annotated or all"
    )]
    NoFrames,
    #[error(transparent)]
    Overlay(#[from] OverlayError),
    #[error("a frame of {width}x{height} is too large for a GIF (at most 65535 a side)")]
    TooLarge { width: u32, height: u32 },
    #[error("cannot write the GIF: {0}")]
    Gif(String),
}

/// One turn's picture.
#[derive(Debug, Clone)]
pub struct Frame {
    pub turn: u32,
    pub image: RgbaImage,
}

/// The frames of a run, and a warning for each turn left out (no screenshot kept, or one
/// that cannot be read).
pub fn frames(log: &RunLog, max_width: u32) -> Result<(Vec<Frame>, Vec<String>), AnimationError> {
    let overlay = Overlay::new(OverlayConfig::default())?;
    let (mut frames, mut warnings) = (Vec::new(), Vec::new());
    let mut size: Option<ImageSize> = None;
    for t in &log.turns {
        let Some(mut image) = base(log, t, &mut warnings) else {
            continue;
        };
        let want = *size.get_or_insert_with(|| fit(image.width, image.height, max_width));
        if (image.width, image.height) != (want.width, want.height) {
            image = resize(&image, want);
        }
        let mut history = FeedbackHistory::new(1);
        history.push(TurnFeedback::executed(
            &t.raw.actions,
            &t.raw.results,
            &t.raw.bboxes,
        ));
        overlay.draw_image(&mut image, &history)?;
        let story = t.raw.story.split_whitespace().collect::<Vec<_>>().join(" ");
        let caption = match (&t.raw.error, story.is_empty()) {
            (Some(e), _) => format!("turn {}: error: {e}", t.raw.turn),
            (None, true) => format!("turn {}", t.raw.turn),
            (None, false) => format!("turn {}: {story}", t.raw.turn),
        };
        frames.push(Frame {
            turn: t.raw.turn,
            image: overlay.with_caption(&image, &caption),
        });
    }
    if frames.is_empty() {
        return Err(AnimationError::NoFrames);
    }
    Ok((frames, warnings))
}

/// The turn's clean screenshot: raw if kept, else the one the model saw.
fn base(log: &RunLog, t: &TurnView, warnings: &mut Vec<String>) -> Option<RgbaImage> {
    let turn = t.raw.turn;
    let Some(name) = t.raw.raw_png.as_deref().or(t.shown_png()) else {
        warnings.push(format!(
            "turn {turn} kept no screenshot (log_images = none); left out"
        ));
        return None;
    };
    let decoded = read_png(log, name)
        .ok_or_else(|| "missing".to_string())
        .and_then(|bytes| image::load_from_memory(&bytes).map_err(|e| e.to_string()));
    match decoded {
        Ok(img) => {
            let rgba = img.to_rgba8();
            Some(RgbaImage {
                width: rgba.width(),
                height: rgba.height(),
                data: rgba.into_raw(),
            })
        }
        Err(e) => {
            warnings.push(format!(
                "turn {turn}: the screenshot {name} cannot be read ({e}); left out"
            ));
            None
        }
    }
}

/// `width` x `height` scaled down to at most `max_width` wide, the aspect kept.
fn fit(width: u32, height: u32, max_width: u32) -> ImageSize {
    if max_width == 0 || width <= max_width {
        return ImageSize::new(width, height);
    }
    let h = (u64::from(height) * u64::from(max_width) / u64::from(width)).max(1) as u32;
    ImageSize::new(max_width, h)
}

fn resize(image: &RgbaImage, to: ImageSize) -> RgbaImage {
    let Some(buf) = image::RgbaImage::from_raw(image.width, image.height, image.data.clone())
    else {
        // a buffer of the wrong length cannot come from a decoded PNG; keep the frame's size
        return RgbaImage {
            width: to.width,
            height: to.height,
            data: vec![0; to.width as usize * to.height as usize * 4],
        };
    };
    let out = image::imageops::resize(
        &buf,
        to.width,
        to.height,
        image::imageops::FilterType::Triangle,
    );
    RgbaImage {
        width: to.width,
        height: to.height,
        data: out.into_raw(),
    }
}

/// Writes `frames` as an animated GIF that shows each for `frame_ms` and loops.
pub fn write_gif(frames: &[Frame], frame_ms: u32, out: impl Write) -> Result<(), AnimationError> {
    let gif_err = |e: gif::EncodingError| AnimationError::Gif(e.to_string());
    let Some(first) = frames.first() else {
        return Err(AnimationError::NoFrames);
    };
    let side = |v: u32| u16::try_from(v).ok();
    let (Some(w), Some(h)) = (side(first.image.width), side(first.image.height)) else {
        return Err(AnimationError::TooLarge {
            width: first.image.width,
            height: first.image.height,
        });
    };
    let mut encoder = gif::Encoder::new(out, w, h, &[]).map_err(gif_err)?;
    encoder.set_repeat(gif::Repeat::Infinite).map_err(gif_err)?;
    // GIF delays are in hundredths of a second
    let delay = u16::try_from(frame_ms.div_ceil(10)).unwrap_or(u16::MAX);
    for f in frames {
        let mut rgba = f.image.data.clone();
        // every frame has the first one's size (`frames`); a caller's odd one is an error,
        // not the gif crate's panic
        if (f.image.width, f.image.height) != (u32::from(w), u32::from(h))
            || rgba.len() != usize::from(w) * usize::from(h) * 4
        {
            return Err(AnimationError::Gif(format!(
                "turn {}: the frame is {}x{}, not {w}x{h} like the first",
                f.turn, f.image.width, f.image.height
            )));
        }
        let mut frame = gif::Frame::from_rgba_speed(w, h, &mut rgba, 10);
        frame.delay = delay;
        encoder.write_frame(&frame).map_err(gif_err)?;
    }
    encoder.into_inner().map_err(gif_err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_fit_the_width_and_keep_the_aspect() {
        assert_eq!(fit(1920, 1080, 960), ImageSize::new(960, 540));
        assert_eq!(fit(800, 600, 960), ImageSize::new(800, 600));
        assert_eq!(fit(800, 600, 0), ImageSize::new(800, 600));
    }

    /// A run whose screenshots shrink after turn 1 (the context fitter does that): every
    /// frame keeps turn 1's size, and a turn without a screenshot is left out with a warning.
    #[test]
    fn frames_keep_the_first_size_when_the_runs_images_shrink() {
        use crate::runlog::{Layout, RunWriter, TurnEntry, TurnImage, read_run};
        let root = tempfile::tempdir().unwrap();
        let mut w = RunWriter::create(root.path(), Layout::Flat).unwrap();
        let image = |width: u32, height: u32| RgbaImage {
            width,
            height,
            data: vec![90; (width * height * 4) as usize],
        };
        for (turn, img) in [
            (1, Some(image(64, 40))),
            (2, None),
            (3, Some(image(32, 20))),
        ] {
            let entry = TurnEntry {
                turn,
                story: format!("turn {turn}'s story"),
                ..Default::default()
            };
            match img {
                Some(img) => w.write_turn(entry, TurnImage::Rgba(img), None).unwrap(),
                None => {
                    w.submit(turn, None, None).unwrap();
                    w.finish_turn(entry).unwrap();
                }
            }
        }
        let dir = w.dir().to_path_buf();
        w.close().unwrap();
        let log = read_run(&dir).unwrap();
        let (frames, warnings) = frames(&log, 0).unwrap();
        assert_eq!(frames.iter().map(|f| f.turn).collect::<Vec<_>>(), [1, 3]);
        assert!(frames.iter().all(|f| f.image.width == 64), "{frames:?}");
        assert_eq!(frames[0].image.height, frames[1].image.height);
        assert!(frames[0].image.height > 40, "the caption strip is below");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].starts_with("turn 2 kept no screenshot"),
            "{warnings:?}"
        );
    }

    #[test]
    fn a_gif_of_frames_decodes_with_their_count_size_and_delay() {
        let frame = |turn: u32, v: u8| Frame {
            turn,
            image: RgbaImage {
                width: 8,
                height: 4,
                data: [v, 255 - v, 7, 255].repeat(32),
            },
        };
        let mut gif = Vec::new();
        write_gif(&[frame(1, 10), frame(2, 200)], 500, &mut gif).unwrap();
        let mut options = gif::DecodeOptions::new();
        options.set_color_output(gif::ColorOutput::RGBA);
        let mut d = options.read_info(gif.as_slice()).unwrap();
        assert_eq!((d.width(), d.height()), (8, 4));
        let mut seen = Vec::new();
        while let Some(f) = d.read_next_frame().unwrap() {
            seen.push((f.delay, f.buffer[..4].to_vec()));
        }
        assert_eq!(
            seen,
            [(50, vec![10, 245, 7, 255]), (50, vec![200, 55, 7, 255])]
        );
        let odd = Frame {
            turn: 3,
            image: RgbaImage {
                width: 2,
                height: 2,
                data: vec![0; 16],
            },
        };
        assert!(write_gif(&[frame(1, 0), odd], 500, Vec::new()).is_err());
    }
}
