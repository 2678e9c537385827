//! `franz parse`: reads one model reply from stdin (raw text, or a whole chat-completions JSON
//! response) and prints what the parser makes of it as one JSON object:
//! `{"dialect", "actions", "text", "errors"}`. Exits 0 even when nothing parsed (`errors` says
//! why); bad flags exit 2.

use crate::cli::{CoordsArg, GlobalArgs, ParseArgs};
use crate::exit::{self, Exit};
use franz_core::model::Reply;
use franz_core::parser::{self, CoordMode, ParseOptions};
use std::io::{Read, Write};
use std::process::ExitCode;

pub fn run(global: &GlobalArgs, args: &ParseArgs) -> anyhow::Result<ExitCode> {
    let coords = match args.coords {
        CoordsArg::Norm => CoordMode::Norm,
        CoordsArg::Pixels => match args.image_size.or(global.size) {
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
    let dialect = match args.dialect.as_str() {
        "auto" => None,
        d => Some(d.parse().map_err(|e: String| Exit(exit::USAGE, e))?),
    };
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
