//! Drawing the mouse cursor into the model's image at its true position, as the tool-calling and
//! commander designs (docs/designs.md) do: the hotspot lands on the image pixel of the pointer's
//! screen pixel, and the cursor is scaled with the image (as if drawn before the resize).

use super::RgbaImage;
use crate::geometry::{ImageSize, WorkArea};
use franz_desktop::CursorImage;

/// Alpha-blends the cursor onto the image. Parts outside the image are clipped.
pub fn draw(image: &mut RgbaImage, cursor: &CursorImage, work_area: WorkArea, size: ImageSize) {
    if cursor.width == 0 || cursor.height == 0 {
        return;
    }
    let sx = size.width as f64 / work_area.rect.width as f64;
    let sy = size.height as f64 / work_area.rect.height as f64;
    // top-left of the cursor image in screen pixels, relative to the working area
    let left = (cursor.x - cursor.xhot as i32 - work_area.rect.x) as f64;
    let top = (cursor.y - cursor.yhot as i32 - work_area.rect.y) as f64;
    let (dw, dh) = (
        ((cursor.width as f64 * sx).round() as i64).max(1),
        ((cursor.height as f64 * sy).round() as i64).max(1),
    );
    let (ox, oy) = ((left * sx).round() as i64, (top * sy).round() as i64);
    for dy in 0..dh {
        let iy = oy + dy;
        if iy < 0 || iy >= image.height as i64 {
            continue;
        }
        let cy = ((dy as f64 / sy) as u32).min(cursor.height - 1);
        for dx in 0..dw {
            let ix = ox + dx;
            if ix < 0 || ix >= image.width as i64 {
                continue;
            }
            let cx = ((dx as f64 / sx) as u32).min(cursor.width - 1);
            let ci = ((cy * cursor.width + cx) * 4) as usize;
            let Some(src) = cursor.rgba.get(ci..ci + 4) else {
                continue;
            };
            let a = src[3] as u32;
            if a == 0 {
                continue;
            }
            let di = ((iy as u32 * image.width + ix as u32) * 4) as usize;
            let dst = &mut image.data[di..di + 4];
            for c in 0..3 {
                dst[c] = ((src[c] as u32 * a + dst[c] as u32 * (255 - a) + 127) / 255) as u8;
            }
            dst[3] = 255;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use franz_desktop::PixelRect;

    #[test]
    fn hotspot_lands_on_the_pointer_pixel() {
        let wa = WorkArea {
            rect: PixelRect::new(100, 100, 200, 100),
        };
        let size = ImageSize::new(200, 100);
        let mut img = RgbaImage {
            width: 200,
            height: 100,
            data: vec![0; 200 * 100 * 4],
        };
        // a 3x3 cursor, opaque white, hotspot in its middle, pointer at screen (150, 120)
        let cursor = CursorImage {
            x: 150,
            y: 120,
            xhot: 1,
            yhot: 1,
            width: 3,
            height: 3,
            rgba: vec![255; 36],
        };
        draw(&mut img, &cursor, wa, size);
        let px = |x: u32, y: u32| img.data[((y * 200 + x) * 4) as usize];
        assert_eq!(px(50, 20), 255);
        assert_eq!(px(49, 19), 255);
        assert_eq!(px(51, 21), 255);
        assert_eq!(px(52, 20), 0);
        assert_eq!(px(47, 20), 0);
    }

    #[test]
    fn clipped_at_edges() {
        let wa = WorkArea {
            rect: PixelRect::new(0, 0, 10, 10),
        };
        let mut img = RgbaImage {
            width: 10,
            height: 10,
            data: vec![0; 400],
        };
        let cursor = CursorImage {
            x: 0,
            y: 0,
            xhot: 2,
            yhot: 2,
            width: 5,
            height: 5,
            rgba: vec![255; 100],
        };
        draw(&mut img, &cursor, wa, ImageSize::new(10, 10));
        assert_eq!(img.data[0], 255);
    }
}
