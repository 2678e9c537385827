//! Building a session from a resolved configuration and running it on a desktop, for
//! `franz run` and `franz demo`; its clients: the printer, the panel (`--panel`), the terminal
//! approver (`--approve`) and the terminal's answers to `ask_user`.

use crate::approve::Reply;
use crate::cli::RunArgs;
use crate::exit::usage;
use crate::terminal::errln;
use crate::{printer, setup};
use franz_core::agent::Built;
use franz_core::config::Effective;
use franz_core::engine::{EventStream, Modes, Op, RunSummary, SessionHandle};
use franz_core::event::EventKind;
use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Duration;

/// Builds a session from a configuration, runs it on the desktop's session and follows its
/// events (printer, panel, terminal approver) until it ends. Ctrl+C stops it at once. Returns
/// what keeps the sandbox up, for the caller to look at it after the run.
pub fn run_engine(
    session: setup::OpenDesktop,
    effective: &Effective,
    task: String,
    a: &RunArgs,
) -> anyhow::Result<(RunSummary, setup::Keep)> {
    // the model's questions are asked on the terminal, else on the panel; with neither,
    // ask_user ends the run
    let terminal_answers = a.panel.is_none() && std::io::stdin().is_terminal();
    let handle = SessionHandle::new(Modes {
        annotate: a.annotate_in_panel && a.panel.is_some(),
        approve: a.approve,
        answers: terminal_answers || a.panel.is_some(),
    });
    let (desktop, keep) = session.into_parts();
    let assembled = crate::assemble::session(
        effective,
        desktop,
        crate::assemble::Inputs {
            task,
            system_prompt: a.system_prompt.clone(),
            boot_reply: a.boot_reply.clone(),
        },
    )?;
    let c = &assembled.effective.config;
    let built = crate::assemble::build(assembled.agent.handle(handle.clone()))?;
    let confirms = built.executor().policy().has_confirm();
    if c.timeout == 0.0 {
        tracing::warn!("timeout is 0: a model server that never answers will hang the run");
    }
    // the safety policy's confirm rules ask a person even without --approve
    let tty_approver = (a.approve || confirms) && a.panel.is_none();
    if a.approve && tty_approver && !std::io::stdin().is_terminal() {
        return Err(usage(
            "--approve needs a terminal to ask on, or --panel to approve in the browser",
        ));
    }
    let panel = panel(a, &built, &handle)?;
    // a signal (Ctrl+C) stops this session at once, naming the signal
    setup::interrupt_flag().forward_to(handle.cancel_token().clone());
    let (_, events) = built.spawn()?;
    let summary = follow(
        events,
        printer::subscriber(c.max_steps),
        &handle,
        panel.as_deref(),
        tty_approver,
        terminal_answers,
        (c.ask_timeout > 0.0).then(|| Duration::from_secs_f64(c.ask_timeout)),
    )?;
    Ok((summary, keep))
}

/// Prints each event, shows it on the panel, asks the terminal about approvals; returns how
/// the run ended.
fn follow(
    mut events: EventStream,
    mut print: franz_core::engine::Subscriber,
    handle: &SessionHandle,
    panel: Option<&crate::panel::PanelState>,
    tty_approver: bool,
    terminal_answers: bool,
    ask_timeout: Option<Duration>,
) -> anyhow::Result<RunSummary> {
    for e in events.by_ref() {
        print(&e);
        if let Some(p) = panel {
            p.record(&e);
        }
        if let (true, EventKind::AwaitingAnswer { question }) = (terminal_answers, &e.kind) {
            let cancel = handle.cancel_token();
            let op = match crate::approve::answer(e.turn, question, ask_timeout, cancel) {
                Reply::Answer(text) => Op::Answer(text),
                // nobody answered in time: the question ends the run (exit 1)
                Reply::TimedOut => Op::NoAnswer,
                // after Ctrl+C the run is ending already, as interrupted
                Reply::Gone if cancel.is_cancelled() => continue,
                // end of input: nobody answers
                Reply::Gone => Op::Stop(format!(
                    "the model handed back to a person, who did not answer: {question}"
                )),
            };
            if let Err(err) = handle.submit(op) {
                tracing::warn!("the answer came too late: {err}");
            }
        }
        if let (true, EventKind::AwaitingApproval { actions }) = (tty_approver, &e.kind) {
            let decision = crate::approve::decide(e.turn, actions);
            if let Err(err) = handle.submit(Op::Approve {
                seq: e.turn,
                decision,
            }) {
                // the run moved on (stopped) while the person was answering
                tracing::warn!("the decision came too late: {err}");
            }
        }
    }
    Ok(events.finish()?)
}

/// The panel's state for `--panel`, served on its own thread; `None` without `--panel`.
fn panel(
    a: &RunArgs,
    built: &Built,
    handle: &SessionHandle,
) -> anyhow::Result<Option<Arc<crate::panel::PanelState>>> {
    let Some(addr) = &a.panel else {
        return Ok(None);
    };
    let (work_area, overlay) = (built.work_area(), built.overlay());
    let image = built
        .pipeline()
        .config()
        .size
        .resolve(work_area.rect.width, work_area.rect.height);
    let config = serde_json::json!({
        "overlay": overlay.map(|o| o.config().clone()).unwrap_or_default(),
        "capture": {"width": work_area.rect.width, "height": work_area.rect.height},
        "image": {"width": image.width, "height": image.height},
        "annotate_in_panel": a.annotate_in_panel,
        "approve": a.approve,
    });
    let state = crate::panel::PanelState::new(crate::panel::new_token(), handle.clone(), config);
    let served = crate::panel::start(addr, a.panel_allow_remote, state.clone())
        .map_err(|e| usage(e.to_string()))?;
    errln!("panel: {}", served.url);
    Ok(Some(state))
}
