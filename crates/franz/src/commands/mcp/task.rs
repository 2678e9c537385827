//! `run_task`: a whole franz task on the configured model server, as a session of the engine
//! (`franz_core::engine::Session`) on its own connection to the server's display. Each
//! model reply (one per turn) becomes an MCP progress notification carrying the turn's story
//! or observation; the client's cancellation submits `Op::Stop`, which ends the run at once
//! with its run directory complete. While it runs, the tools that act answer "busy" with the
//! task's id. The session is built as `franz run` builds it (`crate::assemble`): the model
//! profile, the privacy masks and the safety policy, which the executor enforces on every
//! action (a refusal is sent back to the model).

use super::shared::{Shared, TaskArgs, TaskSetup};
use crate::flags::Given;
use crate::settings::resolve;
use franz_core::config::Effective;
use franz_core::engine::{Op, SessionHandle};
use franz_core::event::{EventKind, Outcome};
use rmcp::RoleServer;
use rmcp::model::{CallToolResult, ContentBlock, ProgressNotificationParam};
use rmcp::service::RequestContext;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc::UnboundedSender;

/// A turn the engine finished, for a progress notification.
struct Turn {
    turn: u32,
    text: String,
}

/// How a task ended.
struct Ended {
    outcome: Outcome,
    reason: String,
    turns: u32,
    run_dir: String,
}

static TASKS: AtomicU64 = AtomicU64::new(0);

const STOP: &str = "cancelled by the MCP client";

fn error(msg: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(msg.into())])
}

/// Stops the task's session: when the client cancels, and when the tool call is dropped
/// before the run ended (a client that went away). The session may not have started yet:
/// then it is stopped as soon as it starts.
#[derive(Default)]
struct Stopper {
    handle: Mutex<Option<SessionHandle>>,
    stopped: AtomicBool,
}

impl Stopper {
    fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        if let Ok(h) = self.handle.lock()
            && let Some(h) = &*h
        {
            let _ = h.submit(Op::Stop(STOP.into()));
        }
    }

    fn started(&self, h: SessionHandle) {
        if let Ok(mut slot) = self.handle.lock() {
            *slot = Some(h.clone());
        }
        if self.stopped.load(Ordering::SeqCst) {
            let _ = h.submit(Op::Stop(STOP.into()));
        }
    }
}

/// Stops the session if the tool call ends before the run did.
struct StopOnDrop(Arc<Stopper>, bool);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        if !self.1 {
            self.0.stop();
        }
    }
}

/// Clears the busy mark once the engine thread is done with the desktop.
struct Release(Arc<Shared>);

impl Drop for Release {
    fn drop(&mut self) {
        if let Ok(mut b) = self.0.busy.lock() {
            *b = None;
        }
    }
}

/// Marks the server busy with a new task, or says which task keeps it busy.
fn claim(shared: &Shared) -> Result<String, String> {
    let mut b = shared
        .busy
        .lock()
        .map_err(|_| "the server is unusable after an earlier failure".to_string())?;
    if let Some(other) = &*b {
        return Err(format!(
            "busy: franz is running task {other}; wait for it to finish or cancel it"
        ));
    }
    let id = format!("task-{}", TASKS.fetch_add(1, Ordering::SeqCst) + 1);
    *b = Some(id.clone());
    Ok(id)
}

pub async fn run(
    shared: Arc<Shared>,
    a: TaskArgs,
    ctx: RequestContext<RoleServer>,
) -> CallToolResult {
    let id = match claim(&shared) {
        Ok(id) => id,
        Err(e) => return error(e),
    };
    let release = Release(shared.clone());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let stopper = Arc::new(Stopper::default());
    let mut guard = StopOnDrop(stopper.clone(), false);
    let st = stopper.clone();
    let engine = tokio::task::spawn_blocking(move || {
        let _release = release;
        start_and_follow(&shared.task, a, &st, tx)
    });
    let token = ctx.meta.get_progress_token();
    loop {
        tokio::select! {
            turn = rx.recv() => match turn {
                Some(Turn { turn, text }) => {
                    if let Some(t) = &token {
                        let p = ProgressNotificationParam::new(t.clone(), turn as f64).with_message(text);
                        if let Err(e) = ctx.peer.notify_progress(p).await {
                            tracing::warn!("cannot send the progress of {id}: {e}");
                        }
                    }
                }
                None => break,
            },
            _ = ctx.ct.cancelled(), if !stopper.stopped.load(Ordering::SeqCst) => stopper.stop(),
        }
    }
    let ended = engine.await;
    guard.1 = true;
    match ended {
        Ok(Ok(end)) => {
            let v = serde_json::json!({
                "task_id": id,
                "outcome": end.outcome,
                "summary": end.reason,
                "turns": end.turns,
                "run_dir": end.run_dir,
            });
            let blocks = vec![ContentBlock::text(v.to_string())];
            match end.outcome {
                Outcome::Done => CallToolResult::success(blocks),
                _ => CallToolResult::error(blocks),
            }
        }
        Ok(Err(e)) => error(format!("run_task could not start: {e}")),
        Err(e) => error(format!("run_task failed: {e}")),
    }
}

/// The configuration of one task: the server's, with the call's strategy and max_steps.
fn effective(setup: &TaskSetup, a: &TaskArgs) -> anyhow::Result<Effective> {
    let mut given = setup.given.clone();
    let mut put = |key: &'static str, value: String| {
        given.push(Given {
            key,
            flag: format!("run_task's {key}"),
            value,
        })
    };
    if let Some(s) = &a.strategy {
        put("strategy", s.clone());
    }
    if let Some(n) = a.max_steps {
        put("max_steps", n.to_string());
    }
    Ok(resolve(&setup.global, &given, None)?.0)
}

/// Builds the session on the engine's thread and follows its events to the end.
fn start_and_follow(
    setup: &TaskSetup,
    a: TaskArgs,
    stopper: &Stopper,
    tx: UnboundedSender<Turn>,
) -> anyhow::Result<Ended> {
    if a.task.trim().is_empty() {
        anyhow::bail!("the task is empty: say what franz should do");
    }
    let effective = effective(setup, &a)?;
    let desktop = franz_desktop::open(&franz_desktop::DesktopOptions {
        display: setup.display.clone(),
        monitor: setup.global.monitor,
    })?;
    // as `franz run` builds it, without approvals, annotation or answers: nobody sits at the
    // terminal, so actions a `confirm` rule matches are not performed (the model is told)
    let assembled = crate::assemble::session(
        &effective,
        desktop,
        crate::assemble::Inputs {
            task: a.task,
            ..Default::default()
        },
    )?;
    let run_dir = assembled.run_dir.display().to_string();
    let agent = assembled
        .agent
        .confirmer(Box::new(super::hands::nobody_to_ask));
    let (handle, mut events) = crate::assemble::build(agent)?.spawn()?;
    // a signal to the server (Ctrl+C) stops the task too
    crate::setup::interrupt_flag().forward_to(handle.cancel_token().clone());
    stopper.started(handle.clone());
    for e in events.by_ref() {
        if let EventKind::ModelReply { story, text, .. } = &e.kind {
            let said = story.clone().unwrap_or_else(|| text.clone());
            let _ = tx.send(Turn {
                turn: e.turn,
                text: format!("turn {}: {}", e.turn, said.trim()),
            });
        }
    }
    let summary = events.finish()?;
    Ok(Ended {
        outcome: summary.outcome,
        reason: summary.reason,
        turns: summary.turns,
        run_dir,
    })
}
