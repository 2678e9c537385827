//! What part of the working area one observation shows (`observe_area`, docs/coordinates.md,
//! "The observed area"): the whole working area, the focused window, or the window the last
//! pointer action touched, each intersected with the working area. A window that is missing,
//! too small or mostly outside the working area gives the whole working area, with the reason.

use crate::geometry::WorkArea;
use franz_desktop::{PixelPoint, PixelRect, WindowInfo};
use serde::{Deserialize, Serialize};

/// The `observe_area` setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ObserveArea {
    /// The whole working area (`crop`).
    #[default]
    Screen,
    /// The focused window.
    Window,
    /// The window the last pointer action touched; the focused window until there is one.
    Touched,
}

/// A window narrower or lower than this many pixels (after the intersection with the
/// working area) is too small to be useful: the whole working area is shown instead.
pub const MIN_SIDE: u32 = 64;

/// A window with less than this share (in percent) of its own area inside the working area
/// is mostly off it: the whole working area is shown instead.
pub const MIN_VISIBLE_PERCENT: u64 = 50;

/// The window an observation shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShownWindow {
    pub id: u64,
    pub title: String,
    pub application: String,
}

/// What one observation shows: its rectangle of the screen, and the window it is (none: the
/// whole working area), or why a window asked for is not shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObservedArea {
    /// The screen pixels the image shows (root coordinates).
    pub rect: PixelRect,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<ShownWindow>,
    /// Why the whole working area is shown though `observe_area` asked for a window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
}

impl ObservedArea {
    /// The whole working area, as `observe_area = screen` shows it.
    pub fn whole(work: WorkArea) -> Self {
        ObservedArea {
            rect: work.rect,
            window: None,
            fallback: None,
        }
    }

    /// The area as the mapping uses it.
    pub fn work_area(&self) -> WorkArea {
        WorkArea { rect: self.rect }
    }

    /// The line the model is told about what it sees; `None` with `observe_area = screen`
    /// (whose requests stay as they were).
    pub fn note(&self) -> Option<String> {
        if let Some(w) = &self.window {
            let app = match w.application.as_str() {
                "" => String::new(),
                a => format!(" (application {a})"),
            };
            return Some(format!(
                "You see the window {:?}{app}, not the whole screen.",
                w.title
            ));
        }
        self.fallback
            .as_ref()
            .map(|why| format!("You see the whole screen: {why}."))
    }
}

impl ObservedArea {
    /// What the image showed, in one line for `franz replay`, the report and the panel;
    /// `None` for the working area shown as `observe_area = screen` shows it.
    pub fn line(&self) -> Option<String> {
        let r = self.rect;
        let at = format!("{}x{} at {},{}", r.width, r.height, r.x, r.y);
        match (&self.window, &self.fallback) {
            (Some(w), _) => Some(format!(
                "observed the window {:?} ({at}): the turn's points map through it",
                w.title
            )),
            (None, Some(why)) => Some(format!("observed the whole working area: {why}")),
            (None, None) => None,
        }
    }
}

/// The window `area` asks for among `windows` (bottom of the stack first): the focused one,
/// or for `touched` the one `touched` names (the focused one while it names none).
pub fn pick(
    area: ObserveArea,
    windows: &[WindowInfo],
    touched: Option<u64>,
) -> Option<&WindowInfo> {
    let focused = || windows.iter().rev().find(|w| w.focused);
    match (area, touched) {
        (ObserveArea::Screen, _) => None,
        (ObserveArea::Touched, Some(id)) => windows.iter().find(|w| w.id == id).or_else(focused),
        _ => focused(),
    }
}

/// The top window (the last of `windows`, bottom first) under root pixel `p`.
pub fn top_at(windows: &[WindowInfo], p: PixelPoint) -> Option<&WindowInfo> {
    windows.iter().rev().find(|w| w.bounds.contains(p))
}

/// The area an observation shows of `work` for `window` (the one [`pick`] chose, `None`
/// when there was none): the window's bounds within the working area, or the whole working
/// area with the reason when there is no window, it lies (mostly) outside the working area,
/// or what remains of it is under [`MIN_SIDE`] pixels on a side.
pub fn rule(area: ObserveArea, work: WorkArea, window: Option<&WindowInfo>) -> ObservedArea {
    if area == ObserveArea::Screen {
        return ObservedArea::whole(work);
    }
    let fallback = |why: String| ObservedArea {
        fallback: Some(why),
        ..ObservedArea::whole(work)
    };
    let Some(w) = window else {
        return fallback(match area {
            ObserveArea::Touched => "no window was touched and none has the focus".into(),
            _ => "no window has the focus".into(),
        });
    };
    let name = format!("the window {:?}", w.title);
    let Some(inside) = intersect(w.bounds, work.rect) else {
        return fallback(format!("{name} is outside the working area"));
    };
    let own = u64::from(w.bounds.width) * u64::from(w.bounds.height);
    let seen = u64::from(inside.width) * u64::from(inside.height);
    if seen * 100 < own * MIN_VISIBLE_PERCENT {
        return fallback(format!("{name} is mostly outside the working area"));
    }
    if inside.width < MIN_SIDE || inside.height < MIN_SIDE {
        return fallback(format!(
            "{name} is too small ({}x{} pixels)",
            inside.width, inside.height
        ));
    }
    ObservedArea {
        rect: inside,
        window: Some(ShownWindow {
            id: w.id,
            title: w.title.clone(),
            application: w.application.clone(),
        }),
        fallback: None,
    }
}

