//! The integration tests of franz-desktop, one test binary (ripgrep's layout): every file under
//! `tests/` is a module of this one, so a test build links one binary instead of one per file.
//! A new test file is a `mod` line here (`tests_reached` in the franz crate fails otherwise).

mod capture;
mod elements;
mod input;
mod sandbox;
mod window_at;
