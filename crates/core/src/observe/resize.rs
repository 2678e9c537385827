//! Crop and resize with fast_image_resize (SIMD convolution), straight from the captured frame
//! where the backend lends it (B, G, R and an undefined fourth byte), then one swizzle to
//! opaque RGBA at the final size. The resize's two passes are split across threads where the
//! split cannot change a pixel: the vertical pass by columns, the horizontal pass by output
//! rows, so the result equals one resize of the region, pixel for pixel, at every screen size
//! (tested in `resize/every_screen.rs`).
//!
//! For speed, an output band whose source rows (with the filter's reach) did not change since
//! the last resize of the same region to the same size is copied from that resize instead of
//! computed again (when no band changed, nothing is computed): the result is the same, byte
//! for byte (tested below).

use super::{ObserveError, RgbaImage};
use crate::geometry::ImageSize;
use fast_image_resize::images::{TypedImage, TypedImageRef};
use fast_image_resize::pixels::U8x4;
use fast_image_resize::{self as fir, ImageView as _, ImageViewMut as _};
use franz_desktop::FrameView;
use std::num::NonZeroU32;

/// A rectangle of the frame, in frame pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

/// Keeps fast_image_resize's scratch buffers (one resizer per band) between turns.
#[derive(Default)]
pub struct Resizer {
    scratch: Scratch,
    /// Repacked frame rows, used only when the capture's stride has padding.
    packed: Vec<u8>,
    /// The last resize's output (RGBA, before any drawing), and what it was made from.
    last: Option<(LastKey, Vec<u8>)>,
}

/// What a resize's output depends on besides the pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LastKey {
    frame: (u32, u32),
    region: Region,
    size: ImageSize,
}

impl Resizer {
    /// Crops `region` out of `frame` and resizes it to `size`, returning RGBA in `out`'s
    /// buffer (reused: a buffer of the right size costs no page faults). `changed` says which
    /// rows of `region` differ from the frame of the last call (`None`: unknown, all of them);
    /// bands that read none of those are copied from the last call's output.
    pub fn crop_resize(
        &mut self,
        frame: FrameView<'_>,
        region: Region,
        size: ImageSize,
        changed: Option<&[bool]>,
        mut out: Vec<u8>,
    ) -> Result<RgbaImage, ObserveError> {
        let row = frame.width as usize * 4;
        let src: &[u8] = if frame.stride == row {
            frame.data
        } else {
            self.packed.clear();
            for r in frame.data.chunks(frame.stride).take(frame.height as usize) {
                self.packed.extend_from_slice(&r[..row]);
            }
            &self.packed
        };
        let data = if size.width == region.width && size.height == region.height {
            // native size: the crop is a plain row copy
            out.clear();
            for y in region.y..region.y + region.height {
                let start = y as usize * row + region.x as usize * 4;
                out.extend_from_slice(&src[start..start + region.width as usize * 4]);
            }
            bgra_to_rgba(&mut out);
            self.last = None;
            out
        } else {
            let src_ref =
                Src::from_buffer(frame.width, frame.height, src).map_err(|e| resize_error(&e))?;
            out.resize(size.width as usize * size.height as usize * 4, 0);
            let key = LastKey {
                frame: (frame.width, frame.height),
                region,
                size,
            };
            // the last output, when it is of this region and size, and a buffer to keep this one
            let (mut keep, changed) = match self.last.take() {
                Some((k, buf)) if k == key && buf.len() == out.len() => (buf, changed),
                Some((_, buf)) => (buf, None),
                None => (Vec::new(), None),
            };
            let changed = changed.filter(|c| c.len() == region.height as usize);
            keep.resize(out.len(), 0);
            resize_bands(
                &mut self.scratch,
                &src_ref,
                region,
                size,
                &mut out,
                super::threads(),
                &mut keep,
                changed,
            )?;
            self.last = Some((key, keep));
            out
        };
        Ok(RgbaImage {
            width: size.width,
            height: size.height,
            data,
        })
    }
}

/// The frame as fast_image_resize reads it: BGRA pixels (alpha is never used).
type Src<'a> = TypedImageRef<'a, U8x4>;

