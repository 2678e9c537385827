//! Encoding the model's image: PNG by default (text stays crisp), JPEG on request.
//!
//! PNG is written as 8-bit RGB (no alpha: the screen is opaque, and a fourth channel only
//! costs bytes), with adaptive row filters and zlib level 4 through flate2. That setting was
//! chosen by measuring against Pillow (level 6) on the benchmark desktop scene: the payload is
//! no larger, and encoding is several times faster (see `franz bench observe`).

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

/// The zlib level for PNG.
const PNG_LEVEL: u8 = 4;

/// Encodes an RGBA image.
pub fn encode_image(image: &RgbaImage, format: ImageFormat) -> Result<Vec<u8>, ObserveError> {
    let rgb = to_rgb(image);
    match format {
        ImageFormat::Png => encode_png_rgb(&rgb, image.width, image.height),
        ImageFormat::Jpeg { quality } => {
            let mut out = Vec::new();
            let enc =
                image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality.clamp(1, 100));
            image::ImageEncoder::write_image(
                enc,
                &rgb,
                image.width,
                image.height,
                image::ExtendedColorType::Rgb8,
            )
            .map_err(|e| ObserveError::Encode(e.to_string()))?;
            Ok(out)
        }
    }
}

/// Encodes tightly packed RGB rows as PNG.
pub fn encode_png_rgb(rgb: &[u8], width: u32, height: u32) -> Result<Vec<u8>, ObserveError> {
    let err = |e: png::EncodingError| ObserveError::Encode(e.to_string());
    let mut out = Vec::with_capacity(rgb.len() / 4);
    let mut enc = png::Encoder::new(&mut out, width, height);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_deflate_compression(png::DeflateCompression::Level(PNG_LEVEL));
    enc.set_filter(png::Filter::Adaptive);
    let mut writer = enc.write_header().map_err(err)?;
    writer.write_image_data(rgb).map_err(err)?;
    writer.finish().map_err(err)?;
    Ok(out)
}

fn to_rgb(image: &RgbaImage) -> Vec<u8> {
    let mut rgb = Vec::with_capacity(image.width as usize * image.height as usize * 3);
    for px in image.data.chunks_exact(4) {
        rgb.extend_from_slice(&px[..3]);
    }
    rgb
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
}
