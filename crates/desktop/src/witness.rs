//! The X11 witness window: a small x11rb window that logs every pointer and key event it
//! receives, with root pixel coordinates and keysyms. `franz doctor` and the tests use it.
//!
//! TODO(acting issue).
