//! What the strategies' unit tests share: an observation without a screen.

use crate::action::ActionKind;
use crate::geometry::{ImageSize, WorkArea};
use crate::model::Reply;
use crate::observe::{ImageFormat, RgbaImage, Screenshot, StageTimings};
use franz_desktop::PixelRect;

/// A 100x100 observation whose image is a stub data URL.
pub fn screenshot() -> Screenshot {
    let work_area = WorkArea {
        rect: PixelRect {
            x: 0,
            y: 0,
            width: 100,
            height: 100,
        },
    };
    Screenshot {
        work_area,
        area: crate::observe::ObservedArea::whole(work_area),
        size: ImageSize::new(100, 100),
        image: RgbaImage {
            width: 1,
            height: 1,
            data: vec![0; 4],
        },
        encoded: Vec::new(),
        format: ImageFormat::Png,
        data_url: "data:image/png;base64,AA".into(),
        timings: StageTimings::default(),
        change: Default::default(),
        reused: false,
    }
}

/// The first turn of task "t" on `obs`.
pub fn first_turn(obs: &Screenshot) -> super::TurnContext<'_> {
    super::TurnContext {
        task: "t",
        turn: 1,
        screenshot: obs,
    }
}

/// A left click at (`x`, `y`).
pub fn click_at(x: i32, y: i32) -> ActionKind {
    ActionKind::Click {
        x: Some(x),
        y: Some(y),
    }
}

/// A text reply that ended with `finish_reason` `reason` (`None`: the server gave none).
pub fn finished(text: &str, reason: Option<&str>) -> Reply {
    Reply {
        finish_reason: reason.map(str::to_string),
        ..Reply::text(text)
    }
}

/// A text reply that ended with `finish_reason: stop`.
pub fn stopped(text: &str) -> Reply {
    finished(text, Some("stop"))
}
