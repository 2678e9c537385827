# Sourced by scripts/windows.sh and scripts/dist.sh: the one way franz is built for Windows
# here (docs/testing.md, "Windows"): Debian's Rust 1.96 and mingw, the standard library built
# from source (-Zbuild-std, allowed on a stable compiler by RUSTC_BOOTSTRAP=1), into its own
# target dir (target/windows), so the Linux build is not disturbed.
# Needs: $root, the repository root.

win_target=x86_64-pc-windows-gnu
win_out=$root/target/windows
win_bin=$win_out/$win_target/release

# The packages (Debian 12): Rust 1.96 with its std source, mingw.
windows_toolchain() {
  "$root/scripts/deps.sh" rustc-web cargo-web rust-web-src gcc-mingw-w64-x86-64
}

# `cargo COMMAND ARGS` for Windows, release. std is built with libtest in every invocation
# (-Zbuild-std=std,test): with the same standard library units, the test build reuses every
# dependency the franz.exe build compiled.
wcargo() {
  PATH=/usr/bin:$PATH RUSTC_BOOTSTRAP=1 cargo "$1" -Zbuild-std=std,test --target $win_target \
    --release --target-dir "$win_out" "${@:2}"
}

# franz.exe, at $win_bin/franz.exe.
build_franz_exe() {
  windows_toolchain
  wcargo build -p franz --bin franz
}
