//! The engine: runs turns until the task ends. A turn is: observe (with the overlays of the
//! last turns), judge the last turn's actions by what changed on screen (the loop breaker,
//! [`crate::loop_breaker`]), let the strategy build the request, ask the model, let the strategy read the
//! reply, execute the actions within the per-turn cap, then record events and the run
//! directory. The engine never prints: subscribers get [`Event`]s. Clients run it through
//! [`Session::spawn`] and drive it with [`Op`]s.
//!
//! No function here is over 80 lines (`clippy.toml`).

mod context_fit;
mod control;
mod early;
mod element_list;
mod grounded;
mod op;
mod overhead;
mod session;
mod steering;
#[cfg(test)]
mod tests;
mod zoom;

pub use context_fit::{ContextOptions, LEFT_OUT_SCREENSHOT, ShrinkStep, franz_shrink};
use control::Remote;
pub use control::{Decision, Gate, Modes, RemoteError, ShownScreenshot};
pub use op::{Op, STOPPED_BY_A_CLIENT};
pub use overhead::TurnOverhead;
pub use session::{
    EngineStandin, EventStream, Session, SessionConfig, SessionError, SessionHandle, TimedOut,
};

use crate::action::{Action, ActionKind, ActionResult};
use crate::cancel::Cancel;
use crate::event::{Event, EventKind, Outcome};
use crate::executor::{ExecError, Executor};
use crate::loop_breaker::{LoopDetector, Verdict};
use crate::model::{ChatRequest, Model, ModelError, Progress, Reply, sanitize};
use crate::observe::{ImageFormat, ObservedArea, Pipeline, Screenshot};
use crate::overlay::{FeedbackHistory, Overlay, TurnFeedback};
use crate::runlog::{PooledImage, RunWriter, TurnEntry, TurnImage, TurnTimings, trace};
use crate::strategy::{Prompt, Reading, Strategy, TurnContext};
use franz_desktop::Desktop;
use overhead::{Spent, ms};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Limits and model settings of a run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub task: String,
    pub model: String,
    pub temperature: f64,
    pub top_p: f64,
    pub max_tokens: u32,
    pub stream: bool,
    /// With `stream`: perform the turn's first action as soon as it is complete, while the
    /// rest of the reply streams (`early.rs`).
    pub early_exec: bool,
    /// 0 = unbounded.
    pub max_steps: u64,
    /// None = unbounded.
    pub max_time: Option<Duration>,
    pub step_delay: Duration,
    pub max_empty_turns: u64,
    /// Draw the last actions onto the next screenshot.
    pub feedback: bool,
    /// The model's context: its length and how requests are kept inside it (`context_fit.rs`).
    pub context: ContextOptions,
    /// The loop breaker's thresholds and the unchanged-screen note.
    pub loop_breaker: crate::loop_breaker::LoopBreaker,
    /// Zoom-in refinement of pointer actions' points (`zoom.rs`, docs/refine.md).
    pub refine: crate::refine::RefineOptions,
}

/// The settings table's defaults (`config/settings.rs`) with an empty task; the mapping from
/// the configuration is `Settings::run_options` (`config/parts.rs`).
impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            task: String::new(),
            model: "qwen3-vl-8b-instruct".into(),
            temperature: 0.6,
            top_p: 1.0,
            max_tokens: 2048,
            stream: false,
            early_exec: true,
            max_steps: 100,
            max_time: Some(Duration::from_secs(30 * 60)),
            step_delay: Duration::from_secs_f64(0.4),
            max_empty_turns: 5,
            feedback: true,
            context: ContextOptions::default(),
            loop_breaker: crate::loop_breaker::LoopBreaker::default(),
            refine: crate::refine::RefineOptions {
                crop: crate::refine::DEFAULT_CROP,
                ..Default::default()
            },
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSummary {
    pub outcome: Outcome,
    pub reason: String,
    pub turns: u32,
}

impl RunSummary {
    pub fn exit_code(&self) -> u8 {
        self.outcome.exit_code()
    }
}

/// Receives every event, in order.
pub type Subscriber = Box<dyn FnMut(&Event) + Send>;

/// One run of one strategy on one desktop. Built only inside this module: clients start one
/// with [`Session::spawn`].
pub struct Engine<'a> {
    desktop: &'a mut dyn Desktop,
    pipeline: Pipeline,
    executor: Executor,
    model: Arc<dyn Model>,
    strategy: Box<dyn Strategy>,
    overlay: Option<Overlay>,
    writer: Option<RunWriter>,
    subscribers: Vec<Subscriber>,
    /// Set by Ctrl+C (or a stop): the engine stops at once, whatever it waits for.
    cancel: Cancel,
    options: RunOptions,
    /// The session's controls (pause, step, stop, inject, approve, annotate); see [`Remote`].
    controls: Arc<Remote>,
    /// The loop breaker, and the last turn's actions it judges by the next observation.
    loops: LoopDetector,
    last_acted: Option<(u32, Vec<Action>, Vec<ActionResult>)>,
    /// The turn whose reading the strategy made itself (the commander's loop recovery): the
    /// loop breaker does not judge it, so it neither breaks nor extends a loop.
    consulted: Option<u32>,
    /// The last screen before the overlay, for the run directory when a frame is reused.
    last_raw: Option<PooledImage>,
    /// Time added up over this turn (events, run log, model) and its stages so far.
    spent: Spent,
    overhead: TurnOverhead,
    /// Elements from the accessibility tree each turn (`element_list.rs`); `None`: pure vision.
    grounding: Option<crate::grounding::GroundingSource>,
    /// The grounding model that finds the targets the planner names in words (`grounded.rs`).
    grounder: Option<crate::grounder::Grounder>,
    /// Set by [`Channel::ask_with`] when the server refused a request as too long and said a
    /// context length shorter than the one known (or the first one known).
    learned_context: Option<u64>,
    /// The token estimate as calibrated by the server's counts (`model/calibrate.rs`).
    calibration: crate::model::Calibration,
}

