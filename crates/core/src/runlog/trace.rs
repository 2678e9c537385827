//! `franz.log`, one per run: a tracing layer ([`layer`]) that writes every event to the
//! `franz.log` of the run it happened in.
//!
//! The engine enters [`run_span`] for the whole run; the span names the run (`run_id`) and
//! its log file (`log`). An event inside that span, on the engine's thread (where the model
//! call runs too) or on any thread that entered the span, goes to that run's file; an event
//! outside every run goes nowhere. No process-wide slot: several runs in one process each
//! write their own file. Info level and up; `enigo`'s chatter only at error level.

use super::LogFile;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing::{Level, Metadata, Subscriber};
use tracing_subscriber::filter::{FilterFn, Filtered};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::time::{FormatTime, SystemTime};
use tracing_subscriber::layer::{Context, Layer};
use tracing_subscriber::registry::LookupSpan;

/// The target of [`run_span`]; the layer opens a file only for spans of this target.
pub const RUN_TARGET: &str = "franz::run";

/// The span a run's engine enters: events inside it go to `log` (the run's `franz.log`).
pub fn run_span(run_id: &str, log: &Path) -> tracing::Span {
    tracing::info_span!(target: RUN_TARGET, "run", run_id, log = %log.display())
}

/// The layer behind `franz.log`, with its filter: add it to the process's subscriber once.
pub fn layer<S>() -> Filtered<RunLogLayer, FilterFn, S>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    RunLogLayer.with_filter(FilterFn::new(wanted))
}

/// Run spans, and events at info level and up (enigo's only at error).
fn wanted(meta: &Metadata<'_>) -> bool {
    if meta.is_span() {
        return meta.target() == RUN_TARGET;
    }
    let level = *meta.level();
    if meta.target().starts_with("enigo") {
        return level == Level::ERROR;
    }
    level <= Level::INFO
}

/// Writes events to the `franz.log` of the innermost run span around them.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunLogLayer;

/// A run span's open log file, kept in the span's extensions.
struct SpanLog(LogFile);

impl<S> Layer<S> for RunLogLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if attrs.metadata().target() != RUN_TARGET {
            return;
        }
        let mut fields = Fields::default();
        attrs.record(&mut fields);
        let Some(path) = fields.get("log") else {
            return;
        };
        // the engine opened this file when it created the run directory and reported a
        // failure there; a file that cannot be opened here gets no lines
        if let (Ok(file), Some(span)) = (LogFile::open(Path::new(path)), ctx.span(id)) {
            span.extensions_mut().insert(SpanLog(file));
        }
    }

    fn on_event(&self, event: &tracing::Event<'_>, ctx: Context<'_, S>) {
        let Some(scope) = ctx.event_scope(event) else {
            return;
        };
        for span in scope {
            let ext = span.extensions();
            let Some(SpanLog(file)) = ext.get::<SpanLog>() else {
                continue;
            };
            let mut fields = Fields::default();
            event.record(&mut fields);
            let line = format_line(event.metadata(), &fields);
            // a log line that cannot be written has nowhere left to be reported
            let _nowhere_to_report = file.clone().write_all(line.as_bytes());
            return;
        }
    }
}

/// `2026-11-22T20:31:05.123456Z  WARN franz_core::model::client: message key=value`.
fn format_line(meta: &Metadata<'_>, fields: &Fields) -> String {
    let mut line = String::new();
    // SystemTime only fails on a clock before 1970: then the line has no time
    if SystemTime.format_time(&mut Writer::new(&mut line)).is_err() {
        line.clear();
    }
    let _infallible = write!(line, " {:>5} {}: ", meta.level(), meta.target());
    line.push_str(fields.get("message").unwrap_or_default());
    for (name, value) in &fields.0 {
        if name != "message" {
            let _infallible = write!(line, " {name}={value}");
        }
    }
    line.push('\n');
    line
}

/// The fields of an event or span, in order, as text.
#[derive(Default)]
struct Fields(Vec<(String, String)>);

impl Fields {
    fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        let shown = if field.name() == "message" {
            value.to_string()
        } else {
            format!("{value:?}")
        };
        self.0.push((field.name().to_string(), shown));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0
            .push((field.name().to_string(), format!("{value:?}")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Barrier};
    use tracing_subscriber::layer::SubscriberExt as _;

    /// Two runs on two threads at once, each in its own span, plus a worker thread per run
    /// that enters its run's span: each file holds its own run's lines and nothing else.
    #[test]
    fn two_runs_in_one_process_write_two_files_without_mixing() {
        let tmp = tempfile::tempdir().unwrap();
        let dispatch = tracing::Dispatch::new(tracing_subscriber::registry().with(layer()));
        let barrier = Arc::new(Barrier::new(2));
        let runs: Vec<_> = ["run_a", "run_b"]
            .into_iter()
            .map(|id| {
                let log = tmp.path().join(format!("{id}.log"));
                let (dispatch, barrier) = (dispatch.clone(), barrier.clone());
                std::thread::spawn(move || {
                    tracing::dispatcher::with_default(&dispatch, || {
                        tracing::info!("outside every run: {id}");
                        let span = run_span(id, &log);
                        let _in = span.enter();
                        for i in 0..50 {
                            if i == 25 {
                                barrier.wait();
                            }
                            tracing::info!(turn = i, "line {i} of {id}");
                        }
                        tracing::debug!("too verbose for franz.log: {id}");
                        let worker = tracing::Span::current();
                        let d = dispatch.clone();
                        std::thread::spawn(move || {
                            tracing::dispatcher::with_default(&d, || {
                                let _in = worker.enter();
                                tracing::warn!(attempt = 2, "retrying for {id}");
                            })
                        })
                        .join()
                        .unwrap();
                    });
                    log
                })
            })
            .collect();
        let logs: Vec<_> = runs.into_iter().map(|h| h.join().unwrap()).collect();
        for (log, (me, other)) in logs.iter().zip([("run_a", "run_b"), ("run_b", "run_a")]) {
            let text = std::fs::read_to_string(log).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            assert_eq!(lines.len(), 51, "{text}");
            for (i, line) in lines.iter().take(50).enumerate() {
                let want =
                    format!("INFO franz_core::runlog::trace::tests: line {i} of {me} turn={i}");
                assert!(line.ends_with(&want), "{line}");
            }
            assert!(lines[50].contains(" WARN "), "{text}");
            assert!(
                lines[50].contains(&format!("retrying for {me} attempt=2")),
                "{text}"
            );
            assert!(
                !text.contains(other),
                "{me}'s log holds {other}'s lines:\n{text}"
            );
            assert!(!text.contains("outside every run") && !text.contains("too verbose"));
        }
    }
}
