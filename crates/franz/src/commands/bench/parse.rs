//! `franz bench parse`: the parser's time per MB on hostile replies (unclosed braces, quotes
//! and parentheses, long single tokens, tags that never close, ...:
//! `franz_core::parser::hostile`) of 1, 4 and 16 MB, for auto-detection, every dialect and the
//! stream reader of each dialect it reads (fed in deltas of 16 bytes). Every reader is linear
//! (docs/architecture.md, "The parser"): the time per MB stays flat as the reply grows.
//!
//! For each reader and size it prints the median over the classes of each class's median time
//! per MB, and the slowest class.

use crate::cli::BenchParseArgs;
use crate::exit::usage;
use crate::stats::stats;
use franz_core::parser::stream::StreamReader;
use franz_core::parser::{CoordMode, Dialect, ParseOptions, hostile, parse_text};
use std::process::ExitCode;
use std::time::Instant;

/// One reader: its name, its dialect (`None`: detect), and whether it reads a stream.
type Reader = (String, Option<Dialect>, bool);

pub fn bench(args: &BenchParseArgs) -> anyhow::Result<ExitCode> {
    let classes: Vec<&str> = match &args.class {
        Some(c) if hostile::reply(c, 1).is_some() => vec![c.as_str()],
        Some(c) => {
            let names: Vec<&str> = hostile::CLASSES.iter().map(|(n, _)| *n).collect();
            return Err(usage(format!(
                "unknown class {c:?}: use one of {}",
                names.join(", ")
            )));
        }
        None => hostile::CLASSES.iter().map(|(n, _)| *n).collect(),
    };
    if let Some(bad) = args.sizes.iter().find(|&&mb| !(1..=32).contains(&mb)) {
        return Err(usage(format!(
            "--sizes: {bad} MB is out of range; give sizes of 1 to 32 MB (a reply is at most 32 MB)"
        )));
    }
    let runs = args.runs.max(1);
    println!(
        "parse: ms per MB of hostile replies ({} classes, median of {runs} runs each); per size: median over the classes (slowest class)",
        classes.len()
    );
    for (name, dialect, stream) in readers() {
        let mut line = format!("  {name:<17}");
        for &mb in &args.sizes {
            let (median, slowest) = per_mb(&classes, mb, runs, dialect, stream);
            line.push_str(&format!(
                "  {mb:>2} MB {median:>7.1} ({:>7.1} {})",
                slowest.1, slowest.0
            ));
        }
        println!("{line}");
        if crate::setup::interrupted() {
            return Err(crate::setup::interrupted_error());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Auto-detection, every dialect, and the stream reader of each dialect it reads.
fn readers() -> Vec<Reader> {
    let mut out: Vec<Reader> = vec![("auto".into(), None, false)];
    for d in Dialect::ALL {
        out.push((d.to_string(), Some(d), false));
        if StreamReader::new(options(Some(d))).is_some() {
            out.push((format!("stream {d}"), Some(d), true));
        }
    }
    out
}

fn options(dialect: Option<Dialect>) -> ParseOptions {
    ParseOptions {
        dialect,
        coords: CoordMode::Norm,
    }
}

/// The median over `classes` of each one's median ms per MB at `mb` MB, and the slowest class.
fn per_mb(
    classes: &[&str],
    mb: usize,
    runs: usize,
    dialect: Option<Dialect>,
    stream: bool,
) -> (f64, (String, f64)) {
    let mut medians = Vec::with_capacity(classes.len());
    let mut slowest = (String::new(), 0.0);
    for class in classes {
        let reply = hostile::reply(class, mb << 20).unwrap_or_default();
        let mut ms: Vec<f64> = (0..runs)
            .map(|_| read_ms(&reply, dialect, stream) / mb as f64)
            .collect();
        let (median, _, _) = stats(&mut ms);
        if median > slowest.1 {
            slowest = (class.to_string(), median);
        }
        medians.push(median);
    }
    (stats(&mut medians).0, slowest)
}

/// How long one read of `reply` takes, in ms.
fn read_ms(reply: &str, dialect: Option<Dialect>, stream: bool) -> f64 {
    let start = Instant::now();
    if stream {
        if let Some(mut r) = StreamReader::new(options(dialect)) {
            let mut at = 0;
            while at < reply.len() {
                let mut end = (at + 16).min(reply.len());
                while !reply.is_char_boundary(end) {
                    end += 1;
                }
                r.push(&reply[at..end]);
                at = end;
            }
        }
    } else {
        std::hint::black_box(parse_text(reply, &options(dialect)));
    }
    start.elapsed().as_secs_f64() * 1000.0
}
