//! The engine session of a resolved configuration, built one way for every command that runs a
//! task (`franz run`, `franz demo`, MCP's `run_task`): the model profile (chosen, applied and
//! said on stderr), the observation pipeline (crop, size rule, cursor, privacy masks), the
//! executor with the safety policy, the strategy, the overlay, the run directory (with
//! `keep_runs`), the run options and the grounding source. What differs between the commands
//! (approval, annotation in the panel, answers to `ask_user`) they set on the result.

use crate::exit::usage;
use anyhow::Context;
use franz_core::config::{Chosen, Config, Effective};
use franz_core::engine::SessionConfig;
use franz_core::executor::Executor;
use franz_core::geometry::{ImageSize, WorkArea};
use franz_core::grounding::{Grounding, GroundingSource};
use franz_core::model::ModelClient;
use franz_core::observe::Pipeline;
use franz_core::overlay::Overlay;
use franz_core::runlog::{RunMeta, RunWriter};
use franz_core::strategy::ReadOptions;
use std::path::PathBuf;
use std::time::Duration;

/// What a command adds to the configuration: the task and the first turn's inputs.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    pub task: String,
    /// `--system-prompt FILE`.
    pub system_prompt: Option<PathBuf>,
    /// `--boot-reply`: the first turn's reply, read as a model's.
    pub boot_reply: Option<String>,
}

/// A session ready to spawn, with what its commands look at besides.
pub struct Assembled {
    /// Approval, annotation and answers are off; the command turns on what it offers.
    pub config: SessionConfig,
    /// The one client of the run: the profile's probe and the session share it, so the
    /// server's model list is asked once.
    pub client: ModelClient,
    pub work_area: WorkArea,
    /// The run directory the session writes.
    pub run_dir: PathBuf,
    /// The configuration with the profile applied.
    pub effective: Effective,
}

/// Builds the session of `effective` on `desktop` for `inputs`.
pub fn session(
    effective: &Effective,
    desktop: &dyn franz_desktop::Desktop,
    inputs: Inputs,
) -> anyhow::Result<Assembled> {
    let mut effective = effective.clone();
    let client = ModelClient::new(effective.config.client())
        .map_err(|e| usage(e.to_string()))?;
    let served = crate::profiles::served(&mut effective, &client);
    let (settings, chosen) = crate::profiles::choose(effective, served)?;
    crate::profiles::announce(&chosen);
    let c = settings.config();
    let pipeline = Pipeline::new(settings.observe());
    let work_area = pipeline
        .work_area(desktop)
        .map_err(|e| usage(e.to_string()))?;
    let executor = Executor::new(work_area, c.exec(), c.dry_run)
        .with_policy(settings.policy.clone());
    let strategy = c.strategy.create(read_options(c, &chosen, &inputs)?);
    let writer = run_writer(&settings.effective, desktop)?;
    let run_dir = writer.dir().to_path_buf();
    let config = SessionConfig {
        pipeline,
        executor,
        strategy,
        overlay: Overlay::new(c.overlay.clone()).ok(),
        writer: Some(writer),
        options: settings.run_options(inputs.task),
        grounding: grounding_source(c)?,
    };
    Ok(Assembled {
        config,
        client,
        work_area,
        run_dir,
        effective: settings.effective,
    })
}

/// How the strategy reads replies: the dialect, the profile's coordinate space, the prompt.
fn read_options(c: &Config, chosen: &Chosen, inputs: &Inputs) -> anyhow::Result<ReadOptions> {
    let system_prompt = match &inputs.system_prompt {
        Some(p) => Some(
            franz_core::files::read_settings(p).map_err(|e| crate::exit::usage(e.to_string()))?,
        ),
        None => None,
    };
    Ok(ReadOptions {
        system_prompt,
        boot_reply: inputs.boot_reply.clone(),
        ..c.read_options(Some(&chosen.applied))
    })
}

/// A new run directory (then old ones beyond `keep_runs` deleted) with the configuration and
/// the screen written.
fn run_writer(
    effective: &Effective,
    desktop: &dyn franz_desktop::Desktop,
) -> anyhow::Result<RunWriter> {
    let c = &effective.config;
    let writer = RunWriter::create(&c.runs_dir, c.log_layout)
        .with_context(|| format!("cannot create a run directory in {}", c.runs_dir.display()))?
        .with_log_images(c.log_images);
    // the new run is among the kept ones
    if c.keep_runs > 0 {
        // a run without run_finished that changed within max_time may still be going
        let grace = (c.max_time > 0.0).then(|| Duration::from_secs_f64(c.max_time));
        franz_core::runlog::prune_runs(&c.runs_dir, c.keep_runs, grace).with_context(|| {
            format!(
                "cannot delete old runs in {} (keep_runs)",
                c.runs_dir.display()
            )
        })?;
    }
    writer
        .write_config(&effective.masked_table())
        .context("cannot write config.toml")?;
    let screen = desktop.monitor().rect;
    writer
        .write_meta(&RunMeta {
            screen: Some(ImageSize::new(screen.width, screen.height)),
        })
        .context("cannot write run.json")?;
    Ok(writer)
}

/// The run's element source with `--grounding marks|list`; `None` with `none`.
fn grounding_source(c: &Config) -> anyhow::Result<Option<GroundingSource>> {
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
