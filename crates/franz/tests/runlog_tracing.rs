//! `RunWriter::log_file` is what the CLI installs as the tracing writer for `franz.log`.

use franz_core::runlog::{LOG_FILE, Layout, RunWriter};

#[test]
fn tracing_output_lands_in_franz_log() {
    let tmp = tempfile::tempdir().unwrap();
    let w = RunWriter::create(tmp.path(), Layout::Flat).unwrap();
    let log = w.log_file().unwrap();
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_writer(move || log.clone())
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        tracing::warn!(turn = 3, "the model asked for a wait of 90 s");
    });
    let text = std::fs::read_to_string(w.dir().join(LOG_FILE)).unwrap();
    assert!(
        text.contains("WARN") && text.contains("the model asked for a wait of 90 s"),
        "{text}"
    );
    assert!(text.contains("turn=3"), "{text}");
}
