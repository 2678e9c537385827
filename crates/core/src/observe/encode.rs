//! Encoding the model's image: PNG by default (text stays crisp), JPEG on request.
//!
//! PNG is written as 8-bit RGB (no alpha: the screen is opaque, and a fourth channel only
//! costs bytes). Settings were chosen by measuring (`examples/png_settings.rs`) on the
//! benchmark desktop scene at 1536x864 against Pillow's level 6 (373 KB in base64):
//! - no row filter + zlib level 2 (zlib-rs backend): 334 KB in about 3-4 ms on one core,
//!   and that work is split in bands over all cores ([`super::png`]). UI screens are mostly
//!   flat colour and text, which deflate handles well unfiltered; adaptive filtering costs
//!   2-3x the time and gave *larger* files here.
//! - Photographic content (a wallpaper, a picture) is where filters matter. When the quick
//!   encoding is poor (over a sixth of the raw size), the image is encoded again with adaptive
//!   filters at level 6, as Pillow does, and the smaller result is kept.

use super::{ObserveError, RgbaImage};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase", tag = "kind")]
pub enum ImageFormat {
    #[default]
    Png,
    Jpeg {
        quality: u8,
    },
}

impl ImageFormat {
    pub fn mime(&self) -> &'static str {
        match self {
            ImageFormat::Png => "image/png",
            ImageFormat::Jpeg { .. } => "image/jpeg",
        }
    }
}

/// The `image_format` setting: which encoder makes the model's image. JPEG takes the
/// `image_quality` setting ([`ImageCodec::format`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ImageCodec {
    #[default]
    Png,
    Jpeg,
}

impl ImageCodec {
    /// The encoder's format, JPEG at `quality` (1..100; PNG has none).
    pub fn format(self, quality: u8) -> ImageFormat {
        match self {
            ImageCodec::Png => ImageFormat::Png,
            ImageCodec::Jpeg => ImageFormat::Jpeg {
                quality: quality.clamp(1, 100),
            },
        }
    }
}

/// The zlib level of the quick, unfiltered encoding.
const QUICK_LEVEL: u8 = 2;
/// The zlib level of the filtered re-encoding for photographic content.
const THOROUGH_LEVEL: u8 = 6;
/// A quick encoding larger than raw / this is "poor".
const POOR_RATIO: usize = 6;

/// Encodes an RGBA image.
pub fn encode_image(image: &RgbaImage, format: ImageFormat) -> Result<Vec<u8>, ObserveError> {
    Scratch::default().encode_image(image, format)
}

/// The encoder's reusable buffers (scanlines of the PNG bands, RGB rows for the other
/// encoders), kept by the pipeline between turns.
#[derive(Default)]
pub struct Scratch {
    bands: Vec<super::png::BandScratch>,
    rgb: Vec<u8>,
}

impl Scratch {
    /// Encodes an RGBA image, reusing these buffers. PNG: quick and unfiltered, in bands on
    /// all cores; filtered when that compresses poorly (see the module doc).
    pub fn encode_image(
        &mut self,
        image: &RgbaImage,
        format: ImageFormat,
    ) -> Result<Vec<u8>, ObserveError> {
        let (width, height) = (image.width, image.height);
        if format == ImageFormat::Png {
            let quick = super::png::encode_unfiltered(
                &image.data,
                width,
                height,
                QUICK_LEVEL,
                super::threads(),
                &mut self.bands,
            )?;
            let raw = width as usize * height as usize * 3;
            if quick.len() <= raw / POOR_RATIO {
                return Ok(quick);
            }
            to_rgb(image, &mut self.rgb);
            let thorough = encode_png_with(
                &self.rgb,
                width,
                height,
                THOROUGH_LEVEL,
                png::Filter::Adaptive,
            )?;
            return Ok(if thorough.len() < quick.len() {
                thorough
            } else {
                quick
            });
        }
        to_rgb(image, &mut self.rgb);
        encode_rgb(&self.rgb, width, height, format)
    }
}

