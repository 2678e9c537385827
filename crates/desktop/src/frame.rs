//! Captured pixels.

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
