//! Building a session from a resolved configuration and running it on a desktop, for
//! `franz run` and `franz demo`; its clients: the printer, the panel (`--panel`), the terminal
//! approver (`--approve`) and the terminal's answers to `ask_user`.

use crate::approve::Reply;
use crate::cli::RunArgs;
use crate::exit::usage;
use crate::settings::crop;
use crate::{printer, setup};
use anyhow::Context;
use franz_core::config::Effective;
use franz_core::engine::{
    EventStream, Op, RunOptions, RunSummary, Session, SessionConfig, SessionHandle,
};
use franz_core::event::EventKind;
use franz_core::executor::{ExecConfig, Executor};
use franz_core::geometry::{ImageSize, WorkArea};
use franz_core::grounding::{Grounding, GroundingSource};
use franz_core::model::{ClientConfig, ModelClient};
use franz_core::observe::{ObserveConfig, Pipeline};
use franz_core::overlay::Overlay;
use franz_core::runlog::{RunMeta, RunWriter};
use franz_core::strategy::ReadOptions;
use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Duration;

/// Builds a session from a configuration, runs it on the desktop's session and follows its
/// events (printer, panel, terminal approver) until it ends. Ctrl+C stops it at once. Returns
/// what keeps the sandbox up, for the caller to look at it after the run.
pub fn run_engine(
    session: setup::Session,
    effective: &Effective,
    task: String,
    a: &RunArgs,
) -> anyhow::Result<(RunSummary, setup::Keep)> {
    let mut effective = effective.clone();
    let served = crate::profiles::served(&mut effective);
    let chosen = crate::profiles::choose(&mut effective, served)?;
    crate::profiles::announce(&chosen);
    let effective = &effective;
    let c = &effective.config;
    let pipeline = Pipeline::new(ObserveConfig {
        crop: crop(c)?,
        size: crate::profiles::size_rule(c, chosen.profile())?,
        cursor: c.cursor,
        mask: crate::settings::mask(c)?,
        ..ObserveConfig::default()
    });
    let work_area = pipeline
        .work_area(session.desktop.as_ref())
        .map_err(|e| usage(e.to_string()))?;
    let executor = Executor::new(work_area, ExecConfig::from_config(c), c.dry_run)
        .with_policy(crate::settings::policy(c)?);
    let confirms = executor.policy().has_confirm();
    let client =
        ModelClient::new(ClientConfig::from_config(c)).map_err(|e| usage(e.to_string()))?;
    let system_prompt = match &a.system_prompt {
        Some(p) => Some(
            std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?,
        ),
        None => None,
    };
    let read = ReadOptions {
        dialect: c.dialect,
        // prompts say "pixels" for every pixel space; `exact_space` says how they are mapped
        pixel_coords: chosen.applied.pixel_coords
            || chosen.applied.exact_space == Some(franz_core::exact::Space::Pixels),
        exact_space: chosen.applied.exact_space,
        system_prompt,
        boot_reply: a.boot_reply.clone(),
        ..ReadOptions::default()
    }
    .with_config(c);
    let strategy = c.strategy.create(read);
    let overlay = Overlay::new(c.overlay.clone()).ok();
    let layout = c.log_layout;
    let writer = RunWriter::create(&c.runs_dir, layout)
        .with_context(|| format!("cannot create a run directory in {}", c.runs_dir.display()))?
        .with_log_images(c.log_images);
    if c.keep_runs > 0 {
        franz_core::runlog::prune_runs(&c.runs_dir, c.keep_runs).with_context(|| {
            format!(
                "cannot delete old runs in {} (keep_runs)",
                c.runs_dir.display()
            )
        })?;
    }
    writer
        .write_config(&effective.masked_table())
        .context("cannot write config.toml")?;
    let screen = session.desktop.monitor().rect;
    writer
        .write_meta(&RunMeta {
            screen: Some(ImageSize::new(screen.width, screen.height)),
        })
        .context("cannot write run.json")?;
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
        context: crate::profiles::context(
            chosen.profile(),
            (c.context_tokens > 0).then_some(c.context_tokens),
        ),
        guard: franz_core::loops::Guard::from_config(c),
    };
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
    // the model's questions are asked on the terminal, else on the panel; with neither,
    // ask_user ends the run
    let terminal_answers = a.panel.is_none() && std::io::stdin().is_terminal();
    let handle = SessionHandle::new(a.annotate_in_panel && a.panel.is_some(), a.approve)
        .with_answers(terminal_answers || a.panel.is_some());
    let panel = panel(a, &pipeline, work_area, &overlay, &handle)?;
    let config = SessionConfig {
        pipeline,
        executor,
        strategy,
        overlay,
        writer: Some(writer),
        options,
        annotate: handle.annotate_mode(),
        approve: handle.approve_mode(),
        answers: handle.controls().answering(),
        grounding: grounding_source(c)?,
    };
    // Ctrl+C stops this session at once
    let cancel = handle.cancel_token().clone();
    setup::interrupt_flag().on_cancel(move || cancel.cancel());
    let (desktop, keep) = session.into_parts();
    let events = Session::spawn_with(&handle, config, desktop, Arc::new(client))?;
    let summary = follow(
        events,
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
    handle: &SessionHandle,
    panel: Option<&crate::panel::PanelState>,
    tty_approver: bool,
    terminal_answers: bool,
    ask_timeout: Option<Duration>,
) -> anyhow::Result<RunSummary> {
    let mut print = printer::subscriber();
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
    pipeline: &Pipeline,
    work_area: WorkArea,
    overlay: &Option<Overlay>,
    handle: &SessionHandle,
) -> anyhow::Result<Option<Arc<crate::panel::PanelState>>> {
    let Some(addr) = &a.panel else {
        return Ok(None);
    };
    let image = pipeline
        .config()
        .size
        .resolve(work_area.rect.width, work_area.rect.height);
    let config = serde_json::json!({
        "overlay": overlay.as_ref().map(|o| o.config().clone()).unwrap_or_default(),
        "capture": {"width": work_area.rect.width, "height": work_area.rect.height},
        "image": {"width": image.width, "height": image.height},
        "annotate_in_panel": a.annotate_in_panel,
        "approve": a.approve,
    });
    let state = crate::panel::PanelState::new(crate::panel::new_token(), handle.clone(), config);
    let served = crate::panel::start(addr, a.panel_allow_remote, state.clone())
        .map_err(|e| usage(e.to_string()))?;
    eprintln!("panel: {}", served.url);
    Ok(Some(state))
}

/// The run's element source with `--grounding marks|list`; `None` with `none`.
fn grounding_source(c: &franz_core::config::Config) -> anyhow::Result<Option<GroundingSource>> {
    if c.grounding == Grounding::None {
        return Ok(None);
    }
    let elements = franz_desktop::elements::open().context(
        "--grounding needs the accessibility bus (AT-SPI2): start it or use --grounding none",
    )?;
    Ok(Some(GroundingSource {
        mode: c.grounding,
        elements,
        budget: Duration::from_millis(c.grounding_budget_ms),
    }))
}