/// Why the loop stopped early.
struct Stop(Outcome, String);

/// The parts of the engine that events and model calls need, borrowed apart from the
/// strategy so that a strategy's own calls (`Strategy::consult`) go through them too.
struct Channel<'e> {
    writer: &'e mut Option<RunWriter>,
    subscribers: &'e mut Vec<Subscriber>,
    model: &'e Arc<dyn Model>,
    cancel: &'e Cancel,
    controls: &'e Arc<Remote>,
    context: &'e ContextOptions,
    spent: &'e mut Spent,
    /// A context length learned from the server's refusal of a request as too long, for the
    /// turn to fit its request to and ask again (`Engine::ask_fitted`).
    learned: &'e mut Option<u64>,
    /// Learns from each reply's `usage`; calibrates the estimates shown and fitted.
    calibration: &'e mut crate::model::Calibration,
}

impl Engine<'_> {
    fn channel(&mut self) -> Channel<'_> {
        Channel {
            writer: &mut self.writer,
            subscribers: &mut self.subscribers,
            model: &self.model,
            cancel: &self.cancel,
            controls: &self.controls,
            context: &self.options.context,
            spent: &mut self.spent,
            learned: &mut self.learned_context,
            calibration: &mut self.calibration,
        }
    }

    fn emit(&mut self, turn: u32, kind: EventKind) {
        self.channel().emit(turn, kind);
    }

    fn interrupted(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Runs until the task ends; always emits `run_finished` and closes the run directory.
    /// The whole run happens inside its [`trace::run_span`], so its log lines reach its
    /// `franz.log`.
    pub fn run(mut self) -> RunSummary {
        let (span, no_log) = self.run_span();
        let _in_run = span.enter();
        // a cancel (a signal) wakes whatever the engine waits for on its controls
        let controls = Arc::downgrade(&self.controls);
        self.cancel.on_cancel_with(move |why| {
            if let Some(c) = controls.upgrade() {
                c.stop(crate::cancel::interrupted(why));
            }
        });
        self.emit_started(no_log);
        self.learn_context();
        let mut turn = 0u32;
        // a stop or --max-time also stops a long read of a reply (crate::parser::work)
        let cancel = self.cancel.clone();
        let deadline = self.options.max_time.map(|t| Instant::now() + t);
        let stop = crate::parser::work::watching(&cancel, deadline, || self.turns(&mut turn));
        self.finish(turn, stop)
    }

    /// Runs turns until one of them, a cap or a stop ends the run; `turn` counts them.
    fn turns(&mut self, turn: &mut u32) -> Stop {
        let started = Instant::now();
        let mut history = self
            .overlay
            .as_ref()
            .map(Overlay::history)
            .unwrap_or_else(|| FeedbackHistory::new(1));
        let mut empty_turns = 0u64;
        loop {
            if let Some(stop) = self.cap(*turn, started) {
                return stop;
            }
            if let Err(stop) = self.gate(*turn) {
                return stop;
            }
            *turn += 1;
            match self.turn(*turn, &mut history) {
                // a turn cut short by a stop is not an empty turn
                Ok(TurnEnd::Continue { .. }) if self.interrupted() => return self.cancelled(),
                Ok(TurnEnd::Continue { acted }) => {
                    empty_turns = if acted { 0 } else { empty_turns + 1 };
                    if empty_turns >= self.options.max_empty_turns {
                        return Stop(
                            Outcome::Failed,
                            format!(
                                "gave up: {empty_turns} turns in a row without a usable action from the model"
                            ),
                        );
                    }
                }
                Ok(TurnEnd::Finished(outcome, reason)) => return Stop(outcome, reason),
                Err(stop) => return stop,
            }
            if !self.sleep_interruptibly(self.options.step_delay) {
                return self.cancelled();
            }
        }
    }

    /// Before a turn: a cancel, `--max-steps` or `--max-time` ends the run.
    fn cap(&self, turn: u32, started: Instant) -> Option<Stop> {
        if self.interrupted() {
            return Some(self.cancelled());
        }
        if self.options.max_steps > 0 && turn as u64 >= self.options.max_steps {
            return Some(Stop(
                Outcome::Failed,
                format!("gave up: reached --max-steps {}", self.options.max_steps),
            ));
        }
        if let Some(limit) = self.options.max_time
            && started.elapsed() >= limit
        {
            return Some(self.out_of_time());
        }
        None
    }

    /// `--max-time` was reached.
    fn out_of_time(&self) -> Stop {
        let limit = self.options.max_time.unwrap_or_default();
        Stop(
            Outcome::Failed,
            format!("gave up: reached --max-time {}s", limit.as_secs_f64()),
        )
    }

    /// The strategy's reading of a reply. A stop or `--max-time` that came while it read
    /// stopped the parser (crate::parser::work): the partial reading is dropped and the run
    /// ends.
    fn read_reply(&mut self, reply: &Reply, ctx: &TurnContext<'_>) -> Result<Reading, Stop> {
        let mut reading = self.strategy.read(reply, ctx);
        if crate::parser::work::stopped() {
            return Err(self.stopped_reading());
        }
        crate::strategy::caps::cap_reading(&mut reading);
        Ok(reading)
    }

    /// Why a reading was stopped part way: a stop, else `--max-time`.
    fn stopped_reading(&self) -> Stop {
        if self.interrupted() {
            self.cancelled()
        } else {
            self.out_of_time()
        }
    }

    /// Ends the run: releases what is held, emits the fatal error (if any) and
    /// `run_finished`, closes the run directory.
    fn finish(&mut self, turn: u32, stop: Stop) -> RunSummary {
        let Stop(outcome, reason) = stop;
        // whatever ended the run, no button or key stays held
        if let Err(e) = self.executor.release_all(self.desktop) {
            let message = e.to_string();
            self.emit(
                turn,
                EventKind::Error {
                    message,
                    fatal: false,
                },
            );
        }
        if outcome != Outcome::Done && outcome != Outcome::Failed {
            self.emit(
                turn,
                EventKind::Error {
                    message: reason.clone(),
                    fatal: true,
                },
            );
        }
        self.emit(
            turn,
            EventKind::RunFinished {
                outcome,
                exit_code: outcome.exit_code(),
                reason: reason.clone(),
                turns: turn,
            },
        );
        if let Some(w) = self.writer.take()
            && let Err(e) = w.close()
        {
            tracing::error!("cannot close the run directory: {e}");
        }
        RunSummary {
            outcome,
            reason,
            turns: turn,
        }
    }

    /// `run_started`, then the reason this run has no `franz.log`, if it has none.
    fn emit_started(&mut self, no_log: Option<String>) {
        let run_dir = self.writer.as_ref().map(|w| w.dir().display().to_string());
        self.emit(
            0,
            EventKind::RunStarted {
                task: self.options.task.clone(),
                strategy: self.strategy.name().to_string(),
                model: self.options.model.clone(),
                run_dir,
                dry_run: self.executor.is_dry_run(),
            },
        );
        if let Some(message) = no_log {
            self.emit(
                0,
                EventKind::Error {
                    message,
                    fatal: false,
                },
            );
        }
    }

    /// The context length: the `context_tokens` setting, else what the server says (asked
    /// once). A note says which, or that it is unknown and no limit is enforced.
    fn learn_context(&mut self) {
        let text = match self.options.context.tokens {
            Some(n) => format!("the model's context: {n} tokens (the context_tokens setting)"),
            None => match self.model.context_length(&self.options.model, &self.cancel) {
                // no server to ask (the in-memory model): nothing to say
                None => return,
                Some(info) => match info.tokens {
                    Some(n) => {
                        self.options.context.tokens = Some(n);
                        format!("the model's context: {n} tokens ({})", info.source)
                    }
                    None => format!(
                        "the model's context length is unknown ({}): no limit is enforced; set context_tokens (--context-tokens) to keep each request inside it",
                        info.source
                    ),
                },
            },
        };
        self.emit(0, EventKind::Note { text });
    }

    /// The turn's request kept inside the model's context (`context_fit.rs`) and asked. When the
    /// server refuses it as too long and says a context length shorter than the one known (or
    /// the first one, as llama-cpp-python's server, which says it nowhere else), the run learns
    /// it (a note), and the request is fitted to it and asked once more. Also returns the
    /// screenshot as sent, when it was shrunk.
    fn ask_fitted(
        &mut self,
        turn: u32,
        request: &mut ChatRequest,
        ctx: &TurnContext<'_>,
    ) -> Result<(Reply, Option<Screenshot>, Option<early::Ran>), Stop> {
        let mut shrunk: Option<Screenshot> = None;
        let mut relearned = false;
        loop {
            let newest = shrunk.as_ref().unwrap_or(ctx.screenshot);
            if let Some(smaller) = self.channel().fit(turn, request, Some(newest))? {
                shrunk = Some(smaller);
            }
            let sent = shrunk.as_ref().unwrap_or(ctx.screenshot);
            match self.ask_early(turn, request, ctx, sent) {
                Ok((reply, early)) => return Ok((reply, shrunk, early)),
                Err(stop) => match self.learned_context.take() {
                    Some(n) if !relearned && !self.interrupted() => {
                        relearned = true;
                        self.options.context.tokens = Some(n);
                        let text = format!(
                            "the model's context: {n} tokens (learned from the server's refusal of a longer request): the request is fitted to it and sent again"
                        );
                        self.emit(turn, EventKind::Note { text });
                    }
                    _ => return Err(stop),
                },
            }
        }
    }

    /// The tracing span of this run: named after the run directory, logging to its
    /// `franz.log` (created here). A disabled span without a directory; with the reason
    /// when the file cannot be created.
    fn run_span(&self) -> (tracing::Span, Option<String>) {
        let Some(w) = self.writer.as_ref() else {
            return (tracing::Span::none(), None);
        };
        if let Err(e) = w.log_file() {
            let message = format!("{e}: this run has no franz.log");
            return (tracing::Span::none(), Some(message));
        }
        let dir = w.dir();
        let id = dir.file_name().map(|n| n.to_string_lossy().into_owned());
        let span = trace::run_span(&id.unwrap_or_default(), &dir.join(crate::runlog::LOG_FILE));
        (span, None)
    }

    /// Sleeps, waking at once for Ctrl+C. False when interrupted.
    fn sleep_interruptibly(&self, d: Duration) -> bool {
        self.cancel.sleep(d)
    }

    /// The observation, and the screen before the overlay when the run directory wants it.
    fn observe(
        &mut self,
        history: &FeedbackHistory,
        area: &ObservedArea,
    ) -> Result<(Screenshot, Option<PooledImage>), Stop> {
        let feedback = self.options.feedback;
        let pool = self.writer.as_ref().and_then(|w| w.raw_pool(feedback));
        let keep_raw = pool.is_some();
        let mut raw = None;
        let annotating = self.controls.annotate_mode();
        let overlay = if self.options.feedback && !annotating {
            self.overlay.as_ref()
        } else {
            None
        };
        // what the overlay draws: an unchanged frame with the same is not encoded again
        let key = overlay.map_or(0, |_| (history.generation() << 1) | 1);
        self.pipeline.set_overlay_key((!annotating).then_some(key));
        let marks = match self.overlay.as_ref() {
            Some(o) if self.draws_marks() => Some((o, self.executor.marks())),
            _ => None,
        };
        let obs = self
            .pipeline
            .observe_in(self.desktop, area, |img| {
                if let Some(pool) = &pool {
                    raw = Some(pool.copy(img));
                }
                if let Some((o, marks)) = marks
                    && let Err(e) = o.draw_marks(img.width, img.height, &mut img.data, marks)
                {
                    tracing::warn!("set-of-marks: {e}");
                }
                if let Some(o) = overlay
                    && let Err(e) = o.draw(img.width, img.height, &mut img.data, history)
                {
                    tracing::warn!("overlay: {e}");
                }
            })
            .map_err(|e| Stop(Outcome::Failed, format!("cannot observe the screen: {e}")))?;
        if obs.reused {
            raw = self.last_raw.clone();
        }
        if let (Some(pool), None) = (&pool, &raw) {
            raw = Some(pool.copy(&obs.image));
        }
        if keep_raw {
            self.last_raw = raw.clone();
        }
        Ok((obs, raw))
    }

    /// One turn: look, ask, (wait for approval), act, record.
    fn turn(&mut self, turn: u32, history: &mut FeedbackHistory) -> Result<TurnEnd, Stop> {
        let turn_start = Instant::now();
        (self.spent, self.overhead) = (Spent::default(), TurnOverhead::default());
        self.emit(turn, EventKind::TurnStarted {});
        let obs = self.look(turn, history)?;
        self.break_loops(turn, &obs)?;

        // ask
        let task = self.options.task.clone();
        let ctx = TurnContext {
            task: &task,
            turn,
            screenshot: &obs,
        };
        let model_start = Instant::now();
        let (mut reading, early) = self.ask(turn, &ctx)?;
        let model_ms = model_start.elapsed().as_secs_f64() * 1000.0;
        self.emit_reply_errors(turn, &reading.errors);
        self.ground_targets(turn, &mut reading)?;
        self.refine(turn, &mut reading, early.is_some())?;
        // an action performed early was allowed without approval before it started
        let rejected = match early {
            Some(_) => None,
            None => self.approval(turn, &mut reading, &ctx)?,
        };
        let saved_ms = early.as_ref().map(|r| r.saved_ms);

        // act
        let act_start = Instant::now();
        let before_act = self.spent;
        let (mut results, fatal) = match rejected {
            Some(results) => (results, None),
            None => self.act(turn, &reading, early),
        };
        self.executor.set_confirmed(false);
        if fatal.is_none() {
            self.ask_user(turn, &reading, &mut results)?;
        }
        let act_ms = act_start.elapsed().as_secs_f64() * 1000.0;
        self.overhead.execute_ms = self.spent.own_ms(act_start, before_act);
        self.strategy.record(&reading, &results);
        let acted = results.iter().any(ActionResult::is_ok);
        self.note_touched(&reading.actions, &results);

        // record
        let timings = TurnTimings {
            observe: Some(obs.timings),
            model_ms: Some(model_ms),
            act_ms: Some(act_ms),
            turn_ms: Some(turn_start.elapsed().as_secs_f64() * 1000.0),
            early_exec_ms_saved: saved_ms,
        };
        self.record(turn, &reading, &results, timings)?;
        self.report_overhead(turn, turn_start);
        self.pipeline.recycle(obs);
        history.push(TurnFeedback::executed(
            &reading.actions,
            &results,
            &reading.bboxes,
        ));
        if self.consulted != Some(turn) {
            self.last_acted = Some((turn, reading.actions.clone(), results.clone()));
        }
        if let Some(stop) = fatal {
            return Err(stop);
        }
        Ok(terminal_outcome(&reading, &results).unwrap_or(TurnEnd::Continue { acted }))
    }

    /// Tells the pipeline where the turn's last performed pointer action acted
    /// (`observe_area = touched`; other areas never ask the desktop): the pointer, which every
    /// pointer action leaves at its point (a drag at its end). A dry run acts nowhere.
    fn note_touched(&mut self, actions: &[Action], results: &[ActionResult]) {
        let pointed = (actions.iter().zip(results)).any(|(a, r)| a.kind.is_pointer() && r.is_ok());
        if pointed
            && self.pipeline.follows_touch()
            && !self.executor.is_dry_run()
            && let Ok(p) = self.desktop.pointer()
        {
            self.pipeline.touched(p);
        }
    }

    /// Observes the screen (`observation`), waits for an annotation in annotation mode, and
    /// hands the images to the run directory. Returns the observation the model is shown.
    fn look(&mut self, turn: u32, history: &FeedbackHistory) -> Result<Screenshot, Stop> {
        // this turn's area first: the element marks, the actions, the fence, the refinement
        // and the grounder all map through it (docs/coordinates.md, "The observed area")
        let area = (self.pipeline.choose(self.desktop))
            .map_err(|e| Stop(Outcome::Failed, format!("cannot observe the screen: {e}")))?;
        self.executor.set_area(area.work_area());
        let elements = self.ground();
        let observe_start = Instant::now();
        let (mut obs, raw) = self.observe(history, &area)?;
        self.overhead.observe_ms = ms(observe_start);
        self.controls.observed(turn, &obs);
        self.emit(
            turn,
            EventKind::Observation {
                width: obs.size.width,
                height: obs.size.height,
                bytes: obs.encoded.len(),
                timings: obs.timings,
                changed: Some(obs.change.changed),
                region: obs.change.region,
                reused: obs.reused,
                elements,
                area: Some(obs.area.clone()),
            },
        );
        self.annotate(turn, &mut obs)?;
        let log_start = Instant::now();
        if let Some(w) = self.writer.as_mut() {
            // the bytes as sent; when they are not PNG the raw PNG is not what the model saw
            let sent = self.options.feedback || obs.format != ImageFormat::Png;
            let annotated = (sent && w.log_images().annotated())
                .then(|| TurnImage::sent(obs.format, obs.encoded.clone()));
            if let Err(e) = w.submit(turn, raw.map(TurnImage::Pooled), annotated) {
                return Err(Stop(
                    Outcome::Failed,
                    format!("cannot write the run directory: {e}"),
                ));
            }
        }
        self.spent.log += ms(log_start);
        Ok(obs)
    }

    /// The loop breaker (`crate::loop_breaker`): judges the last turn's actions by this observation,
    /// emits `loop_detected` and tells the strategy (which tells the model in its own channel);
    /// at `loop_stop` the run ends.
    fn break_loops(&mut self, turn: u32, obs: &Screenshot) -> Result<(), Stop> {
        let Some((last, actions, results)) = self.last_acted.take() else {
            return Ok(());
        };
        let verdict = self.loops.judge(last, &actions, &results, &obs.change);
        let note = match &verdict {
            Verdict::Warn(r) | Verdict::Stop(r) => {
                let stop = matches!(verdict, Verdict::Stop(_));
                self.emit(
                    turn,
                    EventKind::LoopDetected {
                        action: r.action.clone(),
                        turns: r.turns.clone(),
                        repeats: r.count(),
                        stop,
                    },
                );
                if stop {
                    return Err(Stop(Outcome::Failed, r.reason()));
                }
                Some(r.note())
            }
            Verdict::Fine(_) => (self.options.loop_breaker.unchanged_note && !obs.change.changed)
                .then(|| crate::loop_breaker::UNCHANGED_NOTE.to_string()),
        };
        self.strategy
            .loop_status(verdict.repeats(), note.as_deref());
        Ok(())
    }

    /// The turn's reading: the strategy's own calls first (the commander's leader), then the
    /// turn's reply (the model's, an injected one or the boot reply), read by the strategy.
    fn ask(
        &mut self,
        turn: u32,
        ctx: &TurnContext<'_>,
    ) -> Result<(Reading, Option<early::Ran>), Stop> {
        // an injected reply stands for every model call of this turn: the strategy's own
        // calls (the commander's leader) wait for the next turn the model is asked
        let injected = self.controls.injected_reply();
        let booted = match injected {
            Some(_) => None,
            None => self.strategy.scripted_reply(turn),
        };
        // so does the boot reply: the commander's leader is first asked on turn 2
        let consulted = match injected.is_some() || booted.is_some() {
            true => None,
            false => self.consult(turn, ctx)?,
        };
        if let Some(reading) = consulted {
            self.consulted = Some(turn);
            return Ok((reading, None));
        }
        let model_start = Instant::now();
        let before = self.spent;
        let prompt = self.strategy.prompt(ctx);
        let prompt = self.with_elements(prompt);
        let mut request = build_request(&self.options, prompt);
        let (mut shrunk, mut early) = (None, None);
        let (scripted, source) = match injected {
            Some(text) => (Some(text), "the injected reply"),
            None => (booted, "the configured boot reply"),
        };
        let reply = match scripted {
            Some(text) => {
                self.emit(
                    turn,
                    EventKind::Note {
                        text: format!("using {source} instead of asking the model"),
                    },
                );
                steering::given_reply(text)
            }
            None => {
                let reply;
                (reply, shrunk, early) = self.ask_fitted(turn, &mut request, ctx)?;
                reply
            }
        };
        // the reply is read against the image the model was sent
        let sent;
        let ctx = match &shrunk {
            Some(shot) => {
                sent = TurnContext {
                    screenshot: shot,
                    ..*ctx
                };
                &sent
            }
            None => ctx,
        };
        self.overhead.request_ms = self.spent.own_ms(model_start, before);
        let parse_start = Instant::now();
        let mut reading = self.read_reply(&reply, ctx)?;
        if let Some(ran) = &early {
            early::settle(&mut reading, ran, reply.truncated());
        }
        self.overhead.parse_ms = ms(parse_start);
        self.emit(turn, reply_event(&reply, model_start, Some(&reading)));
        self.note_other_dialects(turn, &reading);
        Ok((reading, early))
    }

    /// A `note` for each action read in another dialect than the run asks for
    /// (docs/actions.md, "Replies in another dialect").
    fn note_other_dialects(&mut self, turn: u32, reading: &Reading) {
        for a in &reading.actions {
            if let Some(d) = &a.read_in {
                let text = format!(
                    "{} was read in the {d} dialect, not the one this run asks for: its numbers mean the same here",
                    serde_json::to_string(a).unwrap_or_default()
                );
                self.emit(turn, EventKind::Note { text });
            }
        }
    }

    /// The strategy's own model calls, logged like the turn's; its reading if it made one.
    fn consult(&mut self, turn: u32, ctx: &TurnContext<'_>) -> Result<Option<Reading>, Stop> {
        let mut failed: Option<Stop> = None;
        let elements = self.elements_text();
        let options = &self.options;
        let mut channel = Channel {
            writer: &mut self.writer,
            subscribers: &mut self.subscribers,
            model: &self.model,
            cancel: &self.cancel,
            controls: &self.controls,
            context: &options.context,
            spent: &mut self.spent,
            learned: &mut self.learned_context,
            calibration: &mut self.calibration,
        };
        let mut ask = |prompt: Prompt| {
            if failed.is_some() {
                return None;
            }
            let prompt = element_list::with_list(prompt, elements.as_deref());
            let mut request = build_request(options, prompt);
            if let Err(stop) = channel.fit(turn, &mut request, None) {
                failed = Some(stop);
                return None;
            }
            let start = Instant::now();
            match channel.ask(turn, &request) {
                Ok(reply) => {
                    channel.emit(turn, reply_event(&reply, start, None));
                    Some(reply)
                }
                Err(stop) => {
                    failed = Some(stop);
                    None
                }
            }
        };
        let consulted = self.strategy.consult(ctx, &mut ask);
        match failed {
            Some(stop) => Err(stop),
            // a reading the stop or --max-time cut short is dropped (crate::parser::work)
            None if crate::parser::work::stopped() => Err(self.stopped_reading()),
            None => Ok(consulted.map(|mut r| {
                crate::strategy::caps::cap_reading(&mut r);
                r
            })),
        }
    }

    /// The turn's entry in the run directory.
    fn record(
        &mut self,
        turn: u32,
        reading: &Reading,
        results: &[ActionResult],
        timings: TurnTimings,
    ) -> Result<(), Stop> {
        let start = Instant::now();
        let Some(w) = self.writer.as_mut() else {
            return Ok(());
        };
        let entry = TurnEntry {
            turn,
            story: reading.text.clone(),
            bboxes: reading.bboxes.clone(),
            // an element's point is kept with its action: replay acts there
            actions: (reading.actions.iter())
                .map(|a| self.executor.with_element_at(a))
                .collect(),
            results: results.to_vec(),
            timings,
            error: (!reading.errors.is_empty()).then(|| reading.errors.join("; ")),
        };
        let written = w.finish_turn(entry).map_err(|e| {
            Stop(
                Outcome::Failed,
                format!("cannot write the run directory: {e}"),
            )
        });
        self.spent.log += ms(start);
        written
    }

    /// The turn's time by stage, to whoever asked for it on the controls (a benchmark).
    fn report_overhead(&mut self, turn: u32, turn_start: Instant) {
        let spent = self.spent;
        self.controls.overhead(TurnOverhead {
            turn,
            log_ms: spent.log,
            events_ms: spent.events,
            model_ms: spent.model,
            turn_ms: ms(turn_start),
            ..self.overhead
        });
    }

    /// One non-fatal `error` event per problem with a reply.
    fn emit_reply_errors(&mut self, turn: u32, errors: &[String]) {
        for e in errors {
            self.emit(
                turn,
                EventKind::Error {
                    message: format!("reply: {e}"),
                    fatal: false,
                },
            );
        }
    }

    /// The `model_reply` event and one `error` per problem with the reply.
    fn emit_reply(&mut self, turn: u32, ms: f64, reply: &Reply, reading: &Reading) {
        self.emit(
            turn,
            EventKind::ModelReply {
                ms,
                text: reply.content.clone(),
                story: (!reading.text.is_empty()).then(|| reading.text.clone()),
                actions: reading.actions.clone(),
                bboxes: reading.bboxes.clone(),
                prompt_tokens: reply.usage.as_ref().map(|u| u.prompt_tokens),
                completion_tokens: reply.usage.as_ref().map(|u| u.completion_tokens),
            },
        );
        self.emit_reply_errors(turn, &reading.errors);
        self.note_other_dialects(turn, reading);
    }

    /// Executes the reading's actions (or takes those performed early); returns their
    /// results and a fatal stop, if any.
    fn act(
        &mut self,
        turn: u32,
        reading: &Reading,
        early: Option<early::Ran>,
    ) -> (Vec<ActionResult>, Option<Stop>) {
        let saved = early.as_ref().map(|r| r.saved_ms);
        let (events, outcome) = match early {
            Some(ran) => ran.performed,
            None => early::perform(&mut self.executor, self.desktop, &reading.actions),
        };
        for (i, r, ms) in events.iter().cloned() {
            let action = reading.actions[i].clone();
            self.emit(
                turn,
                EventKind::ActionResult {
                    index: i,
                    action,
                    result: r,
                    ms,
                    early_exec_ms_saved: saved.filter(|_| i == 0),
                },
            );
        }
        match outcome {
            Ok(results) => (results, None),
            Err(ExecError::Failsafe(t)) => {
                let results = events.into_iter().map(|(_, r, _)| r).collect();
                (results, Some(Stop(Outcome::Stopped, t.to_string())))
            }
            Err(e @ ExecError::Policy { .. }) => {
                let results = events.into_iter().map(|(_, r, _)| r).collect();
                (results, Some(Stop(Outcome::Stopped, e.to_string())))
            }
            Err(e) => {
                let results = events.into_iter().map(|(_, r, _)| r).collect();
                (results, Some(Stop(Outcome::Failed, e.to_string())))
            }
        }
    }
}

