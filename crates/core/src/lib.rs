//! The engine of franz, with no OS code and no printing: geometry, the action vocabulary,
//! key names, the observation pipeline, model I/O, the reply parser, strategies, the engine
//! and its events, and the run log.

// Library code never unwraps what a user or a model can influence; tests may.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]
// Functions do one thing: none is over 80 lines (tests/function_length.rs counts every line).
#![deny(clippy::too_many_lines)]

pub mod action;
pub mod agent;
pub mod bench_task;
pub mod cancel;
pub mod config;
pub mod engine;
pub mod event;
pub mod exact_target;
pub mod executor;
pub mod files;
pub mod geometry;
pub mod grounder;
pub mod grounding;
pub mod keys;
pub mod loop_breaker;
pub mod model;
pub mod observe;
pub mod overlay;
pub mod parser;
pub mod placeholder;
pub mod policy;
pub mod profile;
pub mod refine;
pub mod report;
pub mod runlog;
pub mod scenario;
pub mod strategy;
pub mod turn_tokens;

pub use action::{Action, ActionError, ActionKind, ActionResult, ErrorKind, Warning};
pub use geometry::{Crop, ImageSize, NormBox, NormPoint, SizeRule, Target, WorkArea};