fn encode_rgb(
    rgb: &[u8],
    width: u32,
    height: u32,
    format: ImageFormat,
) -> Result<Vec<u8>, ObserveError> {
    match format {
        ImageFormat::Png => encode_png_rgb(rgb, width, height),
        ImageFormat::Jpeg { quality } => {
            let mut out = Vec::new();
            let enc =
                image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality.clamp(1, 100));
            image::ImageEncoder::write_image(
                enc,
                rgb,
                width,
                height,
                image::ExtendedColorType::Rgb8,
            )
            .map_err(|e| ObserveError::Encode(e.to_string()))?;
            Ok(out)
        }
    }
}

/// Encodes tightly packed RGB rows as PNG: quick and unfiltered, or filtered when that
/// compresses poorly (see the module doc).
pub fn encode_png_rgb(rgb: &[u8], width: u32, height: u32) -> Result<Vec<u8>, ObserveError> {
    let quick = encode_png_with(rgb, width, height, QUICK_LEVEL, png::Filter::NoFilter)?;
    if quick.len() <= rgb.len() / POOR_RATIO {
        return Ok(quick);
    }
    let thorough = encode_png_with(rgb, width, height, THOROUGH_LEVEL, png::Filter::Adaptive)?;
    Ok(if thorough.len() < quick.len() {
        thorough
    } else {
        quick
    })
}

fn encode_png_with(
    rgb: &[u8],
    width: u32,
    height: u32,
    level: u8,
    filter: png::Filter,
) -> Result<Vec<u8>, ObserveError> {
    let err = |e: png::EncodingError| ObserveError::Encode(e.to_string());
    let mut out = Vec::with_capacity(rgb.len() / 8);
    let mut enc = png::Encoder::new(&mut out, width, height);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_deflate_compression(png::DeflateCompression::Level(level));
    enc.set_filter(filter);
    let mut writer = enc.write_header().map_err(err)?;
    writer.write_image_data(rgb).map_err(err)?;
    writer.finish().map_err(err)?;
    Ok(out)
}

/// Drops the alpha bytes, into `rgb` (resized, so a reused buffer is not reallocated).
fn to_rgb(image: &RgbaImage, rgb: &mut Vec<u8>) {
    rgb.resize(image.data.len() / 4 * 3, 0);
    super::png::rgba_to_rgb(rgb, &image.data);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_round_trips() {
        let mut data = Vec::new();
        for i in 0..(31 * 17) {
            data.extend_from_slice(&[(i % 251) as u8, (i * 7 % 256) as u8, 3, 255]);
        }
        let img = RgbaImage {
            width: 31,
            height: 17,
            data,
        };
        let png = encode_image(&img, ImageFormat::Png).unwrap();
        let decoded = image::load_from_memory(&png).unwrap().to_rgba8();
        assert_eq!(decoded.dimensions(), (31, 17));
        assert_eq!(decoded.into_raw(), img.data);
        let jpg = encode_image(&img, ImageFormat::Jpeg { quality: 90 }).unwrap();
        assert_eq!(&jpg[..2], &[0xff, 0xd8]);
    }

    #[test]
    fn photographic_content_gets_filtered() {
        // a smooth gradient: unfiltered deflate does poorly, filtered does well
        let (w, h) = (256u32, 256u32);
        let mut data = Vec::new();
        for y in 0..h {
            for x in 0..w {
                data.extend_from_slice(&[
                    (x * 7 / 8 + y / 8) as u8,
                    (y * 3 / 4 + x / 16) as u8,
                    ((x + y) / 2) as u8,
                    255,
                ]);
            }
        }
        let img = RgbaImage {
            width: w,
            height: h,
            data,
        };
        let mut rgb = Vec::new();
        to_rgb(&img, &mut rgb);
        let quick = encode_png_with(&rgb, w, h, QUICK_LEVEL, png::Filter::NoFilter).unwrap();
        let chosen = encode_image(&img, ImageFormat::Png).unwrap();
        assert!(
            chosen.len() < quick.len(),
            "{} vs {}",
            chosen.len(),
            quick.len()
        );
        let decoded = image::load_from_memory(&chosen).unwrap().to_rgba8();
        assert_eq!(decoded.into_raw(), img.data);
    }
}
