//! The work queue of both controllers, keyed by placement (fleet) or job (pod): decisions for
//! one key are serialised (a key is handed to at most one worker at a time) and different
//! keys run in parallel.
//! A key added while it is being worked on is worked on again afterwards, so no change is
//! missed. Timers (ttl deadlines) run on the shared clock.

use crate::runtime::clock::SharedClock;
use k8s_openapi::jiff::Timestamp;
use std::collections::{BTreeSet, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tokio::sync::Notify;

/// How often an idle worker looks at the clock: a shared virtual clock moves without
/// notifying anyone, and a due timer must fire soon after it does.
const CLOCK_POLL: Duration = Duration::from_millis(100);

#[derive(Debug, Default)]
struct State {
    ready: VecDeque<String>,
    queued: HashSet<String>,
    active: HashSet<String>,
    /// Added while active: queue again when done.
    dirty: HashSet<String>,
    timers: BTreeSet<(Timestamp, String)>,
    closed: bool,
}

#[derive(Debug, Clone)]
pub struct WorkQueue {
    state: Arc<Mutex<State>>,
    notify: Arc<Notify>,
    clock: SharedClock,
}

impl crate::runtime::watch_cache::Touch for WorkQueue {
    fn touch(&self, key: &str) {
        self.add(key);
    }
}

impl WorkQueue {
    pub fn new(clock: SharedClock) -> WorkQueue {
        WorkQueue {
            state: Arc::default(),
            notify: Arc::new(Notify::new()),
            clock,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn add(&self, key: &str) {
        let mut state = self.lock();
        if Self::enqueue(&mut state, key) {
            drop(state);
            self.notify.notify_one();
        }
    }

    fn enqueue(state: &mut State, key: &str) -> bool {
        if state.active.contains(key) {
            state.dirty.insert(key.to_string());
            return false;
        }
        if state.queued.insert(key.to_string()) {
            state.ready.push_back(key.to_string());
            return true;
        }
        false
    }

    /// Queue `key` when the shared clock reaches `at`.
    pub fn add_at(&self, key: &str, at: Timestamp) {
        self.lock().timers.insert((at, key.to_string()));
        self.notify.notify_one();
    }

    /// Queue `key` after `delay` of real time (retry backoff, not a domain timer).
    pub fn add_after(&self, key: &str, delay: Duration) {
        let queue = self.clone();
        let key = key.to_string();
        tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            queue.add(&key);
        });
    }

    /// The next key to work on; `None` once closed. Call [`WorkQueue::done`] after.
    pub async fn next(&self) -> Option<String> {
        loop {
            let wait = {
                let mut state = self.lock();
                self.fire_timers(&mut state);
                if let Some(key) = state.ready.pop_front() {
                    state.queued.remove(&key);
                    state.active.insert(key.clone());
                    return Some(key);
                }
                if state.closed {
                    return None;
                }
                self.until_next_timer(&state)
            };
            tokio::select! {
                () = self.notify.notified() => {}
                () = tokio::time::sleep(wait) => {}
            }
        }
    }

    pub fn done(&self, key: &str) {
        let mut state = self.lock();
        state.active.remove(key);
        if state.dirty.remove(key) && Self::enqueue(&mut state, key) {
            drop(state);
            self.notify.notify_one();
        }
    }

    pub fn close(&self) {
        self.lock().closed = true;
        self.notify.notify_waiters();
    }

    fn fire_timers(&self, state: &mut State) {
        let now = self.clock.now();
        while state.timers.first().is_some_and(|(at, _)| *at <= now) {
            if let Some((_, key)) = state.timers.pop_first() {
                Self::enqueue(state, &key);
            }
        }
    }

    fn until_next_timer(&self, state: &State) -> Duration {
        let Some((at, _)) = state.timers.first() else {
            return CLOCK_POLL;
        };
        let left = at.duration_since(self.clock.now());
        Duration::try_from(left)
            .unwrap_or(Duration::ZERO)
            .min(CLOCK_POLL)
    }

    /// Keys waiting or being worked on (for tests and metrics).
    pub fn len(&self) -> usize {
        let state = self.lock();
        state.ready.len() + state.active.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::clock::{Clock, ManualClock};
    use k8s_openapi::jiff::SignedDuration;

    fn queue() -> (WorkQueue, Arc<ManualClock>) {
        let clock = ManualClock::new("2026-01-01T00:00:00Z".parse().expect("time"));
        (WorkQueue::new(clock.clone()), clock)
    }

    #[tokio::test]
    async fn a_key_is_handed_out_once_until_done() {
        let (q, _) = queue();
        q.add("a");
        q.add("a");
        q.add("b");
        assert_eq!(q.next().await.as_deref(), Some("a"), "first in, first out");
        q.add("a");
        assert_eq!(
            q.next().await.as_deref(),
            Some("b"),
            "an active key is not handed out twice"
        );
        q.done("b");
        q.done("a");
        assert_eq!(
            q.next().await.as_deref(),
            Some("a"),
            "added while active: queued again when done"
        );
        q.done("a");
        q.close();
        assert_eq!(q.next().await, None);
    }

    #[tokio::test]
    async fn timers_fire_on_the_shared_clock() {
        let (q, clock) = queue();
        let at = clock.now() + SignedDuration::from_secs(60);
        q.add_at("late", at);
        q.add("now");
        assert_eq!(q.next().await.as_deref(), Some("now"));
        q.done("now");
        let waiting = tokio::time::timeout(Duration::from_millis(300), q.next()).await;
        assert!(waiting.is_err(), "not due before the clock reaches it");
        clock.advance(SignedDuration::from_secs(60));
        let fired = tokio::time::timeout(Duration::from_secs(2), q.next()).await;
        assert_eq!(fired.ok().flatten().as_deref(), Some("late"));
    }
}
