//! Building the engine from a resolved configuration and running it on a session's desktop,
//! for `franz run` and `franz demo`; with `--panel` / `--approve`, its controller.

use crate::cli::RunArgs;
use crate::exit::usage;
use crate::settings::size_rule;
use crate::{printer, setup};
use anyhow::Context;
use franz_core::config::{Coords, Effective};
use franz_core::engine::{Engine, RunOptions, RunSummary};
use franz_core::executor::{ExecConfig, Executor};
use franz_core::geometry::ImageSize;
use franz_core::model::{ClientConfig, ModelClient};
use franz_core::observe::{ObserveConfig, Pipeline};
use franz_core::overlay::Overlay;
use franz_core::runlog::{RunMeta, RunWriter};
use franz_core::strategy::ReadOptions;
use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Duration;

/// Builds the engine from a configuration and runs it on the session's desktop.
pub fn run_engine(
    session: &mut setup::Session,
    effective: &Effective,
    task: String,
    a: &RunArgs,
) -> anyhow::Result<RunSummary> {
    let c = &effective.config;
    let crop: franz_core::geometry::Crop = c
        .crop
        .parse()
        .map_err(|e: franz_core::geometry::GeometryError| usage(e.to_string()))?;
    let pipeline = Pipeline::new(ObserveConfig {
        crop,
        size: size_rule(c)?,
        cursor: c.cursor,
        ..ObserveConfig::default()
    });
    let work_area = pipeline
        .work_area(session.desktop.as_ref())
        .map_err(|e| usage(e.to_string()))?;
    let executor = Executor::new(work_area, ExecConfig::from_config(c), c.dry_run)
        .with_interrupt(setup::interrupt_flag());
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
        pixel_coords: c.coords == Coords::Pixels,
        system_prompt,
        boot_reply: a.boot_reply.clone(),
        ..ReadOptions::default()
    }
    .with_config(c);
    let strategy = c.strategy.create(read);
    let overlay = Overlay::new(c.overlay.clone()).ok();
    let layout = c.log_layout;
    let writer = RunWriter::create(&c.runs_dir, layout)
        .with_context(|| format!("cannot create a run directory in {}", c.runs_dir.display()))?;
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
        max_steps: c.max_steps,
        max_time: (c.max_time > 0.0).then(|| Duration::from_secs_f64(c.max_time)),
        step_delay: Duration::from_secs_f64(c.step_delay),
        max_empty_turns: c.max_empty_turns,
        feedback: c.feedback,
    };
    if c.timeout == 0.0 {
        tracing::warn!("timeout is 0: a model server that never answers will hang the run");
    }
    let (controller, panel) = control(a, &pipeline, session, &overlay)?;
    let mut subscribers = vec![printer::subscriber()];
    if let Some(p) = &panel {
        subscribers.push(p.subscriber());
    }
    let engine = Engine {
        desktop: session.desktop.as_mut(),
        pipeline,
        executor,
        client: Arc::new(client),
        strategy,
        overlay,
        writer: Some(writer),
        subscribers,
        interrupt: setup::interrupt_flag(),
        options,
        controller,
    };
    Ok(engine.run())
}

/// The controller for `--panel` / `--approve`, and the panel's state when one is served.
#[allow(clippy::type_complexity)]
fn control(
    a: &RunArgs,
    pipeline: &Pipeline,
    session: &setup::Session,
    overlay: &Option<Overlay>,
) -> anyhow::Result<(
    Option<Arc<dyn franz_core::engine::Controller>>,
    Option<Arc<crate::panel::PanelState>>,
)> {
    let Some(addr) = &a.panel else {
        if !a.approve {
            return Ok((None, None));
        }
        if !std::io::stdin().is_terminal() {
            return Err(usage(
                "--approve needs a terminal to ask on, or --panel to approve in the browser",
            ));
        }
        return Ok((Some(Arc::new(crate::approve::TtyApprover)), None));
    };
    let remote = Arc::new(franz_core::engine::Remote::new(
        a.annotate_in_panel,
        a.approve,
    ));
    let work_area = pipeline
        .work_area(session.desktop.as_ref())
        .map_err(|e| usage(e.to_string()))?;
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
    let state = crate::panel::PanelState::new(crate::panel::new_token(), remote, config);
    let served = crate::panel::start(addr, a.panel_allow_remote, state.clone())
        .map_err(|e| usage(e.to_string()))?;
    eprintln!("panel: {}", served.url);
    Ok((Some(state.clone()), Some(state)))
}
