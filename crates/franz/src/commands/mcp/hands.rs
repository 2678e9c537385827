//! The desktop the MCP tools act on: one desktop, one observation pipeline and one executor,
//! built by the core's builder (`franz_core::agent::Agent::acting`) from the settings as a
//! run's are (the profile, crop fence, policy, failsafe, dry run), the feedback overlay's
//! history and the last screenshot's id. Under a profile whose family maps points by its
//! reference rule, a tool's point is mapped by that rule (docs/coordinates.md, "Exact
//! targets"), as the same point in a run's reply would be. Everything here is blocking: it lives on a thread of its own
//! ([`Desk`]), which runs the tools' work one call at a time, in order. One thread keeps the
//! pipeline's reused buffers (and the allocator's arena) the same from call to call.

use franz_core::action::{Action, ActionResult};
use franz_core::cancel::Cancel;
use franz_core::exact_target::{Exact, Num};
use franz_core::executor::{ExecError, Executor};
use franz_core::geometry::{ImageSize, NormPoint, WorkArea};
use franz_core::observe::Pipeline;
use franz_core::overlay::{FeedbackHistory, Overlay, TurnFeedback};
use franz_desktop::Desktop;
use std::sync::{Arc, Mutex};

/// The coordinate space of the tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    /// 0..1000 on each axis of the working area (the screenshot shows all of it).
    Norm1000,
    /// Pixels of the last screenshot (its `image_id` must come with them).
    Pixels,
}

impl Space {
    pub fn name(self) -> &'static str {
        match self {
            Space::Norm1000 => "norm1000",
            Space::Pixels => "pixels",
        }
    }
}

/// One screenshot as a tool returns it.
pub struct Shot {
    pub png: Vec<u8>,
    pub size: ImageSize,
    pub image_id: String,
    pub work_area: WorkArea,
}

/// The last screenshot a client was given: pixel coordinates are read against it.
#[derive(Debug, Clone)]
struct Seen {
    id: String,
    size: ImageSize,
}

/// The cancel tokens of the calls: the server's own (Ctrl+C of `franz mcp`) and the one of
/// the call running now, which the server's passes on to.
struct Calls {
    server: Cancel,
    current: Arc<Mutex<Option<Cancel>>>,
}

pub struct Hands {
    calls: Calls,
    desktop: Box<dyn Desktop + Send>,
    pipeline: Pipeline,
    executor: Executor,
    overlay: Option<Overlay>,
    history: FeedbackHistory,
    feedback: bool,
    /// The profile maps a point by its family's reference rule.
    exact: bool,
    seen: Option<Seen>,
    shots: u64,
}

impl Hands {
    /// The tools' hands on the parts the core's builder made; `feedback` draws the last
    /// actions on the next screenshot.
    pub fn new(parts: franz_core::agent::Hands, feedback: bool) -> Self {
        let exact = parts.maps_exactly();
        let franz_core::agent::Hands {
            desktop,
            pipeline,
            executor,
            overlay,
            ..
        } = parts;
        let history = overlay
            .as_ref()
            .map_or_else(|| FeedbackHistory::new(1), Overlay::history);
        let server = executor.cancel_token().cloned().unwrap_or_default();
        let current: Arc<Mutex<Option<Cancel>>> = Arc::default();
        let running = current.clone();
        // one hook for the server's life: a stop of the server stops the call running then
        server.on_cancel(move || {
            if let Some(c) = running.lock().ok().and_then(|mut c| c.take()) {
                c.cancel();
            }
        });
        Self {
            calls: Calls { server, current },
            desktop,
            pipeline,
            executor,
            overlay,
            history,
            feedback,
            exact,
            seen: None,
            shots: 0,
        }
    }

    /// A screenshot through the observation pipeline, with the feedback overlay of the last
    /// actions; it becomes the current image (a new `image_id`).
    pub fn screenshot(&mut self) -> Result<Shot, String> {
        let (overlay, history, feedback) = (&self.overlay, &self.history, self.feedback);
        let mut obs = self
            .pipeline
            .observe(self.desktop.as_mut(), |image| {
                if let (true, Some(o)) = (feedback, overlay)
                    && let Err(e) = o.draw_image(image, history)
                {
                    tracing::warn!("cannot draw the feedback overlay: {e}");
                }
            })
            .map_err(|e| format!("cannot take a screenshot: {e}"))?;
        self.shots += 1;
        let id = format!("img-{}", self.shots);
        self.seen = Some(Seen {
            id: id.clone(),
            size: obs.size,
        });
        let shot = Shot {
            png: std::mem::take(&mut obs.encoded),
            size: obs.size,
            image_id: id,
            work_area: obs.work_area,
        };
        self.pipeline.recycle(obs);
        Ok(shot)
    }

