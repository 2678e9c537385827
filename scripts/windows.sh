#!/usr/bin/env bash
# Windows for real, on Linux: builds the release zip with franz.exe (scripts/dist.sh windows:
# x86_64-pc-windows-gnu, Debian's Rust + mingw, std from source) and runs the Windows tests
# under Wine on a private Xvfb, at DPI 96 and 120, with the franz.exe unzipped from it.
#   scripts/windows.sh          install what is missing, build, test at both DPIs
#   DPIS="120" scripts/windows.sh   one DPI only
# Everything goes to target/windows (its own target dir: the Linux build is not disturbed), the
# zip to target/dist.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
wine=/usr/lib/wine/wine64
screen=${FRANZ_WIN_SCREEN:-1280x800}
dpis=${DPIS:-96 120}

# shellcheck source=scripts/windows-toolchain.sh
source "$root/scripts/windows-toolchain.sh"
out=$win_out

# 1. Packages (Debian 12): the toolchain (windows-toolchain.sh), Wine, Xvfb, unzip.
windows_toolchain
"$root/scripts/deps.sh" wine wine64 xvfb unzip
# Clippy for the Windows target (the Windows-only code: win32, UI Automation, window tools).
"$root/scripts/deps.sh" rust-web-clippy

# 2. Wine 8 lacks bcryptprimitives.dll!ProcessPrng, which Rust's std imports: a test-support shim.
mkdir -p "$out"
x86_64-w64-mingw32-gcc -shared -O2 -o "$out/bcryptprimitives.dll" \
  support/windows/prng.c support/windows/prng.def -ladvapi32

# 3. The release zip (scripts/dist.sh builds franz.exe), the win_probe witness, and the Windows
# unit tests (built, run below). The tests run the franz.exe unzipped from the release archive,
# checked against its checksum first.
start=$SECONDS
dist=${FRANZ_DIST_OUT:-$root/target/dist}
zip=$(FRANZ_DIST_OUT=$dist "$root/scripts/dist.sh" windows)
(cd "$dist" && sha256sum -c --quiet "$(basename "$zip").sha256")
wcargo build -p franz-desktop --example win_probe
wcargo test --no-run -p franz-desktop --lib
wcargo clippy -p franz-desktop --lib --examples --tests -- -D warnings
bin=$out/from-zip
rm -rf "$bin"
mkdir -p "$bin"
unzip -q "$zip" -d "$bin"
cp "$win_bin/examples/win_probe.exe" "$bin/win_probe.exe"
echo "built and unzipped franz.exe in $((SECONDS - start)) s: $bin/franz.exe" >&2
# The Linux side of the end-to-end tests.
cargo build -p franz --test wine

# 4. One Wine prefix and one Xvfb per DPI; the tests run there.
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for d in $dpis; do WINEPREFIX=$out/wine-$d /usr/lib/wine/wineserver -k 2>/dev/null || true; done
}
trap cleanup EXIT
for dpi in $dpis; do
  export WINEPREFIX=$out/wine-$dpi WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
  # A free display number, with its own Xvfb.
  n=$((200 + RANDOM % 500))
  while [ -e /tmp/.X$n-lock ]; do n=$((n + 1)); done
  Xvfb :$n -screen 0 "${screen}x24" -nolisten tcp -noreset >/dev/null 2>&1 &
  pids+=($!)
  export DISPLAY=:$n
  for _ in $(seq 100); do [ -e /tmp/.X11-unix/X$n ] && break; sleep 0.1; done
  if [ ! -f "$WINEPREFIX/drive_c/windows/system32/kernel32.dll" ]; then
    rm -rf "$WINEPREFIX"
    $wine wineboot --init >/dev/null 2>&1
  fi
  cp "$out/bcryptprimitives.dll" "$WINEPREFIX/drive_c/windows/system32/"
  $wine reg add 'HKCU\Control Panel\Desktop' /v LogPixels /t REG_DWORD /d "$dpi" /f >/dev/null 2>&1
  /usr/lib/wine/wineserver -w
  echo "== Windows tests at DPI $dpi (Xvfb $DISPLAY $screen, prefix $WINEPREFIX)" >&2
  t=$SECONDS
  CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=$wine \
    wcargo test -p franz-desktop --lib
  FRANZ_WIN_BIN=$bin FRANZ_WIN_ZIP=$zip FRANZ_WINE=$wine FRANZ_WIN_SCREEN=$screen FRANZ_WIN_DPI=$dpi \
    cargo test -p franz --test wine -- --test-threads=1
  echo "== DPI $dpi: $((SECONDS - t)) s" >&2
  /usr/lib/wine/wineserver -k 2>/dev/null || true
  kill "${pids[-1]}" 2>/dev/null || true
done
echo "windows: all green at DPI $dpis in $((SECONDS - start)) s" >&2