impl Channel<'_> {
    fn emit(&mut self, turn: u32, kind: EventKind) {
        let start = Instant::now();
        self.emit_now(turn, kind);
        self.spent.events += ms(start);
    }

    fn emit_now(&mut self, turn: u32, kind: EventKind) {
        let event = Event::now(turn, kind);
        tracing::info!(turn, "{}", event.summary());
        if let Some(w) = self.writer.as_mut()
            && let Err(e) = w.event(&event)
        {
            tracing::error!("cannot write the event log: {e}");
        }
        for s in self.subscribers.iter_mut() {
            s(&event);
        }
    }

    /// Asks the model (which gives up at once on Ctrl+C). Emits one `model_request` per
    /// attempt: the first, then one for each retry with its reason.
    fn ask(&mut self, turn: u32, request: &ChatRequest) -> Result<Reply, Stop> {
        self.ask_with(turn, request, &mut |_| {})
    }

    /// [`ask`](Self::ask), showing `hook` each delta and retry as it comes (early execution).
    fn ask_with(
        &mut self,
        turn: u32,
        request: &ChatRequest,
        hook: &mut dyn FnMut(Progress<'_>),
    ) -> Result<Reply, Stop> {
        let body = self.model.wire_body(request, self.cancel);
        // counted once (every attempt sends the same body), the text not kept for the call
        let (images, bytes) = {
            let text = body.to_string();
            (text.matches("data:image/").count(), text.len())
        };
        let cost = crate::model::context::estimate(request, self.context.image_tokens);
        let calibrated = self.calibration.tokens(&cost);
        let request_event = |attempt: u32, reason: Option<String>| EventKind::ModelRequest {
            model: request.model.clone(),
            attempt,
            messages: request.messages.len(),
            images,
            bytes,
            reason,
            image: cost.images.last().copied(),
            image_tokens: cost.image_tokens,
            estimated_tokens: calibrated,
            context_tokens: self.context.tokens,
        };
        self.emit(turn, request_event(1, None));
        self.exchange(turn, "request", || sanitize::sanitized(&body));
        let model = self.model.clone();
        let cancel = self.cancel;
        let mut live = Coalesce::default();
        let model_start = Instant::now();
        let result = model.complete(request, cancel, &mut |p| match p {
            Progress::Retry(r) => {
                hook(p);
                self.emit(turn, request_event(r.attempt, Some(r.reason.clone())));
            }
            Progress::Delta(d) => {
                if let Some(text) = live.push(d) {
                    self.emit_live(turn, EventKind::ModelDelta { text });
                }
                hook(p);
            }
            Progress::ToolCall(_) => hook(p),
        });
        self.spent.model += ms(model_start);
        match result {
            Ok(reply) => {
                if let Some(u) = &reply.usage {
                    self.calibration.learn(&cost, u.prompt_tokens);
                }
                self.exchange(turn, "response", || reply_record(&reply));
                Ok(reply)
            }
            Err(ModelError::Cancelled) => {
                let reason = self.controls.stop_requested();
                let reason = reason.unwrap_or_else(|| self.cancel.interrupted());
                Err(Stop(Outcome::Interrupted, reason))
            }
            Err(e) => {
                if let ModelError::ContextOverflow { limit: Some(n), .. } = &e
                    && self.context.tokens.is_none_or(|known| *n < known)
                {
                    *self.learned = Some(*n);
                }
                self.exchange(turn, "error", || serde_json::Value::from(e.to_string()));
                let outcome = if e.is_unreachable() {
                    Outcome::Unreachable
                } else {
                    Outcome::Failed
                };
                Err(Stop(outcome, e.to_string()))
            }
        }
    }

    /// Keeps `request` inside the model's context (`context_fit.rs`), emitting a `context_fitted` per
    /// step; the turn's screenshot as sent when it was shrunk. A request that cannot fit ends
    /// the run.
    fn fit(
        &mut self,
        turn: u32,
        request: &mut ChatRequest,
        newest: Option<&Screenshot>,
    ) -> Result<Option<Screenshot>, Stop> {
        let fitted = context_fit::fit_request(request, newest, self.context, &*self.calibration);
        for step in fitted.steps {
            self.emit(turn, step);
        }
        match fitted.error {
            Some(message) => Err(Stop(Outcome::Failed, message)),
            None => Ok(fitted.shrunk),
        }
    }

    /// An event for subscribers only (not logged): streamed text.
    fn emit_live(&mut self, turn: u32, kind: EventKind) {
        let event = Event::now(turn, kind);
        for s in self.subscribers.iter_mut() {
            s(&event);
        }
    }

    /// Appends `{"turn", "t_ms", key: value}` to `exchange.jsonl`. The first failure of a run
    /// becomes one non-fatal `error` event; later ones are not repeated. `value` is built only
    /// when the run has a directory (sanitising a request hashes its images).
    fn exchange(&mut self, turn: u32, key: &str, value: impl FnOnce() -> serde_json::Value) {
        if self.writer.is_none() {
            return;
        }
        let mut record = serde_json::json!({"turn": turn, "t_ms": crate::event::unix_ms()});
        record[key] = value();
        self.write_exchange(turn, &record);
    }

    /// Appends `record` to `exchange.jsonl`, as [`exchange`](Self::exchange) does.
    fn write_exchange(&mut self, turn: u32, record: &serde_json::Value) {
        let start = Instant::now();
        let Some(w) = self.writer.as_mut() else {
            return;
        };
        let written = w.exchange(record);
        self.spent.log += ms(start);
        if let Err(e) = written
            && w.first_failure(crate::runlog::EXCHANGE_FILE)
        {
            self.emit(
                turn,
                EventKind::Error {
                    message: format!(
                        "{e}: the run goes on, but its exchange log misses model requests and replies from here (said once per run)"
                    ),
                    fatal: false,
                },
            );
        }
    }
}

