//! Everything one server holds behind its lock.

use super::registry::Registry;
use super::rng::Rng;
use super::store::Store;
use super::watch_event::WatchEvent;
use crate::runtime::clock::{SharedClock, rfc3339_seconds};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use tokio::sync::broadcast;

/// The objects one paged list selected, shared by its pages.
pub type Snapshot = Arc<Vec<Arc<Value>>>;

/// Pages of a list served with `limit`: the matching objects as they were when the first
/// page was served, so later pages are consistent with it.
#[derive(Debug, Default)]
pub struct Snapshots {
    next_id: u64,
    pages: HashMap<u64, (u64, Snapshot)>,
    order: VecDeque<u64>,
}

/// Lists paged at once; older snapshots expire and their continue tokens get 410.
const SNAPSHOTS_KEPT: usize = 64;

impl Snapshots {
    pub fn keep(&mut self, rv: u64, items: Snapshot) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        self.pages.insert(id, (rv, items));
        self.order.push_back(id);
        if self.order.len() > SNAPSHOTS_KEPT
            && let Some(old) = self.order.pop_front()
        {
            self.pages.remove(&old);
        }
        id
    }

    pub fn get(&self, id: u64) -> Option<(u64, Snapshot)> {
        self.pages.get(&id).cloned()
    }
}

#[derive(Debug)]
pub struct State {
    pub store: Store,
    pub registry: Registry,
    pub rng: Rng,
    pub clock: SharedClock,
    pub snapshots: Snapshots,
    /// Namespaces whose content is being deleted right now: removals inside them do not
    /// restart the sweep.
    pub emptying: std::collections::HashSet<String>,
}

impl State {
    pub fn new(
        seed: u64,
        ring_capacity: usize,
        clock: SharedClock,
        sender: broadcast::Sender<Arc<WatchEvent>>,
    ) -> State {
        State {
            store: Store::new(ring_capacity, sender),
            registry: Registry::default(),
            rng: Rng::new(seed),
            clock,
            snapshots: Snapshots::default(),
            emptying: Default::default(),
        }
    }

    pub fn now(&self) -> String {
        rfc3339_seconds(self.clock.now())
    }

    pub fn now_seconds(&self) -> i64 {
        self.clock.now().as_second()
    }
}
