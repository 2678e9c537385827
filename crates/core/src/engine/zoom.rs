//! Zoom-in refinement in a turn (`refine zoom`, docs/refine.md): after the reply is read and
//! before the actions are approved or performed, each point a model wrote for a pointer action
//! is refined by `crate::refine` on a crop of the screen as it is now, through the run's model
//! and logging (a `model_request` and a `refined` event each). Points from an element mark or
//! "at the pointer" are not the model's and are left alone; so is a point outside the working
//! area, which the fence refuses anyway.

use super::grounded::{BY_GROUNDER_REFINEMENT, GrounderLog};
use super::{Engine, Stop, build_request};
use crate::action::{Action, ActionKind};
use crate::event::{EventKind, Outcome};
use crate::executor::fence::Fence;
use crate::grounder::GrounderAsker;
use crate::model::ChatRequest;
use crate::model::ModelError;
use crate::observe::Screenshot;
use crate::refine::{self, AskFailure, Refinement, StrategyAsker};
use crate::strategy::Reading;
use franz_desktop::PixelPoint;

impl Engine<'_> {
    /// Refines the points of `reading`'s pointer actions when the run asks for it. Early
    /// execution is off with refinement (`config/parts.rs`); a reading whose first action was
    /// performed early anyway is left as it is.
    pub(super) fn refine(
        &mut self,
        turn: u32,
        reading: &mut Reading,
        early: bool,
    ) -> Result<(), Stop> {
        if !self.options.refine.is_on() || early {
            return Ok(());
        }
        for (i, action) in reading.actions.iter_mut().enumerate() {
            if self.interrupted() {
                return Err(self.cancelled());
            }
            self.refine_action(turn, i, action)?;
        }
        Ok(())
    }

    /// One action: its point, and a drag's end, each refined by one request.
    fn refine_action(&mut self, turn: u32, index: usize, action: &mut Action) -> Result<(), Stop> {
        let model_point = action.kind.is_pointer() && action.element.is_none();
        let area = self.executor.area();
        let fence = Fence::new(area);
        if !model_point || fence.refusal(&action.kind, action.exact, None).is_some() {
            return Ok(());
        }
        let (Some(at), end) = fence.targets(action) else {
            return Ok(());
        };
        // a point the grounder found (its target in words) is refined by the grounder
        let ask = match &action.target {
            Some(words) if self.grounder.is_some() => Asker::Grounder(words.clone()),
            _ => Asker::Planner(refine::instruction(&self.options.task, action)),
        };
        let name = action.kind.name();
        let new_at = self.zoom(turn, (index, name), at, &ask)?;
        let new_end = match (end, &action.kind) {
            (Some(e), ActionKind::Drag { .. }) => {
                Some(self.zoom(turn, (index, "drag end"), e, &ask)?)
            }
            _ => end,
        };
        if new_at != at || new_end != end {
            refine::retarget(action, &area, new_at, new_end);
        }
        Ok(())
    }

    /// Refines `from` on a crop around it; the point to act at, and the `refined` event.
    fn zoom(
        &mut self,
        turn: u32,
        (index, what): (usize, &str),
        from: PixelPoint,
        ask: &Asker,
    ) -> Result<PixelPoint, Stop> {
        let done = match (self.crop_around(from), ask) {
            (Ok(shot), Asker::Planner(instruction)) => {
                self.ask_on_crop(turn, from, &shot, instruction)?
            }
            (Ok(shot), Asker::Grounder(words)) => {
                self.ask_grounder_on_crop(turn, from, &shot, words)?
            }
            (Err(why), _) => self.kept(from, format!("cannot capture the crop: {why}")),
        };
        let kind = EventKind::Refined {
            index,
            action: what.to_string(),
            from: [done.from.x, done.from.y],
            to: [done.to.x, done.to.y],
            distance: done.distance(),
            crop: done.crop,
            width: done.image.width,
            height: done.image.height,
            ms: done.ms,
            prompt_tokens: done.prompt_tokens,
            completion_tokens: done.completion_tokens,
            error: done.error.clone(),
        };
        self.emit(turn, kind);
        Ok(done.to)
    }

    /// One refinement request through the run's model and logging, in a fresh strategy of the
    /// run's kind. A stop ends the run at once; any other failure keeps `from`.
    fn ask_on_crop(
        &mut self,
        turn: u32,
        from: PixelPoint,
        shot: &Screenshot,
        instruction: &str,
    ) -> Result<Refinement, Stop> {
        let options = self.options.clone();
        let (name, read) = (options.refine.strategy, options.refine.read.clone());
        let mut asker =
            StrategyAsker::new(name, read, Box::new(move |p| build_request(&options, p)));
        let mut channel = self.channel();
        let mut ask = |request: &ChatRequest| {
            channel.ask(turn, request).map_err(|stop| match stop {
                Stop(Outcome::Interrupted, _) => AskFailure::Stop(stop),
                Stop(_, why) => AskFailure::Failed(why),
            })
        };
        refine::refine_point(from, shot, instruction, &mut asker, &mut ask)
    }

    /// One refinement request to the grounding model, in its own prompt and format, for the
    /// planner's `words` on the crop. A stop ends the run at once; any other failure keeps
    /// `from`.
    fn ask_grounder_on_crop(
        &mut self,
        turn: u32,
        from: PixelPoint,
        shot: &Screenshot,
        words: &str,
    ) -> Result<Refinement, Stop> {
        let Some(g) = self.grounder.as_ref() else {
            return Ok(self.kept(from, "no grounding model is configured".into()));
        };
        let by = BY_GROUNDER_REFINEMENT;
        let mut log = GrounderLog::new(turn, by, g.model_id(), words, self.writer.is_some());
        let mut asker = GrounderAsker::new(g, words);
        let cancel = &self.cancel;
        let mut ask = |request: &ChatRequest| {
            g.complete(request, cancel, &mut |asked| log.push(asked))
                .map_err(|e| match e {
                    ModelError::Cancelled => AskFailure::Stop(()),
                    e => AskFailure::Failed(e.to_string()),
                })
        };
        let done = refine::refine_point(from, shot, words, &mut asker, &mut ask);
        self.write_grounder_log(log);
        done.map_err(|()| self.cancelled())
    }

    /// A refinement that kept `from`, and why.
    fn kept(&self, from: PixelPoint, why: String) -> Refinement {
        Refinement {
            from,
            to: from,
            crop: refine::crop_box(self.executor.area().rect, from, self.options.refine.crop),
            image: crate::geometry::ImageSize::new(0, 0),
            ms: 0.0,
            prompt_tokens: None,
            completion_tokens: None,
            error: Some(format!("kept the first point: {why}")),
        }
    }

    /// The crop around `at` of the screen as it is now, as the model is sent it.
    fn crop_around(&mut self, at: PixelPoint) -> Result<Screenshot, String> {
        let rect = refine::crop_box(self.executor.area().rect, at, self.options.refine.crop);
        let monitor = self.desktop.monitor().rect;
        let origin = PixelPoint::new(monitor.x, monitor.y);
        let observe = self.pipeline.config().clone();
        let mut shot = None;
        self.desktop
            .capture_view(&mut |frame| {
                shot = Some(refine::crop_shot(frame, origin, rect, &observe));
            })
            .map_err(|e| e.to_string())?;
        match shot {
            Some(Ok(s)) => Ok(s),
            Some(Err(e)) => Err(e.to_string()),
            None => Err("the desktop lent no pixels".into()),
        }
    }
}

/// Who is asked again on the crop: the planner, with the task and the action's aim, or the
/// grounding model that found the point, with the planner's words for the target.
enum Asker {
    Planner(String),
    Grounder(String),
}
