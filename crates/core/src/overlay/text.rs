//! Label text: an embedded font (DejaVu Sans Mono Bold, Bitstream Vera licence, see
//! `assets/fonts/LICENSE-DejaVu.txt`) rasterized with ab_glyph and blended straight into the
//! RGBA buffer, on a translucent box drawn with tiny-skia.

use super::config::{Color, LabelConfig};
use ab_glyph::{Font, FontRef, PxScale, ScaleFont, point};
use tiny_skia::{Paint, PixmapMut, Rect, Transform};

static FONT_BYTES: &[u8] = include_bytes!("../../assets/fonts/DejaVuSansMono-Bold.ttf");

/// The parsed embedded font.
pub(crate) fn font() -> Result<FontRef<'static>, super::OverlayError> {
    FontRef::try_from_slice(FONT_BYTES).map_err(|_| super::OverlayError::Font)
}

/// A label's box in pixels: top-left and size.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LabelBox {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
}

/// The size of `text` with padding, at the configured pixel size.
pub(crate) fn measure(font: &FontRef<'_>, cfg: &LabelConfig, text: &str) -> (f32, f32) {
    let sf = font.as_scaled(PxScale::from(cfg.font_px));
    let w: f32 = text.chars().map(|c| sf.h_advance(sf.glyph_id(c))).sum();
    (w + 2.0 * cfg.padding, sf.height() + 2.0 * cfg.padding)
}

/// Places a label of size `w` x `h` near `(ax, ay)` (below-right, flipped to stay inside).
pub(crate) fn place(ax: f32, ay: f32, w: f32, h: f32, img_w: f32, img_h: f32) -> LabelBox {
    let gap = 14.0;
    let mut x = ax + gap;
    let mut y = ay + gap;
    if x + w > img_w {
        x = ax - gap - w;
    }
    if y + h > img_h {
        y = ay - gap - h;
    }
    LabelBox {
        x: x.clamp(0.0, (img_w - w).max(0.0)),
        y: y.clamp(0.0, (img_h - h).max(0.0)),
        w,
        h,
    }
}

/// Draws the label's background box.
pub(crate) fn draw_background(pixmap: &mut PixmapMut<'_>, cfg: &LabelConfig, b: LabelBox) {
    if let Some(rect) = Rect::from_xywh(b.x, b.y, b.w, b.h) {
        let mut paint = Paint::default();
        paint.set_color(cfg.background.skia());
        pixmap.fill_rect(rect, &paint, Transform::identity(), None);
    }
}

/// Blends `text` into the RGBA buffer inside box `b`.
pub(crate) fn draw_text(
    data: &mut [u8],
    width: u32,
    height: u32,
    font: &FontRef<'_>,
    cfg: &LabelConfig,
    b: LabelBox,
    text: &str,
) {
    let sf = font.as_scaled(PxScale::from(cfg.font_px));
    let mut x = b.x + cfg.padding;
    let baseline = b.y + cfg.padding + sf.ascent();
    for c in text.chars() {
        let id = sf.glyph_id(c);
        let glyph = id.with_scale_and_position(cfg.font_px, point(x, baseline));
        x += sf.h_advance(id);
        if let Some(outlined) = font.outline_glyph(glyph) {
            let bounds = outlined.px_bounds();
            outlined.draw(|gx, gy, cov| {
                let px = bounds.min.x as i32 + gx as i32;
                let py = bounds.min.y as i32 + gy as i32;
                blend(data, width, height, px, py, cfg.color, cov);
            });
        }
    }
}

/// Source-over of `color` at coverage `cov` onto one pixel (premultiplied destination).
fn blend(data: &mut [u8], width: u32, height: u32, x: i32, y: i32, color: Color, cov: f32) {
    if x < 0 || y < 0 || x >= width as i32 || y >= height as i32 {
        return;
    }
    let a = (color.a * cov).clamp(0.0, 1.0);
    if a <= 0.0 {
        return;
    }
    let i = (y as usize * width as usize + x as usize) * 4;
    let Some(px) = data.get_mut(i..i + 4) else {
        return;
    };
    let src = [color.r, color.g, color.b];
    for (d, s) in px.iter_mut().zip(src) {
        *d = (s as f32 * a + *d as f32 * (1.0 - a)).round() as u8;
    }
    px[3] = (255.0 * a + px[3] as f32 * (1.0 - a)).round() as u8;
}

/// Cuts `text` to `max` characters with an ellipsis, on one line.
pub(crate) fn shorten(text: &str, max: usize) -> String {
    let one_line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if one_line.chars().count() <= max {
        return one_line;
    }
    let mut s: String = one_line.chars().take(max.saturating_sub(1)).collect();
    s.push('…');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn font_loads_and_text_measures() {
        let f = font().unwrap();
        let cfg = LabelConfig::default();
        let (w1, h) = measure(&f, &cfg, "1");
        let (w4, _) = measure(&f, &cfg, "1234");
        assert!(h > cfg.font_px);
        assert!(w4 > w1 * 2.0);
    }

    #[test]
    fn labels_stay_inside_the_image() {
        let b = place(95.0, 95.0, 30.0, 10.0, 100.0, 100.0);
        assert!(b.x + b.w <= 100.0 && b.y + b.h <= 100.0 && b.x >= 0.0 && b.y >= 0.0);
        let b = place(0.0, 0.0, 300.0, 10.0, 100.0, 100.0);
        assert_eq!(b.x, 0.0);
    }

    #[test]
    fn shorten_cuts_and_flattens() {
        assert_eq!(shorten("hello", 10), "hello");
        assert_eq!(shorten("a\nb", 10), "a b");
        assert_eq!(shorten("abcdefghij", 5), "abcd…");
    }
}