fn resize_error(e: &dyn std::fmt::Display) -> ObserveError {
    ObserveError::Resize(e.to_string())
}

/// Resizes `region` of `src` (BGRA) into `out` (`size`, RGBA) on up to `threads` threads.
///
/// One resize with bilinear convolution is two passes, as fast_image_resize makes them for
/// 8-bit pixels: vertical first (region rows to output rows, into 8-bit rows), then horizontal.
/// Each pass is split where its coefficients do not depend on the split: the vertical pass by
/// columns, the horizontal pass by output rows. Every part is computed with the coefficients
/// one whole resize uses, and every part's edge is a whole pixel, so the result equals one
/// resize of the region pixel for pixel (tested below at every common screen size). Splitting
/// the output rows of one combined resize would not: each band would compute its own vertical
/// coefficients from a fractional crop, whose edge can land past the frame's last row, and
/// round them at its own precision.
///
/// `keep` (as long as `out`) holds a previous resize of the same region to the same size, and
/// `changed` which rows of `region` changed since (`None`: all): an output band that reads no
/// changed row is copied from `keep` (when no band does, nothing is computed); a band computed
/// is copied into `keep`, for the next call.
#[allow(clippy::too_many_arguments)]
fn resize_bands(
    scratch: &mut Scratch,
    src: &Src<'_>,
    region: Region,
    size: ImageSize,
    out: &mut [u8],
    threads: usize,
    keep: &mut [u8],
    changed: Option<&[bool]>,
) -> Result<(), ObserveError> {
    let h = size.height as usize;
    let bands = threads.clamp(1, (h / MIN_BAND_ROWS).max(1));
    let rows = h.div_ceil(bands);
    let scale = f64::from(region.height) / h as f64;
    let todo = |first: usize, n: usize| {
        changed.is_none_or(|c| c[source_rows(first, n, scale, c.len())].contains(&true))
    };
    if !(0..h)
        .step_by(rows)
        .any(|first| todo(first, rows.min(h - first)))
    {
        out.copy_from_slice(keep);
        return Ok(());
    }
    scratch
        .resizers
        .resize_with(threads.max(bands), fir::Resizer::new);
    let resizers = &mut scratch.resizers;
    let rows_of = (region.y, region.height);
    if size.width == region.width {
        // vertical only, straight into the output: every row is computed
        let mut dst = TypedImage::<U8x4>::from_buffer(size.width, size.height, out)
            .map_err(|e| resize_error(&e))?;
        vertical_pass(resizers, src, rows_of, &mut dst, 0..size.width, region.x)?;
        bgra_to_rgba(out);
        keep.copy_from_slice(out);
        return Ok(());
    }
    let bands = Bands { rows, todo: &todo };
    if size.height == region.height {
        // horizontal only, straight from the frame
        return horizontal_bands(resizers, src, region, region.y, size, out, keep, &bands);
    }
    let width = src.width();
    scratch.temp.resize(width as usize * h * 4, 0);
    let mut temp = TypedImage::<U8x4>::from_buffer(width, size.height, &mut scratch.temp)
        .map_err(|e| resize_error(&e))?;
    let cols = read_columns(region, size.width, width);
    vertical_pass(resizers, src, rows_of, &mut temp, cols, 0)?;
    let temp = Src::from_buffer(width, size.height, &scratch.temp).map_err(|e| resize_error(&e))?;
    horizontal_bands(resizers, &temp, region, 0, size, out, keep, &bands)
}

/// fast_image_resize's state between turns: one resizer (with its scratch buffers) per thread,
/// and the rows of the vertical pass.
#[derive(Default)]
struct Scratch {
    resizers: Vec<fir::Resizer>,
    temp: Vec<u8>,
}

/// The output's row bands: `rows` rows each (the last fewer), and whether a band starting at
/// an output row with that many rows must be computed.
struct Bands<'a> {
    rows: usize,
    todo: &'a (dyn Fn(usize, usize) -> bool + Sync),
}