/// Joins stream deltas so that at most one `model_delta` goes out per [`Coalesce::EVERY`].
#[derive(Default)]
struct Coalesce {
    pending: String,
    last: Option<Instant>,
}

impl Coalesce {
    const EVERY: Duration = Duration::from_millis(100);

    /// Adds a delta; the text to send now, if it is time.
    fn push(&mut self, delta: &str) -> Option<String> {
        self.pending.push_str(delta);
        let due = self.last.is_none_or(|t| t.elapsed() >= Self::EVERY);
        if !due || self.pending.is_empty() {
            return None;
        }
        self.last = Some(Instant::now());
        Some(std::mem::take(&mut self.pending))
    }
}

/// A reply as `exchange.jsonl` keeps it (docs/events.md).
fn reply_record(reply: &Reply) -> serde_json::Value {
    serde_json::json!({
        "content": reply.content, "reasoning": reply.reasoning,
        "tool_calls": reply.tool_calls, "finish_reason": reply.finish_reason,
        "usage": reply.usage})
}

/// The request for a strategy's prompt: the run's model settings unless the prompt sets them.
fn build_request(options: &RunOptions, prompt: Prompt) -> ChatRequest {
    let mut request = ChatRequest::new(options.model.clone(), prompt.messages);
    request.tools = prompt.tools;
    request.tool_choice = prompt.tool_choice;
    request.format = prompt.format;
    request.temperature = Some(prompt.temperature.unwrap_or(options.temperature));
    request.top_p = Some(options.top_p);
    request.max_tokens = Some(prompt.max_tokens.unwrap_or(options.max_tokens));
    request.stream = options.stream;
    request
}

