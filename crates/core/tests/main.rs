//! The integration tests of franz-core, one test binary (ripgrep's layout): every file under
//! `tests/` is a module of this one, so a test build links one binary instead of one per file.
//! A new test file is a `mod` line here (`tests_reached` in the franz crate fails otherwise).

mod adapt_client;
mod chat_templates;
mod client;
mod common;
mod context_client;
mod docs_current;
mod engine_truth;
mod family_grammars;
mod function_length;
mod held_input;
mod human_input;
mod keys_x11;
mod module_cycles;
mod one_builder;
mod overlay_golden;
mod parser_fuzz;
mod parser_linear;
mod placement;
mod real_apps;
mod replies;
mod runlog_schema;
mod server_refusals;
mod stop_drops_the_request;
mod two_sessions;
mod window_tools;