/// The vertical pass: rows `top..top + height` of `src` (`rows`) to `dst`'s height, into
/// `dst`'s columns `cols`, dst column `c` from src column `c + shift`. Split into one part of
/// columns per resizer: the vertical coefficients are the same for every column.
fn vertical_pass(
    resizers: &mut [fir::Resizer],
    src: &Src<'_>,
    (top, height): (u32, u32),
    dst: &mut TypedImage<'_, U8x4>,
    cols: std::ops::Range<u32>,
    shift: u32,
) -> Result<(), ObserveError> {
    let width = cols.end.saturating_sub(cols.start);
    let parts = resizers
        .len()
        .clamp(1, (width as usize / MIN_BAND_COLS).max(1)) as u32;
    let (Some(width), Some(parts)) = (NonZeroU32::new(width), NonZeroU32::new(parts)) else {
        return Ok(());
    };
    let parts = dst
        .split_by_width_mut(cols.start, width, parts)
        .ok_or_else(|| ObserveError::Resize(format!("cannot split columns {cols:?}")))?;
    let mut left = cols.start;
    let jobs: Vec<_> = resizers
        .iter_mut()
        .zip(parts)
        .map(|(resizer, part)| {
            let job = (resizer, left, part);
            left += job.2.width();
            job
        })
        .collect();
    super::in_parallel(jobs, |(resizer, left, mut part)| {
        let options = resize_options().crop(
            f64::from(left + shift),
            f64::from(top),
            f64::from(part.width()),
            f64::from(height),
        );
        resizer
            .resize_typed(src, &mut part, &options)
            .map_err(|e| resize_error(&e))
    })?;
    Ok(())
}

/// The horizontal pass: `src`'s columns `region.x..` (`region.width` of them) to the output's
/// width, one band of output rows per resizer, output row `r` from src row `top + r`. The
/// horizontal coefficients are the same for every row. A band `bands.todo` says is unchanged
/// is copied from `keep`; one computed is swizzled to RGBA and copied into `keep`.
#[allow(clippy::too_many_arguments)]
fn horizontal_bands(
    resizers: &mut [fir::Resizer],
    src: &Src<'_>,
    region: Region,
    top: u32,
    size: ImageSize,
    out: &mut [u8],
    keep: &mut [u8],
    bands: &Bands<'_>,
) -> Result<(), ObserveError> {
    let row = size.width as usize * 4;
    let jobs: Vec<_> = resizers
        .iter_mut()
        .zip(out.chunks_mut(bands.rows * row))
        .zip(keep.chunks_mut(bands.rows * row))
        .enumerate()
        .map(|(i, ((resizer, dst), keep))| (resizer, i * bands.rows, dst, keep))
        .collect();
    super::in_parallel(jobs, |(resizer, first, dst, keep)| {
        let n = dst.len() / row;
        if !(bands.todo)(first, n) {
            dst.copy_from_slice(keep);
            return Ok(());
        }
        let mut img = TypedImage::<U8x4>::from_buffer(size.width, n as u32, dst)
            .map_err(|e| resize_error(&e))?;
        let options = resize_options().crop(
            f64::from(region.x),
            f64::from(top) + first as f64,
            f64::from(region.width),
            n as f64,
        );
        resizer
            .resize_typed(src, &mut img, &options)
            .map_err(|e| resize_error(&e))?;
        bgra_to_rgba(dst);
        keep.copy_from_slice(dst);
        Ok(())
    })?;
    Ok(())
}

/// The columns of the frame (`frame_width` wide) that resizing `region`'s width to `width`
/// reads: the bilinear filter reaches one output column's worth of source columns (at least
/// one column) each side of a column's centre; two columns of margin more.
fn read_columns(region: Region, width: u32, frame_width: u32) -> std::ops::Range<u32> {
    let reach = (f64::from(region.width) / f64::from(width)).max(1.0).ceil() as u32 + 2;
    region.x.saturating_sub(reach)..(region.x + region.width + reach).min(frame_width)
}

/// Bilinear convolution: its support grows with the downscale factor, so it antialiases like
/// Pillow's BILINEAR; text stays crisper than with a box filter. The fourth byte is alpha 255
/// (or undefined from X), never transparency: no premultiplication, which would cost two extra
/// passes over the image.
fn resize_options() -> fir::ResizeOptions {
    fir::ResizeOptions::new()
        .use_alpha(false)
        .resize_alg(fir::ResizeAlg::Convolution(fir::FilterType::Bilinear))
}

