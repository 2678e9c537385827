//! The sandbox: a private Xvfb on a free display number, with programs launched on it, that is
//! always stopped (normal exit, error, Ctrl+C).
//!
//! TODO(foundation issue).
