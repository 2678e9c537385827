//! The CLI's side of building a run (`franz run`, `franz demo`, MCP's `run_task`): the model
//! profile (chosen, applied and said on stderr), the run directory (with `keep_runs`) and the
//! grounding source, given to the core's agent builder (`franz_core::agent`), which makes the
//! parts from the settings. What differs between the commands (approval, annotation in the
//! panel, answers to `ask_user`, a confirmer) they set on the builder.

use crate::exit::usage;
use anyhow::Context;
use franz_core::agent::{Agent, AgentBuilder, AgentError, Built};
use franz_core::config::{Config, Effective};
use franz_core::geometry::ImageSize;
use franz_core::grounding::{Grounding, GroundingSource};
use franz_core::model::ModelClient;
use franz_core::runlog::{RunMeta, RunWriter};
use franz_desktop::{Desktop, PixelRect};
use std::path::PathBuf;
use std::sync::Arc;
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

/// A run ready to build, with what its commands look at besides.
pub struct Assembled {
    /// Approval, annotation and answers are off; the command turns on what it offers.
    pub agent: AgentBuilder,
    /// The run directory the session writes.
    pub run_dir: PathBuf,
    /// The configuration with the profile applied.
    pub effective: Effective,
}

/// The agent of `effective` on `desktop` for `inputs`, with the one client of the run: the
/// profile's probe and the session share it, so the server's model list is asked once.
pub fn session(
    effective: &Effective,
    desktop: Box<dyn Desktop + Send>,
    inputs: Inputs,
) -> anyhow::Result<Assembled> {
    let mut effective = effective.clone();
    let client = ModelClient::new(effective.config.client()).map_err(|e| usage(e.to_string()))?;
    let served = crate::profiles::served(&mut effective, &client);
    let (settings, chosen) = crate::profiles::choose(effective, served)?;
    crate::profiles::announce(&chosen);
    let c = settings.config();
    let screen = desktop.monitor().rect;
    let prompt = system_prompt(&inputs)?;
    let agent = Agent::builder(&settings, inputs.task)
        .desktop(desktop)
        .model(Arc::new(client))
        .system_prompt(prompt)
        .boot_reply(inputs.boot_reply);
    // a crop the screen cannot hold is refused before a run directory is made
    agent.work_area().map_err(|e| usage(e.to_string()))?;
    let writer = run_writer(&settings.effective, screen)?;
    let run_dir = writer.dir().to_path_buf();
    let grounder = grounder(c, agent.observe_config())?;
    let agent = agent
        .writer(writer)
        .grounding(grounding_source(c)?)
        .grounder(grounder);
    Ok(Assembled {
        agent,
        run_dir,
        effective: settings.effective,
    })
}

/// Builds the agent; a working area the screen cannot hold is a usage error.
pub fn build(agent: AgentBuilder) -> anyhow::Result<Built> {
    agent.build().map_err(|e| match e {
        AgentError::WorkArea(_) => usage(e.to_string()),
        e => anyhow::Error::new(e),
    })
}

/// `--system-prompt FILE`, read.
fn system_prompt(inputs: &Inputs) -> anyhow::Result<Option<String>> {
    let Some(p) = &inputs.system_prompt else {
        return Ok(None);
    };
    let text = franz_core::files::read_settings(p).map_err(|e| usage(e.to_string()))?;
    Ok(Some(text))
}

/// A new run directory (then old ones beyond `keep_runs` deleted) with the configuration and
/// the screen written.
fn run_writer(effective: &Effective, screen: PixelRect) -> anyhow::Result<RunWriter> {
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
    writer
        .write_meta(&RunMeta {
            screen: Some(ImageSize::new(screen.width, screen.height)),
        })
        .context("cannot write run.json")?;
    Ok(writer)
}

/// The grounding model beside the planner (`--grounder-model`, docs/grounding.md), its
/// profile chosen as the planner's is (`--grounder-profile`, by default matched from its model
/// id) and said on stderr; `None` without one.
fn grounder(
    c: &Config,
    observe: &franz_core::observe::ObserveConfig,
) -> anyhow::Result<Option<franz_core::grounder::Grounder>> {
    let Some((id, client)) = c.grounder_client() else {
        return Ok(None);
    };
    let client = ModelClient::new(client).map_err(|e| usage(format!("the grounder: {e}")))?;
    let ids = franz_core::profile::ModelIds {
        configured: Some(id.clone()),
        served: Vec::new(),
    };
    let chosen = franz_core::profile::select(&c.grounder_profile, &ids)
        .map_err(|e| usage(format!("--grounder-profile: {e}")))?;
    crate::terminal::errln!(
        "franz: grounder {id}, profile {} ({})",
        chosen.profile.name,
        chosen.reason
    );
    Ok(Some(franz_core::grounder::Grounder::new(
        Arc::new(client),
        id,
        chosen.profile,
        observe,
        c.pixel_budget,
        u32::try_from(c.max_tokens).unwrap_or(u32::MAX),
    )))
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