/// The rows of the region (of `height` rows) that output rows `first..first + n` read, at
/// `scale` region rows per output row: the bilinear filter reaches one output row's worth of
/// source rows (at least one row) each side of a row's centre. Two rows of margin more, so
/// rounding inside the resizer can never reach past them.
fn source_rows(first: usize, n: usize, scale: f64, height: usize) -> std::ops::Range<usize> {
    let reach = scale.max(1.0) + 2.0;
    let lo = (first as f64 * scale - reach).floor().max(0.0) as usize;
    let hi = ((first + n) as f64 * scale + reach).ceil().max(0.0) as usize;
    lo.min(height)..hi.min(height)
}

/// Bands of fewer output rows (or columns) are not worth a thread.
const MIN_BAND_ROWS: usize = 64;
const MIN_BAND_COLS: usize = 64;

/// Swaps B and R and sets alpha to opaque, in place. Written on u32 words so the compiler
/// vectorises it: about 0.2 ms for 1536x864.
pub fn bgra_to_rgba(data: &mut [u8]) {
    for px in data.chunks_exact_mut(4) {
        let v = u32::from_le_bytes([px[0], px[1], px[2], px[3]]);
        let swapped = (v & 0x0000_ff00) | ((v >> 16) & 0xff) | ((v & 0xff) << 16) | 0xff00_0000;
        px.copy_from_slice(&swapped.to_le_bytes());
    }
}

#[cfg(test)]
mod every_screen;

#[cfg(test)]
mod tests {
    use super::*;
    use franz_desktop::Frame;

    fn frame(w: u32, h: u32, stride: usize) -> Frame {
        let mut data = vec![0u8; stride * h as usize];
        for y in 0..h {
            for x in 0..w {
                let i = y as usize * stride + x as usize * 4;
                // B = x, G = y, R = 7
                data[i..i + 4].copy_from_slice(&[x as u8, y as u8, 7, 0]);
            }
        }
        Frame {
            width: w,
            height: h,
            stride,
            data,
        }
    }

    #[test]
    fn native_crop_is_exact_and_rgba() {
        for stride in [40 * 4, 40 * 4 + 12] {
            let f = frame(40, 30, stride);
            let img = Resizer::default()
                .crop_resize(
                    f.view(),
                    Region {
                        x: 5,
                        y: 6,
                        width: 10,
                        height: 8,
                    },
                    ImageSize::new(10, 8),
                    None,
                    Vec::new(),
                )
                .unwrap();
            assert_eq!((img.width, img.height), (10, 8));
            // pixel (0,0) of the crop is frame pixel (5,6): R=7, G=6, B=5, A=255
            assert_eq!(&img.data[0..4], &[7, 6, 5, 255]);
            let last = img.data.len() - 4;
            assert_eq!(&img.data[last..], &[7, 13, 14, 255]);
        }
    }

    #[test]
    fn bands_join_without_a_seam() {
        // a busy frame, cropped and downscaled by a factor that is not a whole number
        let mut f = frame(500, 400, 2000);
        for (i, b) in f.data.iter_mut().enumerate() {
            *b = (i * 31 % 251) as u8;
        }
        let region = Region {
            x: 13,
            y: 7,
            width: 480,
            height: 390,
        };
        let size = ImageSize::new(383, 311);
        let src = Src::from_buffer(500, 400, &f.data).unwrap();
        let mut whole = vec![0; 383 * 311 * 4];
        let mut resizers = Scratch::default();
        let mut keep = vec![0; whole.len()];
        resize_bands(
            &mut resizers,
            &src,
            region,
            size,
            &mut whole,
            1,
            &mut keep,
            None,
        )
        .unwrap();
        assert!(keep == whole, "what was computed is kept");
        for threads in [2, 3, 4] {
            let mut banded = vec![0; whole.len()];
            resize_bands(
                &mut resizers,
                &src,
                region,
                size,
                &mut banded,
                threads,
                &mut keep,
                None,
            )
            .unwrap();
            assert_eq!(resizers.resizers.len(), threads);
            assert!(banded == whole, "{threads} bands differ from one");
        }
    }

