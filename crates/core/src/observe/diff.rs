//! The frame difference between two turns: the new raw capture is compared with the
//! previous one, tile by tile, on the captured pixels of the work area (no second capture).
//!
//! - A tile whose rows are byte-equal costs a `memcmp`; only differing row segments are looked
//!   at pixel by pixel, and only they are copied into the kept frame.
//! - Pixels under the mouse cursor (where it is now and where it was) are masked out.
//! - Changed tiles that touch are joined; a joined change no larger than a text caret
//!   ([`CARET_W`] x [`CARET_H`] pixels) is ignored, so a blinking caret is no change.
//!
//! The result says whether the screen changed and where: each change's box and their union,
//! in 0..1000 of the work area.

use crate::geometry::NormBox;
use franz_desktop::FrameView;
use serde::{Deserialize, Serialize};

/// Tile side in pixels.
pub const TILE: u32 = 32;
/// A change at most this wide and [`CARET_H`] high is a caret's blink, not a change.
pub const CARET_W: u32 = 4;
pub const CARET_H: u32 = 20;

/// A rectangle of the work area, in pixels (`x`, `y` relative to its top-left).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PixelBox {
    pub x: i64,
    pub y: i64,
    pub width: i64,
    pub height: i64,
}

impl PixelBox {
    fn contains(&self, x: i64, y: i64) -> bool {
        x >= self.x && y >= self.y && x < self.x + self.width && y < self.y + self.height
    }
}

/// How the screen differs from the previous turn's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FrameChange {
    /// Some change larger than a caret outside the cursor (true for the first frame).
    pub changed: bool,
    /// Not one pixel differs (the cursor's place included); false for the first frame.
    pub identical: bool,
    /// The union of the changes, in 0..1000 of the work area; `None` when nothing changed or
    /// on the first frame.
    pub region: Option<NormBox>,
    /// Each change (touching changed tiles joined), in 0..1000 of the work area.
    pub boxes: Vec<NormBox>,
}

impl FrameChange {
    /// Whether a change lies within `radius` (0..1000 units) of the point.
    pub fn near(&self, x: i32, y: i32, radius: i32) -> bool {
        self.boxes.iter().any(|b| {
            x >= b.x1 - radius && x <= b.x2 + radius && y >= b.y1 - radius && y <= b.y2 + radius
        })
    }
}

/// Inclusive pixel bounds of the differing pixels of one tile.
#[derive(Debug, Clone, Copy)]
struct Bounds {
    x1: u32,
    y1: u32,
    x2: u32,
    y2: u32,
}

impl Bounds {
    fn join(self, o: Bounds) -> Bounds {
        Bounds {
            x1: self.x1.min(o.x1),
            y1: self.y1.min(o.y1),
            x2: self.x2.max(o.x2),
            y2: self.y2.max(o.y2),
        }
    }
}

/// The previous frame of the work area (tightly packed 4-byte pixels) and the cursor's box
/// in it.
#[derive(Default)]
pub struct FrameDiff {
    prev: Vec<u8>,
    width: u32,
    height: u32,
    prev_mask: Option<PixelBox>,
    /// Which rows of the work area differ from the previous frame, cursor included; empty
    /// when there was no previous frame of this size.
    changed_rows: Vec<bool>,
}

impl FrameDiff {
    /// Which rows of the work area the last [`FrameDiff::compare`] found changed (any byte of
    /// the row, the cursor's pixels included); `None` when it had no previous frame to
    /// compare with.
    pub fn changed_rows(&self) -> Option<&[bool]> {
        (!self.changed_rows.is_empty()).then_some(self.changed_rows.as_slice())
    }

