//! The cancellation token of a run: one per session. Ctrl+C, the panel's Stop and the session
//! handle set it; every sleep of the engine and the executor waits on it (not in a polling loop:
//! [`Cancel::sleep`] wakes the moment it is set) and the model call gives up on it.
//!
//! Cloning gives another handle to the same token. Async code (the model client's request
//! futures) awaits [`Cancel::cancelled`], which wakes the moment the token is set.
//!
//! Whoever sets it may say why ([`Cancel::cancel_because`]: `SIGTERM`, `SIGINT (Ctrl+C)`), so
//! that a run or an action it cuts short names what stopped it ([`Cancel::interrupted`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Called once when the token is set, with the reason it was set for, if any.
type Hook = Box<dyn FnOnce(Option<&str>) + Send>;

#[derive(Default)]
struct Inner {
    flag: AtomicBool,
    lock: Mutex<()>,
    woken: Condvar,
    hooks: Mutex<Vec<Hook>>,
    /// Why it was set (the first reason given).
    reason: Mutex<Option<String>>,
    /// Wakes the [`Cancel::cancelled`] futures.
    notify: tokio::sync::Notify,
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cancel")
            .field("cancelled", &self.flag.load(Ordering::SeqCst))
            .finish()
    }
}

/// A shared "stop now" signal that wakes whoever sleeps on it.
#[derive(Debug, Clone, Default)]
pub struct Cancel {
    inner: Arc<Inner>,
}

impl Cancel {
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the token and wakes every sleeper. Setting it twice is harmless.
    pub fn cancel(&self) {
        self.inner.flag.store(true, Ordering::SeqCst);
        // taking the lock orders the store before any sleeper's check-then-wait
        drop(self.inner.lock.lock().unwrap_or_else(|p| p.into_inner()));
        self.inner.woken.notify_all();
        self.inner.notify.notify_waiters();
        let hooks = std::mem::take(&mut *self.hooks());
        let reason = self.reason();
        for hook in hooks {
            hook(reason.as_deref());
        }
    }

    /// Sets the token for `why` (kept unless a reason was given before).
    pub fn cancel_because(&self, why: &str) {
        self.reason_slot().get_or_insert_with(|| why.to_string());
        self.cancel();
    }

    fn hooks(&self) -> std::sync::MutexGuard<'_, Vec<Hook>> {
        self.inner.hooks.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn reason_slot(&self) -> std::sync::MutexGuard<'_, Option<String>> {
        self.inner.reason.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Why the token was set, if whoever set it said (`SIGTERM`).
    pub fn reason(&self) -> Option<String> {
        self.reason_slot().clone()
    }

    /// How what this token cut short is described: `interrupted (SIGTERM)`, or `interrupted`
    /// when no reason was given.
    pub fn interrupted(&self) -> String {
        interrupted(self.reason().as_deref())
    }

    /// Runs `hook` once when the token is set (at once if it is set already): to wake a
    /// waiter that sleeps on something else.
    pub fn on_cancel(&self, hook: impl FnOnce() + Send + 'static) {
        self.on_cancel_with(move |_| hook());
    }

    /// As [`Cancel::on_cancel`], the hook given the reason the token was set for.
    pub fn on_cancel_with(&self, hook: impl FnOnce(Option<&str>) + Send + 'static) {
        let mut hooks = self.hooks();
        if self.is_cancelled() {
            drop(hooks);
            hook(self.reason().as_deref());
        } else {
            hooks.push(Box::new(hook));
        }
    }

    /// Sets `other` too when this token is set, for the same reason.
    pub fn forward_to(&self, other: Cancel) {
        self.on_cancel_with(move |why| match why {
            Some(why) => other.cancel_because(why),
            None => other.cancel(),
        });
    }

    /// Sets the token for `why` and returns whether it was set before (the second Ctrl+C).
    pub fn cancel_again(&self, why: &str) -> bool {
        // the reason first: whoever sees the flag finds it
        self.reason_slot().get_or_insert_with(|| why.to_string());
        let was = self.inner.flag.swap(true, Ordering::SeqCst);
        self.cancel();
        was
    }

    pub fn is_cancelled(&self) -> bool {
        self.inner.flag.load(Ordering::SeqCst)
    }

