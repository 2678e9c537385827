//! One way from settings to a running agent (docs/architecture.md), for every client: `franz
//! run`, `franz demo`, MCP's `run_task`, the benches and the tests; and to the parts of a client
//! that looks or acts without a model (`franz act`, MCP's action tools, [`Agent::acting`]),
//! which get the same profile, pipeline, policy, fence, failsafe and dry run.
//! [`Agent::builder`] takes the typed [`Settings`] and the task; the client gives the model, the desktop and, where it
//! keeps a log, the run writer; the builder makes the parts from the settings' one mapping
//! (`config/parts.rs`): the observation pipeline, the executor with the safety policy, the
//! strategy with its reading options, the overlay and the run options. A client that must look
//! at the session before it starts (the panel, a confirmer) [`AgentBuilder::build`]s it, else
//! it [`AgentBuilder::spawn`]s it. The core prints nothing and opens no desktop: the client
//! chooses the desktop backend, the model and the writer.

use crate::cancel::Cancel;
use crate::config::Settings;
use crate::engine::{EventStream, RunOptions, Session, SessionConfig, SessionError, SessionHandle};
use crate::executor::{Confirmer, ExecConfig, Executor};
use crate::geometry::WorkArea;
use crate::grounding::GroundingSource;
use crate::model::Model;
use crate::observe::{ObserveConfig, ObserveError, Pipeline};
use crate::overlay::Overlay;
use crate::profile::Applied;
use crate::runlog::RunWriter;
use crate::strategy::{ReadOptions, StrategyName};
use franz_desktop::{Desktop, PixelRect};
use std::sync::Arc;

