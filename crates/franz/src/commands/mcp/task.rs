//! `run_task`: a whole franz task on the configured model server, as a session of the engine
//! (`franz_core::engine::Session`) on its own connection to the server's display. Each
//! model reply (one per turn) becomes an MCP progress notification carrying the turn's story
//! or observation; the client's cancellation submits `Op::Stop`, which ends the run at once
//! with its run directory complete. While it runs, the tools that act answer "busy" with the
//! task's id. The policy hook sees every action of the task too: the session runs in approve
//! mode and each turn's actions are approved, or rejected with the policy's reason (the model
//! is told), before the engine performs them.

use super::policy::Policy;
use super::shared::{Shared, TaskArgs, TaskSetup};
use crate::flags::Given;
use crate::settings::{crop, resolve, size_rule};
use franz_core::action::Action;
use franz_core::config::{Config, Coords, Effective};
use franz_core::engine::{Decision, Op, RunOptions, Session, SessionConfig, SessionHandle};
use franz_core::event::{EventKind, Outcome};
use franz_core::executor::{ExecConfig, Executor};
use franz_core::geometry::ImageSize;
use franz_core::model::{ClientConfig, ModelClient};
use franz_core::observe::{ObserveConfig, Pipeline};
use franz_core::overlay::Overlay;
use franz_core::runlog::{RunMeta, RunWriter};
use franz_core::strategy::ReadOptions;
use rmcp::RoleServer;
use rmcp::model::{CallToolResult, ContentBlock, ProgressNotificationParam};
use rmcp::service::RequestContext;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
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
    let c = &effective.config;
    let desktop = franz_desktop::open(&franz_desktop::DesktopOptions {
        display: setup.display.clone(),
        monitor: setup.global.monitor,
    })?;
    let (config, run_dir) = session_config(&effective, desktop.as_ref(), a.task)?;
    let client = ModelClient::new(ClientConfig::from_config(c))?;
    let (handle, mut events) = Session::spawn(config, desktop, Arc::new(client))?;
    // Ctrl+C of the server stops the task too
    let cancel = handle.cancel_token().clone();
    crate::setup::interrupt_flag().on_cancel(move || cancel.cancel());
    stopper.started(handle.clone());
    for e in events.by_ref() {
        if let EventKind::AwaitingApproval { actions } = &e.kind {
            let decision = decide(setup.policy.as_ref(), actions);
            if let Err(err) = handle.submit(Op::Approve {
                seq: e.turn,
                decision,
            }) {
                tracing::warn!("the policy's decision came too late: {err}");
            }
        }
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

/// The policy's decision on one turn's actions: all of them, or none with the first refusal.
fn decide(policy: &dyn Policy, actions: &[Action]) -> Decision {
    for a in actions {
        if let Err(why) = policy.check(a) {
            return Decision::Reject(format!(
                "{} refused by the safety policy: {why}",
                a.kind.name()
            ));
        }
    }
    Decision::Approve
}

/// The session of a task (as `franz run` builds it, without approvals, annotation or
/// answers: nobody sits at the terminal), and its run directory.
fn session_config(
    effective: &Effective,
    desktop: &dyn franz_desktop::Desktop,
    task: String,
) -> anyhow::Result<(SessionConfig, String)> {
    let c: &Config = &effective.config;
    let pipeline = Pipeline::new(ObserveConfig {
        crop: crop(c)?,
        size: size_rule(c)?,
        cursor: c.cursor,
        ..ObserveConfig::default()
    });
    let work_area = pipeline.work_area(desktop)?;
    let executor = Executor::new(work_area, ExecConfig::from_config(c), c.dry_run);
    let read = ReadOptions {
        dialect: c.dialect,
        pixel_coords: c.coords == Coords::Pixels,
        ..ReadOptions::default()
    }
    .with_config(c);
    let writer = RunWriter::create(&c.runs_dir, c.log_layout)?.with_log_images(c.log_images);
    writer.write_config(&effective.masked_table())?;
    let screen = desktop.monitor().rect;
    writer.write_meta(&RunMeta {
        screen: Some(ImageSize::new(screen.width, screen.height)),
    })?;
    let run_dir = writer.dir().display().to_string();
    let options = RunOptions {
        task,
        model: c.model.clone(),
        temperature: c.temperature,
        top_p: c.top_p,
        max_tokens: c.max_tokens.min(u32::MAX as u64) as u32,
        stream: c.stream,
        early_exec: c.early_exec,
        max_steps: c.max_steps,
        max_time: (c.max_time > 0.0).then(|| Duration::from_secs_f64(c.max_time)),
        step_delay: Duration::from_secs_f64(c.step_delay),
        max_empty_turns: c.max_empty_turns,
        feedback: c.feedback,
        context: franz_core::engine::ContextOptions {
            tokens: (c.context_tokens > 0).then_some(c.context_tokens),
            ..Default::default()
        },
        guard: franz_core::loops::Guard::from_config(c),
    };
    let config = SessionConfig {
        pipeline,
        executor,
        strategy: c.strategy.create(read),
        overlay: Overlay::new(c.overlay.clone()).ok(),
        writer: Some(writer),
        options,
        annotate: false,
        grounding: None,
        // the policy approves each turn's actions
        approve: true,
        answers: false,
    };
    Ok((config, run_dir))
}

#[cfg(test)]
mod tests {
    use super::*;
    use franz_core::action::ActionKind;

    #[test]
    fn the_policy_decides_each_turn_of_a_task() {
        let no_typing = |a: &Action| match a.kind {
            ActionKind::Type { .. } => Err("typing is off".to_string()),
            _ => Ok(()),
        };
        let click = Action::from(ActionKind::Click { x: None, y: None });
        let typing = Action::from(ActionKind::Type { text: "x".into() });
        assert_eq!(
            decide(&no_typing, std::slice::from_ref(&click)),
            Decision::Approve
        );
        assert_eq!(
            decide(&no_typing, &[click, typing]),
            Decision::Reject("type refused by the safety policy: typing is off".into())
        );
    }
}