    /// Sleeps `d`, waking at once when the token is set. True when the whole time passed,
    /// false when cancelled.
    pub fn sleep(&self, d: Duration) -> bool {
        let deadline = Instant::now() + d;
        let mut guard = self.inner.lock.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if self.is_cancelled() {
                return false;
            }
            let now = Instant::now();
            if now >= deadline {
                return true;
            }
            guard = match self.inner.woken.wait_timeout(guard, deadline - now) {
                Ok((g, _)) => g,
                Err(p) => p.into_inner().0,
            };
        }
    }

    /// Blocks until the token is set.
    pub fn wait(&self) {
        while self.sleep(Duration::from_secs(3600)) {}
    }

    /// Completes once the token is set (at once if it is): the async form of [`Cancel::wait`],
    /// for `tokio::select!` against a future that is dropped on cancel.
    pub async fn cancelled(&self) {
        let notified = self.inner.notify.notified();
        tokio::pin!(notified);
        // registered before the check, so a cancel between the check and the await still wakes
        notified.as_mut().enable();
        if self.is_cancelled() {
            return;
        }
        // `notify_waiters` is only called after the flag is set
        notified.await;
    }
}

/// `interrupted (WHY)`, or `interrupted` without a reason.
pub fn interrupted(why: Option<&str>) -> String {
    match why {
        Some(why) => format!("interrupted ({why})"),
        None => "interrupted".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sleep_runs_its_time_unless_cancelled() {
        let c = Cancel::new();
        let start = Instant::now();
        assert!(c.sleep(Duration::from_millis(30)));
        assert!(start.elapsed() >= Duration::from_millis(30));
        c.cancel();
        assert!(
            !c.sleep(Duration::from_secs(60)),
            "a cancelled token does not sleep"
        );
    }

    #[test]
    fn cancel_wakes_a_sleeper_at_once() {
        let c = Cancel::new();
        let sleeper = c.clone();
        let start = Instant::now();
        let t = std::thread::spawn(move || sleeper.sleep(Duration::from_secs(60)));
        std::thread::sleep(Duration::from_millis(50));
        c.cancel();
        assert!(!t.join().unwrap());
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "{:?}",
            start.elapsed()
        );
    }

    #[test]
    fn hooks_run_once_on_cancel_or_at_once_when_late() {
        let c = Cancel::new();
        let (tx, rx) = std::sync::mpsc::channel();
        let t = tx.clone();
        c.on_cancel(move || t.send("early").unwrap());
        assert!(rx.try_recv().is_err());
        c.cancel();
        c.cancel();
        c.on_cancel(move || tx.send("late").unwrap());
        assert_eq!(rx.try_iter().collect::<Vec<_>>(), ["early", "late"]);
    }

    #[test]
    fn the_cancelled_future_completes_on_cancel_and_at_once_when_late() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let c = Cancel::new();
        let pending = rt.block_on(async {
            tokio::time::timeout(Duration::from_millis(20), c.cancelled()).await
        });
        assert!(pending.is_err(), "not set: still waiting");
        let setter = c.clone();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            setter.cancel();
        });
        let start = Instant::now();
        let woke = rt
            .block_on(async { tokio::time::timeout(Duration::from_secs(60), c.cancelled()).await });
        assert!(woke.is_ok() && start.elapsed() < Duration::from_secs(2));
        t.join().unwrap();
        rt.block_on(c.cancelled());
    }

    #[test]
    fn wait_returns_once_cancelled_and_cancel_again_tells_the_second_time() {
        let c = Cancel::new();
        let w = c.clone();
        let t = std::thread::spawn(move || w.wait());
        assert!(!c.cancel_again("SIGTERM"));
        t.join().unwrap();
        assert!(c.cancel_again("SIGINT (Ctrl+C)"));
        assert_eq!(
            c.interrupted(),
            "interrupted (SIGTERM)",
            "the first reason stays"
        );
    }

    #[test]
    fn a_forwarded_cancel_carries_its_reason() {
        let (from, to, plain) = (Cancel::new(), Cancel::new(), Cancel::new());
        from.forward_to(to.clone());
        from.cancel_because("SIGHUP");
        assert!(to.is_cancelled());
        assert_eq!(to.interrupted(), "interrupted (SIGHUP)");
        plain.cancel();
        assert_eq!(plain.interrupted(), "interrupted");
    }
}