    /// Turns a point given in `space` into the 0..1000 space of the actions. Pixels need the
    /// current screenshot's id.
    pub fn to_norm(
        &self,
        space: Space,
        (x, y): (i64, i64),
        image_id: Option<&str>,
    ) -> Result<(i32, i32), String> {
        match space {
            Space::Norm1000 => {
                if !(0..=1000).contains(&x) || !(0..=1000).contains(&y) {
                    return Err(format!(
                        "({x}, {y}) is out of range: coordinates are 0..1000 on each axis of the screenshot (norm1000)"
                    ));
                }
                Ok((x as i32, y as i32))
            }
            Space::Pixels => {
                let seen = self.current(image_id)?;
                let (w, h) = (seen.size.width as i64, seen.size.height as i64);
                if !(0..w).contains(&x) || !(0..h).contains(&y) {
                    return Err(format!(
                        "({x}, {y}) is out of range: screenshot {} is {w}x{h} pixels, so x is 0..{} and y is 0..{}",
                        seen.id,
                        w - 1,
                        h - 1
                    ));
                }
                let p = seen.size.to_norm(x as i32, y as i32);
                Ok((p.x, p.y))
            }
        }
    }

    /// The points given in `space` kept exactly (`at`, and `to` for a drag's end), for a
    /// profile that maps points by its family's reference rule; `None` under franz's rule or
    /// without a point. The points were checked by [`Hands::to_norm`].
    pub fn exact(&self, space: Space, points: &[(i64, i64)]) -> Option<Exact> {
        if !self.exact || points.is_empty() {
            return None;
        }
        let of = match (space, &self.seen) {
            (Space::Norm1000, _) => ImageSize::new(1000, 1000),
            (Space::Pixels, Some(seen)) => seen.size,
            (Space::Pixels, None) => return None,
        };
        let num = |&(x, y): &(i64, i64)| [Num(x as f64), Num(y as f64)];
        Some(Exact {
            at: points.first().map(num),
            to: points.get(1).map(num),
            of: [Num(of.width as f64), Num(of.height as f64)],
        })
    }

    /// The current screenshot, checked against the id the client gave.
    fn current(&self, image_id: Option<&str>) -> Result<&Seen, String> {
        let Some(seen) = &self.seen else {
            return Err(
                "pixel coordinates need a screenshot first: call screenshot and pass its image_id"
                    .into(),
            );
        };
        match image_id {
            Some(id) if id == seen.id => Ok(seen),
            Some(id) => Err(format!(
                "image_id {id:?} is not the current screenshot: the current one is {:?}; take a new screenshot or use its id and pixels",
                seen.id
            )),
            None => Err(format!(
                "pixel coordinates need the image_id of the screenshot they were read on (the current one is {:?})",
                seen.id
            )),
        }
    }

    /// The pointer in `space`.
    pub fn cursor(&mut self, space: Space) -> Result<serde_json::Value, String> {
        let p = self
            .desktop
            .pointer()
            .map_err(|e| format!("cannot read the pointer: {e}"))?;
        let area = self
            .pipeline
            .work_area(self.desktop.as_ref())
            .map_err(|e| e.to_string())?;
        let inside = area.contains(p);
        let norm = area.to_norm(p);
        let mut v = serde_json::json!({
            "coords": space.name(),
            "inside_working_area": inside,
            "screen_pixel": {"x": p.x, "y": p.y},
        });
        match (space, &self.seen) {
            (Space::Norm1000, _) => {
                v["x"] = norm.x.into();
                v["y"] = norm.y.into();
            }
            (Space::Pixels, Some(seen)) => {
                let (x, y) = seen.size.to_pixel(NormPoint::new(norm.x, norm.y));
                v["x"] = x.into();
                v["y"] = y.into();
                v["image_id"] = seen.id.clone().into();
            }
            (Space::Pixels, None) => {
                return Err(
                    "pixel coordinates are read against a screenshot: call screenshot first".into(),
                );
            }
        }
        Ok(v)
    }

    /// Performs one action through the executor (which enforces the safety policy); its
    /// result goes into the feedback history (drawn on the next screenshot).
    pub fn act(&mut self, action: Action) -> Result<ActionResult, String> {
        let actions = [action];
        let results = self
            .executor
            .execute(self.desktop.as_mut(), &actions)
            .map_err(exec_error)?;
        self.history
            .push(TurnFeedback::executed(&actions, &results, &[]));
        results
            .into_iter()
            .next()
            .ok_or_else(|| "the executor returned no result".into())
    }

