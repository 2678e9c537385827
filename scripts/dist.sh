#!/usr/bin/env bash
# The release archives, named and laid out as cargo-dist does, with a SHA-256 checksum each
# (`ARCHIVE.sha256`, which `sha256sum -c` reads) and all of them in `sha256.sum`:
#   franz-VERSION-x86_64-unknown-linux-gnu.tar.gz   franz, README.md, LICENSE in a folder of
#                                                   the archive's name
#   franz-VERSION-x86_64-pc-windows-gnu.zip         franz.exe, README.md, LICENSE at the top
#
#   scripts/dist.sh            both, into target/dist
#   scripts/dist.sh linux      the Linux archive only (cargo build --release)
#   scripts/dist.sh windows    the Windows archive only (franz.exe built as scripts/windows.sh
#                              builds it: scripts/windows-toolchain.sh)
# Prints the path of each archive written. FRANZ_DIST_OUT=DIR writes elsewhere; FRANZ_DIST_LINUX_BIN=FILE packs that Linux franz
# instead of building one (the packaging test, crates/franz/tests/dist.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# shellcheck source=scripts/windows-toolchain.sh
source "$root/scripts/windows-toolchain.sh"
out=${FRANZ_DIST_OUT:-$root/target/dist}
what=${1:-all}
case $what in
  all | linux | windows) ;;
  *) echo "usage: scripts/dist.sh [all|linux|windows]" >&2; exit 2 ;;
esac

# The workspace's version (Cargo.toml, [workspace.package]).
version=$(awk '/^\[workspace.package\]/ {p = 1; next} /^\[/ {p = 0}
  p && $1 == "version" {gsub(/"/, "", $3); print $3; exit}' Cargo.toml)
[ -n "$version" ] || { echo "dist: no version in Cargo.toml's [workspace.package]" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

# `NAME.sha256` beside the archive NAME in $out; the archive's path on stdout.
checksum() {
  (cd "$out" && sha256sum "$1" >"$1.sha256")
  echo "dist: $out/$1 ($(du -h "$out/$1" | cut -f1))" >&2
  echo "$out/$1"
}

linux() {
  local target=x86_64-unknown-linux-gnu bin=${FRANZ_DIST_LINUX_BIN:-}
  if [ -z "$bin" ]; then
    cargo build --release -p franz --bin franz
    bin=$root/target/release/franz
  fi
  local name=franz-$version-$target
  mkdir -p "$stage/$name"
  install -m 755 "$bin" "$stage/$name/franz"
  install -m 644 README.md LICENSE "$stage/$name/"
  tar -C "$stage" --owner=0 --group=0 --numeric-owner -czf "$out/$name.tar.gz" "$name"
  checksum "$name.tar.gz"
}

windows() {
  build_franz_exe
  "$root/scripts/deps.sh" zip
  local name=franz-$version-$win_target
  mkdir -p "$stage/$name"
  cp "$win_bin/franz.exe" README.md LICENSE "$stage/$name/"
  # zip adds to an archive that exists: start from none
  rm -f "$out/$name.zip"
  (cd "$stage/$name" && zip -qX "$out/$name.zip" franz.exe README.md LICENSE)
  checksum "$name.zip"
}

case $what in
  all) linux; windows ;;
  linux) linux ;;
  windows) windows ;;
esac
# Every archive of this version in $out, one line each.
(cd "$out" && cat franz-"$version"-*.sha256 >sha256.sum)