    /// Compares the work area `region` (x, y, width, height in frame pixels) of `frame` with the
    /// previous call's and keeps it for the next. `cursor` is the cursor's box in work-area
    /// pixels, masked out together with the previous call's.
    pub fn compare(
        &mut self,
        frame: FrameView<'_>,
        region: (u32, u32, u32, u32),
        cursor: Option<PixelBox>,
    ) -> FrameChange {
        let (rx, ry, w, h) = region;
        let row_bytes = w as usize * 4;
        let row = |y: u32| {
            let start = (ry + y) as usize * frame.stride + rx as usize * 4;
            &frame.data[start..start + row_bytes]
        };
        let masks: Vec<PixelBox> = cursor.into_iter().chain(self.prev_mask).collect();
        self.prev_mask = cursor;
        if self.width != w || self.height != h || self.prev.len() != row_bytes * h as usize {
            self.prev.clear();
            for y in 0..h {
                self.prev.extend_from_slice(row(y));
            }
            (self.width, self.height) = (w, h);
            self.changed_rows.clear();
            return FrameChange {
                changed: true,
                ..FrameChange::default()
            };
        }
        let tiles_x = w.div_ceil(TILE);
        let mut tiles: Vec<Option<Bounds>> = vec![None; (tiles_x * h.div_ceil(TILE)) as usize];
        let mut identical = true;
        self.changed_rows.clear();
        self.changed_rows.resize(h as usize, false);
        for y in 0..h {
            let cur = row(y);
            let prev = &mut self.prev[y as usize * row_bytes..(y as usize + 1) * row_bytes];
            if cur == prev {
                continue;
            }
            identical = false;
            self.changed_rows[y as usize] = true;
            for tx in 0..tiles_x {
                let (a, b) = (tx * TILE, ((tx + 1) * TILE).min(w));
                let seg = a as usize * 4..b as usize * 4;
                if cur[seg.clone()] == prev[seg.clone()] {
                    continue;
                }
                let diff = (a..b).filter(|&x| {
                    let p = x as usize * 4..x as usize * 4 + 4;
                    cur[p.clone()] != prev[p]
                        && !masks.iter().any(|m| m.contains(x as i64, y as i64))
                });
                let (first, last) = diff.fold((None, None), |(f, _), x| (f.or(Some(x)), Some(x)));
                prev[seg.clone()].copy_from_slice(&cur[seg]);
                if let (Some(x1), Some(x2)) = (first, last) {
                    let t = &mut tiles[((y / TILE) * tiles_x + tx) as usize];
                    let here = Bounds {
                        x1,
                        y1: y,
                        x2,
                        y2: y,
                    };
                    *t = Some(t.map_or(here, |o| o.join(here)));
                }
            }
        }
        let boxes: Vec<NormBox> = clusters(&tiles, tiles_x)
            .into_iter()
            .filter(|b| b.x2 - b.x1 + 1 > CARET_W || b.y2 - b.y1 + 1 > CARET_H)
            .map(|b| to_norm(b, w, h))
            .collect();
        let region = boxes.iter().copied().reduce(|a, b| NormBox {
            x1: a.x1.min(b.x1),
            y1: a.y1.min(b.y1),
            x2: a.x2.max(b.x2),
            y2: a.y2.max(b.y2),
        });
        FrameChange {
            changed: !boxes.is_empty(),
            identical,
            region,
            boxes,
        }
    }
}

/// Joins changed tiles that touch (sides or corners) into one box each.
fn clusters(tiles: &[Option<Bounds>], tiles_x: u32) -> Vec<Bounds> {
    let tiles_x = tiles_x as usize;
    let mut seen = vec![false; tiles.len()];
    let mut out = Vec::new();
    for start in 0..tiles.len() {
        let Some(first) = tiles[start] else { continue };
        if seen[start] {
            continue;
        }
        seen[start] = true;
        let mut joined = first;
        let mut stack = vec![start];
        while let Some(i) = stack.pop() {
            let (cx, cy) = ((i % tiles_x) as i64, (i / tiles_x) as i64);
            for (dx, dy) in (-1..=1).flat_map(|dx| (-1..=1).map(move |dy| (dx, dy))) {
                let (nx, ny) = (cx + dx, cy + dy);
                if nx < 0 || ny < 0 || nx >= tiles_x as i64 {
                    continue;
                }
                let j = ny as usize * tiles_x + nx as usize;
                if let Some(Some(b)) = tiles.get(j)
                    && !seen[j]
                {
                    seen[j] = true;
                    joined = joined.join(*b);
                    stack.push(j);
                }
            }
        }
        out.push(joined);
    }
    out
}