/// Why an agent cannot be built or started; each says what to do.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("the agent has no {0}: give it with AgentBuilder::{0}")]
    Missing(&'static str),
    /// The working area (`crop`) does not fit the desktop's screen.
    #[error("{0}")]
    WorkArea(ObserveError),
    #[error(transparent)]
    Session(#[from] SessionError),
}

/// The agent's entry point: [`Agent::builder`].
pub struct Agent;

impl Agent {
    /// A builder of the run of `task` under `settings`.
    pub fn builder(settings: &Settings, task: impl Into<String>) -> AgentBuilder {
        AgentBuilder {
            options: settings.run_options(task.into()),
            read: settings.read_options(),
            exec: settings.config().exec(),
            dry_run: settings.config().dry_run,
            strategy: settings.config().strategy,
            observe: settings.observe(),
            overlay: Overlay::new(settings.config().overlay.clone()).ok(),
            policy: settings.policy.clone(),
            profile: settings.profile.as_ref().map(|c| c.applied.clone()),
            writer: None,
            grounding: None,
            grounder: None,
            confirmer: None,
            cancel: None,
            model: None,
            desktop: None,
            handle: None,
        }
    }

    /// A builder of the parts of a client that looks or acts without a model or a task
    /// (`franz act`, MCP's action tools, `franz replay --execute`, `franz screenshot`): finish
    /// it with [`AgentBuilder::build_hands`], [`AgentBuilder::build_executor`] or
    /// [`AgentBuilder::build_pipeline`].
    pub fn acting(settings: &Settings) -> AgentBuilder {
        Self::builder(settings, String::new())
    }
}

/// The parts of one run, made from the settings, with what the client gives.
pub struct AgentBuilder {
    options: RunOptions,
    read: ReadOptions,
    exec: ExecConfig,
    dry_run: bool,
    strategy: StrategyName,
    observe: ObserveConfig,
    overlay: Option<Overlay>,
    policy: crate::policy::Policy,
    profile: Option<Applied>,
    writer: Option<RunWriter>,
    grounding: Option<GroundingSource>,
    grounder: Option<crate::grounder::Grounder>,
    confirmer: Option<Confirmer>,
    cancel: Option<Cancel>,
    model: Option<Arc<dyn Model>>,
    desktop: Option<Box<dyn Desktop + Send>>,
    handle: Option<SessionHandle>,
}

impl AgentBuilder {
    /// The model the run asks.
    pub fn model(mut self, model: Arc<dyn Model>) -> Self {
        self.model = Some(model);
        self
    }

    /// The desktop the run sees and acts on.
    pub fn desktop(mut self, desktop: Box<dyn Desktop + Send>) -> Self {
        self.desktop = Some(desktop);
        self
    }

    /// The run directory's writer; without one the run keeps no log.
    pub fn writer(mut self, writer: RunWriter) -> Self {
        self.writer = Some(writer);
        self
    }

    /// Elements from the accessibility tree each turn (the `grounding` setting).
    pub fn grounding(mut self, source: Option<GroundingSource>) -> Self {
        self.grounding = source;
        self
    }

    /// The grounding model beside the planner (the `grounder_*` settings, docs/grounding.md).
    pub fn grounder(mut self, grounder: Option<crate::grounder::Grounder>) -> Self {
        self.grounder = grounder;
        self
    }

    /// The run's observation settings (the grounder's screenshots share its working area and
    /// masks).
    pub fn observe_config(&self) -> &ObserveConfig {
        &self.observe
    }

    /// Asks about the actions a `confirm` rule of the policy matches.
    pub fn confirmer(mut self, confirmer: Confirmer) -> Self {
        self.confirmer = Some(confirmer);
        self
    }

    /// Stops every wait and hold of the executor when `cancel` fires (a client's Ctrl+C).
    pub fn cancel(mut self, cancel: Cancel) -> Self {
        self.cancel = Some(cancel);
        self
    }

    /// Runs under this handle (made with [`SessionHandle::new`], steered as its modes say)
    /// rather than a new one.
    pub fn handle(mut self, handle: SessionHandle) -> Self {
        self.handle = Some(handle);
        self
    }

    /// Replaces the built-in system prompt (`--system-prompt`).
    pub fn system_prompt(mut self, prompt: Option<String>) -> Self {
        self.read.system_prompt = prompt;
        self
    }

    /// The first turn's reply, read as a model's (`--boot-reply`).
    pub fn boot_reply(mut self, reply: Option<String>) -> Self {
        self.read.boot_reply = reply;
        self
    }

    /// Another strategy than the `strategy` setting's.
    pub fn strategy(mut self, name: StrategyName) -> Self {
        self.strategy = name;
        self
    }

    /// Another overlay than the settings' (`None`: nothing is drawn onto the screenshots).
    pub fn overlay(mut self, overlay: Option<Overlay>) -> Self {
        self.overlay = overlay;
        self
    }

    /// Changes the run options the settings gave (a bench's or a test's own limits).
    pub fn options(mut self, change: impl FnOnce(&mut RunOptions)) -> Self {
        change(&mut self.options);
        self
    }

    /// Performs no input (`dry_run`) or does, whatever the settings say.
    pub fn dry_run(mut self, dry: bool) -> Self {
        self.dry_run = dry;
        self
    }

    /// Changes the executor's settings the settings gave.
    pub fn executor(mut self, change: impl FnOnce(&mut ExecConfig)) -> Self {
        change(&mut self.exec);
        self
    }

    /// Changes the observation pipeline's settings.
    pub fn observing(mut self, change: impl FnOnce(&mut ObserveConfig)) -> Self {
        change(&mut self.observe);
        self
    }

    /// Changes how the strategy reads replies.
    pub fn reading(mut self, change: impl FnOnce(&mut ReadOptions)) -> Self {
        change(&mut self.read);
        self
    }

    /// The working area (`crop`) on the desktop given.
    pub fn work_area(&self) -> Result<WorkArea, AgentError> {
        let desktop = self
            .desktop
            .as_ref()
            .ok_or(AgentError::Missing("desktop"))?;
        Pipeline::new(self.observe.clone())
            .work_area(desktop.as_ref())
            .map_err(AgentError::WorkArea)
    }

    /// The session, ready to start, with its working area on the desktop.
    pub fn build(self) -> Result<Built, AgentError> {
        let work_area = self.work_area()?;
        let desktop = self.desktop.ok_or(AgentError::Missing("desktop"))?;
        let model = self.model.ok_or(AgentError::Missing("model"))?;
        let executor = Safety {
            exec: self.exec,
            dry_run: self.dry_run,
            policy: self.policy,
            confirmer: self.confirmer,
            cancel: self.cancel,
        }
        .executor(work_area);
        let config = SessionConfig {
            pipeline: Pipeline::new(self.observe),
            executor,
            // the strategy offers targets in words only with a grounder to find them
            strategy: self.strategy.create(ReadOptions {
                targets_in_words: self.grounder.is_some(),
                ..self.read
            }),
            overlay: self.overlay,
            writer: self.writer,
            options: self.options,
            grounding: self.grounding,
            grounder: self.grounder,
        };
        Ok(Built {
            config,
            work_area,
            desktop,
            model,
            handle: self
                .handle
                .unwrap_or_else(|| SessionHandle::new(Default::default())),
        })
    }

    /// Builds the session and starts it.
    pub fn spawn(self) -> Result<(SessionHandle, EventStream), AgentError> {
        self.build()?.spawn()
    }

    /// The observation pipeline of the settings (with what [`AgentBuilder::observing`]
    /// changed).
    pub fn build_pipeline(&self) -> Pipeline {
        Pipeline::new(self.observe.clone())
    }

    /// The executor of the settings on a screen of `screen`: the working area (`crop`), the
    /// safety policy, the fence, the failsafe and the dry run a run's has, with the confirmer
    /// and cancel token given.
    pub fn build_executor(self, screen: PixelRect) -> Result<Executor, AgentError> {
        let work_area = (self.observe.crop.work_area(screen))
            .map_err(|e| AgentError::WorkArea(ObserveError::from(e)))?;
        Ok(self.safety().executor(work_area))
    }

    /// The parts of a client that looks and acts on the desktop given without a model.
    pub fn build_hands(mut self) -> Result<Hands, AgentError> {
        let work_area = self.work_area()?;
        let desktop = self.desktop.take().ok_or(AgentError::Missing("desktop"))?;
        let pipeline = self.build_pipeline();
        let (overlay, profile, read) =
            (self.overlay.take(), self.profile.take(), self.read.clone());
        Ok(Hands {
            executor: self.safety().executor(work_area),
            desktop,
            pipeline,
            overlay,
            profile,
            read,
        })
    }

    fn safety(self) -> Safety {
        Safety {
            exec: self.exec,
            dry_run: self.dry_run,
            policy: self.policy,
            confirmer: self.confirmer,
            cancel: self.cancel,
        }
    }
}

/// What the executor is made of: its settings, the dry run and the safety policy, with the
/// client's confirmer and cancel token.
struct Safety {
    exec: ExecConfig,
    dry_run: bool,
    policy: crate::policy::Policy,
    confirmer: Option<Confirmer>,
    cancel: Option<Cancel>,
}

impl Safety {
    /// The one place an executor is made from settings.
    fn executor(self, work_area: WorkArea) -> Executor {
        let mut executor =
            Executor::new(work_area, self.exec, self.dry_run).with_policy(self.policy);
        if let Some(c) = self.confirmer {
            executor = executor.with_confirmer(c);
        }
        if let Some(c) = self.cancel {
            executor = executor.with_cancel(c);
        }
        executor
    }
}

/// The parts of a client that looks and acts without a model (`franz act`, MCP's action
/// tools): the desktop, the pipeline and the executor a run of the same settings has, the
/// overlay, and the profile's reading of a point.
pub struct Hands {
    pub desktop: Box<dyn Desktop + Send>,
    pub pipeline: Pipeline,
    pub executor: Executor,
    /// The overlay (`None`: nothing is drawn).
    pub overlay: Option<Overlay>,
    /// What the chosen profile makes of coordinates (`None`: no profile was chosen, franz's
    /// own rule); `exact_space` set means a point is mapped by the family's reference rule
    /// (docs/coordinates.md, "Exact targets").
    pub profile: Option<Applied>,
    /// How a run of these settings reads a reply (its dialect and coordinates).
    pub read: ReadOptions,
}

impl Hands {
    /// Whether the profile maps points by its family's reference rule (`P0 + min(L - 1,
    /// round(v * L / S))`) rather than franz's 0..1000 rule.
    pub fn maps_exactly(&self) -> bool {
        self.profile
            .as_ref()
            .is_some_and(|p| p.exact_space.is_some())
    }
}

/// A session built and not started: what a client looks at before it starts it.
pub struct Built {
    config: SessionConfig,
    work_area: WorkArea,
    desktop: Box<dyn Desktop + Send>,
    model: Arc<dyn Model>,
    handle: SessionHandle,
}

impl Built {
    /// The working area on the desktop (`crop`).
    pub fn work_area(&self) -> WorkArea {
        self.work_area
    }

    /// The observation pipeline.
    pub fn pipeline(&self) -> &Pipeline {
        &self.config.pipeline
    }

    /// The overlay (`None`: nothing is drawn).
    pub fn overlay(&self) -> Option<&Overlay> {
        self.config.overlay.as_ref()
    }

    /// The executor (its policy says whether a person is asked).
    pub fn executor(&self) -> &Executor {
        &self.config.executor
    }

    /// The handle the session runs under.
    pub fn handle(&self) -> &SessionHandle {
        &self.handle
    }

    /// Starts the session on its engine thread.
    pub fn spawn(self) -> Result<(SessionHandle, EventStream), AgentError> {
        let events = Session::spawn_with(&self.handle, self.config, self.desktop, self.model)?;
        Ok((self.handle, events))
    }
}
