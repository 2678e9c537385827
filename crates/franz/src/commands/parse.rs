//! `franz parse`: reads one model reply from stdin (raw text, or a whole chat-completions JSON
//! response) and prints what the parser makes of it as one JSON object:
//! `{"dialect", "actions", "text", "errors"}`. Exits 0 even when nothing parsed (`errors` says
//! why); bad flags exit 2.

use crate::cli::{GlobalArgs, ParseArgs};
use crate::exit::{self, Exit};
use franz_core::config::{Choice, Coords};
use franz_core::geometry::{GeometryError, ImageSize};
use franz_core::model::Reply;
use franz_core::parser::{self, CoordMode, Dialect, ParseOptions};
use std::io::{Read, Write};
use std::process::ExitCode;

pub fn run(global: &GlobalArgs, args: &ParseArgs) -> anyhow::Result<ExitCode> {
    let global_size = match global.settings.get("size") {
        Some(s) => Some(
            s.parse::<ImageSize>()
                .map_err(|e: GeometryError| Exit(exit::USAGE, format!("--size: {e}")))?,
        ),
        None => None,
    };
    let coords = match Coords::parse_choice(&args.coords).map_err(|e| Exit(exit::USAGE, e))? {
        Coords::Norm => CoordMode::Norm,
        Coords::Pixels => match args.image_size.or(global_size) {
            Some(size) => CoordMode::Pixels(size),
            None => {
                return Err(Exit(
                    exit::USAGE,
                    "--coords pixels needs --image-size WxH (the size of the image the model saw)"
                        .into(),
                )
                .into());
            }
        },
    };
    let dialect =
        <Option<Dialect>>::parse_choice(&args.dialect).map_err(|e| Exit(exit::USAGE, e))?;
    let mut input = Vec::new();
    std::io::stdin().read_to_end(&mut input)?;
    let reply = Reply::from_any_text(&String::from_utf8_lossy(&input));
    let parsed = parser::parse_reply(&reply, &ParseOptions { dialect, coords });
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, &parsed)?;
    match writeln!(out) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        r => r?,
    }
    Ok(ExitCode::SUCCESS)
}