/// The `model_reply` event of a reply (and what the strategy read in it, if it did).
fn reply_event(reply: &Reply, start: Instant, reading: Option<&Reading>) -> EventKind {
    EventKind::ModelReply {
        ms: start.elapsed().as_secs_f64() * 1000.0,
        text: reply.content.clone(),
        story: match reading {
            Some(r) => (!r.text.is_empty()).then(|| r.text.clone()),
            // a strategy's own call: what it asked for, e.g. the leader's spawn_operator
            None => {
                let mut said: Vec<String> = reply
                    .tool_calls
                    .iter()
                    .map(|c| {
                        format!(
                            "{}({})",
                            c.name,
                            crate::model::body::snippet(&c.arguments_text())
                        )
                    })
                    .collect();
                let text = crate::parser::strip_think(&reply.content);
                if !text.trim().is_empty() {
                    said.insert(0, text.trim().to_string());
                }
                (!said.is_empty()).then(|| said.join(" "))
            }
        },
        actions: reading.map(|r| r.actions.clone()).unwrap_or_default(),
        bboxes: reading.map(|r| r.bboxes.clone()).unwrap_or_default(),
        prompt_tokens: reply.usage.as_ref().map(|u| u.prompt_tokens),
        completion_tokens: reply.usage.as_ref().map(|u| u.completion_tokens),
    }
}