/// The pixels two rectangles share; `None` when they share none.
pub fn intersect(a: PixelRect, b: PixelRect) -> Option<PixelRect> {
    let (x, y) = (a.x.max(b.x), a.y.max(b.y));
    let (right, bottom) = (a.right().min(b.right()), a.bottom().min(b.bottom()));
    (right > x && bottom > y).then(|| PixelRect::new(x, y, (right - x) as u32, (bottom - y) as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORK: WorkArea = WorkArea {
        rect: PixelRect::new(0, 0, 1280, 800),
    };

    fn win(id: u64, bounds: PixelRect, focused: bool) -> WindowInfo {
        WindowInfo {
            id,
            title: format!("w{id}"),
            application: "App".into(),
            bounds,
            focused,
        }
    }

    #[test]
    fn a_window_inside_the_working_area_is_its_own_bounds() {
        let w = win(1, PixelRect::new(100, 50, 400, 300), true);
        let a = rule(ObserveArea::Window, WORK, Some(&w));
        assert_eq!(a.rect, w.bounds);
        assert_eq!(a.window.as_ref().map(|s| s.id), Some(1));
        assert_eq!(
            a.note().as_deref(),
            Some("You see the window \"w1\" (application App), not the whole screen.")
        );
    }

    #[test]
    fn a_window_over_the_edge_is_cut_to_the_working_area() {
        let work = WorkArea {
            rect: PixelRect::new(100, 100, 600, 400),
        };
        let w = win(1, PixelRect::new(50, 120, 300, 200), true);
        let a = rule(ObserveArea::Window, work, Some(&w));
        assert_eq!(a.rect, PixelRect::new(100, 120, 250, 200));
    }

    #[test]
    fn no_window_a_small_one_or_one_mostly_outside_gives_the_whole_area() {
        let none = rule(ObserveArea::Window, WORK, None);
        assert_eq!(none.rect, WORK.rect);
        assert_eq!(
            none.note().as_deref(),
            Some("You see the whole screen: no window has the focus.")
        );
        let outside = win(1, PixelRect::new(2000, 0, 300, 300), true);
        let a = rule(ObserveArea::Window, WORK, Some(&outside));
        assert!(a.fallback.as_deref().is_some_and(|f| f.contains("outside")));
        assert_eq!(a.rect, WORK.rect);
        let mostly = win(1, PixelRect::new(1100, 0, 400, 300), true);
        let a = rule(ObserveArea::Window, WORK, Some(&mostly));
        assert!(a.fallback.as_deref().is_some_and(|f| f.contains("mostly")));
        let small = win(1, PixelRect::new(10, 10, 200, MIN_SIDE - 1), true);
        let a = rule(ObserveArea::Window, WORK, Some(&small));
        assert!(
            a.fallback
                .as_deref()
                .is_some_and(|f| f.contains("too small"))
        );
        let just = win(1, PixelRect::new(10, 10, MIN_SIDE, MIN_SIDE), true);
        assert_eq!(
            rule(ObserveArea::Window, WORK, Some(&just)).rect,
            just.bounds
        );
    }

    #[test]
    fn screen_is_the_whole_area_and_says_nothing() {
        let w = win(1, PixelRect::new(100, 50, 400, 300), true);
        let a = rule(ObserveArea::Screen, WORK, Some(&w));
        assert_eq!(a, ObservedArea::whole(WORK));
        assert_eq!(a.note(), None);
    }

    #[test]
    fn touched_follows_its_window_and_the_focus_until_then() {
        let ws = [
            win(1, PixelRect::new(0, 0, 500, 500), false),
            win(2, PixelRect::new(100, 100, 500, 500), true),
        ];
        let id = |w: Option<&WindowInfo>| w.map(|w| w.id);
        assert_eq!(id(pick(ObserveArea::Touched, &ws, None)), Some(2));
        assert_eq!(id(pick(ObserveArea::Touched, &ws, Some(1))), Some(1));
        assert_eq!(
            id(pick(ObserveArea::Touched, &ws, Some(9))),
            Some(2),
            "gone"
        );
        assert_eq!(id(pick(ObserveArea::Window, &ws, Some(1))), Some(2));
        assert_eq!(id(pick(ObserveArea::Screen, &ws, None)), None);
        assert_eq!(
            id(top_at(&ws, PixelPoint::new(150, 150))),
            Some(2),
            "the top one"
        );
        assert_eq!(id(top_at(&ws, PixelPoint::new(50, 50))), Some(1));
        assert_eq!(id(top_at(&ws, PixelPoint::new(900, 900))), None);
    }
}
