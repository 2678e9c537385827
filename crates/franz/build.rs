//! Names the build for `franz --version`: the version, the commit and the target, as
//! `FRANZ_VERSION_LINE` (e.g. `0.1.0 (commit 3f2a9c1d0e4b, target x86_64-pc-windows-gnu)`).
//!
//! The commit is `FRANZ_BUILD_COMMIT` when set (a build from a source archive can name it),
//! else what `git rev-parse` says in this checkout, else "unknown": a checkout without `.git`
//! or a machine without git still builds.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=FRANZ_BUILD_COMMIT");
    let commit = std::env::var("FRANZ_BUILD_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .map(|c| c.trim().to_string())
        .or_else(git_commit)
        .unwrap_or_else(|| "unknown".into());
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let target = std::env::var("TARGET").unwrap_or_else(|_| "unknown".into());
    println!("cargo:rustc-env=FRANZ_VERSION_LINE={version} (commit {commit}, target {target})");
}

/// The checkout's commit, abbreviated to 12 hex digits; `None` without git or a repository.
/// Cargo is told to look again when HEAD moves (a commit, a checkout), and only then.
fn git_commit() -> Option<String> {
    let dir = std::env::var("CARGO_MANIFEST_DIR").ok()?;
    for path in git(&dir, &["rev-parse", "--git-path", "HEAD"])
        .into_iter()
        .chain(git(&dir, &["rev-parse", "--git-path", "packed-refs"]))
        .chain(current_ref(&dir))
    {
        let path = absolute(&dir, &path);
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
    git(&dir, &["rev-parse", "--short=12", "HEAD"])
}

/// The file of the branch HEAD names (`refs/heads/main` in the common git directory).
fn current_ref(dir: &str) -> Option<String> {
    let name = git(dir, &["symbolic-ref", "-q", "HEAD"])?;
    git(dir, &["rev-parse", "--git-path", &name])
}

fn absolute(dir: &str, path: &str) -> PathBuf {
    let p = Path::new(path);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        Path::new(dir).join(p)
    }
}

/// One line of `git ARGS` run in `dir`, when git exists and succeeds.
fn git(dir: &str, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let line = text.trim();
    (out.status.success() && !line.is_empty()).then(|| line.to_string())
}
