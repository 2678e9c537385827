//! The panel's events to its clients (`GET /events`). Each client has its own queue, bounded
//! by bytes, not by count: a reply of several MB is one event, so a count bound would let a
//! client that never reads hold gigabytes. A client whose queue would pass the bound is
//! dropped: its stream ends (the page's `EventSource` reconnects and reads `/state` afresh)
//! and its queue is freed at once. An event larger than the bound still goes to a client whose
//! queue is empty, so a client that keeps up gets every event.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::Notify;

/// The most bytes of events waiting for one client.
pub const CLIENT_BYTES: usize = 8 << 20;

/// One event line, shared by every client's queue.
pub type Line = Arc<str>;

#[derive(Default)]
struct Queue {
    lines: VecDeque<Line>,
    bytes: usize,
    /// Dropped for falling behind: its stream ends.
    closed: bool,
}

#[derive(Default)]
struct Client {
    queue: Mutex<Queue>,
    ready: Notify,
}

impl Client {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Every connected client's queue.
pub struct Fanout {
    clients: Mutex<Vec<Arc<Client>>>,
    limit: usize,
    dropped: AtomicU64,
    /// The most bytes any client's queue held.
    peak: AtomicUsize,
}

impl Fanout {
    /// A fanout whose clients may fall `limit` bytes behind.
    pub fn new(limit: usize) -> Self {
        Fanout {
            clients: Mutex::new(Vec::new()),
            limit,
            dropped: AtomicU64::new(0),
            peak: AtomicUsize::new(0),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Arc<Client>>> {
        self.clients.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A new client, receiving the events sent from now on.
    pub fn subscribe(&self) -> Subscription {
        let client = Arc::new(Client::default());
        self.lock().push(client.clone());
        Subscription(client)
    }

    /// Queues `line` for every client; drops those it would take past the bound, and forgets
    /// those that went away.
    pub fn send(&self, line: String) {
        let line: Line = line.into();
        self.lock().retain(|c| {
            // only this list holds it: its connection is gone
            if Arc::strong_count(c) == 1 {
                return false;
            }
            let mut q = c.lock();
            if !q.lines.is_empty() && q.bytes + line.len() > self.limit {
                let behind = q.bytes;
                *q = Queue {
                    closed: true,
                    ..Queue::default()
                };
                drop(q);
                c.ready.notify_one();
                self.dropped.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(
                    "panel: a client of /events fell {behind} bytes behind; it was dropped (it may reconnect; {} dropped so far, at most {} bytes queued for one)",
                    self.dropped(),
                    self.peak_bytes()
                );
                return false;
            }
            q.bytes += line.len();
            q.lines.push_back(line.clone());
            self.peak.fetch_max(q.bytes, Ordering::Relaxed);
            drop(q);
            c.ready.notify_one();
            true
        });
    }

    /// The clients connected now.
    #[cfg(test)]
    pub fn clients(&self) -> usize {
        self.lock()
            .iter()
            .filter(|c| Arc::strong_count(c) > 1)
            .count()
    }

    /// Clients dropped for falling behind, so far.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// The most bytes any client's queue held so far.
    pub fn peak_bytes(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }
}

/// One client's end: its events in order, until it is dropped.
pub struct Subscription(Arc<Client>);

impl Subscription {
    /// The next event, at once if one waits; `Err(true)` once dropped, `Err(false)` when
    /// none waits yet.
    pub fn try_recv(&self) -> Result<Line, bool> {
        let mut q = self.0.lock();
        match q.lines.pop_front() {
            Some(line) => {
                q.bytes -= line.len();
                Ok(line)
            }
            None => Err(q.closed),
        }
    }

    /// The next event; `None` once the client was dropped.
    pub async fn recv(&self) -> Option<Line> {
        loop {
            let ready = self.0.ready.notified();
            match self.try_recv() {
                Ok(line) => return Some(line),
                Err(true) => return None,
                Err(false) => ready.await,
            }
        }
    }

    /// The events as a stream that ends when the client is dropped.
    pub fn into_stream(self) -> impl tokio_stream::Stream<Item = Line> {
        futures_util::stream::unfold(self, |s| async move { s.recv().await.map(|l| (l, s)) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_that_falls_behind_is_dropped_and_one_that_reads_is_not() {
        let f = Fanout::new(100);
        let slow = f.subscribe();
        let fast = f.subscribe();
        for i in 0..10 {
            f.send(format!("{i:030}"));
            assert_eq!(fast.try_recv().unwrap().len(), 30);
        }
        assert_eq!(f.dropped(), 1);
        assert!(f.peak_bytes() <= 100, "{}", f.peak_bytes());
        assert_eq!(slow.try_recv(), Err(true), "its queue was freed");
        // an event past the bound reaches a client that has nothing queued
        f.send("x".repeat(500));
        assert_eq!(fast.try_recv().unwrap().len(), 500);
        assert_eq!(f.dropped(), 1);
        drop(fast);
        f.send("y".into());
        assert!(f.lock().is_empty(), "a client that went away is forgotten");
    }
}