    #[test]
    fn a_band_with_unchanged_source_rows_is_copied_and_the_image_is_as_a_fresh_resize() {
        let busy = |seed: usize| {
            let mut f = frame(600, 500, 2400);
            for (i, b) in f.data.iter_mut().enumerate() {
                *b = ((i + seed) * 31 % 251) as u8;
            }
            f
        };
        let region = Region {
            x: 10,
            y: 20,
            width: 560,
            height: 460,
        };
        let size = ImageSize::new(448, 368);
        let fresh = |f: &Frame| {
            Resizer::default()
                .crop_resize(f.view(), region, size, None, Vec::new())
                .unwrap()
        };
        let a = busy(0);
        let mut r = Resizer::default();
        // the first call knows no previous frame: all computed
        assert_eq!(
            r.crop_resize(a.view(), region, size, None, Vec::new())
                .unwrap(),
            fresh(&a)
        );
        // only region rows 400.. change (frame rows 420..): the top band must be copied
        let mut b = a.clone();
        let changed: Vec<bool> = (0..460).map(|y| y >= 400).collect();
        for y in 400..460 {
            let row = (20 + y) * 2400;
            for byte in &mut b.data[row + 40..row + 2280] {
                *byte ^= 0x5a;
            }
        }
        let out = r.crop_resize(b.view(), region, size, Some(&changed), Vec::new());
        assert_eq!(out.unwrap(), fresh(&b));
        // a claim that nothing changed is believed: the last output comes back
        let stale = r.crop_resize(a.view(), region, size, Some(&[false; 460]), Vec::new());
        assert_eq!(stale.unwrap(), fresh(&b), "bands were copied, not computed");
        // and one that everything changed computes it all
        let all = r.crop_resize(a.view(), region, size, Some(&[true; 460]), Vec::new());
        assert_eq!(all.unwrap(), fresh(&a));
        // each row of a band's reach counts: change one row at a time around the seam
        let bands = super::super::threads().clamp(1, 368 / MIN_BAND_ROWS);
        if bands > 1 {
            let seam = 368usize.div_ceil(bands);
            let reach = source_rows(seam, 1, 460.0 / 368.0, 460);
            for y in reach.start.saturating_sub(3)..(reach.end + 3).min(460) {
                let mut r = Resizer::default();
                r.crop_resize(a.view(), region, size, None, Vec::new())
                    .unwrap();
                let mut c = a.clone();
                let row = (20 + y) * 2400;
                c.data[row + 400] ^= 0xff;
                let mut changed = vec![false; 460];
                changed[y] = true;
                let out = r.crop_resize(c.view(), region, size, Some(&changed), Vec::new());
                assert_eq!(out.unwrap(), fresh(&c), "source row {y}");
            }
        }
    }

    #[test]
    fn source_rows_cover_the_filter_and_stay_in_the_region() {
        assert_eq!(source_rows(0, 10, 1.25, 460), 0..16);
        assert_eq!(source_rows(300, 68, 1.25, 460), 371..460);
        assert_eq!(source_rows(10, 10, 0.5, 100), 2..13);
    }

    #[test]
    fn resize_keeps_flat_colour_and_size() {
        let mut f = frame(200, 100, 800);
        for px in f.data.chunks_exact_mut(4) {
            // X leaves the fourth byte undefined: it must not act as alpha
            px.copy_from_slice(&[10, 20, 30, 0]);
        }
        let img = Resizer::default()
            .crop_resize(
                f.view(),
                Region {
                    x: 0,
                    y: 0,
                    width: 200,
                    height: 100,
                },
                ImageSize::new(77, 33),
                None,
                vec![1; 5],
            )
            .unwrap();
        assert_eq!(img.data.len(), 77 * 33 * 4);
        assert!(
            img.data.chunks_exact(4).all(|p| p == [30, 20, 10, 255]),
            "{:?}",
            &img.data[..8]
        );
    }
}