enum TurnEnd {
    Continue { acted: bool },
    Finished(Outcome, String),
}

/// Whether a person answered this `ask_user`.
fn answered(r: &ActionResult) -> bool {
    matches!(r, ActionResult::Ok { warnings } if warnings.iter().any(|w| w.kind == steering::USER_ANSWER))
}

/// A performed done/fail/report_completion ends the run, and so does an `ask_user` nobody
/// answered.
fn terminal_outcome(reading: &Reading, results: &[ActionResult]) -> Option<TurnEnd> {
    for (a, r) in reading.actions.iter().zip(results) {
        if !r.is_ok() {
            continue;
        }
        let end = match &a.kind {
            ActionKind::Done { text } => TurnEnd::Finished(Outcome::Done, format!("done: {text}")),
            ActionKind::ReportCompletion { evidence } => {
                TurnEnd::Finished(Outcome::Done, format!("done: {evidence}"))
            }
            ActionKind::Fail { text } => {
                TurnEnd::Finished(Outcome::Failed, format!("the model gave up: {text}"))
            }
            // answered by a person: the run goes on with the answer
            ActionKind::AskUser { .. } if answered(r) => continue,
            ActionKind::AskUser { text } => TurnEnd::Finished(
                Outcome::Failed,
                format!("the model handed back to a person: {text}"),
            ),
            _ => continue,
        };
        return Some(end);
    }
    None
}
