//! Crop and resize in one pass with fast_image_resize (SIMD convolution), straight from the
//! captured BGRA frame, then one swizzle to RGBA at the final size.

use super::{ObserveError, RgbaImage};
use crate::geometry::ImageSize;
use fast_image_resize::{self as fir, images::Image, images::ImageRef};
use franz_desktop::Frame;

/// A rectangle of the frame, in frame pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

/// Keeps fast_image_resize's scratch buffers between turns.
#[derive(Default)]
pub struct Resizer {
    inner: fir::Resizer,
    /// Repacked frame rows, used only when the capture's stride has padding.
    packed: Vec<u8>,
}

impl Resizer {
    /// Crops `region` out of `frame` and resizes it to `size`, returning RGBA.
    pub fn crop_resize(
        &mut self,
        frame: &Frame,
        region: Region,
        size: ImageSize,
    ) -> Result<RgbaImage, ObserveError> {
        let err = |e: &dyn std::fmt::Display| ObserveError::Resize(e.to_string());
        let row = frame.width as usize * 4;
        let src: &[u8] = if frame.stride == row {
            &frame.data
        } else {
            self.packed.clear();
            for r in frame.data.chunks(frame.stride).take(frame.height as usize) {
                self.packed.extend_from_slice(&r[..row]);
            }
            &self.packed
        };
        let mut data = if size.width == region.width && size.height == region.height {
            // native size: the crop is a plain row copy
            let mut out = Vec::with_capacity(size.width as usize * size.height as usize * 4);
            for y in region.y..region.y + region.height {
                let start = y as usize * row + region.x as usize * 4;
                out.extend_from_slice(&src[start..start + region.width as usize * 4]);
            }
            out
        } else {
            let src_ref = ImageRef::new(frame.width, frame.height, src, fir::PixelType::U8x4)
                .map_err(|e| err(&e))?;
            let mut dst = Image::new(size.width, size.height, fir::PixelType::U8x4);
            // Bilinear convolution: its support grows with the downscale factor, so it
            // antialiases like Pillow's BILINEAR; text stays crisper than with a box filter.
            let options = fir::ResizeOptions::new()
                .resize_alg(fir::ResizeAlg::Convolution(fir::FilterType::Bilinear))
                .crop(
                    region.x as f64,
                    region.y as f64,
                    region.width as f64,
                    region.height as f64,
                );
            self.inner
                .resize(&src_ref, &mut dst, &options)
                .map_err(|e| err(&e))?;
            dst.into_vec()
        };
        bgra_to_rgba(&mut data);
        Ok(RgbaImage {
            width: size.width,
            height: size.height,
            data,
        })
    }
}

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
mod tests {
    use super::*;

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
                    &f,
                    Region {
                        x: 5,
                        y: 6,
                        width: 10,
                        height: 8,
                    },
                    ImageSize::new(10, 8),
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
    fn resize_keeps_flat_colour_and_size() {
        let mut f = frame(200, 100, 800);
        for px in f.data.chunks_exact_mut(4) {
            px.copy_from_slice(&[10, 20, 30, 255]);
        }
        let img = Resizer::default()
            .crop_resize(
                &f,
                Region {
                    x: 0,
                    y: 0,
                    width: 200,
                    height: 100,
                },
                ImageSize::new(77, 33),
            )
            .unwrap();
        assert_eq!(img.data.len(), 77 * 33 * 4);
        assert!(img.data.chunks_exact(4).all(|p| p == [30, 20, 10, 255]));
    }
}