/// Inclusive pixel bounds as a box in 0..1000 of a `w` x `h` area (outer edges).
fn to_norm(b: Bounds, w: u32, h: u32) -> NormBox {
    let n = |v: u32, of: u32| (v as i64 * 1000 / of.max(1) as i64) as i32;
    NormBox {
        x1: n(b.x1, w),
        y1: n(b.y1, h),
        x2: n(b.x2 + 1, w),
        y2: n(b.y2 + 1, h),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: u32 = 200;
    const H: u32 = 100;

    fn blank() -> Vec<u8> {
        vec![200u8; (W * H * 4) as usize]
    }

    fn paint(data: &mut [u8], x: u32, y: u32, w: u32, h: u32) {
        for yy in y..y + h {
            for xx in x..x + w {
                let i = ((yy * W + xx) * 4) as usize;
                data[i..i + 4].copy_from_slice(&[0, 0, 0, 255]);
            }
        }
    }

    fn compare(d: &mut FrameDiff, data: &[u8], cursor: Option<PixelBox>) -> FrameChange {
        let view = FrameView {
            width: W,
            height: H,
            stride: (W * 4) as usize,
            data,
        };
        d.compare(view, (0, 0, W, H), cursor)
    }

    #[test]
    fn the_first_frame_is_a_change_and_the_same_frame_again_is_none() {
        let mut d = FrameDiff::default();
        let f = blank();
        let first = compare(&mut d, &f, None);
        assert!(first.changed && !first.identical && first.region.is_none());
        let again = compare(&mut d, &f, None);
        assert!(!again.changed && again.identical, "{again:?}");
        assert_eq!(again.region, None);
    }

    #[test]
    fn changed_rows_are_exact_and_unknown_on_the_first_frame() {
        let mut d = FrameDiff::default();
        let mut data = blank();
        compare(&mut d, &data, None);
        assert_eq!(d.changed_rows(), None);
        compare(&mut d, &data, None);
        assert!(d.changed_rows().unwrap().iter().all(|c| !c));
        // a one-pixel change counts, even under the cursor and caret-sized
        paint(&mut data, 3, 7, 1, 2);
        compare(
            &mut d,
            &data,
            Some(PixelBox {
                x: 0,
                y: 0,
                width: 10,
                height: 10,
            }),
        );
        let rows = d.changed_rows().unwrap();
        let changed: Vec<usize> = (0..rows.len()).filter(|&y| rows[y]).collect();
        assert_eq!(changed, [7, 8]);
    }

    #[test]
    fn a_caret_sized_change_is_ignored_but_a_small_box_is_not() {
        let mut d = FrameDiff::default();
        let mut f = blank();
        compare(&mut d, &f, None);
        // a 2x18 caret appears: differing pixels, but no change
        paint(&mut f, 50, 30, 2, 18);
        let caret = compare(&mut d, &f, None);
        assert!(!caret.identical);
        assert!(!caret.changed, "{caret:?}");
        // a 10x10 checkbox mark is a change
        paint(&mut f, 120, 40, 10, 10);
        let mark = compare(&mut d, &f, None);
        assert!(mark.changed, "{mark:?}");
        assert_eq!(
            mark.region,
            Some(NormBox {
                x1: 600,
                y1: 400,
                x2: 650,
                y2: 500
            })
        );
    }

    #[test]
    fn a_change_under_the_cursor_is_masked_now_and_one_turn_later() {
        let mut d = FrameDiff::default();
        let mut f = blank();
        let cursor = PixelBox {
            x: 10,
            y: 10,
            width: 16,
            height: 24,
        };
        compare(&mut d, &f, Some(cursor));
        paint(&mut f, 10, 10, 16, 24);
        let under = compare(&mut d, &f, Some(cursor));
        assert!(!under.changed && !under.identical, "{under:?}");
        // the cursor moved away: its old place is still masked this once
        let moved = PixelBox { x: 150, ..cursor };
        f = blank();
        let left = compare(&mut d, &f, Some(moved));
        assert!(!left.changed, "{left:?}");
    }

    #[test]
    fn separate_changes_get_their_own_boxes_and_a_union() {
        let mut d = FrameDiff::default();
        let mut f = blank();
        compare(&mut d, &f, None);
        paint(&mut f, 0, 0, 20, 20);
        paint(&mut f, 180, 80, 20, 20);
        let c = compare(&mut d, &f, None);
        assert_eq!(c.boxes.len(), 2, "{c:?}");
        assert_eq!(
            c.region,
            Some(NormBox {
                x1: 0,
                y1: 0,
                x2: 1000,
                y2: 1000
            })
        );
        assert!(c.near(50, 100, 10));
        assert!(!c.near(500, 500, 100));
    }
}