    /// A call begins: its action runs under `call`'s token (set when the client cancels the
    /// request, or the server stops).
    fn begin_call(&mut self, call: Cancel) {
        if self.calls.server.is_cancelled() {
            call.cancel();
        }
        if let Ok(mut c) = self.calls.current.lock() {
            *c = Some(call.clone());
        }
        self.executor.set_cancel(call);
    }

    /// The call ended: back to the server's own token.
    fn end_call(&mut self) {
        if let Ok(mut c) = self.calls.current.lock() {
            *c = None;
        }
        self.executor.set_cancel(self.calls.server.clone());
    }

    pub fn is_dry_run(&self) -> bool {
        self.executor.is_dry_run()
    }

    /// The interactive elements of the accessibility tree inside the working area, numbered as
    /// a model sees them (grounding), collected within `budget`; how long it took and whether
    /// the budget cut the walk short.
    pub fn elements(
        &mut self,
        budget: std::time::Duration,
    ) -> Result<(Vec<franz_core::grounding::Mark>, u64, bool), String> {
        let mut source = franz_desktop::elements::open().map_err(|e| {
            format!(
                "cannot read the elements: {e} (AT-SPI2 needs a D-Bus session with at-spi2-core)"
            )
        })?;
        let found = source
            .collect(budget)
            .map_err(|e| format!("cannot read the elements: {e}"))?;
        let marks = franz_core::grounding::marks(&found.elements, self.executor.area());
        Ok((marks, found.elapsed_ms, found.truncated))
    }
}

/// The confirmer of the server's executors: an action a `confirm` rule of the safety policy
/// matches is not performed, since nobody sits at franz's terminal (over stdio it carries the
/// protocol) and the tools' callers are programs; the refusal names the rule.
pub fn nobody_to_ask(_: &Action, _: &str) -> bool {
    false
}

fn exec_error(e: ExecError) -> String {
    match e {
        ExecError::Failsafe(t) => format!(
            "failsafe: {t}. Nothing more was done; move the pointer out of the corner before the next action"
        ),
        other => other.to_string(),
    }
}

type Job = Box<dyn FnOnce(&mut Hands) + Send>;

/// The thread that owns the [`Hands`]; tools send it work.
pub struct Desk {
    jobs: std::sync::mpsc::Sender<Job>,
}

impl Desk {
    pub fn start(mut hands: Hands) -> std::io::Result<Desk> {
        let (jobs, rx) = std::sync::mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("franz-mcp-desktop".into())
            .spawn(move || {
                for job in rx {
                    job(&mut hands);
                }
            })?;
        Ok(Desk { jobs })
    }

