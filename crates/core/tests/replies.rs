//! The reply corpus (tests/fixtures/replies) through the library: `Reply::from_any_text` and
//! `parser::parse_reply`, exactly what `franz parse` does. The binary's own test runs the same
//! corpus through `franz parse`.

use franz_core::ImageSize;
use franz_core::model::Reply;
use franz_core::parser::{self, CoordMode, ParseOptions};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/replies");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    v.sort();
    v
}

fn options(args: &str) -> ParseOptions {
    let words: Vec<&str> = args.split_whitespace().collect();
    let flag = |name: &str| words.iter().position(|w| *w == name).map(|i| words[i + 1]);
    let coords = match flag("--coords") {
        Some("pixels") => {
            CoordMode::Pixels(flag("--image-size").unwrap().parse::<ImageSize>().unwrap())
        }
        _ => CoordMode::Norm,
    };
    ParseOptions {
        dialect: flag("--dialect").map(|d| d.parse().unwrap()),
        coords,
    }
}

/// Compares one actual output with the expectation; returns what differs.
pub fn compare(actual: &Value, expected: &Value) -> Vec<String> {
    let mut diffs = Vec::new();
    for k in ["dialect", "actions", "text"] {
        if actual[k] != expected[k] {
            diffs.push(format!(
                "{k}:\n  expected {}\n  actual   {}",
                expected[k], actual[k]
            ));
        }
    }
    let (a, e) = (
        actual["errors"].as_array().unwrap(),
        expected["errors"].as_array().unwrap(),
    );
    let matches = a.len() == e.len()
        && a.iter()
            .zip(e)
            .all(|(a, e)| a.as_str().unwrap().contains(e.as_str().unwrap()));
    if !matches {
        diffs.push(format!(
            "errors:\n  expected (substrings) {e:?}\n  actual   {a:?}"
        ));
    }
    diffs
}

#[test]
fn corpus_parses_as_expected() {
    let files = corpus();
    assert!(
        files.len() >= 80,
        "only {} replies in the corpus",
        files.len()
    );
    let mut failures = Vec::new();
    for path in &files {
        let input = std::fs::read_to_string(path).unwrap();
        let args = std::fs::read_to_string(path.with_extension("args")).unwrap_or_default();
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(path.with_extension("expected.json")).unwrap(),
        )
        .unwrap();
        let parsed = parser::parse_reply(&Reply::from_any_text(&input), &options(&args));
        let actual = serde_json::to_value(&parsed).unwrap();
        let diffs = compare(&actual, &expected);
        if !diffs.is_empty() {
            failures.push(format!(
                "{}:\n{}",
                path.file_name().unwrap().to_string_lossy(),
                diffs.join("\n")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} replies differ:\n\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
}

#[test]
fn corpus_covers_every_dialect() {
    let mut seen = std::collections::BTreeSet::new();
    for path in corpus() {
        let e: Value = serde_json::from_str(
            &std::fs::read_to_string(path.with_extension("expected.json")).unwrap(),
        )
        .unwrap();
        seen.insert(e["dialect"].as_str().unwrap().to_string());
    }
    for d in parser::Dialect::ALL {
        assert!(seen.contains(d.as_str()), "no reply in dialect {d}");
    }
}
