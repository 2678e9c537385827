//! The reply parser: turns a model reply into canonical actions, the reply's text (story or
//! observation) and errors to send back to the model. Never panics, never evals.
//!
//! NOTE (lead): this is the engine's minimal parser for the two dialects its strategies need
//! (seed 002 function calls and seed 000 JSON); the full multi-dialect parser of the model
//! I/O issue replaces it.

mod calls;
mod json;

use crate::action::Action;
use crate::geometry::{ImageSize, NormPoint};
use crate::model::Reply;
use serde::Serialize;
use std::str::FromStr;

/// A reply dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    Json,
    Calls,
}

impl FromStr for Dialect {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "json" => Ok(Dialect::Json),
            "calls" => Ok(Dialect::Calls),
            other => Err(format!(
                "dialect {other:?} is not supported by this build: use json or calls"
            )),
        }
    }
}

/// How the model gives coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Coords {
    /// 0..1000 of the working area.
    #[default]
    Norm,
    /// Pixels of the image the model was sent.
    Pixels,
}

#[derive(Debug, Clone, Default)]
pub struct ParseOptions {
    /// `None` = detect.
    pub dialect: Option<Dialect>,
    pub coords: Coords,
    /// The image size, for `Coords::Pixels`.
    pub image_size: Option<ImageSize>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParsedReply {
    pub dialect: Option<Dialect>,
    pub actions: Vec<Action>,
    pub text: String,
    pub errors: Vec<String>,
}

/// Removes `<think>…</think>` (or everything up to a lone `</think>`).
pub fn strip_think(text: &str) -> String {
    let mut s = text.to_string();
    if let Some(end) = s.rfind("</think>") {
        let start = s[..end].find("<think>").unwrap_or(0);
        s.replace_range(start..end + "</think>".len(), "");
    }
    s.trim().to_string()
}

/// The first balanced `{...}` block of the text, parsed leniently (trailing commas, single quotes).
pub fn first_json_object(text: &str) -> Option<serde_json::Value> {
    json::first_object(text)
}

/// Parses a reply.
pub fn parse_reply(reply: &Reply, options: &ParseOptions) -> ParsedReply {
    let text = strip_think(&reply.content);
    let dialect = options.dialect.unwrap_or_else(|| {
        if first_json_object(&text).is_some_and(|v| v.get("actions").is_some()) {
            Dialect::Json
        } else {
            Dialect::Calls
        }
    });
    let mut errors = Vec::new();
    let (actions, rest) = match dialect {
        Dialect::Json => json::parse(&text, &mut errors),
        Dialect::Calls => calls::parse(&text, &mut errors),
    };
    let mut out = Vec::new();
    for mut a in actions {
        convert_coords(&mut a, options, &mut errors);
        match a.validate() {
            Ok(()) => out.push(a),
            Err(e) => errors.push(e.to_string()),
        }
    }
    ParsedReply {
        dialect: Some(dialect),
        actions: out,
        text: rest,
        errors,
    }
}

/// Pixel coordinates to 0..1000, then clamping into 0..1000 with a note.
fn convert_coords(a: &mut Action, options: &ParseOptions, errors: &mut Vec<String>) {
    use crate::action::ActionKind::*;
    let conv = |x: &mut i32, y: &mut i32, errors: &mut Vec<String>| {
        if (*x, *y) == (-1, -1) {
            return;
        }
        if options.coords == Coords::Pixels
            && let Some(size) = options.image_size
        {
            let n = size.to_norm(*x, *y);
            (*x, *y) = (n.x, n.y);
        }
        let (c, clamped) = NormPoint::new(*x, *y).clamped();
        if clamped {
            errors.push(format!(
                "({x}, {y}) is outside 0..1000: clamped to ({}, {})",
                c.x, c.y
            ));
            (*x, *y) = (c.x, c.y);
        }
    };
    match &mut a.kind {
        Move { x, y } => conv(x, y, errors),
        Click {
            x: Some(x),
            y: Some(y),
        }
        | RightClick {
            x: Some(x),
            y: Some(y),
        }
        | MiddleClick {
            x: Some(x),
            y: Some(y),
        }
        | DoubleClick {
            x: Some(x),
            y: Some(y),
        }
        | TripleClick {
            x: Some(x),
            y: Some(y),
        }
        | MouseDown {
            x: Some(x),
            y: Some(y),
            ..
        }
        | MouseUp {
            x: Some(x),
            y: Some(y),
            ..
        }
        | Scroll {
            x: Some(x),
            y: Some(y),
            ..
        } => conv(x, y, errors),
        Drag { x, y, x2, y2 } => {
            if let (Some(x), Some(y)) = (x.as_mut(), y.as_mut()) {
                conv(x, y, errors);
            }
            conv(x2, y2, errors);
        }
        _ => {}
    }
}