    /// Runs `work` on the desktop's thread and waits for its answer. When `cancelled`
    /// completes first (the client cancelled the request), the call's token is set: the action
    /// stops at its next look (every wait step of 50 ms, typed character and wheel notch) and
    /// the answer comes then, so the next call is not held up.
    pub async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Hands) -> Result<T, String> + Send + 'static,
        cancelled: impl std::future::Future<Output = ()>,
    ) -> Result<T, String> {
        let (tx, mut rx) = tokio::sync::oneshot::channel();
        let call = Cancel::new();
        let token = call.clone();
        let job: Job = Box::new(move |h| {
            h.begin_call(token);
            let out = work(h);
            h.end_call();
            let _ = tx.send(out);
        });
        self.jobs
            .send(job)
            .map_err(|_| "the desktop thread has stopped".to_string())?;
        let answer = tokio::select! {
            answer = &mut rx => answer,
            () = cancelled => {
                call.cancel();
                rx.await
            }
        };
        answer
            .map_err(|_| "the desktop thread failed during this call: see franz.log".to_string())?
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use franz_core::action::ActionKind;
    use franz_core::action::ErrorKind;
    use franz_core::agent::Agent;
    use franz_core::config::{ConfigBuilder, Settings};
    use franz_core::policy::{Policy, PolicyConfig};
    use franz_desktop::PixelPoint;
    use franz_desktop::fake::FakeDesktop;

    /// The tools' hands under `flags` (as `franz mcp` resolves them) on an 800x600 desktop.
    fn hands_with(
        flags: &[(&str, &str)],
        policy: PolicyConfig,
    ) -> (Hands, franz_desktop::fake::FakeLog) {
        let mut b = ConfigBuilder::new();
        for (key, value) in flags {
            b = b.flag(key, &format!("--{key}"), *value);
        }
        let mut settings = Settings::with_profile(b.build().unwrap(), Vec::new()).unwrap();
        settings.policy = Policy::new(&policy).unwrap();
        let desktop = FakeDesktop::new(800, 600);
        let log = desktop.log();
        let parts = Agent::acting(&settings)
            .desktop(Box::new(desktop))
            .build_hands()
            .unwrap();
        (Hands::new(parts, false), log)
    }

    fn hands(policy: PolicyConfig) -> (Hands, franz_desktop::fake::FakeLog) {
        let flags = [
            ("motion", "fast"),
            ("size", "400x300"),
            ("profile", "franz"),
        ];
        hands_with(&flags, policy)
    }

    #[test]
    fn the_safety_policy_refuses_before_any_input() {
        let (mut h, log) = hands(PolicyConfig {
            deny_regions: vec![[400, 400, 600, 600]],
            ..PolicyConfig::default()
        });
        let click = Action::from(ActionKind::Click {
            x: Some(500),
            y: Some(500),
        });
        let ActionResult::Error(e) = h.act(click).unwrap() else {
            panic!("the click was performed")
        };
        assert_eq!(e.kind, ErrorKind::PolicyDenied, "{e:?}");
        assert!(e.message.contains("deny_regions"), "{}", e.message);
        assert!(log.sent().is_empty(), "nothing was sent: {:?}", log.sent());
        let moved = h.act(Action::from(ActionKind::Move {
            x: Some(1),
            y: Some(2),
        }));
        assert!(moved.unwrap().is_ok());
        assert!(!log.sent().is_empty());
    }

    /// Where a click the tools were given at `(x, y)` in `space` lands.
    fn lands(h: &mut Hands, space: Space, p: (i64, i64), id: Option<&str>) -> PixelPoint {
        let (x, y) = h.to_norm(space, p, id).unwrap();
        let mut click = Action::from(ActionKind::Click {
            x: Some(x),
            y: Some(y),
        });
        click.exact = h.exact(space, &[p]);
        assert!(h.act(click).unwrap().is_ok());
        h.desktop.pointer().unwrap()
    }

    #[test]
    fn a_point_is_mapped_as_the_profile_says() {
        let p = (600, 600);
        // franz's rule: n * (L - 1) / 1000
        let (mut h, _) = hands(PolicyConfig::default());
        assert_eq!(
            lands(&mut h, Space::Norm1000, p, None),
            PixelPoint::new(479, 359)
        );
        // Qwen3-VL's reference code: min(L - 1, round(n * L / 1000))
        let flags = [("motion", "fast"), ("profile", "qwen3-vl")];
        let (mut h, _) = hands_with(&flags, PolicyConfig::default());
        assert_eq!(
            lands(&mut h, Space::Norm1000, p, None),
            PixelPoint::new(480, 360)
        );
        // pixels of the screenshot sent, by the same rule: round(x * 800 / w)
        let shot = h.screenshot().unwrap();
        let (w, hh) = (shot.size.width as i64, shot.size.height as i64);
        let at = (w / 3, hh / 3);
        let want = PixelPoint::new(
            franz_core::exact_target::exact_axis(at.0 as f64, w as f64, 0, 800),
            franz_core::exact_target::exact_axis(at.1 as f64, hh as f64, 0, 600),
        );
        let got = lands(&mut h, Space::Pixels, at, Some(&shot.image_id));
        assert_eq!(got, want);
    }

    #[test]
    fn pixels_are_read_against_the_current_screenshot() {
        let (mut h, _) = hands(PolicyConfig::default());
        let e = h.to_norm(Space::Pixels, (1, 1), None).unwrap_err();
        assert!(e.contains("screenshot first"), "{e}");
        let first = h.screenshot().unwrap();
        assert_eq!(first.size, ImageSize::new(400, 300));
        assert_eq!(
            h.to_norm(Space::Pixels, (399, 299), Some(&first.image_id)),
            Ok((1000, 1000))
        );
        let e = h.to_norm(Space::Pixels, (400, 0), Some(&first.image_id));
        assert!(e.unwrap_err().contains("out of range"));
        let second = h.screenshot().unwrap();
        let e = h
            .to_norm(Space::Pixels, (1, 1), Some(&first.image_id))
            .unwrap_err();
        assert!(e.contains(&second.image_id), "names the current id: {e}");
        assert_eq!(h.to_norm(Space::Norm1000, (1000, 0), None), Ok((1000, 0)));
        assert!(h.to_norm(Space::Norm1000, (1001, 0), None).is_err());
    }
}
