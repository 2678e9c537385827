//! `docs/architecture.md` cannot drift from the code: every command (and subcommand) `franz
//! --help` lists, every folder under the crates' `src`, and every method of the `Strategy`
//! trait is listed there, and everything listed there exists.

use crate::common::docs::{backquoted_after, doc, part};
use crate::common::module_graph::folders;
use crate::common::{franz_command, no_franz_env};
use std::collections::BTreeSet;
use std::path::Path;

/// The names a `--help` lists under "Commands:" (`help` left out).
fn commands_in_help(args: &[&str]) -> Vec<String> {
    let out = no_franz_env(&mut franz_command()).args(args).output();
    let out = out.expect("franz runs");
    assert!(out.status.success(), "franz {args:?} failed");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let Some((_, list)) = text.split_once("Commands:\n") else {
        return Vec::new();
    };
    list.lines()
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

/// Every command as it is typed: `run`, and `bench observe` for a command with subcommands.
fn commands() -> (BTreeSet<String>, BTreeSet<String>) {
    let (mut leaves, mut parents) = (BTreeSet::new(), BTreeSet::new());
    for top in commands_in_help(&["--help"]) {
        let subs = commands_in_help(&[&top, "--help"]);
        if subs.is_empty() {
            leaves.insert(top);
        } else {
            leaves.extend(subs.iter().map(|s| format!("{top} {s}")));
            parents.insert(top);
        }
    }
    (leaves, parents)
}

/// The command words of a row of the command table: `replay RUN_DIR [--execute]` is `replay`,
/// `bench observe` is `bench observe`.
fn command_words(cell: &str) -> String {
    let words: Vec<&str> = cell
        .split_whitespace()
        .take_while(|w| {
            w.starts_with(|c: char| c.is_ascii_lowercase())
                && w.chars().all(|c| c.is_ascii_lowercase() || c == '-')
        })
        .collect();
    words.join(" ")
}

#[test]
fn every_command_is_listed_and_every_listed_command_exists() {
    let (leaves, parents) = commands();
    assert!(
        leaves.contains("run") && leaves.contains("bench observe"),
        "{leaves:?}"
    );
    let text = doc("architecture.md");
    let cli = part(&text, "### CLI");
    let listed: BTreeSet<String> = backquoted_after(cli, "| ")
        .iter()
        .map(|c| command_words(c))
        .filter(|c| !c.is_empty() && !c.contains(".rs"))
        .collect();
    let missing: Vec<_> = leaves.difference(&listed).collect();
    let unknown: Vec<_> = listed
        .iter()
        .filter(|c| !leaves.contains(*c) && !parents.contains(*c))
        .collect();
    assert!(
        missing.is_empty() && unknown.is_empty(),
        "docs/architecture.md's command table (\"### CLI\"): missing {missing:?}, no such command {unknown:?}"
    );
}

#[test]
fn every_folder_is_listed_and_every_listed_folder_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut real = BTreeSet::new();
    for krate in ["core", "desktop", "franz"] {
        let src = root.join("crates").join(krate).join("src");
        for f in folders(&src) {
            let rel = f.strip_prefix(&root).expect("under the repository");
            real.insert(format!("{}/", rel.display()));
        }
    }
    assert!(real.contains("crates/core/src/model/"), "{real:?}");
    let listed = backquoted_after(part(&doc("architecture.md"), "## Folders"), "| ");
    let missing: Vec<_> = real.difference(&listed).collect();
    let unknown: Vec<_> = listed.difference(&real).collect();
    assert!(
        missing.is_empty() && unknown.is_empty(),
        "docs/architecture.md's \"## Folders\" table: missing {missing:?}, no such folder {unknown:?}"
    );
}

/// The methods of `pub trait Strategy` in `crates/core/src/strategy/mod.rs`.
fn strategy_methods() -> BTreeSet<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/src/strategy/mod.rs");
    let text = std::fs::read_to_string(&path).expect("strategy/mod.rs");
    let start = text.find("pub trait Strategy").expect("the Strategy trait");
    let body = &text[start..];
    let body = &body[..body.find("\n}").expect("the trait's end")];
    body.lines()
        .filter_map(|l| l.strip_prefix("    fn "))
        .filter_map(|l| l.split(['(', '<']).next())
        .map(str::to_string)
        .collect()
}

#[test]
fn every_strategy_method_is_listed_and_every_listed_method_exists() {
    let real = strategy_methods();
    assert!(real.contains("prompt") && real.contains("read"), "{real:?}");
    let listed = backquoted_after(
        part(&doc("architecture.md"), "#### The `Strategy` trait"),
        "| ",
    );
    assert_eq!(
        listed, real,
        "docs/architecture.md's \"#### The `Strategy` trait\" table against the trait"
    );
}
