//! Every reader of the parser does work in proportion to the reply's length on hostile
//! replies (docs/architecture.md, "The parser"), and a stop reaches a long read. Counted with
//! the readers' own byte counts (`parser::work`), never timed.

use franz_core::cancel::Cancel;
use franz_core::parser::stream::StreamReader;
use franz_core::parser::{CoordMode, Dialect, ParseOptions, hostile, parse_text, work};

/// The readers: auto-detection, every dialect, and the stream reader of each dialect it reads.
fn readers() -> Vec<(String, Option<Dialect>, bool)> {
    let mut out = vec![("auto".to_string(), None, false)];
    for d in Dialect::ALL {
        out.push((d.to_string(), Some(d), false));
        let opts = ParseOptions {
            dialect: Some(d),
            coords: CoordMode::Norm,
        };
        if StreamReader::new(opts).is_some() {
            out.push((format!("stream {d}"), Some(d), true));
        }
    }
    out
}

/// The bytes the reader looked at to read `reply` (in deltas of 7 bytes for the stream).
fn work_of(reply: &str, dialect: Option<Dialect>, stream: bool) -> u64 {
    let opts = ParseOptions {
        dialect,
        coords: CoordMode::Norm,
    };
    let before = work::bytes_read();
    if stream {
        let mut r = StreamReader::new(opts).unwrap();
        let mut at = 0;
        while at < reply.len() {
            let mut end = (at + 7).min(reply.len());
            while !reply.is_char_boundary(end) {
                end += 1;
            }
            r.push(&reply[at..end]);
            at = end;
        }
    } else {
        parse_text(reply, &opts);
    }
    work::bytes_read() - before
}

#[test]
fn every_reader_works_in_proportion_to_a_hostile_reply() {
    const N: usize = 32 * 1024;
    let mut worst = Vec::new();
    for (class, _) in hostile::CLASSES {
        let small = hostile::reply(class, N).unwrap();
        let large = hostile::reply(class, 4 * N).unwrap();
        for (name, dialect, stream) in readers() {
            let a = work_of(&small, dialect, stream);
            let b = work_of(&large, dialect, stream);
            // four times the reply: at most about four times the work (a quadratic reader
            // does sixteen times)
            if b as f64 > 5.0 * a as f64 + 64.0 * 1024.0 {
                worst.push(format!("{class} / {name}: {a} -> {b} bytes"));
            }
            assert!(
                b <= 40 * 4 * N as u64,
                "{class} / {name}: {b} bytes of work for a reply of {}",
                4 * N
            );
        }
    }
    assert!(
        worst.is_empty(),
        "work grows faster than the reply:\n{}",
        worst.join("\n")
    );
}

#[test]
fn a_stop_or_a_passed_deadline_ends_a_long_read_and_drops_it() {
    let reply = hostile::reply("prose_blocks", 4 << 20).unwrap();
    for (name, dialect, stream) in readers().into_iter().filter(|r| !r.2) {
        let cancel = Cancel::new();
        cancel.cancel();
        let before = work::bytes_read();
        let read = work::watched(&cancel, None, || work_of(&reply, dialect, stream));
        assert_eq!(read, None, "{name}: a stopped read is dropped");
        let spent = work::bytes_read() - before;
        let whole = work_of(&reply, dialect, stream);
        assert!(
            spent <= whole,
            "{name}: {spent} of {whole} bytes read after the stop"
        );
        let late = work::watched(&Cancel::new(), Some(std::time::Instant::now()), || {
            work_of(&reply, dialect, stream)
        });
        assert_eq!(late, None, "{name}: the deadline had passed");
    }
}
