//! What a user downloads: `franz --version` names the build, and `scripts/dist.sh linux` packs
//! the Linux archive (franz, README.md, LICENSE in a folder of the archive's name) with its
//! SHA-256 checksum. The packaging runs here on the binary under test (`FRANZ_DIST_LINUX_BIN`,
//! no release build); the Windows zip is checked under Wine (tests/wine.rs, scripts/windows.sh),
//! and `.ci/run` runs the whole script.

use sha2::Digest as _;
use std::path::{Path, PathBuf};
use std::process::Command;

const TARGET: &str = "x86_64-unknown-linux-gnu";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// This checkout's commit as build.rs names it: 12 hex digits, or "unknown" without git.
fn commit() -> String {
    Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(repo())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

fn version_line(franz: &Path) -> String {
    let out = Command::new(franz).arg("--version").output().unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn version_names_the_version_the_commit_and_the_target() {
    let line = version_line(Path::new(env!("CARGO_BIN_EXE_franz")));
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(
        line,
        format!("franz {version} (commit {}, target {TARGET})\n", commit())
    );
    let short = Command::new(env!("CARGO_BIN_EXE_franz"))
        .arg("-V")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(short.stdout).unwrap(), line);
}

fn sha256_hex(path: &Path) -> String {
    sha2::Sha256::digest(std::fs::read(path).unwrap())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn dist_packs_franz_readme_and_licence_into_the_linux_archive_with_its_checksum() {
    let out = tempfile::tempdir().unwrap();
    // the binary under test without its debug information: the same program, and gzip has
    // a tenth of the bytes to pack
    let franz = out.path().join("franz-stripped");
    let strip = Command::new("strip")
        .arg("--strip-debug")
        .arg("-o")
        .arg(&franz)
        .arg(env!("CARGO_BIN_EXE_franz"))
        .status()
        .unwrap();
    assert!(strip.success());
    let run = Command::new("bash")
        .arg(repo().join("scripts/dist.sh"))
        .arg("linux")
        .env("FRANZ_DIST_OUT", out.path())
        .env("FRANZ_DIST_LINUX_BIN", &franz)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    let name = format!("franz-{}-{TARGET}", env!("CARGO_PKG_VERSION"));
    let archive = out.path().join(format!("{name}.tar.gz"));
    // the script names what it wrote on stdout (scripts/windows.sh reads it)
    assert_eq!(
        String::from_utf8_lossy(&run.stdout).trim(),
        archive.to_str().unwrap()
    );
    let line = format!("{}  {name}.tar.gz\n", sha256_hex(&archive));
    let sum = out.path().join(format!("{name}.tar.gz.sha256"));
    assert_eq!(std::fs::read_to_string(sum).unwrap(), line);
    let all = std::fs::read_to_string(out.path().join("sha256.sum")).unwrap();
    assert_eq!(all, line);

    let listing = Command::new("tar")
        .arg("-tzf")
        .arg(&archive)
        .output()
        .unwrap();
    let mut entries: Vec<String> = String::from_utf8(listing.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    entries.sort();
    let inside = |f: &str| format!("{name}/{f}");
    assert_eq!(
        entries,
        [
            format!("{name}/"),
            inside("LICENSE"),
            inside("README.md"),
            inside("franz")
        ]
    );
    let unpacked = tempfile::tempdir().unwrap();
    let untar = Command::new("tar")
        .arg("-xzf")
        .arg(&archive)
        .arg("-C")
        .arg(unpacked.path())
        .status()
        .unwrap();
    assert!(untar.success());
    let dir = unpacked.path().join(&name);
    for f in ["README.md", "LICENSE"] {
        assert_eq!(
            std::fs::read(dir.join(f)).unwrap(),
            std::fs::read(repo().join(f)).unwrap(),
            "{f}"
        );
    }
    // the franz in the archive is the one given, and runs
    assert!(std::fs::read(dir.join("franz")).unwrap() == std::fs::read(&franz).unwrap());
    assert_eq!(
        version_line(&dir.join("franz")),
        version_line(Path::new(env!("CARGO_BIN_EXE_franz")))
    );
}

#[test]
fn the_licence_is_the_mit_licence_the_workspace_declares() {
    let cargo = std::fs::read_to_string(repo().join("Cargo.toml")).unwrap();
    assert!(cargo.contains("license = \"MIT\""));
    let licence = std::fs::read_to_string(repo().join("LICENSE")).unwrap();
    assert!(licence.starts_with("MIT License\n\nCopyright (c) the franz developers\n"));
    assert!(licence.contains("THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND"));
}

#[test]
fn dist_refuses_an_unknown_target() {
    let run = Command::new("bash")
        .arg(repo().join("scripts/dist.sh"))
        .arg("macos")
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("usage: scripts/dist.sh"));
}
