//! Captured pixels.
//!
//! Alpha: every backend sets A to 255. X11 leaves the fourth byte of a depth-24 pixel
//! undefined (Xvfb writes 0), and a frame that claims to be BGRA should not be transparent.
//! The fix-up is fused with the one copy capture makes anyway ([`Frame::from_bgrx`]), which
//! LLVM vectorizes: it costs the same as a plain `memcpy` (see `examples/capture_bench.rs`).

/// A captured image in BGRA byte order (B, G, R, A per pixel; A is 255), rows `stride`
/// bytes apart. BGRA is what X11 and GDI hand out, so capture copies nothing it need not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub width: u32,
    pub height: u32,
    pub stride: usize,
    pub data: Vec<u8>,
}

impl Frame {
    /// Copies `height` rows of `width` BGRX pixels, `src_stride` bytes apart, into a tightly
    /// packed frame with A set to 255. `src` must hold them all.
    pub fn from_bgrx(width: u32, height: u32, src: &[u8], src_stride: usize) -> Frame {
        let row = width as usize * 4;
        let mut data = vec![0u8; row * height as usize];
        if row > 0 {
            for (dst, src) in data.chunks_exact_mut(row).zip(src.chunks(src_stride)) {
                copy_opaque(dst, &src[..row]);
            }
        }
        Frame {
            width,
            height,
            stride: row,
            data,
        }
    }

    /// A frame from tightly packed RGBA rows (what xcap hands out), swapped to BGRA in place
    /// with A set to 255.
    pub fn from_rgba(width: u32, height: u32, mut data: Vec<u8>) -> Frame {
        for px in data.chunks_exact_mut(4) {
            px.swap(0, 2);
            px[3] = 255;
        }
        Frame {
            width,
            height,
            stride: width as usize * 4,
            data,
        }
    }

    /// The frame as a [`FrameView`].
    pub fn view(&self) -> FrameView<'_> {
        FrameView {
            width: self.width,
            height: self.height,
            stride: self.stride,
            data: &self.data,
        }
    }

    /// The BGRA bytes of pixel (x, y).
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let i = y as usize * self.stride + x as usize * 4;
        [
            self.data[i],
            self.data[i + 1],
            self.data[i + 2],
            self.data[i + 3],
        ]
    }

    /// The image as tightly packed RGBA rows.
    pub fn to_rgba(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.width as usize * self.height as usize * 4);
        for row in self.data.chunks(self.stride).take(self.height as usize) {
            for px in row[..self.width as usize * 4].chunks_exact(4) {
                out.extend_from_slice(&[px[2], px[1], px[0], 255]);
            }
        }
        out
    }
}

/// Copies BGRX pixels with A set to 255, four pixels at a time as one `u128` (the alpha byte
/// of each little-endian pixel is its top byte). This runs at memcpy speed with baseline
/// SSE2; a byte-by-byte loop is 5x slower (2 ms for 1920x1080).
fn copy_opaque(dst: &mut [u8], src: &[u8]) {
    const ALPHA4: u128 = 0xff00_0000_ff00_0000_ff00_0000_ff00_0000;
    let mut d16 = dst.chunks_exact_mut(16);
    let mut s16 = src.chunks_exact(16);
    for (d, s) in (&mut d16).zip(&mut s16) {
        let mut px = [0u8; 16];
        px.copy_from_slice(s);
        d.copy_from_slice(&(u128::from_le_bytes(px) | ALPHA4).to_le_bytes());
    }
    for (d, s) in d16
        .into_remainder()
        .chunks_exact_mut(4)
        .zip(s16.remainder().chunks_exact(4))
    {
        d.copy_from_slice(&[s[0], s[1], s[2], 255]);
    }
}

/// Captured pixels lent by the backend where it has them, without a copy (X11: the shared
/// memory segment the server just wrote). Byte order B, G, R, then a fourth byte that may be
/// anything (X11 leaves it undefined): a reader must not take it for alpha. Rows are `stride`
/// bytes apart.
#[derive(Debug, Clone, Copy)]
pub struct FrameView<'a> {
    pub width: u32,
    pub height: u32,
    pub stride: usize,
    pub data: &'a [u8],
}

/// The cursor as the OS draws it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CursorImage {
    /// Where the hotspot is, in root pixels.
    pub x: i32,
    pub y: i32,
    /// The hotspot inside the image.
    pub xhot: u32,
    pub yhot: u32,
    pub width: u32,
    pub height: u32,
    /// Premultiplied-free RGBA, `width * height * 4` bytes.
    pub rgba: Vec<u8>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_bgrx_drops_padding_and_sets_alpha() {
        // 2x2 pixels, rows 12 bytes apart (4 bytes of padding each).
        let src = [
            1, 2, 3, 0, 4, 5, 6, 7, 9, 9, 9, 9, //
            10, 11, 12, 13, 14, 15, 16, 0, 9, 9, 9, 9,
        ];
        let f = Frame::from_bgrx(2, 2, &src, 12);
        assert_eq!((f.width, f.height, f.stride), (2, 2, 8));
        assert_eq!(
            f.data,
            [1, 2, 3, 255, 4, 5, 6, 255, 10, 11, 12, 255, 14, 15, 16, 255]
        );
        assert_eq!(f.pixel(1, 1), [14, 15, 16, 255]);
    }

    #[test]
    fn from_bgrx_odd_widths() {
        // Widths that leave a remainder after the 4-pixel blocks.
        for width in [1u32, 3, 5, 7, 9] {
            let src: Vec<u8> = (0..width * 4 * 2).map(|i| i as u8).collect();
            let f = Frame::from_bgrx(width, 2, &src, width as usize * 4);
            for (i, px) in f.data.chunks_exact(4).enumerate() {
                let j = i * 4;
                assert_eq!(
                    px,
                    [src[j], src[j + 1], src[j + 2], 255],
                    "width {width} px {i}"
                );
            }
        }
    }

    #[test]
    fn view_lends_the_frame() {
        let f = Frame::from_bgrx(1, 2, &[1, 2, 3, 0, 4, 5, 6, 0], 4);
        let v = f.view();
        assert_eq!((v.width, v.height, v.stride), (1, 2, 4));
        assert_eq!(v.data, &f.data[..]);
    }

    #[test]
    fn from_rgba_swaps_to_opaque_bgra() {
        let f = Frame::from_rgba(2, 1, vec![1, 2, 3, 4, 5, 6, 7, 0]);
        assert_eq!((f.width, f.height, f.stride), (2, 1, 8));
        assert_eq!(f.data, [3, 2, 1, 255, 7, 6, 5, 255]);
    }

    #[test]
    fn from_bgrx_empty() {
        let f = Frame::from_bgrx(0, 0, &[], 0);
        assert!(f.data.is_empty());
    }
}
