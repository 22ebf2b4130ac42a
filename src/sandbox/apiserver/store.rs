//! Every object of one server, its resourceVersion counter, the bounded ring of recent
//! changes and the indexes garbage collection reads. Guarded by the server's one lock, so a
//! check and the write that depends on it (an eviction's budget, a resourceVersion
//! precondition) are atomic.

use super::object;
use super::resource::StorageKey;
use super::watch_event::{EventType, WatchEvent};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::ops::Bound;
use std::sync::Arc;
use tokio::sync::broadcast;

/// Where an object lives.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Location {
    pub key: StorageKey,
    pub store_key: String,
}

pub type Table = BTreeMap<String, Arc<Value>>;

#[derive(Debug)]
pub struct Store {
    resource_version: u64,
    tables: HashMap<StorageKey, Table>,
    ring: VecDeque<Arc<WatchEvent>>,
    ring_capacity: usize,
    /// The newest resourceVersion whose event has left the ring: watching from before it
    /// would miss changes, so it gets 410 Gone.
    compacted: u64,
    by_uid: HashMap<String, Location>,
    dependents: HashMap<String, HashSet<Location>>,
    sender: broadcast::Sender<Arc<WatchEvent>>,
}

impl Store {
    pub fn new(ring_capacity: usize, sender: broadcast::Sender<Arc<WatchEvent>>) -> Store {
        Store {
            resource_version: 1,
            tables: HashMap::new(),
            ring: VecDeque::new(),
            ring_capacity: ring_capacity.max(1),
            compacted: 0,
            by_uid: HashMap::new(),
            dependents: HashMap::new(),
            sender,
        }
    }

    pub fn resource_version(&self) -> u64 {
        self.resource_version
    }

    pub fn compacted(&self) -> u64 {
        self.compacted
    }

    /// Takes the next resourceVersion for a write.
    pub fn next_resource_version(&mut self) -> u64 {
        self.resource_version += 1;
        self.resource_version
    }

    pub fn get(&self, key: &StorageKey, store_key: &str) -> Option<&Arc<Value>> {
        self.tables.get(key)?.get(store_key)
    }

    pub fn table(&self, key: &StorageKey) -> Option<&Table> {
        self.tables.get(key)
    }

    /// The objects of one namespace (all when `namespace` is None), in name order.
    pub fn range<'a>(
        &'a self,
        key: &StorageKey,
        namespace: Option<&str>,
    ) -> Box<dyn Iterator<Item = (&'a String, &'a Arc<Value>)> + 'a> {
        let Some(table) = self.tables.get(key) else {
            return Box::new(std::iter::empty());
        };
        match namespace {
            None => Box::new(table.iter()),
            Some(ns) => {
                let start = format!("{ns}/");
                let prefix = start.clone();
                Box::new(
                    table
                        .range::<String, _>((Bound::Included(start), Bound::Unbounded))
                        .take_while(move |(k, _)| k.starts_with(&prefix)),
                )
            }
        }
    }

    pub fn location_of_uid(&self, uid: &str) -> Option<&Location> {
        self.by_uid.get(uid)
    }

    /// Objects naming `uid` among their owners.
    pub fn dependents_of(&self, uid: &str) -> Vec<Location> {
        self.dependents
            .get(uid)
            .map(|set| set.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Stores `object` (whose resourceVersion the caller has set to `rv`) and tells watchers.
    pub fn put(
        &mut self,
        loc: &Location,
        object: Value,
        event_type: EventType,
        rv: u64,
    ) -> Arc<Value> {
        let object = Arc::new(object);
        let old = self
            .tables
            .entry(loc.key.clone())
            .or_default()
            .insert(loc.store_key.clone(), object.clone());
        if let Some(old) = &old {
            self.unindex(loc, old);
        }
        self.index(loc, &object);
        self.publish(WatchEvent::new(
            event_type,
            loc.key.clone(),
            rv,
            object.clone(),
            old,
        ));
        object
    }

    /// Removes an object; `last` is its final state, stamped with the deletion's `rv`.
    pub fn remove(&mut self, loc: &Location, last: Value, rv: u64) -> Option<Arc<Value>> {
        let old = self.tables.get_mut(&loc.key)?.remove(&loc.store_key)?;
        self.unindex(loc, &old);
        let last = Arc::new(last);
        self.publish(WatchEvent::new(
            EventType::Deleted,
            loc.key.clone(),
            rv,
            last.clone(),
            Some(old),
        ));
        Some(last)
    }

    /// Drops a whole table (its CRD is gone) without events, as the real server does not
    /// send any either: its watchers are closed instead.
    pub fn drop_table(&mut self, key: &StorageKey) {
        if let Some(table) = self.tables.remove(key) {
            for (store_key, object) in table {
                let loc = Location {
                    key: key.clone(),
                    store_key,
                };
                self.unindex(&loc, &object);
            }
        }
    }

    /// The ring's events after `since`, or None when some have been compacted away.
    pub fn events_since(&self, since: u64) -> Option<Vec<Arc<WatchEvent>>> {
        if since < self.compacted {
            return None;
        }
        let start = self.ring.partition_point(|e| e.resource_version <= since);
        Some(self.ring.range(start..).cloned().collect())
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Arc<WatchEvent>> {
        self.sender.subscribe()
    }

    fn publish(&mut self, event: WatchEvent) {
        let event = Arc::new(event);
        if self.ring.len() == self.ring_capacity
            && let Some(old) = self.ring.pop_front()
        {
            self.compacted = old.resource_version;
        }
        self.ring.push_back(event.clone());
        // No receiver is not an error: nobody is watching.
        let _ = self.sender.send(event);
    }

    fn index(&mut self, loc: &Location, object: &Value) {
        let uid = object::uid(object);
        if !uid.is_empty() {
            self.by_uid.insert(uid.to_string(), loc.clone());
        }
        for owner in object::owner_uids(object) {
            self.dependents
                .entry(owner)
                .or_default()
                .insert(loc.clone());
        }
    }

    fn unindex(&mut self, loc: &Location, object: &Value) {
        let uid = object::uid(object);
        if self.by_uid.get(uid) == Some(loc) {
            self.by_uid.remove(uid);
        }
        for owner in object::owner_uids(object) {
            if let Some(set) = self.dependents.get_mut(&owner) {
                set.remove(loc);
                if set.is_empty() {
                    self.dependents.remove(&owner);
                }
            }
        }
    }
}
